//! A `.kir` file: its directives, its kernels (read with coil-kernel's reader) or its extern
//! call, and its blessed expectations.

use coil_kernel::{DType, ExternKind, Kernel, MatmulOp, PostOp, parse_kernels};

use crate::Failure;

/// How an input buffer is filled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fill {
    /// Uniform floats in `[lo, hi)` (rounded to the dtype).
    Floats(f64, f64),
    /// Uniform integers in `[lo, hi)`.
    Ints(i64, i64),
    /// Zeros.
    Zeros,
    /// Special values in turn: 0, -0, 1, -1, inf, -inf, nan, the smallest normal, a
    /// subnormal, the largest finite, then random floats.
    Specials,
}

/// One extern call (`# extern:`).
#[derive(Clone, Debug, PartialEq)]
pub struct ExternSpec {
    /// `mm`, `bmm` or `addmm`.
    pub op: MatmulOp,
    /// The batch (bmm only; 1 otherwise).
    pub batch: usize,
    /// Rows of the left operand.
    pub m: usize,
    /// The contracted size.
    pub k: usize,
    /// Columns of the right operand.
    pub n: usize,
    /// Every operand's dtype.
    pub dtype: DType,
    /// Post-ops applied inside the call.
    pub post: Vec<PostOp>,
    /// The right operand is a transposed view (`[n, k]` storage).
    pub transposed_b: bool,
}

impl ExternSpec {
    /// The extern kind it calls.
    pub fn kind(&self) -> ExternKind {
        if self.post.is_empty() {
            ExternKind::Matmul(self.op)
        } else {
            ExternKind::FusedMatmul(self.op, self.post.clone())
        }
    }
}

/// A parsed `.kir` file.
#[derive(Clone, Debug)]
pub struct FileTest {
    /// The file's name without `.kir` (seeds its inputs).
    pub name: String,
    /// Its kernels, run in order on buffers shared by argument name.
    pub kernels: Vec<Kernel>,
    /// Or its one extern call.
    pub extern_spec: Option<ExternSpec>,
    /// Fills by argument name (`arg1` of the first kernel, or the buffer's own name).
    pub inputs: Vec<(String, Fill)>,
    /// Whether the offline PTX is kept as a golden.
    pub golden_ptx: bool,
    /// The blessed `# expect` lines, without `# expect `.
    pub expect: Vec<String>,
    /// The file without its `# expect` lines.
    pub body: String,
}

fn fail<T>(name: &str, line: usize, msg: impl std::fmt::Display) -> Result<T, Failure> {
    Err(Failure(format!("{name}.kir:{line}: {msg}")))
}

fn number<T: std::str::FromStr>(name: &str, line: usize, s: &str) -> Result<T, Failure> {
    s.parse()
        .or_else(|_| fail(name, line, format!("'{s}' is not a number")))
}

impl FileTest {
    /// Reads a file's text.
    pub fn parse(name: &str, text: &str) -> Result<FileTest, Failure> {
        let mut test = FileTest {
            name: name.to_string(),
            kernels: Vec::new(),
            extern_spec: None,
            inputs: Vec::new(),
            golden_ptx: false,
            expect: Vec::new(),
            body: String::new(),
        };
        for (i, line) in text.lines().enumerate() {
            let no = i + 1;
            let t = line.trim();
            if let Some(e) = t.strip_prefix("# expect ") {
                test.expect.push(e.to_string());
                continue;
            }
            test.body.push_str(line);
            test.body.push('\n');
            if let Some(d) = t.strip_prefix("# input ") {
                let (arg, fill) = d
                    .split_once(':')
                    .map_or_else(|| fail(name, no, "expected '# input argN: FILL'"), Ok)?;
                test.inputs
                    .push((arg.trim().to_string(), parse_fill(name, no, fill.trim())?));
            } else if let Some(d) = t.strip_prefix("# extern:") {
                test.extern_spec = Some(parse_extern(name, no, d.trim())?);
            } else if t == "# golden: ptx" {
                test.golden_ptx = true;
            }
        }
        if test.extern_spec.is_none() {
            test.kernels =
                parse_kernels(&test.body).map_err(|e| Failure(format!("{name}.kir: {e}")))?;
            if test.kernels.is_empty() {
                return fail(name, 1, "no kernel and no '# extern:'");
            }
        }
        Ok(test)
    }

    /// How the buffer named `name` (or `argN` of the first kernel) is filled.
    pub fn fill_of(&self, names: &[&str]) -> Option<Fill> {
        self.inputs
            .iter()
            .find(|(n, _)| names.contains(&n.as_str()))
            .map(|(_, f)| *f)
    }
}

fn parse_fill(name: &str, line: usize, s: &str) -> Result<Fill, Failure> {
    let words: Vec<&str> = s.split_whitespace().collect();
    Ok(match words.as_slice() {
        ["floats", lo, hi] => Fill::Floats(number(name, line, lo)?, number(name, line, hi)?),
        ["ints", lo, hi] => Fill::Ints(number(name, line, lo)?, number(name, line, hi)?),
        ["zeros"] => Fill::Zeros,
        ["specials"] => Fill::Specials,
        _ => return fail(name, line, format!("unknown fill '{s}'")),
    })
}

fn parse_post(name: &str, line: usize, s: &str) -> Result<PostOp, Failure> {
    Ok(match s {
        "relu" => PostOp::Relu,
        "gelu" => PostOp::Gelu,
        "gelu_tanh" => PostOp::GeluTanh,
        "sigmoid" => PostOp::Sigmoid,
        "tanh" => PostOp::Tanh,
        "silu" => PostOp::Silu,
        "add" => PostOp::Add,
        "mul" => PostOp::Mul,
        _ => match s.strip_prefix("linear(").and_then(|r| r.strip_suffix(')')) {
            Some(ab) => {
                let (a, b) = ab
                    .split_once(';')
                    .map_or_else(|| fail(name, line, "linear(ALPHA;BETA)"), Ok)?;
                PostOp::linear(number(name, line, a)?, number(name, line, b)?)
            }
            None => return fail(name, line, format!("unknown post-op '{s}'")),
        },
    })
}

fn parse_extern(name: &str, line: usize, s: &str) -> Result<ExternSpec, Failure> {
    let mut words = s.split_whitespace();
    let op = match words.next() {
        Some("mm") => MatmulOp::Mm,
        Some("bmm") => MatmulOp::Bmm,
        Some("addmm") => MatmulOp::Addmm,
        other => return fail(name, line, format!("unknown extern {other:?}")),
    };
    let mut spec = ExternSpec {
        op,
        batch: 1,
        m: 1,
        k: 1,
        n: 1,
        dtype: DType::F32,
        post: Vec::new(),
        transposed_b: false,
    };
    for w in words {
        match w.split_once('=') {
            Some(("m", v)) => spec.m = number(name, line, v)?,
            Some(("k", v)) => spec.k = number(name, line, v)?,
            Some(("n", v)) => spec.n = number(name, line, v)?,
            Some(("batch", v)) => spec.batch = number(name, line, v)?,
            Some(("dtype", v)) => {
                spec.dtype = DType::from_short_name(v)
                    .map_or_else(|| fail(name, line, format!("unknown dtype '{v}'")), Ok)?
            }
            Some(("post", v)) => {
                for p in v.split(',') {
                    spec.post.push(parse_post(name, line, p)?);
                }
            }
            None if w == "bt" => spec.transposed_b = true,
            _ => return fail(name, line, format!("unknown extern field '{w}'")),
        }
    }
    if spec.op != MatmulOp::Bmm && spec.batch != 1 {
        return fail(name, line, "batch= is for bmm");
    }
    Ok(spec)
}
