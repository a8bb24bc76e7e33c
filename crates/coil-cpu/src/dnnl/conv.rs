//! Convolutions and their gradients through oneDNN: one primitive (forward inference, or
//! backward data / backward weights with a forward-training hint) per shape, its operands
//! reordered from and into PyTorch's plain layouts where it chose blocked ones.

use std::ffi::c_void;
use std::sync::{Arc, Mutex};

use coil_lower::{ConvGrad, ConvOp};

use super::*;

/// What a prepared convolution (or one of its gradients) depends on: the forward
/// convolution's input, weight and output, each `(sizes, strides)`; the one the call writes
/// (the output, or the gradient's tensor) is contiguous.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ConvKey {
    /// f32 or bf16 (every operand).
    pub(crate) dtype: coil_graph::DType,
    /// `None`: the convolution; else the gradient computed.
    pub(crate) grad: Option<ConvGrad>,
    pub(crate) conv: ConvOp,
    pub(crate) x: (Vec<usize>, Vec<usize>),
    pub(crate) w: (Vec<usize>, Vec<usize>),
    pub(crate) out: (Vec<usize>, Vec<usize>),
}

/// One plain operand and, when the primitive wants another layout, its reorder and buffer.
struct Operand {
    user: Handle,
    inner: Option<(Handle, Handle, Vec<u64>)>,
}

/// A primitive with its operands: those it reads, in the caller's order, and the one it
/// writes, each with its execution argument.
pub(super) struct Prepared {
    conv: Handle,
    inputs: Vec<(Operand, c_int)>,
    output: (Operand, c_int),
    bias: Option<Handle>,
}

// SAFETY: only used under its mutex (see `OneDnn`).
unsafe impl Send for Prepared {}

impl OneDnn {
    /// The user's plain operand, and a reorder into `want` when the primitive chose another
    /// layout (`to_user`: from `want` back into the user's, for the output).
    fn operand(&self, user: &[u64], want: *const u64, to_user: bool) -> Result<Operand, String> {
        let user_mem = self.memory(user.as_ptr())?;
        // SAFETY: both are valid descriptors.
        if unsafe { (self.api.md_equal)(user.as_ptr(), want) } != 0 {
            return Ok(Operand {
                user: user_mem,
                inner: None,
            });
        }
        // SAFETY: a valid descriptor.
        let bytes = unsafe { (self.api.md_size)(want) };
        let mut buf = vec![0u64; bytes.div_ceil(8).max(1)];
        let inner = self.memory(want)?;
        // SAFETY: the buffer outlives the memory object (both live in `Prepared`).
        check(
            unsafe { (self.api.set_handle)(inner, buf.as_mut_ptr().cast()) },
            "memory handle",
        )?;
        let (from, to) = if to_user {
            (want, user.as_ptr())
        } else {
            (user.as_ptr(), want)
        };
        let mut pd: Handle = std::ptr::null_mut();
        let mut prim: Handle = std::ptr::null_mut();
        // SAFETY: valid descriptors and engine; out-pointers to handles.
        unsafe {
            check(
                (self.api.reorder_pd)(
                    &mut pd,
                    from,
                    self.engine,
                    to,
                    self.engine,
                    std::ptr::null_mut(),
                ),
                "reorder",
            )?;
            check(
                (self.api.primitive_create)(&mut prim, pd),
                "reorder primitive",
            )?;
        }
        Ok(Operand {
            user: user_mem,
            inner: Some((inner, prim, buf)),
        })
    }

    pub(super) fn prepare(&self, key: &ConvKey) -> Result<Prepared, String> {
        let c = &key.conv;
        let n = c.stride.len();
        let (xs, xst) = (&key.x.0, &key.x.1);
        let (ws, wst) = (&key.w.0, &key.w.1);
        let (os, ost) = (&key.out.0, &key.out.1);
        // Grouped weights are [G, C_out/G, C_in/G, *k] for oneDNN.
        let (wsizes, wstrides) = if c.groups > 1 {
            let mut s = vec![c.groups, ws[0] / c.groups];
            s.extend_from_slice(&ws[1..]);
            let mut t = vec![wst[0] * (ws[0] / c.groups), wst[0]];
            t.extend_from_slice(&wst[1..]);
            (s, t)
        } else {
            (ws.clone(), wst.clone())
        };
        let dt = if key.dtype == coil_graph::DType::BF16 {
            BF16
        } else {
            F32
        };
        let src_user = self.plain_of(xs, xst, dt)?;
        let w_user = self.plain_of(&wsizes, &wstrides, dt)?;
        let dst_user = self.plain_of(os, ost, dt)?;
        let bias_md = if c.bias && key.grad.is_none() {
            Some(self.plain_of(&[os[1]], &[1], dt)?)
        } else {
            None
        };
        let (src_any, w_any, dst_any) =
            (self.any(xs, dt)?, self.any(&wsizes, dt)?, self.any(os, dt)?);
        let strides = dims(&c.stride);
        let dil: Vec<usize> = c.dilation.iter().map(|d| d - 1).collect();
        let dil = dims(&dil);
        let pad = dims(&c.padding);
        // The right padding that gives PyTorch's output size (oneDNN wants it exact).
        let mut pad_r = [0i64; 12];
        for (d, p) in pad_r.iter_mut().enumerate().take(n) {
            let (i, k, o) = (xs[2 + d] as i64, ws[2 + d] as i64, os[2 + d] as i64);
            *p = (o - 1) * c.stride[d] as i64 + (k - 1) * c.dilation[d] as i64 + 1
                - i
                - c.padding[d] as i64;
        }
        // The forward convolution: the primitive itself, or the hint a gradient's needs.
        let mut fwd_op = Box::new([0u64; OP_WORDS]);
        let mut fwd_pd: Handle = std::ptr::null_mut();
        let post: Vec<KeyedPostOp> = c.post.iter().map(|p| (*p, None)).collect();
        let (attr, _) = if key.grad.is_none() {
            self.post_ops_attr(&post, dt)?
        } else {
            (None, Vec::new())
        };
        let prop = if key.grad.is_none() {
            FORWARD_INFERENCE
        } else {
            FORWARD_TRAINING
        };
        // SAFETY: descriptors live across the calls; out-pointers to handles.
        unsafe {
            check(
                (self.api.conv_desc)(
                    fwd_op.as_mut_ptr(),
                    prop,
                    CONVOLUTION_DIRECT,
                    src_any.as_ptr(),
                    w_any.as_ptr(),
                    bias_md.as_ref().map_or(std::ptr::null(), |b| b.as_ptr()),
                    dst_any.as_ptr(),
                    strides.as_ptr(),
                    dil.as_ptr(),
                    pad.as_ptr(),
                    pad_r.as_ptr(),
                ),
                "convolution descriptor",
            )?;
            check(
                (self.api.pd_create)(
                    &mut fwd_pd,
                    fwd_op.as_ptr(),
                    attr.as_ref().map_or(std::ptr::null_mut(), |a| a.0),
                    self.engine,
                    std::ptr::null_mut(),
                ),
                "convolution primitive descriptor",
            )?;
        }
        let pd = match key.grad {
            None => fwd_pd,
            Some(grad) => {
                let mut op = Box::new([0u64; OP_WORDS]);
                let mut pd: Handle = std::ptr::null_mut();
                // SAFETY: as above; the forward descriptor is the hint oneDNN asks for.
                unsafe {
                    let s = match grad {
                        ConvGrad::Input => (self.api.conv_bwd_data_desc)(
                            op.as_mut_ptr(),
                            CONVOLUTION_DIRECT,
                            src_any.as_ptr(),
                            w_any.as_ptr(),
                            dst_any.as_ptr(),
                            strides.as_ptr(),
                            dil.as_ptr(),
                            pad.as_ptr(),
                            pad_r.as_ptr(),
                        ),
                        ConvGrad::Weight => (self.api.conv_bwd_weights_desc)(
                            op.as_mut_ptr(),
                            CONVOLUTION_DIRECT,
                            src_any.as_ptr(),
                            w_any.as_ptr(),
                            std::ptr::null(),
                            dst_any.as_ptr(),
                            strides.as_ptr(),
                            dil.as_ptr(),
                            pad.as_ptr(),
                            pad_r.as_ptr(),
                        ),
                    };
                    check(s, "convolution gradient descriptor")?;
                    check(
                        (self.api.pd_create)(
                            &mut pd,
                            op.as_ptr(),
                            std::ptr::null_mut(),
                            self.engine,
                            fwd_pd,
                        ),
                        "convolution gradient primitive descriptor",
                    )?;
                }
                pd
            }
        };
        let mut conv: Handle = std::ptr::null_mut();
        // SAFETY: a valid primitive descriptor; an out-pointer.
        check(
            unsafe { (self.api.primitive_create)(&mut conv, pd) },
            "convolution primitive",
        )?;
        // SAFETY: `pd` is valid; the descriptors it returns live as long as it does (never
        // destroyed: prepared convolutions are kept for the process).
        let query = |what| unsafe { (self.api.pd_query_md)(pd, what, 0) };
        let (inputs, output) = match key.grad {
            None => (
                vec![
                    (
                        self.operand(&src_user[..], query(QUERY_SRC_MD), false)?,
                        ARG_SRC,
                    ),
                    (
                        self.operand(&w_user[..], query(QUERY_WEIGHTS_MD), false)?,
                        ARG_WEIGHTS,
                    ),
                ],
                (
                    self.operand(&dst_user[..], query(QUERY_DST_MD), true)?,
                    ARG_DST,
                ),
            ),
            // Reads [grad_output, weight], writes the input's gradient.
            Some(ConvGrad::Input) => (
                vec![
                    (
                        self.operand(&dst_user[..], query(QUERY_DIFF_DST_MD), false)?,
                        ARG_DIFF_DST,
                    ),
                    (
                        self.operand(&w_user[..], query(QUERY_WEIGHTS_MD), false)?,
                        ARG_WEIGHTS,
                    ),
                ],
                (
                    self.operand(&src_user[..], query(QUERY_DIFF_SRC_MD), true)?,
                    ARG_DIFF_SRC,
                ),
            ),
            // Reads [input, grad_output], writes the weight's gradient.
            Some(ConvGrad::Weight) => (
                vec![
                    (
                        self.operand(&src_user[..], query(QUERY_SRC_MD), false)?,
                        ARG_SRC,
                    ),
                    (
                        self.operand(&dst_user[..], query(QUERY_DIFF_DST_MD), false)?,
                        ARG_DIFF_DST,
                    ),
                ],
                (
                    self.operand(&w_user[..], query(QUERY_DIFF_WEIGHTS_MD), true)?,
                    ARG_DIFF_WEIGHTS,
                ),
            ),
        };
        Ok(Prepared {
            conv,
            inputs,
            output,
            bias: bias_md.map(|b| self.memory(b.as_ptr())).transpose()?,
        })
    }

    /// `out = conv(x, w) + bias` for operands of `key.dtype` (f32 or bf16: f32 accumulation,
    /// one rounding), or the gradient `key.grad` names, at these pointers (the first element
    /// of each view): `inputs` are `[x, w]`, or `[grad_output, w]` for the input's gradient,
    /// `[x, grad_output]` for the weight's; the shapes and strides are `key`'s.
    ///
    /// # Safety
    /// Each pointer must address the whole strided extent its shape in `key` describes (and
    /// `out` the contiguous result), valid for the call.
    pub(crate) unsafe fn convolution(
        &self,
        key: &ConvKey,
        inputs: [*const u8; 2],
        bias: Option<*const u8>,
        out: *mut u8,
    ) -> Result<(), String> {
        let entry = {
            let mut convs = self.convs.lock().map_err(|_| "oneDNN cache poisoned")?;
            match convs.get(key) {
                Some(e) => e.clone(),
                None => {
                    let e = Arc::new(Mutex::new(self.prepare(key)?));
                    convs.insert(key.clone(), e.clone());
                    e
                }
            }
        };
        let p = entry.lock().map_err(|_| "oneDNN convolution poisoned")?;
        let set = |m: Handle, ptr: *mut c_void| {
            // SAFETY: the caller's pointer is valid for the call.
            check(unsafe { (self.api.set_handle)(m, ptr) }, "memory handle")
        };
        for ((o, _), ptr) in p.inputs.iter().zip(inputs) {
            set(o.user, ptr as *mut c_void)?;
        }
        set(p.output.0.user, out.cast())?;
        if let (Some(m), Some(b)) = (p.bias, bias) {
            set(m, b as *mut c_void)?;
        }
        let inner = |o: &Operand| o.inner.as_ref().map_or(o.user, |(m, _, _)| *m);
        let reorder = |from: Handle, to: Handle, prim: Handle| {
            self.run(
                prim,
                &[
                    ExecArg {
                        arg: ARG_SRC,
                        memory: from,
                    },
                    ExecArg {
                        arg: ARG_DST,
                        memory: to,
                    },
                ],
            )
        };
        for (o, _) in &p.inputs {
            if let Some((m, prim, _)) = &o.inner {
                reorder(o.user, *m, *prim)?;
            }
        }
        let mut args: Vec<ExecArg> = p
            .inputs
            .iter()
            .chain([&p.output])
            .map(|(o, arg)| ExecArg {
                arg: *arg,
                memory: inner(o),
            })
            .collect();
        if let Some(m) = p.bias {
            args.push(ExecArg {
                arg: ARG_BIAS,
                memory: m,
            });
        }
        self.run(p.conv, &args)?;
        if let Some((m, prim, _)) = &p.output.0.inner {
            reorder(*m, p.output.0.user, *prim)?;
        }
        // SAFETY: a valid stream.
        check(unsafe { (self.api.stream_wait)(self.stream) }, "wait")
    }
}
