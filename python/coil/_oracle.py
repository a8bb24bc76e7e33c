"""The oracle, shared with coil's CLI, its conformance suite and its tools: whether a result is
as accurate as eager's, judged against float64 (``coil_eager::oracle::judge`` in Rust).

f32 and f64 outputs, element by element: within ``1e-6 + 8 x`` eager's own largest error
against float64, plus ``1e-4`` relative. bf16 and f16 outputs (Inductor's 16-bit rule): the RMS
error against float64 at most twice eager's, plus a tenth of PyTorch's relative tolerance for
the dtype times the output's largest magnitude.
"""

from . import _native

_SHORT = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16",
          "int64": "i64", "int32": "i32",
          "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "b8"}


def judge(got, eager, exact, floor=0.0):
    """``(ok, detail)`` for one output: ``got`` and ``eager`` of the same dtype, ``exact`` the
    same computation in float64 (any tensors of one shape; they are read on the host)."""
    if got.shape != eager.shape or got.shape != exact.shape:
        return False, f"shapes {tuple(got.shape)}, eager {tuple(eager.shape)}, float64 {tuple(exact.shape)}"
    dtype = _SHORT.get(str(got.dtype).removeprefix("torch."))
    if dtype is None:
        return False, f"no rule for {got.dtype}"
    flat = lambda t: t.detach().double().cpu().flatten().tolist()  # noqa: E731
    ok, _rule, detail = _native.judge(flat(got), flat(eager), flat(exact), dtype, floor)
    return ok, detail
