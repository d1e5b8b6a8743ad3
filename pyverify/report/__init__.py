"""The report: per-claim verdicts, evidence, standing, formal status, dependencies and implementation
coverage, as one dict (``model.build``) that the writers render.

Data flows one way: registry -> engine verdicts (+ Lean status) -> ``build`` -> writers (``report.json``,
``report.md``, ``index.html``, plots). Nothing here computes a verdict.
"""

from .model import build, collect_meta

__all__ = ["build", "collect_meta"]
