//! The float32 functions: SLEEF's `sleefsimdsp.c` `u10` functions (FMA configuration),
//! all in float32 arithmetic, with branches turned into selects and `rempi` for
//! trigonometric arguments of 125 and more.

use super::dd::{D, Ext, dd};
use super::dp::poly4dd;
use super::rempi::rempi;
use super::{MathFn, MathOps};

const M_1_PI: f64 = 0.318309886183790671537767526745028724;
const PI_A2F: f64 = 3.1414794921875;
const PI_B2F: f64 = 0.00011315941810607910156;
const PI_C2F: f64 = 1.9841872589410058936e-09;
const TRIGRANGEMAX2F: f64 = 125.0;
const L2UF: f64 = 0.693145751953125;
const L2LF: f64 = 1.428606765330187045e-06;
const R_LN2F: f64 = 1.442695040888963407359924681001892137426645954152985934135449406931;
const FLT_MIN: f64 = 1.1754943508222875e-38;
const LOG1PF_BOUND: f64 = 9.999999680285692e+37;
const PIF_HI: f64 = 3.1415927410125732422;
const PIF_LO: f64 = -8.7422776573475857731e-08;
const LN2F_HI: f64 = 0.69314718246459960938;
const LN2F_LO: f64 = -1.904654323148236017e-09;
const PI: f64 = std::f64::consts::PI;

pub fn build<M: MathOps>(m: &mut M, f: MathFn, a: &[M::F]) -> M::F {
    match f {
        MathFn::Exp => exp(m, a[0]),
        MathFn::Exp2 => exp2(m, a[0]),
        MathFn::Expm1 => expm1(m, a[0]),
        MathFn::Log => log(m, a[0]),
        MathFn::Log2 => log2(m, a[0]),
        MathFn::Log10 => log10(m, a[0]),
        MathFn::Log1p => log1p(m, a[0]),
        MathFn::Sin => sin(m, a[0]),
        MathFn::Cos => cos(m, a[0]),
        MathFn::Tan => tan(m, a[0]),
        MathFn::Asin => asin(m, a[0]),
        MathFn::Acos => acos(m, a[0]),
        MathFn::Atan => atan(m, a[0]),
        MathFn::Atan2 => atan2(m, a[0], a[1]),
        MathFn::Sinh => sinh(m, a[0]),
        MathFn::Cosh => cosh(m, a[0]),
        MathFn::Tanh => tanh(m, a[0]),
        MathFn::Pow => pow(m, a[0], a[1]),
        MathFn::Erf => erf(m, a[0]),
        MathFn::Hypot => super::dp::hypot(m, a[0], a[1]),
        MathFn::Cbrt => super::inverse::cbrt(m, a[0]),
        MathFn::Asinh => super::inverse::asinh(m, a[0]),
        MathFn::Acosh => super::inverse::acosh(m, a[0]),
        MathFn::Atanh => super::inverse::atanh(m, a[0]),
        MathFn::Erfc => super::gamma::erfc(m, a[0]),
        MathFn::Lgamma => super::gamma::lgamma(m, a[0]),
        MathFn::Gamma => super::gamma::tgamma(m, a[0]),
    }
}

/// The large-argument reduction in SLEEF's sin/cos form (see `dp::big_reduction`).
fn big_reduction<M: MathOps>(m: &mut M, d: M::F, for_cos: bool) -> (D<M>, M::I) {
    let (r, q) = rempi(m, d);
    let q3 = m.iandc(q, 3);
    let q3 = m.iadd(q3, q3);
    let pos = m.gtc(r.x, 0.0);
    let (a, b) = if for_cos { (8, 7) } else { (2, 1) };
    let add = m.iconst_sel(pos, a, b);
    let ql = m.iadd(q3, add);
    let ql = m.sra(ql, if for_cos { 1 } else { 2 });
    let q1 = m.iandc(q, 1);
    let o = m.ieqc(q1, if for_cos { 0 } else { 1 });
    let sgn = if for_cos {
        m.selcc(pos, 0.0, -1.0)
    } else {
        r.x
    };
    let h = m.c(PIF_HI * -0.5);
    let l = m.c(PIF_LO * -0.5);
    let th = m.mulsign(h, sgn);
    let tl = m.mulsign(l, sgn);
    let t = m.ddadd2_dd(r, dd(th, tl));
    let r = m.ddsel(o, t, r);
    let mut t = m.ddnormalize(r);
    let inf = m.isinf(d);
    let nan = m.isnan(d);
    let bad = m.bor(inf, nan);
    t.x = m.or_nan(bad, t.x);
    (t, ql)
}

fn sin_kernel<M: MathOps>(m: &mut M, s: D<M>) -> M::F {
    let t = s;
    let s = m.ddsqu(s);
    let u = m.horner(
        s.x,
        &[
            2.6083159809786593541503e-06,
            -0.0001981069071916863322258,
            0.00833307858556509017944336,
        ],
    );
    let us = m.mul(u, s.x);
    let c = m.c(-0.166666597127914428710938);
    let a = m.ddadd_ff(c, us);
    let p = m.ddmul_dd(a, s);
    let one = m.c(1.0);
    let x = m.ddadd_fd(one, p);
    m.ddmul_dd_f(t, x)
}

fn sin<M: MathOps>(m: &mut M, d: M::F) -> M::F {
    let dm = m.mulc(d, M_1_PI);
    let u = m.rint(dm);
    let q = m.f2i_rn(u);
    let npa = m.c(-PI_A2F);
    let v = m.fma(u, npa, d);
    let b = m.mulc(u, -PI_B2F);
    let s = m.ddadd2_ff(v, b);
    let c = m.mulc(u, -PI_C2F);
    let s = m.ddadd_df(s, c);
    let ad = m.abs(d);
    let g = m.ltc(ad, TRIGRANGEMAX2F);
    let (t, q2) = big_reduction(m, d, false);
    let q = m.isel(g, q, q2);
    let s = m.ddsel(g, s, t);
    let u = sin_kernel(m, s);
    let q1 = m.iandc(q, 1);
    let odd = m.ieqc(q1, 1);
    let nu = m.neg(u);
    let u = m.fsel(odd, nu, u);
    let nz = m.isnegzero(d);
    m.fsel(nz, d, u)
}

fn cos<M: MathOps>(m: &mut M, d: M::F) -> M::F {
    let mpi = m.c(M_1_PI);
    let half = m.c(-0.5);
    let t = m.fma(d, mpi, half);
    let r = m.rint(t);
    let two = m.c(2.0);
    let one = m.c(1.0);
    let dq = m.fma(r, two, one);
    let q = m.f2i_rn(dq);
    let a = m.mulc(dq, -PI_A2F * 0.5);
    let s = m.ddadd2_ff(d, a);
    let b = m.mulc(dq, -PI_B2F * 0.5);
    let s = m.ddadd2_df(s, b);
    let c = m.mulc(dq, -PI_C2F * 0.5);
    let s = m.ddadd2_df(s, c);
    let ad = m.abs(d);
    let g = m.ltc(ad, TRIGRANGEMAX2F);
    let (t, q2) = big_reduction(m, d, true);
    let q = m.isel(g, q, q2);
    let s = m.ddsel(g, s, t);
    let u = sin_kernel(m, s);
    let q2 = m.iandc(q, 2);
    let flip = m.ieqc(q2, 0);
    let nu = m.neg(u);
    m.fsel(flip, nu, u)
}

fn tan<M: MathOps>(m: &mut M, d: M::F) -> M::F {
    let dm = m.mulc(d, 2.0 * M_1_PI);
    let u = m.rint(dm);
    let q = m.f2i_rn(u);
    let npa = m.c(-PI_A2F * 0.5);
    let v = m.fma(u, npa, d);
    let b = m.mulc(u, -PI_B2F * 0.5);
    let s = m.ddadd2_ff(v, b);
    let c = m.mulc(u, -PI_C2F * 0.5);
    let s = m.ddadd_df(s, c);
    let ad = m.abs(d);
    let g = m.ltc(ad, TRIGRANGEMAX2F);
    let (mut t, q2) = rempi(m, d);
    let inf = m.isinf(d);
    let nan = m.isnan(d);
    let o = m.bor(inf, nan);
    t.x = m.or_nan(o, t.x);
    t.y = m.or_nan(o, t.y);
    let q = m.isel(g, q, q2);
    let s = m.ddsel(g, s, t);
    let q1 = m.iandc(q, 1);
    let o = m.ieqc(q1, 1);
    let ns = m.ddneg(s);
    let s = m.ddsel(o, ns, s);
    let t = s;
    let s = m.ddsqu(s);
    let s = m.ddnormalize(s);
    let u = m.horner(
        s.x,
        &[
            0.00446636462584137916564941,
            -8.3920182078145444393158e-05,
            0.0109639242291450500488281,
            0.0212360303848981857299805,
            0.0540687143802642822265625,
        ],
    );
    let us = m.mul(u, s.x);
    let c = m.c(0.133325666189193725585938);
    let x = m.ddadd_ff(c, us);
    let sx = m.ddmul_dd(s, x);
    let c = m.c(0.33333361148834228515625);
    let a = m.ddadd_fd(c, sx);
    let p = m.ddmul_dd(a, s);
    let one = m.c(1.0);
    let x = m.ddadd_fd(one, p);
    let x = m.ddmul_dd(t, x);
    let rx = m.ddrec_d(x);
    let x = m.ddsel(o, rx, x);
    let u = m.add(x.x, x.y);
    // tan(d) rounds to d here (and squaring would flush subnormals).
    let ad = m.abs(d);
    let tiny = m.ltc(ad, 1e-5);
    m.fsel(tiny, d, u)
}

fn atan2k_u1<M: MathOps>(m: &mut M, y: D<M>, x: D<M>) -> D<M> {
    let z = m.c(0.0);
    let xneg = m.lt(x.x, z);
    let q = m.iconst_sel(xneg, -2, 0);
    let nx = m.ddneg(x);
    let x = m.ddsel(xneg, nx, x);
    let p = m.lt(x.x, y.x);
    let q1 = m.iaddc(q, 1);
    let q = m.isel(p, q1, q);
    let nx = m.ddneg(x);
    let s = m.ddsel(p, nx, y);
    let t = m.ddsel(p, y, x);
    let s = m.dddiv(s, t);
    let t = m.ddsqu(s);
    let t = m.ddnormalize(t);
    let u = m.horner(
        t.x,
        &[
            -0.00176397908944636583328247,
            0.0107900900766253471374512,
            -0.0309564601629972457885742,
            0.0577365085482597351074219,
            -0.0838950723409652709960938,
            0.109463557600975036621094,
            -0.142626821994781494140625,
            0.199983194470405578613281,
        ],
    );
    let ut = m.mul(u, t.x);
    let c = m.c(-0.333332866430282592773438);
    let a = m.ddadd_ff(c, ut);
    let t = m.ddmul_dd(t, a);
    let one = m.c(1.0);
    let a = m.ddadd_fd(one, t);
    let t = m.ddmul_dd(s, a);
    let qf = m.i2f(q);
    let h = m.cdd(1.5707963705062866211, -4.3711388286737928865e-08);
    let hq = m.ddmul_df(h, qf);
    m.ddadd_dd(hq, t)
}

fn atan2<M: MathOps>(m: &mut M, y: M::F, x: M::F) -> M::F {
    let ax = m.abs(x);
    let o = m.ltc(ax, 2.9387372783541830947e-39);
    let xs = m.mulc(x, 16777216.0);
    let x = m.fsel(o, xs, x);
    let ys = m.mulc(y, 16777216.0);
    let y = m.fsel(o, ys, y);
    let ay = m.abs(y);
    let z = m.c(0.0);
    let d = atan2k_u1(m, dd(ay, z), dd(x, z));
    let r = m.add(d.x, d.y);
    let r = m.mulsign(r, x);
    let xinf = m.isinf(x);
    let x0 = m.eqc(x, 0.0);
    let c = m.bor(xinf, x0);
    let h = m.c(PI / 2.0);
    let hs = m.mulsign(h, x);
    let i2 = m.isinf2(x, hs);
    let v = m.sub(h, i2);
    let r = m.fsel(c, v, r);
    let yinf = m.isinf(y);
    let q = m.c(PI / 4.0);
    let qs = m.mulsign(q, x);
    let i2 = m.isinf2(x, qs);
    let v = m.sub(h, i2);
    let r = m.fsel(yinf, v, r);
    let y0 = m.eqc(y, 0.0);
    let xs = m.signbit(x);
    let pi = m.selcc(xs, PI, 0.0);
    let r = m.fsel(y0, pi, r);
    let xn = m.isnan(x);
    let yn = m.isnan(y);
    let n = m.bor(xn, yn);
    let r = m.mulsign(r, y);
    m.or_nan(n, r)
}

fn atan<M: MathOps>(m: &mut M, d: M::F) -> M::F {
    let ad = m.abs(d);
    let z = m.c(0.0);
    let one = m.c(1.0);
    let t = atan2k_u1(m, dd(ad, z), dd(one, z));
    let r = m.add(t.x, t.y);
    let inf = m.isinf(d);
    let r = m.selc(inf, 1.570796326794896557998982, r);
    m.mulsign(r, d)
}

fn asin_core<M: MathOps>(m: &mut M, d: M::F) -> (M::B, D<M>, M::F) {
    let ad = m.abs(d);
    let o = m.ltc(ad, 0.5);
    let dd2 = m.mul(d, d);
    let one = m.c(1.0);
    let om = m.sub(one, ad);
    let h = m.mulc(om, 0.5);
    let x2 = m.fsel(o, dd2, h);
    let z = m.c(0.0);
    let sq = dfsqrt_f(m, x2);
    let x = m.ddsel(o, dd(ad, z), sq);
    let is1 = m.eqc(ad, 1.0);
    let x = m.ddsel(is1, dd(z, z), x);
    let u = m.horner(
        x2,
        &[
            0.4197454825e-1,
            0.2424046025e-1,
            0.4547423869e-1,
            0.7495029271e-1,
            0.1666677296e+0,
        ],
    );
    let xx = m.mul(x2, x.x);
    let u = m.mul(u, xx);
    (o, x, u)
}

/// SLEEF's `dfsqrt_vf2_vf` (the same as the double version).
fn dfsqrt_f<M: MathOps>(m: &mut M, d: M::F) -> D<M> {
    m.ddsqrt_f(d)
}

fn asin<M: MathOps>(m: &mut M, d: M::F) -> M::F {
    let (o, x, u) = asin_core(m, d);
    let q = m.cdd(PIF_HI / 4.0, PIF_LO / 4.0);
    let y = m.ddsub_dd(q, x);
    let y = m.ddsub_df(y, u);
    let small = m.add(u, x.x);
    let big = m.add(y.x, y.y);
    let big = m.mulc(big, 2.0);
    let r = m.fsel(o, small, big);
    m.mulsign(r, d)
}

fn acos<M: MathOps>(m: &mut M, d: M::F) -> M::F {
    let (o, x, u) = asin_core(m, d);
    let h = m.cdd(PIF_HI / 2.0, PIF_LO / 2.0);
    let xs = m.mulsign(x.x, d);
    let us = m.mulsign(u, d);
    let a = m.ddadd_ff(xs, us);
    let y = m.ddsub_dd(h, a);
    let x = m.ddadd_df(x, u);
    let x2 = m.ddscalec(x, 2.0);
    let y = m.ddsel(o, y, x2);
    let neg = m.ltc(d, 0.0);
    let no = m.bnot(o);
    let c = m.band(no, neg);
    let p = m.cdd(PIF_HI, PIF_LO);
    let py = m.ddsub_dd(p, y);
    let y = m.ddsel(c, py, y);
    m.add(y.x, y.y)
}

fn log_split<M: MathOps>(m: &mut M, d: M::F) -> (M::F, M::I) {
    let o = m.ltc(d, FLT_MIN);
    let ds = m.mulc(d, 18446744073709551616.0);
    let d = m.fsel(o, ds, d);
    let d4 = m.mulc(d, 1.0 / 0.75);
    let e = m.ilogb2k(d4);
    let ne = m.ineg(e);
    let mm = m.ldexp3(d, ne);
    let e64 = m.iaddc(e, -64);
    let e = m.isel(o, e64, e);
    (mm, e)
}

fn log_specials<M: MathOps>(m: &mut M, d: M::F, r: M::F) -> M::F {
    let pinf = m.ispinf(d);
    let r = m.selc(pinf, f64::INFINITY, r);
    let neg = m.ltc(d, 0.0);
    let nan = m.isnan(d);
    let bad = m.bor(neg, nan);
    let r = m.selc(bad, f64::NAN, r);
    let z = m.eqc(d, 0.0);
    m.selc(z, f64::NEG_INFINITY, r)
}

fn log_ratio<M: MathOps>(m: &mut M, mm: M::F) -> D<M> {
    let mone = m.c(-1.0);
    let one = m.c(1.0);
    let a = m.ddadd2_ff(mone, mm);
    let b = m.ddadd2_ff(one, mm);
    m.dddiv(a, b)
}

const LOG_POLY: [f64; 3] = [0.3027294874e+0, 0.3996108174e+0, 0.6666694880e+0];

fn log<M: MathOps>(m: &mut M, d: M::F) -> M::F {
    let (mm, e) = log_split(m, d);
    let ef = m.i2f(e);
    let l2 = m.cdd(LN2F_HI, LN2F_LO);
    let s = m.ddmul_df(l2, ef);
    let x = log_ratio(m, mm);
    let x2 = m.mul(x.x, x.x);
    let t = m.horner(x2, &LOG_POLY);
    let x2s = m.ddscalec(x, 2.0);
    let s = m.ddadd_dd(s, x2s);
    let x3 = m.mul(x2, x.x);
    let x3t = m.mul(x3, t);
    let s = m.ddadd_df(s, x3t);
    let r = m.add(s.x, s.y);
    log_specials(m, d, r)
}

fn log2<M: MathOps>(m: &mut M, d: M::F) -> M::F {
    let (mm, e) = log_split(m, d);
    let x = log_ratio(m, mm);
    let x2 = m.mul(x.x, x.x);
    let t = m.horner(x2, &[0.4374550283e+0, 0.5764790177e+0, 0.9618012905120]);
    let ef = m.i2f(e);
    let k = m.cdd(2.8853900432586669922, 3.2734474483568488616e-08);
    let xk = m.ddmul_dd(x, k);
    let s = m.ddadd2_fd(ef, xk);
    let x3 = m.mul(x2, x.x);
    let x3t = m.mul(x3, t);
    let s = m.ddadd2_df(s, x3t);
    let r = m.add(s.x, s.y);
    log_specials(m, d, r)
}

fn log10<M: MathOps>(m: &mut M, d: M::F) -> M::F {
    let (mm, e) = log_split(m, d);
    let x = log_ratio(m, mm);
    let x2 = m.mul(x.x, x.x);
    let t = m.horner(x2, &[0.1314289868e+0, 0.1735493541e+0, 0.2895309627e+0]);
    let ef = m.i2f(e);
    let l = m.cdd(0.30103001, -1.432098889e-08);
    let s = m.ddmul_df(l, ef);
    let k = m.cdd(0.868588984, -2.170757285e-08);
    let xk = m.ddmul_dd(x, k);
    let s = m.ddadd_dd(s, xk);
    let x3 = m.mul(x2, x.x);
    let x3t = m.mul(x3, t);
    let s = m.ddadd_df(s, x3t);
    let r = m.add(s.x, s.y);
    log_specials(m, d, r)
}

fn log1p<M: MathOps>(m: &mut M, d: M::F) -> M::F {
    let dp1 = m.addc(d, 1.0);
    let o = m.ltc(dp1, FLT_MIN);
    let ds = m.mulc(dp1, 18446744073709551616.0);
    let dp1 = m.fsel(o, ds, dp1);
    let d4 = m.mulc(dp1, 1.0 / 0.75);
    let e = m.ilogb2k(d4);
    let one = m.c(1.0);
    let ne = m.ineg(e);
    let t = m.ldexp3(one, ne);
    let tm1 = m.sub(t, one);
    let mm = m.fma(d, t, tm1);
    let e64 = m.iaddc(e, -64);
    let e = m.isel(o, e64, e);
    let ef = m.i2f(e);
    let l2 = m.cdd(LN2F_HI, LN2F_LO);
    let s = m.ddmul_df(l2, ef);
    let two = m.c(2.0);
    let z = m.c(0.0);
    let den = m.ddadd_ff(two, mm);
    let x = m.dddiv(dd(mm, z), den);
    let x2 = m.mul(x.x, x.x);
    let t = m.horner(x2, &LOG_POLY);
    let x2s = m.ddscalec(x, 2.0);
    let s = m.ddadd_dd(s, x2s);
    let x3 = m.mul(x2, x.x);
    let x3t = m.mul(x3, t);
    let s = m.ddadd_df(s, x3t);
    let r = m.add(s.x, s.y);
    let core = m.lec(d, LOG1PF_BOUND);
    let big = log(m, d);
    let r = m.fsel(core, r, big);
    let lt = m.ltc(d, -1.0);
    let r = m.or_nan(lt, r);
    let m1 = m.eqc(d, -1.0);
    let r = m.selc(m1, f64::NEG_INFINITY, r);
    let nz = m.isnegzero(d);
    let r = m.selc(nz, -0.0, r);
    // log1p(d) rounds to d here (and d / 2 above would lose subnormals).
    let ad = m.abs(d);
    let tiny = m.ltc(ad, 1e-8);
    m.fsel(tiny, d, r)
}

fn exp<M: MathOps>(m: &mut M, d: M::F) -> M::F {
    let dl = m.mulc(d, R_LN2F);
    let q = m.f2i_rn(dl);
    let qf = m.i2f(q);
    let nl2u = m.c(-L2UF);
    let s = m.fma(qf, nl2u, d);
    let nl2l = m.c(-L2LF);
    let s = m.fma(qf, nl2l, s);
    let u = m.horner(
        s,
        &[
            0.000198527617612853646278381,
            0.00139304355252534151077271,
            0.00833336077630519866943359,
            0.0416664853692054748535156,
            0.166666671633720397949219,
            0.5,
        ],
    );
    let ss = m.mul(s, s);
    let p = m.fma(ss, u, s);
    let u = m.addc(p, 1.0);
    let u = m.ldexp2(u, q);
    let small = m.ltc(d, -104.0);
    let u = m.zero_if(small, u);
    let big = m.gtc(d, 100.0);
    m.selc(big, f64::INFINITY, u)
}

fn exp2<M: MathOps>(m: &mut M, d: M::F) -> M::F {
    let u = m.rint(d);
    let q = m.f2i_rn(u);
    let s = m.sub(d, u);
    let u = m.horner(
        s,
        &[
            0.1535920892e-3,
            0.1339262701e-2,
            0.9618384764e-2,
            0.5550347269e-1,
            0.2402264476e+0,
            0.6931471825e+0,
        ],
    );
    let u = m.mlac(u, s, 1.0);
    let u = m.ldexp2(u, q);
    let big = m.gec(d, 128.0);
    let u = m.selc(big, f64::INFINITY, u);
    let small = m.ltc(d, -150.0);
    m.zero_if(small, u)
}

/// `e^d` for a double-word `d`, as a double-word (SLEEF `expk2f`).
pub(super) fn expk2<M: MathOps>(m: &mut M, d: D<M>) -> D<M> {
    let d0 = m.add(d.x, d.y);
    let u = m.mulc(d0, R_LN2F);
    let q = m.f2i_rn(u);
    let qf = m.i2f(q);
    let a = m.mulc(qf, -L2UF);
    let s = m.ddadd2_df(d, a);
    let b = m.mulc(qf, -L2LF);
    let s = m.ddadd2_df(s, b);
    let u = m.horner(
        s.x,
        &[
            0.1980960224e-3,
            0.1394256484e-2,
            0.8333456703e-2,
            0.4166637361e-1,
        ],
    );
    let su = m.ddmul_df(s, u);
    let c = m.c(0.166666659414234244790680580464e+0);
    let t = m.ddadd2_df(su, c);
    let st = m.ddmul_dd(s, t);
    let half = m.c(0.5);
    let t = m.ddadd2_df(st, half);
    let ss = m.ddsqu(s);
    let sst = m.ddmul_dd(ss, t);
    let t = m.ddadd2_dd(s, sst);
    let one = m.c(1.0);
    let t = m.ddadd_fd(one, t);
    // Normalised first: a high part of 1 + ulp over a negative low part must not
    // overflow when the sum does not.
    let t = m.ddnormalize(t);
    let tx = m.ldexp2(t.x, q);
    let ty = m.ldexp2(t.y, q);
    let small = m.ltc(d.x, -104.0);
    let tx = m.zero_if(small, tx);
    let ty = m.zero_if(small, ty);
    dd(tx, ty)
}

fn expm1<M: MathOps>(m: &mut M, a: M::F) -> M::F {
    let z = m.c(0.0);
    let e = expk2(m, dd(a, z));
    let mone = m.c(-1.0);
    let d = m.ddadd2_df(e, mone);
    let x = m.add(d.x, d.y);
    let big = m.gtc(a, 88.72283172607421875);
    let x = m.selc(big, f64::INFINITY, x);
    // Below -25 ln 2, e^a - 1 rounds to -1 (SLEEF's -24 ln 2 was an ulp early).
    let small = m.ltc(a, -17.328679513998633);
    let x = m.selc(small, -1.0, x);
    let nz = m.isnegzero(a);
    m.selc(nz, -0.0, x)
}

/// `(E, R, scale)` with `(E -/+ R) * scale` = sinh/cosh of `y >= 0`: `E = e^y`, `R = 1/E`,
/// `scale = 1/2`, or, near overflow, `E = e^y / 2` (from `y - ln 2` as a double-word),
/// `R = 1/(4E)`, `scale = 1`.
fn exp_halves<M: MathOps>(m: &mut M, y: M::F) -> (D<M>, D<M>, M::F) {
    let big = m.gtc(y, 88.0);
    let z = m.c(0.0);
    let nh = m.c(-LN2F_HI);
    let h = m.ddadd2_ff(y, nh);
    let nl = m.c(-LN2F_LO);
    let h = m.ddadd2_df(h, nl);
    let d = m.ddsel(big, h, dd(y, z));
    let e = expk2(m, d);
    let r = m.ddrec_d(e);
    let k = m.selcc(big, 0.25, 1.0);
    let r = m.ddscale(r, k);
    let scale = m.selcc(big, 1.0, 0.5);
    (e, r, scale)
}

fn sinh<M: MathOps>(m: &mut M, x: M::F) -> M::F {
    let y = m.abs(x);
    let (d, r, scale) = exp_halves(m, y);
    let d = m.ddsub_dd(d, r);
    let s = m.add(d.x, d.y);
    let y = m.mul(s, scale);
    let ax = m.abs(x);
    let big = m.gtc(ax, 90.0);
    let yn = m.isnan(y);
    let c = m.bor(big, yn);
    let y = m.selc(c, f64::INFINITY, y);
    let y = m.mulsign(y, x);
    let xn = m.isnan(x);
    let y = m.or_nan(xn, y);
    // The result rounds to x here; the double-word cancellation above loses a bit.
    let tiny = m.ltc(ax, 1e-4);
    m.fsel(tiny, x, y)
}

fn cosh<M: MathOps>(m: &mut M, x: M::F) -> M::F {
    let y = m.abs(x);
    let (d, r, scale) = exp_halves(m, y);
    let d = m.ddadd_dd(d, r);
    let s = m.add(d.x, d.y);
    let y = m.mul(s, scale);
    let ax = m.abs(x);
    let big = m.gtc(ax, 90.0);
    let yn = m.isnan(y);
    let c = m.bor(big, yn);
    let y = m.selc(c, f64::INFINITY, y);
    let xn = m.isnan(x);
    m.or_nan(xn, y)
}

fn tanh<M: MathOps>(m: &mut M, x: M::F) -> M::F {
    let y = m.abs(x);
    let z = m.c(0.0);
    let d = expk2(m, dd(y, z));
    let e = m.ddrec_d(d);
    let ne = m.ddneg(e);
    let a = m.ddadd_dd(d, ne);
    let b = m.ddadd_dd(d, e);
    let d = m.dddiv(a, b);
    let y = m.add(d.x, d.y);
    let ax = m.abs(x);
    // Above 13 ln 2, tanh rounds to 1 (SLEEF's 12.5 ln 2 was an ulp early).
    let big = m.gtc(ax, 9.010913347279288);
    let yn = m.isnan(y);
    let c = m.bor(big, yn);
    let y = m.selc(c, 1.0, y);
    let y = m.mulsign(y, x);
    let xn = m.isnan(x);
    let y = m.or_nan(xn, y);
    // The result rounds to x here; the double-word cancellation above loses a bit.
    let tiny = m.ltc(ax, 1e-4);
    m.fsel(tiny, x, y)
}

/// `log(d)` as a double-word (SLEEF `logkf`).
fn logk<M: MathOps>(m: &mut M, d: M::F) -> D<M> {
    let (mm, e) = log_split(m, d);
    let x = log_ratio(m, mm);
    let x2 = m.ddsqu(x);
    let t = m.horner(
        x2.x,
        &[
            0.240320354700088500976562,
            0.285112679004669189453125,
            0.400007992982864379882812,
        ],
    );
    let c = m.cdd(0.66666662693023681640625, 3.69183861259614332084311e-09);
    let ef = m.i2f(e);
    let l2 = m.cdd(LN2F_HI, LN2F_LO);
    let s = m.ddmul_df(l2, ef);
    let x2s = m.ddscalec(x, 2.0);
    let s = m.ddadd_dd(s, x2s);
    let x3 = m.ddmul_dd(x2, x);
    let x2t = m.ddmul_df(x2, t);
    let p = m.ddadd2_dd(x2t, c);
    let q = m.ddmul_dd(x3, p);
    m.ddadd_dd(s, q)
}

/// SLEEF's `vldexp_vf_vf_vi2`: `x * 2^q` for any `q`.
fn ldexp_full<M: MathOps>(m: &mut M, x: M::F, q: M::I) -> M::F {
    let mm = m.sra(q, 31);
    let t = m.iadd(mm, q);
    let t = m.sra(t, 6);
    let t = m.isub(t, mm);
    let mm = m.shl(t, 4);
    let m4 = m.shl(mm, 2);
    let q = m.isub(q, m4);
    let mm = m.iaddc(mm, 0x7f);
    let zero = m.iconst(0);
    let pos = m.ilt(zero, mm);
    let mm = m.isel(pos, mm, zero);
    let ff = m.iconst(0xff);
    let over = m.ilt(ff, mm);
    let mm = m.isel(over, ff, mm);
    let ub = m.shl(mm, 23);
    let u = m.from_bits(ub);
    let x = m.mul(x, u);
    let x = m.mul(x, u);
    let x = m.mul(x, u);
    let x = m.mul(x, u);
    let qb = m.iaddc(q, 0x7f);
    let qb = m.shl(qb, 23);
    let u = m.from_bits(qb);
    m.mul(x, u)
}

/// `e^d` for a double-word `d` (SLEEF `expkf`).
fn expk<M: MathOps>(m: &mut M, d: D<M>) -> M::F {
    let s0 = m.add(d.x, d.y);
    let u = m.mulc(s0, R_LN2F);
    let q = m.f2i_rn(u);
    let qf = m.i2f(q);
    let a = m.mulc(qf, -L2UF);
    let s = m.ddadd2_df(d, a);
    let b = m.mulc(qf, -L2LF);
    let s = m.ddadd2_df(s, b);
    let s = m.ddnormalize(s);
    let u = m.horner(
        s.x,
        &[
            0.00136324646882712841033936,
            0.00836596917361021041870117,
            0.0416710823774337768554688,
            0.166665524244308471679688,
            0.499999850988388061523438,
        ],
    );
    let ss = m.ddsqu(s);
    let ssu = m.ddmul_df(ss, u);
    let t = m.ddadd_dd(s, ssu);
    let one = m.c(1.0);
    let t = m.ddadd_fd(one, t);
    let u = m.add(t.x, t.y);
    let u = ldexp_full(m, u, q);
    let small = m.ltc(d.x, -104.0);
    m.zero_if(small, u)
}

fn pow<M: MathOps>(m: &mut M, x: M::F, y: M::F) -> M::F {
    let ty = m.trunc(y);
    let ti = m.eq(ty, y);
    let ay = m.abs(y);
    let huge = m.gtc(ay, 16777216.0);
    let yisint = m.bor(ti, huge);
    let yi = m.f2i_rz(y);
    let y1 = m.iandc(yi, 1);
    let odd = m.ieqc(y1, 1);
    let small = m.ltc(ay, 16777216.0);
    let yisodd = m.band(odd, yisint);
    let yisodd = m.band(yisodd, small);
    let ax = m.abs(x);
    let l = logk(m, ax);
    let d = m.ddmul_df(l, y);
    let result = expk(m, d);
    let rn = m.isnan(result);
    let result = m.selc(rn, f64::INFINITY, result);
    let xpos = m.gtc(x, 0.0);
    let sgn = m.selcc(yisodd, -1.0, 1.0);
    let nan = m.fnan();
    let sgn = m.fsel(yisint, sgn, nan);
    let one = m.c(1.0);
    let sgn = m.fsel(xpos, one, sgn);
    let result = m.mul(result, sgn);
    let ax = m.abs(x);
    let axm1 = m.addc(ax, -1.0);
    let efx = m.mulsign(axm1, y);
    let yinf = m.isinf(y);
    let e0 = m.eqc(efx, 0.0);
    let v = m.selcc(e0, 1.0, f64::INFINITY);
    let en = m.ltc(efx, 0.0);
    let v = m.zero_if(en, v);
    let result = m.fsel(yinf, v, result);
    let xinf = m.isinf(x);
    let x0 = m.eqc(x, 0.0);
    let c = m.bor(xinf, x0);
    let ys = m.signbit(y);
    let sx = m.bxor(ys, x0);
    let v = m.selcc(sx, 0.0, f64::INFINITY);
    let s = m.fsel(yisodd, x, one);
    let v = m.mulsign(v, s);
    let result = m.fsel(c, v, result);
    let xn = m.isnan(x);
    let yn = m.isnan(y);
    let n = m.bor(xn, yn);
    let result = m.or_nan(n, result);
    let y0 = m.eqc(y, 0.0);
    let x1 = m.eqc(x, 1.0);
    let c = m.bor(y0, x1);
    m.fsel(c, one, result)
}

fn erf<M: MathOps>(m: &mut M, a: M::F) -> M::F {
    let x = m.abs(a);
    let o25 = m.lec(x, 2.5);
    const CA: [f64; 6] = [
        -0.4360447008e-6,
        0.6867515367e-5,
        -0.3045156700e-4,
        0.9808536561e-4,
        0.2395523916e-3,
        0.1459901541e-3,
    ];
    const CB: [f64; 6] = [
        -0.1130012848e-6,
        0.4115272986e-5,
        -0.6928304356e-4,
        0.7172692567e-3,
        -0.5131045356e-2,
        0.2708637156e-1,
    ];
    let cs: Vec<M::F> = CA
        .iter()
        .zip(CB.iter())
        .map(|(&p, &q)| m.selcc(o25, p, q))
        .collect();
    let t = m.poly_f(x, &cs);
    let sel_dd = |m: &mut M, a: (f64, f64), b: (f64, f64)| {
        let h = m.selcc(o25, a.0, b.0);
        let l = m.selcc(o25, a.1, b.1);
        dd(h, l)
    };
    let c2 = sel_dd(
        m,
        (0.0092883445322513580322, -2.7863745897025330755e-11),
        (-0.11064319312572479248, 3.7050452777225283007e-09),
    );
    let c1 = sel_dd(
        m,
        (0.042275499552488327026, 1.3461399289988106057e-09),
        (-0.63192230463027954102, -2.0200432585073177859e-08),
    );
    let c0 = sel_dd(
        m,
        (0.070523701608180999756, -3.6616309318707365163e-09),
        (-1.1296638250350952148, 2.5515120196453259252e-08),
    );
    let t2 = poly4dd(m, x, t, c2, c1, c0);
    let t2 = m.ddmul_df(t2, x);
    let one = m.c(1.0);
    let mut s2 = m.ddadd_fd(one, t2);
    for _ in 0..4 {
        s2 = m.ddsqu(s2);
    }
    let s2 = m.ddrec_d(s2);
    let e = expk(m, t2);
    let z = m.c(0.0);
    let t2 = m.ddsel(o25, s2, dd(e, z));
    let mone = m.c(-1.0);
    let t2 = m.ddadd2_df(t2, mone);
    let tiny = m.ltc(x, 1e-4);
    let k = m.cdd(-1.1283792257308959961, 5.8635383422197591097e-08);
    let lin = m.ddmul_df(k, x);
    let t2 = m.ddsel(tiny, lin, t2);
    let s = m.add(t2.x, t2.y);
    let z = m.neg(s);
    let big = m.gec(x, 6.0);
    let z = m.selc(big, 1.0, z);
    let inf = m.isinf(a);
    let z = m.selc(inf, 1.0, z);
    let a0 = m.eqc(a, 0.0);
    let z = m.selc(a0, 0.0, z);
    m.mulsign(z, a)
}
