#!/usr/bin/env python3
"""Export a PyTorch model to coil's input: a readable-FX graph plus its inputs and outputs.

    python tools/export_graph.py SOURCE OUT_DIR/name [inputs] [--kwargs JSON] [--config JSON] [--seed 0]

SOURCE is one of
    my_module:make_model         a function returning `(model, example_args)` (a tuple of tensors)
    torchvision:NAME             torchvision.models.get_model(NAME, weights=None, **kwargs)
    timm:NAME                    timm.create_model(NAME, pretrained=False, **kwargs)
    transformers:CLASS           CLASS(CLASS.config_class(**config)), wrapped so that
                                 forward(input_ids) returns `logits` (or `last_hidden_state`)
Library models take their inputs from the command line, in order (repeatable):
    --input 2,3,64,64            float32 randn of that shape
    --input-ids 1,32             int64 ids in [0, vocab); vocab is the config's `vocab_size`
                                 (transformers) or --vocab
Symbolic sizes (issue "Dynamic shapes"):
    --dynamic 0:1                user input 0's dim 1 is one size symbol (repeatable: every dim
                                 named is the same symbol), exported as torch.export prints a
                                 dynamic graph (`"f32[1, s27, 64]"`, `sym_size` calls)
    --sizes 5,17,33              also writes `name.<n>.safetensors` for each size n of the
                                 symbol: new user inputs of that size, the same weights, eager's
                                 outputs (for `run-model name.py --inputs a,b,c`)
Weights are random (torch.manual_seed(seed), then build, then draw the inputs; never pretrained);
the model runs in eval mode.

Writes `name.py` (what `torch.export.export(model, args).run_decompositions()
.graph_module.print_readable()` prints, source-location comments dropped) and
`name.safetensors` with `input.<placeholder>` for every graph input (lifted parameters and
buffers first, then user inputs) and `output.<i>` (PyTorch eager's results, in the graph's
return order). Re-runs the exported program on the same inputs and prints its max difference
from eager. Then: `cargo xtask run-model OUT_DIR/name.py --inputs OUT_DIR/name.safetensors`.

Examples:
    python tools/export_graph.py torchvision:resnet18 out/resnet18 --input 2,3,64,64 \\
        --kwargs '{"num_classes": 10}'
    python tools/export_graph.py transformers:GPT2LMHeadModel out/gpt2 --input-ids 1,32 \\
        --config '{"n_layer": 2, "n_embd": 64, "n_head": 2, "vocab_size": 1000}'
"""

import argparse
import collections
import importlib
import json
import pathlib
import sys

import torch
from safetensors.torch import save_file
from torch.export.graph_signature import InputKind


class HFWrapper(torch.nn.Module):
    """forward(input_ids) -> one tensor: the model's `logits`, else its `last_hidden_state`."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids):
        out = self.m(input_ids=input_ids)
        return out.logits if "logits" in out else out.last_hidden_state


def build(lib: str, name: str, kwargs: dict, config: dict) -> torch.nn.Module:
    if lib == "torchvision":
        import torchvision
        return torchvision.models.get_model(name, weights=None, **kwargs)
    if lib == "timm":
        import timm
        return timm.create_model(name, pretrained=False, **kwargs)
    if lib == "transformers":
        import transformers
        cls = getattr(transformers, name)
        # No KV cache: a plain forward pass, without cache-update ops in the graph.
        return HFWrapper(cls(cls.config_class(**{"use_cache": False, **config})))
    raise SystemExit(f"unknown library {lib!r}")


class InputAction(argparse.Action):
    """Collects --input/--input-ids, in command-line order, as (kind, shape)."""

    def __call__(self, parser, ns, value, option):
        shape = [int(d) for d in value.split(",")]
        ns.inputs = (ns.inputs or []) + [(self.dest, shape)]


def decomposition_table():
    """torch.export's default table (core ATen) plus coil's extra decompositions (group norm,
    `repeat`, `max.dim`, ...: `python/coil/_decomp.py`) where the coil package is installed, less
    the overloads coil compiles itself (its op table's decision, `native_op_names()`)."""
    table = torch.export.default_decompositions()
    try:
        from coil._decomp import extra_decompositions, native_op_names
    except ImportError:
        return table
    for op, fn in extra_decompositions().items():
        table[op] = fn
    native = native_op_names()
    for op in [op for op in table if str(op) in native]:
        del table[op]
    return table


def export(model, args, out: pathlib.Path, dynamic=(), sizes=(), draw=None) -> None:
    model.eval()
    shapes = None
    if dynamic:
        sym = torch.export.Dim("s", min=2, max=1 << 16)
        specs = [dict() for _ in args]
        for i, d in dynamic:
            specs[i][d] = sym
        shapes = tuple(specs)
    ep = torch.export.export(model, args, dynamic_shapes=shapes).run_decompositions(
        decomposition_table())
    text = ep.graph_module.print_readable(print_output=False)
    lines = [l for l in text.splitlines() if not l.strip().startswith("#") and l.strip()]
    out.with_suffix(".py").write_text("\n".join(lines) + "\n")

    # Map every placeholder to its tensor: lifted parameters/buffers/constants, then user inputs.
    state = {**ep.state_dict, **ep.constants}
    user_args = iter(args)
    tensors = {}
    for spec in ep.graph_signature.input_specs:
        t = next(user_args) if spec.kind == InputKind.USER_INPUT else state[spec.target]
        tensors[f"input.{spec.arg.name}"] = t.detach().clone().contiguous()  # unshare tied weights

    with torch.no_grad():
        result = model(*args)
        replay = ep.module()(*args)
    result = (result,) if isinstance(result, torch.Tensor) else tuple(result)
    replay = (replay,) if isinstance(replay, torch.Tensor) else tuple(replay)
    for i, t in enumerate(result):
        tensors[f"output.{i}"] = t.detach().contiguous()
    save_file(tensors, str(out.with_suffix(".safetensors")))

    diff = max((a.double() - b.double()).abs().max().item() for a, b in zip(result, replay))
    ops = collections.Counter(
        str(n.target) for n in ep.graph.nodes if n.op == "call_function" and "aten" in str(n.target))
    params = sum(p.numel() for p in model.parameters())
    print(f"wrote {out.with_suffix('.py')} and {out.with_suffix('.safetensors')}")
    print(f"params {params:,}; aten ops {len(ops)} ({sum(ops.values())} calls); "
          f"exported-vs-eager max diff {diff:.3g}")
    if diff > 1e-5:
        raise SystemExit("exported program does not reproduce eager outputs (allclose 1e-5)")
    for n in sizes:
        sized = draw(n)
        with torch.no_grad():
            result = model(*sized)
        result = (result,) if isinstance(result, torch.Tensor) else tuple(result)
        user_args = iter(sized)
        more = {}
        for spec in ep.graph_signature.input_specs:
            t = next(user_args) if spec.kind == InputKind.USER_INPUT else state[spec.target]
            more[f"input.{spec.arg.name}"] = t.detach().clone().contiguous()
        for i, t in enumerate(result):
            more[f"output.{i}"] = t.detach().contiguous()
        path = out.with_suffix(f".{n}.safetensors")
        save_file(more, str(path))
        print(f"wrote {path}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("source", help="module:function, torchvision:NAME, timm:NAME or transformers:CLASS")
    p.add_argument("out", help="output path without suffix, e.g. out/my_model")
    p.add_argument("--input", action=InputAction, metavar="SHAPE", help="float32 randn input, e.g. 2,3,64,64")
    p.add_argument("--input-ids", action=InputAction, metavar="SHAPE", help="int64 ids input, e.g. 1,32")
    p.add_argument("--vocab", type=int, help="id range for --input-ids (default: config vocab_size)")
    p.add_argument("--kwargs", type=json.loads, default={}, help="JSON constructor kwargs (torchvision, timm)")
    p.add_argument("--config", type=json.loads, default={}, help="JSON config kwargs (transformers)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--dynamic", action="append", default=[], metavar="ARG:DIM",
                   help="a user input's dim that is the size symbol (repeatable)")
    p.add_argument("--sizes", default="", help="sizes of the symbol to write inputs for, e.g. 5,17")
    p.set_defaults(inputs=[])
    a = p.parse_args()
    torch.manual_seed(a.seed)
    lib, name = a.source.split(":")
    if lib in ("torchvision", "timm", "transformers"):
        if not a.inputs:
            p.error("library models need --input and/or --input-ids")
        model = build(lib, name, a.kwargs, a.config)
        config = getattr(getattr(model, "m", None), "config", None)
        vocab = a.vocab or getattr(config, "vocab_size", None)
        if any(kind == "input_ids" for kind, _ in a.inputs) and not vocab:
            p.error("--input-ids needs --vocab")
        dynamic = [tuple(int(x) for x in d.split(":")) for d in a.dynamic]

        def draw(n=None):
            out = []
            for i, (kind, shape) in enumerate(a.inputs):
                shape = [n if n is not None and (i, d) in dynamic else s
                         for d, s in enumerate(shape)]
                out.append(torch.randint(0, vocab, shape) if kind == "input_ids"
                           else torch.randn(shape))
            return out

        args = draw()
    else:
        if a.inputs or a.kwargs or a.config:
            p.error("module:function builds its own model and inputs")
        sys.path.insert(0, ".")
        model, args = getattr(importlib.import_module(lib), name)()
    out = pathlib.Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if lib in ("torchvision", "timm", "transformers"):
        sizes = [int(n) for n in a.sizes.split(",") if n]
        export(model, tuple(args), out, dynamic, sizes, lambda n: tuple(draw(n)))
    else:
        export(model, tuple(args), out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
