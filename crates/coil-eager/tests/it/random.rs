//! Random pointwise, broadcast and reduction graphs: eager (f32) against a plain f64 model.

use coil_graph::{Arg, DType, GraphBuilder, NodeId};
use proptest::prelude::*;

use crate::*;

/// A dense f64 tensor: the reference model.
#[derive(Clone, Debug)]
struct Ref {
    sizes: Vec<usize>,
    data: Vec<f64>,
}

impl Ref {
    fn strides(&self) -> Vec<usize> {
        let mut st = vec![1; self.sizes.len()];
        for d in (0..self.sizes.len().saturating_sub(1)).rev() {
            st[d] = st[d + 1] * self.sizes[d + 1];
        }
        st
    }

    /// The element at `idx` of a space of `out` dims that `self` broadcasts to.
    fn at_broadcast(&self, idx: &[usize]) -> f64 {
        let lead = idx.len() - self.sizes.len();
        let st = self.strides();
        let pos: usize = (0..self.sizes.len())
            .map(|d| {
                if self.sizes[d] == 1 {
                    0
                } else {
                    idx[lead + d] * st[d]
                }
            })
            .sum();
        self.data[pos]
    }

    fn map(&self, f: impl Fn(f64) -> f64) -> Ref {
        Ref {
            sizes: self.sizes.clone(),
            data: self.data.iter().map(|&x| f(x)).collect(),
        }
    }

    fn zip(&self, other: &Ref, f: impl Fn(f64, f64) -> f64) -> Ref {
        let rank = self.sizes.len().max(other.sizes.len());
        let pad = |s: &[usize]| {
            let mut v = vec![1; rank - s.len()];
            v.extend_from_slice(s);
            v
        };
        let (a, b) = (pad(&self.sizes), pad(&other.sizes));
        let sizes: Vec<usize> = a.iter().zip(&b).map(|(x, y)| *x.max(y)).collect();
        let data = indices(&sizes)
            .map(|idx| f(self.at_broadcast(&idx), other.at_broadcast(&idx)))
            .collect();
        Ref { sizes, data }
    }

    fn reduce(&self, dims: &[usize], keepdim: bool, f: impl Fn(&[f64]) -> f64) -> Ref {
        let kept: Vec<usize> = (0..self.sizes.len())
            .map(|d| if dims.contains(&d) { 1 } else { self.sizes[d] })
            .collect();
        let mut lanes: Vec<Vec<f64>> = vec![vec![]; kept.iter().product()];
        let kst = Ref {
            sizes: kept.clone(),
            data: vec![],
        }
        .strides();
        for (i, idx) in indices(&self.sizes).enumerate() {
            let pos: usize = (0..idx.len())
                .map(|d| {
                    if dims.contains(&d) {
                        0
                    } else {
                        idx[d] * kst[d]
                    }
                })
                .sum();
            lanes[pos].push(self.data[i]);
        }
        let sizes = if keepdim {
            kept
        } else {
            (0..self.sizes.len())
                .filter(|d| !dims.contains(d))
                .map(|d| self.sizes[d])
                .collect()
        };
        Ref {
            sizes,
            data: lanes.iter().map(|l| f(l)).collect(),
        }
    }
}

/// Row-major multi-indices of a space.
fn indices(sizes: &[usize]) -> impl Iterator<Item = Vec<usize>> + '_ {
    let numel: usize = sizes.iter().product();
    (0..numel).map(move |mut flat| {
        let mut idx = vec![0; sizes.len()];
        for d in (0..sizes.len()).rev() {
            idx[d] = flat % sizes[d];
            flat /= sizes[d];
        }
        idx
    })
}

const UNARY: [&str; 6] = ["neg", "relu", "abs", "tanh", "sigmoid", "sin"];
const BINARY: [&str; 5] = ["add", "sub", "mul", "maximum", "minimum"];
const REDUCE: [&str; 4] = ["sum", "mean", "amax", "amin"];

#[derive(Clone, Debug)]
enum Step {
    Unary {
        op: usize,
        x: usize,
    },
    Binary {
        op: usize,
        x: usize,
        y: usize,
    },
    Scalar {
        mul: bool,
        x: usize,
        s: f64,
    },
    /// keepdim reductions keep every value broadcastable to the base shape.
    Reduce {
        op: usize,
        x: usize,
        dims: Vec<bool>,
        negative: bool,
    },
}

#[derive(Clone, Debug)]
struct Program {
    base: Vec<usize>,
    /// Per input: drop the leading dim?, and which dims are kept (others are 1).
    inputs: Vec<(bool, Vec<bool>)>,
    steps: Vec<Step>,
    /// A final reduction without keepdim over these dims of the last value (if any set).
    last: Vec<bool>,
    seed: u64,
}

fn program() -> impl Strategy<Value = Program> {
    (1usize..=3).prop_flat_map(|rank| {
        let dims = prop::collection::vec(1usize..=5, rank);
        let mask = prop::collection::vec(any::<bool>(), rank);
        let input = (any::<bool>(), mask.clone());
        let step =
            prop_oneof![
                (0..UNARY.len(), any::<usize>()).prop_map(|(op, x)| Step::Unary { op, x }),
                (0..BINARY.len(), any::<usize>(), any::<usize>())
                    .prop_map(|(op, x, y)| Step::Binary { op, x, y }),
                (any::<bool>(), any::<usize>(), -3i32..=3).prop_map(|(mul, x, s)| Step::Scalar {
                    mul,
                    x,
                    s: f64::from(s) * 0.5
                }),
                (0..REDUCE.len(), any::<usize>(), mask.clone(), any::<bool>()).prop_map(
                    |(op, x, dims, negative)| Step::Reduce {
                        op,
                        x,
                        dims,
                        negative
                    }
                ),
            ];
        (
            dims,
            prop::collection::vec(input, 1..=3),
            prop::collection::vec(step, 1..=6),
            mask,
            any::<u64>(),
        )
            .prop_map(|(base, inputs, steps, last, seed)| Program {
                base,
                inputs,
                steps,
                last,
                seed,
            })
    })
}

/// Builds the graph and the reference values side by side; returns the max tolerance-scaled
/// error of the outputs.
fn check_program(p: &Program) -> Result<(), TestCaseError> {
    let mut b = GraphBuilder::new();
    let mut values: Vec<(NodeId, Ref)> = vec![];
    let mut inputs = vec![];
    for (k, (drop_lead, keep)) in p.inputs.iter().enumerate() {
        let mut sizes: Vec<usize> = p
            .base
            .iter()
            .zip(keep)
            .map(|(&s, &k)| if k { s } else { 1 })
            .collect();
        if *drop_lead && sizes.len() > 1 {
            sizes.remove(0);
        }
        let numel: usize = sizes.iter().product();
        let data: Vec<f64> = (0..numel)
            .map(|i| {
                let h = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ p.seed ^ k as u64;
                ((h >> 40) % 41) as f64 / 10.0 - 2.0
            })
            .collect();
        let id = b.input(&format!("x{k}"), DType::F32, &sizes);
        inputs.push(f32s(
            &data.iter().map(|&v| v as f32).collect::<Vec<_>>(),
            &sizes,
        ));
        values.push((id, Ref { sizes, data }));
    }
    let mut magnitude = 2.0f64;
    let pick = |values: &Vec<(NodeId, Ref)>, i: usize| values[i % values.len()].clone();
    for step in &p.steps {
        let (id, r) = match step {
            Step::Unary { op, x } => {
                let (xi, xr) = pick(&values, *x);
                let f: fn(f64) -> f64 = match UNARY[*op] {
                    "neg" => |v| -v,
                    "relu" => |v| v.max(0.0),
                    "abs" => f64::abs,
                    "tanh" => f64::tanh,
                    "sigmoid" => |v| 1.0 / (1.0 + (-v).exp()),
                    _ => f64::sin,
                };
                let id = b
                    .call(&format!("{}.default", UNARY[*op]), vec![n(xi)])
                    .unwrap();
                (id, xr.map(f))
            }
            Step::Binary { op, x, y } => {
                let ((xi, xr), (yi, yr)) = (pick(&values, *x), pick(&values, *y));
                let (name, f): (&str, fn(f64, f64) -> f64) = match BINARY[*op] {
                    "add" => ("add.Tensor", |a, b| a + b),
                    "sub" => ("sub.Tensor", |a, b| a - b),
                    "mul" => ("mul.Tensor", |a, b| a * b),
                    "maximum" => ("maximum.default", f64::max),
                    _ => ("minimum.default", f64::min),
                };
                let id = b.call(name, vec![n(xi), n(yi)]).unwrap();
                (id, xr.zip(&yr, f))
            }
            Step::Scalar { mul, x, s } => {
                let (xi, xr) = pick(&values, *x);
                let s = *s;
                let name = if *mul { "mul.Tensor" } else { "add.Tensor" };
                let id = b.call(name, vec![n(xi), Arg::Float(s)]).unwrap();
                (
                    id,
                    if *mul {
                        xr.map(|v| v * (s as f32 as f64))
                    } else {
                        xr.map(|v| v + s)
                    },
                )
            }
            Step::Reduce {
                op,
                x,
                dims,
                negative,
            } => {
                let (xi, xr) = pick(&values, *x);
                let (id, r) = reduce(&mut b, xi, &xr, REDUCE[*op], dims, *negative, true);
                (id, r)
            }
        };
        magnitude = r.data.iter().fold(magnitude, |m, v| m.max(v.abs()));
        values.push((id, r));
    }
    let (mut out, mut want) = values.last().cloned().unwrap();
    if p.last.iter().any(|&d| d) {
        (out, want) = reduce(&mut b, out, &want, "sum", &p.last, false, false);
        magnitude = want.data.iter().fold(magnitude, |m, v| m.max(v.abs()));
    }
    let g = b.finish(&[out]).unwrap();
    let run = coil_eager::run(&g, &inputs).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let got = &run.outputs[0];
    prop_assert_eq!(got.sizes(), &want.sizes[..]);
    let tol = 1e-4 * (1.0 + magnitude);
    for (i, (a, w)) in got.to_f64_vec().iter().zip(&want.data).enumerate() {
        prop_assert!(
            (a - w).abs() <= tol,
            "element {}: eager {} vs reference {}",
            i,
            a,
            w
        );
    }
    Ok(())
}

/// Adds a reduction over the dims of `xr` set in `mask` (all dims of the value, aligned to the
/// right of the mask) to the graph and the reference.
fn reduce(
    b: &mut GraphBuilder,
    x: NodeId,
    xr: &Ref,
    op: &str,
    mask: &[bool],
    negative: bool,
    keepdim: bool,
) -> (NodeId, Ref) {
    let rank = xr.sizes.len();
    let mask = &mask[mask.len() - rank.min(mask.len())..];
    let dims: Vec<usize> = (0..rank)
        .filter(|&d| mask.get(d).copied().unwrap_or(false))
        .collect();
    let dims = if dims.is_empty() && rank > 0 {
        vec![rank - 1]
    } else {
        dims
    };
    let given: Vec<i64> = dims
        .iter()
        .map(|&d| {
            if negative {
                d as i64 - rank as i64
            } else {
                d as i64
            }
        })
        .collect();
    let (name, f): (&str, fn(&[f64]) -> f64) = match op {
        "sum" => ("sum.dim_IntList", |l| l.iter().sum()),
        "mean" => ("mean.dim", |l| l.iter().sum::<f64>() / l.len() as f64),
        "amax" => ("amax.default", |l| {
            l.iter().copied().fold(f64::NEG_INFINITY, f64::max)
        }),
        _ => ("amin.default", |l| {
            l.iter().copied().fold(f64::INFINITY, f64::min)
        }),
    };
    let id = b
        .call(name, vec![n(x), ints(&given), Arg::Bool(keepdim)])
        .unwrap();
    (id, xr.reduce(&dims, keepdim, f))
}

proptest! {
    #[test]
    fn random_graphs_match_an_f64_model(p in program()) {
        check_program(&p)?;
    }
}
