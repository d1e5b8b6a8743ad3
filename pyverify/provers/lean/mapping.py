"""Claims <-> Lean statements: the links, both directions of the mapping, and proofs against ``deps``.

Links come from the registry's ``lean:`` fields (the single source: a statement, or for a definition
claim the Lean ``def`` that defines it, or ``skipped`` with a reason). Mapping files in the same format
(``--mapping DIR``, one key per claim id) can be read as well, and then override the registry for the
claims they map.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from pydantic import ValidationError

import networkx as nx

from ...registry import Claim, Kind, LeanLink, Registry
from ...registry.graph import build_graph
from .index import LeanIndex

# kinds without mathematical content to state: no Lean statement is expected of them
NO_CONTENT = {Kind.remark, Kind.algorithm, Kind.empirical}
_CITATION = re.compile(r"^\*\*([^*\s]+)\*\*")  # a docstring opening with **<claim id>** states that claim


def has_content(registry: Registry, claim: Claim) -> bool:
    """The claim should have a Lean statement: its document says so (``lean_statements``), and it has
    mathematical content to state."""
    return registry.lean_expected(claim) and claim.kind not in NO_CONTENT


@dataclass
class Links:
    links: dict[str, LeanLink | str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)  # claim -> the mapping's reason
    problems: list[str] = field(default_factory=list)  # bad mapping entries (file:line: message)
    notes: list[str] = field(default_factory=list)  # keys outside the format, ignored
    reading_findings: list[tuple[str, str]] = field(default_factory=list)  # (claim, message)
    sources: dict[str, str] = field(default_factory=dict)  # claim -> where its link was read


def registry_links(registry: Registry) -> Links:
    out = Links()
    for cid, claim in registry.claims.items():
        if isinstance(claim.lean, LeanLink) and claim.lean.statement is None:
            out.skipped[cid] = str(claim.lean.skipped)
        elif claim.lean is not None:
            out.links[cid] = claim.lean
            out.sources[cid] = str(registry.line_of(cid, "lean"))
    return out


def read_mapping_files(folder: Path, into: Links, registry: Registry | None = None) -> None:
    """Add the entries of ``folder/*.yaml`` to ``into`` (validated like the registry's ``lean:`` field)."""
    for path in sorted(folder.glob("*.yaml")) if folder.exists() else []:
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            into.problems.append(f"{path}:0: cannot read the mapping: {exc}")
            continue
        if not isinstance(data, dict):
            into.problems.append(f"{path}:1: a mapping file maps claim ids to entries")
            continue
        lines = _key_lines(path)
        for cid, entry in data.items():
            cid = str(cid)
            where = f"{path}:{lines.get(cid, 0)}"
            if registry is not None and cid not in registry.claims:
                into.problems.append(f"{where}: [{cid}] maps a claim id the registry does not have")
                continue
            if not isinstance(entry, dict):
                into.problems.append(f"{where}: [{cid}] entry is not a mapping")
                continue
            if entry.get("statement") is None:
                into.skipped[cid] = str(entry.get("skipped") or "no reason given")
                into.links.pop(cid, None)
                continue
            extra = sorted(set(entry) - set(LeanLink.model_fields))
            if extra:
                into.notes.append(f"{where}: [{cid}] keys outside the mapping format ignored: {', '.join(extra)}")
            fields = {k: v for k, v in entry.items() if k in LeanLink.model_fields and k != "skipped" and v is not None}
            if fields.get("reading", "same") != "same" and not str(fields.get("differs") or "").strip():
                into.reading_findings.append((cid, f"the Lean statement is read {fields['reading']} than the "
                                                   f"registry's reading, and the mapping does not say how ({where})"))
                fields["differs"] = "(not stated)"
            try:
                into.links[cid] = LeanLink.model_validate(fields)
                into.sources[cid] = where
                into.skipped.pop(cid, None)
            except ValidationError as exc:
                msg = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
                into.problems.append(f"{where}: [{cid}] {msg}")


def _key_lines(path: Path) -> dict[str, int]:
    """Line of each top-level key (for messages); ids may be quoted (an id with a prime)."""
    out = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = re.match(r"""^(["']?)([^\s:"'#][^:]*?)\1\s*:""", line)
        if m and not line.startswith((" ", "\t")):
            out[m.group(2).replace("''", "'")] = n
    return out


def cited_claim(doc: str | None) -> str | None:
    """The claim a docstring opening with ``**ID**`` states; the documents' prime ′ is the registry's '."""
    m = _CITATION.match(doc or "")
    return m.group(1).replace("′", "'") if m else None


def statement_name(link: LeanLink | str) -> str:
    return link if isinstance(link, str) else link.statement


def proof_name(link: LeanLink | str) -> str | None:
    return link if isinstance(link, str) else link.theorem


def declared_names(link: LeanLink | str) -> list[str]:
    if isinstance(link, str):
        return [link]
    return [n for n in (link.statement, link.theorem, link.negation) if n]


# claims a Lean def may formalise: what they introduce (a hypothesis becomes the predicate or set that
# the statements using it assume) is defined, not asserted
DEFINING_KINDS = {Kind.definition, Kind.notation, Kind.algorithm, Kind.hypothesis}


def is_prop_statement(decl) -> bool:
    """``def X : Prop := ...``, a theorem or a lemma: something that states (rather than defines)."""
    return decl.kind in ("theorem", "lemma") or (decl.kind == "def" and [t.text for t in decl.statement] == ["Prop"])


def both_ways(registry: Registry, idx: LeanIndex, links: Links) -> list[str]:
    """Claims that should have a statement and have none; statements no claim links; dangling names; a
    claim that asserts something linked to a mere definition (only definition/notation claims may be)."""
    problems = []
    table = idx.by_name()
    for cid, claim in registry.claims.items():
        if not has_content(registry, claim):
            continue
        if cid not in links.links and cid not in links.skipped:
            problems.append(f"{cid}: no Lean statement (kind {claim.kind.value}; its document {claim.document} "
                            "expects one)")
    linked = set()
    for cid, link in links.links.items():
        for name in declared_names(link):
            linked.add(name)
            if name not in table:
                problems.append(f"{cid}: declaration {name} not found in the Lean sources "
                                f"(linked at {links.sources.get(cid, '?')})")
        stmt = table.get(statement_name(link))
        claim = registry.claims.get(cid)
        if stmt is not None and claim is not None and claim.kind not in DEFINING_KINDS \
                and not is_prop_statement(stmt):
            problems.append(f"{cid}: {stmt.name} is a definition, not a statement, but {cid} is of kind "
                            f"{claim.kind.value} (only definition, notation, algorithm and hypothesis claims are formalised by a def)")
    for decl in idx.declarations:
        cited = cited_claim(decl.doc)
        is_statement = decl.kind == "def" and decl.short.endswith("Statement")
        if cited and cited not in registry.claims:
            problems.append(f"{decl.file}:{decl.line}: {decl.name} cites {cited}, which is not a claim id")
        if is_statement and decl.name not in linked:
            who = f" (its docstring cites {cited})" if cited else ""
            problems.append(f"{decl.file}:{decl.line}: statement {decl.name} is linked to no claim{who}")
    return problems


@dataclass
class DepsAudit:
    undeclared: list[str] = field(default_factory=list)  # a proof uses a claim its deps do not list
    # informational: formalized deps the proof does not use, uses a truncated deps list may have named
    unused: list[str] = field(default_factory=list)


def deps_audit(registry: Registry, idx: LeanIndex, links: Links) -> DepsAudit:
    """Per proof: the claims whose theorems (or statements) its body names, against the registry's deps.
    A definition a listed dep builds on (reached through deps) may be used without being listed: deps
    name the results a proof cites, and a definition comes with the claims that use it."""
    owner: dict[str, str] = {}  # declaration name -> claim
    for cid, link in links.links.items():
        for name in declared_names(link):
            owner.setdefault(name, cid)
    out = DepsAudit()
    graph = build_graph(registry)
    for cid, link in links.links.items():
        proof = idx.by_name().get(proof_name(link) or "")
        if proof is None or proof.only_sorry:
            continue
        used = set()
        for t in proof.body:
            if t.kind == "ident":
                target = idx.resolve(t.text, proof.namespace)
                if target is not None and target.name in owner and owner[target.name] != cid:
                    used.add(owner[target.name])
        claim = registry.claims[cid]
        allowed = set(claim.deps) | ({claim.corrects} if claim.corrects else set())
        allowed |= {d for d in _reachable(graph, allowed | {cid}) if registry.claims[d].kind in DEFINING_KINDS}
        for other in sorted(used - allowed):
            if claim.deps_truncated:  # the printed list is cut off: it may have named it
                out.unused.append(f"{cid}: the proof {proof.name} uses {other}, which the (truncated) deps of "
                                  f"{cid} do not list")
            else:
                out.undeclared.append(f"{cid}: the proof {proof.name} uses {other}, which deps of {cid} do not list")
        for dep in claim.deps:
            dep_link = links.links.get(dep)
            if dep_link is not None and proof_name(dep_link) and dep not in used:
                out.unused.append(f"{cid}: deps list {dep} (formalized as {proof_name(dep_link)}), "
                                  f"which the proof {proof.name} does not use")
    return out


def _reachable(graph: nx.DiGraph, starts: set[str]) -> set[str]:
    """The claims reached from ``starts`` through deps (the starts themselves included)."""
    out = set(starts)
    for s in starts:
        if s in graph:
            out |= nx.descendants(graph, s)
    return out
