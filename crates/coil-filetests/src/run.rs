//! Running a file test on a backend: its buffers filled the same way everywhere, its kernels
//! compiled together and launched in order (or its one extern call made), its written
//! buffers read back.

use coil_kernel::{ArgRole, Backend, BufferHandle, DType, ExternCall, MatmulOp, StridedOperand};

use crate::data::Rng;
use crate::{Buffer, Failure, FileTest, Fill};

/// What a run gives: every buffer a kernel writes, in order of first use, and the generated
/// code.
#[derive(Clone, Debug)]
pub struct Outputs {
    /// `(name, contents)` of each written buffer.
    pub buffers: Vec<(String, Buffer)>,
    /// The compiled source (LLVM IR, PTX, C), empty for an extern call.
    pub source: String,
}

fn default_fill(dtype: DType) -> Fill {
    match dtype {
        DType::Bool => Fill::Floats(-1.0, 1.0),
        d if d.is_float() => Fill::Floats(-2.0, 2.0),
        _ => Fill::Ints(0, 5),
    }
}

struct Slot {
    buffer: Buffer,
    written: bool,
}

fn err(e: impl std::fmt::Display) -> Failure {
    Failure(e.to_string())
}

/// Runs `test` on `backend`.
pub fn run(test: &FileTest, backend: &dyn Backend) -> Result<Outputs, Failure> {
    let mut rng = Rng::new(&test.name);
    if let Some(spec) = &test.extern_spec {
        return run_extern(test, spec, backend, &mut rng);
    }
    // Buffers are shared by name across the file's kernels.
    let mut slots: Vec<Slot> = Vec::new();
    for (ki, k) in test.kernels.iter().enumerate() {
        for (ai, a) in k.args.iter().enumerate() {
            if let Some(s) = slots.iter_mut().find(|s| s.buffer.name == a.name) {
                s.written |= a.role != ArgRole::Input;
                continue;
            }
            let label = format!("arg{ai}");
            let names: Vec<&str> = if ki == 0 {
                vec![a.name.as_str(), label.as_str()]
            } else {
                vec![a.name.as_str()]
            };
            let fill = match (test.fill_of(&names), a.role) {
                (Some(f), _) => f,
                (None, ArgRole::Input) => default_fill(a.dtype),
                (None, _) => Fill::Zeros,
            };
            slots.push(Slot {
                buffer: Buffer::filled(&a.name, a.dtype, a.len, fill, &mut rng),
                written: a.role != ArgRole::Input,
            });
        }
    }
    let handles = slots
        .iter()
        .map(|s| upload(backend, &s.buffer))
        .collect::<Result<Vec<_>, _>>()?;
    let result = (|| {
        let compiled = backend.compile(&test.kernels).map_err(err)?;
        for (i, k) in test.kernels.iter().enumerate() {
            let args: Vec<BufferHandle> = k
                .args
                .iter()
                .filter_map(|a| {
                    slots
                        .iter()
                        .position(|s| s.buffer.name == a.name)
                        .map(|p| handles[p])
                })
                .collect();
            compiled.launch(i, &args).map_err(err)?;
        }
        backend.synchronize().map_err(err)?;
        let mut buffers = Vec::new();
        for (s, h) in slots.iter().zip(&handles) {
            if s.written {
                buffers.push((s.buffer.name.clone(), download(backend, *h, &s.buffer)?));
            }
        }
        Ok(Outputs {
            buffers,
            source: compiled.source(),
        })
    })();
    for h in handles {
        backend.free(h);
    }
    result
}

fn upload(backend: &dyn Backend, b: &Buffer) -> Result<BufferHandle, Failure> {
    let h = backend.alloc(b.bytes.len().max(1)).map_err(err)?;
    backend.write(h, &b.bytes).map_err(err)?;
    Ok(h)
}

fn download(backend: &dyn Backend, h: BufferHandle, like: &Buffer) -> Result<Buffer, Failure> {
    let mut bytes = vec![0u8; like.bytes.len()];
    backend.read(h, &mut bytes).map_err(err)?;
    Ok(Buffer {
        name: like.name.clone(),
        dtype: like.dtype,
        bytes,
    })
}

fn row_major(sizes: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; sizes.len()];
    for i in (0..sizes.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * sizes[i + 1];
    }
    strides
}

fn run_extern(
    test: &FileTest,
    spec: &crate::ExternSpec,
    backend: &dyn Backend,
    rng: &mut Rng,
) -> Result<Outputs, Failure> {
    let (batch, m, k, n, d) = (spec.batch, spec.m, spec.k, spec.n, spec.dtype);
    let lead = |dims: &[usize]| -> Vec<usize> {
        if spec.op == MatmulOp::Bmm {
            std::iter::once(batch).chain(dims.iter().copied()).collect()
        } else {
            dims.to_vec()
        }
    };
    let fill = |name: &str| test.fill_of(&[name]).unwrap_or(default_fill(d));
    // (buffer, operand sizes, strides); the right operand may be a transposed view.
    let mut operands: Vec<(Buffer, Vec<usize>, Vec<usize>)> = Vec::new();
    if spec.op == MatmulOp::Addmm {
        let bias = Buffer::filled("bias", d, n, fill("bias"), rng);
        operands.push((bias, vec![m, n], vec![0, 1]));
    }
    let a_sizes = lead(&[m, k]);
    let a = Buffer::filled("a", d, a_sizes.iter().product(), fill("a"), rng);
    operands.push((a, a_sizes.clone(), row_major(&a_sizes)));
    let b_sizes = lead(&[k, n]);
    let b = Buffer::filled("b", d, b_sizes.iter().product(), fill("b"), rng);
    let mut b_strides = row_major(&b_sizes);
    if spec.transposed_b {
        let r = b_strides.len();
        b_strides[r - 2] = 1;
        b_strides[r - 1] = k;
    }
    operands.push((b, b_sizes, b_strides));
    let out_sizes = lead(&[m, n]);
    for (i, p) in spec.post.iter().enumerate() {
        if p.takes_operand() {
            let name = format!("post{i}");
            let t = Buffer::filled(&name, d, out_sizes.iter().product(), fill(&name), rng);
            operands.push((t, out_sizes.clone(), row_major(&out_sizes)));
        }
    }
    let out = Buffer::filled("out", d, out_sizes.iter().product(), Fill::Zeros, rng);
    let mut handles = Vec::new();
    let result = (|| {
        let mut inputs = Vec::new();
        for (buf, sizes, strides) in &operands {
            let h = upload(backend, buf)?;
            handles.push(h);
            inputs.push(StridedOperand {
                buffer: h,
                dtype: d,
                sizes: sizes.clone(),
                strides: strides.clone(),
                offset: 0,
            });
        }
        let out_h = upload(backend, &out)?;
        handles.push(out_h);
        let call = ExternCall {
            kind: spec.kind(),
            inputs,
            out: StridedOperand {
                buffer: out_h,
                dtype: d,
                sizes: out_sizes.clone(),
                strides: row_major(&out_sizes),
                offset: 0,
            },
        };
        backend.extern_call(&call).map_err(err)?;
        backend.synchronize().map_err(err)?;
        Ok(Outputs {
            buffers: vec![("out".into(), download(backend, out_h, &out)?)],
            source: String::new(),
        })
    })();
    for h in handles {
        backend.free(h);
    }
    result
}
