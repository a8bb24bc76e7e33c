"""coil as a PyTorch compiler backend.

``torch.compile(model, backend="coil")`` (registered through the ``torch_dynamo_backends``
entry point, no import needed) sends each graph Dynamo captures through AOTAutograd with
PyTorch's core-ATen decompositions, compiles the ATen graph with coil for the device its example
inputs are on, and returns a callable. A graph coil cannot compile runs eagerly, with one
warning saying why (``options={"strict": True}`` raises instead).

``coil.backend`` is the backend, ``coil.compile_fx(gm, example_inputs, **options)`` compiles an
ATen ``GraphModule`` directly, ``coil.torch_stats()`` / ``coil.reset_stats()`` report what
happened; ``coil.judge(got, eager, exact)`` is the accuracy rule every check of coil shares. ``COIL_LOGS=passes,fusion`` (or the ``logs`` option) logs coil's stages to stderr.
"""

import os as _os
import warnings as _warnings

from . import _native
from ._backend import backend, compile_fx, reset_stats, torch_stats
from ._oracle import judge

if _os.environ.get("COIL_LOGS"):
    try:
        _native.set_logs(_os.environ["COIL_LOGS"])
    except ValueError as _e:
        _warnings.warn(f"coil: ignoring COIL_LOGS: {_e}", stacklevel=2)

__all__ = ["backend", "compile_fx", "torch_stats", "reset_stats", "judge"]
