//! Cube root and the inverse hyperbolic functions, one version for both widths (the
//! constants chosen by width): SLEEF's `xcbrt_u1`/`xcbrtf_u1` and `xasinh`/`xacosh`/`xatanh`
//! (and their `f` versions) over `logk2`. Departures from SLEEF: asinh and atanh work on
//! `|x|` and restore the sign at the end (SLEEF adds a negative x to `sqrt(x^2 + 1)`, which
//! cancels); above 2^28 (float64) or 2^14 (float32) asinh and acosh are `log(x) + ln 2`
//! (SLEEF returns infinity above `sqrt(MAX)`, and `x + sqrt(x^2 + 1)` overflows near MAX);
//! tiny arguments of asinh and atanh return the argument (the double-word `1 + x` cannot
//! carry a tiny x).

use super::dd::{D, Ext, dd};
use super::MathOps;

const LN2_HI: f64 = 0.693147180559945286226764;
const LN2_LO: f64 = 2.319046813846299558417771e-17;
const LN2F_HI: f64 = 0.69314718246459960938;
const LN2F_LO: f64 = -1.904654323148236017e-09;

fn wide<M: MathOps>(m: &M) -> bool {
    m.bits() == 64
}

fn ln2<M: MathOps>(m: &mut M) -> D<M> {
    if wide(m) {
        m.cdd(LN2_HI, LN2_LO)
    } else {
        m.cdd(LN2F_HI, LN2F_LO)
    }
}

/// Where asinh and acosh switch to `log(x) + ln 2` (`1/(4x^2)` is far below an ulp).
fn big_bound<M: MathOps>(m: &M) -> f64 {
    if wide(m) { 268435456.0 } else { 16384.0 }
}

/// Where asinh and atanh round to their argument (`x^3/6`, `x^3/3` below half an ulp).
fn tiny_bound<M: MathOps>(m: &M) -> f64 {
    if wide(m) { 1e-8 } else { 1e-4 }
}

/// `log(d)` of a double-word `d > 0` (SLEEF `logk2`/`logk2f`; the float32 version scales
/// with `ldexp2` as the float64 one does, so that `d` may be up to the largest float).
pub(super) fn logk2<M: MathOps>(m: &mut M, d: D<M>) -> D<M> {
    let d4 = m.mulc(d.x, 1.0 / 0.75);
    let e = m.ilogbk(d4);
    let ne = m.ineg(e);
    let mx = m.ldexp2(d.x, ne);
    let my = m.ldexp2(d.y, ne);
    let mm = dd(mx, my);
    let mone = m.c(-1.0);
    let one = m.c(1.0);
    let a = m.ddadd2_df(mm, mone);
    let b = m.ddadd2_df(mm, one);
    let x = m.dddiv(a, b);
    let x2 = m.ddsqu(x);
    let t = if wide(m) {
        let t = m.poly(
            x2.x,
            &[
                0.13860436390467167910856,
                0.131699838841615374240845,
                0.153914168346271945653214,
                0.181816523941564611721589,
                0.22222224632662035403996,
                0.285714285511134091777308,
                0.400000000000914013309483,
            ],
        );
        m.mlac(t, x2.x, 0.666666666666664853302393)
    } else {
        m.horner(
            x2.x,
            &[
                0.2392828464508056640625,
                0.28518211841583251953125,
                0.400005877017974853515625,
                0.666666686534881591796875,
            ],
        )
    };
    let ef = m.i2f(e);
    let l2 = ln2(m);
    let s = m.ddmul_df(l2, ef);
    let x2s = m.ddscalec(x, 2.0);
    let s = m.ddadd_dd(s, x2s);
    let x3 = m.ddmul_dd(x2, x);
    let x3t = m.ddmul_df(x3, t);
    m.ddadd_dd(s, x3t)
}

/// `log(d)`, or `log(x) + ln 2` where `big` (then `d` is ignored), summed to one float.
fn log_or_big<M: MathOps>(m: &mut M, big: M::B, x: M::F, d: D<M>) -> M::F {
    let z = m.c(0.0);
    let d = m.ddsel(big, dd(x, z), d);
    let s = logk2(m, d);
    let l2 = ln2(m);
    let k = m.ddsel(big, l2, dd(z, z));
    let s = m.ddadd_dd(s, k);
    m.add(s.x, s.y)
}

pub(super) fn asinh<M: MathOps>(m: &mut M, x: M::F) -> M::F {
    let y = m.abs(x);
    let o = m.gtc(y, 1.0);
    let z = m.c(0.0);
    let r = m.ddrec_f(y);
    let d = m.ddsel(o, r, dd(y, z));
    let d2 = m.ddsqu(d);
    let one = m.c(1.0);
    let d = m.ddadd2_df(d2, one);
    let d = m.ddsqrt_d(d);
    let dy = m.ddmul_df(d, y);
    let d = m.ddsel(o, dy, d);
    let d = m.ddadd2_df(d, y);
    let d = m.ddnormalize(d);
    let bb = big_bound(m);
    let big = m.gtc(y, bb);
    let r = log_or_big(m, big, y, d);
    let inf = m.isinf(x);
    let r = m.selc(inf, f64::INFINITY, r);
    let r = m.mulsign(r, x);
    let xn = m.isnan(x);
    let r = m.or_nan(xn, r);
    let tb = tiny_bound(m);
    let tiny = m.ltc(y, tb);
    m.fsel(tiny, x, r)
}

pub(super) fn acosh<M: MathOps>(m: &mut M, x: M::F) -> M::F {
    let one = m.c(1.0);
    let mone = m.c(-1.0);
    let a = m.ddadd2_ff(x, one);
    let b = m.ddadd2_ff(x, mone);
    let sa = m.ddsqrt_d(a);
    let sb = m.ddsqrt_d(b);
    let p = m.ddmul_dd(sa, sb);
    let d = m.ddadd2_df(p, x);
    let bb = big_bound(m);
    let big = m.gtc(x, bb);
    let r = log_or_big(m, big, x, d);
    let inf = m.ispinf(x);
    let r = m.selc(inf, f64::INFINITY, r);
    let is1 = m.eqc(x, 1.0);
    let r = m.zero_if(is1, r);
    let lt = m.ltc(x, 1.0);
    let xn = m.isnan(x);
    let bad = m.bor(lt, xn);
    m.or_nan(bad, r)
}

pub(super) fn atanh<M: MathOps>(m: &mut M, x: M::F) -> M::F {
    let y = m.abs(x);
    let one = m.c(1.0);
    let ny = m.neg(y);
    let a = m.ddadd2_ff(one, y);
    let b = m.ddadd2_ff(one, ny);
    let q = m.dddiv(a, b);
    let s = logk2(m, q);
    let r = m.add(s.x, s.y);
    let r = m.mulc(r, 0.5);
    let is1 = m.eqc(y, 1.0);
    let r = m.selc(is1, f64::INFINITY, r);
    let gt = m.gtc(y, 1.0);
    let r = m.or_nan(gt, r);
    let r = m.mulsign(r, x);
    let xn = m.isnan(x);
    let r = m.or_nan(xn, r);
    let tb = tiny_bound(m);
    let tiny = m.ltc(y, tb);
    m.fsel(tiny, x, r)
}

/// `x^(1/3)` (SLEEF `xcbrt_u1`/`xcbrtf_u1`): `x = d * 2^e` with `d` in [0.5, 1), a
/// polynomial and a Newton step for `d^(-1/3)`, a double-word correction, then the cube
/// root of `2^(e mod 3)` and `2^(e div 3)`.
pub(super) fn cbrt<M: MathOps>(m: &mut M, d: M::F) -> M::F {
    let w = wide(m);
    let ad = m.abs(d);
    let e = m.ilogbk(ad);
    let e = m.iaddc(e, 1);
    let ne = m.ineg(e);
    let d = m.ldexp2(d, ne);
    let ef = m.i2f(e);
    let t = m.addc(ef, 6144.0);
    let t3 = m.mulc(t, 1.0 / 3.0);
    let qu = m.f2i_rz(t3);
    let quf = m.i2f(qu);
    let q3 = m.mulc(quf, 3.0);
    let rf = m.sub(t, q3);
    let re = m.f2i_rz(rf);
    let (c1, c2) = if w {
        (
            (1.2599210498948731907, -2.5899333753005069177e-17),
            (1.5874010519681995834, -1.0869008194197822986e-16),
        )
    } else {
        (
            (1.2599210739135742188, -2.4018701694217270415e-08),
            (1.5874010324478149414, 1.9520385308169352356e-08),
        )
    };
    let is1 = m.ieqc(re, 1);
    let is2 = m.ieqc(re, 2);
    let qx = m.selcc(is1, c1.0, 1.0);
    let qx = m.selc(is2, c2.0, qx);
    let qy = m.selcc(is1, c1.1, 0.0);
    let qy = m.selc(is2, c2.1, qy);
    let qx = m.mulsign(qx, d);
    let qy = m.mulsign(qy, d);
    let q2 = dd(qx, qy);
    let d = m.abs(d);
    let x = if w {
        m.horner(
            d,
            &[
                -0.640245898480692909870982,
                2.96155103020039511818595,
                -5.73353060922947843636166,
                6.03990368989458747961407,
                -3.85841935510444988821632,
                2.2307275302496609725722,
            ],
        )
    } else {
        m.horner(
            d,
            &[
                -0.601564466953277587890625,
                2.8208892345428466796875,
                -5.532182216644287109375,
                5.898262500762939453125,
                -3.8095417022705078125,
                2.2241256237030029296875,
            ],
        )
    };
    let y = m.mul(x, x);
    let y = m.mul(y, y);
    let nx = m.neg(x);
    let v = m.fma(d, y, nx);
    let v = m.mulc(v, 1.0 / 3.0);
    let x = m.sub(x, v);
    let z = x;
    let u = m.ddmul_ff(x, x);
    let u = m.ddmul_dd(u, u);
    let u = m.ddmul_df(u, d);
    let nx = m.neg(x);
    let u = m.ddadd2_df(u, nx);
    let y = m.add(u.x, u.y);
    let y = m.mulc(y, -2.0 / 3.0);
    let y = m.mul(y, z);
    let zz = m.ddmul_ff(z, z);
    let v = m.ddadd2_df(zz, y);
    let v = m.ddmul_df(v, d);
    let v = m.ddmul_dd(v, q2);
    let r = m.add(v.x, v.y);
    let k = m.iaddc(qu, -2048);
    let r = m.ldexp2(r, k);
    let inf = m.isinf(d);
    let i = m.finf();
    let si = m.mulsign(i, qx);
    let r = m.fsel(inf, si, r);
    let zero = m.eqc(d, 0.0);
    let z = m.c(0.0);
    let sz = m.mulsign(z, qx);
    m.fsel(zero, sz, r)
}
