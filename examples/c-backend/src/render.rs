//! The kernel IR as C: one function `int coil_kernel_<i>(void **args)` per kernel, returning 0
//! or an error status. Every value is a C variable: floats of any width are `double`, rounded
//! to their dtype after each operation (as the reference evaluator does), integers `int64_t`
//! (wrapped to 32 bits for i32), bools `int`. Loops follow the IR: the outer ranges, then per
//! stage either straight code or a loop nest over the reduction ranges with accumulators.

use std::fmt::Write;

use coil_kernel::{
    AccId, ArgId, BackendError, Const, DType, IndexExpr, KExpr, Kernel, Op, ReductionType,
    StageKind, StoreMode, Term, ValueId,
};

/// A compiled kernel's entry point.
pub(crate) type Entry = unsafe extern "C" fn(*const *mut u8) -> i32;

/// The symbol of kernel `i`.
pub(crate) fn entry_name(i: usize) -> String {
    format!("coil_kernel_{i}")
}

/// Helpers every kernel file starts with: rounding, conversions, Python's integer division.
const PRELUDE: &str = r#"#include <math.h>
#include <stdint.h>
#include <string.h>

static inline double r_f32(double x) { return (double)(float)x; }
/* An indirect index: wrapped if asked, checked against size (a bad one is recorded in the
   check's two flag slots and reads index 0). */
static inline int64_t x_ind(int64_t x, int64_t size, int wrap, int64_t *flags, int64_t check) {
    int64_t w = (wrap && x < 0) ? x + size : x;
    if (w < 0 || w >= size) { flags[2 * check] = 1; flags[2 * check + 1] = x; return 0; }
    return w;
}
static inline float h2f(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff, x;
    if (exp == 0) {
        if (mant == 0) { x = sign; }
        else { int e = -1; do { e++; mant <<= 1; } while (!(mant & 0x400));
               x = sign | ((uint32_t)(127 - 15 - e) << 23) | ((mant & 0x3ff) << 13); }
    } else if (exp == 31) { x = sign | 0x7f800000u | (mant << 13); }
    else { x = sign | ((exp + 127 - 15) << 23) | (mant << 13); }
    float f; memcpy(&f, &x, 4); return f;
}
static inline uint16_t f2h(float f) {
    uint32_t x; memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, mant = x & 0x7fffff; int32_t exp = (x >> 23) & 0xff;
    if (exp == 255) return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 | (mant >> 13) : 0));
    int32_t e = exp - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7c00);
    if (e <= 0) {
        if (e < -10) return (uint16_t)sign;
        mant |= 0x800000; uint32_t shift = (uint32_t)(14 - e), half = mant >> shift;
        uint32_t rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1))) half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = ((uint32_t)e << 10) | (mant >> 13), rem = mant & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) half++;
    return (uint16_t)(sign | half);
}
static inline float b2f(uint16_t b) { uint32_t x = (uint32_t)b << 16; float f; memcpy(&f, &x, 4); return f; }
static inline uint16_t f2b(float f) {
    uint32_t x; memcpy(&x, &f, 4);
    if ((x & 0x7fffffff) > 0x7f800000) return (uint16_t)((x >> 16) | 0x40);
    return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}
static inline double r_f16(double x) { return (double)h2f(f2h((float)x)); }
static inline double r_bf16(double x) { return (double)b2f(f2b((float)x)); }
static inline int64_t w_i32(int64_t x) { return (int64_t)(int32_t)(uint32_t)(uint64_t)x; }
static inline int64_t w_i16(int64_t x) { return (int64_t)(int16_t)(uint16_t)(uint64_t)x; }
static inline int64_t w_i8(int64_t x) { return (int64_t)(int8_t)(uint8_t)(uint64_t)x; }
static inline int64_t w_u8(int64_t x) { return (int64_t)(uint8_t)(uint64_t)x; }
/* Bitcasts: a value's storage bits, and bits read as a value. */
static inline uint64_t bits_f32(double x) { float f = (float)x; uint32_t u; memcpy(&u, &f, 4); return u; }
static inline uint64_t bits_f64(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }
static inline double f32_bits(uint64_t b) { uint32_t u = (uint32_t)b; float f; memcpy(&f, &u, 4); return (double)f; }
static inline double f64_bits(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }
static inline int64_t f2i(double x) {
    if (x != x) return 0;
    if (x >= 9223372036854775807.0) return INT64_MAX;
    if (x <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)x;
}
static inline int64_t i_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline int64_t i_sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static inline int64_t i_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
/* PyTorch's lshift/rshift in a width of `bits`. */
static inline int64_t i_shl(int64_t a, int64_t b, int64_t bits) { return (b < 0 || b >= bits) ? 0 : (int64_t)((uint64_t)a << b); }
static inline int64_t i_shr(int64_t a, int64_t b, int64_t bits) { return a >> ((b < 0 || b >= bits) ? bits - 1 : b); }
static inline int64_t i_shru(int64_t a, int64_t b, int64_t bits) { return (b < 0 || b >= bits) ? 0 : a >> b; }
static inline int64_t i_neg(int64_t a) { return (int64_t)(0 - (uint64_t)a); }
static inline int64_t i_tdiv(int64_t a, int64_t b, int *st) {
    if (b == 0) { *st = 1; return 0; }
    if (a == INT64_MIN && b == -1) return INT64_MIN;
    return a / b;
}
static inline int64_t i_fdiv(int64_t a, int64_t b, int *st) {
    int64_t q = i_tdiv(a, b, st);
    if (b != 0 && !(a == INT64_MIN && b == -1) && a % b != 0 && ((a < 0) != (b < 0))) q -= 1;
    return q;
}
static inline int64_t i_pow(int64_t a, int64_t b, int *st) {
    (void)st;
    /* PyTorch's integer pow to a negative power: 1 of 1, +-1 of -1, else 0. */
    if (b < 0) return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
    uint64_t r = 1, x = (uint64_t)a;
    while (b > 0) { if (b & 1) r *= x; x *= x; b >>= 1; }
    return (int64_t)r;
}
static inline double f_max(double a, double b) { return (a != a || b != b) ? NAN : (a > b ? a : b); }
static inline double f_logaddexp(double a, double b) { double m = f_max(a, b); return (m == -INFINITY) ? m : m + log1p(exp(-fabs(a - b))); }
static inline double f_min(double a, double b) { return (a != a || b != b) ? NAN : (a < b ? a : b); }
/* Index arithmetic: Python's floor division and modulo by a positive constant. */
static inline int64_t x_div(int64_t a, int64_t d) { int64_t q = a / d; return (a % d != 0 && a < 0) ? q - 1 : q; }
static inline int64_t x_mod(int64_t a, int64_t m) { int64_t r = a % m; return r < 0 ? r + m : r; }
/* "a beats b" for max (or min): NaN wins, ties keep the first. */
static inline int f_beats(double a, double b, int max) { if (b != b) return 0; if (a != a) return 1; return max ? a > b : a < b; }
static inline int i_beats(int64_t a, int64_t b, int max) { return max ? a > b : a < b; }

"#;

/// How a dtype's values are held in C.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Float,
    Int,
    Bool,
}

fn class(d: DType) -> Class {
    match d {
        DType::Bool => Class::Bool,
        d if d.is_float() => Class::Float,
        _ => Class::Int,
    }
}

fn c_type(d: DType) -> &'static str {
    match class(d) {
        Class::Float => "double",
        Class::Int => "int64_t",
        Class::Bool => "int",
    }
}

/// `x` (held as `class(d)`) rounded or wrapped to `d`.
fn fit(x: &str, d: DType) -> String {
    match d {
        DType::F32 => format!("r_f32({x})"),
        DType::F16 => format!("r_f16({x})"),
        DType::BF16 => format!("r_bf16({x})"),
        DType::I32 => format!("w_i32({x})"),
        DType::I16 => format!("w_i16({x})"),
        DType::I8 => format!("w_i8({x})"),
        DType::U8 => format!("w_u8({x})"),
        _ => x.to_string(),
    }
}

/// PyTorch's conversion of `x` from `from` to `to` (floats to ints truncate, nonzero is true).
fn convert(x: &str, from: DType, to: DType) -> String {
    match (class(from), class(to)) {
        (_, Class::Bool) => format!("(({x}) != 0)"),
        (Class::Float, Class::Float) => fit(x, to),
        (_, Class::Float) => fit(&format!("(double)({x})"), to),
        (Class::Float, Class::Int) => fit(&format!("f2i({x})"), to),
        (_, Class::Int) => fit(&format!("(int64_t)({x})"), to),
    }
}

/// The storage bits of `x` (held as `class(d)`), as `uint64_t`.
fn to_bits(x: &str, d: DType) -> String {
    match d {
        DType::F32 => format!("bits_f32({x})"),
        DType::F64 => format!("bits_f64({x})"),
        DType::F16 => format!("(uint64_t)f2h((float)({x}))"),
        DType::BF16 => format!("(uint64_t)f2b((float)({x}))"),
        DType::Bool => format!("(uint64_t)(({x}) != 0)"),
        DType::U8 | DType::I8 | DType::I16 | DType::I32 | DType::I64 => format!("(uint64_t)({x})"),
    }
}

/// Storage bits `b` (a `uint64_t`) read as a value of `d`.
fn from_bits(b: &str, d: DType) -> String {
    match d {
        DType::F32 => format!("f32_bits({b})"),
        DType::F64 => format!("f64_bits({b})"),
        DType::F16 => format!("(double)h2f((uint16_t)({b}))"),
        DType::BF16 => format!("(double)b2f((uint16_t)({b}))"),
        DType::Bool => format!("((uint8_t)({b}) != 0)"),
        DType::U8 | DType::I8 | DType::I16 | DType::I32 => fit(&format!("(int64_t)({b})"), d),
        DType::I64 => format!("(int64_t)({b})"),
    }
}

/// The C element type of a buffer of `d`.
fn storage_type(d: DType) -> &'static str {
    match d {
        DType::F32 => "float",
        DType::F64 => "double",
        DType::F16 | DType::BF16 => "uint16_t",
        DType::I32 => "int32_t",
        DType::I64 => "int64_t",
        DType::I16 => "int16_t",
        DType::I8 => "int8_t",
        DType::U8 | DType::Bool => "uint8_t",
    }
}

fn load_expr(arg: ArgId, d: DType, index: &str) -> String {
    let at = format!("((const {}*)a{})[{index}]", storage_type(d), arg.0);
    match d {
        DType::F32 | DType::F64 => format!("(double){at}"),
        DType::F16 => format!("(double)h2f({at})"),
        DType::BF16 => format!("(double)b2f({at})"),
        DType::U8 | DType::I8 | DType::I16 | DType::I32 | DType::I64 => {
            format!("(int64_t){at}")
        }
        DType::Bool => format!("({at} != 0)"),
    }
}

fn store_stmt(arg: ArgId, d: DType, index: &str, x: &str) -> String {
    let at = format!("((({}*)a{})[{index}])", storage_type(d), arg.0);
    match d {
        DType::F32 => format!("{at} = (float)({x});"),
        DType::F64 => format!("{at} = {x};"),
        DType::F16 => format!("{at} = f2h((float)({x}));"),
        DType::BF16 => format!("{at} = f2b((float)({x}));"),
        DType::I32 => format!("{at} = (int32_t)({x});"),
        DType::I16 => format!("{at} = (int16_t)({x});"),
        DType::I8 => format!("{at} = (int8_t)({x});"),
        DType::U8 => format!("{at} = (uint8_t)({x});"),
        DType::I64 => format!("{at} = {x};"),
        DType::Bool => format!("{at} = (uint8_t)(({x}) != 0);"),
    }
}

/// An index expression as C `int64_t` arithmetic.
fn index(e: &IndexExpr) -> String {
    let mut s = format!("INT64_C({})", e.constant_part());
    for (t, c) in e.terms() {
        let _ = write!(s, " + INT64_C({c}) * {}", term(t));
    }
    s
}

fn term(t: &Term) -> String {
    match t {
        Term::Var(v) => match v.indirect_node() {
            Some(n) => format!("v{n}"),
            None => format!("{v}"),
        },
        Term::FloorDiv(inner, d) => format!("x_div({}, {d})", index(inner)),
        Term::ModularIndexing(inner, d, m) => format!("x_mod(x_div({}, {d}), {m})", index(inner)),
        // A size parameter (`s0`): only the CPU backend's generalized kernels have them, and
        // this backend is never handed one (the C compiler would reject the name).
        Term::SizeTimes(k, inner) => format!("(s{k} * {})", term(inner)),
    }
}

fn constant(c: &Const, d: DType) -> String {
    let (text, from) = match c {
        Const::Float(x) if x.is_nan() => ("NAN".to_string(), DType::F64),
        Const::Float(x) if x.is_infinite() => (
            if *x > 0.0 { "INFINITY" } else { "(-INFINITY)" }.to_string(),
            DType::F64,
        ),
        Const::Float(x) => (format!("{x:e}"), DType::F64),
        Const::Int(i) if *i == i64::MIN => ("INT64_MIN".to_string(), DType::I64),
        Const::Int(i) => (format!("INT64_C({i})"), DType::I64),
        Const::Bool(b) => (format!("{}", *b as i32), DType::Bool),
    };
    convert(&text, from, d)
}

fn unsupported(k: &Kernel, what: String) -> BackendError {
    BackendError::Codegen {
        kernel: k.name.clone(),
        msg: what,
    }
}

/// A unary op on `a` (of dtype `from`), giving dtype `to`.
fn unary(k: &Kernel, op: Op, a: &str, from: DType, to: DType) -> Result<String, BackendError> {
    let float = |f: &str| fit(&f.replace('$', a), to);
    let via_float = |op_text: &str| {
        convert(
            &op_text.replace('$', &format!("(double)({a})")),
            DType::F64,
            to,
        )
    };
    Ok(match class(from) {
        Class::Float => match op {
            Op::Neg => float("(-$)"),
            Op::Abs => float("fabs($)"),
            Op::Exp => float("exp($)"),
            Op::Log => float("log($)"),
            Op::Log1p => float("log1p($)"),
            Op::Sqrt => float("sqrt($)"),
            Op::Rsqrt => float("(1.0 / sqrt($))"),
            Op::Sin => float("sin($)"),
            Op::Cos => float("cos($)"),
            Op::Tanh => float("tanh($)"),
            Op::Erf => float("erf($)"),
            Op::Sigmoid => float("(1.0 / (1.0 + exp(-($))))"),
            Op::Relu => float("(($ != $ || $ > 0.0) ? $ : 0.0)"),
            Op::Reciprocal => float("(1.0 / $)"),
            Op::LogicalNot => format!("({a} == 0.0)"),
            Op::Floor => float("floor($)"),
            Op::Ceil => float("ceil($)"),
            // Ties to even: the default rounding mode, which nothing here changes.
            Op::Round => float("nearbyint($)"),
            Op::Trunc => float("trunc($)"),
            other @ (Op::BitwiseNot | coil_kernel::binary_ops!() | Op::Where) => {
                return Err(unsupported(k, format!("{other} of a float")));
            }
        },
        Class::Int => match op {
            Op::Neg => fit(&format!("i_neg({a})"), to),
            Op::Abs => fit(&format!("({a} < 0 ? i_neg({a}) : {a})"), to),
            Op::Relu => fit(&format!("({a} > 0 ? {a} : 0)"), to),
            Op::BitwiseNot => fit(&format!("(~{a})"), to),
            Op::LogicalNot => format!("({a} == 0)"),
            Op::Exp => via_float("exp($)"),
            Op::Log => via_float("log($)"),
            Op::Log1p => via_float("log1p($)"),
            Op::Sqrt => via_float("sqrt($)"),
            Op::Rsqrt => via_float("(1.0 / sqrt($))"),
            Op::Sin => via_float("sin($)"),
            Op::Cos => via_float("cos($)"),
            Op::Tanh => via_float("tanh($)"),
            Op::Erf => via_float("erf($)"),
            Op::Sigmoid => via_float("(1.0 / (1.0 + exp(-($))))"),
            Op::Reciprocal => via_float("(1.0 / $)"),
            other @ (Op::Floor
            | Op::Ceil
            | Op::Round
            | Op::Trunc
            | coil_kernel::binary_ops!()
            | Op::Where) => {
                return Err(unsupported(k, format!("{other} of an integer")));
            }
        },
        Class::Bool => match op {
            Op::LogicalNot | Op::BitwiseNot => format!("(!{a})"),
            Op::Abs | Op::Relu => convert(a, DType::Bool, to),
            Op::Neg
            | Op::Floor
            | Op::Ceil
            | Op::Round
            | Op::Trunc
            | Op::Exp
            | Op::Log
            | Op::Log1p
            | Op::Sqrt
            | Op::Rsqrt
            | Op::Sin
            | Op::Cos
            | Op::Tanh
            | Op::Erf
            | Op::Sigmoid
            | Op::Reciprocal
            | coil_kernel::binary_ops!()
            | Op::Where => return unary(k, op, &format!("(int64_t)({a})"), DType::I64, to),
        },
    })
}

/// A binary op on `a` and `b` (both of dtype `from`), giving dtype `to`.
fn binary(
    k: &Kernel,
    op: Op,
    a: &str,
    b: &str,
    from: DType,
    to: DType,
) -> Result<String, BackendError> {
    use Op::*;
    if matches!(op, LogicalAnd | LogicalOr) {
        let c = if op == LogicalAnd { "&&" } else { "||" };
        return Ok(format!("((({a}) != 0) {c} (({b}) != 0))"));
    }
    let cmp = |c: &str| format!("({a} {c} {b})");
    Ok(match class(from) {
        Class::Float => match op {
            Add => fit(&format!("({a} + {b})"), to),
            Sub => fit(&format!("({a} - {b})"), to),
            Mul => fit(&format!("({a} * {b})"), to),
            TrueDiv => fit(&format!("({a} / {b})"), to),
            FloorDiv => fit(&format!("floor({a} / {b})"), to),
            TruncDiv => fit(&format!("trunc({a} / {b})"), to),
            Pow => fit(&format!("pow({a}, {b})"), to),
            Fmod => fit(&format!("fmod({a}, {b})"), to),
            Maximum => fit(&format!("f_max({a}, {b})"), to),
            Minimum => fit(&format!("f_min({a}, {b})"), to),
            Eq => cmp("=="),
            Ne => cmp("!="),
            Lt => cmp("<"),
            Le => cmp("<="),
            Gt => cmp(">"),
            Ge => cmp(">="),
            other @ (coil_kernel::unary_ops!()
            | LogicalAnd
            | LogicalOr
            | BitAnd
            | BitOr
            | BitXor
            | Shl
            | Shr
            | Where) => {
                return Err(unsupported(k, format!("{other} of two floats")));
            }
        },
        Class::Int => {
            let int = |e: String| convert(&fit(&e, DType::I64), DType::I64, to);
            match op {
                Add => int(format!("i_add({a}, {b})")),
                Sub => int(format!("i_sub({a}, {b})")),
                Mul => int(format!("i_mul({a}, {b})")),
                FloorDiv => int(format!("i_fdiv({a}, {b}, &st)")),
                TruncDiv | TrueDiv => int(format!("i_tdiv({a}, {b}, &st)")),
                Pow => int(format!("i_pow({a}, {b}, &st)")),
                Maximum => int(format!("({a} > {b} ? {a} : {b})")),
                Minimum => int(format!("({a} < {b} ? {a} : {b})")),
                Eq => cmp("=="),
                Ne => cmp("!="),
                Lt => cmp("<"),
                Le => cmp("<="),
                Gt => cmp(">"),
                Ge => cmp(">="),
                BitAnd => int(format!("({a} & {b})")),
                BitOr => int(format!("({a} | {b})")),
                BitXor => int(format!("({a} ^ {b})")),
                Shl => int(format!("i_shl({a}, {b}, {})", from.bits())),
                Shr if from.is_unsigned() => int(format!("i_shru({a}, {b}, {})", from.bits())),
                Shr => int(format!("i_shr({a}, {b}, {})", from.bits())),
                other @ (coil_kernel::unary_ops!() | Fmod | LogicalAnd | LogicalOr | Where) => {
                    return Err(unsupported(k, format!("{other} of two integers")));
                }
            }
        }
        Class::Bool => match op {
            Add | Maximum => convert(&format!("({a} || {b})"), DType::Bool, to),
            Mul | Minimum => convert(&format!("({a} && {b})"), DType::Bool, to),
            Eq => cmp("=="),
            Ne => cmp("!="),
            Lt => format!("(!{a} && {b})"),
            Le => cmp("<="),
            Gt => format!("({a} && !{b})"),
            Ge => cmp(">="),
            BitAnd => convert(&format!("({a} && {b})"), DType::Bool, to),
            BitOr => convert(&format!("({a} || {b})"), DType::Bool, to),
            BitXor => convert(&format!("({a} != {b})"), DType::Bool, to),
            Sub
            | Shl
            | Shr
            | TrueDiv
            | FloorDiv
            | TruncDiv
            | Pow
            | Fmod
            | LogicalAnd
            | LogicalOr
            | Where
            | coil_kernel::unary_ops!() => {
                let (ia, ib) = (format!("(int64_t)({a})"), format!("(int64_t)({b})"));
                return binary(k, op, &ia, &ib, DType::I64, to);
            }
        },
    })
}

/// Renders one kernel as the C function `name`.
fn kernel(out: &mut String, k: &Kernel, name: &str) -> Result<(), BackendError> {
    let _ = writeln!(out, "/* {} */", k.name);
    let _ = writeln!(out, "int {name}(void **args) {{");
    let _ = writeln!(out, "  int st = 0;");
    for (i, a) in k.args.iter().enumerate() {
        let _ = writeln!(
            out,
            "  void *a{i} = args[{i}]; /* {}: {}[{}] */",
            a.name, a.dtype, a.len
        );
    }
    let n = k.ranges.len();
    for (i, r) in k.ranges.iter().enumerate() {
        let _ = writeln!(out, "  for (int64_t p{i} = 0; p{i} < {r}; ++p{i}) {{");
    }
    // Finished accumulators, visible to every later stage of this outer point.
    for s in &k.stages {
        for a in &s.accumulators {
            let _ = writeln!(out, "  {} {}_fin = 0;", c_type(a.dtype), acc_name(a.id));
        }
    }
    for (si, s) in k.stages.iter().enumerate() {
        let _ = writeln!(out, "  {{ /* stage {si} */");
        if s.kind == StageKind::Reduction {
            for a in &s.accumulators {
                let vd = k.dtype(a.value);
                let acc = acc_name(a.id);
                let t = if class(vd) == Class::Float {
                    "double"
                } else {
                    "int64_t"
                };
                match a.reduction_type {
                    ReductionType::Sum => {
                        let _ = writeln!(out, "  {t} {acc} = 0;");
                    }
                    ReductionType::Prod => {
                        let _ = writeln!(out, "  {t} {acc} = 1;");
                    }
                    ReductionType::Max | ReductionType::Min => {
                        let _ = writeln!(out, "  {} {acc} = 0; int {acc}_has = 0;", c_type(vd));
                    }
                    ReductionType::Argmax | ReductionType::Argmin => {
                        let _ = writeln!(
                            out,
                            "  {} {acc} = 0; int {acc}_has = 0; int64_t {acc}_pos = 0;",
                            c_type(vd)
                        );
                    }
                    ReductionType::LogAddExp => {
                        return Err(unsupported(
                            k,
                            "a logaddexp reduction (a scan's only)".into(),
                        ));
                    }
                }
            }
            // Each scan's running value (the value's own type, as the IR's dtype rules say).
            for &v in &s.values {
                if let KExpr::Scan { scan_type, .. } = k.expr(v) {
                    let init = match scan_type {
                        ReductionType::Prod => "1",
                        ReductionType::LogAddExp => "-INFINITY",
                        _ => "0",
                    };
                    let _ = writeln!(out, "  {} scan{} = {init};", c_type(k.dtype(v)), v.0);
                }
            }
            let _ = writeln!(out, "  int64_t rpos = 0;");
            for (i, r) in k.reduction_ranges.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "  for (int64_t p{v} = 0; p{v} < {r}; ++p{v}) {{",
                    v = n + i
                );
            }
        }
        for &v in &s.values {
            let d = k.dtype(v);
            let rhs = value(k, v)?;
            let _ = writeln!(out, "    {} v{} = {rhs};", c_type(d), v.0);
        }
        for a in &s.accumulators {
            let vd = k.dtype(a.value);
            let (acc, x) = (acc_name(a.id), format!("v{}", a.value.0));
            let float = class(vd) == Class::Float;
            let max = matches!(a.reduction_type, ReductionType::Max | ReductionType::Argmax);
            let beats = if float { "f_beats" } else { "i_beats" };
            let line = match a.reduction_type {
                ReductionType::Sum if float => format!("{acc} += {x};"),
                ReductionType::Sum => format!("{acc} = i_add({acc}, (int64_t){x});"),
                ReductionType::Prod if float => format!("{acc} *= {x};"),
                ReductionType::Prod => format!("{acc} = i_mul({acc}, (int64_t){x});"),
                ReductionType::Max | ReductionType::Min => format!(
                    "if (!{acc}_has || {beats}({x}, {acc}, {})) {{ {acc} = {x}; {acc}_has = 1; }}",
                    max as i32
                ),
                ReductionType::Argmax | ReductionType::Argmin => format!(
                    "if (!{acc}_has || {beats}({x}, {acc}, {})) {{ {acc} = {x}; {acc}_has = 1; {acc}_pos = rpos; }}",
                    max as i32
                ),
                // Refused where it is declared.
                ReductionType::LogAddExp => format!("{acc} = f_logaddexp({acc}, {x});"),
            };
            let _ = writeln!(out, "    {line}");
        }
        for st in &s.stores {
            let a = k.arg(st.arg);
            let mut x = convert(&format!("v{}", st.value.0), k.dtype(st.value), a.dtype);
            let at = index(&st.index);
            if st.mode == StoreMode::AtomicAdd {
                // One thread runs the kernel: read, add, write.
                x = format!("({} + {x})", load_expr(st.arg, a.dtype, &at));
            }
            let _ = writeln!(out, "    {}", store_stmt(st.arg, a.dtype, &at, &x));
        }
        if s.kind == StageKind::Reduction {
            let _ = writeln!(out, "    ++rpos;");
            for _ in &k.reduction_ranges {
                let _ = writeln!(out, "  }}");
            }
            for a in &s.accumulators {
                let vd = k.dtype(a.value);
                let acc = acc_name(a.id);
                let held = if class(vd) == Class::Float {
                    DType::F64
                } else {
                    DType::I64
                };
                let fin = match a.reduction_type {
                    ReductionType::Sum | ReductionType::Prod => convert(&acc, held, a.dtype),
                    ReductionType::Max | ReductionType::Min => {
                        let empty = if a.dtype.is_float() { "NAN" } else { "0" };
                        format!("({acc}_has ? {} : {empty})", convert(&acc, vd, a.dtype))
                    }
                    ReductionType::Argmax | ReductionType::Argmin => format!("{acc}_pos"),
                    ReductionType::LogAddExp => convert(&acc, held, a.dtype),
                };
                let _ = writeln!(out, "  {acc}_fin = {fin};");
            }
        }
        let _ = writeln!(out, "  }}");
    }
    for _ in &k.ranges {
        let _ = writeln!(out, "  }}");
    }
    let _ = writeln!(out, "  return st;\n}}\n");
    Ok(())
}

fn acc_name(a: AccId) -> String {
    format!("acc{}", a.0)
}

/// The C expression of value `v`.
fn value(k: &Kernel, v: ValueId) -> Result<String, BackendError> {
    let d = k.dtype(v);
    let var = |x: ValueId| format!("v{}", x.0);
    Ok(match k.expr(v) {
        KExpr::Load {
            arg,
            index: i,
            mask,
        } => {
            let a = k.arg(*arg);
            let load = convert(&load_expr(*arg, a.dtype, &index(i)), a.dtype, d);
            match mask {
                None => load,
                Some(m) => format!("({} ? {load} : 0)", var(*m)),
            }
        }
        KExpr::Const(c) => constant(c, d),
        KExpr::Index(i) => convert(&index(i), DType::I64, d),
        KExpr::Acc(a) => format!("{}_fin", acc_name(*a)),
        KExpr::Cast(x) => convert(&var(*x), k.dtype(*x), d),
        KExpr::Bitcast(x) => from_bits(&to_bits(&var(*x), k.dtype(*x)), d),
        KExpr::Unary(op, x) => unary(k, *op, &var(*x), k.dtype(*x), d)?,
        KExpr::Binary(op, a, b) => binary(k, *op, &var(*a), &var(*b), k.dtype(*a), d)?,
        KExpr::Where(c, a, b) => format!(
            "({} ? {} : {})",
            var(*c),
            convert(&var(*a), k.dtype(*a), d),
            convert(&var(*b), k.dtype(*b), d)
        ),
        KExpr::Scan { scan_type, value } => {
            let x = convert(&var(*value), k.dtype(*value), d);
            let acc = format!("scan{}", v.0);
            let next = match (scan_type, class(d) == Class::Float) {
                (ReductionType::Prod, true) => format!("{acc} * {x}"),
                (ReductionType::LogAddExp, _) => format!("f_logaddexp({acc}, {x})"),
                (ReductionType::Prod, false) => format!("i_mul({acc}, {x})"),
                (_, true) => format!("{acc} + {x}"),
                (_, false) => format!("i_add({acc}, {x})"),
            };
            format!("({acc} = {})", fit(&next, d))
        }
        KExpr::IndirectIndex {
            value,
            size,
            wrap_negative,
            flags,
            check,
        } => format!(
            "x_ind({}, INT64_C({size}), {}, (int64_t*)a{}, {check})",
            convert(&var(*value), k.dtype(*value), DType::I64),
            *wrap_negative as i32,
            flags.0
        ),
    })
}

/// Every kernel of a model as one C file.
pub(crate) fn module(kernels: &[Kernel]) -> Result<String, BackendError> {
    let mut out = String::from(PRELUDE);
    for (i, k) in kernels.iter().enumerate() {
        kernel(&mut out, k, &entry_name(i))?;
    }
    Ok(out)
}
