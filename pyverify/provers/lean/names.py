"""External names the Lean sources use that ``lean/mathlib-names/*.tsv`` does not list.

A conservative heuristic (it may miss names, it should rarely accuse a listed one):
- candidates are identifier tokens of declarations that are qualified (``Finset.sum_comm``), capitalised
  (``Matrix``), or contain an underscore (``mul_comm``): the shapes of library names. Plain short
  lowercase words (``x``, ``norm``, ``exp``) are skipped, since they are mostly local names;
- a candidate is known when it is declared in the project (resolved through namespaces, also as a
  suffix: ``Foo.bar`` for a declared ``Pyverify.Foo.bar``), bound locally in its declaration (binder
  groups, ``fun``/``∀``/``∃``/``intro``/``obtain``/``have``/``set`` names, ``⟨a, b⟩`` patterns), a
  projection of a local (``h.le``, ``hx.1``) or of a known lowercase term (``e.symm``), a Lean keyword or
  core tactic, or listed in a TSV file; projections and dot-calls (``.mp``, ``.symm``, ``.1``, ...) are
  stripped first, so ``Real.sqrt_pos.mpr`` is known when ``Real.sqrt_pos`` is —
  also when a listed name ends with ``.candidate`` (the file ``open``ed its namespace) or the candidate
  is a listed name's namespace or a dotted access into one (``Real.sqrt_nonneg`` via ``Real``).
"""

from __future__ import annotations

from pathlib import Path

from .index import Declaration
from .tokens import Token

LEAN_CORE = set("""
by fun λ have show from let in if then else match with do return at only using this calc suffices obtain
intro intros rintro exact exacts apply refine refine' rw rwa rewrite erw simp simp_all simpa dsimp unfold
constructor cases rcases induction use exists exfalso contradiction assumption rfl trivial sorry admit decide
omega norm_num ring ring_nf linarith nlinarith positivity field_simp gcongr push_cast norm_cast exact_mod_cast
fin_cases interval_cases ext funext congr congr_arg congrArg specialize generalize subst symm trans left right
split split_ifs by_contra by_cases push_neg change conv first try repeat all_goals any_goals next case focus skip
done infer_instance inferInstance aesop tauto absurd clear set lift mono bound
Prop Type Sort True False And Or Not Iff Eq Ne HEq Exists Subtype Nat Int Fin List Array Bool String Char
Unit PUnit Prod Sum Option Function Decidable id inferInstanceAs Classical noncomputable private protected
theorem lemma def abbrev structure instance axiom inductive class opaque example namespace section end open
variable universe where deriving extends mutual termination_by decreasing_by attribute set_option local
scoped export notation macro syntax private Type* Sort* _root_ true false
""".split())
_BINDING_KEYWORDS = {"fun", "λ", "∀", "∃", "∃!", "intro", "intros", "rintro", "obtain", "rcases", "have", "let",
                     "set", "generalize", "with", "∑", "∏", "⨆", "⨅", "∫", "∮", "⋃", "⋂", "case", "next", "induction",
                     "cases"}
# projections and dot-calls on a proof or term (`Real.sqrt_pos.mpr`, `h.symm`, `p.1`): the name before
# them is the one to look up
PROJECTIONS = {"mp", "mpr", "symm", "trans", "le", "lt", "ge", "gt", "ne", "ne'", "elim", "resolve_left",
               "resolve_right", "out", "some", "choose", "choose_spec", "property", "val", "mono", "antisymm",
               "trans_le", "trans_lt", "not_lt", "not_le", "false", "left", "right", "fst", "snd", "1", "2",
               "le_iff_lt", "subst", "to_iff", "mt", "imp", "comp", "congr_arg", "congr_fun"}


def strip_projections(name: str) -> str:
    """``Real.sqrt_one.symm`` -> ``Real.sqrt_one``; ``p.1`` -> ``p`` (repeatedly; a bare name stays)."""
    parts = name.split(".")
    while len(parts) > 1 and parts[-1] in PROJECTIONS:
        parts.pop()
    return ".".join(parts)


def load_name_lists(folder: Path) -> tuple[set[str], list[str]]:
    """The listed names, and problems with the files (line-numbered)."""
    names: set[str] = set()
    problems: list[str] = []
    for path in sorted(folder.glob("*.tsv")) if folder.exists() else []:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) < 3 or not cols[0].strip():
                problems.append(f"{path}:{n}: expected name<TAB>mathlib file<TAB>version, got {line!r}")
                continue
            names.add(cols[0].strip())
    return names, problems


def _local_names(decl: Declaration) -> set[str]:
    """Names bound inside a declaration (binders, patterns, tactic-introduced names)."""
    tokens: list[Token] = decl.params + decl.statement + decl.body
    local: set[str] = set()
    binding = False
    for i, t in enumerate(tokens):
        if t.text in _BINDING_KEYWORDS or t.text in ("(", "{", "⦃", "⟨", "|"):
            binding = True
            continue
        if t.text in (":=", "=>", ":", ")", "}", "⦄", "⟩", "←", "→"):
            binding = False
        if binding and t.kind == "ident" and "." not in t.text:
            local.add(t.text)
        if t.kind == "ident" and i + 1 < len(tokens) and tokens[i + 1].text == ":":
            local.add(t.text)
    return local


def _shaped_like_library_name(name: str) -> bool:
    # one character (ℝ, ℕ, ∑ notation, single-letter variables) is notation or local, not a library name
    return len(name) > 1 and ("." in name or "_" in name.strip("_") or name[:1].isupper())


def unknown_names(decls: list[Declaration], listed: set[str]) -> list[dict]:
    """[{name, file, line}] of candidate external names no list contains (first occurrence each)."""
    declared = {d.name for d in decls}
    suffixes = set()
    for name in declared:
        parts = name.split(".")
        suffixes.update(".".join(parts[k:]) for k in range(len(parts)))
    listed_suffixes = set()
    namespaces = set()
    for name in listed:
        parts = name.split(".")
        listed_suffixes.update(".".join(parts[k:]) for k in range(len(parts)))
        namespaces.update(".".join(parts[:k]) for k in range(1, len(parts)))
    seen: dict[str, dict] = {}
    for d in decls:
        local = _local_names(d)
        for t in d.params + d.statement + d.body:
            if t.kind != "ident":
                continue
            name = strip_projections(t.text)
            if name in seen or not _shaped_like_library_name(name) or name in local:
                continue
            head = name.split(".")[0]
            if (name in LEAN_CORE or head in local or name in suffixes or name in listed_suffixes
                    or name in namespaces):
                continue
            if head[:1].islower() and "." in name and (head in listed_suffixes or head in suffixes):
                continue  # a projection or dot-call on a known term (finSumFinEquiv.symm)
            seen[name] = {"name": name, "file": d.file, "line": t.line}
    return sorted(seen.values(), key=lambda r: (r["file"], r["line"], r["name"]))
