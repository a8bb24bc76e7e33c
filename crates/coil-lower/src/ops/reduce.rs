//! Lowerings of reductions (`sum`, `amax`, `argmax`, `mean`, `var`, ...) and the composite ops
//! the decompose pass leaves (`_softmax`, `native_layer_norm`, which it rewrites first).

use coil_graph::ReductionKind;
use coil_graph::{Bound, DType, Node, normalize_dim, reduction_dims};

use crate::body::{Const, Op, ReductionType};
use crate::index::{IndexExpr, Var};
use crate::ir::{Reduction, StorageBox, StorageData, TensorBox, TensorId};
use crate::lowering::{BodyCx, Lowerer, Result};

impl Lowerer<'_> {
    /// Lowers a call of a reduction.
    pub(super) fn lower_reduction(
        &mut self,
        node: &Node,
        kind: ReductionKind,
        b: &Bound<'_>,
    ) -> Result<Vec<TensorId>> {
        let meta = node.meta().clone();
        let out = meta.dtype;
        use ReductionKind as K;
        let one = |t: TensorId| Ok(vec![t]);
        match kind {
            K::Sum | K::Prod | K::Amax | K::Amin => {
                let x = self.tensor(node, b, "self")?;
                let rank = self.g.tensors[x].sizes.len();
                let (dims, keepdim) =
                    reduction_dims(b, rank).map_err(|e| Self::graph_err(node, e))?;
                let rt = match kind {
                    K::Sum => ReductionType::Sum,
                    K::Prod => ReductionType::Prod,
                    K::Amax => ReductionType::Max,
                    _ => ReductionType::Min,
                };
                one(self.reduce(node, x, &dims, keepdim, rt, out))
            }
            K::Any | K::All => {
                // max (any) or min (all) of `x != 0` as 0/1 in i64, then compared with 0.
                let x = self.tensor(node, b, "self")?;
                let sizes = self.g.tensors[x].sizes.clone();
                let rank = sizes.len();
                let (dims, keepdim) =
                    coil_graph::any_all_dims(b, rank).map_err(|e| Self::graph_err(node, e))?;
                let mut cx = BodyCx::new(&sizes);
                let v = self.load_broadcast(&mut cx, x);
                let src = self.g.tensors[x].dtype;
                let zero = cx.body.constant(Const::Int(0), src);
                let nz = cx.body.binary(Op::Ne, v, zero);
                let root = cx.body.to_dtype(nz, DType::I64);
                let flags = self.finish_pointwise(node, cx, root, DType::I64);
                let rt = if kind == K::Any {
                    ReductionType::Max
                } else {
                    ReductionType::Min
                };
                let r = self.reduce(node, flags, &dims, keepdim, rt, DType::I64);
                let r_sizes = self.g.tensors[r].sizes.clone();
                let mut cx = BodyCx::new(&r_sizes);
                let v = self.load_broadcast(&mut cx, r);
                let zero = cx.body.constant(Const::Int(0), DType::I64);
                let root = cx.body.binary(Op::Ne, v, zero);
                one(self.finish_pointwise(node, cx, root, DType::Bool))
            }
            K::Argmax | K::Argmin => {
                let x = self.tensor(node, b, "self")?;
                let rank = self.g.tensors[x].sizes.len();
                let keepdim = b.bool("keepdim").map_err(|e| Self::graph_err(node, e))?;
                let dims = match b.opt_int("dim") {
                    Some(d) => vec![normalize_dim(d, rank).map_err(|e| Self::graph_err(node, e))?],
                    None => (0..rank).collect(),
                };
                let rt = if kind == K::Argmax {
                    ReductionType::Argmax
                } else {
                    ReductionType::Argmin
                };
                let r = self.reduce(
                    node,
                    x,
                    &dims,
                    keepdim && b.opt_int("dim").is_some(),
                    rt,
                    out,
                );
                if keepdim && b.opt_int("dim").is_none() {
                    // argmax(dim=None, keepdim=True) keeps every dim as 1.
                    let map = vec![];
                    return one(self.make_view(node, r, meta.sizes.clone(), map));
                }
                one(r)
            }
            K::Mean => {
                let x = self.tensor(node, b, "self")?;
                let rank = self.g.tensors[x].sizes.len();
                let (dims, keepdim) =
                    reduction_dims(b, rank).map_err(|e| Self::graph_err(node, e))?;
                one(self.mean(node, x, &dims, keepdim, out))
            }
            K::Var | K::VarMean => {
                let x = self.tensor(node, b, "self")?;
                let rank = self.g.tensors[x].sizes.len();
                let (dims, keepdim) =
                    reduction_dims(b, rank).map_err(|e| Self::graph_err(node, e))?;
                let correction = if b.has("correction") {
                    b.opt_scalar("correction").map_or(1.0, |s| s.to_f64())
                } else if b.bool("unbiased").map_err(|e| Self::graph_err(node, e))? {
                    1.0
                } else {
                    0.0
                };
                let (var, mean) = self.var_mean(node, x, &dims, keepdim, correction, out);
                if kind == K::Var {
                    one(var)
                } else {
                    Ok(vec![var, mean])
                }
            }
        }
    }

    /// A reduction of `x` over `dims` (realized at once), or a pointwise value when nothing is
    /// actually reduced (every reduced dim has size 1).
    pub(crate) fn reduce(
        &mut self,
        node: &Node,
        x: TensorId,
        dims: &[usize],
        keepdim: bool,
        rt: ReductionType,
        dtype: DType,
    ) -> TensorId {
        let in_sizes = self.g.tensors[x].sizes.clone();
        // A 0-d tensor's dim 0 (or -1) names the tensor itself: nothing to reduce over.
        let dims: Vec<usize> = dims
            .iter()
            .copied()
            .filter(|&d| d < in_sizes.len())
            .collect();
        let dims = dims.as_slice();
        let out_sizes: Vec<usize> = (0..in_sizes.len())
            .filter_map(|i| match (dims.contains(&i), keepdim) {
                (true, true) => Some(1),
                (true, false) => None,
                (false, _) => Some(in_sizes[i]),
            })
            .collect();
        let red_sizes: Vec<usize> = dims.iter().map(|&d| in_sizes[d]).collect();
        let k = out_sizes.len();
        // Positional variables: p0..p<k> over the output, p<k>.. over the reduced dims.
        let all: Vec<usize> = out_sizes.iter().chain(&red_sizes).copied().collect();
        let mut cx = BodyCx::new(&all);
        let mut out_pos = 0;
        let idx: Vec<IndexExpr> = (0..in_sizes.len())
            .map(|i| {
                if let Some(r) = dims.iter().position(|&d| d == i) {
                    if keepdim {
                        out_pos += 1;
                    }
                    cx.idx[k + r].clone()
                } else {
                    out_pos += 1;
                    cx.idx[out_pos - 1].clone()
                }
            })
            .collect();
        let value = self.load_at(&mut cx, x, &idx, None);
        if red_sizes.iter().product::<usize>() == 1 {
            // Nothing to combine: the value itself (argmax/argmin: position 0).
            let root = match rt {
                ReductionType::Argmax | ReductionType::Argmin => {
                    cx.body.constant(Const::Int(0), dtype)
                }
                _ => value,
            };
            let origins = self.gather_origins(node, &cx.reads);
            let root = cx.body.to_dtype(root, dtype);
            return self.new_lazy(out_sizes, dtype, cx.body, root, origins);
        }
        let red_numel: usize = red_sizes.iter().product();
        let unrollable = matches!(
            rt,
            ReductionType::Sum | ReductionType::Prod | ReductionType::Max | ReductionType::Min
        );
        if unrollable && red_numel > 1 && red_numel <= self.config.unroll_reductions_threshold {
            return self.unrolled_reduction(node, x, &idx, k, &out_sizes, &red_sizes, rt, dtype);
        }
        let root = cx.body.reduction(rt, value, dtype);
        self.realized_reduction(node, cx, root, out_sizes, red_sizes)
    }

    /// A realized reduction of `cx`'s body over `ranges` x `reduction_ranges`, whose root is
    /// the `Expr::Reduction` node `root` (its type and dtype are the buffer's).
    pub(crate) fn realized_reduction(
        &mut self,
        node: &Node,
        cx: BodyCx,
        root: crate::body::ExprId,
        ranges: Vec<usize>,
        reduction_ranges: Vec<usize>,
    ) -> TensorId {
        let dtype = cx.body.dtype(root);
        let rt = match cx.body.expr(root) {
            crate::body::Expr::Reduction { reduction_type, .. } => *reduction_type,
            _ => ReductionType::Sum,
        };
        let origins = self.gather_origins(node, &cx.reads);
        let s = self.g.storages.push(StorageBox {
            sizes: ranges.clone(),
            dtype,
            data: StorageData::Reduction(Reduction {
                scan_dim: None,
                ranges: ranges.clone(),
                reduction_ranges,
                reduction_type: rt,
                body: cx.body,
                root,
            }),
            origins,
        });
        self.realize(s);
        self.g.tensors.push(TensorBox {
            storage: s,
            view: None,
            sizes: ranges,
            dtype,
            view_origins: Vec::new(),
        })
    }

    /// A small reduction as a pointwise value over the output: each of the `red_sizes` taps
    /// loaded (the reduced positions `p<k>..` replaced by constants) and combined in order.
    #[allow(clippy::too_many_arguments)]
    fn unrolled_reduction(
        &mut self,
        node: &Node,
        x: TensorId,
        idx: &[IndexExpr],
        k: usize,
        out_sizes: &[usize],
        red_sizes: &[usize],
        rt: ReductionType,
        dtype: DType,
    ) -> TensorId {
        let mut cx = BodyCx::new(out_sizes);
        let mut tap = vec![0usize; red_sizes.len()];
        let mut acc = None;
        let op = match rt {
            ReductionType::Sum => Op::Add,
            ReductionType::Prod => Op::Mul,
            ReductionType::Max => Op::Maximum,
            _ => Op::Minimum,
        };
        let out_idx = cx.idx.clone();
        for _ in 0..red_sizes.iter().product::<usize>() {
            let at: Vec<IndexExpr> = idx
                .iter()
                .map(|e| {
                    e.subst(&mut |v| {
                        (v.prefix == coil_kernel::VarPrefix::P).then(|| {
                            let n = v.n as usize;
                            if n >= k {
                                IndexExpr::constant(tap[n - k] as i64)
                            } else {
                                out_idx[n].clone()
                            }
                        })
                    })
                    .simplify(&cx.ranges)
                })
                .collect();
            let v = self.load_at(&mut cx, x, &at, None);
            let v = cx.body.to_dtype(v, dtype);
            acc = Some(match acc {
                Some(a) => cx.body.binary(op, a, v),
                None => v,
            });
            for d in (0..tap.len()).rev() {
                tap[d] += 1;
                if tap[d] < red_sizes[d] {
                    break;
                }
                tap[d] = 0;
            }
        }
        let root = acc.expect("at least two taps");
        let origins = self.gather_origins(node, &cx.reads);
        self.new_lazy(out_sizes.to_vec(), dtype, cx.body, root, origins)
    }

    /// `mean`: a sum (in f32 for half types) realized, divided by the count in the reader.
    fn mean(
        &mut self,
        node: &Node,
        x: TensorId,
        dims: &[usize],
        keepdim: bool,
        dtype: DType,
    ) -> TensorId {
        let acc = dtype.opmath();
        let sizes = self.g.tensors[x].sizes.clone();
        let n: usize = dims.iter().map(|&d| sizes[d]).product();
        let s = self.reduce(node, x, dims, keepdim, ReductionType::Sum, acc);
        self.divide_by(node, s, n as f64, acc, dtype)
    }

    /// A pointwise `t / n`, computed in `acc` and cast to `dtype`.
    fn divide_by(
        &mut self,
        node: &Node,
        t: TensorId,
        n: f64,
        acc: DType,
        dtype: DType,
    ) -> TensorId {
        let sizes = self.g.tensors[t].sizes.clone();
        let mut cx = BodyCx::new(&sizes);
        let v = self.load_broadcast(&mut cx, t);
        let v = cx.body.to_dtype(v, acc);
        let k = cx.body.constant(Const::Float(n), acc);
        let root = cx.body.binary(Op::TrueDiv, v, k);
        self.finish_pointwise(node, cx, root, dtype)
    }

    /// `var`/`var_mean` in two passes: the mean, then the sum of squared deviations.
    fn var_mean(
        &mut self,
        node: &Node,
        x: TensorId,
        dims: &[usize],
        keepdim: bool,
        correction: f64,
        dtype: DType,
    ) -> (TensorId, TensorId) {
        let acc = dtype.opmath();
        let sizes = self.g.tensors[x].sizes.clone();
        let n: usize = dims.iter().map(|&d| sizes[d]).product();
        let s = self.reduce(node, x, dims, true, ReductionType::Sum, acc);
        let mean_k = self.divide_by(node, s, n as f64, acc, acc);
        // (x - mean)^2, mean broadcast over the reduced dims.
        let mut cx = BodyCx::new(&sizes);
        let xv = self.load_broadcast(&mut cx, x);
        let xv = cx.body.to_dtype(xv, acc);
        let mv = self.load_broadcast(&mut cx, mean_k);
        let d = cx.body.binary(Op::Sub, xv, mv);
        let sq = cx.body.binary(Op::Mul, d, d);
        let sq = self.finish_pointwise(node, cx, sq, acc);
        let ss = self.reduce(node, sq, dims, keepdim, ReductionType::Sum, acc);
        let denom = (n as f64 - correction).max(0.0);
        let var = self.divide_by(node, ss, denom, acc, dtype);
        let mean = if keepdim {
            mean_k
        } else {
            let out: Vec<usize> = (0..sizes.len())
                .filter(|i| !dims.contains(i))
                .map(|i| sizes[i])
                .collect();
            let mut k = 0;
            let map = (0..sizes.len())
                .map(|i| {
                    if dims.contains(&i) {
                        IndexExpr::zero()
                    } else {
                        k += 1;
                        IndexExpr::var(Var::p(k - 1))
                    }
                })
                .collect();
            self.make_view(node, mean_k, out, map)
        };
        let mean = if dtype == acc {
            mean
        } else {
            let m_sizes = self.g.tensors[mean].sizes.clone();
            let mut cx = BodyCx::new(&m_sizes);
            let v = self.load_broadcast(&mut cx, mean);
            self.finish_pointwise(node, cx, v, dtype)
        };
        (var, mean)
    }
}
