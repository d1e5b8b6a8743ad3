"""``certify`` of a module: run the layer's own forward on probe inputs and check the laws on its outputs.

Per head, each law evaluated with the cache cold (a fresh copy of the module for every call) and warm
(one copy that first served a call at other positions):

* ``relative-law`` — the logits are unchanged when every position moves by the same shift t;
* ``reference-law`` — the logits equal scale * (P R(r_i) q_i)^T (P R(r_j) k_j) (with the declared xpos
  decay), computed in float64 by pyverify from the layer's own q, k and its own parameters (``spec``);
* ``orthogonality`` — the rotation the layer applies at each position, read off column by column, is
  orthogonal (R^T R = D^2, D the declared decay, I without one), on the query and on the key side;
* ``post-rotation-drops-out`` — the layer's logits do not change when its post-rotation (a tensor the
  module holds, named by ``spec``) is set to the identity, on a copy of the module;
* ``call-history`` — the same call gives the same logits cold and warm (a stale cache fails it).

Tolerance: the layer computes in its own dtype, so a law is judged against what rounding in that dtype
explains, never in float64's terms: tol = 4 u (d + max|angle| + 4) * c, with u the unit roundoff of the
module's dtype, max|angle| the largest r * f of the probe, and c the measured condition factor of a logit,
scale * max|P R q| * max|P R k| (decay included). A comparison of two layer outputs doubles it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch

from ..checks.samplers import IntPosition, Scalar
from .locate import locate
from .module import BuiltLayer, ModuleAdapter
from .reference import decay_factors, plane_coordinates, declared_frequencies, reference_logits, reference_rotate

LAWS = ("relative-law", "reference-law", "orthogonality", "post-rotation-drops-out", "call-history")
STATES = ("cold", "warm")
CTX = {"dtype": torch.float64, "device": torch.device("cpu")}


@dataclass
class ModuleHeadReport:
    head: int
    laws: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def failing(self) -> list[str]:
        return [law for law, r in self.laws.items() if r["status"] == "fails"]


@dataclass
class ModuleReport:
    ran: dict[str, Any]
    heads: list[ModuleHeadReport]
    findings: list[str] = field(default_factory=list)  # where the defect is, when a law fails (``locate``)

    @property
    def failing(self) -> list[str]:
        return sorted({law for h in self.heads for law in h.failing}, key=LAWS.index)


def _max_per_head(t: torch.Tensor) -> torch.Tensor:
    return t.abs().transpose(0, 1).reshape(t.shape[1], -1).amax(-1)


class _Run:
    """One certify run: the probes drawn once, the laws evaluated on cold and warm modules."""

    def __init__(self, layer: BuiltLayer, seed: int, probes: int, batch: int, seq: int, max_position: int):
        self.layer, self.probes, self.batch, self.seq, self.max_position = layer, probes, batch, seq, max_position
        self.gen = torch.Generator().manual_seed(seed)
        # the layer computes in its dtype and its parameters carry the rounding of the dtype they were stored in
        self.u = max(torch.finfo(layer.dtype).eps, torch.finfo(layer.parameter_dtype).eps) / 2
        self.integer = layer.adapter.positions == "integer"
        self.spec = layer.spec(layer.prototype)
        self.dev = {law: {s: None for s in STATES} for law in LAWS}
        self.tol: torch.Tensor | None = None
        self.max_angle = 0.0
        q, _ = layer.project(layer.cold(), layer.probe(layer.cold(), 1, 2, torch.Generator().manual_seed(seed)))
        self.heads, self.layer_dim = q.shape[1], q.shape[-1]
        # the largest factor the declared decay reaches over the probes' positions (at most 2 max_position + 1)
        zeta = None if self.spec.decay is None else torch.as_tensor(self.spec.decay).detach().to(torch.float64)
        reach = (2 * max_position + 1) / self.spec.decay_scale
        self.decay_max = 1.0 if zeta is None else float(torch.maximum(zeta, 1 / zeta).max() ** reach)

    def positions(self, n: int, hi: int) -> torch.Tensor:
        sampler = IntPosition({"lo": 0, "hi": hi, "n": n}) if self.integer else Scalar({"lo": 0.0, "hi": float(hi)})
        value = sampler.value(sampler.init(1 if self.integer else n, self.gen, CTX))[0 if self.integer else slice(None)]
        return value.round().long() if self.integer else value.reshape(n)

    def record(self, law: str, state: str, dev: torch.Tensor, scale: float = 1.0) -> None:
        dev = dev / scale
        old = self.dev[law][state]
        self.dev[law][state] = dev if old is None else torch.maximum(old, dev)

    def tolerance(self, q, k, positions: torch.Tensor) -> torch.Tensor:
        """Per head: 4 u (d + max|angle| + 4) * scale * max|P R q| * max|P R k|."""
        d = q.shape[-1]
        f = declared_frequencies(self.spec, q.shape[1], d)
        self.max_angle = max(self.max_angle, float(positions.abs().max()) * float(f.abs().max()))
        qr = reference_rotate(self.spec, q, positions, "query").norm(dim=-1)
        kr = reference_rotate(self.spec, k, positions, "key").norm(dim=-1)
        cond = abs(self.spec.scale) * _max_per_head(qr[..., None]) * _max_per_head(kr[..., None])
        return 4 * self.u * (d + self.max_angle + 4) * cond.clamp_min(1e-300)

    def module_for(self, state: str, x: torch.Tensor):
        """cold: a fresh copy per call; warm: one copy that served a call at other positions first."""
        if state == "cold":
            return lambda: self.layer.cold()
        warm = self.layer.cold()
        self.layer.logits(warm, x, self.positions(self.seq, self.max_position))
        return lambda: warm

    def probe(self) -> None:
        layer, seq = self.layer, self.seq
        x = layer.probe(layer.cold(), self.batch, seq, self.gen)
        p = self.positions(seq, self.max_position)
        t = self.positions(1, self.max_position)[0] if self.integer else torch.rand((), generator=self.gen, dtype=torch.float64) * self.max_position
        t = t + 1 if self.integer else t
        q, k = (v.to(torch.float64) for v in layer.project(layer.cold(), x))
        tol = torch.maximum(self.tolerance(q, k, p), self.tolerance(q, k, p + t))
        self.tol = tol if self.tol is None else torch.maximum(self.tol, tol)
        reference = reference_logits(self.spec, q, k, p)
        logits = {}
        for state in STATES:
            module = self.module_for(state, x)
            here = layer.logits(module(), x, p).to(torch.float64)
            moved = layer.logits(module(), x, p + t).to(torch.float64)
            logits[state] = here
            self.record("relative-law", state, _max_per_head(moved - here) / tol, 2.0)
            self.record("reference-law", state, _max_per_head(here - reference) / tol)
            without = self.without_post_rotation(module(), x, p)
            if without is not None:
                self.record("post-rotation-drops-out", state, _max_per_head(here - without) / tol, 2.0)
            self.record("orthogonality", state, self.orthogonality(module(), p) / tol.new_tensor(self.orth_tol()))
        self.record("call-history", "warm", _max_per_head(logits["warm"] - logits["cold"]) / tol, 2.0)

    def without_post_rotation(self, module, x, p) -> torch.Tensor | None:
        """The layer's logits with its post-rotation set to the identity (on a copy: the module is not touched);
        None when the layer declares none or the declared one is not a tensor the module holds."""
        declared = self.layer.spec(module).post_rotation
        if declared is None:
            return None
        copy_ = self.layer.fresh_copy(module)
        held = self.layer.spec(copy_).post_rotation
        if not any(held is t for t in (*copy_.parameters(), *copy_.buffers())):
            return None
        with torch.no_grad():
            held.copy_(torch.eye(held.shape[-1], dtype=held.dtype).expand_as(held))
        return self.layer.logits(copy_, x, p).to(torch.float64)

    def orth_tol(self) -> float:
        d = self.layer_dim
        return 4 * self.u * (d + self.max_angle + 4) * self.decay_max ** 2

    def orthogonality(self, module, p: torch.Tensor) -> torch.Tensor:
        """max over sides, positions of |R^T R - D^2| with R read off the layer's rotation of the basis."""
        heads, d = self.heads, self.layer_dim
        basis = torch.eye(d, dtype=self.layer.dtype)[:, None, None, :].expand(d, heads, p.shape[0], d).contiguous()
        worst = torch.zeros(heads, dtype=torch.float64)
        for side in ("query", "key"):
            cols = self.layer.rotate(module, basis, p, side).to(torch.float64)  # (d: column, heads, seq, d)
            R = cols.permute(1, 2, 3, 0)  # (heads, seq, row, column)
            gram = R.mT @ R
            decay = decay_factors(self.spec, heads, p, side)
            diag = torch.ones(heads, p.shape[0], d, dtype=torch.float64)
            if decay is not None:
                a, b = plane_coordinates(self.spec, decay.shape[-1])
                diag[..., a], diag[..., b] = decay ** 2, decay ** 2
            defect = (gram - torch.diag_embed(diag)).abs().reshape(heads, -1).amax(-1)
            worst = torch.maximum(worst, defect)
        return worst


def certify_module(adapter: ModuleAdapter, state: dict[str, torch.Tensor] | None = None, *,
                   dtype: torch.dtype | None = None, seed: int = 0, probes: int = 3, batch: int = 2, seq: int = 8,
                   max_position: int = 64) -> ModuleReport:
    """Build the module (factory + checkpoint) through the adapter, run it on probes, judge each law per head."""
    layer = BuiltLayer(adapter, state, dtype)
    run = _Run(layer, seed, probes, batch, seq, max_position)
    for _ in range(probes):
        run.probe()
    heads = []
    for h in range(run.heads):
        rep = ModuleHeadReport(h)
        for law in LAWS:
            worst = {s: (None if run.dev[law][s] is None else float(run.dev[law][s][h])) for s in STATES}
            measured = [v for v in worst.values() if v is not None]
            if not measured:
                rep.laws[law] = {"status": "not applicable",
                                 "why": "the layer declares no post-rotation held as a parameter or buffer of the module"}
                continue
            failing = [s for s in STATES if worst[s] is not None and worst[s] > 1.0]
            rep.laws[law] = {"status": "fails" if failing else "holds", "failing_states": failing,
                             "worst_over_tolerance": max(measured), "tolerance": float(run.tol[h]),
                             **{f"{s}_over_tolerance": worst[s] for s in STATES if worst[s] is not None}}
        heads.append(rep)
    ran = {"laws": list(LAWS), "heads": run.heads, "head_dim": run.layer_dim, "probes": probes, "batch": batch,
           "seq": seq, "positions": (f"integer, int_position(0, {max_position}, n={seq}), shifted by 1..{max_position + 1}"
                                     if run.integer else f"real, scalar(0, {max_position}), shifted by U(0, {max_position})"),
           "dtype": str(layer.dtype).removeprefix("torch."),
           "module_dtype": str(layer.own_dtype).removeprefix("torch."),
           "parameter_dtype": str(layer.parameter_dtype).removeprefix("torch."),
           "cache": "each law cold (a fresh module per call) and warm (after a call at other positions)",
           "construction": layer.construction, "unit_roundoff": run.u, "max_angle": run.max_angle,
           "tolerance_rule": "4 u (d + max|angle| + 4) * scale |P R q|max |P R k|max; two layer outputs: twice that"}
    report = ModuleReport(ran, heads)
    if report.failing:
        report.findings = locate(layer, seq, run.u)
    return report
