"""ESPRAttention and the rotary module in the precisions models are trained in (bf16 and fp16 parameters,
float32 parameters under bf16 autocast): the relative law holds to the rounding of the attention itself.

The reference is a RoPE layer written here, independently of the layer's code, with its rotation computed in
float32 with autocast off (the practice of the field): shifting every position by a large constant moves its
output only by the rounding of the rotated q and k to bf16. That is the noise floor; the ESPR layer must stay
within 2x of it. Planted errors (angles by a bf16 matmul, positions in the parameters' dtype: the two defects
of issue 20) must push it far above. Where CUDA is available the relative-law tests run there too
(``benchmarks/gpu_check.sh`` runs this file on a GPU machine).
"""

import contextlib

import pytest
import torch
import torch.nn.functional as F

from pyverify.attention.rotations import ESPRAttention, StructuredRotary, layer as layer_module, rotate
from pyverify.attention.rotations.precision import rotation_dtype

SHIFT = 1000.0
D, H, N, B = 128, 4, 128, 2
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
MODES = {  # name -> (parameter dtype, autocast dtype or None)
    "bf16 parameters": (torch.bfloat16, None),
    "fp16 parameters": (torch.float16, None),
    "fp32 under bf16 autocast": (torch.float32, torch.bfloat16),
}


def rope_reference(layer: ESPRAttention, x, pos):
    """RoPE attention over the layer's own projections (U = I, P = I, d_c = 1): q, k, v in the model's precision,
    angles and rotation in float32 with autocast off, rotated q, k cast back; causal SDPA; output projection."""
    Bx, Nx, Dx = x.shape
    hd, m = layer.head_dim, layer.head_dim // 2
    q, k, v = F.linear(x, layer.qkv.weight).view(Bx, Nx, 3, layer.n_heads, hd).transpose(1, 3).unbind(2)
    with torch.autocast(x.device.type, enabled=False):
        inv_freq = 10000.0 ** (-torch.arange(m, dtype=torch.float32, device=x.device) / m)
        angle = pos.to(torch.float32)[:, None, :, None] * inv_freq  # (B, 1, N, m)
        cos, sin = angle.cos(), angle.sin()

        def rotated(z):
            a, b = z[..., :m].float(), z[..., m:].float()
            return torch.cat((a * cos - b * sin, a * sin + b * cos), -1).to(z.dtype)

        q, k = rotated(q), rotated(k)
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return layer.out_proj(out.transpose(1, 2).reshape(Bx, Nx, Dx))


def relative_change(a, b) -> float:
    return ((a - b).float().norm() / a.float().norm()).item()


def layers(d_c=1, seed=0, device="cpu"):
    """The default ESPR layer (learned U, free Cayley post-rotation) moved away from I, in every mode."""
    torch.manual_seed(seed)
    base = ESPRAttention(D, H, d_c, causal=True, dtype=torch.float32)
    with torch.no_grad():
        base.basis_skew.normal_(std=0.1)
        base.post_skew.normal_(std=0.1)
    out = {}
    for name, (dtype, _) in MODES.items():
        layer = ESPRAttention(D, H, d_c, causal=True, dtype=dtype)
        layer.load_state_dict(base.state_dict())
        out[name] = layer.to(device)
    return out


def autocast_for(mode, device="cpu"):
    dtype = MODES[mode][1]
    return torch.autocast(torch.device(device).type, dtype=dtype) if dtype else contextlib.nullcontext()


def shift_defects(mode, layer, x, r, pos):
    """(ESPR's relative output change, RoPE reference's) when every position moves by SHIFT."""
    device = layer.qkv.weight.device
    x, r, pos = x.to(device, MODES[mode][0]), r.to(device), pos.to(device)
    with torch.no_grad(), autocast_for(mode, device):
        espr = relative_change(layer(x, r), layer(x, r + SHIFT))
        rope = relative_change(rope_reference(layer, x, pos), rope_reference(layer, x, pos + SHIFT))
    return espr, rope


@pytest.fixture(scope="module")
def inputs():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(B, N, D, generator=g)
    pos = torch.arange(N, dtype=torch.float32).expand(B, N)
    return x, pos


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mode", MODES)
def test_relative_law_within_twice_the_rope_noise_floor(mode, device, inputs):
    x, pos = inputs
    layer = layers(device=device)[mode]
    espr, rope = shift_defects(mode, layer, x, pos[..., None], pos)
    assert 0 < rope < 1e-2  # the floor is the attention dtype's rounding, not zero and not garbage
    assert espr <= 2 * rope, f"{mode}: shifting positions by {SHIFT:g} moves the output by {espr:.3g}, RoPE {rope:.3g}"
    print(f"{device} {mode}: relative output change under a shift of {SHIFT:g}: ESPR {espr:.3g}, RoPE floor {rope:.3g}")
    # the output itself is in the model's precision
    with torch.no_grad(), autocast_for(mode, device):
        out = layer(x.to(device, MODES[mode][0]), pos[..., None].to(device))
        assert out.dtype == (MODES[mode][1] or MODES[mode][0])


@pytest.mark.parametrize("device", DEVICES)
def test_relative_law_with_two_position_coordinates(device, inputs):
    x, pos = inputs
    layer = layers(d_c=2, device=device)["fp32 under bf16 autocast"]
    grid = torch.stack((pos % 16, pos // 16), -1)  # 2-D positions (row, column) of a 16-wide grid
    espr, rope = shift_defects("fp32 under bf16 autocast", layer, x, grid, pos)
    assert espr <= 2 * rope


@contextlib.contextmanager
def planted(monkeypatch, defect):
    with monkeypatch.context() as mp:
        if defect == "angles by an autocast matmul":  # the autocast defect: r @ freqs under autocast
            mp.setattr(layer_module, "plane_angles", lambda r, f: r @ f)
            mp.setattr(layer_module, "autocast_off", lambda device: contextlib.nullcontext())
        else:  # the issue's bf16 defect: positions rounded to the parameters' dtype
            mp.setattr(layer_module, "as_positions",
                       lambda r, dtype, device: torch.as_tensor(r, device=device).to(torch.bfloat16))
        yield


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("defect, mode", [("angles by an autocast matmul", "fp32 under bf16 autocast"),
                                          ("positions in the parameters' dtype", "bf16 parameters")])
def test_planted_precision_defects_fail_the_relative_law_test(defect, mode, device, inputs, monkeypatch):
    x, pos = inputs
    layer = layers(device=device)[mode]
    with planted(monkeypatch, defect):
        espr, rope = shift_defects(mode, layer, x, pos[..., None], pos)
    assert espr > 5 * rope, f"{defect}: {espr:.3g} vs floor {rope:.3g}"
    print(f"{device} planted '{defect}' ({mode}): ESPR {espr:.3g}, RoPE floor {rope:.3g}")


def test_positions_reach_the_rotation_in_float32_whatever_the_parameter_dtype(monkeypatch):
    seen = []
    kernel = layer_module._rotated_attention

    def spy(x, r, *args, **kwargs):
        seen.append(r.dtype)
        return kernel(x, r, *args, **kwargs)

    monkeypatch.setattr(layer_module, "_rotated_attention", spy)
    x = torch.randn(1, 5, 16)
    for dtype in (torch.bfloat16, torch.float16, torch.float32):
        layer = ESPRAttention(16, 2, 1, dtype=dtype)
        for r in (torch.arange(5)[None, :, None] + 1000, torch.full((1, 5, 1), 1001.0, dtype=torch.float64),
                  torch.full((1, 5, 1), 1001.0, dtype=torch.bfloat16)):
            layer(x.to(dtype), r)
    assert seen == [torch.float32] * 9
    layer = ESPRAttention(16, 2, 1)  # float64 parameters keep float64 positions
    layer(x.double(), torch.arange(5)[None, :, None])
    assert seen[-1] == torch.float64 and rotation_dtype(torch.bfloat16) == torch.float32


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_fixed_part_is_computed_in_float32_and_cast_back(dtype):
    """The bf16 layer's folded projection is the float32 fold of the same (rounded) parameters, rounded once."""
    torch.manual_seed(0)
    low = ESPRAttention(32, 2, 2, bias=True, dtype=dtype)
    with torch.no_grad():
        for p in low.parameters():
            p.normal_(std=0.3)
    high = ESPRAttention(32, 2, 2, bias=True, dtype=torch.float32)
    high.load_state_dict({k: v.float() for k, v in low.state_dict().items()})
    with torch.no_grad():
        (w_low, b_low), (w_high, b_high) = low._folded_qkv(), high._folded_qkv()
    assert w_low.dtype == dtype and torch.equal(w_low, w_high.to(dtype)) and torch.equal(b_low, b_high.to(dtype))
    U = low.basis()
    assert U.dtype == torch.float32
    assert (U.mT @ U - torch.eye(16)).abs().max() < 1e-5  # orthogonal to float32 rounding, not bf16's 1e-2
    assert low.post_rotation_matrix().dtype == low.generators().dtype == torch.float32
    folded = low.fold_post_rotation()
    assert folded.weight.dtype == dtype
    x, r = torch.randn(2, 6, 32, dtype=dtype), torch.randn(2, 6, 2) * 100
    with torch.no_grad():
        torch.testing.assert_close(folded(x, r), low(x, r), atol=0, rtol=0)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_layer_trains_in_low_precision(dtype):
    torch.manual_seed(0)
    layer = ESPRAttention(16, 2, 2, causal=True, dtype=dtype)
    x, r = torch.randn(2, 8, 16, dtype=dtype), torch.randn(2, 8, 2) * 50
    layer(x, r).float().square().sum().backward()
    for name, p in layer.named_parameters():
        assert p.grad is not None and p.grad.dtype == dtype and torch.isfinite(p.grad).all(), name
    with torch.no_grad():  # "free" generators run the dense reference, also in float32 inside
        free = ESPRAttention(16, 2, 2, generator_mode="free", dtype=dtype)
        assert free(x, r).dtype == dtype


@pytest.mark.parametrize("autocast", [False, True])
def test_rotary_module_rotates_in_float32_and_returns_the_input_dtype(autocast):
    torch.manual_seed(0)
    rotary = StructuredRotary(8, 2, heads=2, dtype=torch.bfloat16)
    with torch.no_grad():
        rotary.basis_skew.normal_()
    exact = StructuredRotary.from_parameters(rotary.basis_skew.float(), rotary.freqs.float(), heads=True)
    t = torch.randn(2, 2, 5, 8, dtype=torch.bfloat16)
    r = torch.arange(5, dtype=torch.float32)[None, :, None].expand(2, 5, 2) + SHIFT
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
        out = rotary.rotate_queries_or_keys(t, r)
        expected = exact.rotate_queries_or_keys(t.float(), r)
    assert out.dtype == torch.bfloat16
    assert expected.dtype == torch.float32  # float32 input stays float32, under autocast too
    torch.testing.assert_close(out, expected.to(torch.bfloat16), atol=0, rtol=0)
    # 1001 and 1002 round to the same bf16 number (1000): in float32 positions they rotate differently
    one = rotate(t[:, :, :1], torch.full((2, 1, 1, 2), 1001.0), rotary.basis(), rotary.freqs)
    two = rotate(t[:, :, :1], torch.full((2, 1, 1, 2), 1002.0), rotary.basis(), rotary.freqs)
    assert (one.float() - two.float()).abs().max() > 1e-2
