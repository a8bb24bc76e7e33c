//! oneDNN post-ops for a matmul: coil's [`PostOp`]s as an attribute (eltwise ops on the
//! accumulator, binary add / mul with a tensor broadcast over the product), applied to each
//! output tile inside the primitive, in f32, before the one rounding to the output's dtype.

use std::ffi::c_int;

use coil_lower::PostOp;

use super::{Handle, MD_WORDS, OneDnn, check};

const ELTWISE_RELU: c_int = 0x1f;
const ELTWISE_TANH: c_int = 0x2f;
const ELTWISE_LINEAR: c_int = 0x7f;
const ELTWISE_LOGISTIC: c_int = 0xaf;
const ELTWISE_GELU_TANH: c_int = 0xcf;
const ELTWISE_SWISH: c_int = 0xdf;
const ELTWISE_GELU_ERF: c_int = 0x30;
const BINARY_ADD: c_int = 0x1fff0;
const BINARY_MUL: c_int = 0x1fff1;
/// `DNNL_ARG_SRC_1` and `DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE`.
const ARG_SRC_1: c_int = 2;
const ARG_POST_OP_BASE: c_int = 16384;

/// The execution argument of the binary post-op at position `at` of the chain
/// (`DNNL_ARG_ATTR_MULTIPLE_POST_OP(at) | DNNL_ARG_SRC_1`).
pub(super) fn binary_arg(at: usize) -> c_int {
    (ARG_POST_OP_BASE * (at as c_int + 1)) | ARG_SRC_1
}

/// A binary post-op's position in the chain and its operand's memory descriptor.
pub(super) type BinaryOperand = (usize, Box<[u64; MD_WORDS]>);

/// A primitive attribute and oneDNN's destructor for it, called when dropped.
pub(super) struct Attr(
    pub(super) Handle,
    unsafe extern "C" fn(Handle) -> super::Status,
);

impl Drop for Attr {
    fn drop(&mut self) {
        // SAFETY: a live attribute created by `attr_create`, destroyed once.
        unsafe { (self.1)(self.0) };
    }
}

impl OneDnn {
    /// The attribute holding `post` (`None` when empty) and, for each binary post-op, its
    /// position in the chain and its operand's memory descriptor (broadcast dims as 1).
    pub(super) fn post_ops_attr(
        &self,
        post: &[super::KeyedPostOp],
        dt: c_int,
    ) -> Result<(Option<Attr>, Vec<BinaryOperand>), String> {
        if post.is_empty() {
            return Ok((None, Vec::new()));
        }
        let api = &self.api;
        let mut ops: Handle = std::ptr::null_mut();
        // SAFETY: an out-pointer to a handle.
        check(unsafe { (api.post_ops_create)(&mut ops) }, "post-ops")?;
        let result = (|| {
            let mut binaries = Vec::new();
            for (at, (op, operand)) in post.iter().enumerate() {
                let eltwise = |alg: c_int, alpha: f32, beta: f32| {
                    // SAFETY: a live post-ops handle.
                    check(
                        unsafe { (api.post_ops_append_eltwise)(ops, 1.0, alg, alpha, beta) },
                        "eltwise post-op",
                    )
                };
                match *op {
                    PostOp::Relu => eltwise(ELTWISE_RELU, 0.0, 0.0)?,
                    PostOp::Tanh => eltwise(ELTWISE_TANH, 0.0, 0.0)?,
                    PostOp::Sigmoid => eltwise(ELTWISE_LOGISTIC, 0.0, 0.0)?,
                    PostOp::Gelu => eltwise(ELTWISE_GELU_ERF, 0.0, 0.0)?,
                    PostOp::GeluTanh => eltwise(ELTWISE_GELU_TANH, 0.0, 0.0)?,
                    PostOp::Silu => eltwise(ELTWISE_SWISH, 1.0, 0.0)?,
                    PostOp::Linear { alpha, beta } => {
                        eltwise(ELTWISE_LINEAR, f32::from_bits(alpha), f32::from_bits(beta))?
                    }
                    PostOp::Add | PostOp::Mul => {
                        let Some((sizes, strides)) = operand else {
                            return Err(format!("the {op} post-op has no operand"));
                        };
                        // A broadcast dim (stride 0) is a dim of 1 to oneDNN.
                        let dims: Vec<usize> = sizes
                            .iter()
                            .zip(strides)
                            .map(|(&s, &st)| if st == 0 { 1 } else { s })
                            .collect();
                        let md = self.plain_of(&dims, strides, dt)?;
                        let alg = if *op == PostOp::Add {
                            BINARY_ADD
                        } else {
                            BINARY_MUL
                        };
                        // SAFETY: a live post-ops handle and a filled memory descriptor.
                        check(
                            unsafe { (api.post_ops_append_binary)(ops, alg, md.as_ptr()) },
                            "binary post-op",
                        )?;
                        binaries.push((at, md));
                    }
                }
            }
            let mut attr: Handle = std::ptr::null_mut();
            // SAFETY: an out-pointer to a handle.
            check(unsafe { (api.attr_create)(&mut attr) }, "attribute")?;
            let attr = Attr(attr, api.attr_destroy);
            // SAFETY: live handles; the attribute copies the post-ops.
            check(
                unsafe { (api.attr_set_post_ops)(attr.0, ops) },
                "attribute post-ops",
            )?;
            Ok((Some(attr), binaries))
        })();
        // SAFETY: the post-ops handle created above, no longer used (the attribute holds a copy).
        unsafe { (api.post_ops_destroy)(ops) };
        result
    }
}
