#!/usr/bin/env python3
"""PyTorch reference inputs and outputs for zoo graphs, as safetensors `coil run-model --inputs` reads.

    python tools/torch_reference.py MODELS_DIR OUT_DIR [--device cuda] [--seed 0]

For every `MODELS_DIR/<name>.py` (the zoo's readable FX graphs at the articles' sizes) it runs
the graph's `forward` with PyTorch on random inputs (floats from randn, seeded) and writes
`OUT_DIR/<name>.safetensors` holding `input.<arg>` and `output.<i>`, so that
`coil run-model <name> --inputs OUT_DIR/<name>.safetensors` checks coil against PyTorch at the
articles' sizes. TF32 is off (matmuls in full float32, as coil's cuBLAS calls run them).

Float32 results of long sums and matmuls differ from one summation order to another, so the
same graph is also run in float64 on the CPU (inputs widened): `<name>.f64.safetensors` holds
that result rounded to float32 as its outputs, and `refs.json` records how far PyTorch's own
float32 result is from it (`torch_vs_f64`, max abs) next to the output's scale. A compiled
result that misses PyTorch's float32 outputs but is no further from the float64 result than
PyTorch itself is as right as PyTorch is.
Needs only torch (the safetensors file is written by hand: an 8-byte header length, a JSON
header, the raw little-endian bytes).
"""

import argparse
import json
import math
import pathlib
import struct
import sys

import torch

DTYPES = {torch.float32: "F32", torch.float64: "F64", torch.int64: "I64", torch.int32: "I32",
          torch.bool: "BOOL", torch.float16: "F16", torch.bfloat16: "BF16", torch.uint8: "U8",
          torch.int8: "I8", torch.int16: "I16"}
SHORT = {"f32": torch.float32, "f64": torch.float64, "i64": torch.int64, "i32": torch.int32,
         "b8": torch.bool, "f16": torch.float16, "bf16": torch.bfloat16}


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = t.detach().contiguous().cpu()
        raw = data.view(torch.uint8).numpy().tobytes() if data.numel() else b""
        header[name] = {"dtype": DTYPES[data.dtype], "shape": list(data.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def load_module(path, device):
    """The zoo file's GraphModule, with constants placed on `device`."""
    text = path.read_text().replace("device(type='cpu')", f"device(type='{device}')")
    scope = {"torch": torch, "device": torch.device, "inf": math.inf, "nan": math.nan}
    exec(compile("import torch\n" + text, str(path), "exec"), scope)
    return scope["GraphModule"]()


def random_inputs(module, gen, device):
    import inspect
    inputs = {}
    for name, p in inspect.signature(module.forward).parameters.items():
        dtype_name, _, dims = p.annotation.partition("[")
        dims = [int(d) for d in dims.rstrip("]").split(",") if d.strip()]
        dtype = SHORT[dtype_name]
        if dtype.is_floating_point:
            t = torch.randn(dims, generator=gen, dtype=torch.float32).to(dtype)
        elif dtype == torch.bool:
            t = torch.rand(dims, generator=gen) < 0.5
        else:
            t = torch.randint(0, 10, dims, generator=gen, dtype=dtype)
        inputs[name] = t.to(device)
    return inputs


def main():
    p = argparse.ArgumentParser()
    p.add_argument("models")
    p.add_argument("out")
    p.add_argument("--device", default="cuda")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    failed = 0
    report = {}
    for path in sorted(pathlib.Path(a.models).glob("*.py")):
        try:
            module = load_module(path, a.device)
            gen = torch.Generator().manual_seed(a.seed)
            inputs = random_inputs(module, gen, a.device)
            with torch.no_grad():
                outs = module(**inputs)
            outs = outs if isinstance(outs, (tuple, list)) else (outs,)
            tensors = {f"input.{k}": v for k, v in inputs.items()}
            tensors.update({f"output.{i}": o for i, o in enumerate(outs)})
            write_safetensors(out / f"{path.stem}.safetensors", tensors)
            wide = {k: (v.double() if v.is_floating_point() else v).cpu() for k, v in inputs.items()}
            with torch.no_grad():
                exact = load_module(path, "cpu")(**wide)
            exact = exact if isinstance(exact, (tuple, list)) else (exact,)
            tensors.update({f"output.{i}": (e.to(o.dtype) if e.is_floating_point() else e)
                            for i, (e, o) in enumerate(zip(exact, outs))})
            write_safetensors(out / f"{path.stem}.f64.safetensors", tensors)
            torch_err = max((float((o.cpu().double() - e).abs().max()) if o.numel() else 0.0)
                            for o, e in zip(outs, exact))
            scale = max((float(e.abs().max()) if e.numel() else 0.0) for e in exact)
            report[path.stem] = {"torch_vs_f64": torch_err, "scale": scale}
            print(f"{path.stem}: {len(inputs)} inputs, {len(outs)} outputs; PyTorch float32 vs "
                  f"float64: max abs {torch_err:.3e} (outputs up to {scale:.3e})")
        except Exception as e:  # one model's failure must not hide the others
            failed += 1
            print(f"{path.stem}: FAILED {type(e).__name__}: {e}", file=sys.stderr)
    (out / "refs.json").write_text(json.dumps(report, indent=1))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
