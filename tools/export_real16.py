"""PyTorch's bf16 results for the zoo's real models (issue 19): each graph of
`crates/coil-models/models/real*/` run by PyTorch eager in bf16 (its f32 cast to bf16, as
coil's `Graph::cast_to` casts it) on its saved inputs cast to bf16:

    python tools/export_real16.py

writes `crates/coil-models/models/real16/<name>_bf16.safetensors` (`input.<placeholder>`, the
bf16 inputs, and `output.<i>`, PyTorch's bf16 outputs). The graph text stays the f32 file.
"""

import glob
import os

import torch
from safetensors.torch import load_file, save_file

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
MODELS = os.path.join(ROOT, "crates", "coil-models", "models")
OUT = os.path.join(MODELS, "real16")


def run_bf16(text, tensors):
    """Runs the readable graph (its f32 made bf16) on the saved inputs (floats cast)."""
    code = text.replace("torch.float32", "torch.bfloat16")
    scope = {"torch": torch, "device": torch.device, "inf": float("inf"), "nan": float("nan")}
    exec(code, scope)
    module = scope["GraphModule"]()
    import inspect

    names = list(inspect.signature(module.forward).parameters)
    inputs = {}
    for n in names:
        t = tensors[f"input.{n}"]
        inputs[n] = t.to(torch.bfloat16) if t.dtype == torch.float32 else t
    with torch.no_grad():
        outs = module.forward(**inputs)
    outs = outs if isinstance(outs, (tuple, list)) else (outs,)
    return inputs, outs


def main():
    os.makedirs(OUT, exist_ok=True)
    for path in sorted(glob.glob(os.path.join(MODELS, "real*", "*.py"))):
        if os.path.dirname(path) == OUT:
            continue
        name = os.path.splitext(os.path.basename(path))[0]
        tensors = load_file(os.path.splitext(path)[0] + ".safetensors")
        inputs, outs = run_bf16(open(path).read(), tensors)
        saved = {f"input.{k}": v.contiguous() for k, v in inputs.items()}
        for i, o in enumerate(outs):
            saved[f"output.{i}"] = o.contiguous()
        save_file(saved, os.path.join(OUT, f"{name}_bf16.safetensors"))
        print(name, [tuple(o.shape) for o in outs], [o.dtype for o in outs], flush=True)


if __name__ == "__main__":
    main()
