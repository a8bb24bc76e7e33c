//! A compiled model: its kernels, its plan with memory allocated once and reused across runs,
//! and `run`.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, OnceLock};

use coil_codegen::{
    Backend, BufferHandle, BufferRole, CompiledKernels, DeviceClock, ExternCall, Plan, Step,
    StridedOperand,
};
use coil_graph::{Dims, Graph, Tensor, TensorMeta};
use coil_lower::{BufRef, FixedLayout, IndexCheck, OutputRef};

use crate::compile::{Artifacts, CompileReport, Options};
use crate::error::CoilError;

/// A model compiled for a backend. `run` may be called many times; memory is allocated once.
pub struct CompiledModel {
    backend: Arc<dyn Backend>,
    kernels: Box<dyn CompiledKernels>,
    /// The kernels and the plan that run.
    program: coil_codegen::Program,
    /// The index checks' meanings, for the error of one that fails.
    index_checks: Vec<IndexCheck>,
    /// Every stage's output: made by the compile, or (after a program loaded from the compile
    /// cache) by preparing `source` again when first asked for.
    artifacts: OnceLock<Artifacts>,
    source: Option<Box<(Graph, Options)>>,
    inputs: Vec<(String, TensorMeta)>,
    /// For each output, the input it is whole ([`CompiledModel::output_input`]), found once.
    output_inputs: Vec<Option<usize>>,
    /// For each output, the identity copy a run leaves out when the output is given that
    /// input's memory ([`crate::inplace::skippable_copies`]): `(input, step)`.
    skippable: Vec<Option<(usize, usize)>>,
    /// One allocation per plan slot; the lock serializes runs that share them.
    memory: Mutex<Vec<BufferHandle>>,
    /// What compiling learned.
    pub report: CompileReport,
}

/// What the compile made for [`CompiledModel::new`].
pub(crate) struct Made {
    pub(crate) program: coil_codegen::Program,
    pub(crate) index_checks: Vec<IndexCheck>,
    /// Every stage's output, where the stages ran (not on a program cache hit).
    pub(crate) artifacts: Option<Artifacts>,
    pub(crate) options: Options,
}

impl CompiledModel {
    pub(crate) fn new(
        backend: Arc<dyn Backend>,
        kernels: Box<dyn CompiledKernels>,
        graph: &Graph,
        made: Made,
        report: CompileReport,
    ) -> Result<CompiledModel, CoilError> {
        let inputs: Vec<(String, TensorMeta)> = graph
            .inputs()
            .iter()
            .map(|&i| (graph.node(i).name.clone(), graph.node(i).meta().clone()))
            .collect();
        let program = made.program;
        let output_inputs = whole_inputs(&program.plan, &inputs);
        let identity_copies = crate::inplace::identity_copies(&program.plan, &program.kernels);
        let skippable = crate::inplace::skippable_copies(&program.plan, &identity_copies);
        let source = match made.artifacts {
            Some(_) => None,
            None => Some(Box::new((graph.clone(), made.options))),
        };
        Ok(CompiledModel {
            backend,
            kernels,
            program,
            index_checks: made.index_checks,
            artifacts: made.artifacts.map(OnceLock::from).unwrap_or_default(),
            source,
            inputs,
            output_inputs,
            skippable,
            memory: Mutex::new(Vec::new()),
            report,
        })
    }

    /// Every stage's output: the transformed graph, the lowered graph, the schedule, the
    /// kernels and the plan. A model whose program came from the compile cache runs the stages
    /// again the first time they are asked for (a `prepare`, without the backend's compile);
    /// their program is the one that runs.
    pub fn artifacts(&self) -> Result<&Artifacts, CoilError> {
        if let Some(a) = self.artifacts.get() {
            return Ok(a);
        }
        let Some(source) = &self.source else {
            return Err(CoilError::Plan("the model keeps no stage outputs".into()));
        };
        let prepared = crate::compile::prepare(&source.0, self.backend.as_ref(), &source.1)?;
        Ok(self.artifacts.get_or_init(|| prepared.artifacts))
    }

    /// The kernels and the plan that run.
    pub fn program(&self) -> &coil_codegen::Program {
        &self.program
    }

    fn plan(&self) -> &Plan {
        &self.program.plan
    }

    /// The generated code (optimized LLVM IR, PTX).
    pub fn source(&self) -> String {
        self.kernels.source()
    }

    /// The graph inputs the model expects: names and metas.
    pub fn inputs(&self) -> &[(String, TensorMeta)] {
        &self.inputs
    }

    /// Each output's dtype and sizes, in order (what [`CompiledModel::run`] returns).
    pub fn outputs(&self) -> Vec<(coil_graph::DType, Vec<usize>)> {
        self.plan()
            .outputs
            .iter()
            .map(|o| (o.layout.dtype, o.layout.sizes.clone()))
            .collect()
    }

    /// The model's memory, allocated on the first run (so that compiling needs no device
    /// memory: `--compile-only` works with no GPU).
    fn memory(&self) -> Result<std::sync::MutexGuard<'_, Vec<BufferHandle>>, CoilError> {
        let mut memory = self
            .memory
            .lock()
            .map_err(|_| CoilError::Plan("a previous run panicked".into()))?;
        if memory.is_empty() {
            for &bytes in &self.plan().slots {
                memory.push(self.backend.alloc(bytes.max(1))?);
            }
            if let Some(flags) = self.checks_slot(&memory)? {
                self.backend.write(flags.0, &vec![0u8; flags.1])?;
            }
        }
        Ok(memory)
    }

    /// The index-check flags' memory and bytes, when the plan has indirect indices.
    fn checks_slot(
        &self,
        memory: &[BufferHandle],
    ) -> Result<Option<(BufferHandle, usize)>, CoilError> {
        let Some(b) = self
            .plan()
            .buffers
            .iter()
            .find(|b| b.role == BufferRole::Checks)
        else {
            return Ok(None);
        };
        Ok(Some((self.handle(memory, b.buffer)?, b.bytes)))
    }

    /// Reads the index-check flags after a run: an index out of range is an error naming the
    /// node, the op, the index and the size (the flags are zeroed again for the next run).
    fn check_indices(&self, memory: &[BufferHandle]) -> Result<(), CoilError> {
        let Some((flags, bytes)) = self.checks_slot(memory)? else {
            return Ok(());
        };
        let mut raw = vec![0u8; bytes];
        self.backend.read(flags, &mut raw)?;
        let words: Vec<i64> = raw
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect();
        let Some(check) = words.chunks_exact(2).position(|w| w[0] != 0) else {
            return Ok(());
        };
        self.backend.write(flags, &vec![0u8; bytes])?;
        let value = words[2 * check + 1];
        let msg = match self.index_checks.get(check) {
            Some(c) => c.message(value),
            None => format!("index {value} is out of range (check {check})"),
        };
        Err(CoilError::Run(msg))
    }

    fn handle(&self, memory: &[BufferHandle], b: BufRef) -> Result<BufferHandle, CoilError> {
        let slot = self
            .plan()
            .placement
            .get(&b)
            .ok_or_else(|| CoilError::Plan(format!("{} has no memory", self.plan().name(b))))?;
        memory
            .get(slot.0 as usize)
            .copied()
            .ok_or_else(|| CoilError::Plan(format!("{slot} is not allocated")))
    }

    /// Runs the model: copies the inputs in, launches every step, copies the outputs out.
    pub fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, CoilError> {
        self.write_inputs(inputs)?;
        self.run_resident()?;
        self.read_outputs(inputs)
    }

    /// Checks the inputs against the graph's signature and copies them into the model's memory.
    pub fn write_inputs(&self, inputs: &[Tensor]) -> Result<(), CoilError> {
        if inputs.len() != self.inputs.len() {
            return Err(CoilError::Inputs(format!(
                "the model takes {} inputs ({}), got {}",
                self.inputs.len(),
                self.inputs
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                inputs.len()
            )));
        }
        for ((name, meta), t) in self.inputs.iter().zip(inputs) {
            if t.sizes() != meta.sizes.as_slice() || t.dtype() != meta.dtype {
                return Err(CoilError::Inputs(format!(
                    "input '{name}' must be {}{}, got {}{}",
                    meta.dtype,
                    Dims(&meta.sizes),
                    t.dtype(),
                    Dims(t.sizes())
                )));
            }
        }
        let memory = self.memory()?;
        for b in &self.plan().buffers {
            if let BufferRole::Input(i) = b.role {
                let bytes = inputs[i].to_bytes();
                self.backend
                    .write(self.handle(&memory, b.buffer)?, &bytes)?;
            }
        }
        Ok(())
    }

    /// Checks a call on caller memory: as many inputs and outputs as the model has, each of
    /// exactly its bytes (`inputs` and `outputs` give their lengths in order).
    fn check_call_bytes(
        &self,
        inputs: impl ExactSizeIterator<Item = usize>,
        outputs: impl ExactSizeIterator<Item = usize>,
    ) -> Result<(), CoilError> {
        let specs = self.outputs();
        if inputs.len() != self.inputs.len() || outputs.len() != specs.len() {
            return Err(CoilError::Inputs(format!(
                "the model takes {} inputs and gives {} outputs; {} and {} given",
                self.inputs.len(),
                specs.len(),
                inputs.len(),
                outputs.len()
            )));
        }
        for ((name, meta), bytes) in self.inputs.iter().zip(inputs) {
            if bytes != meta.nbytes() {
                return Err(CoilError::Inputs(format!(
                    "input '{name}' must be {} bytes ({}{}), got {bytes}",
                    meta.nbytes(),
                    meta.dtype,
                    Dims(&meta.sizes)
                )));
            }
        }
        for (i, ((d, sizes), bytes)) in specs.iter().zip(outputs).enumerate() {
            let want = sizes.iter().product::<usize>() * d.itemsize();
            if bytes != want {
                return Err(CoilError::Inputs(format!(
                    "output {i} is {want} bytes, the destination {bytes}"
                )));
            }
        }
        Ok(())
    }

    /// The plan slot output `o` can be the caller's memory of `bytes` for: the output is a
    /// whole buffer in row-major order, its slot is exactly that size (so every buffer sharing
    /// it fits), and no other output took it.
    fn own_slot(&self, o: &OutputRef, bytes: usize, taken: &[usize]) -> Option<usize> {
        let whole = matches!(o.buffer, BufRef::Buffer(_))
            && o.layout.offset == 0
            && coil_graph::is_contiguous(&o.layout.sizes, &o.layout.strides);
        let plan = self.plan();
        let slot = plan.placement.get(&o.buffer)?.0 as usize;
        (whole && bytes > 0 && plan.slots[slot] == bytes && !taken.contains(&slot)).then_some(slot)
    }

    /// The memory slot holding an output's source: its buffer's, or its input's.
    fn source_slot(&self, b: BufRef) -> Option<usize> {
        let plan = self.plan();
        let buffer = match b {
            BufRef::Buffer(_) => b,
            BufRef::Input(i) => crate::inplace::input_buffer(plan, i.index())?,
            BufRef::IndexChecks => return None,
        };
        plan.placement.get(&buffer).map(|s| s.0 as usize)
    }

    /// Runs `body` on a copy of the model's slots (the memory lock held), in which it may
    /// put buffers lent by the caller (pushed to its second argument); gives them all back.
    fn with_lent<T>(
        &self,
        body: impl FnOnce(&mut Vec<BufferHandle>, &mut Vec<BufferHandle>) -> Result<T, CoilError>,
    ) -> Result<T, CoilError> {
        let guard = self.memory()?;
        let mut memory: Vec<BufferHandle> = guard.clone();
        let mut lent: Vec<BufferHandle> = Vec::new();
        let result = body(&mut memory, &mut lent);
        for h in lent {
            self.backend.free(h);
        }
        drop(guard);
        result
    }

    /// Runs on host memory the caller owns: `inputs` (contiguous, in signature order, exactly
    /// their bytes) and `outputs` (contiguous, exactly each output's bytes) are used in place
    /// where the backend can lend them as buffers ([`Backend::borrow_host`]: host memory,
    /// aligned; an output only when its plan slot is exactly its size), else copied in or out.
    /// Returns how many of the inputs and outputs were used in place.
    pub fn run_host(
        &self,
        inputs: &[&[u8]],
        outputs: &mut [&mut [u8]],
    ) -> Result<(usize, usize), CoilError> {
        let ins: Vec<(*const u8, usize)> = inputs.iter().map(|b| (b.as_ptr(), b.len())).collect();
        let outs: Vec<(*mut u8, usize)> = outputs
            .iter_mut()
            .map(|b| (b.as_mut_ptr(), b.len()))
            .collect();
        // SAFETY: the slices are live for the call, and (being `&` and `&mut`) do not overlap.
        unsafe { self.run_host_raw(&ins, &outs) }
    }

    /// Whether output `output` may be written straight into input `input`'s memory (the new
    /// value of an input the graph mutates) by [`CompiledModel::run_host_raw`] or
    /// [`CompiledModel::run_device`]: the caller then passes the input's address as that
    /// output's, and its write-back has nothing left to copy. Decided on the plan
    /// ([`crate::inplace`]): no step reads the input after the output's memory is first written,
    /// or only the pointwise kernel that writes the output, each element before writing it.
    pub fn output_may_alias_input(&self, output: usize, input: usize) -> bool {
        let (Some((dtype, sizes)), Some((_, meta))) =
            (self.outputs().get(output).cloned(), self.inputs.get(input))
        else {
            return false;
        };
        dtype == meta.dtype
            && sizes == meta.sizes
            && crate::inplace::output_may_alias_input(
                self.plan(),
                &self.program.kernels,
                output,
                input,
                meta.nbytes(),
            )
    }

    /// [`CompiledModel::output_may_alias_input`] for [`CompiledModel::run_device`] on a GPU,
    /// whose kernels read inputs through a non-coherent cache (`ld.global.nc`, whose data must
    /// not change under a kernel that reads it again). The rule is the host's: the reads of
    /// the input all come before the slot's first write, or the one step that does both is a
    /// pointwise kernel reading each element in the lane that then overwrites it, once, before
    /// the write. No address is then read after it is written, by any lane, so the cache cannot
    /// hand back a stale value: a lane's element is read once, by it, and the cache lines other
    /// lanes fetch hold elements they never read again. (Until 2026-12-06 the device also
    /// refused that kernel, sending an SGD step's new parameters to fresh memory and
    /// AOTAutograd's copies back; run on an H100 since.)
    pub fn output_may_alias_input_on_device(&self, output: usize, input: usize) -> bool {
        self.output_may_alias_input(output, input)
    }

    /// Whether a run with output `output` written into input `input`'s memory (where
    /// [`CompiledModel::output_may_alias_input`] allows it) leaves out the plain copy of the
    /// input that would start it: a scatter's copy of `self` (a KV cache's `index_put`), so
    /// that an update in place costs the elements it writes, not a pass over the whole input.
    pub fn skips_copy_into(&self, output: usize, input: usize) -> bool {
        matches!(self.skippable.get(output), Some(Some((i, _))) if *i == input)
    }

    /// The input that output `output` is, whole and unchanged (a graph returning an input,
    /// as AOTAutograd's forward graphs return weights for the backward), if any: a caller may
    /// give that input's own address for the output, and the run then copies nothing for it.
    pub fn output_input(&self, output: usize) -> Option<usize> {
        self.output_inputs.get(output).copied().flatten()
    }

    /// [`CompiledModel::run_host`] on raw addresses, so that an output may be an input's
    /// memory where [`CompiledModel::output_may_alias_input`] allows it.
    ///
    /// # Safety
    /// Each `(address, bytes)` is live, host memory of that many bytes for the call; outputs
    /// overlap no other output, and overlap an input only as that input's whole memory where
    /// `output_may_alias_input` said yes; nothing else touches them during the call.
    pub unsafe fn run_host_raw(
        &self,
        inputs: &[(*const u8, usize)],
        outputs: &[(*mut u8, usize)],
    ) -> Result<(usize, usize), CoilError> {
        self.check_call_bytes(inputs.iter().map(|b| b.1), outputs.iter().map(|b| b.1))?;
        // SAFETY (both): the caller promises live memory of these lengths.
        let input = |i: usize| unsafe { std::slice::from_raw_parts(inputs[i].0, inputs[i].1) };
        let output =
            |i: usize| unsafe { std::slice::from_raw_parts_mut(outputs[i].0, outputs[i].1) };
        let plan = self.plan();
        self.with_lent(|memory, lent| {
            let mut in_place = (0, 0);
            for b in &plan.buffers {
                let BufferRole::Input(i) = b.role else {
                    continue;
                };
                let slot = plan.placement[&b.buffer].0 as usize;
                let (ptr, len) = inputs[i];
                // SAFETY: the caller's input outlives the call; kernels only read inputs (or
                // write an aliasing output where the plan allows it).
                match unsafe { self.backend.borrow_host(ptr as *mut u8, len) } {
                    Some(h) => {
                        lent.push(h);
                        memory[slot] = h;
                        in_place.0 += 1;
                    }
                    None if len > 0 => self.backend.write(memory[slot], input(i))?,
                    None => {}
                }
            }
            let mut placed = vec![false; plan.outputs.len()];
            let mut taken: Vec<usize> = Vec::new();
            for (i, o) in plan.outputs.iter().enumerate() {
                let Some(slot) = self.own_slot(o, outputs[i].1, &taken) else {
                    continue;
                };
                let (out, len) = outputs[i];
                // SAFETY: the destination outlives the call and is written only by the model
                // (every buffer sharing the slot fits its size).
                if let Some(h) = unsafe { self.backend.borrow_host(out, len) } {
                    lent.push(h);
                    memory[slot] = h;
                    placed[i] = true;
                    taken.push(slot);
                    in_place.1 += 1;
                }
            }
            // An input returned whole: nothing to do where the caller gave its own address,
            // else one copy of its bytes, taken before the run (which may write another output
            // into an input's memory).
            let mut whole = vec![false; plan.outputs.len()];
            for (i, w) in whole.iter_mut().enumerate() {
                if placed[i] || outputs[i].1 == 0 {
                    continue;
                }
                if let Some(j) = self.output_input(i) {
                    if outputs[i].0.cast_const() != inputs[j].0 {
                        output(i).copy_from_slice(input(j));
                    }
                    *w = true;
                }
            }
            // Outputs the caller gave an input's own memory (written in place): the plain copy
            // of the input that starts them is already done.
            let ins: Vec<(usize, usize)> = inputs.iter().map(|&(p, n)| (p as usize, n)).collect();
            let outs: Vec<(usize, usize)> = outputs.iter().map(|&(p, n)| (p as usize, n)).collect();
            let skip = crate::inplace::copies_to_skip(
                plan.steps.len(),
                &self.skippable,
                &ins,
                &outs,
                |i| placed[i],
            );
            self.enqueue_on(memory, &skip)?;
            self.backend.synchronize()?;
            self.check_indices(memory)?;
            for (i, o) in plan.outputs.iter().enumerate() {
                if placed[i] || whole[i] || outputs[i].1 == 0 {
                    continue;
                }
                if self.own_slot(o, outputs[i].1, &[]).is_some() {
                    self.backend
                        .read(self.handle(memory, o.buffer)?, output(i))?;
                    continue;
                }
                let storage = self.view_storage(memory, o, |j| Ok(Cow::Borrowed(input(j))))?;
                gather_view(&storage, &o.layout, output(i))?;
            }
            Ok(in_place)
        })
    }

    /// Runs on device memory the caller owns (torch CUDA tensors): `inputs` and `outputs` as
    /// `(device address, bytes)`, contiguous, exactly their sizes, in signature and output
    /// order, all ready on the device. Every one is lent to the backend
    /// ([`Backend::borrow_device`]): outputs that are whole buffers of their own slot are
    /// written in place, others (views of another buffer) gathered through the host after the
    /// run. `Ok(false)` (nothing run) when the backend cannot borrow device memory: then copy
    /// instead.
    ///
    /// Without `stream` the call waits for the run to finish. With `stream` (the caller's
    /// `CUstream`, torch's current stream) the work goes to that stream
    /// ([`Backend::use_stream`]), ordered after the caller's earlier work and before its later
    /// work, and the call returns once it is queued: it waits only where the model must read
    /// the device (index checks, outputs gathered through the host, host fallbacks). With
    /// `defer_checks` the index checks do not make it wait: their flags are read by the next
    /// [`CompiledModel::check_deferred`] (a call captured into a CUDA graph, whose replays run
    /// the same checks, must not wait).
    ///
    /// # Safety
    /// Each address is a live device allocation of the backend's context holding its bytes,
    /// not used by anyone else until the run has finished; `stream` is a live stream of that
    /// context.
    pub unsafe fn run_device(
        &self,
        inputs: &[(u64, usize)],
        outputs: &[(u64, usize)],
        stream: Option<u64>,
        defer_checks: bool,
    ) -> Result<bool, CoilError> {
        self.check_call_bytes(inputs.iter().map(|i| i.1), outputs.iter().map(|o| o.1))?;
        let plan = self.plan();
        let on_callers_stream = match stream {
            // SAFETY: the caller's promise.
            Some(s) => unsafe { self.backend.use_stream(s) }?,
            None => false,
        };
        self.with_lent(|memory, lent| {
            let borrow = |(ptr, bytes): (u64, usize), lent: &mut Vec<BufferHandle>| {
                // SAFETY: the caller's promise.
                let h = unsafe { self.backend.borrow_device(ptr, bytes) };
                lent.extend(h);
                h
            };
            for b in &plan.buffers {
                let BufferRole::Input(i) = b.role else {
                    continue;
                };
                if inputs[i].1 == 0 {
                    continue;
                }
                let Some(h) = borrow(inputs[i], lent) else {
                    return Ok(false);
                };
                memory[plan.placement[&b.buffer].0 as usize] = h;
            }
            let mut taken: Vec<usize> = Vec::new();
            let mut taken_outputs: Vec<usize> = Vec::new();
            // Outputs that are views (or share a slot): gathered on the host after the run
            // and written into the caller's memory.
            let mut gather: Vec<usize> = Vec::new();
            for (i, o) in plan.outputs.iter().enumerate() {
                if outputs[i].1 == 0 {
                    continue;
                }
                match self.own_slot(o, outputs[i].1, &taken) {
                    Some(slot) => {
                        let Some(h) = borrow(outputs[i], lent) else {
                            return Ok(false);
                        };
                        memory[slot] = h;
                        taken.push(slot);
                        taken_outputs.push(i);
                    }
                    // An input returned whole, given at its own address: nothing to do.
                    None if self
                        .output_input(i)
                        .is_some_and(|j| outputs[i].0 == inputs[j].0) => {}
                    None => gather.push(i),
                }
            }
            // Outputs given an input's own memory (written in place): the plain copy of the
            // input that starts them is already done.
            let skip = crate::inplace::copies_to_skip(
                plan.steps.len(),
                &self.skippable,
                inputs,
                outputs,
                |i| taken_outputs.contains(&i),
            );
            self.enqueue_on(memory, &skip)?;
            // Outputs that are a contiguous stretch of a buffer or an input (a reshaped or
            // sliced view, a buffer in a larger shared slot, a buffer returned twice): copied on
            // the device, queued after the run. Only strided views go through the host.
            let mut strided = Vec::new();
            for i in gather {
                let o = &plan.outputs[i];
                match self.source_slot(o.buffer) {
                    Some(slot) if coil_graph::is_contiguous(&o.layout.sizes, &o.layout.strides) => {
                        let Some(h) = borrow(outputs[i], lent) else {
                            return Err(CoilError::Plan("the output memory cannot be lent".into()));
                        };
                        let offset = o.layout.offset * o.layout.dtype.itemsize();
                        self.backend
                            .copy_buffer(memory[slot], offset, h, outputs[i].1)?;
                    }
                    _ => strided.push(i),
                }
            }
            let gather = strided;
            let checks = self.checks_slot(memory)?.is_some();
            if on_callers_stream && defer_checks && checks && gather.is_empty() {
                return Ok(true);
            }
            let must_read = !gather.is_empty() || checks;
            if on_callers_stream && !must_read {
                return Ok(true);
            }
            self.backend.synchronize()?;
            self.check_indices(memory)?;
            if !gather.is_empty() {
                // Each strided view through the host on its own: only its storage (the input or
                // the buffer it views) is read.
                for i in gather {
                    let o = &plan.outputs[i];
                    let mut bytes = vec![0u8; outputs[i].1];
                    let storage = self.view_storage(memory, o, |j| {
                        let mut raw = vec![0u8; self.inputs[j].1.nbytes()];
                        let slot = crate::inplace::input_buffer(plan, j)
                            .map(|b| plan.placement[&b].0 as usize);
                        if let Some(s) = slot.filter(|_| !raw.is_empty()) {
                            self.backend.read(memory[s], &mut raw)?;
                        }
                        Ok(Cow::Owned(raw))
                    })?;
                    gather_view(&storage, &o.layout, &mut bytes)?;
                    let Some(h) = borrow(outputs[i], lent) else {
                        return Err(CoilError::Plan("the output memory cannot be lent".into()));
                    };
                    self.backend.write(h, &bytes)?;
                }
                self.backend.synchronize()?;
            }
            Ok(true)
        })
    }

    /// Reads the index checks that `run_device` calls with `defer_checks` (or the replays of
    /// a CUDA graph that captured one) left, once the work on `stream`, where they ran, has
    /// finished: an index out of range since the last check is an error naming the op, as
    /// after a plain call. Nothing to do, and no wait, for a model without index checks.
    ///
    /// # Safety
    /// `stream` is a live stream of the backend's context.
    pub unsafe fn check_deferred(&self, stream: u64) -> Result<(), CoilError> {
        let memory = self.memory()?;
        if self.checks_slot(&memory)?.is_none() {
            return Ok(());
        }
        // SAFETY: the caller's promise.
        unsafe { self.backend.use_stream(stream) }?;
        self.backend.synchronize()?;
        self.check_indices(&memory)
    }

    /// Launches every step on the inputs already in memory and waits for them (what
    /// benchmarks time: no host copies).
    pub fn run_resident(&self) -> Result<(), CoilError> {
        self.enqueue()?;
        self.backend.synchronize()?;
        let memory = self.memory()?;
        self.check_indices(&memory)
    }

    /// The backend's device clock, if its work runs asynchronously on a device (for timing
    /// [`CompiledModel::enqueue`] on the device itself).
    pub fn clock(&self) -> Option<&dyn DeviceClock> {
        self.backend.clock()
    }

    /// Times the model on its device, with the inputs already in memory (see
    /// [`CompiledModel::write_inputs`]): `samples` samples of `back_to_back` runs enqueued
    /// between two device events (the device time of one run in steady state: the queue never
    /// runs dry, so no host launch gap counts, as when a model runs inside a loop), then
    /// `samples` single runs with an event pair around each launch (kept apart, so those events
    /// do not slow the whole-run figure). Medians of both. `None` when the backend has no
    /// device clock (a host backend: time [`CompiledModel::run_resident`] instead).
    pub fn device_times(
        &self,
        samples: usize,
        back_to_back: usize,
    ) -> Result<Option<DeviceBench>, CoilError> {
        let Some(clock) = self.clock() else {
            return Ok(None);
        };
        let (samples, back_to_back) = (samples.max(1), back_to_back.max(1));
        self.run_resident()?; // warm-up: first-launch work (module loads, autotuning)
        let mut runs = Vec::with_capacity(samples);
        for _ in 0..samples {
            clock.start(false)?;
            for _ in 0..back_to_back {
                self.enqueue()?;
            }
            runs.push(clock.stop()?.total_ms / back_to_back as f64);
        }
        let mut per_launch: Vec<(String, Vec<f64>)> = Vec::new();
        for _ in 0..samples {
            clock.start(true)?;
            self.enqueue()?;
            for (i, (name, ms)) in clock.stop()?.launches.into_iter().enumerate() {
                match per_launch.get_mut(i) {
                    Some((_, v)) => v.push(ms),
                    None => per_launch.push((name, vec![ms])),
                }
            }
        }
        Ok(Some(DeviceBench {
            run_ms: median(runs),
            launches: per_launch
                .into_iter()
                .map(|(name, v)| (name, median(v)))
                .collect(),
        }))
    }

    /// Launches every step on the inputs already in memory without waiting for a device to
    /// finish them (a host backend has finished when this returns).
    pub fn enqueue(&self) -> Result<(), CoilError> {
        let memory = self.memory()?;
        self.enqueue_on(&memory, &[])
    }

    /// [`CompiledModel::enqueue`] with the plan's slots in `memory`: every step in order, but
    /// those `skip` marks.
    fn enqueue_on(&self, memory: &[BufferHandle], skip: &[bool]) -> Result<(), CoilError> {
        for (i, step) in self.plan().steps.iter().enumerate() {
            if skip.get(i) == Some(&true) {
                tracing::trace!(target: "run", step = i, "a copy into its own memory: skipped");
                continue;
            }
            match step {
                Step::Kernel { kernel, args, .. } => {
                    let handles = args
                        .iter()
                        .map(|&a| self.handle(memory, a))
                        .collect::<Result<Vec<_>, _>>()?;
                    self.kernels.launch(*kernel, &handles)?;
                }
                Step::Extern(e) if e.kind.is_host_fallback() => {
                    self.host_fallback(memory, e)?;
                }
                Step::Extern(e) => {
                    let operand = |buffer: BufRef,
                                   layout: &FixedLayout|
                     -> Result<StridedOperand, CoilError> {
                        Ok(StridedOperand {
                            buffer: self.handle(memory, buffer)?,
                            dtype: layout.dtype,
                            sizes: layout.sizes.clone(),
                            strides: layout.strides.clone(),
                            offset: layout.offset,
                        })
                    };
                    let call = ExternCall {
                        kind: e.kind.clone(),
                        inputs: e
                            .inputs
                            .iter()
                            .map(|i| operand(i.buffer, &i.layout))
                            .collect::<Result<_, _>>()?,
                        out: operand(e.out.buffer, &e.out.layout)?,
                    };
                    self.backend.extern_call(&call)?;
                }
            }
        }
        Ok(())
    }

    /// Runs a host fallback: waits for the device, copies the operands to the host, runs the
    /// op through coil-eager, and copies its result into the output buffer.
    fn host_fallback(
        &self,
        memory: &[BufferHandle],
        e: &coil_codegen::ExternStep,
    ) -> Result<(), CoilError> {
        let coil_lower::ExternKind::Fallback(op) = &e.kind else {
            return Err(CoilError::Plan(format!(
                "{} is not a host fallback",
                e.kind.kernel_name()
            )));
        };
        self.backend.synchronize()?;
        let mut inputs = Vec::with_capacity(e.inputs.len());
        for i in &e.inputs {
            let l = &i.layout;
            let len = l.storage_len();
            let mut bytes = vec![0u8; len * l.dtype.itemsize()];
            if !bytes.is_empty() {
                self.backend
                    .read(self.handle(memory, i.buffer)?, &mut bytes)?;
            }
            let storage = Tensor::from_bytes(l.dtype, vec![len], &bytes)
                .map_err(|err| CoilError::Plan(err.to_string()))?;
            let t = storage
                .view(l.sizes.clone(), l.strides.clone(), l.offset)
                .map_err(|err| CoilError::Plan(err.to_string()))?;
            inputs.push(t);
        }
        let out = coil_lower::run_host_op(op, &inputs).map_err(CoilError::Run)?;
        let bytes = out.to_bytes();
        let want = e.out.layout.numel() * e.out.layout.dtype.itemsize();
        if bytes.len() != want || out.dtype() != e.out.layout.dtype {
            return Err(CoilError::Plan(format!(
                "host fallback {} produced {}{} where the plan holds {}{}",
                op.op,
                out.dtype(),
                Dims(out.sizes()),
                e.out.layout.dtype,
                Dims(&e.out.layout.sizes)
            )));
        }
        if !bytes.is_empty() {
            self.backend
                .write(self.handle(memory, e.out.buffer)?, &bytes)?;
        }
        Ok(())
    }

    /// Copies the outputs of the last run to the host, with their layouts. `inputs` are the
    /// tensors of that run (a graph may return an input).
    pub fn read_outputs(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, CoilError> {
        let memory = self.memory()?;
        self.read_outputs_on(&memory, inputs)
    }

    /// The storage output `o` views: input `i`'s bytes (contiguous) from `input(i)`, or as
    /// much of its buffer as the view reaches, read back.
    fn view_storage<'a>(
        &self,
        memory: &[BufferHandle],
        o: &OutputRef,
        input: impl FnOnce(usize) -> Result<Cow<'a, [u8]>, CoilError>,
    ) -> Result<Cow<'a, [u8]>, CoilError> {
        match o.buffer {
            BufRef::Input(i) => input(i.index()),
            BufRef::Buffer(_) => {
                let mut bytes = vec![0u8; o.layout.storage_len() * o.layout.dtype.itemsize()];
                if !bytes.is_empty() {
                    self.backend
                        .read(self.handle(memory, o.buffer)?, &mut bytes)?;
                }
                Ok(Cow::Owned(bytes))
            }
            BufRef::IndexChecks => Err(CoilError::Plan(
                "the index-check flags are not an output".into(),
            )),
        }
    }

    fn read_outputs_on(
        &self,
        memory: &[BufferHandle],
        inputs: &[Tensor],
    ) -> Result<Vec<Tensor>, CoilError> {
        self.plan()
            .outputs
            .iter()
            .map(|o| match o.buffer {
                BufRef::Input(i) => {
                    let t = inputs
                        .get(i.index())
                        .ok_or_else(|| CoilError::Inputs("missing input".into()))?;
                    view(&t.contiguous(), &o.layout)
                }
                _ => {
                    let bytes = self.view_storage(memory, o, |_| Ok(Cow::Borrowed(&[])))?;
                    let layout = &o.layout;
                    let storage =
                        Tensor::from_bytes(layout.dtype, vec![layout.storage_len()], &bytes)?;
                    view(&storage, layout)
                }
            })
            .collect()
    }

    /// Bytes a run must move at least: each input read once, each output written once.
    pub fn min_bytes(&self) -> usize {
        let inputs: usize = self.inputs.iter().map(|(_, m)| m.nbytes()).sum();
        let outputs: usize = self
            .plan()
            .outputs
            .iter()
            .map(|o| o.layout.numel() * o.layout.dtype.itemsize())
            .sum();
        inputs + outputs
    }
}

impl Drop for CompiledModel {
    fn drop(&mut self) {
        if let Ok(memory) = self.memory.lock() {
            for &h in memory.iter() {
                self.backend.free(h);
            }
        }
    }
}

/// `out` (contiguous bytes) from `storage` seen through `layout`: one copy when the view is
/// contiguous, else through a tensor of the storage.
fn gather_view(storage: &[u8], layout: &FixedLayout, out: &mut [u8]) -> Result<(), CoilError> {
    let item = layout.dtype.itemsize();
    let needed = layout.storage_len() * item;
    if storage.len() < needed || out.len() != layout.numel() * item {
        return Err(CoilError::Plan(format!(
            "an output view of {} bytes over {} bytes of storage (needs {needed})",
            out.len(),
            storage.len()
        )));
    }
    if coil_graph::is_contiguous(&layout.sizes, &layout.strides) {
        let start = layout.offset * item;
        out.copy_from_slice(&storage[start..start + out.len()]);
        return Ok(());
    }
    let flat = Tensor::from_bytes(layout.dtype, vec![storage.len() / item], storage)?;
    out.copy_from_slice(&view(&flat, layout)?.contiguous().to_bytes());
    Ok(())
}

/// A view of `storage` (a flat tensor over the whole allocation) with `layout`.
fn view(storage: &Tensor, layout: &FixedLayout) -> Result<Tensor, CoilError> {
    let flat = if storage.sizes().len() == 1 {
        storage.clone()
    } else {
        let n = storage.numel();
        storage.contiguous().view(vec![n], vec![1], 0)?
    };
    Ok(flat.view(layout.sizes.clone(), layout.strides.clone(), layout.offset)?)
}

/// What [`CompiledModel::device_times`] measured, in device milliseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceBench {
    /// The median time of one run, from runs enqueued back to back.
    pub run_ms: f64,
    /// Each launch (kernel or extern call, in launch order) with its median time.
    pub launches: Vec<(String, f64)>,
}

/// The median of timing samples `v` (the upper one of an even count); 0 for none. Shared by
/// the benchmarks built on the facade (`run-model --bench`, `cuda_zoo`).
pub fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// For each output of `plan`, the input it is whole and unchanged (offset 0, the input's
/// dtype and sizes, row-major), if any.
fn whole_inputs(plan: &Plan, inputs: &[(String, TensorMeta)]) -> Vec<Option<usize>> {
    plan.outputs
        .iter()
        .map(|o| {
            let BufferRole::Input(j) = plan.buffers.iter().find(|b| b.buffer == o.buffer)?.role
            else {
                return None;
            };
            let meta = &inputs.get(j)?.1;
            (o.layout.offset == 0
                && o.layout.dtype == meta.dtype
                && o.layout.sizes == meta.sizes
                && coil_graph::is_contiguous(&o.layout.sizes, &o.layout.strides))
            .then_some(j)
        })
        .collect()
}
