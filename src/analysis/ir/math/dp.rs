//! The float64 functions: SLEEF's `sleefsimddp.c` `u10` functions (FMA configuration),
//! with branches turned into selects and SLEEF's medium-range trigonometric reduction
//! replaced by `rempi` above 15.

use super::dd::{D, Ext, dd};
use super::rempi::rempi;
use super::{MathFn, MathOps};

const M_1_PI: f64 = 0.318309886183790671537767526745028724;
const PI_A2: f64 = 3.141592653589793116;
const PI_B2: f64 = 1.2246467991473532072e-16;
const TRIGRANGEMAX2: f64 = 15.0;
const L2U: f64 = 0.69314718055966295651160180568695068359375;
const L2L: f64 = 0.28235290563031577122588448175013436025525412068e-12;
const R_LN2: f64 = 1.442695040888963407359924681001892137426645954152985934135449406931;
const LOG_DBL_MAX: f64 = 709.782712893384;
const LOG1P_BOUND: f64 = 1e307;
const DBL_MIN: f64 = 2.2250738585072014e-308;
const LN2_HI: f64 = 0.693147180559945286226764;
const LN2_LO: f64 = 2.319046813846299558417771e-17;
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
        MathFn::Hypot => hypot(m, a[0], a[1]),
        MathFn::Cbrt => super::inverse::cbrt(m, a[0]),
        MathFn::Asinh => super::inverse::asinh(m, a[0]),
        MathFn::Acosh => super::inverse::acosh(m, a[0]),
        MathFn::Atanh => super::inverse::atanh(m, a[0]),
        MathFn::Erfc => super::gamma::erfc(m, a[0]),
        MathFn::Lgamma => super::gamma::lgamma(m, a[0]),
        MathFn::Gamma => super::gamma::tgamma(m, a[0]),
    }
}

/// The large-argument reduction, converted to SLEEF's sin/cos form: `x` in [-pi/2, pi/2]
/// and the count of pi (`for_cos`: of odd multiples of pi/2, as SLEEF's cos counts).
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
    let h = m.c(-PI_A2 * 0.5);
    let l = m.c(-PI_B2 * 0.5);
    let th = m.mulsign(h, sgn);
    let tl = m.mulsign(l, sgn);
    let t = m.ddadd2_dd(r, dd(th, tl));
    let r = m.ddsel(o, t, r);
    let s = m.ddnormalize(r);
    (s, ql)
}

/// SLEEF's sine kernel on `x` in [-pi/2, pi/2] (a double-word), times `t`.
fn sin_kernel<M: MathOps>(m: &mut M, x: D<M>) -> M::F {
    let t = x;
    let s = m.ddsqu(x);
    let u = m.poly(
        s.x,
        &[
            2.72052416138529567917983e-15,
            -7.6429259411395447190023e-13,
            1.60589370117277896211623e-10,
            -2.5052106814843123359368e-08,
            2.75573192104428224777379e-06,
            -0.000198412698412046454654947,
        ],
    );
    let u = m.mlac(u, s.x, 0.00833333333333318056201922);
    let us = m.mul(u, s.x);
    let c = m.c(-0.166666666666666657414808);
    let a = m.ddadd_ff(c, us);
    let p = m.ddmul_dd(a, s);
    let one = m.c(1.0);
    let x = m.ddadd_fd(one, p);
    m.ddmul_dd_f(t, x)
}

fn sin<M: MathOps>(m: &mut M, d: M::F) -> M::F {
    let ad = m.abs(d);
    let g = m.ltc(ad, TRIGRANGEMAX2);
    let dm = m.mulc(d, M_1_PI);
    let dql = m.rint(dm);
    let ql = m.f2i_rn(dql);
    let npa = m.c(-PI_A2);
    let u = m.fma(dql, npa, d);
    let v = m.mulc(dql, -PI_B2);
    let x = m.ddadd_ff(u, v);
    let (s, ql2) = big_reduction(m, d, false);
    let ql = m.isel(g, ql, ql2);
    let mut x = m.ddsel(g, x, s);
    let inf = m.isinf(d);
    let nan = m.isnan(d);
    let bad = m.bor(inf, nan);
    x.x = m.or_nan(bad, x.x);
    let u = sin_kernel(m, x);
    let q1 = m.iandc(ql, 1);
    let odd = m.ieqc(q1, 1);
    let nu = m.neg(u);
    let u = m.fsel(odd, nu, u);
    let z = m.eqc(d, 0.0);
    m.fsel(z, d, u)
}

fn cos<M: MathOps>(m: &mut M, d: M::F) -> M::F {
    let ad = m.abs(d);
    let g = m.ltc(ad, TRIGRANGEMAX2);
    let half = m.c(-0.5);
    let mpi = m.c(M_1_PI);
    let t = m.fma(d, mpi, half);
    let dql = m.rint(t);
    let two = m.c(2.0);
    let one = m.c(1.0);
    let dql = m.fma(two, dql, one);
    let ql = m.f2i_rn(dql);
    let a = m.mulc(dql, -PI_A2 * 0.5);
    let x = m.ddadd2_ff(d, a);
    let b = m.mulc(dql, -PI_B2 * 0.5);
    let x = m.ddadd_df(x, b);
    let (s, ql2) = big_reduction(m, d, true);
    let ql = m.isel(g, ql, ql2);
    let mut x = m.ddsel(g, x, s);
    let inf = m.isinf(d);
    let nan = m.isnan(d);
    let bad = m.bor(inf, nan);
    x.x = m.or_nan(bad, x.x);
    let u = sin_kernel(m, x);
    let q2 = m.iandc(ql, 2);
    let flip = m.ieqc(q2, 0);
    let nu = m.neg(u);
    m.fsel(flip, nu, u)
}

fn tan<M: MathOps>(m: &mut M, d: M::F) -> M::F {
    let dm = m.mulc(d, 2.0 * M_1_PI);
    let dql = m.rint(dm);
    let ql = m.f2i_rn(dql);
    let npa = m.c(-PI_A2 * 0.5);
    let u = m.fma(dql, npa, d);
    let v = m.mulc(dql, -PI_B2 * 0.5);
    let s = m.ddadd_ff(u, v);
    let ad = m.abs(d);
    let g = m.ltc(ad, TRIGRANGEMAX2);
    let (mut x, q) = rempi(m, d);
    let inf = m.isinf(d);
    let nan = m.isnan(d);
    let o = m.bor(inf, nan);
    x.x = m.or_nan(o, x.x);
    x.y = m.or_nan(o, x.y);
    let ql = m.isel(g, ql, q);
    let s = m.ddsel(g, s, x);

    let t = m.ddscalec(s, 0.5);
    let s = m.ddsqu(t);
    let u = m.poly(
        s.x,
        &[
            0.3245098826639276316e-3,
            0.5619219738114323735e-3,
            0.1460781502402784494e-2,
            0.3591611540792499519e-2,
            0.8863268409563113126e-2,
            0.2186948728185535498e-1,
            0.5396825399517272970e-1,
            0.1333333333330500581e+0,
        ],
    );
    let u = m.mlac(u, s.x, 0.3333333333333343695e+0);
    let st = m.ddmul_dd(s, t);
    let stu = m.ddmul_df(st, u);
    let x = m.ddadd_dd(t, stu);
    let xx = m.ddsqu(x);
    let mone = m.c(-1.0);
    let y = m.ddadd_fd(mone, xx);
    let x = m.ddscalec(x, -2.0);
    let q1 = m.iandc(ql, 1);
    let o = m.ieqc(q1, 1);
    let ny = m.ddneg(y);
    let n = m.ddsel(o, ny, x);
    let dn = m.ddsel(o, x, y);
    let x = m.dddiv(n, dn);
    let u = m.add(x.x, x.y);
    // tan(d) rounds to d here (and the halving above would flush subnormals).
    let ad = m.abs(d);
    let tiny = m.ltc(ad, 1e-9);
    m.fsel(tiny, d, u)
}

fn atan2k_u1<M: MathOps>(m: &mut M, y: D<M>, x: D<M>) -> D<M> {
    let xneg = m.signbit(x.x);
    let q = m.iconst_sel(xneg, -2, 0);
    let p = m.ltc(x.x, 0.0);
    let nx = m.ddneg(x);
    let x = m.ddsel(p, nx, x);
    let p = m.lt(x.x, y.x);
    let q1 = m.iaddc(q, 1);
    let q = m.isel(p, q1, q);
    let nx = m.ddneg(x);
    let s = m.ddsel(p, nx, y);
    let t = m.ddsel(p, y, x);
    let s = m.dddiv(s, t);
    let t = m.ddsqu(s);
    let t = m.ddnormalize(t);
    let u = m.poly(
        t.x,
        &[
            1.06298484191448746607415e-05,
            -0.000125620649967286867384336,
            0.00070557664296393412389774,
            -0.00251865614498713360352999,
            0.00646262899036991172313504,
            -0.0128281333663399031014274,
            0.0208024799924145797902497,
            -0.0289002344784740315686289,
            0.0359785005035104590853656,
            -0.041848579703592507506027,
            0.0470843011653283988193763,
            -0.0524914210588448421068719,
            0.0587946590969581003860434,
            -0.0666620884778795497194182,
            0.0769225330296203768654095,
            -0.0909090442773387574781907,
        ],
    );
    let u = m.mlac(u, t.x, 0.111111108376896236538123);
    let u = m.mlac(u, t.x, -0.142857142756268568062339);
    let u = m.mlac(u, t.x, 0.199999999997977351284817);
    let u = m.mlac(u, t.x, -0.333333333333317605173818);
    let st = m.ddmul_dd(s, t);
    let stu = m.ddmul_df(st, u);
    let t = m.ddadd_dd(s, stu);
    let qf = m.i2f(q);
    let h = m.cdd(1.570796326794896557998982, 6.12323399573676603586882e-17);
    let hq = m.ddmul_df(h, qf);
    m.ddadd_dd(hq, t)
}

fn atan2<M: MathOps>(m: &mut M, y: M::F, x: M::F) -> M::F {
    let ax = m.abs(x);
    let o = m.ltc(ax, 5.5626846462680083984e-309);
    let xs = m.mulc(x, 9007199254740992.0);
    let x = m.fsel(o, xs, x);
    let ys = m.mulc(y, 9007199254740992.0);
    let y = m.fsel(o, ys, y);
    let ay = m.abs(y);
    let z = m.c(0.0);
    let d = atan2k_u1(m, dd(ay, z), dd(x, z));
    let r = m.add(d.x, d.y);
    atan2_specials(m, y, x, r)
}

/// The special cases of atan2 (SLEEF's `xatan2`), given `r = atan2(|y|, x)`.
fn atan2_specials<M: MathOps>(m: &mut M, y: M::F, x: M::F, r: M::F) -> M::F {
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

const ASIN_POLY: [f64; 12] = [
    0.3161587650653934628e-1,
    -0.1581918243329996643e-1,
    0.1929045477267910674e-1,
    0.6606077476277170610e-2,
    0.1215360525577377331e-1,
    0.1388715184501609218e-1,
    0.1735956991223614604e-1,
    0.2237176181932048341e-1,
    0.3038195928038132237e-1,
    0.4464285681377102438e-1,
    0.7500000000378581611e-1,
    0.1666666666666497543e+0,
];

/// The shared start of asin and acos: `(o, x2, x, u)`.
fn asin_core<M: MathOps>(m: &mut M, d: M::F) -> (M::B, M::F, D<M>, M::F) {
    let ad = m.abs(d);
    let o = m.ltc(ad, 0.5);
    let dd2 = m.mul(d, d);
    let one = m.c(1.0);
    let om = m.sub(one, ad);
    let h = m.mulc(om, 0.5);
    let x2 = m.fsel(o, dd2, h);
    let z = m.c(0.0);
    let sq = m.ddsqrt_f(x2);
    let x = m.ddsel(o, dd(ad, z), sq);
    let is1 = m.eqc(ad, 1.0);
    let x = m.ddsel(is1, dd(z, z), x);
    let u = m.poly(x2, &ASIN_POLY);
    let xx = m.mul(x2, x.x);
    let u = m.mul(u, xx);
    (o, x2, x, u)
}

fn asin<M: MathOps>(m: &mut M, d: M::F) -> M::F {
    let (o, _, x, u) = asin_core(m, d);
    let q = m.cdd(PI_A2 / 4.0, PI_B2 / 4.0);
    let y = m.ddsub_dd(q, x);
    let y = m.ddsub_df(y, u);
    let small = m.add(u, x.x);
    let big = m.add(y.x, y.y);
    let big = m.mulc(big, 2.0);
    let r = m.fsel(o, small, big);
    m.mulsign(r, d)
}

fn acos<M: MathOps>(m: &mut M, d: M::F) -> M::F {
    let (o, _, x, u) = asin_core(m, d);
    let h = m.cdd(PI_A2 / 2.0, PI_B2 / 2.0);
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
    let p = m.cdd(PI_A2, PI_B2);
    let py = m.ddsub_dd(p, y);
    let y = m.ddsel(c, py, y);
    m.add(y.x, y.y)
}

/// `(m, e)` with `d = m * 2^e`, `m` in [0.75, 1.5) (SLEEF's log prologue).
fn log_split<M: MathOps>(m: &mut M, d: M::F) -> (M::F, M::I) {
    let o = m.ltc(d, DBL_MIN);
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

/// log's special cases: +inf, NaN below 0, -inf at 0.
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

/// `(m - 1) / (m + 1)` as a double-word.
fn log_ratio<M: MathOps>(m: &mut M, mm: M::F) -> D<M> {
    let mone = m.c(-1.0);
    let one = m.c(1.0);
    let a = m.ddadd2_ff(mone, mm);
    let b = m.ddadd2_ff(one, mm);
    m.dddiv(a, b)
}

const LOG_POLY: [f64; 7] = [
    0.1532076988502701353e+0,
    0.1525629051003428716e+0,
    0.1818605932937785996e+0,
    0.2222214519839380009e+0,
    0.2857142932794299317e+0,
    0.3999999999635251990e+0,
    0.6666666666667333541e+0,
];

fn log<M: MathOps>(m: &mut M, d: M::F) -> M::F {
    let (mm, e) = log_split(m, d);
    let x = log_ratio(m, mm);
    let x2 = m.mul(x.x, x.x);
    let t = m.poly(x2, &LOG_POLY);
    let ef = m.i2f(e);
    let l2 = m.cdd(LN2_HI, LN2_LO);
    let s = m.ddmul_df(l2, ef);
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
    let t = m.poly(
        x2,
        &[
            0.2211941750456081490e+0,
            0.2200768693152277689e+0,
            0.2623708057488514656e+0,
            0.3205977477944495502e+0,
            0.4121985945485324709e+0,
            0.5770780162997058982e+0,
            0.96179669392608091449,
        ],
    );
    let ef = m.i2f(e);
    let k = m.cdd(2.885390081777926774, 6.0561604995516736434e-18);
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
    let t = m.poly(
        x2,
        &[
            0.6653725819576758460e-1,
            0.6625722782820833712e-1,
            0.7898105214313944078e-1,
            0.9650955035715275132e-1,
            0.1240841409721444993e+0,
            0.1737177927454605086e+0,
            0.2895296546021972617e+0,
        ],
    );
    let ef = m.i2f(e);
    let l = m.cdd(0.30102999566398119802, -2.803728127785170339e-18);
    let s = m.ddmul_df(l, ef);
    let k = m.cdd(0.86858896380650363334, 1.1430059694096389311e-17);
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
    let o = m.ltc(dp1, DBL_MIN);
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
    let l2 = m.cdd(LN2_HI, LN2_LO);
    let s = m.ddmul_df(l2, ef);
    let two = m.c(2.0);
    let z = m.c(0.0);
    let den = m.ddadd_ff(two, mm);
    let x = m.dddiv(dd(mm, z), den);
    let x2 = m.mul(x.x, x.x);
    let t = m.poly(x2, &LOG_POLY);
    let x2s = m.ddscalec(x, 2.0);
    let s = m.ddadd_dd(s, x2s);
    let x3 = m.mul(x2, x.x);
    let x3t = m.mul(x3, t);
    let s = m.ddadd_df(s, x3t);
    let r = m.add(s.x, s.y);
    let core = m.lec(d, LOG1P_BOUND);
    let big = log(m, d);
    let r = m.fsel(core, r, big);
    let lt = m.ltc(d, -1.0);
    let nan = m.isnan(d);
    let bad = m.bor(lt, nan);
    let r = m.selc(bad, f64::NAN, r);
    let m1 = m.eqc(d, -1.0);
    let r = m.selc(m1, f64::NEG_INFINITY, r);
    let nz = m.isnegzero(d);
    let r = m.selc(nz, -0.0, r);
    // log1p(d) rounds to d here (and d / 2 above would lose subnormals).
    let ad = m.abs(d);
    let tiny = m.ltc(ad, 1e-17);
    m.fsel(tiny, d, r)
}

fn exp<M: MathOps>(m: &mut M, d: M::F) -> M::F {
    let dl = m.mulc(d, R_LN2);
    let u = m.rint(dl);
    let q = m.f2i_rn(u);
    let nl2u = m.c(-L2U);
    let s = m.fma(u, nl2u, d);
    let nl2l = m.c(-L2L);
    let s = m.fma(u, nl2l, s);
    let u = m.poly(
        s,
        &[
            0.2081276378237164457e-8,
            0.2511210703042288022e-7,
            0.2755762628169491192e-6,
            0.2755723402025388239e-5,
            0.2480158687479686264e-4,
            0.1984126989855865850e-3,
            0.1388888888914497797e-2,
            0.8333333333314938210e-2,
            0.4166666666666602598e-1,
            0.1666666666666669072e+0,
        ],
    );
    let u = m.mlac(u, s, 0.5);
    let u = m.mlac(u, s, 1.0);
    let u = m.mlac(u, s, 1.0);
    let u = m.ldexp2(u, q);
    let big = m.gtc(d, LOG_DBL_MAX);
    let u = m.selc(big, f64::INFINITY, u);
    let small = m.ltc(d, -1000.0);
    m.zero_if(small, u)
}

fn exp2<M: MathOps>(m: &mut M, d: M::F) -> M::F {
    let u = m.rint(d);
    let q = m.f2i_rn(u);
    let s = m.sub(d, u);
    let u = m.poly(
        s,
        &[
            0.4434359082926529454e-9,
            0.7073164598085707425e-8,
            0.1017819260921760451e-6,
            0.1321543872511327615e-5,
            0.1525273353517584730e-4,
            0.1540353045101147808e-3,
            0.1333355814670499073e-2,
            0.9618129107597600536e-2,
            0.5550410866482046596e-1,
            0.2402265069591012214e+0,
        ],
    );
    let u = m.mlac(u, s, 0.6931471805599452862e+0);
    let u = m.mlac(u, s, 1.0);
    let u = m.ldexp2(u, q);
    let big = m.gec(d, 1024.0);
    let u = m.selc(big, f64::INFINITY, u);
    let small = m.ltc(d, -2000.0);
    m.zero_if(small, u)
}

/// `e^d` for a double-word `d`, as a double-word (SLEEF `expk2`).
pub(super) fn expk2<M: MathOps>(m: &mut M, d: D<M>) -> D<M> {
    let d0 = m.add(d.x, d.y);
    let u = m.mulc(d0, R_LN2);
    let dq = m.rint(u);
    let q = m.f2i_rn(dq);
    let a = m.mulc(dq, -L2U);
    let s = m.ddadd2_df(d, a);
    let b = m.mulc(dq, -L2L);
    let s = m.ddadd2_df(s, b);
    let s2 = m.ddsqu(s);
    let s4 = m.ddsqu(s2);
    let u = m.poly(
        s.x,
        &[
            0.1602472219709932072e-9,
            0.2092255183563157007e-8,
            0.2505230023782644465e-7,
            0.2755724800902135303e-6,
            0.2755731892386044373e-5,
            0.2480158735605815065e-4,
            0.1984126984148071858e-3,
            0.1388888888886763255e-2,
            0.8333333333333347095e-2,
            0.4166666666666669905e-1,
        ],
    );
    let c6 = m.c(0.1666666666666666574e+0);
    let sc = m.ddmul_df(s, c6);
    let half = m.c(0.5);
    let t = m.ddadd_fd(half, sc);
    let one = m.c(1.0);
    let ts = m.ddmul_dd(t, s);
    let t = m.ddadd_fd(one, ts);
    let ts = m.ddmul_dd(t, s);
    let t = m.ddadd_fd(one, ts);
    let s4u = m.ddmul_df(s4, u);
    let t = m.ddadd_dd(t, s4u);
    // Normalised first: a high part of 1 + ulp over a negative low part must not
    // overflow when the sum does not.
    let t = m.ddnormalize(t);
    let tx = m.ldexp2(t.x, q);
    let ty = m.ldexp2(t.y, q);
    let small = m.ltc(d.x, -1000.0);
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
    let big = m.gtc(a, 709.782712893383996732223);
    let x = m.selc(big, f64::INFINITY, x);
    // Below -54 ln 2, e^a - 1 rounds to -1 (SLEEF's -53 ln 2 was an ulp early).
    let small = m.ltc(a, -37.42994775023705);
    let x = m.selc(small, -1.0, x);
    let nz = m.isnegzero(a);
    m.selc(nz, -0.0, x)
}

/// `(E, R, scale)` with `(E -/+ R) * scale` = sinh/cosh of `y >= 0`: `E = e^y`, `R = 1/E`,
/// `scale = 1/2`, or, near overflow, `E = e^y / 2` (from `y - ln 2` as a double-word),
/// `R = 1/(4E)`, `scale = 1`.
fn exp_halves<M: MathOps>(m: &mut M, y: M::F) -> (D<M>, D<M>, M::F) {
    let big = m.gtc(y, 709.0);
    let z = m.c(0.0);
    let nh = m.c(-LN2_HI);
    let h = m.ddadd2_ff(y, nh);
    let nl = m.c(-LN2_LO);
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
    let big = m.gtc(ax, 711.0);
    let yn = m.isnan(y);
    let c = m.bor(big, yn);
    let y = m.selc(c, f64::INFINITY, y);
    let y = m.mulsign(y, x);
    let xn = m.isnan(x);
    let y = m.or_nan(xn, y);
    // The result rounds to x here; the double-word cancellation above loses a bit.
    let tiny = m.ltc(ax, 1e-8);
    m.fsel(tiny, x, y)
}

fn cosh<M: MathOps>(m: &mut M, x: M::F) -> M::F {
    let y = m.abs(x);
    let (d, r, scale) = exp_halves(m, y);
    let d = m.ddadd_dd(d, r);
    let s = m.add(d.x, d.y);
    let y = m.mul(s, scale);
    let ax = m.abs(x);
    let big = m.gtc(ax, 711.0);
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
    let a = m.ddadd2_dd(d, ne);
    let b = m.ddadd2_dd(d, e);
    let d = m.dddiv(a, b);
    let y = m.add(d.x, d.y);
    let ax = m.abs(x);
    // Above 27.5 ln 2, tanh rounds to 1 (SLEEF's 27 ln 2 was an ulp early).
    let big = m.gtc(ax, 19.061547465398497);
    let yn = m.isnan(y);
    let c = m.bor(big, yn);
    let y = m.selc(c, 1.0, y);
    let y = m.mulsign(y, x);
    let xn = m.isnan(x);
    let y = m.or_nan(xn, y);
    // The result rounds to x here; the double-word cancellation above loses a bit.
    let tiny = m.ltc(ax, 1e-8);
    m.fsel(tiny, x, y)
}

/// `log(d)` as a double-word (SLEEF `logk`).
fn logk<M: MathOps>(m: &mut M, d: M::F) -> D<M> {
    let (mm, e) = log_split(m, d);
    let x = log_ratio(m, mm);
    let x2 = m.ddsqu(x);
    let t = m.poly(
        x2.x,
        &[
            0.116255524079935043668677,
            0.103239680901072952701192,
            0.117754809412463995466069,
            0.13332981086846273921509,
            0.153846227114512262845736,
            0.181818180850050775676507,
            0.222222222230083560345903,
            0.285714285714249172087875,
            0.400000000000000077715612,
        ],
    );
    let c = m.cdd(0.666666666666666629659233, 3.80554962542412056336616e-17);
    let ef = m.i2f(e);
    let l2 = m.cdd(LN2_HI, LN2_LO);
    let s = m.ddmul_df(l2, ef);
    let x2s = m.ddscalec(x, 2.0);
    let s = m.ddadd_dd(s, x2s);
    let x = m.ddmul_dd(x2, x);
    let xc = m.ddmul_dd(x, c);
    let s = m.ddadd_dd(s, xc);
    let x = m.ddmul_dd(x2, x);
    let xt = m.ddmul_df(x, t);
    m.ddadd_dd(s, xt)
}

/// `e^d` for a double-word `d` (SLEEF `expk`).
fn expk<M: MathOps>(m: &mut M, d: D<M>) -> M::F {
    let s0 = m.add(d.x, d.y);
    let u = m.mulc(s0, R_LN2);
    let dq = m.rint(u);
    let q = m.f2i_rn(dq);
    let a = m.mulc(dq, -L2U);
    let s = m.ddadd2_df(d, a);
    let b = m.mulc(dq, -L2L);
    let s = m.ddadd2_df(s, b);
    let s = m.ddnormalize(s);
    let u = m.poly(
        s.x,
        &[
            2.51069683420950419527139e-08,
            2.76286166770270649116855e-07,
            2.75572496725023574143864e-06,
            2.48014973989819794114153e-05,
            0.000198412698809069797676111,
            0.0013888888939977128960529,
            0.00833333333332371417601081,
            0.0416666666665409524128449,
            0.166666666666666740681535,
            0.500000000000000999200722,
        ],
    );
    let one = m.c(1.0);
    let t = m.ddadd_fd(one, s);
    let ss = m.ddsqu(s);
    let ssu = m.ddmul_df(ss, u);
    let t = m.ddadd_dd(t, ssu);
    let u = m.add(t.x, t.y);
    let u = m.ldexp2(u, q);
    let small = m.ltc(d.x, -1000.0);
    m.zero_if(small, u)
}

fn pow<M: MathOps>(m: &mut M, x: M::F, y: M::F) -> M::F {
    let ry = m.rint(y);
    let yisint = m.eq(ry, y);
    let hy = m.mulc(y, 0.5);
    let rhy = m.rint(hy);
    let heq = m.eq(rhy, hy);
    let odd = m.bnot(heq);
    let yisodd = m.band(odd, yisint);
    let ax = m.abs(x);
    let l = logk(m, ax);
    let d = m.ddmul_df(l, y);
    let result = expk(m, d);
    let o = m.gtc(d.x, LOG_DBL_MAX);
    let result = m.selc(o, f64::INFINITY, result);
    let xpos = m.gtc(x, 0.0);
    let sgn = m.selcc(yisodd, -1.0, 1.0);
    let nan = m.fnan();
    let sgn = m.fsel(yisint, sgn, nan);
    let one = m.c(1.0);
    let sgn = m.fsel(xpos, one, sgn);
    let result = m.mul(result, sgn);
    pow_specials(m, x, y, yisodd, result)
}

/// pow's special cases (C99 Annex F, as SLEEF's `xpow`).
fn pow_specials<M: MathOps>(m: &mut M, x: M::F, y: M::F, yisodd: M::B, result: M::F) -> M::F {
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
    let one = m.c(1.0);
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
    const CA: [f64; 21] = [
        -0.2083271002525222097e-14,
        0.7151909970790897009e-13,
        -0.1162238220110999364e-11,
        0.1186474230821585259e-10,
        -0.8499973178354613440e-10,
        0.4507647462598841629e-9,
        -0.1808044474288848915e-8,
        0.5435081826716212389e-8,
        -0.1143939895758628484e-7,
        0.1215442362680889243e-7,
        0.1669878756181250355e-7,
        -0.9808074602255194288e-7,
        0.1389000557865837204e-6,
        0.2945514529987331866e-6,
        -0.1842918273003998283e-5,
        0.3417987836115362136e-5,
        0.3860236356493129101e-5,
        -0.3309403072749947546e-4,
        0.1060862922597579532e-3,
        0.2323253155213076174e-3,
        0.1490149719145544729e-3,
    ];
    const CB: [f64; 21] = [
        -0.4024015130752621932e-18,
        0.3847193332817048172e-16,
        -0.1749316241455644088e-14,
        0.5029618322872872715e-13,
        -0.1025221466851463164e-11,
        0.1573695559331945583e-10,
        -0.1884658558040203709e-9,
        0.1798167853032159309e-8,
        -0.1380745342355033142e-7,
        0.8525705726469103499e-7,
        -0.4160448058101303405e-6,
        0.1517272660008588485e-5,
        -0.3341634127317201697e-5,
        -0.2515023395879724513e-5,
        0.6539731269664907554e-4,
        -0.3551065097428388658e-3,
        0.1210736097958368864e-2,
        -0.2605566912579998680e-2,
        0.1252823202436093193e-2,
        0.1820191395263313222e-1,
        -0.1021557155453465954e+0,
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
        (0.0092877958392275604405, 7.9287559463961107493e-19),
        (-0.63691044383641748361, -2.4249477526539431839e-17),
    );
    let c1 = sel_dd(
        m,
        (0.042275531758784692937, 1.3785226620501016138e-19),
        (-1.1282926061803961737, -6.2970338860410996505e-17),
    );
    let c0 = sel_dd(
        m,
        (0.07052369794346953491, 9.5846628070792092842e-19),
        (-1.2261313785184804967e-05, -5.5329707514490107044e-22),
    );
    let t2 = poly4dd(m, x, t, c2, c1, c0);
    let t2x = m.ddmul_df(t2, x);
    let one = m.c(1.0);
    let mut s2 = m.ddadd_fd(one, t2x);
    for _ in 0..4 {
        s2 = m.ddsqu(s2);
    }
    let s2 = m.ddrec_d(s2);
    let e = expk(m, t2);
    let z = m.c(0.0);
    let t2 = m.ddsel(o25, s2, dd(e, z));
    let mone = m.c(-1.0);
    let t2 = m.ddadd2_df(t2, mone);
    let s = m.add(t2.x, t2.y);
    let z = m.neg(s);
    let tiny = m.ltc(x, 1e-8);
    let lin = m.mulc(x, 1.12837916709551262756245475959);
    let z = m.fsel(tiny, lin, z);
    let big = m.gec(x, 6.0);
    let z = m.selc(big, 1.0, z);
    let inf = m.isinf(a);
    let z = m.selc(inf, 1.0, z);
    let a0 = m.eqc(a, 0.0);
    let z = m.selc(a0, 0.0, z);
    m.mulsign(z, a)
}

/// `c0 + c1 x + (c2 + c3 x) x^2` in double-words (SLEEF `poly4dd`).
pub(super) fn poly4dd<M: MathOps>(
    m: &mut M,
    x: M::F,
    c3: M::F,
    c2: D<M>,
    c1: D<M>,
    c0: D<M>,
) -> D<M> {
    let z = m.c(0.0);
    let hi = ddmla(m, x, dd(c3, z), c2);
    let lo = ddmla(m, x, c1, c0);
    let x2 = m.mul(x, x);
    ddmla(m, x2, hi, lo)
}

/// `z + y * x` (SLEEF `ddmla_vd2_vd_vd2_vd2`).
fn ddmla<M: MathOps>(m: &mut M, x: M::F, y: D<M>, z: D<M>) -> D<M> {
    let yx = m.ddmul_df(y, x);
    m.ddadd_dd(z, yx)
}

/// `sqrt(x^2 + y^2)` without overflow (SLEEF `xhypot_u05`/`xhypotf_u05`; both widths),
/// scaling small arguments up so that the double-word low parts stay normal.
pub(super) fn hypot<M: MathOps>(m: &mut M, x: M::F, y: M::F) -> M::F {
    let k = if m.bits() == 64 { 512.0 } else { 64.0 };
    let (tiny, up, down) = (f64::exp2(-k), f64::exp2(k), f64::exp2(-k));
    let x = m.abs(x);
    let y = m.abs(y);
    let xl = m.lt(x, y);
    let min = m.fsel(xl, x, y);
    let max = m.fsel(xl, y, x);
    let o = m.ltc(max, tiny);
    let ns = m.mulc(min, up);
    let n = m.fsel(o, ns, min);
    let ds = m.mulc(max, up);
    let d = m.fsel(o, ds, max);
    let z = m.c(0.0);
    let t = m.dddiv(dd(n, z), dd(d, z));
    let t2 = m.ddsqu(t);
    let one = m.c(1.0);
    let a = m.ddadd2_df(t2, one);
    let r = m.ddsqrt_d(a);
    let t = m.ddmul_df(r, d);
    let ret = m.add(t.x, t.y);
    let back = m.mulc(ret, down);
    let ret = m.fsel(o, back, ret);
    let rn = m.isnan(ret);
    let ret = m.selc(rn, f64::INFINITY, ret);
    let min0 = m.eqc(min, 0.0);
    let ret = m.fsel(min0, max, ret);
    let xn = m.isnan(x);
    let yn = m.isnan(y);
    let n = m.bor(xn, yn);
    let ret = m.selc(n, f64::NAN, ret);
    let xi = m.ispinf(x);
    let yi = m.ispinf(y);
    let i = m.bor(xi, yi);
    m.selc(i, f64::INFINITY, ret)
}
