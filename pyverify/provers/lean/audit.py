"""`pyverify lean`: index, sorry audit, formal status per claim, mapping both ways, faithfulness, names.

Formal status of a claim: ``none`` (no link, or its declaration is missing: a mapping problem),
``stated`` (a statement, but no theorem or a theorem whose proof is only ``sorry``), ``sorry`` (the proof
uses ``sorry``/``admit``, itself or through a project declaration it names), ``proof-written`` (no sorry,
but no build evidence from this run), ``checked`` (no sorry, and ``lake build`` in this very run gave
evidence for the theorem). Nothing is ever ``checked`` without a build in the same run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...checks.claim import CompiledClaim
from ...checks.validate import CheckedRegistry, check_registry
from ...registry import LeanLink, Registry
from . import faithful, vacuity
from .decide import decide
from .build import BuildResult, lake_build, project_root, toolchain
from .index import Declaration, LeanIndex, index
from .mapping import Links, both_ways, deps_audit, has_content, proof_name, read_mapping_files, registry_links, \
    statement_name
from .names import load_name_lists, unknown_names

FORMAL_ORDER = ("none", "stated", "sorry", "proof-written", "checked")


@dataclass
class LeanAudit:
    toolchain: str | None
    build: BuildResult
    index: LeanIndex
    claims: list[dict] = field(default_factory=list)
    coverage: dict[str, int] = field(default_factory=dict)
    mapping_problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    findings: list[faithful.Finding] = field(default_factory=list)
    unknown_names: list[dict] = field(default_factory=list)
    input_problems: list[str] = field(default_factory=list)  # unreadable Lean files, malformed name lists
    # per statement with hypotheses on real data: do they leave a non-trivial model (decide.py)?
    decisions: list[dict] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.mapping_problems or self.findings or self.unknown_names
                    or self.build.ran and not self.build.passed)

    def as_dict(self) -> dict:
        return {
            "toolchain": self.toolchain, "built": self.build.ran and self.build.passed, "build_ran": self.build.ran,
            "build_errors": self.build.errors,
            "declarations": [d.as_dict() for d in self.index.declarations],
            "claims": self.claims, "coverage": self.coverage, "mapping_problems": self.mapping_problems,
            "notes": self.notes, "skipped": self.skipped,
            "findings": [f.as_dict() for f in self.findings], "unknown_names": self.unknown_names,
            "input_problems": self.input_problems, "vacuity_decisions": self.decisions,
        }


def sorry_via(idx: LeanIndex, decl: Declaration) -> str | None:
    """The declaration through which ``decl`` rests on sorry (itself, or a project declaration it names)."""
    seen: set[str] = set()
    stack = [decl]
    while stack:
        d = stack.pop()
        if d.name in seen:
            continue
        seen.add(d.name)
        if d.sorry or d.axiom:
            return d.name
        for t in d.statement + d.body + d.params:
            if t.kind == "ident":
                target = idx.resolve(t.text, d.namespace)
                if target is not None and target.name not in seen:
                    stack.append(target)
    return None


def formal_status(idx: LeanIndex, links: Links, build: BuildResult) -> dict[str, dict]:
    table = idx.by_name()
    out: dict[str, dict] = {}
    for cid, link in links.links.items():
        stmt = table.get(statement_name(link))
        proof = table.get(proof_name(link) or "")
        row = {"id": cid, "lean": proof_name(link) or statement_name(link), "file": None, "line": None,
               "formal": "none", "sorry_via": None}
        shown = proof or stmt
        if shown is not None:
            row.update(file=shown.file, line=shown.line)
        if stmt is None and not isinstance(link, str):
            pass  # the statement is missing: a mapping problem, status none
        elif proof is None:
            row["formal"] = "stated" if stmt is not None and not isinstance(link, str) else "none"
        elif proof.only_sorry:
            row["formal"] = "stated"
        else:
            via = sorry_via(idx, proof)
            row["sorry_via"] = via
            if via is not None:
                row["formal"] = "sorry"
            else:
                row["formal"] = "checked" if build.declaration_ok(proof) else "proof-written"
        out[cid] = row
    return out


def coverage(registry: Registry, status: dict[str, dict]) -> dict[str, int]:
    content = [cid for cid, c in registry.claims.items() if has_content(registry, c)]
    formal = [status.get(cid, {}).get("formal", "none") for cid in content]
    return {"claims_with_content": len(content), "stated": sum(f != "none" for f in formal),
            "proved": sum(f in ("proof-written", "checked") for f in formal),
            "checked": sum(f == "checked" for f in formal), "sorry": sum(f in ("sorry", "stated") for f in formal)}


def audit_project(registry: Registry, lean_root: Path, mapping_dir: Path | None = None,
                  names_dir: Path | None = None, build: bool = False, count_models: vacuity.ModelCounter | None = None,
                  timeout: int = 3600, shown_relative_to: Path | None = None) -> LeanAudit:
    """The whole audit of a registry's Lean side. The claims' compiled checks give the names a hypothesis
    may map to, and ``count_models`` draws on them (vacuity); a check that does not compile is a finding
    of its claim here, not a reason to stop."""
    checked, problems = (registry, []) if isinstance(registry, CheckedRegistry) else check_registry(registry)
    compiled: dict[str, CompiledClaim | str] = {**checked.compiled}
    compiled.update({p.claim_id: p.message for p in problems if p.claim_id and p.claim_id not in compiled})
    idx = index(lean_root, shown_relative_to)
    links = registry_links(registry)
    if mapping_dir is not None:
        read_mapping_files(mapping_dir, links, registry)
    result = _base(idx, lean_root, names_dir, build, timeout)
    result.input_problems.extend(links.problems)
    status = formal_status(idx, links, result.build)
    result.claims = [status.get(cid) or {"id": cid, "formal": "none", "lean": None, "file": None, "line": None,
                                         "sorry_via": None} for cid in registry.claims]
    result.coverage = coverage(registry, status)
    result.skipped = links.skipped
    result.mapping_problems = both_ways(registry, idx, links)
    deps = deps_audit(registry, idx, links)
    result.mapping_problems.extend(deps.undeclared)
    result.notes = links.notes + deps.unused
    result.findings.extend(faithful.Finding(cid, "reading", msg) for cid, msg in links.reading_findings)
    table = idx.by_name()
    audited: set[str] = set()
    for cid, link in links.links.items():
        decl = table.get(statement_name(link))
        if decl is None:
            continue
        audited.add(decl.name)
        structured = link if isinstance(link, LeanLink) else None
        result.findings.extend(_syntactic(idx, decl, cid, structured, result.decisions))
        if structured is None:
            continue
        if structured.reading != "same" and not (structured.differs or "").strip():
            result.findings.append(faithful.Finding(cid, "reading", f"read {structured.reading} without `differs`"))
        _check_hypothesis_names(idx, decl, cid, structured, result)
        claim = registry.claims[cid]
        mine = compiled.get(cid)
        result.findings.extend(vacuity.unmapped_hypotheses(cid, claim, mine if not isinstance(mine, str) else None,
                                                           structured, decl.name))
        result.notes.extend(vacuity.untested_hypotheses(cid, structured))
        if count_models is not None:  # the engine's draws (handed in: the provers do not import the engine)
            result.findings.extend(vacuity.sampled_vacuity(cid, claim, mine, count_models, declaration=decl.name))
    return result


def _check_hypothesis_names(idx: LeanIndex, decl: Declaration, cid: str, link: LeanLink, result: LeanAudit) -> None:
    """Every named hypothesis binder of the statement is mapped, and every mapped key is a binder of the
    statement or the text of one of its hypotheses (an anonymous hypothesis, keyed by its proposition),
    looking through the Prop-valued helper definitions the statement names (``HeadBound τ C``)."""
    named = {b.name for b in faithful.hypothesis_binders(decl) if b.name and b.name != "_"}
    known = faithful.binder_names(decl, idx) | faithful.hypothesis_texts(decl, idx)
    for name in sorted(named - set(link.hypotheses)):
        result.findings.append(faithful.Finding(cid, "unmapped-hypothesis", f"hypothesis binder {name} of "
                                                f"{decl.name} is not in the mapping's hypotheses", decl.name,
                                                decl.file, decl.line))
    for name in sorted(k for k in link.hypotheses if k not in known and _squash(k) not in known):
        result.mapping_problems.append(f"{cid}: the mapping names hypothesis {name}, which is not a named "
                                       f"hypothesis binder of {decl.name}")


def _squash(text: str) -> str:
    return "".join(text.split())


def _syntactic(idx: LeanIndex, decl: Declaration, cid: str | None, link: LeanLink | None,
               decisions: list[dict] | None = None) -> list[faithful.Finding]:
    """The audits that need only the Lean text: quantifier order, suspect zeros, and the exact decision
    of whether the hypotheses leave a non-trivial model (recorded in ``decisions`` when given)."""
    out = faithful.quantifier_order(idx, decl, cid, link)
    out.extend(faithful.Finding(cid, "suspect-zero", reason, decl.name, decl.file, decl.line)
               for reason in faithful.zero_forcing(decl))
    node = faithful.statement_prop(decl)
    decision = decide(node) if node is not None else None
    if decision is not None:
        if decisions is not None:
            decisions.append({"claim": cid, "declaration": decl.name, "file": decl.file, "line": decl.line,
                              **decision.as_dict()})
        if decision.is_finding:
            out.append(faithful.Finding(cid, "vacuity", f"decided: {decision.reason}", decl.name, decl.file,
                                        decl.line))
    return out


def _base(idx: LeanIndex, lean_root: Path, names_dir: Path | None, build: bool, timeout: int,
          names_required: bool = True) -> LeanAudit:
    result = LeanAudit(toolchain(), BuildResult(False, False, "not requested"), idx)
    result.input_problems.extend(idx.errors)
    if build:
        result.build = lake_build(project_root(lean_root.resolve()), idx.declarations, timeout)
    names_dir = names_dir if names_dir is not None else lean_root / "mathlib-names"
    if not names_required and not names_dir.exists():
        return result  # another project's sources come without our name lists: nothing to compare with
    listed, problems = load_name_lists(names_dir)
    result.input_problems.extend(problems)
    result.unknown_names = unknown_names(idx.declarations, listed)
    return result


def audit_sources(sources: Path, names_dir: Path | None = None, build: bool = False, timeout: int = 3600) -> LeanAudit:
    """Another project's formalization: index, sorry audit and the syntactic audits (no mapping there)."""
    idx = index(sources)
    result = _base(idx, sources, names_dir, build, timeout, names_required=names_dir is not None)
    for decl in idx.declarations:
        if decl.kind in ("theorem", "lemma") and len(decl.statement) == 1 and not decl.params \
                and idx.resolve(decl.statement[0].text, decl.namespace) is not None:
            continue  # `theorem foo : FooStatement`: audited once, at the statement
        result.findings.extend(_syntactic(idx, decl, None, None, result.decisions))
    return result
