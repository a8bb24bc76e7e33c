"""Exports the zoo's tiny models in bf16 and f16 (issue 19): each `python/tests/zoo_modules.py`
module at tiny size, cast to the dtype, through
`torch.export.export(model, args).run_decompositions()`, as the zoo's float32 files were made:

    python tools/export_zoo16.py

writes `crates/coil-models/models/tiny16/<name>_<bf16|f16>.py` (the readable graph, source
comments dropped) and `.safetensors` (`input.<placeholder>` and `output.<i>`: PyTorch eager's
results on the CPU, which round after every op).
"""

import os
import re
import sys

import torch
from safetensors.torch import save_file

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
import zoo_modules  # noqa: E402

OUT = os.path.join(ROOT, "crates", "coil-models", "models", "tiny16")


def export(name, module, args, dtype, short):
    ep = torch.export.export(module, tuple(args)).run_decompositions()
    text = ep.graph_module.print_readable(print_output=False)
    text = "\n".join(l for l in text.splitlines() if not l.strip().startswith("#")) + "\n"
    text = re.sub(r"\n\n+", "\n", text)
    tensors = {}
    user = iter(args)
    state = ep.state_dict
    consts = getattr(ep, "constants", {})
    for spec in ep.graph_signature.input_specs:
        ph = spec.arg.name
        if spec.kind == torch.export.graph_signature.InputKind.USER_INPUT:
            tensors[f"input.{ph}"] = next(user)
        elif spec.target in state:
            tensors[f"input.{ph}"] = state[spec.target]
        else:
            tensors[f"input.{ph}"] = consts[spec.target]
    with torch.no_grad():
        outs = module(*args)
    outs = outs if isinstance(outs, (tuple, list)) else (outs,)
    for i, o in enumerate(outs):
        tensors[f"output.{i}"] = o
    base = os.path.join(OUT, f"{name}_{short}")
    with open(base + ".py", "w") as f:
        f.write(text)
    save_file({k: v.detach().contiguous() for k, v in tensors.items()}, base + ".safetensors")


def main():
    os.makedirs(OUT, exist_ok=True)
    for dtype, short in ((torch.bfloat16, "bf16"), (torch.float16, "f16")):
        for name, make, inputs in zoo_modules.zoo("tiny"):
            torch.manual_seed(0)
            module = make().to(dtype).eval()
            args = [t.to(dtype) for t in inputs()]
            export(name, module, args, dtype, short)
            print(name, short, flush=True)


if __name__ == "__main__":
    main()
