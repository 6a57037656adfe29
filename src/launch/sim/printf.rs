//! What the GPU's `printf` (`vprintf`) prints for the format strings `print` compiles to
//! (see [`Op::Print`](crate::analysis::ir::Op::Print)): `%lld`, `%llu`, `%d`, `%f`, `%s`
//! and `%%`, formatted as C formats them.
//!
//! - `%f` is fixed notation with six decimals, correctly rounded from the float64 (ties to
//!   even, as glibc rounds an exact binary value): `0.1` is `0.100000`, `1e20` is
//!   `100000000000000000000.000000`, `-0.0` is `-0.000000`; infinities are `inf` and `-inf`.
//!   A NaN is `nan`: the GPU's arithmetic makes positive (canonical) NaNs, while the host
//!   arithmetic the simulator runs on makes negative ones, which C would print as `-nan`.
//! - CUDA's `printf` takes at most 32 arguments after the format; a conversion past them is
//!   printed as written (`%lld`).

/// One argument of a `vprintf` call, as the conversion that reads it takes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg<'a> {
    /// An integer: `%lld` reads it as int64, `%llu` as uint64, `%d` as int32.
    Int(i64),
    Float(f64),
    Str(&'a str),
}

/// The most arguments CUDA's `printf` reads after the format string.
pub const MAX_ARGS: usize = 32;

/// The most text one launch keeps: `print` calls past it are counted, not kept (a GPU's
/// `printf` buffer, 1 MiB by default, loses output too).
pub const MAX_OUTPUT_BYTES: usize = 16 << 20;

/// The text a launch's `print` calls wrote, in the order the threads ran them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Output {
    pub text: String,
    /// `print` calls not kept: the text had reached [`MAX_OUTPUT_BYTES`].
    pub dropped: u64,
}

impl Output {
    /// Print one call's text.
    pub fn print(&mut self, format: &str, args: &[Arg]) {
        if self.text.len() >= MAX_OUTPUT_BYTES {
            self.dropped += 1;
            return;
        }
        let text = printf(format, args);
        if self.text.len() + text.len() > MAX_OUTPUT_BYTES {
            self.dropped += 1;
            return;
        }
        self.text.push_str(&text);
    }
}

/// The conversions `print`'s formats use, longest first where one starts another.
const CONVERSIONS: [&str; 6] = ["%%", "%lld", "%llu", "%d", "%f", "%s"];

/// `format` with its conversions replaced by `args`, as C's `printf` prints it.
pub fn printf(format: &str, args: &[Arg]) -> String {
    let mut out = String::with_capacity(format.len() + 8 * args.len());
    let mut rest = format;
    let mut next = 0;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let spec = &rest[at..];
        let Some(conversion) = CONVERSIONS.iter().find(|c| spec.starts_with(**c)) else {
            out.push('%');
            rest = &spec[1..];
            continue;
        };
        rest = &spec[conversion.len()..];
        if *conversion == "%%" {
            out.push('%');
            continue;
        }
        let arg = if next < MAX_ARGS { args.get(next) } else { None };
        next += 1;
        match (conversion.as_bytes()[conversion.len() - 1], arg) {
            (_, None) => out.push_str(conversion),
            (b'd', Some(Arg::Int(i))) if *conversion == "%lld" => out.push_str(&i.to_string()),
            (b'u', Some(Arg::Int(i))) => out.push_str(&(*i as u64).to_string()),
            (b'd', Some(Arg::Int(i))) => out.push_str(&(*i as i32).to_string()),
            (b'f', Some(Arg::Float(x))) => out.push_str(&fixed(*x)),
            // vprintf reads the argument's 64 bits as a double.
            (b'f', Some(Arg::Int(i))) => out.push_str(&fixed(f64::from_bits(*i as u64))),
            (b's', Some(Arg::Str(s))) => out.push_str(s),
            (_, Some(Arg::Str(s))) => out.push_str(s),
            (_, Some(Arg::Float(x))) => out.push_str(&(x.to_bits() as i64).to_string()),
            (_, Some(Arg::Int(i))) => out.push_str(&i.to_string()),
        }
    }
    out.push_str(rest);
    out
}

/// C's `%f`: six decimals, correctly rounded.
pub fn fixed(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        // Rust's exact formatting rounds as glibc does (ties to even on the exact value),
        // and keeps the sign of a negative number that rounds to zero.
        format!("{x:.6}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions() {
        let args = [Arg::Str("i ="), Arg::Int(-3), Arg::Int(-1), Arg::Float(0.1), Arg::Str("True"), Arg::Int(7)];
        assert_eq!(printf("%s %lld %llu %f %s (%d,)\n", &args), "i = -3 18446744073709551615 0.100000 True (7,)\n");
        assert_eq!(printf("100%% %lld%%\n", &[Arg::Int(5)]), "100% 5%\n");
    }

    #[test]
    fn floats_as_c_prints_them() {
        // Checked against glibc's printf("%f").
        for (x, c) in [
            (1e20, "100000000000000000000.000000"),
            (-0.0, "-0.000000"),
            (-1e-9, "-0.000000"),
            (0.0078125, "0.007812"),
            (123.4565, "123.456500"),
            (1.0 / 3.0, "0.333333"),
            (5e-324, "0.000000"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
        ] {
            assert_eq!(fixed(x), c, "{x:e}");
        }
    }

    #[test]
    fn past_32_arguments_conversions_print_as_written() {
        let args: Vec<Arg> = (0..34).map(Arg::Int).collect();
        let format = vec!["%lld"; 34].join(" ");
        let expected = (0..32).map(|i| i.to_string()).chain(["%lld".into(), "%lld".into()]).collect::<Vec<_>>().join(" ");
        assert_eq!(printf(&format, &args), expected);
    }
}
