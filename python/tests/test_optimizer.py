"""`torch.compile(optimizer.step, backend="coil")`: SGD with momentum, Adam and AdamW in their
`foreach` and for-loop forms run as coil kernels (the `_foreach_*` ops one op per tensor,
`coil/_foreach.py`; on the CPU each parameter's new value written into its own memory), and
after several steps every parameter and every state tensor is as
close to a float64 run of the same steps as eager float32's own (issue 31's rule: within 3x
eager's error, or 1e-5 of the largest magnitude)."""

import copy
import warnings

import pytest
import torch

import coil

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])

OPTIMIZERS = {
    "sgd_momentum": (torch.optim.SGD, dict(lr=0.1, momentum=0.9)),
    "sgd_nesterov_decay": (
        torch.optim.SGD,
        dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=1e-2, dampening=0.0),
    ),
    "adam": (torch.optim.Adam, dict(lr=1e-2)),
    "adam_amsgrad": (torch.optim.Adam, dict(lr=1e-2, amsgrad=True, weight_decay=1e-3)),
    "adamw": (torch.optim.AdamW, dict(lr=1e-2, weight_decay=0.05)),
}


@pytest.fixture(autouse=True)
def fresh():
    torch.manual_seed(0)
    torch._dynamo.reset()
    coil.reset_stats()
    yield


def _params(device, dtype):
    g = torch.Generator().manual_seed(1)
    shapes = [(32, 16), (32,), (4, 32), (4,), (3, 5, 7)]
    return [
        torch.randn(s, generator=g).to(device=device, dtype=dtype).requires_grad_()
        for s in shapes
    ]


def _grads(step, params):
    g = torch.Generator().manual_seed(100 + step)
    return [torch.randn(p.shape, generator=g).to(p.device) for p in params]


def _run(opt_cls, kw, device, dtype, steps, compile_step, foreach):
    params = _params(device, dtype)
    opt = opt_cls(params, foreach=foreach, **kw)
    step = (
        torch.compile(opt.step, backend="coil", options={"strict": True})
        if compile_step
        else opt.step
    )
    for s in range(steps):
        for p, g in zip(params, _grads(s, params)):
            p.grad = g.to(dtype)
        step()
    state = [
        v for p in params for k, v in sorted(opt.state[p].items()) if isinstance(v, torch.Tensor)
    ]
    return [p.detach() for p in params], state


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("foreach", [True, False], ids=["foreach", "for_loop"])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_compiled_steps_match_float64(name, foreach, device):
    opt_cls, kw = OPTIMIZERS[name]
    steps = 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = _run(opt_cls, kw, device, torch.float32, steps, True, foreach)
    stats = coil.torch_stats()
    assert stats["graphs_compiled"] >= 1 and not stats["graphs_to_eager"], stats
    assert not stats["fallback_ops"], stats["fallback_ops"]
    # The new parameters and state are written into the old ones' memory (on the GPU too: each
    # kernel reads an element in the lane that overwrites it): AOTAutograd's copy back has
    # nothing to copy.
    assert stats["outputs_in_place"] >= len(_params("cpu", torch.float32)), stats
    eager = _run(opt_cls, kw, device, torch.float32, steps, False, foreach)
    exact = _run(opt_cls, kw, device, torch.float64, steps, False, foreach)
    for what, g_list, e_list, x_list in zip(("parameter", "state"), got, eager, exact):
        assert len(g_list) == len(e_list) == len(x_list)
        for i, (g, e, x) in enumerate(zip(g_list, e_list, x_list)):
            x = x.to(torch.float64)
            eager_err = (e.double() - x).abs().max().item()
            coil_err = (g.double() - x).abs().max().item()
            scale = x.abs().max().item()
            assert coil_err <= max(3 * eager_err, 1e-5 * scale, 1e-7), (
                f"{name} {what} {i}: coil off by {coil_err:.3g}, eager by {eager_err:.3g}"
            )


def test_the_foreach_decompositions_cover_what_the_optimizers_call():
    from coil._foreach import foreach_decompositions

    table = {str(op) for op in foreach_decompositions()}
    for op in (
        "aten._foreach_add.List",
        "aten._foreach_add.Scalar",
        "aten._foreach_mul.Scalar",
        "aten._foreach_mul.Tensor",
        "aten._foreach_addcmul.Scalar",
        "aten._foreach_addcdiv.ScalarList",
        "aten._foreach_addcdiv.Tensor",
        "aten._foreach_lerp.Scalar",
        "aten._foreach_sqrt.default",
        "aten._foreach_maximum.List",
        "aten._foreach_norm.Scalar",
        "aten._foreach_pow.ScalarAndTensor",
        "aten._foreach_reciprocal.default",
        "aten._foreach_div.ScalarList",
    ):
        assert op in table, op


def test_the_foreach_table_is_whole_in_a_fresh_process():
    """`torch.ops.aten` lists only the ops resolved so far: in a new process, before any
    optimizer ran, the table still holds every `_foreach_*` op (a capturable Adam's
    `_foreach_reciprocal` on CUDA was missing)."""
    import subprocess
    import sys

    code = (
        "import torch\n"
        "from coil._foreach import foreach_decompositions\n"
        "t = {str(op) for op in foreach_decompositions()}\n"
        "names = {n.split('::')[1] for n in torch._C._dispatch_get_all_op_names()\n"
        "         if n.startswith('aten::_foreach_') and not n.split('.')[0].endswith('_')}\n"
        "print(len(t), 'aten._foreach_reciprocal.default' in t, 'aten._foreach_sinh.default' in t)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    count, reciprocal, sinh = out.stdout.split()
    assert reciprocal == "True" and sinh == "True" and int(count) > 50, out.stdout


@pytest.mark.parametrize(
    "op, args",
    [
        ("_foreach_add.List", lambda xs, ys: (xs, ys, 0.5)),
        ("_foreach_addcdiv.Tensor", lambda xs, ys: (xs, ys, xs, torch.tensor([2.0, -3.0]))),
        ("_foreach_addcmul.ScalarList", lambda xs, ys: (xs, ys, ys, [0.5, 2.0])),
        ("_foreach_pow.ScalarAndTensor", lambda xs, ys: (2.0, ys)),
        ("_foreach_norm.Scalar", lambda xs, ys: (xs, 3)),
        ("_foreach_clamp_min.Scalar", lambda xs, ys: (xs, 0.1)),
    ],
)
def test_each_decomposition_equals_the_foreach_op(op, args):
    from coil._foreach import foreach_decompositions

    packet, overload = op.split(".")
    target = getattr(getattr(torch.ops.aten, packet), overload)
    decomposed = foreach_decompositions()[target]
    xs = [torch.rand(3, 4) + 0.5, torch.rand(5) + 0.5]
    ys = [torch.randn(3, 4), torch.randn(5)]
    a = args(xs, ys)
    if packet == "_foreach_add":
        want, got = target(*a[:2], alpha=a[2]), decomposed(*a[:2], alpha=a[2])
    else:
        want, got = target(*a), decomposed(*a)
    assert len(want) == len(got)
    for w, g in zip(want, got):
        torch.testing.assert_close(g, w, rtol=1e-6, atol=1e-6)


def test_compiling_never_writes_a_modules_real_tensors():
    """A graph whose module holds real tensors as attributes and writes them in place (how
    Dynamo hands over an optimizer's state) is traced without running those writes: before,
    tracing for the inference path ran `mul_` on the real tensor once, so the first call
    scaled it twice (SGD's momentum buffer after two steps was off by a tenth)."""

    root = torch.nn.Module()
    root.register_buffer("state", torch.ones(3))
    graph = torch.fx.Graph()
    x_node = graph.placeholder("x")
    state = graph.get_attr("state")
    scaled = graph.call_method("mul_", (state, 0.5))
    graph.output((graph.call_method("add", (scaled, x_node)),))
    gm = torch.fx.GraphModule(root, graph)
    x = torch.arange(3.0)
    with torch.no_grad():
        run = coil.backend(gm, [x], options={"strict": True})
        assert torch.equal(gm.state, torch.ones(3)), "compiling wrote the module's tensor"
        (out,) = run(x)
    assert torch.equal(gm.state, torch.full((3,), 0.5))
    assert torch.equal(out, torch.full((3,), 0.5) + x)


def test_a_training_loop_through_coil_ends_at_eagers_loss():
    """Ten steps of a small GPT-2 with AdamW, the model and the step both compiled, end at
    eager's loss (issue 31's loop, shortened), with every graph compiled by coil."""
    transformers = pytest.importorskip("transformers")
    cfg = transformers.GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=1000,
                                  n_positions=128, resid_pdrop=0.0, embd_pdrop=0.0,
                                  attn_pdrop=0.0)
    torch.manual_seed(0)
    base = transformers.GPT2LMHeadModel(cfg).train()
    ids = torch.randint(0, 1000, (4, 32))

    def train(compiled):
        model = copy.deepcopy(base)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        fm = torch.compile(model, backend="coil", options={"strict": True}) if compiled else model
        step = torch.compile(opt.step, backend="coil", options={"strict": True}) if compiled else opt.step
        losses = []
        for _ in range(10):
            opt.zero_grad(set_to_none=True)
            loss = fm(input_ids=ids, labels=ids).loss
            loss.backward()
            step()
            losses.append(loss.item())
        return losses

    want = train(False)
    torch._dynamo.reset()
    coil.reset_stats()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = train(True)
    stats = coil.torch_stats()
    assert stats["graphs_compiled"] >= 2 and stats["backward_graphs_compiled"] >= 1, stats
    assert not stats["graphs_to_eager"] and not stats["fallback_ops"], stats
    assert want[-1] < want[0] - 0.5, want  # it trains
    for i, (g, w) in enumerate(zip(got, want)):
        assert abs(g - w) <= 1e-3 * abs(w), f"step {i}: coil {g}, eager {w}"


@pytest.mark.parametrize("foreach", [True, False], ids=["foreach", "for_loop"])
def test_an_optimizer_steps_updates_share_kernels(foreach):
    # 24 parameters of 4 sizes: by default (Inductor's aggressive fusion for an optimizer
    # step) the per-parameter updates of one size share a kernel, far fewer kernels than
    # parameters; with `aggressive_fusion=False` each parameter's update is a kernel. Both
    # step to the same values.
    def run(options):
        torch._dynamo.reset()
        coil.reset_stats()
        g = torch.Generator().manual_seed(3)
        params = [torch.randn(s, generator=g).requires_grad_()
                  for s in [(8, 8), (8,), (16,), (4, 8)] * 6]
        opt = torch.optim.Adam(params, lr=1e-2, foreach=foreach)
        step = torch.compile(opt.step, backend="coil", options={"strict": True, **options})
        for s in range(2):
            for p, grad in zip(params, _grads(s, params)):
                p.grad = grad
            step()
        return [p.detach() for p in params], coil.torch_stats()["kernels"]

    grouped, fewer = run({})
    alone, more = run({"aggressive_fusion": False})
    assert more >= 24, more
    assert fewer <= more // 3, (fewer, more)
    for a, b in zip(grouped, alone):
        torch.testing.assert_close(a, b, rtol=0, atol=0)


@pytest.mark.parametrize("device", DEVICES)
def test_a_first_momentum_buffer_is_a_new_tensor_not_the_gradient(device):
    """SGD's first step makes each momentum buffer `clone(grad)`: coil's plan turns the clone into
    the gradient's own buffer, but the output handed back must still be a new tensor (it was the
    gradient itself, so that with gradients kept across steps the buffer and the gradient were
    one tensor and every later step went wrong)."""
    shapes = [(64, 16), (16,), (64, 16), (16,)]
    base = [torch.randn(s, device=device) for s in shapes]
    grads = [torch.randn(s, device=device) for s in shapes]
    results = {}
    for way in ("eager", "coil"):
        torch._dynamo.reset()
        params = [b.clone().requires_grad_() for b in base]
        for p, g in zip(params, grads):
            p.grad = g.clone()
        opt = torch.optim.SGD(params, lr=0.1, momentum=0.9)
        step = opt.step if way == "eager" else torch.compile(opt.step, backend="coil")
        for _ in range(4):
            step()
        for p, g in zip(params, grads):
            torch.testing.assert_close(p.grad, g, rtol=0, atol=0)  # gradients untouched
            assert opt.state[p]["momentum_buffer"].data_ptr() != p.grad.data_ptr()
        results[way] = [p.detach().clone() for p in params]
    for a, b in zip(results["eager"], results["coil"]):
        torch.testing.assert_close(b, a, rtol=1e-5, atol=1e-5)


def test_an_input_the_graph_returns_is_its_own_tensor_and_a_clone_is_not():
    def f(x, y):
        return x, x.clone(), y * 2

    x, y = torch.randn(8, 4), torch.randn(8, 4)
    a, b, c = torch.compile(f, backend="coil")(x, y)
    assert a.data_ptr() == x.data_ptr() or torch.equal(a, x)
    assert b.data_ptr() != x.data_ptr()
    b.add_(1)
    torch.testing.assert_close(x + 1, b)
    torch.testing.assert_close(c, y * 2)
