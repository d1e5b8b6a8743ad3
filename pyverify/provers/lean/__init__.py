"""The Lean side: index of the sources, sorry audit, claim links, faithfulness audit, ``lake build``.

Modules: ``tokens`` (a Lean 4 tokenizer), ``index`` (declarations), ``binders`` (the binder structure of
a statement), ``faithful`` (quantifier order, hypotheses forcing zero), ``vacuity`` (hypotheses judged
through the numeric check and the engine's samplers), ``mapping`` (claims <-> statements, proofs
against ``deps``), ``names`` (external names against ``lean/mathlib-names``), ``build`` (``lake build``),
``audit`` (everything together, for ``pyverify lean``).
"""

from __future__ import annotations

from pathlib import Path

from ... import contributions
from ...registry import Registry
from .audit import LeanAudit, audit_project, audit_sources, formal_status
from .build import BuildResult, lake_build, project_root, toolchain
from .index import Declaration, LeanIndex, index
from .mapping import registry_links

__all__ = ["LeanAudit", "audit_project", "audit_sources", "formal_status", "BuildResult",
           "lake_build", "project_root", "toolchain", "Declaration", "LeanIndex", "index", "claim_formal_status"]


def claim_formal_status(registry: Registry, build: bool = False, lean_root: Path | None = None,
                        timeout: int = 3600) -> tuple[dict[str, dict], BuildResult]:
    """The formal status of every linked claim (for the report); ``build`` runs ``lake build`` first.
    ``lean_root``: the Lean sources (default: the installed content package's). A registry without a
    single Lean link has no formal status to look up: nothing is indexed."""
    lean_root = lean_root if lean_root is not None else contributions.lean_sources()
    if lean_root is None or not any(claim.lean is not None for claim in registry.claims.values()):
        return {}, BuildResult(False, False, "not requested" if not build else "no Lean sources to build")
    idx = index(lean_root, lean_root.resolve().parent)
    result = lake_build(project_root(lean_root), idx.declarations, timeout) if build else \
        BuildResult(False, False, "not requested")
    return formal_status(idx, registry_links(registry), result), result
