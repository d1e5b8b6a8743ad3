"""A rotary attention head written the way much third-party code is — the worked example of the
"Modules" section of docs/your-own-code.md.

* ``RotaryEmbedding``: an ``nn.Module`` holding ``inv_freq`` (a buffer, saved in the state dict) and a
  cos/sin table cached on the module for the integer positions 0..n-1 it has seen, extended on demand;
  split-half pairing (plane i is coordinates (i, i + d/2)); optional xpos-like decay (the query scaled by
  zeta^(r / scale_base), the key by its inverse, so the logit decays with the displacement).
* ``RotaryAttention``: projections drawn at random at construction (global RNG), an orthogonal
  post-rotation per head drawn at random too (applied to q and k after the rotary embedding; it drops out
  of the logits because it is orthogonal), float32 by default, tensors in ``(batch, heads, seq, dim)``.

``defect=`` plants one bug of a kind found in real code (``DEFECTS``); ``defect=None`` is the correct
module. ``ADAPTER`` (and one adapter per defect in ``ADAPTERS``) is what a user writes for
``pyverify certify``: about 25 lines. Run ``python examples/rotary_module.py DIR`` to write checkpoints:
``fixed.pt`` (a correct module's state dict) and ``buggy.pt`` (the same weights with a post-rotation that
is no longer orthogonal — as a run trained without the orthogonality constraint would leave it).
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import torch
from torch import nn

PYVERIFY_PLUGIN = "rotary_module"

DEFECTS = {
    "key-sign": "the keys are rotated by -r (a key-only sign flip)",
    "wrong-frequency": "plane 1 turns with plane 2's frequency (an indexing slip in the table)",
    "non-orthogonal": "the rotated vectors are scaled by 1.05 (a normalisation left in)",
    "transposed-scores": "the score matrix is k q^T instead of q k^T",
    "product-of-sums": "the score is (sum q)(sum k) instead of q^T k",
    "stale-cache": "the cos/sin cache is keyed by the sequence length, ignoring the positions (offsets)",
    "xpos-wrong-side": "the xpos decay multiplies the key and divides the query (sides exchanged)",
}


XPOS_SCALE_BASE = 64.0


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    first, second = x.chunk(2, dim=-1)
    return torch.cat((-second, first), dim=-1)


class RotaryEmbedding(nn.Module):
    def __init__(self, dim: int, base: float = 10000.0, xpos_scale_base: float | None = None,
                 defect: str | None = None):
        super().__init__()
        self.dim, self.defect, self.xpos_scale_base = dim, defect, xpos_scale_base
        self.register_buffer("inv_freq", 1.0 / base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
        if xpos_scale_base is not None:
            self.register_buffer("xpos_zeta", (torch.arange(0, dim, 2, dtype=torch.float32) + 0.4 * dim) / (1.4 * dim))
        self._cos = self._sin = None  # the cache: rows 0..n-1 (or, with the stale-cache defect, rows of one call)
        self._cached_length = 0

    def _table(self, positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """cos, sin (seq, dim) at the integer positions (seq,)."""
        if self.defect == "stale-cache":
            if self._cos is None or self._cached_length != positions.shape[0]:
                self._cos, self._sin = self._angles(positions)
                self._cached_length = positions.shape[0]
            return self._cos, self._sin
        needed = int(positions.max()) + 1
        stale = self._cos is None or self._cos.dtype != self.inv_freq.dtype or self._cos.shape[0] < needed
        if stale:
            self._cos, self._sin = self._angles(torch.arange(max(needed, 2 * self._cached_length), device=positions.device))
            self._cached_length = self._cos.shape[0]
        return self._cos[positions], self._sin[positions]

    def _angles(self, positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        inv_freq = self.inv_freq
        if self.defect == "wrong-frequency" and inv_freq.shape[0] > 2:  # a head with three planes or more
            inv_freq = torch.cat((inv_freq[:1], inv_freq[2:3], inv_freq[2:]))
        freqs = torch.outer(positions.to(inv_freq.dtype), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos(), emb.sin()

    def _decay(self, positions: torch.Tensor) -> torch.Tensor:
        power = positions.to(self.xpos_zeta.dtype)[:, None] / self.xpos_scale_base
        scale = self.xpos_zeta ** power
        return torch.cat((scale, scale), dim=-1)

    def rotate(self, x: torch.Tensor, positions: torch.Tensor, side: str = "query") -> torch.Tensor:
        """x (batch, heads, seq, dim) at positions (seq,): integer (through the cached table) or real;
        side: 'query' or 'key'."""
        if positions.is_floating_point():  # real positions: computed directly, the integer table is not used
            cos, sin = self._angles(positions)
        elif side == "key" and self.defect == "key-sign":
            cos, sin = self._angles(-positions)
        else:
            cos, sin = self._table(positions)
        out = x * cos + rotate_half(x) * sin
        if self.defect == "non-orthogonal":
            out = 1.05 * out
        if self.xpos_scale_base is not None:
            decay = self._decay(positions)
            to_query = side == "query" if self.defect != "xpos-wrong-side" else side == "key"
            out = out * decay if to_query else out / decay
        return out


class RotaryAttention(nn.Module):
    def __init__(self, dim: int = 32, heads: int = 2, head_dim: int = 8, xpos: bool = False,
                 defect: str | None = None):
        super().__init__()
        if defect is not None and defect not in DEFECTS:
            raise ValueError(f"unknown defect {defect!r}; known: {', '.join(DEFECTS)}")
        self.heads, self.head_dim, self.defect = heads, head_dim, defect
        self.qkv = nn.Linear(dim, 3 * heads * head_dim, bias=False)
        self.out = nn.Linear(heads * head_dim, dim, bias=False)
        self.rotary = RotaryEmbedding(head_dim, xpos_scale_base=XPOS_SCALE_BASE if xpos else None, defect=defect)
        self.register_buffer("post_rotation", torch.linalg.qr(torch.randn(heads, head_dim, head_dim))[0])
        self.scale = head_dim ** -0.5

    def project(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        b, s, _ = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        return q, k, v

    def scores(self, q: torch.Tensor, k: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        q = self.rotary.rotate(q, positions, "query") @ self.post_rotation.mT[None]
        k = self.rotary.rotate(k, positions, "key") @ self.post_rotation.mT[None]
        if self.defect == "transposed-scores":
            return k @ q.transpose(-1, -2) * self.scale
        if self.defect == "product-of-sums":
            return q.sum(-1, keepdim=True) * k.sum(-1)[..., None, :] * self.scale
        return q @ k.transpose(-1, -2) * self.scale

    def forward(self, x: torch.Tensor, positions: torch.Tensor | None = None) -> torch.Tensor:
        b, s, _ = x.shape
        positions = torch.arange(s, device=x.device) if positions is None else positions
        q, k, v = self.project(x)
        attn = self.scores(q, k, positions).softmax(-1)
        return self.out((attn @ v).transpose(1, 2).reshape(b, s, -1))


# --- what a user writes for pyverify: the adapter (the lines between the two markers) -----------------
# adapter-begin
from pyverify.certify.module import ModuleAdapter, RotarySpec  # noqa: E402
from pyverify.plugin import Decay  # noqa: E402


class Adapter(ModuleAdapter):
    layout, positions = "batch heads seq dim", "integer"

    def __init__(self, xpos=False, defect=None, positions="integer", head_dim=8):
        self.xpos, self.defect, self.positions, self.head_dim = xpos, defect, positions, head_dim

    def factory(self):
        return RotaryAttention(head_dim=self.head_dim, xpos=self.xpos, defect=self.defect)

    def project(self, module, x):
        return module.project(x)[:2]

    def rotate(self, module, x, positions, side):
        return module.rotary.rotate(x, positions, side)

    def logits(self, module, x, positions):
        q, k, _ = module.project(x)
        return module.scores(q, k, positions)

    def scores(self, module, q, k, positions):
        return module.scores(q, k, positions)

    def spec(self, module):
        rotary = module.rotary
        return RotarySpec(frequencies=rotary.inv_freq, pairing="half", scale=module.scale,
                          post_rotation=module.post_rotation,
                          decay=getattr(rotary, "xpos_zeta", None), decay_scale=rotary.xpos_scale_base or 1.0)
# adapter-end


ADAPTER = Adapter()
XPOS_ADAPTER = Adapter(xpos=True)
ADAPTERS = {name: Adapter(xpos=name.startswith("xpos"), defect=name) for name in DEFECTS}
ADAPTER_KEY_SIGN, ADAPTER_STALE_CACHE = ADAPTERS["key-sign"], ADAPTERS["stale-cache"]


@functools.cache
def _bindable(function: str, head_dim: int, xpos: bool, defect: str | None, dtype: str | None):
    from pyverify.certify.module import functions
    return functions(Adapter(xpos=xpos, head_dim=head_dim, defect=defect),
                     dtype=getattr(torch, dtype) if dtype else None)[function].function


def bindable(function: str, defect: str | None = None, dtype: str | None = None, xpos: bool = False):
    """The module's ``rope`` (x (..., n, d), pos (..., n)) or ``rotary_scores`` (q, k (..., n, d), pos (..., n))
    as one plain function — what a binding of the ``rotary`` / ``rotary_scores`` role calls: a module of head
    size d (built once per d a caller uses, with ``defect`` planted, in ``dtype`` or its own float32, with
    the xpos decay where ``xpos``) serves every call, warm, as in use; split-half pairing."""
    if defect is not None and defect not in DEFECTS:
        raise ValueError(f"unknown defect {defect!r}; known: {', '.join(DEFECTS)}")

    def call(*args):
        return _bindable(function, args[0].shape[-1], xpos, defect, dtype)(*args)

    call.__name__ = function
    # the precision its results are made in, as pyverify measures it on a module of this kind (float32: the
    # module's own dtype, and its float32-built frequency table even when the module runs in float64)
    call.pyverify_precision = _bindable(function, 8, xpos, defect, dtype).pyverify_precision
    if xpos:  # the decay the adapter declares, for each head size a caller uses
        call.pyverify_decay = Decay(lambda d: _bindable(function, d, xpos, defect, dtype).pyverify_decay.zeta,
                                    XPOS_SCALE_BASE, f"the adapter's (scale base {XPOS_SCALE_BASE:g})")
    return call


rope, scores = bindable("rope"), bindable("rotary_scores")


def __getattr__(name: str):
    """``rope_float64``, ``scores_key_sign``, ``scores_xpos``, ``rope_xpos_wrong_side_float64``…: the bindable
    functions of the module in float64, with the xpos decay and with each planted defect, by name (a binding
    names them as ``FILE:NAME``)."""
    function, _, rest = name.partition("_")
    if function not in ("rope", "scores"):
        raise AttributeError(name)
    dtype = "float64" if rest.endswith("float64") else None
    slug = rest.removesuffix("float64").rstrip("_")
    xpos = slug == "xpos" or slug.startswith("xpos_")
    defect = next((d for d in DEFECTS if d.replace("-", "_") == slug), None)
    if slug and slug != "xpos" and defect is None:
        raise AttributeError(name)
    return bindable("rope" if function == "rope" else "rotary_scores", defect, dtype, xpos)


def write_checkpoints(folder: Path, seed: int = 0) -> tuple[Path, Path]:
    """fixed.pt: a correct module's state dict; buggy.pt: the same but head 1's post-rotation is no longer
    orthogonal (one column stretched)."""
    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    state = RotaryAttention().state_dict()
    torch.save(state, folder / "fixed.pt")
    buggy = dict(state)
    stretch = torch.ones_like(state["post_rotation"][:, :1, :])
    stretch[1, 0, 0] = 1.2  # head 1: the first column of its post-rotation 20% too long
    buggy["post_rotation"] = state["post_rotation"] * stretch
    torch.save(buggy, folder / "buggy.pt")
    return folder / "fixed.pt", folder / "buggy.pt"


if __name__ == "__main__":
    for path in write_checkpoints(Path(sys.argv[1] if len(sys.argv) > 1 else "checkpoints")):
        print(path)
