"""What Dynamo calls for a compiled graph: `_Runner` calls coil's model on torch tensors (inputs
read in place, outputs allocated through torch with eager's strides, CUDA work on torch's
current stream), and the wrappers that undo the Python rewrites of the graph around it
(number outputs, complex and unsigned values, 0-d host inputs beside device ones).
`_backend._runner` assembles them."""

import logging

import torch

from ._fx import TORCH_DTYPES, contiguous_strides, dense_order
from ._random import draw_seed
from ._unsigned import SIGNED

log = logging.getLogger("coil")


def _host_scalars_moved(runner, device, host_scalars, written=()):
    """`runner` called with the 0-d CPU inputs at `host_scalars` on `device`: copied there, or,
    when the number is the one the last call copied (a module's `eps` Dynamo passes as a
    tensor), that copy again, so a call costs a read of the number instead of a copy to the
    device. Inputs the graph writes (`written`) are copied at every call."""
    moved = set(host_scalars)
    kept = {}  # position: (the number's exact value, its dtype, the device copy)

    def on_device(i, a):
        if i in written:
            return a.to(device, non_blocking=True)
        v = a.item()
        key = (v.hex() if isinstance(v, float) else v, a.dtype)
        hit = kept.get(i)
        if hit is not None and hit[0] == key:
            return hit[1]
        t = a.to(device, non_blocking=True)
        kept[i] = (key, t)
        return t

    def call(*args):
        return runner(*[on_device(i, a) if i in moved else a for i, a in enumerate(args)])

    return call


def _with_numbers(runner, numbers):
    def call(*args):
        outs = list(runner(*args))
        for i, v in numbers:
            outs.insert(i, v)
        return outs

    return call


class _ComplexRunner:
    """A runner whose graph had complex values (`_complex.lower_complex`): complex inputs go
    in as their real views, complex outputs come back through `view_as_complex` (neither
    copies)."""

    def __init__(self, runner, complex_in, complex_out):
        self.runner = runner
        self.complex_in = frozenset(complex_in)
        self.complex_out = [i for i, _ in complex_out]

    def __call__(self, *args):
        args = [
            torch.view_as_real(a.resolve_conj()) if i in self.complex_in else a
            for i, a in enumerate(args)
        ]
        outs = list(self.runner(*args))
        for i in self.complex_out:
            o = outs[i]
            outs[i] = torch.view_as_complex(o if o.stride(-1) == 1 else o.contiguous())
        return outs


class _UnsignedRunner:
    """A runner whose graph had `uint16`/`uint32`/`uint64` values (`_unsigned`): they go in
    and come back as views of their signed bits (no copy)."""

    def __init__(self, runner, unsigned_in, unsigned_out):
        self.runner = runner
        self.unsigned_in = frozenset(unsigned_in)
        self.unsigned_out = unsigned_out

    def __call__(self, *args):
        args = [
            a.view(SIGNED[a.dtype]) if i in self.unsigned_in else a for i, a in enumerate(args)
        ]
        outs = list(self.runner(*args))
        for i, dtype in self.unsigned_out:
            outs[i] = outs[i].view(dtype)
        return outs


def _non_overlapping(sizes, strides):
    """Whether no two elements of the layout share a memory location."""
    span = 0
    for size, stride in sorted(
        ((s, st) for s, st in zip(sizes, strides) if s > 1), key=lambda p: p[1]
    ):
        if stride <= span:
            return False
        span += (size - 1) * stride
    return True


def _with_layout(buf, view):
    """A contiguous output buffer handed back with eager's layout: as it is, viewed (a dense
    layout: sizes and strides), or copied into a strided tensor (a layout with holes)."""
    if view is None:
        return buf
    if len(view) == 3:
        sizes, strides, _ = view
        out = torch.empty_strided(sizes, strides, dtype=buf.dtype, device=buf.device)
        return out.copy_(buf.view(sizes))
    return buf.as_strided(*view)


class _Runner:
    """Calls a compiled graph on torch tensors: inputs read in place (a non-contiguous one
    copied once per call, said in the log), outputs allocated through torch with eager's
    strides and written in place, CUDA work queued on torch's current stream."""

    def __init__(
        self, model, device, example_inputs, consts, layouts, trusted, seeded=False, alias=None,
        orders=None,
    ):
        self.model = model
        # Inputs coil reads as the permutation of their memory (`_fx.describe`'s dense
        # inputs): {input: dims outermost to innermost}. Passed uncopied when laid out so.
        self.orders = orders or {}
        # Outputs that are an input's memory: {output: input}.
        self.alias = alias or {}
        self.device = device
        self.cuda = device.type == "cuda"
        self.index = device.index if self.cuda else None
        # Constants stay alive (and contiguous) with the runner.
        from torch._subclasses.fake_tensor import unset_fake_temporarily

        with unset_fake_temporarily():  # AOTAutograd compiles under a fake mode
            self.consts = [c.detach().to(device).contiguous() for c in consts]
        self.const_ptrs = [c.data_ptr() for c in self.consts]
        # A graph with random ops takes a seed after its constants, drawn at every call.
        self.seeded = seeded
        n_args = len(example_inputs) - len(consts) - int(seeded)
        self.shapes = [torch.Size(t.shape) for t in example_inputs[:n_args]]
        self.dtypes = [t.dtype for t in example_inputs[:n_args]]
        strided = [
            i for i, t in enumerate(example_inputs[:n_args])
            if not t.is_contiguous() and i not in self.orders
        ]
        # Dynamo's guards hold every input to its example's layout: the pointers are all a
        # call needs.
        self.trusted = trusted is True and not strided
        # "shapes": AOTAutograd's calls, whose inputs Dynamo's guards and AOTAutograd's own
        # flattening hold to the examples' shapes and dtypes; their layouts are checked.
        self.shapes_trusted = trusted == "shapes"
        for i in strided:
            log.info(
                "coil: input %d has strides %s: copied to a contiguous tensor each call",
                i,
                tuple(example_inputs[i].stride()),
            )
        self.outs = []
        for i, ((dt, sizes), layout) in enumerate(zip(model.output_specs(), layouts)):
            view = None
            if layout is not None and (layout.permuted or dense_order(
                layout.sizes, layout.strides
            ) is not None):
                if layout.strides != tuple(contiguous_strides(layout.sizes)):
                    view = (layout.sizes, layout.strides)
            elif (
                layout is not None
                and layout.strides != tuple(contiguous_strides(layout.sizes))
                and _non_overlapping(layout.sizes, layout.strides)
            ):
                # Holes (a strided slice of a bigger buffer): written contiguously, then copied
                # into a tensor with eager's strides. (An overlapping layout, an expand, cannot
                # be written: it stays contiguous.)
                view = (layout.sizes, layout.strides, True)
                log.info(
                    "coil: output %d has eager's strides %s (not a dense layout): copied into "
                    "them each call",
                    i,
                    layout.strides,
                )
            self.outs.append((tuple(sizes), TORCH_DTYPES[dt], view))
        self.any_view = any(view is not None for _, _, view in self.outs)
        # Per output, the input it may be written into (`alias`), as `_guarded_call` reads it.
        self.alias_of = [
            i if i is not None and i < len(self.shapes) else None
            for i in (self.alias.get(k) for k in range(len(self.outs)))
        ]
        self.views_at = [(k, view) for k, (_, _, view) in enumerate(self.outs) if view is not None]
        # A fresh output: on the CPU through the allocator Inductor's wrappers call (a quarter
        # of `torch.empty`'s time; a training forward allocates dozens of outputs a call).
        fast = getattr(getattr(torch._C._dynamo, "guards", None), "_empty_strided_cpu", None)
        if fast is not None and not self.cuda:
            specs = [(s, tuple(contiguous_strides(s)), d) for s, d, _ in self.outs]
            self.new_output = lambda k: fast(*specs[k])
        else:
            self.new_output = lambda k: torch.empty(
                self.outs[k][0], dtype=self.outs[k][1], device=self.device
            )
        self.get_stream = None
        # Index checks left for `model.check_deferred` rather than read after each call (set
        # by `_graphs.Graphed`: a captured call must not wait).
        self.defer_checks = False
        if self.cuda:
            raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
            index = self.index
            self.get_stream = (
                (lambda: raw(index))
                if raw is not None
                else (lambda: torch.cuda.current_stream(index).cuda_stream)
            )

    def _pointers(self, args, on_cuda):
        """The inputs' data pointers (constants last), the copies that made non-contiguous
        inputs contiguous (kept alive for the call), and whether every input is where
        `on_cuda` says."""
        if len(args) != len(self.shapes):
            raise ValueError(f"coil: {len(args)} inputs given, the graph takes {len(self.shapes)}")
        if self.shapes_trusted:
            return self._pointers_of_guarded(args, on_cuda)
        ptrs, copies, placed = [], [], True
        for a, shape, dtype in zip(args, self.shapes, self.dtypes):
            if a.shape != shape or a.dtype != dtype:
                raise ValueError(
                    f"coil: input {len(ptrs)} is {a.dtype}{list(a.shape)}, the graph was "
                    f"compiled for {dtype}{list(shape)}"
                )
            order = self.orders.get(len(ptrs))
            if order is not None:
                a = a.permute(order)
            if not a.is_contiguous():
                a = a.contiguous()
                copies.append(a)
            elif on_cuda and a.is_cuda and a.data_ptr() % 16:
                # coil's GPU kernels access memory 16 bytes at a time: a view starting off
                # that alignment is copied to a fresh (aligned) tensor.
                a = a.clone()
                copies.append(a)
            placed = placed and a.is_cuda == on_cuda
            ptrs.append(a.data_ptr())
        return ptrs + self.const_ptrs, copies, placed

    def _pointers_of_guarded(self, args, on_cuda):
        """`_pointers` of inputs whose shapes, dtypes and device are held already: only their
        layouts are checked (a non-contiguous one copied, on the GPU one off 16-byte alignment
        too)."""
        ptrs, copies, _ = self._input_pointers(args, on_cuda)
        return ptrs + self.const_ptrs, copies, True

    def _input_pointers(self, args, on_cuda):
        """The inputs' own data pointers (no constants), the copies made of those that could
        not be read in place (kept alive for the call), and the positions of those inputs."""
        ptrs, copies, copied = [], [], ()
        orders = self.orders
        for i, a in enumerate(args):
            if orders and i in orders:
                a = a.permute(orders[i])
            if not a.is_contiguous():
                a = a.contiguous()
            elif on_cuda and a.data_ptr() % 16:
                a = a.clone()
            else:
                ptrs.append(a.data_ptr())
                continue
            copies.append(a)
            copied = (*copied, i)
            ptrs.append(a.data_ptr())
        return ptrs, copies, copied

    def _views(self, bufs):
        bufs = list(bufs)
        for k, view in self.views_at:
            bufs[k] = _with_layout(bufs[k], view)
        return bufs

    def __call__(self, *args):
        seed = draw_seed(self.device) if self.seeded else None
        extra = [seed.data_ptr()] if self.seeded else []
        if self.trusted:
            ptrs = [a.data_ptr() for a in args]
            ptrs += self.const_ptrs + extra
            if self.cuda:
                bufs = self._outputs(args)
                if self.model.run_device(
                    ptrs, [b.data_ptr() for b in bufs], self.get_stream(), self.defer_checks
                ):
                    return self._views(bufs) if self.any_view else bufs
                # Not borrowed (an input off 16-byte alignment): the checked path copies it.
            else:
                bufs = self._outputs(args)
                self.model.run(ptrs, [b.data_ptr() for b in bufs])
                return self._views(bufs) if self.any_view else bufs
        if self.cuda:
            ptrs, copies, placed = self._pointers(args, True)
            ptrs += extra
            if placed:
                bufs = self._outputs(args)
                if self.model.run_device(
                    ptrs, [b.data_ptr() for b in bufs], self.get_stream(), self.defer_checks
                ):
                    return self._views(bufs) if self.any_view else bufs
            return self._through_host(list(args), seed)
        if self.shapes_trusted:
            return self._guarded_call(args, extra)
        ptrs, copies, placed = self._pointers(args, False)
        ptrs += extra
        if not placed:
            return self._through_host(list(args), seed)
        bufs = self._outputs(args)
        self.model.run(ptrs, [b.data_ptr() for b in bufs])
        return self._views(bufs) if self.any_view else bufs

    def _guarded_call(self, args, extra):
        """A CPU call whose inputs' shapes and dtypes the guards hold (AOTAutograd's): each
        input's layout checked once, and an output that is a mutated input's new value
        (`self.alias`) written into that input where it was read in place, its pointer not
        asked for again (an optimizer step passes a hundred such)."""
        if len(args) != len(self.shapes):
            raise ValueError(f"coil: {len(args)} inputs given, the graph takes {len(self.shapes)}")
        ptrs, copies, copied = self._input_pointers(args, False)
        orders = self.orders
        bufs, out_ptrs = [], []
        new = self.new_output
        for k, i in enumerate(self.alias_of):
            if i is not None and i not in copied and not (orders and i in orders):
                bufs.append(args[i])
                out_ptrs.append(ptrs[i])
                continue
            if i is not None and orders and i in orders and args[i].is_contiguous():
                b = args[i]
            else:
                b = new(k)
            bufs.append(b)
            out_ptrs.append(b.data_ptr())
        self.model.run(ptrs + self.const_ptrs + extra, out_ptrs)
        return self._views(bufs) if self.any_view else bufs

    def _outputs(self, args):
        """Fresh tensors for the outputs, except that an output that can be its input's memory
        (`self.alias`) is that input itself where the call reads it in place (contiguous, not
        through a copy; on the GPU also 16-byte aligned, as the kernels' accesses are)."""
        new = self.new_output
        if not self.alias:
            return [new(k) for k in range(len(self.outs))]
        bufs = []
        for k in range(len(self.outs)):
            i = self.alias.get(k)
            a = args[i] if i is not None and i < len(args) else None
            if a is not None and a.is_contiguous() and (not self.cuda or a.data_ptr() % 16 == 0):
                bufs.append(a)
            else:
                bufs.append(new(k))
        return bufs

    def _through_host(self, inputs, seed=None):
        """A call through host memory (inputs on another device than compiled for, or a CUDA
        model that cannot use the tensors in place)."""
        extra = [seed] if seed is not None else []
        inputs = [t.permute(self.orders[i]) if i in self.orders else t
                  for i, t in enumerate(inputs)]
        host = [t.detach().cpu().contiguous() for t in inputs + self.consts + extra]
        bufs = [torch.empty(s, dtype=d) for s, d, _ in self.outs]
        in_place = self.model.run([t.data_ptr() for t in host], [b.data_ptr() for b in bufs])
        log.debug("coil: %d inputs and %d outputs used in place", *in_place)
        if self.device.type != "cpu":
            bufs = [b.to(self.device) for b in bufs]
        return self._views(bufs)

