//! Meta inference of library matmuls: `mm`, `bmm`, `addmm` (shapes and dtypes must agree).

use super::{Cx, dtype_err, shape_err};
use crate::meta::broadcast_shapes;
use crate::{Dims, GraphError, LibraryKind, TensorMeta};

/// The outputs of a call of `kind`, an op of this family.
pub(super) fn infer(cx: &Cx<'_>, kind: LibraryKind) -> Result<Vec<TensorMeta>, GraphError> {
    let schema = cx.schema;
    let one = |m: TensorMeta| Ok(vec![m]);
    use LibraryKind::*;
    match kind {
        Convolution => super::window::convolution(cx),
        ConvolutionBackward => super::window::convolution_backward(cx),
        Mm | Bmm | Addmm => {
            let (a, w) = match kind {
                Addmm => (cx.meta("mat1")?, cx.meta("mat2")?),
                _ => (cx.meta("self")?, cx.meta("mat2")?),
            };
            let rank = if kind == Bmm { 3 } else { 2 };
            if a.rank() != rank || w.rank() != rank {
                return shape_err(format!(
                    "{} expects {rank}-D tensors, got {} and {}",
                    schema.name,
                    Dims(&a.sizes),
                    Dims(&w.sizes)
                ));
            }
            if a.dtype != w.dtype {
                return dtype_err(format!(
                    "expected m1 and m2 to have the same dtype, but got: {} != {}",
                    a.dtype, w.dtype
                ));
            }
            let (r, c) = (rank - 2, rank - 1);
            if a.sizes[c] != w.sizes[r] || (rank == 3 && a.sizes[0] != w.sizes[0]) {
                return shape_err(format!(
                    "mat1 and mat2 shapes cannot be multiplied ({} and {})",
                    Dims(&a.sizes),
                    Dims(&w.sizes)
                ));
            }
            let mut sizes = a.sizes.clone();
            sizes[c] = w.sizes[c];
            if kind == Addmm {
                let bias = cx.meta("self")?;
                if bias.dtype != a.dtype {
                    return dtype_err(format!(
                        "addmm: bias has dtype {}, matrices {}",
                        bias.dtype, a.dtype
                    ));
                }
                if broadcast_shapes(&bias.sizes, &sizes)? != sizes {
                    return shape_err(format!(
                        "addmm: bias of shape {} cannot broadcast to {}",
                        Dims(&bias.sizes),
                        Dims(&sizes)
                    ));
                }
            }
            one(TensorMeta::contiguous(a.dtype, sizes))
        }
    }
}
