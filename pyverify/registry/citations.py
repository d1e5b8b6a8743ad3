"""A user's registry citing the shipped claims: ``deps:``, ``restates:``, ``corrects:``, ``sharpens:`` may name
an id of the installed content package's registry (the papers), which then resolves; an id found in neither
is an error of the citing claim, at its key's line, as it is within one registry."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from .models import Problem, Registry

FIELDS = ("deps", "restates", "corrects", "sharpens")


def _refs(claim) -> list[tuple[str, str]]:
    out = [(ref, "deps") for ref in claim.deps] + [(ref, "restates") for ref in claim.restates]
    return out + [(getattr(claim, f), f) for f in ("corrects", "sharpens") if getattr(claim, f)]


@lru_cache(maxsize=2)
def _shipped_ids(root: Path) -> frozenset[str]:
    from .loader import load_registry

    return frozenset(load_registry(root).claims)


def _shipped_root(registry: Registry) -> Path | None:
    from ..contributions import default_registry

    shipped = default_registry()
    if shipped is None or registry.source is None or Path(registry.source).resolve() == Path(shipped).resolve():
        return None  # the shipped registry itself: its own unknown ids are graph findings
    return shipped


def external_ids(registry: Registry) -> frozenset[str]:
    """The ids of the shipped registry that ``registry`` (another one) cites without defining them."""
    cited = {ref for c in registry.claims.values() for ref, _ in _refs(c) if ref not in registry.claims}
    root = _shipped_root(registry) if cited else None
    return frozenset(cited & _shipped_ids(root)) if root is not None else frozenset()


def citation_problems(registry: Registry) -> list[Problem]:
    """A user's registry citing an id that neither it nor the shipped registry has (an unknown-dep finding
    recorded for it excepted). The shipped registry itself is left to the graph check and its findings."""
    if _shipped_root(registry) is None:
        return []
    known = set(registry.claims) | external_ids(registry)
    problems = []
    for cid, claim in registry.claims.items():
        recorded = {f.target for f in claim.findings if f.type == "unknown-dep"}
        for ref, field in _refs(claim):
            if ref not in known and ref not in recorded:
                problems.append(Problem(registry.line_of(cid, field), f"{field} names unknown id {ref!r}: neither "
                                        "this registry nor the shipped one has it", cid, "unknown-id"))
    return problems
