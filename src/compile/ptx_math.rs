//! The PTX instance of [`MathOps`]: every operation of a shared math function
//! (`analysis::ir::math`) becomes one PTX instruction, so a kernel computes what the
//! simulator computes. Each function and width used by a program becomes one `.func`
//! (`__kl_math_sin_f64`), straight-line code on fresh virtual registers, and its tables
//! `.const` arrays.

use std::collections::BTreeSet;
use rustc_hash::FxHashMap as HashMap;
use std::fmt::Write;

use crate::analysis::ir::math::{MathFn, MathOps, Table, build};

#[derive(Clone, Copy, Debug)]
pub(crate) struct Freg(u32);
/// A register's name in the PTX text: its prefix and number.
#[derive(Clone, Copy)]
struct Reg(&'static str, u32);

impl std::fmt::Display for Reg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.0, self.1)
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Ireg(u32);
#[derive(Clone, Copy, Debug)]
pub(crate) struct Preg(u32);

/// The name of the `.func` computing `f` on floats of `bits` bits.
pub(crate) fn func_name(f: MathFn, bits: u32) -> String {
    format!("__kl_math_{}_f{bits}", f.name())
}

fn table_name(t: Table, bits: u32) -> String {
    format!("__kl_math_{}_b{bits}", t.name())
}

/// The definitions (tables, then functions) for the functions a module calls.
pub(crate) fn definitions(needed: &BTreeSet<(MathFn, u32)>) -> String {
    let mut tables = BTreeSet::new();
    let mut funcs = String::new();
    for &(f, bits) in needed {
        let (text, used) = function(f, bits);
        funcs.push_str(&text);
        tables.extend(used.into_iter().map(|t| (t, bits)));
    }
    let mut out = String::new();
    for (t, bits) in tables {
        let words = t.words(bits);
        let items: Vec<String> = words
            .iter()
            .map(|w| {
                if bits == 64 {
                    format!("0x{w:016X}")
                } else {
                    format!("0x{w:08X}")
                }
            })
            .collect();
        let _ = writeln!(
            out,
            ".const .align {} .b{bits} {}[{}] = {{{}}};",
            bits / 8,
            table_name(t, bits),
            words.len(),
            items.join(", ")
        );
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(&funcs);
    out
}

/// The `.func` for `f` at `bits` bits, and the tables it reads.
fn function(f: MathFn, bits: u32) -> (String, BTreeSet<Table>) {
    let mut em = Emitter::new(bits);
    let name = func_name(f, bits);
    let ft = em.ft();
    let mut params = Vec::new();
    let mut args = Vec::new();
    for i in 0..f.arity() {
        let p = format!("{name}_param_{i}");
        let r = em.freg();
        let rn = em.f(r);
        em.e(format!("ld.param.{ft} {rn}, [{p}]"));
        params.push(format!(".param .{ft} {p}"));
        args.push(r);
    }
    let r = build(&mut em, f, &args);
    let rn = em.f(r);
    em.e(format!("st.param.{ft} [func_retval0], {rn}"));
    em.e("ret");
    let mut text = format!(
        ".func (.param .{ft} func_retval0) {name}(\n\t{}\n)\n{{\n",
        params.join(",\n\t")
    );
    let (fp, ip) = if bits == 64 {
        ("%fd", "%rd")
    } else {
        ("%f", "%r")
    };
    for (decl, prefix, n) in [
        (".pred", "%p", em.np),
        (if bits == 64 { ".b64" } else { ".b32" }, ip, em.ni),
        (if bits == 64 { ".f64" } else { ".f32" }, fp, em.nf),
        (".b32", "%rs", em.ns),
        (".b64", "%ad", em.na),
    ] {
        if n > 0 {
            let _ = writeln!(text, "\t.reg {decl} {prefix}<{}>;", n + 1);
        }
    }
    text.push('\n');
    text.push_str(&em.out);
    text.push_str("}\n\n");
    (text, em.tables)
}

struct Emitter {
    bits: u32,
    out: String,
    nf: u32,
    ni: u32,
    np: u32,
    /// 32-bit shift amounts of 64-bit shifts.
    ns: u32,
    /// 64-bit table addresses.
    na: u32,
    fconsts: HashMap<u64, Freg>,
    iconsts: HashMap<i64, Ireg>,
    tables: BTreeSet<Table>,
}

impl Emitter {
    fn new(bits: u32) -> Self {
        Self {
            bits,
            out: String::new(),
            nf: 0,
            ni: 0,
            np: 0,
            ns: 0,
            na: 0,
            fconsts: HashMap::default(),
            iconsts: HashMap::default(),
            tables: BTreeSet::new(),
        }
    }

    /// One instruction, written in place (no string per instruction: a math function is
    /// hundreds of them, a large part of a math kernel's compile time).
    fn e(&mut self, s: impl std::fmt::Display) {
        let _ = writeln!(self.out, "\t{s};");
    }

    fn wide(&self) -> bool {
        self.bits == 64
    }

    fn ft(&self) -> &'static str {
        if self.wide() { "f64" } else { "f32" }
    }

    /// Signed integer type.
    fn st(&self) -> &'static str {
        if self.wide() { "s64" } else { "s32" }
    }

    fn ut(&self) -> &'static str {
        if self.wide() { "u64" } else { "u32" }
    }

    fn bt(&self) -> &'static str {
        if self.wide() { "b64" } else { "b32" }
    }

    fn freg(&mut self) -> Freg {
        self.nf += 1;
        Freg(self.nf)
    }

    fn ireg(&mut self) -> Ireg {
        self.ni += 1;
        Ireg(self.ni)
    }

    fn preg(&mut self) -> Preg {
        self.np += 1;
        Preg(self.np)
    }

    fn f(&self, r: Freg) -> Reg {
        Reg(if self.wide() { "%fd" } else { "%f" }, r.0)
    }

    fn i(&self, r: Ireg) -> Reg {
        Reg(if self.wide() { "%rd" } else { "%r" }, r.0)
    }

    fn p(&self, r: Preg) -> Reg {
        Reg("%p", r.0)
    }

    /// `op.ty d, a, b, ...` on floats.
    fn fop(&mut self, op: &str, srcs: &[Freg]) -> Freg {
        let d = self.freg();
        let _ = write!(self.out, "\t{op} {}", self.f(d));
        for r in srcs {
            let _ = write!(self.out, ", {}", self.f(*r));
        }
        self.out.push_str(";\n");
        d
    }

    fn iop(&mut self, op: &str, a: Ireg, b: Ireg) -> Ireg {
        let d = self.ireg();
        self.e(format_args!("{op} {}, {}, {}", self.i(d), self.i(a), self.i(b)));
        d
    }

    fn fcmp(&mut self, cmp: &str, a: Freg, b: Freg) -> Preg {
        let d = self.preg();
        self.e(format_args!(
            "setp.{cmp}.{} {}, {}, {}",
            self.ft(),
            self.p(d),
            self.f(a),
            self.f(b)
        ));
        d
    }

    fn icmp(&mut self, ty: &str, cmp: &str, a: Ireg, b: Ireg) -> Preg {
        let d = self.preg();
        self.e(format_args!(
            "setp.{cmp}.{ty} {}, {}, {}",
            self.p(d),
            self.i(a),
            self.i(b)
        ));
        d
    }

    fn pop(&mut self, op: &str, a: Preg, b: Preg) -> Preg {
        let d = self.preg();
        self.e(format_args!("{op}.pred {}, {}, {}", self.p(d), self.p(a), self.p(b)));
        d
    }

    fn shift_const(&mut self, op: &str, a: Ireg, n: u32) -> Ireg {
        let d = self.ireg();
        self.e(format_args!("{op} {}, {}, {n}", self.i(d), self.i(a)));
        d
    }

    /// The shift amount as the `.u32` operand PTX takes.
    fn amount(&mut self, n: Ireg) -> Reg {
        if self.wide() {
            self.ns += 1;
            let t = Reg("%rs", self.ns);
            self.e(format_args!("cvt.u32.u64 {t}, {}", self.i(n)));
            t
        } else {
            self.i(n)
        }
    }
}

impl MathOps for Emitter {
    type F = Freg;
    type I = Ireg;
    type B = Preg;

    fn bits(&self) -> u32 {
        self.bits
    }

    fn fconst(&mut self, x: f64) -> Freg {
        let key = if self.wide() {
            x.to_bits()
        } else {
            (x as f32).to_bits() as u64
        };
        if let Some(&r) = self.fconsts.get(&key) {
            return r;
        }
        let d = self.freg();
        let imm = if self.wide() {
            format!("0d{key:016X}")
        } else {
            format!("0f{key:08X}")
        };
        self.e(format_args!("mov.{} {}, {imm}", self.ft(), self.f(d)));
        self.fconsts.insert(key, d);
        d
    }

    fn iconst(&mut self, x: i64) -> Ireg {
        let x = if self.wide() { x } else { x as i32 as i64 };
        if let Some(&r) = self.iconsts.get(&x) {
            return r;
        }
        let d = self.ireg();
        let imm = if self.wide() {
            format!("0x{:016X}", x as u64)
        } else {
            format!("0x{:08X}", x as u32)
        };
        self.e(format_args!("mov.{} {}, {imm}", self.bt(), self.i(d)));
        self.iconsts.insert(x, d);
        d
    }

    fn add(&mut self, a: Freg, b: Freg) -> Freg {
        let op = format!("add.rn.{}", self.ft());
        self.fop(&op, &[a, b])
    }
    fn sub(&mut self, a: Freg, b: Freg) -> Freg {
        let op = format!("sub.rn.{}", self.ft());
        self.fop(&op, &[a, b])
    }
    fn mul(&mut self, a: Freg, b: Freg) -> Freg {
        let op = format!("mul.rn.{}", self.ft());
        self.fop(&op, &[a, b])
    }
    fn div(&mut self, a: Freg, b: Freg) -> Freg {
        // 1 / b is `rcp.rn`, the same correctly rounded quotient: ptxas expands a `div.rn`
        // of a variable numerator into more code and a slow-path subroutine.
        let one = if self.wide() { 1f64.to_bits() } else { 1f32.to_bits() as u64 };
        if self.fconsts.get(&one).is_some_and(|c| c.0 == a.0) {
            let op = format!("rcp.rn.{}", self.ft());
            return self.fop(&op, &[b]);
        }
        let op = format!("div.rn.{}", self.ft());
        self.fop(&op, &[a, b])
    }
    fn fma(&mut self, a: Freg, b: Freg, c: Freg) -> Freg {
        let op = format!("fma.rn.{}", self.ft());
        self.fop(&op, &[a, b, c])
    }
    fn sqrt(&mut self, a: Freg) -> Freg {
        let op = format!("sqrt.rn.{}", self.ft());
        self.fop(&op, &[a])
    }
    fn neg(&mut self, a: Freg) -> Freg {
        let op = format!("neg.{}", self.ft());
        self.fop(&op, &[a])
    }
    fn abs(&mut self, a: Freg) -> Freg {
        let op = format!("abs.{}", self.ft());
        self.fop(&op, &[a])
    }
    fn rint(&mut self, a: Freg) -> Freg {
        let op = format!("cvt.rni.{t}.{t}", t = self.ft());
        self.fop(&op, &[a])
    }
    fn trunc(&mut self, a: Freg) -> Freg {
        let op = format!("cvt.rzi.{t}.{t}", t = self.ft());
        self.fop(&op, &[a])
    }

    fn lt(&mut self, a: Freg, b: Freg) -> Preg {
        self.fcmp("lt", a, b)
    }
    fn le(&mut self, a: Freg, b: Freg) -> Preg {
        self.fcmp("le", a, b)
    }
    fn eq(&mut self, a: Freg, b: Freg) -> Preg {
        self.fcmp("eq", a, b)
    }
    fn isnan(&mut self, a: Freg) -> Preg {
        self.fcmp("nan", a, a)
    }

    fn fsel(&mut self, c: Preg, a: Freg, b: Freg) -> Freg {
        let d = self.freg();
        self.e(format_args!(
            "selp.{} {}, {}, {}, {}",
            self.ft(),
            self.f(d),
            self.f(a),
            self.f(b),
            self.p(c)
        ));
        d
    }
    fn isel(&mut self, c: Preg, a: Ireg, b: Ireg) -> Ireg {
        let d = self.ireg();
        self.e(format_args!(
            "selp.{} {}, {}, {}, {}",
            self.bt(),
            self.i(d),
            self.i(a),
            self.i(b),
            self.p(c)
        ));
        d
    }
    fn band(&mut self, a: Preg, b: Preg) -> Preg {
        self.pop("and", a, b)
    }
    fn bor(&mut self, a: Preg, b: Preg) -> Preg {
        self.pop("or", a, b)
    }
    fn bxor(&mut self, a: Preg, b: Preg) -> Preg {
        self.pop("xor", a, b)
    }
    fn bnot(&mut self, a: Preg) -> Preg {
        let d = self.preg();
        self.e(format_args!("not.pred {}, {}", self.p(d), self.p(a)));
        d
    }

    fn to_bits(&mut self, a: Freg) -> Ireg {
        let d = self.ireg();
        self.e(format_args!("mov.{} {}, {}", self.bt(), self.i(d), self.f(a)));
        d
    }
    fn from_bits(&mut self, a: Ireg) -> Freg {
        let d = self.freg();
        self.e(format_args!("mov.{} {}, {}", self.bt(), self.f(d), self.i(a)));
        d
    }

    fn iadd(&mut self, a: Ireg, b: Ireg) -> Ireg {
        let op = format!("add.{}", self.st());
        self.iop(&op, a, b)
    }
    fn isub(&mut self, a: Ireg, b: Ireg) -> Ireg {
        let op = format!("sub.{}", self.st());
        self.iop(&op, a, b)
    }
    fn imul(&mut self, a: Ireg, b: Ireg) -> Ireg {
        let op = format!("mul.lo.{}", self.st());
        self.iop(&op, a, b)
    }
    fn imulhi_u(&mut self, a: Ireg, b: Ireg) -> Ireg {
        let op = format!("mul.hi.{}", self.ut());
        self.iop(&op, a, b)
    }
    fn iand(&mut self, a: Ireg, b: Ireg) -> Ireg {
        let op = format!("and.{}", self.bt());
        self.iop(&op, a, b)
    }
    fn ior(&mut self, a: Ireg, b: Ireg) -> Ireg {
        let op = format!("or.{}", self.bt());
        self.iop(&op, a, b)
    }
    fn ixor(&mut self, a: Ireg, b: Ireg) -> Ireg {
        let op = format!("xor.{}", self.bt());
        self.iop(&op, a, b)
    }
    fn shl(&mut self, a: Ireg, n: u32) -> Ireg {
        let op = format!("shl.{}", self.bt());
        self.shift_const(&op, a, n)
    }
    fn sra(&mut self, a: Ireg, n: u32) -> Ireg {
        let op = format!("shr.{}", self.st());
        self.shift_const(&op, a, n)
    }
    fn srl(&mut self, a: Ireg, n: u32) -> Ireg {
        let op = format!("shr.{}", self.ut());
        self.shift_const(&op, a, n)
    }
    fn shlv(&mut self, a: Ireg, n: Ireg) -> Ireg {
        let amt = self.amount(n);
        let d = self.ireg();
        self.e(format_args!("shl.{} {}, {}, {amt}", self.bt(), self.i(d), self.i(a)));
        d
    }
    fn srlv(&mut self, a: Ireg, n: Ireg) -> Ireg {
        let amt = self.amount(n);
        let d = self.ireg();
        self.e(format_args!("shr.{} {}, {}, {amt}", self.ut(), self.i(d), self.i(a)));
        d
    }
    fn ilt(&mut self, a: Ireg, b: Ireg) -> Preg {
        let t = self.st();
        self.icmp(t, "lt", a, b)
    }
    fn iltu(&mut self, a: Ireg, b: Ireg) -> Preg {
        let t = self.ut();
        self.icmp(t, "lt", a, b)
    }
    fn ieq(&mut self, a: Ireg, b: Ireg) -> Preg {
        let t = self.st();
        self.icmp(t, "eq", a, b)
    }

    fn f2i_rn(&mut self, a: Freg) -> Ireg {
        let d = self.ireg();
        self.e(format_args!(
            "cvt.rni.{}.{} {}, {}",
            self.st(),
            self.ft(),
            self.i(d),
            self.f(a)
        ));
        d
    }
    fn f2i_rz(&mut self, a: Freg) -> Ireg {
        let d = self.ireg();
        self.e(format_args!(
            "cvt.rzi.{}.{} {}, {}",
            self.st(),
            self.ft(),
            self.i(d),
            self.f(a)
        ));
        d
    }
    fn i2f(&mut self, a: Ireg) -> Freg {
        let d = self.freg();
        self.e(format_args!(
            "cvt.rn.{}.{} {}, {}",
            self.ft(),
            self.st(),
            self.f(d),
            self.i(a)
        ));
        d
    }

    fn table(&mut self, t: Table, idx: Ireg) -> Ireg {
        self.tables.insert(t);
        let name = table_name(t, self.bits);
        let (base, off, addr) = (self.na + 1, self.na + 2, self.na + 3);
        self.na += 3;
        self.e(format_args!("mov.u64 %ad{base}, {name}"));
        let i = self.i(idx);
        if self.wide() {
            self.e(format_args!("shl.b64 %ad{off}, {i}, 3"));
        } else {
            self.e(format_args!("mul.wide.s32 %ad{off}, {i}, 4"));
        }
        self.e(format_args!("add.s64 %ad{addr}, %ad{base}, %ad{off}"));
        let d = self.ireg();
        self.e(format_args!("ld.const.{} {}, [%ad{addr}]", self.ut(), self.i(d)));
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_function_emits_one_straight_line_func() {
        for f in MathFn::ALL {
            for bits in [32, 64] {
                let (text, _) = function(f, bits);
                assert!(
                    text.starts_with(&format!(".func (.param .f{bits} func_retval0) ")),
                    "{text}"
                );
                assert!(!text.contains("bra"), "{}: branches", f.name());
                assert!(text.contains("st.param"), "{text}");
            }
        }
    }

    #[test]
    fn tables_are_declared_once_per_width() {
        let needed: BTreeSet<_> = [(MathFn::Sin, 32), (MathFn::Cos, 32), (MathFn::Tan, 64)]
            .into_iter()
            .collect();
        let text = definitions(&needed);
        assert_eq!(
            text.matches(".const .align 4 .b32 __kl_math_2opi_b32[")
                .count(),
            1
        );
        assert_eq!(
            text.matches(".const .align 8 .b64 __kl_math_2opi_b64[")
                .count(),
            1
        );
    }
}
