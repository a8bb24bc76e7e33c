#!/usr/bin/env python3
"""Random inputs for a readable-FX graph file and eager PyTorch's outputs on them, as a
safetensors file (`input.<arg>`, `output.<i>`) that `coil run-model --inputs` and
`tools/torch_graph_bench.py` both read:

    python tools/random_inputs.py graph.py out.safetensors

Inputs are standard normal (seed 0) in the dtype each argument is annotated with (f32, bf16).
"""

import os
import re
import sys

import torch
from safetensors.torch import save_file

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_graph_bench import load_module  # noqa: E402


def main():
    src, dst = sys.argv[1], sys.argv[2]
    text = open(src).read()
    sig = re.search(r"def forward\(self, (.*)\):", text).group(1)
    dtypes = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}
    torch.manual_seed(0)
    ins = {
        name: torch.randn(*[int(x) for x in sizes.split(",") if x.strip()], dtype=dtypes[dt])
        for name, dt, sizes in re.findall(r'(\w+): "(\w+)\[([\d, ]*)\]"', sig)
    }
    with torch.no_grad():
        out = load_module(src, "cpu")(*ins.values())
    out = out if isinstance(out, (tuple, list)) else (out,)
    tensors = {f"input.{k}": v.contiguous() for k, v in ins.items()}
    tensors.update({f"output.{i}": o.contiguous() for i, o in enumerate(out)})
    save_file(tensors, dst)


if __name__ == "__main__":
    main()
