//! Helpers built from [`MathOps`]: double-word arithmetic (a value as the unevaluated sum
//! `x + y` of two floats, SLEEF's `dd.h`/`df.h` with FMA), polynomials, bit tricks and
//! scaling by powers of two. They are the same for both widths.

use super::MathOps;

/// A double-word number `x + y`, `|y| <= ulp(x) / 2` when normalised.
#[derive(Clone, Copy, Debug)]
pub struct DD<F> {
    pub x: F,
    pub y: F,
}

pub type D<M> = DD<<M as MathOps>::F>;

pub fn dd<F>(x: F, y: F) -> DD<F> {
    DD { x, y }
}

/// Everything here is written in terms of [`MathOps`], for every instance.
pub trait Ext: MathOps {
    fn c(&mut self, x: f64) -> Self::F {
        self.fconst(x)
    }

    fn cdd(&mut self, x: f64, y: f64) -> D<Self> {
        let x = self.fconst(x);
        let y = self.fconst(y);
        dd(x, y)
    }

    /// `a < c` for a constant `c`.
    fn ltc(&mut self, a: Self::F, c: f64) -> Self::B {
        let c = self.c(c);
        self.lt(a, c)
    }

    fn lec(&mut self, a: Self::F, c: f64) -> Self::B {
        let c = self.c(c);
        self.le(a, c)
    }

    fn gtc(&mut self, a: Self::F, c: f64) -> Self::B {
        let c = self.c(c);
        self.lt(c, a)
    }

    fn gec(&mut self, a: Self::F, c: f64) -> Self::B {
        let c = self.c(c);
        self.le(c, a)
    }

    fn eqc(&mut self, a: Self::F, c: f64) -> Self::B {
        let c = self.c(c);
        self.eq(a, c)
    }

    fn mulc(&mut self, a: Self::F, c: f64) -> Self::F {
        let c = self.c(c);
        self.mul(a, c)
    }

    fn addc(&mut self, a: Self::F, c: f64) -> Self::F {
        let c = self.c(c);
        self.add(a, c)
    }

    /// `a * b + c` for a constant `c` (SLEEF's `vmla` with FMA).
    fn mlac(&mut self, a: Self::F, b: Self::F, c: f64) -> Self::F {
        let c = self.c(c);
        self.fma(a, b, c)
    }

    /// `cond ? c : x` for a constant `c`.
    fn selc(&mut self, cond: Self::B, c: f64, x: Self::F) -> Self::F {
        let c = self.c(c);
        self.fsel(cond, c, x)
    }

    /// `cond ? a : b` for constants.
    fn selcc(&mut self, cond: Self::B, a: f64, b: f64) -> Self::F {
        let a = self.c(a);
        let b = self.c(b);
        self.fsel(cond, a, b)
    }

    fn iconst_sel(&mut self, cond: Self::B, a: i64, b: i64) -> Self::I {
        let a = self.iconst(a);
        let b = self.iconst(b);
        self.isel(cond, a, b)
    }

    fn iaddc(&mut self, a: Self::I, c: i64) -> Self::I {
        let c = self.iconst(c);
        self.iadd(a, c)
    }

    fn iandc(&mut self, a: Self::I, c: i64) -> Self::I {
        let c = self.iconst(c);
        self.iand(a, c)
    }

    fn ieqc(&mut self, a: Self::I, c: i64) -> Self::B {
        let c = self.iconst(c);
        self.ieq(a, c)
    }

    fn ineg(&mut self, a: Self::I) -> Self::I {
        let z = self.iconst(0);
        self.isub(z, a)
    }

    fn fnan(&mut self) -> Self::F {
        self.c(f64::NAN)
    }

    fn finf(&mut self) -> Self::F {
        self.c(f64::INFINITY)
    }

    fn sign_mask(&mut self) -> Self::I {
        let b = self.bits();
        self.iconst(i64::MIN >> (64 - b))
    }

    /// The mantissa bits (without the hidden bit): 23 or 52.
    fn mant_bits(&self) -> u32 {
        if self.bits() == 64 { 52 } else { 23 }
    }

    fn exp_bias(&self) -> i64 {
        if self.bits() == 64 { 1023 } else { 127 }
    }

    fn exp_mask(&self) -> i64 {
        if self.bits() == 64 { 0x7ff } else { 0xff }
    }

    /// `x` with its sign flipped where `y`'s sign bit is set (SLEEF `vmulsign`).
    fn mulsign(&mut self, x: Self::F, y: Self::F) -> Self::F {
        let xb = self.to_bits(x);
        let yb = self.to_bits(y);
        let s = self.sign_mask();
        let ys = self.iand(yb, s);
        let r = self.ixor(xb, ys);
        self.from_bits(r)
    }

    /// `x` with `y`'s sign bit or-ed in (SLEEF `vorsign`).
    fn orsign(&mut self, x: Self::F, y: Self::F) -> Self::F {
        let xb = self.to_bits(x);
        let yb = self.to_bits(y);
        let s = self.sign_mask();
        let ys = self.iand(yb, s);
        let r = self.ior(xb, ys);
        self.from_bits(r)
    }

    fn signbit(&mut self, x: Self::F) -> Self::B {
        let b = self.to_bits(x);
        let z = self.iconst(0);
        self.ilt(b, z)
    }

    fn isinf(&mut self, x: Self::F) -> Self::B {
        let a = self.abs(x);
        let inf = self.finf();
        self.eq(a, inf)
    }

    fn ispinf(&mut self, x: Self::F) -> Self::B {
        let inf = self.finf();
        self.eq(x, inf)
    }

    fn isnegzero(&mut self, x: Self::F) -> Self::B {
        let b = self.to_bits(x);
        let s = self.sign_mask();
        self.ieq(b, s)
    }

    /// `cond ? NaN : x` (SLEEF or-s an all-ones mask in).
    fn or_nan(&mut self, cond: Self::B, x: Self::F) -> Self::F {
        let ones = self.iconst(-1);
        let nan = self.from_bits(ones);
        self.fsel(cond, nan, x)
    }

    /// `cond ? +0 : x` (SLEEF `vandnot` of a mask).
    fn zero_if(&mut self, cond: Self::B, x: Self::F) -> Self::F {
        self.selc(cond, 0.0, x)
    }

    /// `isinf(d) ? copysign(m, d) | m : 0` (SLEEF `visinf2`).
    fn isinf2(&mut self, d: Self::F, m: Self::F) -> Self::F {
        let inf = self.isinf(d);
        let r = self.orsign(m, d);
        let z = self.c(0.0);
        self.fsel(inf, r, z)
    }

    /// The unbiased exponent field (SLEEF `vilogb2k`).
    fn ilogb2k(&mut self, d: Self::F) -> Self::I {
        let b = self.to_bits(d);
        let mb = self.mant_bits();
        let e = self.srl(b, mb);
        let em = self.exp_mask();
        let e = self.iandc(e, em);
        let bias = self.exp_bias();
        self.iaddc(e, -bias)
    }

    /// The unbiased exponent of `d >= 0`, subnormals included (SLEEF `vilogbk`: tiny
    /// values are scaled up first).
    fn ilogbk(&mut self, d: Self::F) -> Self::I {
        let (tiny, up, k) = if self.bits() == 64 {
            (4.9090934652977266e-91, 2.037035976334486e90, 300)
        } else {
            (5.421010862427522e-20, 1.8446744073709552e19, 64)
        };
        let o = self.ltc(d, tiny);
        let ds = self.mulc(d, up);
        let d = self.fsel(o, ds, d);
        let b = self.to_bits(d);
        let mb = self.mant_bits();
        let e = self.srl(b, mb);
        let em = self.exp_mask();
        let e = self.iandc(e, em);
        let bias = self.exp_bias();
        let off = self.iconst_sel(o, k + bias, bias);
        self.isub(e, off)
    }

    /// `2^q` for a q in the normal exponent range (SLEEF `vpow2i`).
    fn pow2i(&mut self, q: Self::I) -> Self::F {
        let bias = self.exp_bias();
        let q = self.iaddc(q, bias);
        let mb = self.mant_bits();
        let b = self.shl(q, mb);
        self.from_bits(b)
    }

    /// `d * 2^e` in two steps (SLEEF `vldexp2`).
    fn ldexp2(&mut self, d: Self::F, e: Self::I) -> Self::F {
        let h = self.sra(e, 1);
        let p = self.pow2i(h);
        let r = self.mul(d, p);
        let l = self.isub(e, h);
        let p = self.pow2i(l);
        self.mul(r, p)
    }

    /// `d * 2^q` by adding to the exponent field (SLEEF `vldexp3`).
    fn ldexp3(&mut self, d: Self::F, q: Self::I) -> Self::F {
        let b = self.to_bits(d);
        let mb = self.mant_bits();
        let s = self.shl(q, mb);
        let r = self.iadd(b, s);
        self.from_bits(r)
    }

    /// Horner's rule, highest coefficient first (SLEEF's chains of `vmla`).
    fn horner(&mut self, x: Self::F, c: &[f64]) -> Self::F {
        let mut u = self.c(c[0]);
        for &k in &c[1..] {
            u = self.mlac(u, x, k);
        }
        u
    }

    /// Estrin's scheme, highest coefficient first, grouped as SLEEF's `POLYn` macros.
    fn poly(&mut self, x: Self::F, c: &[f64]) -> Self::F {
        let cs: Vec<Self::F> = c.iter().map(|&k| self.c(k)).collect();
        self.poly_f(x, &cs)
    }

    /// [`Ext::poly`] with coefficients that are values.
    fn poly_f(&mut self, x: Self::F, c: &[Self::F]) -> Self::F {
        let mut pw = vec![x];
        while (1usize << pw.len()) < c.len() {
            let last = *pw.last().unwrap();
            let sq = self.mul(last, last);
            pw.push(sq);
        }
        self.estrin(&pw, c)
    }

    fn estrin(&mut self, pw: &[Self::F], c: &[Self::F]) -> Self::F {
        let n = c.len();
        if n == 1 {
            return c[0];
        }
        let mut k = 1;
        let mut level = 0;
        while k * 2 < n {
            k *= 2;
            level += 1;
        }
        let hi = self.estrin(pw, &c[..n - k]);
        let lo = self.estrin(pw, &c[n - k..]);
        self.fma(pw[level], hi, lo)
    }

    // Double-word arithmetic (SLEEF dd.h with FMA; the suffixes say the operand kinds).

    fn ddsel(&mut self, c: Self::B, a: D<Self>, b: D<Self>) -> D<Self> {
        let x = self.fsel(c, a.x, b.x);
        let y = self.fsel(c, a.y, b.y);
        dd(x, y)
    }

    /// `|x|` of a double-word: both parts flipped where the high part is negative (SLEEF
    /// `ddabs`).
    fn ddabs(&mut self, x: D<Self>) -> D<Self> {
        let n = self.signbit(x.x);
        let nx = self.ddneg(x);
        self.ddsel(n, nx, x)
    }

    /// A constant as a double-word at the width: the nearest float and the nearest float to
    /// the rest (SLEEF `vcast_vf2_d`; at float64 the rest is 0).
    fn cdd_split(&mut self, d: f64) -> D<Self> {
        let hi = if self.bits() == 64 { d } else { d as f32 as f64 };
        self.cdd(hi, d - hi)
    }

    /// `x` is an integral value or infinite (SLEEF `visint`).
    fn isint(&mut self, x: Self::F) -> Self::B {
        let t = self.trunc(x);
        self.eq(t, x)
    }

    /// Neither infinite nor NaN (SLEEF `visnumber`).
    fn isnumber(&mut self, x: Self::F) -> Self::B {
        let inf = self.isinf(x);
        let nan = self.isnan(x);
        let bad = self.bor(inf, nan);
        self.bnot(bad)
    }

    fn ddneg(&mut self, a: D<Self>) -> D<Self> {
        let x = self.neg(a.x);
        let y = self.neg(a.y);
        dd(x, y)
    }

    fn ddnormalize(&mut self, t: D<Self>) -> D<Self> {
        let s = self.add(t.x, t.y);
        let d = self.sub(t.x, s);
        let y = self.add(d, t.y);
        dd(s, y)
    }

    fn ddscale(&mut self, d: D<Self>, s: Self::F) -> D<Self> {
        let x = self.mul(d.x, s);
        let y = self.mul(d.y, s);
        dd(x, y)
    }

    fn ddscalec(&mut self, d: D<Self>, s: f64) -> D<Self> {
        let s = self.c(s);
        self.ddscale(d, s)
    }

    /// `x + y`, `|x| >= |y|`.
    fn ddadd_ff(&mut self, x: Self::F, y: Self::F) -> D<Self> {
        let s = self.add(x, y);
        let d = self.sub(x, s);
        let e = self.add(d, y);
        dd(s, e)
    }

    fn ddadd2_ff(&mut self, x: Self::F, y: Self::F) -> D<Self> {
        let s = self.add(x, y);
        let v = self.sub(s, x);
        let sv = self.sub(s, v);
        let a = self.sub(x, sv);
        let b = self.sub(y, v);
        let e = self.add(a, b);
        dd(s, e)
    }

    fn ddadd_df(&mut self, x: D<Self>, y: Self::F) -> D<Self> {
        let s = self.add(x.x, y);
        let d = self.sub(x.x, s);
        let d = self.add(d, y);
        let e = self.add(d, x.y);
        dd(s, e)
    }

    fn ddsub_df(&mut self, x: D<Self>, y: Self::F) -> D<Self> {
        let s = self.sub(x.x, y);
        let d = self.sub(x.x, s);
        let d = self.sub(d, y);
        let e = self.add(d, x.y);
        dd(s, e)
    }

    fn ddadd2_df(&mut self, x: D<Self>, y: Self::F) -> D<Self> {
        let s = self.add(x.x, y);
        let v = self.sub(s, x.x);
        let sv = self.sub(s, v);
        let a = self.sub(x.x, sv);
        let b = self.sub(y, v);
        let w = self.add(a, b);
        let e = self.add(w, x.y);
        dd(s, e)
    }

    fn ddadd_fd(&mut self, x: Self::F, y: D<Self>) -> D<Self> {
        let s = self.add(x, y.x);
        let d = self.sub(x, s);
        let d = self.add(d, y.x);
        let e = self.add(d, y.y);
        dd(s, e)
    }

    fn ddadd2_fd(&mut self, x: Self::F, y: D<Self>) -> D<Self> {
        let s = self.add(x, y.x);
        let v = self.sub(s, x);
        let sv = self.sub(s, v);
        let a = self.sub(x, sv);
        let b = self.sub(y.x, v);
        let w = self.add(a, b);
        let e = self.add(w, y.y);
        dd(s, e)
    }

    /// `x + y`, `|x| >= |y|`.
    fn ddadd_dd(&mut self, x: D<Self>, y: D<Self>) -> D<Self> {
        let s = self.add(x.x, y.x);
        let d = self.sub(x.x, s);
        let d = self.add(d, y.x);
        let d = self.add(d, x.y);
        let e = self.add(d, y.y);
        dd(s, e)
    }

    fn ddadd2_dd(&mut self, x: D<Self>, y: D<Self>) -> D<Self> {
        let s = self.add(x.x, y.x);
        let v = self.sub(s, x.x);
        let sv = self.sub(s, v);
        let a = self.sub(x.x, sv);
        let b = self.sub(y.x, v);
        let t = self.add(a, b);
        let l = self.add(x.y, y.y);
        let e = self.add(t, l);
        dd(s, e)
    }

    /// `x - y`, `|x| >= |y|`.
    fn ddsub_dd(&mut self, x: D<Self>, y: D<Self>) -> D<Self> {
        let s = self.sub(x.x, y.x);
        let t = self.sub(x.x, s);
        let t = self.sub(t, y.x);
        let t = self.add(t, x.y);
        let e = self.sub(t, y.y);
        dd(s, e)
    }

    fn dddiv(&mut self, n: D<Self>, d: D<Self>) -> D<Self> {
        let one = self.c(1.0);
        let t = self.div(one, d.x);
        let s = self.mul(n.x, t);
        let ns = self.neg(s);
        let u = self.fma(t, n.x, ns);
        let ndx = self.neg(d.x);
        let w = self.fma(ndx, t, one);
        let ndy = self.neg(d.y);
        let v = self.fma(ndy, t, w);
        let z = self.fma(n.y, t, u);
        let e = self.fma(s, v, z);
        dd(s, e)
    }

    fn ddmul_ff(&mut self, x: Self::F, y: Self::F) -> D<Self> {
        let s = self.mul(x, y);
        let ns = self.neg(s);
        let e = self.fma(x, y, ns);
        dd(s, e)
    }

    fn ddsqu(&mut self, x: D<Self>) -> D<Self> {
        let s = self.mul(x.x, x.x);
        let ns = self.neg(s);
        let e0 = self.fma(x.x, x.x, ns);
        let x2 = self.add(x.x, x.x);
        let e = self.fma(x2, x.y, e0);
        dd(s, e)
    }

    fn ddmul_dd(&mut self, x: D<Self>, y: D<Self>) -> D<Self> {
        let s = self.mul(x.x, y.x);
        let ns = self.neg(s);
        let e0 = self.fma(x.x, y.x, ns);
        let e1 = self.fma(x.y, y.x, e0);
        let e = self.fma(x.x, y.y, e1);
        dd(s, e)
    }

    /// The product of two double-words, as one float.
    fn ddmul_dd_f(&mut self, x: D<Self>, y: D<Self>) -> Self::F {
        let a = self.mul(x.x, y.y);
        let b = self.fma(x.y, y.x, a);
        self.fma(x.x, y.x, b)
    }

    fn ddmul_df(&mut self, x: D<Self>, y: Self::F) -> D<Self> {
        let s = self.mul(x.x, y);
        let ns = self.neg(s);
        let e0 = self.fma(x.x, y, ns);
        let e = self.fma(x.y, y, e0);
        dd(s, e)
    }

    fn ddrec_f(&mut self, d: Self::F) -> D<Self> {
        let one = self.c(1.0);
        let s = self.div(one, d);
        let nd = self.neg(d);
        let r = self.fma(nd, s, one);
        let e = self.mul(s, r);
        dd(s, e)
    }

    fn ddrec_d(&mut self, d: D<Self>) -> D<Self> {
        let one = self.c(1.0);
        let s = self.div(one, d.x);
        let ndx = self.neg(d.x);
        let r0 = self.fma(ndx, s, one);
        let ndy = self.neg(d.y);
        let r = self.fma(ndy, s, r0);
        let e = self.mul(s, r);
        dd(s, e)
    }

    fn ddsqrt_d(&mut self, d: D<Self>) -> D<Self> {
        let s = self.add(d.x, d.y);
        let t = self.sqrt(s);
        let tt = self.ddmul_ff(t, t);
        let a = self.ddadd2_dd(d, tt);
        let r = self.ddrec_f(t);
        let p = self.ddmul_dd(a, r);
        self.ddscalec(p, 0.5)
    }

    fn ddsqrt_f(&mut self, d: Self::F) -> D<Self> {
        let t = self.sqrt(d);
        let tt = self.ddmul_ff(t, t);
        let a = self.ddadd2_fd(d, tt);
        let r = self.ddrec_f(t);
        let p = self.ddmul_dd(a, r);
        self.ddscalec(p, 0.5)
    }
}

impl<M: MathOps> Ext for M {}
