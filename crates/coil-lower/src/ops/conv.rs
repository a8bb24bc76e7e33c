//! Convolution: one library call where the backend has a convolution library
//! ([`crate::LowerConfig::conv_extern`], Inductor's default), else im2col plus a library
//! matmul (the decomposition every backend can run with the matmul it already has):
//! the input's windows are gathered into a `[groups, C_in/groups * K, N * L]` buffer (`K` taps,
//! `L` output positions; padding reads 0), the weight is read as `[groups, C_out/groups,
//! C_in/groups * K]`, one `bmm` (an `mm` for one group) multiplies them, and the output is a
//! pointwise value reading that product (bias added) that fuses with what follows. Transposed
//! convolutions run as host fallbacks.

use coil_graph::{Bound, Call, DType, Node, conv_geometry};

use super::views::{coords_of, flat_index, reshape_indexer};
use crate::body::Op;
use crate::body::ReductionType;
use crate::index::IndexExpr;
use crate::ir::{ConvGrad, ConvOp, ExternKind, MatmulOp, TensorId};
use crate::lowering::{BodyCx, Lowerer, Result};

impl Lowerer<'_> {
    /// Lowers `convolution_backward`: each gradient `output_mask` asks for and the graph
    /// reads is one library call (the input's from `[grad_output, weight]`, the weight's from
    /// `[input, grad_output]`) and the bias's a sum of `grad_output` over all dims but the
    /// channels; the others are zeros no one reads. Without the library (or for a transposed
    /// or unbatched one) the op runs on the host.
    pub(super) fn lower_convolution_backward(
        &mut self,
        node: &Node,
        call: &Call,
        b: &Bound<'_>,
    ) -> Result<Vec<TensorId>> {
        let dy = self.tensor(node, b, "grad_output")?;
        let x = self.tensor(node, b, "input")?;
        let w = self.tensor(node, b, "weight")?;
        let xs = self.g.tensors[x].sizes.clone();
        let ws = self.g.tensors[w].sizes.clone();
        let g = conv_geometry(b, &xs, &ws).map_err(|e| Self::graph_err(node, e))?;
        let mask = b
            .bool_list("output_mask")
            .map_err(|e| Self::graph_err(node, e))?;
        let dtype = node.outputs[0].dtype;
        let dy_rank = self.g.tensors[dy].sizes.len();
        if g.transposed
            || !g.batched
            || !self.config.conv_backward_extern.contains(&dtype)
            || xs.contains(&0)
            || self.g.tensors[dy].sizes.contains(&0)
        {
            return self.lower_fallback(node, call);
        }
        let used = self.used_outputs(node, 3);
        let conv = ConvOp {
            stride: g.stride.clone(),
            padding: g.padding.clone(),
            dilation: g.dilation.clone(),
            groups: g.groups,
            bias: false,
            post: Vec::new(),
        };
        let mut out = Vec::with_capacity(3);
        for (k, meta) in node.outputs.clone().iter().enumerate() {
            if !(mask[k] && used[k]) {
                out.push(self.zeros_of(node, meta));
                continue;
            }
            out.push(match k {
                0 => self.extern_kernel(
                    node,
                    ExternKind::ConvolutionBackward(conv.clone(), ConvGrad::Input),
                    &[dy, w],
                    meta.sizes.clone(),
                    dtype,
                ),
                1 => self.extern_kernel(
                    node,
                    ExternKind::ConvolutionBackward(conv.clone(), ConvGrad::Weight),
                    &[x, dy],
                    meta.sizes.clone(),
                    dtype,
                ),
                _ => {
                    let dims: Vec<usize> = (0..dy_rank).filter(|&d| d != 1).collect();
                    self.reduce(node, dy, &dims, false, ReductionType::Sum, dtype)
                }
            });
        }
        Ok(out)
    }

    /// Lowers `convolution`.
    pub(super) fn lower_convolution(
        &mut self,
        node: &Node,
        call: &Call,
        b: &Bound<'_>,
    ) -> Result<Vec<TensorId>> {
        let x = self.tensor(node, b, "input")?;
        let w = self.tensor(node, b, "weight")?;
        let bias = b
            .opt_tensor("bias")
            .map(|n| self.value(n, &node.name))
            .transpose()?;
        let xs = self.g.tensors[x].sizes.clone();
        let ws = self.g.tensors[w].sizes.clone();
        let g = conv_geometry(b, &xs, &ws).map_err(|e| Self::graph_err(node, e))?;
        let meta = node.meta().clone();
        let out = meta.dtype;
        if g.transposed || meta.sizes.contains(&0) || xs.contains(&0) {
            return self.lower_fallback(node, call);
        }
        let library_dtype = match out {
            DType::F32 => true,
            DType::BF16 => self.config.conv_extern_bf16,
            DType::F16 => self.config.conv_extern_f16,
            _ => false,
        };
        let flops = 2 * meta.sizes.iter().product::<usize>() * ws[1..].iter().product::<usize>();
        let small = out == DType::F32 && g.groups < 8 && flops <= self.config.conv_im2col_max_flops;
        if self.config.conv_extern && g.batched && library_dtype && !small {
            let kind = ExternKind::Convolution(ConvOp {
                stride: g.stride.clone(),
                padding: g.padding.clone(),
                dilation: g.dilation.clone(),
                groups: g.groups,
                bias: bias.is_some(),
                post: Vec::new(),
            });
            let operands: Vec<TensorId> = [x, w].into_iter().chain(bias).collect();
            return Ok(vec![self.extern_kernel(
                node,
                kind,
                &operands,
                meta.sizes.clone(),
                out,
            )]);
        }
        let n = g.kernel.len();
        let groups = g.groups;
        let (cin_g, cout_g) = (g.in_channels / groups, g.out_channels / groups);
        let taps: usize = g.kernel.iter().product();
        let ck = cin_g * taps;
        let l: usize = g.output.iter().product();
        let nl = g.batch * l;

        // im2col: [groups, C_in/groups * K, N * L].
        let col_sizes = vec![groups, ck, nl];
        let mut cx = BodyCx::new(&col_sizes);
        let ranges = cx.ranges.clone();
        let (gi, j, m) = (cx.idx[0].clone(), cx.idx[1].clone(), cx.idx[2].clone());
        let ic = j.floor_div(taps as i64).simplify(&ranges);
        let k = coords_of(&j.modular(1, taps as i64), &g.kernel);
        let batch = m.floor_div(l as i64).simplify(&ranges);
        let o = coords_of(&m.modular(1, l as i64), &g.output);
        let channel = gi.scale(cin_g as i64).add(&ic);
        let mut idx = Vec::with_capacity(n + 2);
        if g.batched {
            idx.push(batch);
        }
        idx.push(channel);
        let mut mask = None;
        for d in 0..n {
            let pos = o[d]
                .scale(g.stride[d] as i64)
                .add(&k[d].scale(g.dilation[d] as i64))
                .add_constant(-(g.padding[d] as i64))
                .simplify(&ranges);
            let (lo, hi) = pos.bounds(&ranges);
            let mut conds = Vec::new();
            if lo < 0 {
                let v = cx.body.index_expr(pos.clone(), DType::I64);
                let z = cx.body.constant(crate::body::Const::Int(0), DType::I64);
                conds.push(cx.body.binary(Op::Ge, v, z));
            }
            if hi >= g.input[d] as i128 {
                let v = cx.body.index_expr(pos.clone(), DType::I64);
                let h = cx
                    .body
                    .constant(crate::body::Const::Int(g.input[d] as i64), DType::I64);
                conds.push(cx.body.binary(Op::Lt, v, h));
            }
            for c in conds {
                mask = Some(match mask {
                    Some(m) => cx.body.binary(Op::LogicalAnd, m, c),
                    None => c,
                });
            }
            idx.push(pos);
        }
        let v = self.load_at(&mut cx, x, &idx, mask);
        let v = cx.body.to_dtype(v, out);
        let root = match mask {
            Some(mk) => {
                let zero = cx.body.constant(crate::body::Const::Float(0.0), out);
                cx.body.where_(mk, v, zero)
            }
            None => v,
        };
        let col = self.finish_pointwise(node, cx, root, out);

        // The weight as [groups, C_out/groups, C_in/groups * K]: a view (no copy when the
        // weight is contiguous, as parameters are).
        let w_sizes = if groups == 1 {
            vec![cout_g, ck]
        } else {
            vec![groups, cout_g, ck]
        };
        let wcx = BodyCx::new(&w_sizes);
        let ranges = wcx.ranges.clone();
        let (oc, j) = if groups == 1 {
            (wcx.idx[0].clone(), wcx.idx[1].clone())
        } else {
            (
                wcx.idx[0].scale(cout_g as i64).add(&wcx.idx[1]),
                wcx.idx[2].clone(),
            )
        };
        let mut widx = vec![oc, j.floor_div(taps as i64).simplify(&ranges)];
        widx.extend(coords_of(&j.modular(1, taps as i64), &g.kernel));
        let wv = self.make_view(node, w, w_sizes, widx);

        // The product [groups, C_out/groups, N * L].
        let prod = if groups == 1 {
            let c2 = self.make_view(
                node,
                col,
                vec![ck, nl],
                reshape_indexer(&col_sizes, &[ck, nl]),
            );
            self.extern_kernel(
                node,
                ExternKind::Matmul(MatmulOp::Mm),
                &[wv, c2],
                vec![cout_g, nl],
                out,
            )
        } else {
            self.extern_kernel(
                node,
                ExternKind::Matmul(MatmulOp::Bmm),
                &[wv, col],
                vec![groups, cout_g, nl],
                out,
            )
        };

        // The output, reading the product (and the bias).
        let mut cx = BodyCx::new(&meta.sizes);
        let ranges = cx.ranges.clone();
        let (bdim, cdim) = if g.batched { (Some(0), 1) } else { (None, 0) };
        let c = cx.idx[cdim].clone();
        let pos = flat_index(&cx.idx[cdim + 1..], &g.output);
        let col_m = match bdim {
            Some(bd) => cx.idx[bd].scale(l as i64).add(&pos),
            None => pos,
        };
        let pidx = if groups == 1 {
            vec![c.clone(), col_m]
        } else {
            vec![
                c.floor_div(cout_g as i64).simplify(&ranges),
                c.modular(1, cout_g as i64).simplify(&ranges),
                col_m,
            ]
        };
        let pidx: Vec<IndexExpr> = pidx.into_iter().map(|e| e.simplify(&ranges)).collect();
        let mut r = self.load_at(&mut cx, prod, &pidx, None);
        if let Some(bias) = bias {
            let bv = self.load_at(&mut cx, bias, &[c], None);
            let bv = cx.body.to_dtype(bv, out);
            r = cx.body.binary(Op::Add, r, bv);
        }
        Ok(vec![self.finish_pointwise(node, cx, r, out)])
    }
}
