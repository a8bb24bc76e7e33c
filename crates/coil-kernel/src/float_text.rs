//! Floats as Python prints them (`repr`), the spelling of every text form in the workspace.

/// Formats a float the way Python's `repr` does: the shortest digits that read back to the
/// same value, positional notation for decimal exponents -4 to 15 (`0.0001`, `1.1`,
/// `1000000000000000.0`, always with a `.`), scientific otherwise with a signed exponent of at
/// least two digits (`1e-05`, `1e+16`, `2.5e-300`); `inf`, `-inf` and `nan` as Python names
/// them.
pub fn format_float(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    // Rust's `{:e}` gives the shortest round-trip digits, as Python's repr does: `d.ddde±x`.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if x == 0.0 {
        return format!("{sign}0.0");
    }
    // Python's rule (float_repr_style 'short'): with the decimal point after `exp + 1`
    // digits, use scientific notation when that position is <= -4 or > 16.
    let point = exp + 1;
    if point <= -4 || point > 16 {
        let (head, tail) = digits.split_at(1);
        let frac = if tail.is_empty() {
            String::new()
        } else {
            format!(".{tail}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{head}{frac}e{esign}{:02}", exp.unsigned_abs())
    } else if point <= 0 {
        format!(
            "{sign}0.{}{digits}",
            "0".repeat(point.unsigned_abs() as usize)
        )
    } else {
        let point = point as usize;
        if point >= digits.len() {
            format!("{sign}{digits}{}.0", "0".repeat(point - digits.len()))
        } else {
            format!("{sign}{}.{}", &digits[..point], &digits[point..])
        }
    }
}
