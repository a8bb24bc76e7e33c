#!/usr/bin/env python3
"""Export a PyTorch model to coil's input: a readable-FX graph plus its inputs and outputs.

    python tools/export_graph.py my_module:make_model OUT_DIR/name [--seed 0]

`make_model` is a function returning `(model, example_args)`, where `example_args` is a tuple of
tensors. Writes `name.py` (what `torch.export.export(model, args).run_decompositions()
.graph_module.print_readable()` prints, source-location comments dropped) and
`name.safetensors` with `input.<placeholder>` for every graph input (lifted parameters and
buffers included) and `output.<i>` (PyTorch eager's results, in the graph's return order).
Then: `cargo xtask run-model OUT_DIR/name.py --inputs OUT_DIR/name.safetensors`.
"""

import argparse
import importlib
import pathlib
import sys

import torch
from safetensors.torch import save_file


def export(model, args, out: pathlib.Path) -> None:
    model.eval()
    ep = torch.export.export(model, args).run_decompositions()
    text = ep.graph_module.print_readable(print_output=False)
    lines = [l for l in text.splitlines() if not l.strip().startswith("#") and l.strip()]
    out.with_suffix(".py").write_text("\n".join(lines) + "\n")

    # Map every placeholder to its tensor: lifted parameters/buffers/constants, then user inputs.
    state = dict(model.named_parameters())
    state.update(dict(model.named_buffers()))
    state.update(getattr(ep, "constants", {}) or {})
    user_args = iter(args)
    tensors = {}
    for spec in ep.graph_signature.input_specs:
        name = spec.arg.name
        if spec.target is not None and spec.target in state:
            tensors[f"input.{name}"] = state[spec.target].detach().contiguous()
        else:
            tensors[f"input.{name}"] = next(user_args).detach().contiguous()

    with torch.no_grad():
        result = model(*args)
    if isinstance(result, torch.Tensor):
        result = (result,)
    for i, t in enumerate(result):
        tensors[f"output.{i}"] = t.detach().contiguous()
    save_file(tensors, str(out.with_suffix(".safetensors")))
    print(f"wrote {out.with_suffix('.py')} and {out.with_suffix('.safetensors')}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("factory", help="module:function returning (model, example_args)")
    p.add_argument("out", help="output path without suffix, e.g. out/my_model")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    torch.manual_seed(a.seed)
    mod_name, fn_name = a.factory.split(":")
    sys.path.insert(0, ".")
    model, args = getattr(importlib.import_module(mod_name), fn_name)()
    out = pathlib.Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    export(model, tuple(args), out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
