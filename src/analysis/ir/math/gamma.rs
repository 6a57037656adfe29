//! The complementary error function and the gamma functions, one version for both widths
//! (constants and a few steps chosen by width): SLEEF's `xerfc_u15`/`xerfcf_u15`,
//! `xlgamma_u1`/`xlgammaf_u1` and `xtgamma_u1`/`xtgammaf_u1`, over `gammak`/`gammafk` and
//! `sinpik`/`sinpifk`, with this library's `expk2` (`dp.rs`, `sp.rs`) and `logk2`
//! (`inverse.rs`). Departures from SLEEF (each commented where it is): Stirling's
//! `(x - 1/2) log x - x` is computed as `(x - 1/2) (log x - 1)`, whose product does not
//! overflow before lgamma does; gamma scales `e^clc` up by 2^512 (2^64 at float32) where it
//! would be subnormal and the product back down, so results near the poles of negative
//! arguments keep their bits; the float32 `logk2` scales with `ldexp2` (as for float64, see
//! `inverse.rs`); the reduction of `a` modulo 2^28 (float64) or 2^12 (float32) before
//! `sinpik` truncates in floating point (SLEEF converts to a 32-bit integer and back: the
//! same value wherever that conversion does not overflow, and the arguments where it does
//! are integers, whose results are fixed by the special cases).
//!
//! Special values, as libdevice's and C99's: `erfc(-inf) = 2`, `erfc(inf) = 0`;
//! `lgamma(±inf) = lgamma(non-positive integer) = +inf`, `lgamma(1) = lgamma(2) = 0`;
//! `tgamma(±0) = ±inf`, `tgamma(negative integer) = tgamma(-inf) = NaN`,
//! `tgamma(inf) = inf`, overflowing to `+inf`; NaN gives NaN.

use super::dd::{D, Ext, dd};
use super::inverse::logk2;
use super::MathOps;

const DBL_MIN: f64 = 2.2250738585072014e-308;
const LN2_HI: f64 = 0.693147180559945286226764;
const LN2_LO: f64 = 2.319046813846299558417771e-17;
const LN2F_HI: f64 = 0.69314718246459960938;
const LN2F_LO: f64 = -1.904654323148236017e-09;
const FLT_MIN: f64 = 1.1754943508222875e-38;

fn wide<M: MathOps>(m: &M) -> bool {
    m.bits() == 64
}

fn expk2<M: MathOps>(m: &mut M, d: D<M>) -> D<M> {
    if wide(m) {
        super::dp::expk2(m, d)
    } else {
        super::sp::expk2(m, d)
    }
}

/// `c[0]` where `o[0]`, else `c[1]` where `o[1]`, else `c[2]` where `o[2]`, else `c[3]`
/// (SLEEF `vsel_vd_vo_vo_vo_d_d_d_d`).
fn sel4<M: MathOps>(m: &mut M, o: [M::B; 3], c: [f64; 4]) -> M::F {
    let v = m.selcc(o[2], c[2], c[3]);
    let v = m.selc(o[1], c[1], v);
    m.selc(o[0], c[0], v)
}

/// `c[0]` where `o2`, else `c[1]` where `o0`, else `c[2]` (SLEEF `vsel_vd_vo_vo_d_d_d`).
fn sel3<M: MathOps>(m: &mut M, o2: M::B, o0: M::B, c: [f64; 3]) -> M::F {
    let v = m.selcc(o0, c[1], c[2]);
    m.selc(o2, c[0], v)
}

/// The double-word `(c[0], c[1])` where `o`, else `(c[2], c[3])`.
fn sel_dd<M: MathOps>(m: &mut M, o: M::B, c: [f64; 4]) -> D<M> {
    let h = m.selcc(o, c[0], c[2]);
    let l = m.selcc(o, c[1], c[3]);
    dd(h, l)
}

/// `sin(pi d)` as a double-word (SLEEF `sinpik`/`sinpifk`), for `|d|` below 2^28.
fn sinpik<M: MathOps>(m: &mut M, d: M::F) -> D<M> {
    let w = wide(m);
    let u = m.mulc(d, 4.0);
    let q = m.f2i_rz(u);
    // q + 1 for q >= 0, rounded down to even (SLEEF shifts the 32-bit sign bit down).
    let bits = m.bits();
    let sign = m.srl(q, bits - 1);
    let one_i = m.iconst(1);
    let k = m.ixor(sign, one_i);
    let q = m.iadd(q, k);
    let q = m.iandc(q, !1);
    let q2 = m.iandc(q, 2);
    let o = m.ieqc(q2, 2);
    let qf = m.i2f(q);
    let s = m.sub(u, qf);
    let t = s;
    let s = m.mul(s, s);
    let s2 = m.ddmul_ff(t, t);
    let (cu, c1, c0): (&[[f64; 2]], [f64; 4], [f64; 4]) = if w {
        (
            &SINPI_U_64,
            [
                0.0158543442438155018914259,
                -1.04693272280631521908845e-18,
                -0.0807455121882807852484731,
                3.61852475067037104849987e-18,
            ],
            [
                -0.308425137534042437259529,
                -1.95698492133633550338345e-17,
                0.785398163397448278999491,
                3.06287113727155002607105e-17,
            ],
        )
    } else {
        (
            &SINPI_U_32,
            [
                0.015854343771934509277,
                4.4940051354032242811e-10,
                -0.080745510756969451904,
                -1.3373665339076936258e-09,
            ],
            [
                -0.30842512845993041992,
                -9.0728339030733922277e-09,
                0.78539818525314331055,
                -2.1857338617566484855e-08,
            ],
        )
    };
    let mut u = m.selcc(o, cu[0][0], cu[0][1]);
    for c in &cu[1..] {
        let k = m.selcc(o, c[0], c[1]);
        u = m.fma(u, s, k);
    }
    let us = m.mul(u, s);
    let k = sel_dd(m, o, c1);
    let x = m.ddadd2_fd(us, k);
    let p = m.ddmul_dd(s2, x);
    let k = sel_dd(m, o, c0);
    let x = m.ddadd2_dd(p, k);
    let z = m.c(0.0);
    let f = m.ddsel(o, s2, dd(t, z));
    let x = m.ddmul_dd(x, f);
    let one = m.c(1.0);
    let x1 = m.ddadd2_df(x, one);
    let x = m.ddsel(o, x1, x);
    let q4 = m.iandc(q, 4);
    let o = m.ieqc(q4, 4);
    let nx = m.ddneg(x);
    m.ddsel(o, nx, x)
}

/// `(clc, q)` with `gamma(a) = e^clc * q` (SLEEF `gammak`/`gammafk`): Stirling's series
/// above 2.3 (after shifting arguments up to 7 by 5, or 3 at float32, and dividing by the
/// product of the shifts), polynomials around 1 and 2 below, the reflection formula below
/// 0.5 and `1/a` for tiny `a`.
fn gammak<M: MathOps>(m: &mut M, a: M::F) -> (D<M>, D<M>) {
    let w = wide(m);
    let z = m.c(0.0);
    let one = m.c(1.0);
    let aa = m.abs(a);
    let otiny = m.ltc(aa, if w { 1e-306 } else { 1e-30 });
    let oref = m.ltc(a, 0.5);
    let na = m.neg(a);
    let r = m.ddadd2_ff(one, na);
    let x = m.ddsel(oref, r, dd(a, z));
    let x = m.ddsel(otiny, dd(z, z), x);
    let o0a = m.gec(x.x, 0.5);
    let o0b = m.lec(x.x, if w { 1.1 } else { 1.2 });
    let o0 = m.band(o0a, o0b);
    let o2 = m.gec(x.x, 2.3);
    // y = x (x + 1) ... (x + n), normalised at each step.
    let mut y = x;
    for k in 1..=if w { 4 } else { 2 } {
        let xk = m.c(k as f64);
        let xk = m.ddadd2_df(x, xk);
        let p = m.ddmul_dd(xk, y);
        y = m.ddnormalize(p);
    }
    let o7 = m.lec(x.x, 7.0);
    let o = m.band(o2, o7);
    let clln = m.ddsel(o, y, dd(one, z));
    let shift = m.c(if w { 5.0 } else { 3.0 });
    let xs = m.ddadd2_df(x, shift);
    let x = m.ddsel(o, xs, x);
    let rx = m.div(one, x.x);
    let off = m.selcc(o0, -1.0, -2.0);
    let xo = m.ddadd2_df(x, off);
    let xo = m.ddnormalize(xo);
    let t = m.fsel(o2, rx, xo.x);
    let cu: &[[f64; 3]] = if w { &GAMMA_U_64 } else { &GAMMA_U_32 };
    let mut u = sel3(m, o2, o0, cu[0]);
    for c in &cu[1..] {
        let k = sel3(m, o2, o0, *c);
        u = m.fma(u, t, k);
    }
    // Stirling: (x - 1/2) log x - x + log(2 pi)/2, as (x - 1/2) (log x - 1) - 1/2 +
    // log(2 pi)/2 (SLEEF's product overflows where lgamma does not, from 2.5e305 or 4e36).
    let mh = m.c(-0.5);
    let xh = m.ddadd2_df(x, mh);
    let lx = logk2(m, x);
    let mone = m.c(-1.0);
    let lx1 = m.ddadd2_df(lx, mone);
    let y = m.ddmul_dd(xh, lx1);
    let hl2pi = if w {
        m.cdd(0.91893853320467278056 - 0.5, -3.8782941580672414498e-17)
    } else {
        m.cdd_split(0.91893853320467278056 - 0.5)
    };
    let y = m.ddadd2_dd(y, hl2pi);
    let zc: [[f64; 2]; 3] = if w {
        [
            [-0.4006856343865314862e+0, -0.6735230105319810201e-1],
            [0.8224670334241132030e+0, 0.3224670334241132030e+0],
            [-0.5772156649015328655e+0, 0.4227843350984671345e+0],
        ]
    } else {
        [
            [-0.400686534596170958447352690395e+0, -0.673523028297382446749257758235e-1],
            [0.822466960142643054450325495997e+0, 0.322467033928981157743538726901e+0],
            [-0.577215665946766039837398973297e+0, 0.422784335087484338986941629852e+0],
        ]
    };
    let ut = m.ddmul_ff(u, t);
    let mut zz = ut;
    for c in zc {
        let k = m.selcc(o0, c[0], c[1]);
        zz = m.ddadd2_df(zz, k);
        zz = m.ddmul_df(zz, t);
    }
    let clc = m.ddsel(o2, y, zz);
    let ut1 = m.ddadd2_df(ut, one);
    let clld = m.ddsel(o2, ut1, dd(one, z));
    let y = clln;
    // Reflection: log(pi) - clc, and the sine of pi a below.
    let lpi = if w {
        m.cdd(1.1447298858494001639, 1.026595116270782638e-17)
    } else {
        m.cdd_split(1.1447298858494001639)
    };
    let nclc = m.ddneg(clc);
    let rc = m.ddadd2_dd(lpi, nclc);
    let clc = m.ddsel(oref, rc, clc);
    // log(2^120) or log(2^60) for tiny arguments, scaled by as much below.
    let tc = if w {
        m.cdd(83.1776616671934334590333, 3.67103459631568507221878e-15)
    } else {
        m.cdd_split(41.58883083359671856503)
    };
    let clc = m.ddsel(otiny, tc, clc);
    let clln = m.ddsel(oref, clln, clld);
    let clln = m.ddsel(otiny, dd(one, z), clln);
    let (p, up) = if w {
        (268435456.0, 1329227995784915872903807060280344576.0)
    } else {
        (4096.0, 1152921504606846976.0)
    };
    let ap = m.mulc(a, 1.0 / p);
    let ap = m.trunc(ap);
    let ap = m.mulc(ap, p);
    let t = m.sub(a, ap);
    let sp = sinpik(m, t);
    let x = m.ddmul_dd(clld, sp);
    let big = m.mulc(a, up);
    let clld = m.ddsel(oref, x, y);
    let clld = m.ddsel(otiny, dd(big, z), clld);
    let q = m.dddiv(clln, clld);
    (clc, q)
}

/// `gamma(a)` (SLEEF `xtgamma_u1`/`xtgammaf_u1`).
pub(super) fn tgamma<M: MathOps>(m: &mut M, a: M::F) -> M::F {
    let w = wide(m);
    let (clc, q) = gammak(m, a);
    // e^clc is subnormal where q is large (near the poles), so it is scaled up first and
    // the product down after, rounding once (SLEEF loses the bits of the subnormal).
    let (lim, k) = if w { (-600.0, 512) } else { (-64.0, 64) };
    let small = m.ltc(clc.x, lim);
    let up = if w {
        m.cdd(k as f64 * LN2_HI, k as f64 * LN2_LO)
    } else {
        m.cdd(k as f64 * LN2F_HI, k as f64 * LN2F_LO)
    };
    let z = m.c(0.0);
    let up = m.ddsel(small, up, dd(z, z));
    let clc = m.ddadd2_dd(clc, up);
    let e = expk2(m, clc);
    let y = m.ddmul_dd(e, q);
    let r = m.add(y.x, y.y);
    let down = m.selcc(small, (-(k as f64)).exp2(), 1.0);
    let r = m.mul(r, down);
    let ninf = m.c(f64::NEG_INFINITY);
    let isninf = m.eq(a, ninf);
    let neg = m.ltc(a, 0.0);
    let int = m.isint(a);
    let negint = m.band(neg, int);
    let num = m.isnumber(a);
    let rn = m.isnan(r);
    let c = m.band(num, neg);
    let c = m.band(c, rn);
    let o = m.bor(isninf, negint);
    let o = m.bor(o, c);
    let r = m.or_nan(o, r);
    let pinf = m.ispinf(a);
    let fin = m.bor(pinf, num);
    let ge = m.gec(a, if w { -DBL_MIN } else { -FLT_MIN });
    let a0 = m.eqc(a, 0.0);
    let big = m.gtc(a, if w { 200.0 } else { 36.0 });
    let rn = m.isnan(r);
    let c = m.bor(a0, big);
    let c = m.bor(c, rn);
    let o = m.band(fin, ge);
    let o = m.band(o, c);
    let inf = m.finf();
    let si = m.mulsign(inf, a);
    m.fsel(o, si, r)
}

/// `log|gamma(a)|` (SLEEF `xlgamma_u1`/`xlgammaf_u1`).
pub(super) fn lgamma<M: MathOps>(m: &mut M, a: M::F) -> M::F {
    let (clc, q) = gammak(m, a);
    let aq = m.ddabs(q);
    let l = logk2(m, aq);
    let y = m.ddadd2_dd(clc, l);
    let r = m.add(y.x, y.y);
    let inf = m.isinf(a);
    let le0 = m.lec(a, 0.0);
    let int = m.isint(a);
    let pole = m.band(le0, int);
    let num = m.isnumber(a);
    let rn = m.isnan(r);
    let c = m.band(num, rn);
    let o = m.bor(inf, pole);
    let o = m.bor(o, c);
    m.selc(o, f64::INFINITY, r)
}

/// `1 - erf(a)` (SLEEF `xerfc_u15`/`xerfcf_u15`): on `|a|`, then `2 - r` for negative `a`.
pub(super) fn erfc<M: MathOps>(m: &mut M, s: M::F) -> M::F {
    let w = wide(m);
    let a = m.abs(s);
    let z = m.c(0.0);
    let one = m.c(1.0);
    let o0 = m.ltc(a, 1.0);
    let o1 = m.ltc(a, 2.2);
    let o2 = m.ltc(a, if w { 4.2 } else { 4.3 });
    let o3 = m.ltc(a, if w { 27.3 } else { 10.1 });
    let o = [o0, o1, o2];
    // u: a^2 below 1 (float64 only), a below 2.2, 1/a above.
    let ra = m.dddiv(dd(one, z), dd(a, z));
    let u = m.ddsel(o1, dd(a, z), ra);
    let u = if w {
        let sq = m.ddmul_ff(a, a);
        m.ddsel(o0, sq, u)
    } else {
        u
    };
    let ct: &[[f64; 4]] = if w { &ERFC_T_64 } else { &ERFC_T_32 };
    let mut t = sel4(m, o, ct[0]);
    for c in &ct[1..] {
        let k = sel4(m, o, *c);
        t = m.fma(t, u.x, k);
    }
    let cd: Vec<D<M>> = if w {
        ERFC_D_64
            .chunks(2)
            .map(|hl| {
                let h = sel4(m, o, hl[0]);
                let l = sel4(m, o, hl[1]);
                dd(h, l)
            })
            .collect()
    } else {
        ERFC_D_32
            .iter()
            .map(|c| {
                let hi = c.map(|v| v as f32 as f64);
                let lo = [0, 1, 2, 3].map(|i| c[i] - hi[i]);
                let h = sel4(m, o, hi);
                let l = sel4(m, o, lo);
                dd(h, l)
            })
            .collect()
    };
    let mut d = m.ddmul_df(u, t);
    for (i, &c) in cd.iter().enumerate() {
        if i > 0 {
            d = m.ddmul_dd(d, u);
        }
        d = m.ddadd2_dd(d, c);
    }
    // Below 2.2: d a; above: -a^2 + d (times 1/a after the exponential).
    let na = m.neg(a);
    let f = m.ddsel(o1, d, dd(na, z));
    let x = m.ddmul_df(f, a);
    let xd = m.ddadd2_dd(x, d);
    let x = m.ddsel(o1, x, xd);
    let e = expk2(m, x);
    let x = if w {
        // 1 - erf below 1 at float64.
        let sub = m.ddsub_dd(dd(one, z), x);
        m.ddsel(o0, sub, e)
    } else {
        e
    };
    let xu = m.ddmul_dd(x, u);
    let x = m.ddsel(o1, x, xu);
    let r = m.add(x.x, x.y);
    let r = m.fsel(o3, r, z);
    let two = m.c(2.0);
    let r2 = m.sub(two, r);
    let sb = m.signbit(s);
    let r = m.fsel(sb, r2, r);
    let n = m.isnan(s);
    m.or_nan(n, r)
}

// SLEEF's coefficients, digit for digit; rows from the highest power down. Columns of
// GAMMA_U: Stirling (x >= 2.3), around 1 (0.5 <= x <= 1.1, or 1.2 at float32), around 2.
const GAMMA_U_64: [[f64; 3]; 23] = [
    [-156.801412704022726379848862, 0.2947916772827614196e+2, 0.7074816000864609279e-7],
    [1.120804464289911606838558160000, 0.1281459691827820109e+3, 0.4009244333008730443e-6],
    [13.39798545514258921833306020000, 0.2617544025784515043e+3, 0.1040114641628246946e-5],
    [-0.116546276599463200848033357000, 0.3287022855685790432e+3, 0.1508349150733329167e-5],
    [-1.391801093265337481495562410000, 0.2818145867730348186e+3, 0.1288143074933901020e-5],
    [0.015056113040026424412918973400, 0.1728670414673559605e+3, 0.4744167749884993937e-6],
    [0.179540117061234856098844714000, 0.7748735764030416817e+2, -0.6554816306542489902e-7],
    [-0.002481743600264997730942489280, 0.2512856643080930752e+2, -0.3189252471452599844e-6],
    [-0.029527880945699120504851034100, 0.5766792106140076868e+1, 0.1358883821470355377e-6],
    [0.000540164767892604515196325186, 0.7270275473996180571e+0, -0.4343931277157336040e-6],
    [0.006403362833808069794787256200, 0.8396709124579147809e-1, 0.9724785897406779555e-6],
    [-0.000162516262783915816896611252, -0.8211558669746804595e-1, -0.2036886057225966011e-5],
    [-0.001914438498565477526465972390, 0.6828831828341884458e-1, 0.4373363141819725815e-5],
    [7.20489541602001055898311517e-05, -0.7712481339961671511e-1, -0.9439951268304008677e-5],
    [0.000839498720672087279971000786, 0.8337492023017314957e-1, 0.2050727030376389804e-4],
    [-5.17179090826059219329394422e-05, -0.9094964931456242518e-1, -0.4492620183431184018e-4],
    [-0.000592166437353693882857342347, 0.1000996313575929358e+0, 0.9945751236071875931e-4],
    [6.97281375836585777403743539e-05, -0.1113342861544207724e+0, -0.2231547599034983196e-3],
    [0.000784039221720066627493314301, 0.1255096673213020875e+0, 0.5096695247101967622e-3],
    [-0.000229472093621399176949318732, -0.1440498967843054368e+0, -0.1192753911667886971e-2],
    [-0.002681327160493827160473958490, 0.1695571770041949811e+0, 0.2890510330742210310e-2],
    [0.003472222222222222222175164840, -0.2073855510284092762e+0, -0.7385551028674461858e-2],
    [0.083333333333333333335592087900, 0.2705808084277815939e+0, 0.2058080842778455335e-1],
];
const GAMMA_U_32: [[f64; 3]; 9] = [
    [0.000839498720672087279971000786, 0.9435157776e+0, 0.1102489550e-3],
    [-5.17179090826059219329394422e-05, 0.8670063615e+0, 0.8160019934e-4],
    [-0.000592166437353693882857342347, 0.4826702476e+0, 0.1528468856e-3],
    [6.97281375836585777403743539e-05, -0.8855129778e-1, -0.2355068718e-3],
    [0.000784039221720066627493314301, 0.1013825238e+0, 0.4962242092e-3],
    [-0.000229472093621399176949318732, -0.1493408978e+0, -0.1193488017e-2],
    [-0.002681327160493827160473958490, 0.1697509140e+0, 0.2891599433e-2],
    [0.003472222222222222222175164840, -0.2072454542e+0, -0.7385451812e-2],
    [0.083333333333333333335592087900, 0.2705872357e+0, 0.2058077045e-1],
];
const ERFC_T_64: [[f64; 4]; 18] = [
    [0.6801072401395386139e-20, 0.3438010341362585303e-12, -0.5757819536420710449e+2, 0.2334249729638701319e+5],
    [-0.2161766247570055669e-18, -0.1237021188160598264e-10, 0.4669289654498104483e+3, -0.4695661044933107769e+5],
    [0.4695919173301595670e-17, 0.2117985839877627852e-09, -0.1796329879461355858e+4, 0.3173403108748643353e+5],
    [-0.9049140419888007122e-16, -0.2290560929177369506e-08, 0.4355892193699575728e+4, 0.3242982786959573787e+4],
    [0.1634018903557410728e-14, 0.1748931621698149538e-07, -0.7456258884965764992e+4, -0.2014717999760347811e+5],
    [-0.2783485786333451745e-13, -0.9956602606623249195e-07, 0.9553977358167021521e+4, 0.1554006970967118286e+5],
    [0.4463221276786415752e-12, 0.4330010240640327080e-06, -0.9470019905444229153e+4, -0.6150874190563554293e+4],
    [-0.6711366622850136563e-11, -0.1435050600991763331e-05, 0.7387344321849855078e+4, 0.1240047765634815732e+4],
    [0.9422759050232662223e-10, 0.3460139479650695662e-05, -0.4557713054166382790e+4, -0.8210325475752699731e+2],
    [-0.1229055530100229098e-08, -0.4988908180632898173e-05, 0.2207866967354055305e+4, 0.3242443880839930870e+2],
    [0.1480719281585086512e-07, -0.1308775976326352012e-05, -0.8217975658621754746e+3, -0.2923418863833160586e+2],
    [-0.1636584469123399803e-06, 0.2825086540850310103e-04, 0.2268659483507917400e+3, 0.3457461732814383071e+0],
    [0.1646211436588923575e-05, -0.6393913713069986071e-04, -0.4633361260318560682e+2, 0.5489730155952392998e+1],
    [-0.1492565035840623511e-04, -0.2566436514695078926e-04, 0.9557380123733945965e+1, 0.1559934132251294134e-2],
    [0.1205533298178967851e-03, 0.5895792375659440364e-03, -0.2958429331939661289e+1, -0.1541741566831520638e+1],
    [-0.8548327023450850081e-03, -0.1695715579163588598e-02, 0.1670329508092765480e+0, 0.2823152230558364186e-5],
    [0.5223977625442187932e-02, 0.2089116434918055149e-03, 0.6096615680115419211e+0, 0.6249999184195342838e+0],
    [-0.2686617064513125222e-01, 0.1912855949584917753e-01, 0.1059212443193543585e-2, 0.1741749416408701288e-8],
];
/// The double-word constants, high parts then low parts, per interval.
const ERFC_D_64: [[f64; 4]; 6] = [
    [0.11283791670955126141, -0.10277263343147646779, -0.50005180473999022439, -0.5000000000258444377],
    [-4.0175691625932118483e-18, -6.2338714083404900225e-18, 2.6362140569041995803e-17, -4.0074044712386992281e-17],
    [-0.37612638903183753802, -0.63661976742916359662, 1.601106273924963368e-06, 2.3761973137523364792e-13],
    [1.3391897206042552387e-17, 7.6321019159085724662e-18, 1.1974001857764476775e-23, -1.1670076950531026582e-29],
    [1.1283791670955125586, -1.1283791674717296161, -0.57236496645145429341, -0.57236494292470108114],
    [1.5335459613165822674e-17, 8.0896847755965377194e-17, 3.0704553245872027258e-17, -2.3984352208056898003e-17],
];
const ERFC_T_32: [[f64; 4]; 5] = [
    [-0.8638041618e-4, -0.6236977242e-5, -0.3869504035e+0, 0.1115344167e+1],
    [0.6000166177e-3, 0.5749821503e-4, 0.1288077235e+1, -0.9454904199e+0],
    [-0.1665703603e-2, 0.6002851478e-5, -0.1816803217e+1, -0.3667259514e+0],
    [0.1795156277e-3, -0.2851036377e-2, 0.1249150872e+1, 0.7155663371e+0],
    [0.1914106123e-1, 0.2260518074e-1, -0.1328857988e+0, -0.1262947265e-1],
];
const ERFC_D_32: [[f64; 4]; 3] = [
    [-0.102775359343930288081655368891e+0, -0.105247583459338632253369014063e+0, -0.482365310333045318680618892669e+0, -0.498961546254537647970305302739e+0],
    [-0.636619483208481931303752546439e+0, -0.635609463574589034216723775292e+0, -0.134450203224533979217859332703e-2, -0.471199543422848492080722832666e-4],
    [-0.112837917790537404939545770596e+1, -0.112855987376668622084547028949e+1, -0.572319781150472949561786101080e+0, -0.572364030327966044425932623525e+0],
];
const SINPI_U_64: [[f64; 2]; 6] = [
    [9.94480387626843774090208e-16, -2.02461120785182399295868e-14],
    [-3.89796226062932799164047e-13, 6.948218305801794613277840e-12],
    [1.150115825399960352669010e-10, -1.75724749952853179952664e-09],
    [-2.46113695010446974953590e-08, 3.133616889668683928784220e-07],
    [3.590860448590527540050620e-06, -3.65762041821615519203610e-05],
    [-0.000325991886927389905997954, 0.0024903945701927185027435600],
];
const SINPI_U_32: [[f64; 2]; 3] = [
    [-0.2430611801e-7, 0.3093842054e-6],
    [0.3590577080e-5, -0.3657307388e-4],
    [-0.3259917721e-3, 0.2490393585e-2],
];

