"""`torch.compile(model, backend="coil")` against eager: functions of the zoo, real architectures
built as users build them (random weights), eager fallbacks with their warning, `strict`,
options, and a second input shape. Run by `cargo xtask test` (pytest in the repo's .venv)."""

import copy
import warnings

import pytest
import torch

import coil
from zoo_modules import Fn, SeedModel, zoo

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.fixture(autouse=True)
def fresh():
    # coil computes f32 as f32; eager's CUDA convolutions would otherwise use TF32.
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(0)
    torch._dynamo.reset()
    coil.reset_stats()
    yield


def compiled(module, *args, **options):
    """Eager and coil results of `module(*args)` (no_grad, static shapes)."""
    module.eval()
    with torch.no_grad():
        want = module(*args)
        f = torch.compile(module, backend="coil", dynamic=False, options=options or None)
        got = f(*args)
    return want, got


def first_tensor(out):
    if isinstance(out, torch.Tensor):
        return out
    for key in ("logits", "last_hidden_state"):
        if hasattr(out, key):
            return getattr(out, key)
    return first_tensor(out[0])


def assert_close(want, got):
    torch.testing.assert_close(first_tensor(got), first_tensor(want), rtol=1e-4, atol=1e-5)


def assert_all_compiled():
    stats = coil.torch_stats()
    assert stats["graphs_compiled"] >= 1, stats
    assert stats["graphs_to_eager"] == [], stats


class Softmax(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(x, -1)


class Attention(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.out = torch.nn.Linear(d, d)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, -1)
        a = torch.softmax(q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5, -1)
        return self.out(a @ v)


ZOO = {name: (make, inputs) for name, make, inputs in zoo("tiny")}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(ZOO))
def test_zoo_functions_match_eager(name, device):
    make, inputs = ZOO[name]
    module = make().to(device)
    args = [t.to(device) for t in inputs()]
    want, got = compiled(module, *args)
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for w, g in zip(want, got):
            torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5)
    else:
        assert_close(want, got)
    assert_all_compiled()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "make, shape",
    [
        (lambda: torch.nn.LayerNorm(48), (8, 48)),
        (lambda: Attention(32), (2, 16, 32)),
        (
            lambda: torch.nn.Sequential(
                torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 8)
            ),
            (4, 16),
        ),
    ],
)
def test_library_modules_match_eager(make, shape, device):
    module = make().to(device)
    x = torch.randn(*shape, device=device)
    want, got = compiled(module, x)
    assert_close(want, got)
    assert_all_compiled()


def real_models():
    import timm
    import torchvision
    import transformers as T

    def hf(cls, cfg):
        return lambda: cls(cfg)

    return [
        ("resnet18", lambda: torchvision.models.resnet18(num_classes=10), "image", (1, 3, 32, 32)),
        (
            "mobilenet_v3_small",
            lambda: torchvision.models.mobilenet_v3_small(num_classes=10),
            "image",
            (2, 3, 64, 64),
        ),
        (
            "vit_tiny",
            lambda: timm.create_model(
                "vit_tiny_patch16_224", img_size=32, patch_size=8, num_classes=10, pretrained=False
            ),
            "image",
            (1, 3, 32, 32),
        ),
        (
            "gpt2",
            hf(
                T.GPT2LMHeadModel,
                T.GPT2Config(
                    n_layer=2, n_embd=64, n_head=2, vocab_size=1000, n_positions=64,
                    bos_token_id=0, eos_token_id=0, attn_implementation="eager",
                ),
            ),
            "tokens",
            (1, 16),
        ),
        (
            "bert",
            hf(
                T.BertModel,
                T.BertConfig(
                    num_hidden_layers=2, hidden_size=64, num_attention_heads=2,
                    intermediate_size=128, vocab_size=1000, attn_implementation="eager",
                ),
            ),
            "tokens",
            (1, 16),
        ),
        (
            "llama",
            hf(
                T.LlamaForCausalLM,
                T.LlamaConfig(
                    num_hidden_layers=2, hidden_size=64, num_attention_heads=2,
                    num_key_value_heads=2, intermediate_size=128, vocab_size=1000,
                    bos_token_id=0, eos_token_id=0, attn_implementation="eager",
                ),
            ),
            "tokens",
            (1, 16),
        ),
    ]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v3_small", "vit_tiny", "gpt2", "bert", "llama"])
def test_real_models_match_eager_with_every_graph_compiled(name, device):
    _, make, kind, shape = next(m for m in real_models() if m[0] == name)
    module = make().to(device)
    if kind == "image":
        x = torch.randn(*shape, device=device)
    else:
        x = torch.randint(0, 1000, shape, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the libraries' own (config) warnings
        want, got = compiled(module, x)
    assert_close(want, got)
    assert_all_compiled()


def uses_an_op_coil_lacks(x):
    # `aten.histc` has neither a lowering nor an eager version in coil.
    return torch.histc(x, 10) + 1


def test_an_op_coil_lacks_runs_through_aten_with_one_warning_and_the_rest_compiles():
    # Inductor's implicit fallback: the graph splits at the op, ATen runs it between coil's
    # compiled segments.
    x = torch.rand(8) + 2
    with pytest.warns(UserWarning, match="coil: aten.histc.default runs through ATen"):
        got = torch.compile(uses_an_op_coil_lacks, backend="coil")(x)
    torch.testing.assert_close(got, uses_an_op_coil_lacks(x))
    stats = coil.torch_stats()
    assert stats["graphs_compiled"] == 1 and stats["graphs_to_eager"] == [], stats
    assert stats["fallback_ops"] == ["aten.histc.default"], stats
    assert stats["aten_extern_calls"] == 1 and stats["kernels"] >= 1, stats


def test_strict_raises_instead():
    x = torch.rand(8) + 2
    f = torch.compile(uses_an_op_coil_lacks, backend="coil", options={"strict": True})
    with pytest.raises(Exception, match="coil cannot compile this graph.*histc"):
        f(x)


def test_options_reach_coil(tmp_path):
    x = torch.randn(16, 100)
    want, got = compiled(Softmax(), x, debug_dir=str(tmp_path), strategy="none")
    assert_close(want, got)
    assert (tmp_path / "ir_pre_fusion.txt").exists()
    assert "torch.ops.aten" in (tmp_path / "graph.py").read_text()
    # The `none` strategy fuses nothing: the fusion log says so.
    assert "no fusion" in (tmp_path / "fusion.log").read_text()
    with pytest.raises(Exception, match="unknown option"):
        torch.compile(Softmax(), backend="coil", options={"no_such_option": 1})(x)


def test_the_logs_option_logs_coils_stages(capfd):
    x = torch.randn(16, 100)
    torch._dynamo.reset()
    want, got = compiled(Softmax(), x, logs="fusion")
    assert_close(want, got)
    err = capfd.readouterr().err
    assert "fusion" in err, err
    coil._native.set_logs("")
    torch._dynamo.reset()
    compiled(Softmax(), x * 2)
    assert "fusion" not in capfd.readouterr().err
    with pytest.raises(Exception, match="not a log spec"):
        coil._native.set_logs("fusion=[")


def test_a_second_input_shape_compiles_a_second_graph():
    module = SeedModel(64).eval()
    f = torch.compile(module, backend="coil", dynamic=False)
    with torch.no_grad():
        for rows in (32, 8):
            x = torch.randn(rows, 64)
            torch.testing.assert_close(f(x), module(x), rtol=1e-4, atol=1e-5)
    assert coil.torch_stats()["graphs_compiled"] == 2


def test_the_entry_point_registers_the_backend():
    from importlib.metadata import entry_points

    eps = entry_points(group="torch_dynamo_backends")
    assert any(e.name == "coil" and e.load() is coil.backend for e in eps)
    assert "coil" in torch._dynamo.list_backends()


def captured_graphs(monkeypatch, module, *args):
    """The ATen graphs (and their example inputs) AOTAutograd hands coil for `module(*args)`."""
    import coil._backend as b

    seen = []
    original = b._compile

    def spy(gm, example_inputs, options, trusted):
        seen.append((gm, list(example_inputs)))
        return original(gm, example_inputs, options, trusted)

    monkeypatch.setattr(b, "_compile", spy)
    # Traced here, not taken from the trace cache (which hands `_compile` Dynamo's graph).
    monkeypatch.setattr(b.trace_cache, "directory", lambda: None)
    compiled(module, *args)
    assert seen
    return seen


@pytest.mark.parametrize("name", ["resnet18", "gpt2", "bert"])
def test_the_fx_graph_and_its_readable_text_give_the_same_graph(monkeypatch, name):
    from coil import _native
    from coil._backend import lift_constants, readable
    from coil._fx import describe

    _, make, kind, shape = next(m for m in real_models() if m[0] == name)
    x = torch.randn(*shape) if kind == "image" else torch.randint(0, 1000, shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graphs = captured_graphs(monkeypatch, make(), x)
    for gm, inputs in graphs:
        lifted, consts = lift_constants(gm)
        desc, _ = describe(lifted, inputs + consts, eager_strides=False)
        direct = _native.print_graph(desc)
        assert direct == _native.print_graph(readable(lifted))
        assert "torch.ops.aten" in direct


class TransposedOutputs(torch.nn.Module):
    def forward(self, x):
        y = torch.relu(x) * 2
        return y.t(), (y + 1).permute(1, 0)[:, 1:], y.unsqueeze(1)


@pytest.mark.parametrize("device", DEVICES)
def test_outputs_have_eager_strides(device):
    x = torch.randn(12, 20, device=device)
    want, got = compiled(TransposedOutputs(), x)
    assert len(got) == len(want)
    for w, g in zip(want, got):
        torch.testing.assert_close(g, w)
        assert g.stride() == w.stride(), (g.stride(), w.stride())
    conv = torch.nn.Conv2d(3, 8, 3).to(device).to(memory_format=torch.channels_last)
    img = torch.randn(2, 3, 10, 10, device=device).to(memory_format=torch.channels_last)
    want, got = compiled(conv, img)
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
    assert got.stride() == want.stride()
    assert_all_compiled()


@pytest.mark.parametrize("device", DEVICES)
def test_non_contiguous_inputs_are_read_correctly(device):
    module = SeedModel(48).to(device)
    x = torch.randn(48, 32, device=device).t()  # strides (1, 32)
    want, got = compiled(module, x)
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
    assert_all_compiled()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_inputs_off_16_byte_alignment_are_read_correctly(device, dtype):
    # Contiguous views whose data starts 1 and 3 elements into their storage: coil's kernels
    # access 16 bytes at a time, so such inputs are copied (CUDA) or read in place (CPU).
    # The result must be the one the same compiled model gives an aligned copy, bit for bit
    # (and, in f32, eager's).
    module = SeedModel(32).to(device).to(dtype).eval()
    base = torch.randn(64 * 32 + 3, device=device, dtype=dtype)
    f = torch.compile(module, backend="coil", dynamic=False)
    with torch.no_grad():
        for start in (1, 3):
            x = base[start : start + 64 * 32].view(64, 32)
            assert x.is_contiguous() and x.data_ptr() % 16 != 0
            got, aligned = f(x), f(x.clone())
            assert torch.equal(got, aligned)
            if dtype == torch.float32:
                torch.testing.assert_close(got, module(x), rtol=1e-4, atol=1e-5)
    assert_all_compiled()


def test_a_compiled_graph_called_with_wrong_inputs_is_an_error():
    from torch.fx.experimental.proxy_tensor import make_fx

    x = torch.randn(4, 8)
    gm = make_fx(lambda a: (torch.relu(a) + 1,))(x)
    run = coil.compile_fx(gm, [x], strict=True)
    torch.testing.assert_close(run(x)[0], torch.relu(x) + 1)
    with pytest.raises(ValueError, match="compiled for"):
        run(torch.randn(4, 9))
    with pytest.raises(ValueError, match="compiled for"):
        run(torch.randn(4, 8, dtype=torch.float64))


def test_a_training_graph_gives_eager_gradients():
    # Grad enabled and parameters requiring it: AOTAutograd's forward is compiled by coil,
    # its backward runs eagerly; the gradients are eager's.
    torch.manual_seed(0)
    module = SeedModel(32)
    x = torch.randn(8, 32)
    module(x).square().sum().backward()
    want = [p.grad.clone() for p in module.parameters()]
    module.zero_grad()
    torch.compile(module, backend="coil", dynamic=False)(x).square().sum().backward()
    for w, p in zip(want, module.parameters()):
        torch.testing.assert_close(p.grad, w, rtol=1e-4, atol=1e-5)
    assert_all_compiled()


def mutates_its_input(x, y):
    x.mul_(2)
    return torch.relu(x + y)


def test_a_graph_that_mutates_an_input_writes_it_back():
    x, y = torch.randn(16, 8), torch.randn(16, 8)
    x2 = x.clone()
    with torch.no_grad():
        got = torch.compile(mutates_its_input, backend="coil", dynamic=False)(x2, y)
    want = mutates_its_input(x, y)
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(x2, x)
    assert_all_compiled()


def writes_a_transposed_input(x, y):
    x.add_(y)
    return x.sum(0)


def test_a_non_contiguous_input_written_in_place_is_written():
    # The new value cannot be computed into a transposed input's memory: the call copies it
    # in, as the graph's `copy_` (kept in the graph, `_writes`) would.
    base, y = torch.randn(8, 16), torch.randn(16, 8)
    x = base.t()
    want_x = x.clone().add_(y)
    with torch.no_grad():
        got = torch.compile(writes_a_transposed_input, backend="coil", dynamic=False)(x, y)
    torch.testing.assert_close(x, want_x)
    torch.testing.assert_close(got, want_x.sum(0))
    assert_all_compiled()


def returns_its_written_input(x, y):
    x.mul_(y)
    return x, x * 2


def test_an_input_written_and_returned_is_the_input_itself():
    x, y = torch.randn(5, 7), torch.randn(5, 7)
    want = x * y
    with torch.no_grad():
        got, doubled = torch.compile(returns_its_written_input, backend="coil", dynamic=False)(
            x, y
        )
    assert got is x  # as eager's in-place op returns its input
    torch.testing.assert_close(x, want)
    torch.testing.assert_close(doubled, want * 2)
    assert_all_compiled()


class AccumulatesInATransposedBuffer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(3, 4).t())  # not contiguous

    def forward(self, x):
        self.total.add_(x)
        return x * 2


def test_a_buffer_written_through_a_copy_counts_one_version_as_eager():
    # The buffer is not contiguous, so its new value is copied in after the call; that copy
    # is the graph's write, which AOTAutograd counts already: one version a call, as eager.
    eager, compiled = AccumulatesInATransposedBuffer(), AccumulatesInATransposedBuffer()
    run = torch.compile(compiled, backend="coil", dynamic=False)
    x = torch.randn(4, 3)
    before = (eager.total._version, compiled.total._version)
    with torch.no_grad():
        want, got = eager(x), run(x)
    assert compiled.total._version - before[1] == eager.total._version - before[0]
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(compiled.total, eager.total)
    assert_all_compiled()


def _traced_with_aten_copies(f):
    """`f` traced to FX with its `copy_` method calls as AOTAutograd spells them: the ATen
    overload."""
    gm = torch.fx.symbolic_trace(f)
    for n in gm.graph.nodes:
        if n.op == "call_method" and n.target == "copy_":
            n.op, n.target = "call_function", torch.ops.aten.copy_.default
    gm.recompile()
    return gm


def test_split_writes_moves_copies_into_inputs_to_outputs():
    from coil._writes import split_writes

    def f(a, b):
        c = a + b
        a.copy_(c)
        return (c * 2,)

    new_gm, writes, n_outputs, returned = split_writes(_traced_with_aten_copies(f))
    assert (writes, n_outputs, returned) == ([(1, 0)], 1, [])
    assert not any(n.target is torch.ops.aten.copy_.default for n in new_gm.graph.nodes)
    a, b = torch.randn(3), torch.randn(3)
    doubled, new_a = new_gm(a.clone(), b)
    torch.testing.assert_close(new_a, a + b)
    torch.testing.assert_close(doubled, (a + b) * 2)

    # Two writes into one input keep their order in the graph: not split.
    def g(a, b):
        a.copy_(b)
        a.copy_(b * 2)
        return (b,)

    assert split_writes(_traced_with_aten_copies(g)) is None

    # An input read after its write must see the new value: not split either.
    def h(a, b):
        a.copy_(b)
        return (a + 1,)

    assert split_writes(_traced_with_aten_copies(h)) is None


class Remainders(torch.nn.Module):
    def forward(self, x, i):
        # roll decomposes into index arithmetic with fmod (as swin_t's shifted windows do).
        rolled = torch.roll(x, shifts=(3, -2), dims=(0, 1))
        return rolled, torch.fmod(x, 0.7), torch.remainder(x, -0.7), i % 5, torch.fmod(i, -4)


@pytest.mark.parametrize("device", DEVICES)
def test_fmod_remainder_and_roll_match_eager(device):
    x = torch.randn(12, 9, device=device) * 4
    i = torch.randint(-50, 50, (12, 9), device=device)
    want, got = compiled(Remainders(), x, i)
    for w, g in zip(want, got):
        torch.testing.assert_close(g, w)
    assert_all_compiled()


class NarrowInts(torch.nn.Module):
    def forward(self, a, u, s, x, h):
        # int8/uint8/int16 wrap after every op inside a fused kernel; bit ops and shifts run in
        # kernels; view(dtype) is a bitcast of the same size, or another element size.
        return (
            (a * a) // 3 + 100,
            (a * 3) > 0,
            u + 200,
            (u ^ 0x0F) >> 2,
            a.to(torch.int16) * s,
            s << 3,
            (x + 1).view(torch.int32) & 0x7FFFFF,
            h.view(torch.int16) >> 1,
            x.view(torch.uint8) + 1,
            u.view(torch.int8).sum(),
        )


@pytest.mark.parametrize("device", DEVICES)
def test_narrow_ints_bit_ops_and_view_dtype_match_eager(device):
    a = torch.randint(-128, 128, (6, 16), device=device, dtype=torch.int8)
    u = torch.randint(0, 256, (6, 16), device=device, dtype=torch.uint8)
    s = torch.randint(-32768, 32768, (6, 16), device=device, dtype=torch.int16)
    x = torch.randn(6, 16, device=device)
    h = torch.randn(6, 16, device=device, dtype=torch.bfloat16)
    want, got = compiled(NarrowInts(), a, u, s, x, h)
    for w, g in zip(want, got):
        assert g.dtype == w.dtype
        torch.testing.assert_close(g, w, rtol=0, atol=0)
    assert_all_compiled()


class SliceAssign(torch.nn.Module):
    def forward(self, x, y):
        x = x * 2
        x[:, 1:7:2] = torch.relu(y)  # functionalized into slice_scatter
        x[-1] = 0.5
        return x + 1


@pytest.mark.parametrize("device", DEVICES)
def test_slice_assignment_matches_eager(device):
    x, y = torch.randn(5, 8, device=device), torch.randn(5, 3, device=device)
    want, got = compiled(SliceAssign(), x, y)
    torch.testing.assert_close(got, want)
    assert_all_compiled()


class DecomposedOps(torch.nn.Module):
    """Ops coil compiles as PyTorch's decompositions of them (`_backend._EXTRA_DECOMPOSITIONS`)."""

    def __init__(self):
        super().__init__()
        self.norm = torch.nn.GroupNorm(2, 6)

    def forward(self, x, v, m):
        up = torch.nn.functional.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
        near = torch.nn.functional.interpolate(x, scale_factor=2, mode="nearest")
        patches = x.unfold(3, 2, 1)
        y = x.masked_fill(x > 1.5, float("inf"))
        flags = torch.isinf(y) | torch.isnan(y.log())
        return (
            self.norm(x),
            x.repeat(2, 1, 1, 3),
            up,
            near,
            patches,
            flags,
            torch.logical_xor(x > 0, flags),
            torch.addmv(v, m, v),
            torch.diagonal(m, 1),
            torch.sign(y.nan_to_num(nan=float("nan"), posinf=0.0) * (x > 0.3)),
            *torch.max(torch.round(x), dim=2),
            *torch.min(torch.round(y), dim=-1, keepdim=True),
            torch.max(y),
            torch.min(x[0, 0]),
            torch.max(x > 0),
        )


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_ops_coil_takes_as_decompositions_match_eager(device, dtype):
    torch.manual_seed(0)
    model = DecomposedOps().to(device).to(dtype)
    x = torch.randn(2, 6, 5, 4, device=device, dtype=dtype)
    v = torch.randn(5, device=device, dtype=dtype)
    m = torch.randn(5, 5, device=device, dtype=dtype)
    want, got = compiled(model, x, v, m)
    for w, g in zip(want, got):
        if w.is_floating_point():
            # Group norm's statistics are f32 inside both ways; bf16 rounds where each does.
            torch.testing.assert_close(g.float(), w.float(), rtol=4 * (1.6e-2 if dtype == torch.bfloat16 else 1.3e-6), atol=1e-2 if dtype != torch.float32 else 1e-5)
        else:
            assert torch.equal(g, w)
    assert_all_compiled()


class MoreDecomposedOps(torch.nn.Module):
    """Ops coil takes as Inductor's decompositions of them or its own (`_decomp.py`):
    signbit, prims' div and iota, empty_strided, masked_scatter, adaptive max pooling with
    uneven windows, fmax/fmin, dist."""

    def forward(self, x, a, b, i, j, mask, src):
        prims = torch.ops.prims
        iota = prims.iota.default(
            7, start=3, step=-2, dtype=torch.int64, device=x.device, requires_grad=False
        )
        strided = torch.empty_strided((3, 4), (1, 3), device=x.device, dtype=x.dtype)
        strided.copy_(x[0, 0, :3, :4])
        return (
            torch.signbit(a),
            prims.div(i, j),
            prims.div(a, b),
            iota * 2,
            strided,
            x.masked_scatter(mask, src),
            *torch.nn.functional.adaptive_max_pool2d(x, (3, 2), return_indices=True),
            torch.fmax(a, b),
            torch.fmin(a, b),
            torch.dist(a, b),
            torch.dist(a, b, p=1.5),
        )


@pytest.mark.parametrize("device", DEVICES)
def test_ops_taken_as_inductors_or_coils_decompositions_match_eager(device):
    torch.manual_seed(0)
    x = torch.randn(2, 3, 7, 5, device=device)
    x[0, 1, 2, 3] = float("nan")
    special = [0.0, -0.0, float("nan"), -float("nan"), float("inf"), -float("inf"), 1.0, -2.0]
    a = torch.tensor(special, device=device)
    b = torch.tensor(special[::-1], device=device)
    i = torch.tensor([7, -7, 9, -9, 1, 0, 100, -3], device=device)
    j = torch.tensor([2, 2, -4, -4, 3, 5, 7, 2], device=device)
    mask = torch.rand(2, 3, 7, 5, device=device) > 0.5
    src = torch.randn(300, device=device)
    want, got = compiled(MoreDecomposedOps(), x, a, b, i, j, mask, src)
    names = ["signbit", "div int", "div float", "iota", "empty_strided", "masked_scatter",
             "adaptive max", "adaptive max indices", "fmax", "fmin", "dist", "dist 1.5"]
    for name, w, g in zip(names, want, got):
        assert g.dtype == w.dtype, name
        assert g.stride() == w.stride(), name
        torch.testing.assert_close(g, w, equal_nan=True, msg=name)
    assert_all_compiled()


class SearchAndResize(torch.nn.Module):
    def forward(self, x, bounds, seq, ints):
        return (
            torch.bucketize(x, bounds),
            torch.bucketize(x, bounds, right=True, out_int32=True),
            torch.bucketize(ints, torch.tensor([1, 4, 9, 16], device=x.device)),
            torch.searchsorted(seq, x[:3, :5]),
            torch.searchsorted(seq, x[:3, :5], side="right"),
            torch.searchsorted(bounds, x[0, 0]),
            torch.ops.aten.resize(x, [3, 2]),
            torch.ops.aten.resize(x.t(), [2, 2, 2], memory_format=torch.contiguous_format),
        )


@pytest.mark.parametrize("device", DEVICES)
def test_bucketize_searchsorted_and_resize_match_eager(device):
    x = torch.randn(4, 6, device=device)
    x[1, 2], x[2, 3] = float("nan"), 0.5  # NaN goes after every boundary; 0.5 is one
    bounds = torch.tensor([-1.0, -0.25, 0.0, 0.5, 1.5], device=device)
    seq = torch.sort(torch.randn(3, 7, device=device)).values
    seq[1, 3] = seq[1, 4]  # a tie: left and right sides differ
    ints = torch.randint(0, 20, (5, 5), device=device)
    want, got = compiled(SearchAndResize(), x, bounds, seq, ints)
    for i, (w, g) in enumerate(zip(want, got)):
        assert g.dtype == w.dtype and g.stride() == w.stride(), i
        torch.testing.assert_close(g, w, equal_nan=True, msg=f"output {i}")
    assert_all_compiled()


class ScattersAndSorts(torch.nn.Module):
    """Writes at indirect positions and sorts, as kernels on either device: scatter,
    scatter_add with duplicates (atomic adds), index_put with and without accumulating
    (negative indices, two index tensors), scatter_reduce(sum) without self, sort and
    topk with ties and NaN."""

    def forward(self, x, idx, src, rows, h, v):
        y = x * 2
        return (
            y.scatter_add(0, idx, src),
            x.scatter(1, idx[:, :3].t().contiguous() % 6, 1.5),
            torch.index_put(y, (rows,), v, accumulate=True),
            torch.index_put(x, (rows[:2], rows[2:4] % 6), v[0, :2]),
            x.scatter_reduce(0, idx, src, "sum", include_self=False),
            h.scatter_add(0, idx[:2], h[:2] * 3),
            *torch.sort(x, dim=1, descending=True),
            # Ties along dim 0: only a stable sort has one answer (CUDA's default is not).
            *torch.sort(x, dim=0, stable=True),
            *torch.topk(y, 3),
            *torch.topk(h, 2, dim=0, largest=False),
        )


@pytest.mark.parametrize("device", DEVICES)
def test_scatters_and_sorts_are_kernels_matching_eager(device):
    x = torch.randn(5, 6, device=device)
    x[2, 1] = float("nan")
    x[3] = x[1]  # ties along dim 0
    idx = torch.randint(0, 5, (4, 6), device=device)
    src = torch.randn(4, 6, device=device)
    rows = torch.tensor([4, -1, 0, 2, 4], device=device)
    h = torch.randn(5, 6, device=device).to(torch.bfloat16)
    v = torch.randn(5, 6, device=device)
    coil.reset_stats()
    want, got = compiled(ScattersAndSorts(), x, idx, src, rows, h, v)
    for i, (w, g) in enumerate(zip(want, got)):
        tol = 2e-2 if w.dtype == torch.bfloat16 else 1e-5
        torch.testing.assert_close(g, w, equal_nan=True, rtol=tol, atol=tol, msg=f"output {i}")
    assert_all_compiled()
    assert coil.torch_stats()["fallback_ops"] == [], coil.torch_stats()


def banded_scores(scores, w):
    # Longformer's sliding-window layout: writes through a view of a transposed view, which
    # functionalization replays as views of slice_scatter results that eager lays out
    # transposed (coil's are contiguous; the views become the reshapes they mean).
    b, chunks, _, _ = scores.shape
    out = scores.new_zeros((b, chunks + 1, w, 2 * w + 1))
    out[:, :-1, :, w:] = scores[:, :, :w, : w + 1]
    t = out.view(2, b // 2, (chunks + 1) * w, 2 * w + 1).transpose(2, 1)
    t[:, :w, :, : w + 1] = torch.full_like(t[:, :w, :, : w + 1], -float("inf"))
    return t * 2


def test_views_of_values_eager_lays_out_otherwise_match_eager():
    scores = torch.randn(6, 3, 8, 9)
    want = banded_scores(scores, 4)
    got = torch.compile(banded_scores, backend="coil", dynamic=False, options={"strict": True})(
        scores, 4
    )
    torch.testing.assert_close(got, want)
    assert_all_compiled()


class ComplexOps(torch.nn.Module):
    """Complex values through their real view: Llama's original rotary embedding
    (view_as_complex, a product with polar frequencies, view_as_real), arithmetic with
    complex and real operands and scalars, conj, abs, angle, exp, a matmul, sums."""

    def forward(self, q, freqs, a, b, m, r):
        rot = torch.view_as_real(torch.view_as_complex(q.reshape(2, 6, 4, 2)) * freqs).flatten(2)
        return (
            rot,
            torch.add(a, b, alpha=2) - 1.5j,
            a * b / (b + 1),
            a.conj() * r,
            a.abs() + torch.angle(b),
            torch.exp(a * 0.5),
            a @ m,
            (a.unsqueeze(0).transpose(1, 2) * 2).sum(-1),
            torch.polar(r.abs(), r),
        )


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_complex_values_match_eager(device, dtype):
    real = torch.float32 if dtype == torch.complex64 else torch.float64
    q = torch.randn(2, 6, 8, device=device, dtype=real)
    freqs = torch.polar(torch.ones(6, 4, device=device, dtype=real),
                        torch.rand(6, 4, device=device, dtype=real) * 6)
    a = torch.randn(3, 4, device=device, dtype=dtype)
    b = torch.randn(3, 4, device=device, dtype=dtype)
    m = torch.randn(4, 5, device=device, dtype=dtype)
    r = torch.randn(3, 4, device=device, dtype=real)
    if device == "cuda" and dtype == torch.complex128:
        pytest.skip("the CUDA backend's math library is f32 (exp, cos, sin of f64)")
    want, got = compiled(ComplexOps(), q, freqs, a, b, m, r)
    for i, (w, g) in enumerate(zip(want, got)):
        assert g.dtype == w.dtype and g.shape == w.shape, i
        torch.testing.assert_close(g, w, msg=f"output {i}")
    assert_all_compiled()


class FourierTransforms(torch.nn.Module):
    """Each of `_fft`'s three transforms and three ways to a length: one matmul (16, 20, 6),
    the four-step split (1000 = 25 * 40), Bluestein's chirp (257, a prime); every
    normalization, transforms along leading dims, odd inverse lengths."""

    def forward(self, x, c, long, prime, half):
        fft = torch.fft
        return (
            fft.fftn(x),
            fft.rfft(x, norm="ortho").abs(),
            fft.irfft(fft.rfft(x), n=15),
            fft.ifft2(c, norm="forward"),
            fft.fft(x, n=20, dim=0),
            fft.fft(long),
            fft.rfft(long),
            fft.fft(prime),
            fft.irfft(half, n=999),
            fft.hfft(c[0, :4]),
        )


@pytest.mark.parametrize("device", DEVICES)
def test_fourier_transforms_match_eager(device):
    x = torch.randn(6, 8, 16, device=device)
    c = torch.randn(3, 6, 10, device=device, dtype=torch.complex64)
    long = torch.randn(3, 1000, device=device)
    prime = torch.randn(2, 257, device=device, dtype=torch.complex64)
    half = torch.randn(2, 500, device=device, dtype=torch.complex64)
    # coil's own transforms (`_fft`); by default ATen's run between coil's kernels (`_extern`).
    want, got = compiled(FourierTransforms(), x, c, long, prime, half, aten_externs=False)
    assert coil.torch_stats()["aten_extern_calls"] == 0
    for i, (w, g) in enumerate(zip(want, got)):
        assert g.dtype == w.dtype and g.shape == w.shape, i
        scale = w.abs().max().item()
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5 * scale, msg=f"output {i}")
    assert_all_compiled()


CONV_BACKWARD_CASES = [
    # (dims, stride, padding, dilation, transposed, output_padding, groups, mask)
    (2, 1, 0, 1, False, 0, 1, (True, True, True)),
    (2, 2, 1, 1, False, 0, 1, (True, True, False)),
    (2, 3, 2, 1, False, 0, 2, (True, True, True)),  # an input the strides do not reach
    (2, 2, 1, 2, False, 0, 2, (False, True, True)),
    (1, 1, 1, 1, False, 0, 1, (True, True, True)),
    (3, 1, 1, 1, False, 0, 1, (True, True, True)),
    (2, 2, 1, 1, True, 1, 1, (True, True, True)),
    (2, 2, 0, 2, True, 1, 2, (True, True, True)),
    (2, 1, 1, 1, False, 0, 6, (True, True, True)),  # depthwise
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", CONV_BACKWARD_CASES, ids=str)
def test_convolution_backward_matches_eager(device, case):
    nd, stride, pad, dil, transposed, opad, groups, mask = case
    aten = torch.ops.aten
    x = torch.randn([2, 6] + [10] * nd, device=device)
    shape = [6, 6 // groups] + [3] * nd
    w = torch.randn(shape, device=device)
    geometry = ([stride] * nd, [pad] * nd, [dil] * nd, transposed, [opad] * nd, groups)
    dy = torch.randn_like(aten.convolution(x, w, None, *geometry))

    def f(dy, x, w):
        return aten.convolution_backward(dy, x, w, [6], *geometry, list(mask))

    want, got = f(dy, x, w), torch.compile(f, backend="coil", options={"strict": True})(dy, x, w)
    for i, (wv, g) in enumerate(zip(want, got)):
        if wv is None:
            assert g is None, i
            continue
        assert g.shape == wv.shape and g.stride() == wv.stride(), i
        torch.testing.assert_close(g, wv, rtol=1e-4, atol=1e-4, msg=f"output {i}")
    assert_all_compiled()
    # Forward convolutions only: a transposed one would be a host call.
    assert coil.torch_stats()["fallback_ops"] == []


@pytest.mark.parametrize("device", DEVICES)
def test_roi_align_matches_torchvision(device):
    torchvision = pytest.importorskip("torchvision")
    x = torch.randn(2, 3, 20, 24, device=device)
    # inside, across the border, tiny, past the image, entirely outside, at the last pixel
    boxes = torch.tensor(
        [[0, 1.0, 1.0, 10.0, 12.0], [1, -3.0, 2.0, 30.0, 19.0], [0, 5.0, 5.0, 5.5, 5.2],
         [1, 0, 0, 100, 100], [0, -50, -50, -20, -20], [1, 23.0, 19.0, 23.9, 19.9]],
        device=device,
    )
    for aligned, ratio, scale in ((False, 2, 1.0), (True, 1, 0.5), (True, 3, 0.75)):
        def f(a, b):
            return torchvision.ops.roi_align(a, b, (7, 5), scale, ratio, aligned)

        torch._dynamo.reset()
        got = torch.compile(f, backend="coil", options={"strict": True})(x, boxes)
        torch.testing.assert_close(got, f(x, boxes), msg=f"aligned={aligned} ratio={ratio}")
    assert_all_compiled()


class WideUnsigned(torch.nn.Module):
    """What PyTorch's kernels take of uint16/uint32/uint64: products, the bitwise ops,
    equality, maximum/minimum/clamp and sort (unsigned order), where, views and gathers,
    the sums (int64), true division and conversions both ways."""

    def forward(self, x, y, m, i, f):
        dt = x.dtype
        top = {torch.uint16: 60000, torch.uint32: 4_000_000_000, torch.uint64: 2**62 + 12345}[dt]
        return (
            x * y, x * 3, x & y, x | y, x ^ 12345, x == y, x != 7,
            torch.maximum(x, y), torch.minimum(x, y), x.clamp(100, top), x.clamp_max(2),
            x.sort(dim=1).values, x.sort(dim=0, descending=True, stable=True).indices,
            torch.where(m, x, y), torch.cat([x.t().reshape(-1), y[:, 1]]), x.gather(1, i),
            x.sum(), x.cumsum(0), x / y, x.float(), x.double(), x.half(), x.long(),
            x.to(torch.uint8), (f * top).to(dt), (i - 3).to(dt),
            torch.full((3,), top, dtype=dt),
        )


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.uint16, torch.uint32, torch.uint64])
def test_wide_unsigned_integers_match_eager(device, dtype):
    bits = {torch.uint16: 16, torch.uint32: 32, torch.uint64: 64}[dtype]

    def draw():
        v = torch.randint(-(2**63), 2**63 - 1, (4, 5), dtype=torch.int64)
        v = v if bits == 64 else v & ((1 << bits) - 1)
        # the extremes: 0, the top value, the sign bit of the signed width, 1 less
        v[0, :4] = torch.tensor([0, -1 if bits == 64 else (1 << bits) - 1,
                                 -(2**63) if bits == 64 else 1 << (bits - 1),
                                 2**63 - 1 if bits == 64 else (1 << (bits - 1)) - 1])
        return (v.view(dtype) if bits == 64 else v.to(dtype)).to(device)

    x, y = draw(), draw()
    m = torch.rand(4, 5, device=device) > 0.5
    i = torch.randint(0, 5, (4, 2), device=device)
    f = torch.rand(4, 5, device=device, dtype=torch.float64)
    want, got = compiled(WideUnsigned(), x, y, m, i, f)
    for k, (w, g) in enumerate(zip(want, got)):
        assert g.dtype == w.dtype and g.shape == w.shape, k
        if w.is_floating_point():
            torch.testing.assert_close(g, w, rtol=0, atol=0, equal_nan=True, msg=f"output {k}")
        else:  # (assert_close promotes, which the three dtypes refuse)
            assert torch.equal(g.cpu(), w.cpu()), f"output {k}: {g} != {w}"
    assert_all_compiled()


def test_numbers_dynamo_passes_as_tensors_are_run_time_inputs():
    """A float argument under `dynamic=True` reaches the graph as a 0-d tensor read back
    with `item()`: the number is an input of the compiled graph (a new value compiles
    nothing), its arithmetic in float64 as Python's."""

    def f(x, y, k):
        z = x.div(y * x.shape[-1]) + (k - y) / 3
        return torch.softmax(z, dim=-1), torch.full((2, 3), y * 2.5) + x[0, :2, :3]

    x = torch.randn(1, 10, 40)
    torch._dynamo.reset()
    before = coil.torch_stats()["graphs_compiled"]
    g = torch.compile(f, backend="coil", dynamic=True, options={"strict": True})
    for y, k in ((1e-5, 2.0), (1e-6, -3.5), (0.25, 7.0)):
        for w, o in zip(f(x, y, k), g(x, y, k)):
            torch.testing.assert_close(o, w)
    assert coil.torch_stats()["graphs_compiled"] - before == 1
    assert_all_compiled()


class TrainedNet(torch.nn.Module):
    """Convolutions (strided, grouped, padded), batch norm in training form (its running
    statistics written back), max pooling, layer norm, gelu, a linear head."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.c2 = torch.nn.Conv2d(8, 8, 3, padding=1, groups=2)
        self.ln = torch.nn.LayerNorm(128)
        self.head = torch.nn.Linear(128, 5)

    def forward(self, x):
        h = torch.relu(self.bn(self.c1(x)))
        h = torch.nn.functional.max_pool2d(self.c2(h), 2)
        h = torch.nn.functional.gelu(self.ln(h.flatten(1)))
        return self.head(h).log_softmax(-1)


def test_training_compiles_both_halves_with_eagers_gradients():
    torch.manual_seed(0)
    model, ref = TrainedNet(), TrainedNet()
    ref.load_state_dict(model.state_dict())
    x, y = torch.randn(4, 3, 16, 16), torch.randint(0, 5, (4,))
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="coil", options={"strict": True})
    for _ in range(2):  # the second step starts from the running statistics the first wrote
        for m in (model, ref):
            m.zero_grad()
        loss = torch.nn.functional.nll_loss(compiled(x), y)
        loss.backward()
        want = torch.nn.functional.nll_loss(ref(x), y)
        want.backward()
        torch.testing.assert_close(loss, want)
        for (name, p), q in zip(model.named_parameters(), ref.parameters()):
            torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-5, msg=name)
        torch.testing.assert_close(model.bn.running_mean, ref.bn.running_mean)
        torch.testing.assert_close(model.bn.running_var, ref.bn.running_var)
    stats = coil.torch_stats()
    assert stats["backward_graphs_compiled"] == 1 and stats["graphs_compiled"] == 1, stats
    assert stats["fallback_ops"] == [], stats
    assert_all_compiled()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "nd,stride,padding,output_padding,dilation,groups",
    [(2, 2, 1, 1, 1, 1), (2, 2, 0, 0, 1, 2), (1, 3, 2, 1, 1, 1), (3, 2, 1, 1, 1, 1),
     (2, 1, 0, 0, 2, 1), (2, 2, 3, 1, 1, 1)],  # the last pads less than it crops
    ids=str,
)
def test_transposed_convolutions_compile_as_forward_ones(
    device, nd, stride, padding, output_padding, dilation, groups
):
    conv = {1: torch.nn.ConvTranspose1d, 2: torch.nn.ConvTranspose2d,
            3: torch.nn.ConvTranspose3d}[nd]
    m = conv(4, 6, 3, stride=stride, padding=padding, output_padding=output_padding,
             dilation=dilation, groups=groups).to(device)
    x = torch.randn([2, 4] + [7] * nd, device=device)
    want, got = compiled(m, x)
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
    assert_all_compiled()
    assert coil.torch_stats()["fallback_ops"] == []


class SpecialFunctions(torch.nn.Module):
    def forward(self, x, p):
        sp = torch.special
        pos = x.abs() + 0.05
        return (
            torch.lgamma(x), torch.digamma(x), torch.polygamma(2, pos), sp.zeta(pos + 1, pos),
            torch.i0(x), sp.i1e(x), sp.modified_bessel_k0(pos), sp.scaled_modified_bessel_k1(pos),
            sp.spherical_bessel_j0(x), sp.chebyshev_polynomial_t(x / 5, 4),
            sp.hermite_polynomial_h(x / 5, 3), sp.legendre_polynomial_p(x / 5, 5),
            sp.erfcx(x), sp.ndtri(p), sp.log_ndtr(x), sp.multigammaln(pos + 2, 3),
        )


@pytest.mark.parametrize("device", DEVICES)
def test_special_functions_match_eager(device):
    x = torch.linspace(-7.3, 24.1, 96, device=device)
    p = torch.linspace(0.0, 1.0, 96, device=device)
    want, got = compiled(SpecialFunctions(), x, p)
    for i, (w, g) in enumerate(zip(want, got)):
        torch.testing.assert_close(g, w, rtol=2e-5, atol=1e-5, equal_nan=True, msg=f"output {i}")
    assert_all_compiled()


class PoolingBackward(torch.nn.Module):
    def forward(self, g2, x2, g3, x3, gu):
        aten = torch.ops.aten
        return (
            # overlapping windows, padding, ceil mode, with and without the padding counted
            aten.avg_pool2d_backward(g2, x2, [3, 3], [2, 2], [1, 1], True, False, None),
            aten.avg_pool2d_backward(g2, x2, [3, 3], [2, 2], [1, 1], True, True, None),
            aten.avg_pool2d_backward(g2, x2, [3, 2], [2, 2], [1, 0], True, True, 5),
            aten.avg_pool3d_backward(g3, x3, [2, 3, 2], [1, 2, 2], [0, 1, 1], False, False, None),
            aten.upsample_nearest2d_backward(gu, [7, 10], [2, 3, 3, 4], None, None),
            aten.upsample_nearest2d_backward(gu, [7, 10], [2, 3, 5, 6], 1.5, 1.75),
        )


def test_pooling_and_upsampling_backward_match_eager():
    g2, x2 = torch.randn(2, 3, 5, 4), torch.randn(2, 3, 9, 7)
    g3, x3 = torch.randn(1, 2, 4, 4, 3), torch.randn(1, 2, 5, 7, 5)
    gu = torch.randn(2, 3, 7, 10)
    want, got = compiled(PoolingBackward(), g2, x2, g3, x3, gu)
    for i, (w, g) in enumerate(zip(want, got)):
        assert g.shape == w.shape, i
        torch.testing.assert_close(g, w, msg=f"output {i}")
    assert_all_compiled()


def test_number_outputs_come_back_beside_the_tensors():
    # Dynamo returns a static size as a number among the outputs.
    # Beside outputs that are views of one another (the alias plan's positions must hold).
    def fn(x):
        y = x + 1
        return y, x.size(1), y.t(), x.shape[0] * 3, y[1:]

    x = torch.randn(4, 6)
    got = torch.compile(fn, backend="coil", dynamic=False, options={"strict": True})(x)
    want = fn(x)
    assert got[1] == 6 and got[3] == 12
    for i in (0, 2, 4):
        torch.testing.assert_close(got[i], want[i])
        assert got[i].stride() == want[i].stride()
    assert_all_compiled()


@pytest.mark.parametrize(
    "shape, kernel, out",
    [((1, 4, 16, 16), (3, 3), (2, 2)), ((2, 4, 16, 16), (1, 1), (16, 16)),
     ((2, 3, 37, 29), (4, 3), (9, 11)), ((3, 20, 20), (2, 2), (10, 1))],
)
def test_fractional_max_pool2d_matches_eager(shape, kernel, out):
    # Windows from the samples as eager places them; NaN windows give eager's (last NaN) index.
    x = torch.randn(shape)
    x.view(-1)[::7] = float("nan")
    u = torch.rand(shape[0] if len(shape) == 4 else 1, shape[-3], 2)

    def fn(x, u):
        return torch.ops.aten.fractional_max_pool2d(x, kernel, out, u)

    want = fn(x, u)
    got = torch.compile(fn, backend="coil", dynamic=False, options={"strict": True})(x, u)
    torch.testing.assert_close(got[0], want[0], equal_nan=True)
    assert torch.equal(got[1], want[1])
    assert_all_compiled()


@pytest.mark.parametrize("shape", [(32, 64), (3, 5, 17)])
def test_embedding_bag_byte_unpack_matches_eager(shape):
    # Rows of uint8 data, then each row's f32 scale and bias as 8 bytes.
    *lead, n = shape
    data = torch.randint(0, 256, (*lead, n), dtype=torch.uint8)
    scale = torch.randn(*lead, 1).view(torch.uint8)
    bias = torch.randn(*lead, 1).view(torch.uint8)
    packed = torch.cat([data, scale, bias], dim=-1)

    def fn(w):
        return torch.ops.quantized.embedding_bag_byte_unpack(w)

    want = fn(packed)
    got = torch.compile(fn, backend="coil", dynamic=False, options={"strict": True})(packed)
    torch.testing.assert_close(got, want)
    assert_all_compiled()


class RandomOps(torch.nn.Module):
    def forward(self, x):
        return (
            torch.rand_like(x),
            torch.randn(64, 48, device=x.device),
            torch.randint(-5, 5, (64, 48), device=x.device),
            torch.bernoulli(torch.full_like(x, 0.25)),
            torch.nn.functional.dropout(x, 0.4, training=True),
            torch.rand(64, 48, device=x.device, dtype=torch.bfloat16),
            torch.randint(3 << 30, (4096,), device=x.device),
            torch.empty_like(x).uniform_(-2.0, 3.0),
        )


@pytest.mark.parametrize("device", DEVICES)
def test_random_ops_are_reproducible_and_have_their_distributions(device):
    x = torch.ones(64, 48, device=device)
    f = torch.compile(RandomOps(), backend="coil", dynamic=False, options={"strict": True})
    with torch.no_grad():
        torch.manual_seed(7)
        a, a2 = f(x), f(x)
        torch.manual_seed(7)
        b = f(x)
    assert_all_compiled()
    for i, (p, q, r) in enumerate(zip(a, b, a2)):
        assert torch.equal(p, q), f"output {i}: not reproducible under manual_seed"
        assert not torch.equal(p, r), f"output {i}: two calls drew the same numbers"
    u, n, r, bern, drop, h, wide, unif = [t.double().cpu() for t in a]
    k = u.numel()
    assert 0 <= u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 5 * (1 / 12 / k) ** 0.5
    assert abs(n.mean()) < 5 / k**0.5 and abs(n.var() - 1) < 0.1
    assert r.min() == -5 and r.max() == 4 and a[2].dtype == torch.int64
    assert abs(bern.mean() - 0.25) < 0.03 and set(bern.unique().tolist()) <= {0.0, 1.0}
    kept = drop != 0
    assert abs(kept.double().mean() - 0.6) < 0.03
    torch.testing.assert_close(drop[kept], torch.full_like(drop[kept], 1 / 0.6))
    assert a[5].dtype == torch.bfloat16 and h.max() < 1
    # randint over 3/4 of 2^32: the low quarter of the range is not drawn twice as often.
    assert abs((wide < (1 << 30)).double().mean() - 1 / 3) < 0.03
    assert -2 <= unif.min() and unif.max() < 3 and abs(unif.mean() - 0.5) < 0.1


@pytest.mark.parametrize("device", DEVICES)
def test_philox_ops_compiled_equal_their_eager_kernels(device):
    coil_ops = torch.ops.coil

    def fn(seed):
        return (
            coil_ops.philox_rand(seed, 3, [33, 17], dtype=torch.float32),
            coil_ops.philox_rand(seed, 4, [33, 17], dtype=torch.float64),
            coil_ops.philox_randint(seed, 5, [33, 17], -7, 1 << 40, dtype=torch.int64),
            coil_ops.philox_randn(seed, 6, [33, 17], dtype=torch.float32),
        )

    seed = torch.tensor(-1234567891011, device=device)
    want = fn(seed)
    got = torch.compile(fn, backend="coil", dynamic=False, options={"strict": True})(seed)
    for w, g in zip(want[:3], got[:3]):
        assert torch.equal(w, g)
    torch.testing.assert_close(got[3], want[3], rtol=2e-5, atol=2e-5)
    assert_all_compiled()


class Router(torch.nn.Module):
    """A mixture-of-experts router (Mixtral's): the top two experts per token and their
    renormalized weights, then a sort of the chosen expert ids (host fallbacks: sort, topk)."""

    def __init__(self):
        super().__init__()
        self.gate = torch.nn.Linear(16, 8, bias=False)

    def forward(self, x):
        probs = torch.softmax(self.gate(x).float(), dim=-1)
        weights, experts = torch.topk(probs, 2, dim=-1)
        weights = weights / weights.sum(dim=-1, keepdim=True)
        order, where = torch.sort(experts.flatten(), stable=True)
        return weights.to(x.dtype), experts, order, where


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_a_topk_router_matches_eager(device, dtype):
    torch.manual_seed(0)
    model = Router().to(device).to(dtype)
    x = torch.randn(12, 16, device=device, dtype=dtype)
    want, got = compiled(model, x)
    torch.testing.assert_close(got[0], want[0])
    for w, g in zip(want[1:], got[1:]):
        assert torch.equal(g, w)
    assert_all_compiled()


def test_coils_own_decompositions_cover_only_overloads_it_does_not_compile():
    # An overload coil compiles natively must not be decomposed away (a stale entry in
    # coil/_decomp.py once the op gains a lowering).
    from coil import _native
    from coil._decomp import extra_decompositions

    native = set(_native.op_names())
    assert "aten.floor.default" in native and "aten.native_layer_norm.default" in native
    shadowed = sorted(str(op) for op in extra_decompositions() if str(op) in native)
    assert not shadowed, shadowed


def math_fns(x, p):
    return torch.log2(p), torch.log10(p), torch.expm1(x), torch.sinh(x), torch.cosh(x), torch.tan(x)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_math_functions_built_from_others_match_eager(device, dtype):
    # log2, log10, expm1, sinh, cosh and tan come from coil/_decomp.py (in f32 inside): within
    # PyTorch's tolerance for the dtype of eager's results, special values included.
    special = [0.0, -0.0, 1e-8, -1e-8, 1e-3, -1e-3, 0.5, -0.5, 0.51, 20.0, -20.0, 88.0, -88.0,
               89.0, -89.3, 100.0, -100.0, float("nan"), float("inf"), -float("inf"), 1.5707964]
    torch.manual_seed(0)
    x = torch.cat([torch.randn(500) * 3, torch.tensor(special)]).to(device)
    powers = [2.0**k for k in range(-20, 40)] + [10.0**k for k in range(-8, 20)]
    p = torch.cat([torch.rand(500) * 100, torch.tensor([0.0, 1.0, 2.0, 1e-30, 1e30, float("inf"), float("nan")] + powers)])
    x, p = x.to(dtype), p.to(device).to(dtype)
    want, got = compiled(Fn(math_fns), x, p)
    for w, g in zip(want, got):
        torch.testing.assert_close(g, w, equal_nan=True)
    if dtype == torch.float32:
        # Exact at exact powers, as PyTorch's log2 and log10.
        assert torch.equal(got[0][-88:-28], want[0][-88:-28])
    assert_all_compiled()


def float_table(x, u, g, y):
    return (torch.atan(x), torch.asin(u), torch.acos(u), torch.atan2(y, x), torch.hypot(y, x),
            torch.asinh(x), torch.acosh(g), torch.atanh(u), torch.expm1(x),
            torch.logaddexp(x, y), torch.erfc(x), torch.erfinv(u))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_the_float_table_matches_eager(device, dtype):
    # Native ops of coil's float-function table (coil-lower/src/math/), lowered and fused:
    # within PyTorch's tolerance of eager for the dtype, special values included.
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, 1e-30, 1e-8, -1e-4, 0.3, 0.5, 0.53, -1.0, 1.0, 2.0, 9.0, 10.6, 30.0,
               1e10, -1e10, inf, -inf, nan]
    torch.manual_seed(0)
    x = torch.cat([torch.randn(512 - len(special)) * 4, torch.tensor(special)])
    u = torch.cat([torch.rand(500) * 2 - 1, torch.tensor([0.0, -0.0, 1.0, -1.0, 0.999, 0.9999999,
                                                          1.0000001, 2.0, -inf, nan, 1e-30, 0.5])])
    g = torch.cat([1 + torch.rand(504) * 10, torch.tensor([1.0, 1.0001, 1e30, inf, 0.5, nan, -1.0,
                                                           1.5])])
    y = torch.cat([torch.randn(500) * 4, torch.tensor([0.0, -0.0, inf, -inf, 0.0, -0.0, 1.0, -1.0,
                                                       inf, -inf, nan, 2.0])])
    args = [t.to(device).to(dtype) for t in (x, u, g, y)]
    want, got = compiled(Fn(float_table), *args)
    for w, gt in zip(want, got):
        torch.testing.assert_close(gt, w, equal_nan=True)
    assert_all_compiled()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("name", list(ZOO))
def test_zoo_functions_in_16_bit_floats(name, dtype, device):
    # coil computes as Inductor does (16-bit loads widened to f32, f32 arithmetic in a kernel,
    # a rounding at each store and explicit cast, f32 accumulation in matmuls); eager rounds
    # after every op. So neither is the other's reference: the check is coil.judge, the
    # oracle coil's CLI and tools share: for 16-bit outputs Inductor's rule, coil's RMS error
    # against the module run in float64 (same 16-bit inputs and weights) at most twice eager's
    # plus a tenth of the dtype's tolerance.
    make, inputs = ZOO[name]
    torch.manual_seed(0)
    module = make().to(device).to(dtype).eval()
    args = [t.to(device).to(dtype) for t in inputs()]
    want, got = compiled(module, *args)
    wide = copy.deepcopy(module).double()
    with torch.no_grad():
        exact = wide(*[a.double() for a in args])
    as_tuple = lambda o: o if isinstance(o, (tuple, list)) else (o,)  # noqa: E731
    for w, g, e in zip(as_tuple(want), as_tuple(got), as_tuple(exact)):
        assert g.dtype == w.dtype == dtype and g.shape == w.shape
        ok, why = coil.judge(g, w, e)
        assert ok, why
    assert_all_compiled()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v3_small", "vit_tiny", "gpt2", "bert", "llama"])
def test_real_models_in_bf16(name, device):
    # As the zoo's 16-bit test: float64's rule on the model's first output.
    _, make, kind, shape = next(m for m in real_models() if m[0] == name)
    torch.manual_seed(0)
    module = make().to(device).to(torch.bfloat16).eval()
    if kind == "image":
        x = torch.randn(*shape, device=device).to(torch.bfloat16)
        wide_x = x.double()
    else:
        x = wide_x = torch.randint(0, 1000, shape, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want, got = compiled(module, x)
        with torch.no_grad():
            exact = first_tensor(copy.deepcopy(module).double()(wide_x))
    want, got = first_tensor(want), first_tensor(got)
    assert got.dtype == torch.bfloat16
    ok, why = coil.judge(got, want, exact)
    assert ok, why
    assert_all_compiled()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["seed_model", "softmax", "layernorm", "rmsnorm", "chain"])
def test_emulated_precision_casts_give_eager_bit_for_bit(name, device):
    # With the option, 16-bit results round where eager rounds them (after every op).
    make, inputs = ZOO[name]
    torch.manual_seed(0)
    module = make().to(device).to(torch.bfloat16).eval()
    args = [t.to(device).to(torch.bfloat16) for t in inputs()]
    want, got = compiled(module, *args, emulate_precision_casts=True)
    assert torch.equal(got, want)
    assert_all_compiled()


@pytest.mark.parametrize("dynamic", [None, True])
def test_dynamic_shapes_run_one_static_graph_per_shape(dynamic):
    # Dynamo's symbolic-size graph runs as one static coil graph per concrete shape, compiled
    # at the shape's first call (never eagerly).
    module = SeedModel(64).eval()
    f = torch.compile(module, backend="coil", dynamic=dynamic)
    with torch.no_grad():
        for rows in (8, 16, 24, 16, 40):
            x = torch.randn(rows, 64)
            torch.testing.assert_close(f(x), module(x), rtol=1e-4, atol=1e-5)
    stats = coil.torch_stats()
    assert stats["graphs_to_eager"] == [], stats
    assert stats["graphs_compiled"] == 4, stats


def test_a_host_scalar_is_copied_to_the_device_once_per_value():
    # The copy of a 0-d CPU input is reused while its number stays the same (a module's eps
    # under dynamic=True); a new number, or the other sign of zero, is copied again.
    from coil._runner import _host_scalars_moved

    seen = []
    run = _host_scalars_moved(lambda *a: seen.append(a[1]), torch.device("meta"), [1])
    for v in (2.0, 2.0, -3.0, -3.0, 0.0, -0.0, 2.0):
        run(torch.ones(2), torch.tensor(v))
    ids = [id(t) for t in seen]
    assert ids[0] == ids[1] and ids[2] == ids[3]
    assert len({ids[0], ids[2], ids[4], ids[5], ids[6]}) == 5
    assert all(t.device.type == "meta" for t in seen)
    # An input the graph writes is copied every time.
    seen.clear()
    run = _host_scalars_moved(lambda *a: seen.append(a[1]), torch.device("meta"), [1], {1})
    for _ in range(2):
        run(torch.ones(2), torch.tensor(1.0))
    assert seen[0] is not seen[1]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_a_0d_cpu_tensor_beside_cuda_inputs_is_a_scalar_argument():
    # A 0-d CPU tensor among CUDA inputs (as `cache_position` or a step count can be) is
    # copied to the GPU at each call, as Inductor takes it as a scalar; a CPU tensor of any
    # other rank beside CUDA ones still sends the graph to eager, saying why.
    def f(x, s):
        return torch.relu(x * s) + s

    x = torch.randn(4, 8, device="cuda")
    g = torch.compile(f, backend="coil", dynamic=False)
    for v in (2.0, -3.0, -3.0, 2.0, 0.0, -0.0):
        s = torch.tensor(v)
        torch.testing.assert_close(g(x, s), f(x, s))
    assert_all_compiled()
    torch._dynamo.reset()
    coil.reset_stats()
    # Eager raises for it too; Dynamo may refuse to trace it first (torch 2.11's fake tensors
    # raise on the two devices), else coil runs it eagerly with a warning saying why.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            torch.compile(f, backend="coil", dynamic=False)(x, torch.ones(8))
        except Exception as e:  # noqa: BLE001 (Dynamo's or eager's error, either names them)
            assert "device" in str(e), e
        else:
            assert any("several devices" in str(m.message) for m in caught), caught


def test_cpu_kernels_on_openmp_threads_or_coils_own_pool_agree():
    """`cpu_threads`: kernels launch on PyTorch's OpenMP threads (the default) or on coil's own
    pool; both give the same bits, and any other value is an error."""
    torch.manual_seed(0)
    x = torch.randn(64, 4096)

    def f(a):
        return (torch.softmax(a * 2.0, dim=-1) + a.tanh(),)

    outs = []
    for threads in ("openmp", "own"):
        torch._dynamo.reset()
        g = torch.compile(f, backend="coil", dynamic=False,
                          options={"strict": True, "cpu_threads": threads})
        outs.append(g(x)[0])
    assert torch.equal(outs[0], outs[1])
    torch.testing.assert_close(outs[0], f(x)[0], rtol=1e-5, atol=1e-5)
    torch._dynamo.reset()
    with pytest.raises(Exception, match="cpu_threads"):
        torch.compile(f, backend="coil", dynamic=False,
                      options={"strict": True, "cpu_threads": "many"})(x)
