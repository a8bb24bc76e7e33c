#!/usr/bin/env python3
"""Small one-op (or few-op) modules that pin coil-eager to PyTorch's semantics, exported as test data.

    .venv/bin/python tools/op_cases.py [--only NAME ...] [--list]

Every case is a `(model, args)` factory below (fixed seed, small shapes). Each is exported with
`tools/export_graph.py`'s `export` (torch.export + run_decompositions, readable FX text plus a
safetensors of `input.<placeholder>` and `output.<i>`) into
`crates/coil-eager/tests/data/ops/<case>.{py,safetensors}`, which `cargo test -p coil-eager
--test it torch_ops` runs through coil-eager and compares to PyTorch's outputs.

Cases listed in KNOWN_BUGS (coil-eager disagrees with PyTorch; see the comment next to each)
go to `crates/coil-eager/tests/data/ops_known_bugs/` instead, which the test does not read:
after fixing a bug, delete its entry here and re-run this script.

Idempotent: both folders are emptied of `*.py` / `*.safetensors` and every case rewritten.
Each exported graph is checked to call only overloads listed in coil-graph's op registry
(`crates/coil-graph/src/ops.rs` and `ops_float.rs`); a case that needs anything else is an error.
"""

import argparse
import contextlib
import io
import pathlib
import re
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from export_graph import export  # noqa: E402

OPS_DIR = ROOT / "crates/coil-eager/tests/data/ops"
BUGS_DIR = ROOT / "crates/coil-eager/tests/data/ops_known_bugs"
SCHEMAS = [ROOT / "crates/coil-graph/src/ops.rs", ROOT / "crates/coil-graph/src/ops_float.rs"]

# Cases on which coil-eager disagrees with PyTorch (a coil bug, kept as a reproducer in
# ops_known_bugs/ until it is fixed). The first run found 20 (a NaN max-pool index, int64 values
# above 2**53 moved through f64, any/all with dim=[], _embedding_bag's auxiliary outputs); all
# are fixed.
KNOWN_BUGS: dict[str, str] = {}

CASES = {}  # name -> (factory, ops to keep undecomposed)


def case(fn=None, *, keep=(), also_keep=()):
    """Registers a `() -> (model, args)` factory under its name.

    keep: export with these overloads left out of the decomposition table, so that the graph
    calls them (run_decompositions() otherwise lowers e.g. roll, tril, hardswish and softplus
    into other ops, and coil-eager's own kernels for them would go untested).
    also_keep: register the plain export under the name and a second export under
    `<name>_op` that keeps these overloads.
    """
    def register(fn):
        CASES[fn.__name__] = (fn, tuple(keep))
        if also_keep:
            CASES[fn.__name__ + "_op"] = (fn, tuple(also_keep))
        return fn
    return register(fn) if fn is not None else register


@contextlib.contextmanager
def keeping(ops):
    """While active, `ExportedProgram.run_decompositions()` uses its table (PyTorch's default
    when none is given) without `ops`."""
    if not ops:
        yield
        return
    original = torch.export.ExportedProgram.run_decompositions

    def run_decompositions(self, decomp_table=None, **kw):
        if decomp_table is None:
            decomp_table = torch.export.default_decompositions()
        for op in ops:
            decomp_table.pop(op, None)
        return original(self, decomp_table, **kw)

    torch.export.ExportedProgram.run_decompositions = run_decompositions
    try:
        yield
    finally:
        torch.export.ExportedProgram.run_decompositions = original


aten = torch.ops.aten


class Fn(nn.Module):
    """forward(*xs) = f(*xs): a module around a plain function (no parameters)."""

    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, *xs):
        return self.f(*xs)


def ties(*shape, lo=-3, hi=4):
    """f32 with many equal values (small integers): ties for max, exact sums."""
    return torch.randint(lo, hi, shape).float()


def edges():
    """f32 including the breakpoints of the hard* / softplus / elu family, and a spread."""
    special = torch.tensor([-20.0, -6.0, -3.0, -2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.0,
                            5.0, 6.0, 10.0, 20.0, 25.0, 2.5000001, -2.9999998, 3.0000002])
    return torch.cat([special, torch.randn(29) * 5]).reshape(6, 8)


# ---------------------------------------------------------------- convolution


@case
def conv1d_basic():
    m = nn.Conv1d(4, 6, 3)
    return m, (torch.randn(2, 4, 9),)


@case
def conv1d_stride_pad_dilation():
    m = nn.Conv1d(4, 6, 3, stride=2, padding=2, dilation=2)
    return m, (torch.randn(2, 4, 11),)


@case
def conv1d_groups_nobias():
    m = nn.Conv1d(4, 6, 2, stride=3, padding=1, groups=2, bias=False)
    return m, (torch.randn(1, 4, 10),)


@case
def conv1d_depthwise():
    m = nn.Conv1d(3, 6, 5, padding=2, groups=3)
    return m, (torch.randn(2, 3, 8),)


@case
def conv2d_basic():
    m = nn.Conv2d(3, 5, 3)
    return m, (torch.randn(2, 3, 7, 6),)


@case
def conv2d_asym_stride_pad_dilation():
    m = nn.Conv2d(3, 4, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(2, 3))
    return m, (torch.randn(2, 3, 9, 8),)


@case
def conv2d_groups_nobias():
    m = nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2, bias=False)
    return m, (torch.randn(1, 4, 7, 7),)


@case
def conv2d_depthwise():
    m = nn.Conv2d(4, 4, 3, padding=1, groups=4)
    return m, (torch.randn(2, 4, 6, 5),)


@case
def conv2d_depthwise_multiplier():
    m = nn.Conv2d(3, 6, 3, stride=2, groups=3, bias=False)
    return m, (torch.randn(1, 3, 8, 7),)


@case
def conv2d_pointwise():
    m = nn.Conv2d(5, 3, 1)
    return m, (torch.randn(2, 5, 4, 3),)


@case
def conv2d_big_padding():
    # Padding larger than the kernel: whole output rows see only zeros (bias only).
    m = nn.Conv2d(2, 3, 2, padding=3)
    return m, (torch.randn(1, 2, 3, 4),)


@case
def conv_transpose2d_basic():
    m = nn.ConvTranspose2d(3, 4, 3)
    return m, (torch.randn(2, 3, 4, 5),)


@case
def conv_transpose2d_stride_output_padding():
    m = nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1)
    return m, (torch.randn(2, 3, 4, 5),)


@case
def conv_transpose2d_asym_output_padding():
    m = nn.ConvTranspose2d(2, 3, (3, 2), stride=(3, 2), padding=(1, 0), output_padding=(2, 1))
    return m, (torch.randn(1, 2, 3, 4),)


@case
def conv_transpose2d_groups_dilation_nobias():
    m = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=2, dilation=2, groups=2, bias=False,
                           output_padding=1)
    return m, (torch.randn(2, 4, 5, 4),)


@case
def conv_transpose1d_stride():
    m = nn.ConvTranspose1d(3, 2, 4, stride=3, padding=1, output_padding=2)
    return m, (torch.randn(2, 3, 5),)


# ---------------------------------------------------------------- batch norm (eval)


def randomize_bn(bn):
    with torch.no_grad():
        bn.running_mean.copy_(torch.randn_like(bn.running_mean))
        bn.running_var.copy_(torch.rand_like(bn.running_var) * 2 + 0.1)
        if bn.affine:
            bn.weight.copy_(torch.randn_like(bn.weight))
            bn.bias.copy_(torch.randn_like(bn.bias))
    return bn


@case
def batch_norm1d_2d_input():
    return randomize_bn(nn.BatchNorm1d(5)), (torch.randn(4, 5),)


@case
def batch_norm1d_3d_input_no_affine():
    return randomize_bn(nn.BatchNorm1d(3, affine=False, eps=1e-3)), (torch.randn(2, 3, 6),)


@case
def batch_norm2d_affine():
    return randomize_bn(nn.BatchNorm2d(4)), (torch.randn(2, 4, 3, 5),)


@case
def batch_norm2d_no_affine():
    return randomize_bn(nn.BatchNorm2d(3, affine=False, eps=0.1)), (torch.randn(2, 3, 4, 4),)


@case
def batch_norm2d_no_running_stats():
    # track_running_stats=False: eval mode still normalizes with the batch's statistics.
    return nn.BatchNorm2d(3, track_running_stats=False), (torch.randn(2, 3, 4, 5) * 3 + 1,)


@case
def conv_bn_relu():
    m = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1, bias=False), randomize_bn(nn.BatchNorm2d(4)),
                      nn.ReLU())
    return m, (torch.randn(2, 3, 5, 5),)


# ---------------------------------------------------------------- max pooling


@case
def max_pool2d_basic():
    return nn.MaxPool2d(2), (torch.randn(2, 3, 6, 7),)


@case
def max_pool2d_stride_pad():
    return nn.MaxPool2d(3, stride=2, padding=1), (torch.randn(2, 2, 7, 8),)


@case
def max_pool2d_ceil_mode():
    # Input 5, k 2, s 2, p 1, ceil: the window starting in the right padding is dropped.
    return nn.MaxPool2d(2, stride=2, padding=1, ceil_mode=True), (torch.randn(1, 2, 5, 6),)


@case
def max_pool2d_ceil_mode_no_pad():
    return nn.MaxPool2d(3, stride=2, ceil_mode=True), (torch.randn(1, 3, 6, 8),)


@case
def max_pool2d_dilation():
    return nn.MaxPool2d(2, stride=1, padding=1, dilation=2), (torch.randn(1, 2, 6, 5),)


@case
def max_pool2d_asym():
    m = nn.MaxPool2d((3, 2), stride=(1, 3), padding=(1, 0), dilation=(1, 2), ceil_mode=True)
    return m, (torch.randn(2, 2, 6, 9),)


@case
def max_pool2d_indices_ties():
    # Many equal values and all-negative inputs: indices of the first max, padding never wins.
    m = nn.MaxPool2d(3, stride=2, padding=1, return_indices=True)
    return Fn(lambda x: m(x)), (ties(2, 2, 7, 6, lo=-4, hi=0),)


@case
def max_pool2d_indices_ceil_dilation():
    m = nn.MaxPool2d(2, stride=3, padding=1, dilation=2, ceil_mode=True, return_indices=True)
    return Fn(lambda x: m(x)), (torch.randn(1, 3, 8, 7),)


@case
def max_pool2d_3d_input():
    # An unbatched (C, H, W) input.
    return nn.MaxPool2d(2, stride=1), (torch.randn(3, 4, 5),)


@case
def max_pool1d_basic():
    return nn.MaxPool1d(3, stride=2, padding=1), (torch.randn(2, 3, 9),)


@case(also_keep=(aten.max_pool1d_with_indices.default,))
def max_pool1d_indices_ceil():
    m = nn.MaxPool1d(2, stride=2, padding=1, dilation=2, ceil_mode=True, return_indices=True)
    return Fn(lambda x: m(x)), (ties(2, 2, 9),)


# ---------------------------------------------------------------- average pooling


@case
def avg_pool2d_basic():
    return nn.AvgPool2d(2), (torch.randn(2, 3, 6, 7),)


@case
def avg_pool2d_pad_count_include_pad():
    return nn.AvgPool2d(3, stride=2, padding=1), (torch.randn(1, 2, 7, 6),)


@case
def avg_pool2d_pad_exclude_pad():
    return nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), (torch.randn(1, 2, 7, 6),)


@case
def avg_pool2d_ceil_mode():
    # Ceil mode: the last window runs past input+padding; PyTorch divides by the part of it
    # inside input+padding (count_include_pad) -- not by k*k.
    return nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True), (torch.randn(1, 2, 6, 8),)


@case
def avg_pool2d_ceil_mode_no_pad():
    return nn.AvgPool2d(2, stride=2, ceil_mode=True), (torch.randn(1, 2, 5, 7),)


@case
def avg_pool2d_ceil_exclude_pad():
    m = nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)
    return m, (torch.randn(1, 2, 6, 8),)


@case
def avg_pool2d_divisor_override():
    m = nn.AvgPool2d(3, stride=2, padding=1, divisor_override=5)
    return m, (torch.randn(2, 2, 6, 5),)


@case
def avg_pool2d_divisor_override_ceil():
    m = nn.AvgPool2d((2, 3), stride=(2, 2), padding=(1, 1), ceil_mode=True, divisor_override=2)
    return m, (torch.randn(1, 2, 5, 6),)


@case
def avg_pool2d_asym():
    m = nn.AvgPool2d((3, 1), stride=(1, 2), padding=(1, 0))
    return m, (torch.randn(2, 3, 5, 6),)


@case(also_keep=(aten.avg_pool1d.default,))
def avg_pool1d_basic():
    return nn.AvgPool1d(3, stride=2), (torch.randn(2, 3, 9),)


@case(also_keep=(aten.avg_pool1d.default,))
def avg_pool1d_pad_ceil():
    return nn.AvgPool1d(3, stride=2, padding=1, ceil_mode=True), (torch.randn(2, 3, 8),)


@case(also_keep=(aten.avg_pool1d.default,))
def avg_pool1d_exclude_pad():
    m = nn.AvgPool1d(4, stride=3, padding=2, ceil_mode=True, count_include_pad=False)
    return m, (torch.randn(1, 2, 9),)


# ---------------------------------------------------------------- adaptive average pooling


@case
def adaptive_avg_pool2d_1x1():
    return nn.AdaptiveAvgPool2d(1), (torch.randn(2, 3, 5, 7),)


@case(also_keep=(aten.adaptive_avg_pool2d.default,))
def adaptive_avg_pool2d_2x3():
    # 5x7 into 2x3: overlapping, unequal windows (start floor(i*H/o), end ceil((i+1)*H/o)).
    return nn.AdaptiveAvgPool2d((2, 3)), (torch.randn(2, 3, 5, 7),)


@case
def adaptive_avg_pool2d_upsample():
    # Output larger than the input: windows of one element, repeated.
    return nn.AdaptiveAvgPool2d((4, 5)), (torch.randn(1, 2, 3, 3),)


@case
def adaptive_avg_pool2d_3x3_of_7():
    return nn.AdaptiveAvgPool2d(3), (torch.randn(1, 2, 7, 7),)


@case(also_keep=(aten.adaptive_avg_pool1d.default,))
def adaptive_avg_pool1d_3_of_7():
    return nn.AdaptiveAvgPool1d(3), (torch.randn(2, 3, 7),)


# ---------------------------------------------------------------- embedding


@case
def embedding_basic():
    m = nn.Embedding(10, 4)
    return m, (torch.tensor([[1, 3, 9], [0, 3, 3]]),)


@case
def embedding_padding_idx():
    # padding_idx only zero-initializes the row (and masks its gradient); lookups return the row.
    m = nn.Embedding(8, 3, padding_idx=2)
    return m, (torch.tensor([[2, 0, 7, 2], [1, 2, 5, 6]]),)


@case
def embedding_negative_padding_idx():
    m = nn.Embedding(6, 3, padding_idx=-1)  # row 5
    return m, (torch.tensor([5, 0, 5, 3]),)


@case
def embedding_0d_and_3d_indices():
    m = nn.Embedding(7, 2)
    return Fn(lambda i, j: (m(i), m(j))), (torch.tensor(4), torch.randint(0, 7, (2, 2, 3)))


# ---------------------------------------------------------------- embedding_bag


class Bag(nn.Module):
    def __init__(self, rows, dim, **kw):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(rows, dim))
        self.kw = kw

    def forward(self, ids, offsets, *psw):
        return F.embedding_bag(ids, self.weight, offsets,
                               per_sample_weights=psw[0] if psw else None, **self.kw)


class Bags(nn.Module):
    """One weight, several embedding_bag calls (one per mode)."""

    def __init__(self, rows, dim, modes, **kw):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(rows, dim))
        self.modes = modes
        self.kw = kw

    def forward(self, ids, offsets=None):
        return tuple(F.embedding_bag(ids, self.weight, offsets, mode=m, **self.kw)
                     for m in self.modes)


IDS = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0, 7])


@case
def embedding_bag_sum():
    return Bag(10, 3, mode="sum"), (IDS, torch.tensor([0, 2, 5, 9]))


@case
def embedding_bag_mean():
    return Bag(10, 3, mode="mean"), (IDS, torch.tensor([0, 2, 5, 9]))


@case
def embedding_bag_max():
    return Bag(10, 3, mode="max"), (IDS, torch.tensor([0, 2, 5, 9]))


@case
def embedding_bag_empty_bags():
    # Empty bags (repeated offsets, and one at the end) give zeros in every mode.
    return Bags(10, 2, ("sum", "mean", "max")), (IDS, torch.tensor([0, 0, 3, 3, 10]))


@case
def embedding_bag_include_last_offset():
    m = Bag(10, 4, mode="mean", include_last_offset=True)
    return m, (IDS, torch.tensor([0, 3, 3, 7, 10]))


@case
def embedding_bag_include_last_offset_sum_max():
    # The last offset must equal len(ids): with a smaller one PyTorch's CPU modes disagree
    # among themselves (pytorch/pytorch#191965: max reads to the end of ids, sum stops).
    m = Bags(10, 3, ("sum", "max"), include_last_offset=True)
    return m, (IDS, torch.tensor([0, 4, 6, 10]))


@case
def embedding_bag_per_sample_weights():
    m = Bag(10, 3, mode="sum")
    return m, (IDS, torch.tensor([0, 1, 6]), torch.randn(10))


@case
def embedding_bag_per_sample_weights_last_offset():
    m = Bag(10, 3, mode="sum", include_last_offset=True)
    return m, (IDS, torch.tensor([0, 1, 6, 10]), torch.randn(10))


@case
def embedding_bag_padding_idx():
    # padding_idx entries are skipped: not summed, not counted by mean, never the max.
    m = Bags(6, 3, ("sum", "mean", "max"), padding_idx=2)
    return m, (torch.tensor([2, 1, 2, 2, 4, 2, 5]), torch.tensor([0, 3, 4, 6]))


@case
def embedding_bag_2d_input():
    # 2-D input: each row is a bag (no offsets).
    return Bags(8, 5, ("sum", "mean", "max")), (torch.randint(0, 8, (3, 4)),)


# ---------------------------------------------------------------- advanced indexing


@case
def index_first_dim():
    return (Fn(lambda x, i: (x[i], x[i].sum(-1))),
            (torch.randn(5, 3, 2), torch.tensor([[0, 4], [-1, 2], [3, -5]])))


@case
def index_second_dim():
    return Fn(lambda x, i: x[:, i]), (torch.randn(3, 6, 2), torch.tensor([5, -6, 2, 2, -1]))


@case
def index_last_dim():
    return Fn(lambda x, i: x[..., i]), (torch.randn(2, 3, 4), torch.tensor([[3, 0], [-1, 1]]))


@case
def index_nonadjacent():
    # Indexed dims 0 and 2 are not adjacent: the broadcast index dims go first.
    return (Fn(lambda x, i, j: x[i, :, j]),
            (torch.randn(4, 3, 5), torch.tensor([0, -1, 2]), torch.tensor([4, 1, -2])))


@case
def index_nonadjacent_broadcast():
    return (Fn(lambda x, i, j: x[i, :, j]),
            (torch.randn(4, 3, 5, 2), torch.tensor([[0], [3]]), torch.tensor([1, -1, 0])))


@case
def index_adjacent_middle():
    # Indexed dims 1 and 2 adjacent: the index dims replace them in place.
    return (Fn(lambda x, i, j: x[:, i, j]),
            (torch.randn(2, 4, 5, 3), torch.tensor([[0, 3], [1, -1]]), torch.tensor([4, -5])))


@case
def index_two_leading_broadcast():
    return (Fn(lambda x, i, j: x[i, j]),
            (torch.randn(4, 5, 2), torch.tensor([[0], [3], [-2]]), torch.tensor([1, 4, -1, 0])))


@case
def index_int64_values():
    return Fn(lambda x, i: x[:, i]), (torch.randint(-100, 100, (3, 5)), torch.tensor([4, 0, -2]))


@case
def index_bool_values():
    return Fn(lambda x, i: x[i]), (torch.randn(4, 3) > 0, torch.tensor([3, 3, 0]))


@case
def index_select_dims():
    return (Fn(lambda x, i: (torch.index_select(x, 0, i), torch.index_select(x, 1, i),
                             torch.index_select(x, -1, i))),
            (torch.randn(4, 5, 3), torch.tensor([2, 0, 2])))


@case
def index_select_int():
    return (Fn(lambda x, i: torch.index_select(x, 1, i)),
            (torch.randint(-9, 9, (2, 6)), torch.tensor([5, 1, 1, 0, 3])))


@case
def gather_dim0():
    return (Fn(lambda x, i: torch.gather(x, 0, i)),
            (torch.randn(4, 5), torch.tensor([[3, 0, 1, 1, 2], [0, 0, 3, 2, 1]])))


@case
def gather_last_dim_smaller_index():
    # The index may be smaller than self in the other dims.
    return (Fn(lambda x, i: torch.gather(x, -1, i)),
            (torch.randn(3, 4, 6), torch.randint(0, 6, (2, 3, 8))))


@case
def gather_middle_dim_int():
    return (Fn(lambda x, i: torch.gather(x, 1, i)),
            (torch.randint(0, 50, (2, 5, 3)), torch.randint(0, 5, (2, 2, 3))))


@case
def scatter_src_dim0():
    # Unique targets per column (duplicates make scatter's result unspecified).
    idx = torch.stack([torch.randperm(5)[:3] for _ in range(4)], dim=1)  # [3, 4]
    return (Fn(lambda x, i, s: torch.scatter(x, 0, i, s)),
            (torch.randn(5, 4), idx, torch.randn(4, 6)))


@case
def scatter_src_last_dim():
    idx = torch.stack([torch.randperm(6)[:2] for _ in range(3)])  # [3, 2]
    return (Fn(lambda x, i, s: torch.scatter(x, -1, i, s)),
            (torch.randn(3, 6), idx, torch.randn(3, 5)))


@case
def scatter_value():
    idx = torch.stack([torch.randperm(5)[:2] for _ in range(3)])  # [3, 2]
    return (Fn(lambda x, i: (torch.scatter(x, 1, i, 7.5), torch.scatter(x, 1, i, -2))),
            (torch.randn(3, 5), idx))


@case
def scatter_value_int():
    idx = torch.stack([torch.randperm(4)[:2] for _ in range(3)], dim=1)  # [2, 3]
    return Fn(lambda x, i: torch.scatter(x, 0, i, 9)), (torch.randint(0, 5, (4, 3)), idx)


@case
def scatter_add_dups():
    return (Fn(lambda x, i, s: (torch.scatter_add(x, 0, i, s), torch.scatter_add(x, 1, i, s))),
            (torch.randn(4, 4), torch.tensor([[0, 1, 1, 3], [1, 1, 0, 3], [3, 3, 3, 0]]),
             torch.randn(3, 5)))


@case
def scatter_add_int():
    return (Fn(lambda x, i, s: torch.scatter_add(x, -1, i, s)),
            (torch.zeros(2, 4, dtype=torch.int64), torch.tensor([[0, 0, 3], [2, 2, 2]]),
             torch.randint(-5, 5, (2, 3))))


@case
def index_put_rows():
    return (Fn(lambda x, i, v: (x.index_put((i,), v), x.index_put((i,), v, accumulate=True))),
            (torch.randn(5, 3), torch.tensor([4, 0, -2]), torch.randn(3, 3)))


@case
def index_put_accumulate_dups_broadcast():
    # Repeated indices accumulate; the value row broadcasts over the indexed rows.
    return (Fn(lambda x, i, v: x.index_put((i,), v, accumulate=True)),
            (torch.randn(4, 3), torch.tensor([1, 1, -1, 1]), torch.randn(3)))


@case
def index_put_scalar_value_broadcast():
    return (Fn(lambda x, i, v: x.index_put((i,), v)),
            (torch.randn(4, 3), torch.tensor([0, 2]), torch.tensor(5.0)))


@case
def index_put_two_indices():
    return (Fn(lambda x, i, j, v: (x.index_put((i, j), v), x.index_put((i, j), v, accumulate=True))),
            (torch.randn(4, 5), torch.tensor([0, 3, -1, 0]), torch.tensor([1, 4, 0, 1]),
             torch.randn(4)))


@case
def index_put_int():
    return (Fn(lambda x, i, v: x.index_put((i,), v, accumulate=True)),
            (torch.randint(0, 9, (5,)), torch.tensor([0, 4, 4, 2]), torch.randint(-3, 3, (4,))))


@case
def scatter_add_many_into_few_bins():
    # 60000 points added into 16 bins: with kernels, every CPU thread and GPU thread adds to
    # the same few elements at once (atomic adds), in float and in int64. Index and values are
    # computed in the graph (so they fuse into the scatter and the file stays small).
    def f(x, xi):
        n = torch.arange(60000)
        i = (n * 7919) % 16
        s = torch.sin(n.float())
        si = n % 11 - 5
        return (x.scatter_add(0, i, s), xi.scatter_add(0, i, si),
                x.index_put((i,), s, accumulate=True))
    return Fn(f), (torch.zeros(16), torch.zeros(16, dtype=torch.int64))


@case
def scatter_16bit_and_0d():
    # bf16 and f16 adds (each target hit once: with two adds, the order they round in is
    # the threads'), a 0-d scatter, and a scatter whose src is larger than its index.
    idx = torch.tensor([[0, 2, 1], [3, 1, 0]])
    return (Fn(lambda b, h, i, sb, sh, z, zi, zs: (
        b.scatter_add(0, i, sb), h.scatter_add(1, i, sh), b.scatter(1, i, sb[:, :3]),
        z.scatter(0, zi, zs), torch.ops.aten.index_put.default(h, [i[0]], sh[0], True))),
        (torch.randn(4, 4).bfloat16(), torch.randn(4, 4).half(), idx,
         torch.randn(2, 5).bfloat16(), torch.randn(3, 4).half(),
         torch.tensor(1.5), torch.tensor(0), torch.tensor(-4.0)))


@case
def scatter_into_views():
    # self, index and src as views (a transpose, a slice, an expand): the scatter reads them
    # through their strides and writes a fresh contiguous result.
    x = torch.randn(6, 5)
    idx = torch.tensor([[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]])
    return (Fn(lambda x, i, s: (x.t().scatter(1, i[:, :4].t().contiguous(), s.t()[:4, :2]),
                                x[1:].scatter_add(0, i.expand(2, 5), s[:2, :5]),
                                x.index_put((i[0, :3],), s[0, :5], accumulate=True))),
            (x, idx, torch.randn(5, 6)))


# ---------------------------------------------------------------- scans


@case
def cumsum_float():
    return Fn(lambda x: (torch.cumsum(x, 0), torch.cumsum(x, -1))), (torch.randn(4, 6),)


@case
def cumsum_int():
    # int64 and bool inputs give int64 results.
    return (Fn(lambda x, b: (torch.cumsum(x, -2), torch.cumsum(b, 1))),
            (torch.randint(-10, 10, (3, 4, 2)), torch.randn(3, 5) > 0))


@case
def cumsum_dtype_arg():
    return (Fn(lambda x, i: (torch.cumsum(x, 1, dtype=torch.float64),
                             torch.cumsum(i, 0, dtype=torch.float32))),
            (torch.randn(2, 5), torch.randint(0, 4, (4, 2))))


@case
def cumprod_float():
    return Fn(lambda x: (torch.cumprod(x, 1), torch.cumprod(x, -1))), (torch.randn(3, 5) + 0.5,)


@case
def cumprod_int():
    return (Fn(lambda x: torch.cumprod(x, -1)),
            (torch.randint(-3, 4, (3, 6)),))


@case
def cumsum_3d_middle():
    return Fn(lambda x: torch.cumsum(x, -2)), (torch.randn(2, 7, 3),)


# ---------------------------------------------------------------- any / all


@case(also_keep=(aten.all.default, aten.all.dim, aten.all.dims))
def any_all_bool():
    return (Fn(lambda b: (b.any(), b.all(), b.any(1), b.all(-1), b.any(0, keepdim=True),
                          b.all(dim=(0, 2)))),
            (torch.rand(3, 4, 2) > 0.3,))


@case(also_keep=(aten.all.default, aten.all.dim, aten.all.dims))
def any_all_float():
    x = torch.randn(3, 4)
    x[0] = 0.0
    x[1, 2] = 0.0
    x[2, 1] = float("nan")
    return Fn(lambda x: (x.any(), x.all(), x.any(-1), x.all(0), x.all(1, keepdim=True))), (x,)


@case(also_keep=(aten.all.default, aten.all.dim, aten.all.dims))
def any_all_int():
    return (Fn(lambda x: (x.any(0), x.all(-1), x.any(), x.all())),
            (torch.randint(0, 3, (4, 3)),))


@case(also_keep=(aten.all.default, aten.all.dim, aten.all.dims))
def any_all_whole_true():
    return Fn(lambda b: (b.all(), b.any(), (~b).any())), (torch.ones(2, 3, dtype=torch.bool),)


# ---------------------------------------------------------------- factories from a tensor

LIKE_OPS = (aten.zeros_like.default, aten.ones_like.default, aten.new_zeros.default,
            aten.new_ones.default, aten.new_full.default)


@case(also_keep=LIKE_OPS)
def like_factories():
    return (Fn(lambda x: (torch.full_like(x, 3.5) + x, torch.zeros_like(x) + x,
                          torch.ones_like(x) * x, torch.full_like(x, 7, dtype=torch.int64),
                          torch.ones_like(x, dtype=torch.bool))),
            (torch.randn(2, 3),))


@case(also_keep=LIKE_OPS)
def new_factories():
    return (Fn(lambda x, i: (x.new_zeros(3, 2), x.new_ones((2, 4)), i.new_ones(3),
                             i.new_zeros(2, 2, dtype=torch.float32), x.new_full((2,), -1.5),
                             x.new_zeros(3) + x[0])),
            (torch.randn(2, 3), torch.randint(0, 5, (4,))))


@case(also_keep=LIKE_OPS)
def like_factories_int():
    return (Fn(lambda i: (torch.zeros_like(i), torch.ones_like(i) + i, torch.full_like(i, -4),
                          torch.full_like(i, 2.7))),  # 2.7 truncates into int64
            (torch.randint(0, 9, (3, 2)),))


# ---------------------------------------------------------------- bitwise


@case
def bitwise_int():
    return (Fn(lambda a, b: (a & b, a | b, a ^ b, a & 6, a | -8, a ^ 5, a & b[0])),
            (torch.randint(-50, 50, (3, 4)), torch.randint(-50, 50, (3, 4))))


@case
def bitwise_bool():
    return (Fn(lambda a, b: (a & b, a | b, a ^ b, torch.bitwise_and(a, True),
                             torch.bitwise_or(a, False), torch.bitwise_xor(a, True))),
            (torch.rand(3, 4) > 0.5, torch.rand(3, 4) > 0.5))


@case
def bitwise_bool_broadcast_int():
    return (Fn(lambda a, b, i: (a & b, a ^ b, i ^ -1, i | 0)),
            (torch.rand(3, 1) > 0.5, torch.rand(1, 4) > 0.5, torch.randint(-1000, 1000, (5,))))


# ---------------------------------------------------------------- activations


def halves():
    """f32 with exact halves (ties for round), signed zeros, NaN, the infinities, large values."""
    special = torch.tensor([2.5, -2.5, 0.5, -0.5, 1.5, -1.5, 0.0, -0.0, float("nan"),
                            float("inf"), -float("inf"), 8388609.0, -1e30, 0.49999997, 3.0, -7.0])
    return torch.cat([special, torch.randn(32) * 6]).reshape(6, 8)


@case
def compare_scalars_16bit():
    # A comparison rounds its Python number to the 16-bit dtype (bf16 0.3 is 0.30078125, 257
    # is 256).
    h = torch.tensor([0.30078125, 0.296875, 0.3, 2.0, -0.3, 256.0]).bfloat16().repeat(4)
    f = torch.tensor([0.1, 0.0999755859375, 0.10003662109375, 1.0, -0.1, 0.5]).half().repeat(4)
    return (Fn(lambda h, f: (h > 0.3, h == 0.3, h <= 0.3, f >= 0.1, f != 0.1, f < 0.1, h * 0.3,
                             h == 257, h < 257)),
            (h, f))


@case
def sort_and_topk():
    # sort: ties (small integers), NaN, signed zeros, both directions, another dim, ints
    # (stable: equal values keep their order, as ATen's). topk: distinct values (the order
    # ATen's topk gives ties is its implementation's), NaN the largest; ints; bf16.
    x = ties(5, 7)
    x[1, 2] = float("nan")
    x[3, 0] = -0.0
    y = torch.randn(5, 7)
    y[2, 3] = float("nan")
    i = torch.randint(-5, 5, (4, 6))
    j = torch.stack([torch.randperm(9) - 4 for _ in range(3)])
    h = torch.randn(3, 8).bfloat16()
    return (Fn(lambda x, y, i, j, h: (*torch.sort(x), *torch.sort(x, dim=0, descending=True),
                                      *torch.sort(x, stable=True, descending=True),
                                      *torch.sort(i), *torch.topk(y, 3),
                                      *torch.topk(y, 2, dim=0, largest=False),
                                      *torch.topk(j, 4), *torch.topk(h, 5))),
            (x, y, i, j, h))


@case
def sort_edges():
    # sort and topk beyond the common case: a middle dim of a 3-d tensor, bools, f16 with
    # infinities, a 0-d tensor, a size-1 dim, topk k=len, and a row of 300 (on the CPU longer
    # than its kernel limit: a host call there, a kernel on the GPU). Empty rows: coil's
    # scatter tests (the export cannot take empty outputs).
    m = torch.randn(3, 6, 4)
    m[1, 2, 0] = m[1, 4, 0]
    f = torch.randn(4, 9).half()
    f[0, 1], f[2, 5], f[3, 0] = float("inf"), float("-inf"), float("nan")
    return (Fn(lambda m, b, f, z, r: (
        *torch.sort(m, dim=1), *torch.sort(m, dim=-2, descending=True), *torch.sort(b),
        *torch.sort(f, descending=True), *torch.topk(f, 4, largest=False), *torch.sort(z),
        *torch.sort(m[:, :1], dim=1), *torch.topk(m, 4), *torch.sort(r), *torch.topk(r, 7))),
        (m, torch.rand(3, 7) > 0.5, f, torch.tensor(2.5), torch.randn(2, 300)))


@case
def fmod_and_remainder_floats():
    # fmod and remainder exactly as C's fmod: quotients far beyond the significand (1e30 by
    # 3.7), subnormals, signed zeros, infinities and NaN on either side, negative operands;
    # f32, f64, bf16, f16, a scalar divisor. Not pairs whose quotient overflows the dtype:
    # there eager's vectorized CPU kernel gives NaN (its scalar tail and CUDA give C's exact
    # fmod, as coil does).
    special = [0.0, -0.0, 1.0, -1.0, 3.7, -3.7, 1e30, -1e30, 1e-40, -1e-41, 5e-45,
               float("inf"), float("-inf"), float("nan"), 7.0, 0.5, 123456.789, 2.0 ** 100,
               2.0 ** -126]
    a = torch.tensor(special).repeat_interleave(len(special))
    b = torch.tensor(special).repeat(len(special))
    a = torch.cat([a, torch.randn(200) * 1e6, torch.randn(50) * 1e35])
    b = torch.cat([b, torch.randn(200) * 10, torch.rand(50) * 1e-3])
    d = a.double() * 1e280
    e = b.double()
    fine = lambda p, q: (p / q).isfinite() | ~p.isfinite() | ~q.isfinite() | (q == 0)
    keep = fine(a, b) & fine(d, e) & fine(a.bfloat16(), b.bfloat16()) & fine(a.half(), b.half())
    a, b, d, e = a[keep], b[keep], d[keep], e[keep]
    return (Fn(lambda a, b, d, e: (
        torch.fmod(a, b), torch.remainder(a, b), torch.fmod(d, e), torch.remainder(d, e),
        torch.fmod(d, 1e-20), torch.fmod(a.bfloat16(), b.bfloat16()),
        torch.remainder(a.half(), b.half()), torch.fmod(a, 2.5))),
        (a, b, d, e))


@case
def topk_of_a_vocabulary():
    # topk over rows of 50000 (a vocabulary's logits, computed in the graph so the file stays
    # small), largest and smallest. Distinct values: ATen's topk orders ties as its partial
    # sort leaves them (coil's picks the lowest position first, as its sort does).
    def f(scale):
        n = torch.arange(100000).float().reshape(2, 50000)
        logits = torch.sin(n * 0.37) * scale + n * 1e-4
        return (*torch.topk(logits, 8), *torch.topk(logits, 5, largest=False),
                *torch.topk(logits[:, :4000], 16, dim=-1))
    return Fn(f), (torch.tensor(50.0),)


@case
def logcumsumexp_scans():
    # logcumsumexp as a scan with logaddexp: along each dim, f32 and bf16; -inf (nothing
    # yet), NaN, +inf, a spread of 1000 (a shift by the row's maximum alone would lose the
    # prefix below it), a 0-d tensor. (f64: logcumsumexp_f64, which CUDA's f32 math library
    # does not compute.)
    x = torch.randn(4, 6) * 3
    x[0, :3] = float("-inf")
    x[1, 2] = float("nan")
    x[2, 4] = float("inf")
    x[3] = torch.tensor([-1000.0, -999.0, 0.0, 1.0, -2000.0, 3.0])
    return (Fn(lambda x, h, z: (torch.logcumsumexp(x, 1), torch.logcumsumexp(x, 0),
                                torch.logcumsumexp(h, 0), torch.logcumsumexp(z, 0))),
            (x, torch.randn(40, 3).bfloat16(), torch.tensor(1.5)))


@case
def logcumsumexp_f64():
    d = torch.randn(3, 50).double() * 10
    d[1, 7] = -1e300
    return Fn(lambda d: torch.logcumsumexp(d, -1)), (d,)


@case
def incomplete_gamma():
    # igamma and igammac (P and Q) on a grid of shapes a and arguments x, the series side,
    # the continued fraction's side and near x = a, in f64 and f32, with PyTorch's edges:
    # negative or NaN operands, zeros, infinities. Near x = a for a above 20, PyTorch's f64
    # (Temme's expansion) is good to about 1e-9 (P(50, 49): 0.46210439334, mpmath and coil
    # 0.46210439360094): those pairs are checked in f32 only.
    av = [0.1, 0.5, 1.0, 2.5, 10.0, 50.0, 150.0, 0.0, -1.0, float("inf"), float("nan")]
    xv = [0.0, 0.01, 0.5, 1.0, 2.0, 5.0, 20.0, 49.0, 100.0, 151.0, float("inf"), -2.0]
    a = torch.tensor(av, dtype=torch.float64).repeat_interleave(len(xv))
    x = torch.tensor(xv, dtype=torch.float64).repeat(len(av))
    temme = (a > 20) & ((x - a).abs() / a < 0.3)
    a64, x64 = a[~temme], x[~temme]
    return (Fn(lambda a, x, a64, x64: (torch.igamma(a64, x64), torch.igammac(a64, x64),
                                       torch.special.gammainc(a, x),
                                       torch.special.gammaincc(a, x))),
            (a.float(), x.float(), a64, x64))


@case
def rounding_ops():
    return (Fn(lambda x: (torch.floor(x), torch.ceil(x), torch.round(x), torch.trunc(x))),
            (halves(),))


@case
def rounding_ops_int_and_bf16():
    return (Fn(lambda i, h: (torch.floor(i), torch.round(i), torch.ceil(h), torch.trunc(h),
                             torch.round(h) * 2)),
            (torch.randint(-50, 50, (4, 5)), (torch.randn(4, 5) * 40).bfloat16()))


@case(also_keep=(aten.hardswish.default, aten.hardsigmoid.default))
def hardswish_hardsigmoid():
    return Fn(lambda x: (F.hardswish(x), F.hardsigmoid(x))), (edges(),)


@case
def hardtanh_relu6():
    return (Fn(lambda x: (F.hardtanh(x), F.hardtanh(x, -2.5, 5.0), F.relu6(x))), (edges(),))


@case(also_keep=(aten.softplus.default,))
def softplus_variants():
    return (Fn(lambda x: (F.softplus(x), F.softplus(x, beta=2.0, threshold=5.0),
                          F.softplus(x, beta=0.5, threshold=3.0))),
            (edges(),))


@case
def leaky_relu_elu():
    return (Fn(lambda x: (F.leaky_relu(x), F.leaky_relu(x, 0.2), F.elu(x), F.elu(x, alpha=0.5),
                          F.selu(x))),  # celu exports through expm1 (not in coil)
            (edges(),))


@case(also_keep=(aten.hardswish.default, aten.hardsigmoid.default, aten.softplus.default))
def activations_modules_f64():
    m = nn.Sequential(nn.Hardswish())
    return (Fn(lambda x: (m(x), F.hardsigmoid(x), F.softplus(x, 3.0, 2.0), F.elu(x, 1.5),
                          F.leaky_relu(x, 0.3), F.hardtanh(x, -0.5, 0.5))),
            (edges().double(),))


# ---------------------------------------------------------------- masked_fill


@case(also_keep=(aten.masked_fill.Scalar, aten.masked_fill.Tensor))
def masked_fill_scalar():
    return (Fn(lambda x, m: (x.masked_fill(m, -1.5), x.masked_fill(m, float("-inf")),
                             x.masked_fill(m, 0))),
            (torch.randn(3, 4), torch.rand(3, 4) > 0.5))


@case(also_keep=(aten.masked_fill.Scalar, aten.masked_fill.Tensor))
def masked_fill_broadcast_mask():
    return (Fn(lambda x, m, r: (x.masked_fill(m, 2.0), x.masked_fill(r, -3.0))),
            (torch.randn(2, 3, 4), torch.rand(1, 4) > 0.5, torch.rand(3, 1) > 0.5))


@case(also_keep=(aten.masked_fill.Scalar, aten.masked_fill.Tensor))
def masked_fill_attention_mask():
    return (Fn(lambda s: s.masked_fill(torch.ones(4, 4, dtype=torch.bool).triu(1), float("-inf"))
               .softmax(-1)),
            (torch.randn(2, 4, 4),))


@case(also_keep=(aten.masked_fill.Scalar, aten.masked_fill.Tensor))
def masked_fill_int_and_tensor_value():
    return (Fn(lambda i, m, x, v: (i.masked_fill(m, 7), x.masked_fill(m, v))),
            (torch.randint(0, 5, (3, 4)), torch.rand(3, 4) > 0.5, torch.randn(3, 4),
             torch.tensor(9.25)))


# ---------------------------------------------------------------- tril / triu


@case(also_keep=(aten.tril.default, aten.triu.default))
def tril_triu():
    return (Fn(lambda x: (x.tril(), x.triu(), x.tril(1), x.tril(-1), x.triu(1), x.triu(-1))),
            (torch.randn(4, 6),))


@case(also_keep=(aten.tril.default, aten.triu.default))
def tril_triu_batched_tall():
    return (Fn(lambda x: (x.tril(-2), x.triu(2), x.tril(5), x.triu(-5))),
            (torch.randn(2, 6, 3),))


@case(also_keep=(aten.tril.default, aten.triu.default))
def tril_triu_int_bool():
    return (Fn(lambda i, b: (i.triu(-1), b.tril(1))),
            (torch.randint(1, 9, (3, 3)), torch.rand(2, 3, 4) > 0.2))


# ---------------------------------------------------------------- roll / flip


# Kept: PyTorch's roll decomposition uses fmod.Scalar, which coil does not parse.
@case(keep=(aten.roll.default,))
def roll_flat():
    # No dims: rolls the flattened tensor and restores the shape.
    return Fn(lambda x: (torch.roll(x, 2), torch.roll(x, -5))), (torch.randn(3, 4),)


# Kept: PyTorch's roll decomposition uses fmod.Scalar, which coil does not parse.
@case(keep=(aten.roll.default,))
def roll_dims():
    return (Fn(lambda x: (torch.roll(x, 1, 0), torch.roll(x, -2, -1), torch.roll(x, (1, -3), (0, 2)),
                          torch.roll(x, 7, 1), torch.roll(x, -9, 2))),
            (torch.randn(3, 4, 5),))


# Kept: PyTorch's roll decomposition uses fmod.Scalar, which coil does not parse.
@case(keep=(aten.roll.default,))
def roll_int_bool():
    return (Fn(lambda i, b: (torch.roll(i, -1, 0), torch.roll(b, 3))),
            (torch.randint(0, 100, (4, 2)), torch.rand(2, 3) > 0.5))


@case
def flip_dims():
    return (Fn(lambda x: (torch.flip(x, [0]), torch.flip(x, [-1]), torch.flip(x, [0, 2]),
                          torch.flip(x, [1, 0, 2]))),
            (torch.randn(2, 3, 4),))


@case
def flip_int():
    return Fn(lambda i: torch.flip(i, [-2])), (torch.randint(0, 100, (3, 4)),)


# ---------------------------------------------------------------- constant_pad_nd


@case
def pad_positive():
    return (Fn(lambda x: (F.pad(x, (1, 2)), F.pad(x, (0, 1, 2, 0), value=-1.5),
                          F.pad(x, (1, 1, 1, 1, 1, 1), value=3.0))),
            (torch.randn(2, 3, 4),))


@case
def pad_negative():
    # Negative padding crops.
    return (Fn(lambda x: (F.pad(x, (-1, -2)), F.pad(x, (-1, 2, 1, -2)),
                          F.pad(x, (0, 0, -1, 0), value=5.0))),
            (torch.randn(2, 4, 5),))


@case
def pad_int_bool():
    return (Fn(lambda i, b: (F.pad(i, (2, -1), value=7), F.pad(b, (1, 0, 0, 1), value=True))),
            (torch.randint(0, 9, (3, 4)), torch.rand(2, 3) > 0.5))


@case
def pad_4d_conv_style():
    return (Fn(lambda x: F.pad(x, (1, 0, 0, 2), value=0.25)), (torch.randn(1, 2, 3, 3),))


# ---------------------------------------------------------------- more edge cases


@case
def conv3d_bn3d():
    m = nn.Sequential(nn.Conv3d(2, 3, (2, 3, 2), stride=(1, 2, 1), padding=(1, 0, 1), groups=1),
                      randomize_bn(nn.BatchNorm3d(3)))
    return m, (torch.randn(1, 2, 3, 5, 4),)


@case
def conv1d_same_padding():
    # padding="same" with an even kernel pads asymmetrically (an explicit constant_pad_nd).
    m = nn.Conv1d(2, 3, 4, padding="same", dilation=1)
    return m, (torch.randn(2, 2, 7),)


@case
def conv2d_same_padding_dilated():
    m = nn.Conv2d(2, 2, 3, padding="same", dilation=2, bias=False)
    return m, (torch.randn(1, 2, 5, 6),)


@case
def conv2d_f64():
    m = nn.Conv2d(2, 3, 3, stride=2, padding=1, groups=1).double()
    return m, (torch.randn(1, 2, 5, 5, dtype=torch.float64),)


@case
def conv2d_on_permuted_input():
    # A non-contiguous input (a permuted view) into convolution, pooling and cumsum.
    c = nn.Conv2d(3, 2, 2)
    return (Fn(lambda x: (c(x.permute(0, 3, 1, 2)), F.max_pool2d(x.permute(0, 3, 1, 2), 2),
                          F.avg_pool2d(x.transpose(1, 2), 2), torch.cumsum(x.transpose(0, 2), 1),
                          x.transpose(1, 3).flip(1), F.pad(x.transpose(1, 2), (1, -1)))),
            (torch.randn(2, 4, 4, 3),))


@case
def max_pool2d_nan():
    # NaN wins a max window; with several NaNs PyTorch's CPU kernel reports the last one.
    x = torch.randn(1, 2, 4, 6)
    x[0, 0, 0, 1] = x[0, 0, 1, 0] = float("nan")
    x[0, 1, 2, 2] = float("nan")
    x[0, 1, 3, 5] = float("-inf")
    m = nn.MaxPool2d(2, return_indices=True)
    return Fn(lambda x: m(x)), (x,)


@case
def max_pool2d_nan_single():
    # One NaN per window: the value and its index.
    x = torch.randn(1, 1, 4, 4)
    x[0, 0, 1, 1] = x[0, 0, 2, 3] = float("nan")
    m = nn.MaxPool2d(2, return_indices=True)
    return Fn(lambda x: m(x)), (x,)


@case
def max_pool2d_stride_gt_kernel():
    return nn.MaxPool2d(2, stride=3, return_indices=True), (torch.randn(1, 2, 8, 7),)


@case
def avg_pool2d_int():
    # Integer average pooling truncates (C++ integer division).
    return (Fn(lambda x: (F.avg_pool2d(x, 3, 2, 1), F.avg_pool2d(x, 2, count_include_pad=False),
                          F.avg_pool2d(x, 3, 2, 1, divisor_override=4))),
            (torch.randint(-20, 20, (1, 2, 5, 5)),))


@case
def max_pool2d_int():
    m = nn.MaxPool2d(2, stride=1, padding=1, return_indices=True)
    return Fn(lambda x: m(x)), (torch.randint(-20, 20, (1, 2, 4, 5)),)


@case
def pool_f64():
    return (Fn(lambda x: (F.max_pool2d(x, 3, 2, 1), F.avg_pool2d(x, 3, 2, 1, ceil_mode=True),
                          F.adaptive_avg_pool2d(x, (2, 3)))),
            (torch.randn(1, 2, 6, 7, dtype=torch.float64),))


@case
def index_int32_indices():
    # index.Tensor and embedding accept int32 indices.
    e = nn.Embedding(6, 2)
    return (Fn(lambda x, i: (x[i], x[:, i], e(i.abs()))),
            (torch.randn(6, 6), torch.tensor([[5, 0], [-1, 2]], dtype=torch.int32)))


@case
def embedding_bag_int32():
    return Bags(8, 3, ("sum", "mean", "max")), (torch.tensor([1, 7, 3, 3, 0], dtype=torch.int32),
                                               torch.tensor([0, 2, 2], dtype=torch.int32))


@case
def bitwise_bool_int_scalar():
    # bool & int scalar promotes to int64; int32 & int scalar stays int32.
    return (Fn(lambda b, i, j: (b & 3, b | 2, b ^ 1, i & 6, i ^ j, i | -4)),
            (torch.rand(2, 3) > 0.5, torch.randint(-50, 50, (2, 3), dtype=torch.int32),
             torch.randint(-50, 50, (2, 3))))


def _narrow(dtype, lo, hi, shape, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(lo, hi, shape, generator=g).to(dtype)


@case
def int8_arith_wraps():
    # int8 arithmetic wraps at every op, as PyTorch stores each result: a fused chain must not
    # keep the wide intermediate (a * b overflows, then compares).
    a = _narrow(torch.int8, -128, 128, (4, 9), 1)
    b = _narrow(torch.int8, -128, 128, (4, 9), 2)
    return (Fn(lambda a, b: (a + b, a - b, a * b, -a, a.abs(), (a * b) > 0, (a + b) // 7,
                             torch.remainder(a, 5), torch.maximum(a, b), a * 3 + 100,
                             torch.where(a > b, a, b), a.sum(), a.sum(1), a.amax(0),
                             a.to(torch.float32) / 3, (a.float() * 1.7).to(torch.int8))),
            (a, b))


@case
def uint8_arith_wraps():
    # uint8 wraps modulo 256 and compares unsigned; uint8 with int8 promotes to int16.
    a = _narrow(torch.uint8, 0, 256, (3, 7), 3)
    b = _narrow(torch.uint8, 0, 256, (3, 7), 4)
    c = _narrow(torch.int8, -128, 128, (3, 7), 5)
    return (Fn(lambda a, b, c: (a + b, a - b, a * b, a // 3, a > b,
                                 a + c, (a - b).to(torch.int64), a.sum(0), a.amin(1),
                                 (a.float() - 128.5), torch.minimum(a, b), a.to(torch.int16) * 300)),
            (a, b, c))


@case
def int16_arith_wraps():
    a = _narrow(torch.int16, -32768, 32768, (5, 6), 6)
    b = _narrow(torch.int16, -32768, 32768, (5, 6), 7)
    return (Fn(lambda a, b: (a + b, a * b, a * b // 3, a - 30000, a.to(torch.int8), a.to(torch.uint8),
                             a.cumsum(1), a.prod(1), a.float().sin(), a.to(torch.bfloat16))),
            (a, b))


@case
def narrow_int_views_and_cat():
    a = _narrow(torch.uint8, 0, 256, (2, 3, 4), 8)
    b = _narrow(torch.uint8, 0, 256, (2, 5, 4), 9)
    c = _narrow(torch.int8, -128, 128, (4, 3), 10)
    return (Fn(lambda a, b, c: (torch.cat([a, b], 1), a.permute(2, 0, 1).contiguous() + 1,
                                 c.t().flip(0), c[1:, ::2] * 2, c.unsqueeze(0).expand(2, 4, 3) + c)),
            (a, b, c))


@case
def view_dtype_same_size():
    # view(dtype) of the same element size is a bitcast, fused with what comes before and after:
    # f32 <-> i32 (NaN, -0.0, infinities, subnormals), bf16/f16 <-> i16, u8 <-> i8, bool -> u8.
    x = torch.tensor([[0.5, -0.0, float("inf"), float("nan")], [1e-40, -3.25, 7.0, -1.5]])
    h = torch.randn(3, 5).to(torch.bfloat16)
    f = torch.randn(3, 5).to(torch.float16)
    u = _narrow(torch.uint8, 0, 256, (2, 6), 11)
    b = torch.rand(2, 6) > 0.5
    i = _narrow(torch.int32, -2**31, 2**31, (2, 4), 12)
    return (Fn(lambda x, h, f, u, b, i: (
        (x + 1).view(torch.int32) * 2, x.view(torch.int32) & 0x7fffffff, x.t().view(torch.int32),
        h.view(torch.int16) + 1, (h * 2).view(torch.int16), f.view(torch.int16) >> 3,
        (f.view(torch.int16) | 1).view(torch.float16), u.view(torch.int8), u.view(torch.int8) + 0,
        b.view(torch.uint8) + 1, (i | 1).view(torch.float32), i.view(torch.float32) * 0)),
        (x, h, f, u, b, i))


@case
def view_dtype_other_size():
    # Another element size scales the last dim: f32 -> u8 (four bytes each), u8 -> i16/i32/i64
    # and back.
    x = torch.randn(3, 4)
    u = _narrow(torch.uint8, 0, 256, (4, 16), 13)
    return (Fn(lambda x, u: (x.view(torch.uint8), (x * 2).view(torch.int16) + 1,
                              u.view(torch.int32), u.view(torch.int64).view(torch.uint8) + 0,
                              u.view(torch.int16)[:, 1:3] * 3)),
            (x, u))


@case
def bitwise_and_shifts():
    # Bit ops and shifts in kernels, every integer width: shifts by amounts past the width
    # (PyTorch: 0 to the left, the sign to the right), negative amounts, bools.
    a = _narrow(torch.int8, -128, 128, (3, 8), 14)
    u = _narrow(torch.uint8, 0, 256, (3, 8), 15)
    s = _narrow(torch.int16, -32768, 32768, (3, 8), 16)
    i = _narrow(torch.int32, -2**31, 2**31, (3, 8), 17)
    n = torch.tensor([0, 1, 3, 7, 8, 9, 15, 40])
    b = torch.rand(3, 8) > 0.5
    return (Fn(lambda a, u, s, i, n, b: (
        a & 0x5a, a | u, a ^ s, u ^ 0xff, i & s, b & (u > 100), b ^ b.t().t(),
        a << 3, a >> 2, u << 2, u >> 3, s << 5, s >> 9, i << 7, i >> 17,
        a << n.to(torch.int8), a >> n.to(torch.int8), u >> n.to(torch.uint8),
        i << n.to(torch.int32), n << n, (n - 3) >> n, (a ^ 1) << 1)),
        (a, u, s, i, n, b))


@case
def matmul_integers():
    # Integer matmuls wrap in their own width, as PyTorch's CPU kernels compute them.
    a = _narrow(torch.int16, -300, 300, (3, 5), 18)
    b = _narrow(torch.int16, -300, 300, (5, 4), 19)
    u = _narrow(torch.uint8, 0, 256, (2, 6), 20)
    v = _narrow(torch.uint8, 0, 256, (6, 3), 21)
    i = torch.randint(-1000, 1000, (2, 3, 4))
    j = torch.randint(-1000, 1000, (2, 4, 5))
    return Fn(lambda a, b, u, v, i, j: (a @ b, u @ v, i @ j, (a.to(torch.int8) @ b.to(torch.int8)))), (a, b, u, v, i, j)


@case
def round_decimals():
    # round(x, decimals): nearbyint(x * 10^d) / 10^d in the opmath type (half to even), and
    # x / 10^-d for negative d; f32, f64, bf16.
    x = torch.cat([torch.tensor([0.125, 0.135, -2.5, 2.5, 1234.5678, -0.0, float("inf"),
                                 float("nan"), 15.0, 25.0, 1e-7, 3e30]), torch.randn(20) * 100])
    return (Fn(lambda x, y, z: (torch.round(x, decimals=2), torch.round(x, decimals=-1),
                                torch.round(x, decimals=0), torch.round(y, decimals=3),
                                torch.round(z, decimals=1), torch.round(x * 3, decimals=4))),
            (x, x.double(), x.bfloat16()))


@case
def index_put_boolean_masks():
    # index_put with boolean masks: over the leading dims with a one-element value (a fused
    # where, accumulating or not), over all dims, with a value per selected element (a host
    # call: nonzero at run time), and a mask beside an integer index.
    x = torch.randn(6, 4, 3)
    m2 = torch.rand(6, 4) > 0.5
    m1 = torch.tensor([True, False, True, True, False, True])
    m3 = torch.rand(6, 4, 3) > 0.3
    v = torch.tensor(2.5)
    rows = torch.randn(4, 4, 3)
    ii = torch.tensor([0, 2])
    mc = torch.tensor([True, False, True])
    return (Fn(lambda x, m2, m1, m3, v, rows, ii, mc: (
        torch.index_put(x, [m2], v), torch.index_put(x, [m2], v, accumulate=True),
        torch.index_put(x, [m3], v.reshape(1)), torch.index_put(x, [m1], rows),
        torch.index_put(x, [m1], rows, accumulate=True),
        torch.ops.aten.index_put.default(x, [None, ii, mc], v))),
        (x, m2, m1, m3, v, rows, ii, mc))


@case
def scatter_reductions():
    # scatter_reduce with every reduction, with and without self's values, on floats and
    # integers (an integer mean floors), duplicate targets; scatter(reduce=add|multiply) with
    # a tensor and with a scalar. Host calls, as Inductor's on the CPU.
    x = torch.randn(5, 6)
    xi = torch.randint(-9, 10, (5, 6))
    idx = torch.randint(0, 5, (4, 6))
    src = torch.randn(4, 6)
    srci = torch.randint(-9, 10, (4, 6))
    outs = lambda x, xi, idx, src, srci: tuple(
        [x.scatter_reduce(0, idx, src, r, include_self=s)
         for r in ("sum", "prod", "mean", "amax", "amin") for s in (True, False)]
        + [xi.scatter_reduce(0, idx, srci, r, include_self=s)
           for r in ("sum", "mean", "amax") for s in (True, False)]
        + [x.scatter(0, idx, src, reduce="add"), x.scatter(0, idx, src, reduce="multiply"),
           x.scatter(1, idx[:, :3], 1.5, reduce="multiply"),
           xi.scatter(0, idx, srci, reduce="add")])
    return (Fn(outs), (x, xi, idx, src, srci))


@case
def pow_int_negative_exponents():
    # Integer pow to a negative power (a tensor exponent): 1 of 1, +-1 of -1 by the parity,
    # 0 of everything else; wrapping powers in every width.
    x = torch.arange(-3, 4).repeat_interleave(11)
    y = torch.arange(-5, 6).repeat(7)
    return (Fn(lambda x, y, a, b, u, v: (torch.pow(x, y), torch.pow(a, b), torch.pow(u, v),
                                         torch.pow(x.to(torch.int32), y.to(torch.int32)))),
            (x, y, x.to(torch.int8) * 5, y.to(torch.int8) + 3, (x + 3).to(torch.uint8) * 9,
             (y + 5).to(torch.uint8) * 3))


@case(also_keep=(aten.masked_fill.Scalar,))
def masked_fill_dtypes():
    # Float values into int tensors truncate; into bool tensors nonzero is true.
    return (Fn(lambda i, b, m: (i.masked_fill(m, 2.7), i.masked_fill(m, -2.7), b.masked_fill(m, 5),
                                b.masked_fill(m, 0))),
            (torch.randint(0, 9, (2, 4)), torch.rand(2, 4) > 0.5, torch.rand(2, 4) > 0.5))


@case
def scatter_value_float_into_int():
    idx = torch.tensor([[1, 0, 2]])
    return Fn(lambda x, i: (torch.scatter(x, 0, i, 2.7), torch.scatter(x, 0, i, -2.7))), \
        (torch.randint(0, 9, (3, 3)), idx)


@case
def activations_nan_inf():
    x = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e-30, -1e-30, 3.0])
    return (Fn(lambda x: (F.hardtanh(x), F.leaky_relu(x, 0.1), F.elu(x), F.relu6(x),
                          F.softplus(x), F.hardswish(x), F.hardsigmoid(x))),
            (x,))


@case(keep=(aten.hardswish.default, aten.hardsigmoid.default, aten.softplus.default))
def activations_nan_inf_op():
    return activations_nan_inf()


@case
def activations_odd_params():
    # Negative and >1 slopes, negative alpha, elu scale/input_scale (selu), negative beta.
    return (Fn(lambda x: (F.leaky_relu(x, -0.5), F.leaky_relu(x, 2.0), F.elu(x, alpha=-1.5),
                          F.hardtanh(x, 0.5, 0.5), F.softplus(x, beta=-1.0, threshold=3.0))),
            (edges(),))


@case(keep=(aten.softplus.default,))
def activations_odd_params_op():
    return activations_odd_params()


@case
def low_precision_f16():
    return (Fn(lambda x: (F.hardtanh(x), F.leaky_relu(x, 0.2), F.elu(x), torch.cumsum(x, 1),
                          F.max_pool2d(x[None], 2), F.avg_pool2d(x[None], 2), x.flip(0),
                          F.pad(x, (1, 1), value=0.5))),
            (edges().half(),))


@case
def low_precision_bf16():
    return (Fn(lambda x, i: (F.hardtanh(x, -2.0, 2.0), torch.cumsum(x, 0), x[i], x.tril(1),
                             F.avg_pool2d(x[None], 3, 1, 1), F.adaptive_avg_pool2d(x[None], 3),
                             torch.gather(x, 1, i[None].expand(6, 2)))),
            (edges().bfloat16(), torch.tensor([5, 0])))


@case
def cumsum_cumprod_0d_and_size1():
    return (Fn(lambda x, y: (torch.cumsum(x, 0), torch.cumprod(x, -1), torch.cumsum(y, 1),
                             torch.cumprod(y, 0))),
            (torch.tensor(2.5), torch.randn(1, 4)))


@case
def cumprod_with_zeros_and_int_overflow():
    x = torch.tensor([[1.5, 0.0, 2.0, -3.0], [0.5, 2.0, 0.0, 4.0]])
    big = torch.tensor([1 << 40, 1 << 30, 7, -3])  # the product wraps around int64
    return Fn(lambda x, b: (torch.cumprod(x, 1), torch.cumprod(b, 0))), (x, big)


@case
def cumsum_bool_dtype():
    return (Fn(lambda b: (torch.cumsum(b, 0, dtype=torch.float32), torch.cumsum(b, -1),
                          torch.cumsum(b.int(), 0))),
            (torch.rand(3, 4) > 0.5,))


@case
def index_put_none_and_broadcast_values():
    # x[:, i] = v (a leading None index) and values of shape (k, 1).
    def f(x, i, v, w):
        y = x.clone()
        y[:, i] = v
        z = x.t().clone()
        z[i] = w
        return y, z, x.t().index_put((i,), w, accumulate=True)
    return Fn(f), (torch.randn(3, 5), torch.tensor([4, 0, -1]), torch.randn(3, 1), torch.randn(3, 1))


@case
def index_put_bool_and_int32_index():
    return (Fn(lambda b, i, v: b.index_put((i,), v)),
            (torch.zeros(5, 2, dtype=torch.bool), torch.tensor([3, 0], dtype=torch.int32),
             torch.tensor([True, False])))


@case
def gather_scatter_on_transposed():
    return (Fn(lambda x, i, s: (torch.gather(x.t(), 1, i), torch.scatter_add(x.t(), 1, i, s),
                                torch.index_select(x.t(), 1, i[0]))),
            (torch.randn(4, 3), torch.tensor([[0, 3], [1, 1], [2, 0]]), torch.randn(3, 2)))


@case(also_keep=(aten.all.default, aten.all.dim, aten.all.dims))
def any_all_0d_and_keepdim_dims():
    return (Fn(lambda x, b: (x.any(), x.all(), b.any(dim=(0, 2), keepdim=True),
                             b.all(dim=(-1, 0)), b.any(-2))),
            (torch.tensor(0.0), torch.rand(2, 3, 4) > 0.8))


@case
def tril_triu_1row_1col():
    return (Fn(lambda r, c: (r.tril(), r.triu(1), c.tril(-1), c.triu(), r.triu(-3), c.tril(2))),
            (torch.randn(1, 5), torch.randn(4, 1)))


@case(keep=(aten.tril.default, aten.triu.default))
def tril_triu_1row_1col_op():
    return tril_triu_1row_1col()


@case(keep=(aten.roll.default,))
def roll_repeated_dim_and_0d():
    return (Fn(lambda x, s: (torch.roll(x, (1, 2), (1, 1)), torch.roll(x, (-4, 3), (-1, 0)),
                             torch.roll(x, 0), torch.roll(x, 12))),
            (torch.randn(3, 4), torch.tensor(1.0)))


@case
def flip_0d_size1_and_bool():
    return (Fn(lambda x, b: (torch.flip(x, [0, 1]), torch.flip(b, [0]))),
            (torch.randn(1, 3), torch.rand(4) > 0.5))


@case
def pad_all_dims_and_mixed():
    return (Fn(lambda x: (F.pad(x, (1, -1, -1, 1, 2, 0)), F.pad(x, (0, 0, 0, 0, -1, -1)),
                          F.pad(x, (3, 3), value=-0.0))),
            (torch.randn(3, 3, 4),))


@case(also_keep=LIKE_OPS)
def like_factories_noncontiguous_and_bool():
    return (Fn(lambda x: (torch.zeros_like(x.t()) + x.t(), torch.full_like(x.t(), True, dtype=torch.bool),
                          x.new_full((2, 2), 3), x.new_full((2,), 2.5, dtype=torch.int64),
                          torch.ones_like(x, dtype=torch.float64))),
            (torch.randn(2, 3),))


@case(also_keep=(aten.all.dims,))
def any_all_empty_dims():
    # any/all over dim=() reduce nothing (an elementwise `!= 0`), unlike sum/amax over dim=().
    return (Fn(lambda x, b: (torch.any(x, dim=()), torch.all(x, dim=()), torch.any(b, dim=()),
                             torch.all(b, dim=(), keepdim=True))),
            (torch.tensor([[0.0, 1.5], [float("nan"), 0.0]]), torch.rand(2, 3) > 0.5))


class BagOutputs(nn.Module):
    """All four outputs of aten._embedding_bag (output, offset2bag, bag_size, max_indices)."""

    def __init__(self, mode, padding_idx=-1, include_last_offset=False):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(10, 3))
        self.mode, self.padding_idx, self.last = mode, padding_idx, include_last_offset

    def forward(self, ids, offsets):
        out, offset2bag, bag_size, max_indices = torch.ops.aten._embedding_bag(
            self.weight, ids, offsets, False, self.mode, False, None, self.last, self.padding_idx)
        # offset2bag is empty in sum mode without padding_idx (and export's check cannot take an
        # empty output): return it joined to bag_size.
        return out, torch.cat([offset2bag, bag_size]), max_indices


@case
def embedding_bag_aux_outputs_sum():
    return BagOutputs(0), (IDS, torch.tensor([0, 2, 2, 5]))


@case
def embedding_bag_aux_outputs_mean():
    return BagOutputs(1), (IDS, torch.tensor([0, 2, 2, 5]))


@case
def embedding_bag_aux_outputs_max():
    return BagOutputs(2), (IDS, torch.tensor([0, 2, 2, 5]))


@case
def embedding_bag_aux_outputs_padding_idx():
    return BagOutputs(0, padding_idx=2), (IDS, torch.tensor([0, 2, 2, 5]))


@case
def embedding_bag_psw_padding_idx():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(10, 3))

        def forward(self, ids, offsets, psw):
            return F.embedding_bag(ids, self.weight, offsets, mode="sum", per_sample_weights=psw,
                                   padding_idx=4, include_last_offset=True)
    return M(), (IDS, torch.tensor([0, 3, 3, 10]), torch.randn(10))


@case
def conv_transpose2d_depthwise():
    m = nn.ConvTranspose2d(3, 3, 3, stride=2, padding=1, groups=3, output_padding=1)
    return m, (torch.randn(1, 3, 4, 3),)


# int64 values above 2**53 do not survive a round trip through f64: every op that only moves
# or compares int64 elements must keep them exact.
BIG = torch.tensor([[(1 << 60) + 1, -(1 << 55) - 3, (1 << 53) + 1, 7],
                    [-(1 << 62) - 5, 3, (1 << 54) + 3, -9]])


@case
def int64_big_flip():
    return Fn(lambda x: torch.flip(x, [1])), (BIG,)


@case(keep=(aten.roll.default,))
def int64_big_roll():
    return Fn(lambda x: torch.roll(x, 1, 1)), (BIG,)


@case
def int64_big_pad():
    return Fn(lambda x: F.pad(x, (1, 0), value=5)), (BIG,)


@case
def int64_big_index():
    return Fn(lambda x, i: x[:, i]), (BIG, torch.tensor([2, 0]))


@case
def int64_big_index_select():
    return Fn(lambda x, i: torch.index_select(x, 1, i)), (BIG, torch.tensor([0, 2]))


@case
def int64_big_gather():
    return Fn(lambda x, i: torch.gather(x, 1, i)), (BIG, torch.tensor([[0, 2], [2, 0]]))


@case
def int64_big_scatter():
    return (Fn(lambda x, i, s: torch.scatter(x, 1, i, s)),
            (torch.zeros(2, 4, dtype=torch.int64), torch.tensor([[0, 2], [2, 0]]), BIG))


@case
def int64_big_scatter_add():
    return (Fn(lambda x, i, s: torch.scatter_add(x, 1, i, s)),
            (BIG, torch.tensor([[0, 2], [2, 0]]), torch.ones(2, 2, dtype=torch.int64)))


@case
def int64_big_index_put():
    return (Fn(lambda x, i, v: (x.index_put((i,), v), x.index_put((i,), v, accumulate=True))),
            (BIG, torch.tensor([1]), torch.tensor([[1, 1, 1, 1]])))


@case
def int64_big_embedding():
    # Integer embedding tables (e.g. id remapping) go through F.embedding too.
    return Fn(lambda w, i: F.embedding(i, w)), (BIG.t().contiguous(), torch.tensor([2, 0]))


@case
def int64_big_masked_fill():
    return (Fn(lambda x, m: x.masked_fill(m, (1 << 61) + 1)),
            (BIG, torch.tensor([[True, False, False, True], [False, False, True, False]])))


@case(keep=(aten.masked_fill.Scalar,))
def int64_big_masked_fill_op():
    return int64_big_masked_fill()


@case(keep=(aten.tril.default, aten.triu.default))
def int64_big_tril_triu():
    return Fn(lambda x: (x.tril(1), x.triu())), (BIG,)


@case
def int64_big_max_pool():
    m = nn.MaxPool2d((1, 2), return_indices=True)
    return Fn(lambda x: m(x[None])), (BIG,)


@case
def int64_big_full_like():
    return (Fn(lambda x: (torch.full_like(x, (1 << 60) + 1), x.new_full((2,), -(1 << 58) - 1))),
            (BIG,))


@case
def int64_big_cumsum():
    return Fn(lambda x: (torch.cumsum(x, 1), torch.cumprod(x, 0))), (BIG,)


# ---------------------------------------------------------------- export


# ---------------------------------------------------------------- the float-function table

INF, NAN = float("inf"), float("nan")


def wide():
    """Special values (signed zeros, tiny, the breakpoints of the expansions, huge, infinities,
    NaN) and a spread."""
    special = torch.tensor([0.0, -0.0, 1e-30, -1e-8, 1e-4, 0.1, 0.2679, 0.3, 0.4999, 0.5, 0.53,
                            0.75, 1.0, -1.0, 1.5, 2.0, 3.0, 5.0, 9.0, 10.0, 10.6, 30.0, 1e10,
                            -1e10, 3e38, INF, -INF, NAN])
    return torch.cat([special, -special, torch.randn(56) * 4]).reshape(8, 14)


def unit():
    """[-1, 1] with its ends, values near them, and a few beyond (NaN there)."""
    special = torch.tensor([0.0, -0.0, 1e-30, 1e-6, 0.5, 0.53, 0.9, 0.999, 0.9999999, 1.0,
                            -1.0, -0.9999999, 1.0000001, 2.0, INF, NAN])
    return torch.cat([special, torch.rand(48) * 2 - 1]).reshape(8, 8)


def unary_table(x, u):
    return (torch.atan(x), torch.asin(u), torch.acos(u), torch.asinh(x), torch.acosh(x),
            torch.atanh(u), torch.expm1(x), torch.erfc(x), torch.erfinv(u), torch.exp2(x))


def binary_table(y, x):
    return torch.atan2(y, x), torch.hypot(y, x), torch.logaddexp(y, x)


def grid():
    """Every pair of special values (atan2's quadrants, zeros and infinities) and a spread."""
    v = torch.tensor([0.0, -0.0, 1.0, -1.0, 2.5, -3e-3, 1e30, INF, -INF, NAN])
    y, x = torch.meshgrid(v, v, indexing="ij")
    return (torch.cat([y.reshape(-1), torch.randn(44) * 3]).reshape(8, 18),
            torch.cat([x.reshape(-1), torch.randn(44) * 3]).reshape(8, 18))


@case(keep=(aten.expm1.default, aten.erfc.default, aten.erfinv.default, aten.logaddexp.default,
            aten.hypot.default, aten.atan2.default, aten.exp2.default))
def float_table_f32():
    return Fn(lambda x, u, y, z: unary_table(x, u) + binary_table(y, z)), (wide(), unit(), *grid())


@case(keep=(aten.expm1.default, aten.erfc.default, aten.erfinv.default, aten.logaddexp.default,
            aten.hypot.default, aten.atan2.default, aten.exp2.default))
def float_table_f64():
    return (Fn(lambda x, u, y, z: unary_table(x, u) + binary_table(y, z)),
            tuple(t.double() for t in (wide(), unit(), *grid())))


@case(keep=(aten.expm1.default, aten.erfc.default, aten.erfinv.default, aten.logaddexp.default,
            aten.hypot.default, aten.atan2.default, aten.exp2.default))
def float_table_bf16_f16():
    # 16-bit operands compute in f32 (opmath) and round once.
    def f(x, u, y, z, xh, uh):
        return unary_table(x, u) + binary_table(y, z) + unary_table(xh, uh)
    y, z = grid()
    return (Fn(f), (wide().bfloat16(), unit().bfloat16(), y.bfloat16(), z.bfloat16(),
                    wide().half(), unit().half()))


@case(keep=(aten.atan2.default,))
def float_table_integers():
    # Integer operands compute in the default float dtype.
    return (Fn(lambda i, j: (torch.atan(i), torch.erfc(i), torch.atan2(i, j), torch.asinh(j))),
            (torch.tensor([[-3, 0, 1, 7]]), torch.tensor([[2], [0], [-5]])))


SPECIAL_KEEP = tuple(getattr(aten, n).default for n in (
    "lgamma", "digamma", "polygamma", "special_zeta", "i0", "special_i0e", "special_i1",
    "special_i1e", "special_modified_bessel_k0", "special_modified_bessel_k1",
    "special_scaled_modified_bessel_k0", "special_scaled_modified_bessel_k1",
    "special_spherical_bessel_j0", "special_bessel_j0", "special_bessel_j1", "special_bessel_y0",
    "special_bessel_y1", "special_airy_ai"))
POLY_KEEP = tuple(getattr(aten, "special_" + n).n_scalar for n in (
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
    "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
    "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"))


def special_inputs():
    # Both signs, poles and integers, the branch points (2, 20) and far values, edges.
    x = torch.cat([torch.tensor([0.0, -0.0, 1.0, 2.0, -1.0, -2.5, 0.5, 1e-6, 19.99, 20.01, 35.0,
                                 120.0, float("inf"), -float("inf"), float("nan")]),
                   torch.linspace(-12, 12, 97)])
    q = torch.cat([torch.tensor([0.25, 1.0, 2.0, 3.5, -2.0, -1.5]), torch.rand(106) * 6 + 0.1])
    return x, q


def special_table(x, q, trigamma=True):
    # (PyTorch's trigamma, polygamma(1, x), is good to about 1e-9 only, its f64 bessel_j0 and
    # j1 (and y0, y1, airy_ai) to about 1e-7 (J0(6) = 0.150645257250997, PyTorch
    # 0.1506452002673; Ai(-4) = -0.07026553294929, PyTorch -0.07026553297551): checked in f32.)
    sp = torch.special
    pos = x.abs() + 0.01
    tri = (torch.polygamma(1, pos),) if trigamma else ()
    bessel_j = (sp.bessel_j0(x * 3), sp.bessel_j1(x * 3), sp.bessel_y0(x * 3),
                sp.bessel_y1(x * 3), sp.airy_ai(x * 2)) if trigamma else ()
    return (torch.lgamma(x), torch.digamma(x)) + tri + (torch.polygamma(3, pos),
            sp.zeta(x.abs() + 1.5, q), sp.zeta(torch.full_like(q, 3.0), q), torch.i0(x),
            sp.i0e(x), sp.i1(x), sp.i1e(x), sp.modified_bessel_k0(x), sp.modified_bessel_k1(x),
            sp.scaled_modified_bessel_k0(x), sp.scaled_modified_bessel_k1(x),
            sp.spherical_bessel_j0(x)) + bessel_j


@case(keep=SPECIAL_KEEP)
def special_functions_f32():
    return Fn(special_table), special_inputs()


@case(keep=SPECIAL_KEEP)
def special_functions_f64():
    return (Fn(lambda x, q: special_table(x, q, trigamma=False)),
            tuple(t.double() for t in special_inputs()))


@case(keep=(aten.special_erfcx.default, aten.special_ndtri.default))
def special_erfcx_ndtri():
    # erfcx over both tails (overflowing to inf below about -9.4 in f32), ndtri at the ends of
    # [0, 1], tiny tail probabilities and outside (NaN); log_ndtr as PyTorch decomposes it.
    x = torch.cat([torch.tensor([0.0, 0.49, 0.51, -0.49, -0.51, 5.0, 30.0, 1e10, -5.0, -9.0,
                                 -30.0, float("inf"), -float("inf"), float("nan")]),
                   torch.linspace(-8, 40, 61)])
    p = torch.tensor([0.0, 1.0, 0.5, 1e-30, 1e-10, 1e-3, 0.025, 0.3, 0.7, 0.975, 0.999, 1 - 1e-7,
                      -0.1, 1.1, float("nan")])
    sp = torch.special
    return (Fn(lambda x, p, xd, pd: (sp.erfcx(x), sp.ndtri(p), sp.log_ndtr(x), sp.erfcx(xd),
                                     sp.ndtri(pd), sp.log_ndtr(xd))),
            (x, p, x.double(), p.double()))


@case(keep=POLY_KEEP)
def special_polynomials():
    # Each polynomial at degrees -1, 0, 1, 2, 5 (and 12) over [-1.5, 1.5] (and the shifted ones
    # over [0, 1] mapped the same way), in f32 and f64.
    sp = torch.special
    fns = [sp.chebyshev_polynomial_t, sp.chebyshev_polynomial_u, sp.chebyshev_polynomial_v,
           sp.chebyshev_polynomial_w, sp.shifted_chebyshev_polynomial_t,
           sp.shifted_chebyshev_polynomial_u, sp.shifted_chebyshev_polynomial_v,
           sp.shifted_chebyshev_polynomial_w, sp.hermite_polynomial_h, sp.hermite_polynomial_he,
           sp.laguerre_polynomial_l, sp.legendre_polynomial_p]
    x = torch.cat([torch.tensor([-1.0, 1.0, 0.0, 0.5]), torch.linspace(-1.5, 1.5, 29)])
    # (Degree 12 in f64 only: above 8, PyTorch's f32 kernels switch to trigonometric forms
    # that lose 1e-3 in f32; coil's f64 recurrence matches its f64 results.)
    return (Fn(lambda x, d: tuple(f(v, n) for f in fns for n in (-1, 0, 1, 2, 5)
                                  for v in (x, d)) + tuple(f(d, 12) for f in fns)),
            (x, x.double()))


# ---------------------------------------------------------------- as_strided reads storage


@case(keep=(aten.as_strided.default,))
def as_strided_of_a_view_reads_the_base_storage():
    # An as_strided of a view indexes the storage behind it (here a padded result), from the
    # view's own offset when none is given, and may read past the view's own elements.
    def f(x):
        p = F.pad(x, (1, 2, 2, 1))                        # [2, 3, 7, 8], its own storage
        v = aten.as_strided(p, (2, 3, 2, 6), (168, 56, 16, 1))
        w = aten.as_strided(v, (2, 3, 2, 2, 3), (168, 56, 16, 9, 1))
        s = p[:, 1:, 3:]                                   # offset 56 + 24
        t = aten.as_strided(s, (4, 5), (7, 2))             # the slice's offset, past its end
        u = aten.as_strided(s, (3, 3), (1, 9), 5)          # an explicit offset
        return w.clone(), t + 1, u * 2
    return Fn(f), (torch.randn(2, 3, 4, 5),)


@case(keep=(aten.as_strided.default,))
def as_strided_of_a_reshaped_copy_and_a_split():
    # A reshape PyTorch copies (of a transpose) is a storage of its own; a split's pieces
    # and a transpose are views of their input's.
    def f(x):
        r = x.t().reshape(24)
        a = aten.as_strided(r, (3, 4), (1, 3), 2)
        pieces = torch.split(x + 0, [2, 4], dim=1)
        b = aten.as_strided(pieces[1], (2, 5), (6, 1))
        c = aten.as_strided(x.t(), (6, 2), (1, 6))
        return a.clone(), b.clone(), c.clone()
    return Fn(f), (torch.randn(4, 6),)



@case(keep=(aten.as_strided_scatter.default,))
def as_strided_scatter_into_a_copy():
    # src written over an as_strided view of a copy of self (offsets, a transposed view, a
    # 0-d piece); self itself is unchanged.
    def f(x, s, t, z):
        a = torch.as_strided_scatter(x, s, (2, 3), (5, 1), 4)
        b = torch.as_strided_scatter(x * 2, t, (3, 2), (1, 5))
        c = torch.as_strided_scatter(x, z, (), (), 19)
        return a, b, c, x + 0
    return Fn(f), (torch.randn(4, 5), torch.randn(2, 3), torch.randn(3, 2), torch.tensor(7.0))


def supported_ops() -> set[str]:
    text = "".join(p.read_text() for p in SCHEMAS)
    return set(re.findall(r'\(\s*[\w:]+(?:\([\w:]+\))?,\s*"(\w+\.\w+)\(', text))


def graph_ops(py: pathlib.Path) -> set[str]:
    return set(re.findall(r"torch\.ops\.aten\.(\w+\.\w+)\(", py.read_text()))



def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", nargs="*", help="export only these cases (no folder cleanup)")
    p.add_argument("--list", action="store_true", help="list the case names and exit")
    a = p.parse_args()
    if a.list:
        print("\n".join(CASES))
        return 0
    unknown = set(KNOWN_BUGS) - set(CASES)
    if unknown:
        raise SystemExit(f"KNOWN_BUGS names no case: {sorted(unknown)}")
    names = a.only or list(CASES)
    for d in (OPS_DIR, BUGS_DIR):
        d.mkdir(parents=True, exist_ok=True)
        if not a.only:
            for f in [*d.glob("*.py"), *d.glob("*.safetensors")]:
                f.unlink()
    ok = supported_ops()
    bad = {}
    for name in names:
        factory, keep = CASES[name]
        torch.manual_seed(0)
        model, args = factory()
        out = (BUGS_DIR if name in KNOWN_BUGS else OPS_DIR) / name
        if a.only:
            for d in (OPS_DIR, BUGS_DIR):
                for suffix in (".py", ".safetensors"):
                    (d / name).with_suffix(suffix).unlink(missing_ok=True)
        log = io.StringIO()
        with contextlib.redirect_stdout(log), keeping(keep):
            export(model, tuple(args), out)
        py = out.with_suffix(".py")
        size = py.stat().st_size + out.with_suffix(".safetensors").stat().st_size
        missing = graph_ops(py) - ok
        if missing:
            bad[name] = sorted(missing)
        print(f"{name:48} {size / 1024:6.1f} KiB  {'KNOWN BUG  ' if name in KNOWN_BUGS else ''}"
              f"{'UNSUPPORTED ' + ','.join(sorted(missing)) if missing else ''}")
    if bad:
        raise SystemExit(f"cases using overloads coil does not register: {bad}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
