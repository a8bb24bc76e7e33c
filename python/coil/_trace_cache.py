"""What tracing Dynamo's graph to ATen and coil's Python rewrites of it give (`Prepared`: the
graph description coil compiles, the output layouts, the lifted constants, how the runner
converts inputs and outputs), kept on disk and keyed on Dynamo's graph, so that a new process
compiling the same inference graph skips the trace (`make_fx` with the decompositions: 0.2-0.5
s of a real model's first call) and the rewrites. coil's own compile behind it is cached by the
native compile cache. Inductor's AOTAutograd cache plays this part for Inductor.

The key is everything the entry depends on: the graph's code and the values of its tensor
attributes, each input's type, shape, strides, dtype, device and `requires_grad`, the backend
options and the modes a trace reads (grad, deterministic algorithms), the versions of torch
and of coil (its Python files and native module), and the device's compute capability. A
graph calling anything outside torch and Python's operators (a user function whose code the
key cannot see) is not cached.

It lives in `COIL_CACHE_DIR/traced` (else `$XDG_CACHE_HOME/coil/traced`, else
`~/.cache/coil/traced`), is off with `COIL_CACHE=0`, and keeps its `MAX_ENTRIES` most recently
used entries; its files are `.bin` as the native cache's, so `coil cache stats|clear` and the
native cache's size cap (`COIL_CACHE_MAX_MB`) count them too. An entry is written aside and renamed into place (two processes may write the
same one); one that cannot be read (truncated, corrupted, from another format) is warned about
once and traced again; a directory that cannot be written is a warning, not an error. Entries
are plain data (tensors as their bytes) read with `torch.load(weights_only=True)`.
"""

import hashlib
import logging
import os
import pathlib
import tempfile
import warnings

import torch

from ._fx import dtype_named

log = logging.getLogger("coil")

FORMAT = 1
MAX_ENTRIES = int(os.environ.get("COIL_TRACE_CACHE_ENTRIES", "512"))

# Modules whose functions a cached graph may call (their behaviour is torch's version's).
_KNOWN_MODULES = ("torch", "_operator", "operator", "math", "builtins", "_abc")

_WARNED = set()


def directory():
    """The cache's directory, or `None` when the cache is off."""
    if os.environ.get("COIL_CACHE", "").lower() in ("0", "off"):
        return None
    root = os.environ.get("COIL_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "coil",
    )
    return pathlib.Path(root) / "traced"


def _code_version():
    """coil's own: a hash of its Python files and its native module's size and time."""
    global _VERSION
    if _VERSION is None:
        h = hashlib.sha256()
        here = pathlib.Path(__file__).parent
        for p in sorted(here.iterdir()):
            if p.suffix == ".py":
                h.update(p.name.encode() + p.read_bytes())
            elif p.suffix in (".so", ".pyd"):
                st = p.stat()
                h.update(f"{p.name} {st.st_size} {st.st_mtime_ns}".encode())
        _VERSION = h.hexdigest()
    return _VERSION


_VERSION = None


def _callable_known(target):
    module = getattr(target, "__module__", None) or ""
    if isinstance(target, torch._ops.OpOverload | torch._ops.OpOverloadPacket):
        return True
    return module.split(".")[0] in _KNOWN_MODULES


def key(gm, example_inputs, options):
    """The cache key of Dynamo's graph `gm` on `example_inputs`, or `None` when it cannot be
    cached (the cache off, a module or function call the key cannot see into, an input that
    is not a tensor)."""
    if directory() is None:
        return None
    h = hashlib.sha256()

    def put(*parts):
        h.update(repr(parts).encode())

    put("format", FORMAT, torch.__version__, _code_version())
    put("code", gm.code)
    for node in gm.graph.nodes:
        if node.op == "call_module":
            return None
        if node.op == "call_function" and not _callable_known(node.target):
            return None
        if node.op == "get_attr":
            value = gm
            for part in str(node.target).split("."):
                value = getattr(value, part, None)
            if isinstance(value, torch.Tensor):
                t = value.detach()
                put("attr", node.target, t.dtype, tuple(t.shape), tuple(t.stride()), str(t.device))
                h.update(t.cpu().contiguous().view(-1).view(torch.uint8).numpy().tobytes())
            elif value is None or isinstance(value, torch.nn.Module):
                return None
            else:
                put("attr", node.target, repr(value))
    for t in example_inputs:
        if not isinstance(t, torch.Tensor):
            return None
        put("input", t.dtype, tuple(t.shape), tuple(t.stride()), t.storage_offset(),
            str(t.device), t.requires_grad)
        if t.is_cuda:
            put("capability", torch.cuda.get_device_capability(t.device))
    put("options", sorted((k, repr(v)) for k, v in options.items()))
    put("modes", torch.is_grad_enabled(), torch.are_deterministic_algorithms_enabled(),
        os.environ.get("COIL_ATEN_EXTERNS", ""))
    return h.hexdigest()


def _warn_once(what, e):
    if what not in _WARNED:
        _WARNED.add(what)
        warnings.warn(f"coil: trace cache: {what} ({type(e).__name__}: {e})", stacklevel=3)


def _pack(t):
    """A tensor as plain data (loading tensors back inside a backend, under Dynamo's modes,
    can give meta tensors)."""
    t = t.detach().cpu().contiguous()
    raw = t.view(-1).view(torch.uint8).numpy().tobytes()
    # (A `str`: `weights_only` loading takes no `bytes`.)
    return (str(t.dtype), tuple(t.shape), raw.decode("latin-1"))


def _unpack(data):
    name, shape, text = data
    dtype = dtype_named(name)
    raw = text.encode("latin-1")
    if not raw:
        return torch.empty(shape, dtype=dtype)
    return torch.frombuffer(bytearray(raw), dtype=torch.uint8).view(dtype).reshape(shape)


def load(k):
    """The entry stored under `k` (a dict), or `None`."""
    if k is None:
        return None
    path = directory() / f"{k}.bin"
    if not path.exists():
        return None
    from torch._subclasses.fake_tensor import unset_fake_temporarily

    try:
        with unset_fake_temporarily():  # a backend runs under Dynamo's fake mode
            entry = torch.load(path, weights_only=True, map_location="cpu")
        if not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("key") != k:
            raise ValueError("not an entry of this format")
        entry["consts"] = [_unpack(c) for c in entry["consts"]]
        os.utime(path)  # most recently used
        return entry
    except Exception as e:  # a torn or foreign file: traced again, and overwritten
        _warn_once(f"entry {path.name} unreadable, traced again", e)
        return None


def store(k, entry):
    """Writes `entry` (plain data and tensors) under `k`; evicts past `MAX_ENTRIES`."""
    if k is None:
        return
    d = directory()
    try:
        d.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=".bin")
        with os.fdopen(fd, "wb") as f:
            consts = [_pack(c) for c in entry["consts"]]
            torch.save({**entry, "consts": consts, "format": FORMAT, "key": k}, f)
        os.replace(tmp, d / f"{k}.bin")
        entries = sorted((p for p in d.glob("*.bin") if not p.name.startswith(".")),
                         key=lambda p: p.stat().st_mtime_ns)
        for old in entries[: max(0, len(entries) - MAX_ENTRIES)]:
            old.unlink(missing_ok=True)
    except OSError as e:  # a read-only or full disk: compiled, not cached
        _warn_once(f"cannot write to {d}", e)
