//! Payne-Hanek argument reduction: `d = q * pi/2 + r`, `|r| <= pi/4`, exact enough for
//! every finite float, with integer arithmetic on a table of the bits of 2/pi.
//!
//! With `|d| = m * 2^s` (`m` the integer significand), `d * 2/pi mod 4` needs only the bits
//! of 2/pi from weight `2^(s-1)` on: earlier ones give multiples of 4. Three words of them
//! (starting at any bit: a funnel shift of four table words) times `m` give the quadrant in
//! the top two bits of the low three product words and the fraction below it, to about
//! `2^-2w`, which leaves at least `w` good bits even in the worst cancellation of a float
//! of width `w`. The fraction becomes a double-word and is multiplied by pi/2.

use super::dd::{D, Ext, dd};
use super::{MathOps, Table};

/// A zero word, then the bits of 2/pi in 64-bit words.
pub static TWO_OVER_PI_64: [u64; 20] = [
    0,
    0xA2F9836E4E441529,
    0xFC2757D1F534DDC0,
    0xDB6295993C439041,
    0xFE5163ABDEBBC561,
    0xB7246E3A424DD2E0,
    0x06492EEA09D1921C,
    0xFE1DEB1CB129A73E,
    0xE88235F52EBB4484,
    0xE99C7026B45F7E41,
    0x3991D639835339F4,
    0x9C845F8BBDF9283B,
    0x1FF897FFDE05980F,
    0xEF2F118B5A0A6D1F,
    0x6D367ECF27CB09B7,
    0x4F463F669E5FEA2D,
    0x7527BAC7EBE5F17B,
    0x3D0739F78A5292EA,
    0x6BFB5FB11F8D5D08,
    0x56033046FC7B6BAB,
];

/// A zero word, then the bits of 2/pi in 32-bit words.
pub static TWO_OVER_PI_32: [u64; 8] = [
    0, 0xA2F9836E, 0x4E441529, 0xFC2757D1, 0xF534DDC0, 0xDB629599, 0x3C439041, 0xFE5163AB,
];

/// `(r, q)` with `d = q * pi/2 + r` (`q` exact modulo 4), for finite `|d| >= 16`; other
/// inputs give unspecified (finite-time, in-range) results that callers select away.
pub fn rempi<M: MathOps>(m: &mut M, d: M::F) -> (D<M>, M::I) {
    let w = m.bits();
    let (p, lw) = if w == 64 { (53u32, 6u32) } else { (24, 5) };
    let mb = p - 1;
    let a = m.abs(d);
    let bits = m.to_bits(a);
    let e = m.srl(bits, mb);
    let em = m.exp_mask();
    let e = m.iandc(e, em);
    let mant = m.iandc(bits, (1i64 << mb) - 1);
    let hidden = m.iconst(1i64 << mb);
    let mant = m.ior(mant, hidden);
    // First table bit used: s - 2 + w, s = e - bias - mb (one zero word pads the table).
    let bias = m.exp_bias();
    let t0 = m.iaddc(e, w as i64 - bias - mb as i64 - 2);
    let zero = m.iconst(0);
    let neg = m.ilt(t0, zero);
    let t0 = m.isel(neg, zero, t0);
    let idx = m.srl(t0, lw);
    let sh = m.iandc(t0, w as i64 - 1);
    let wc = m.iconst(w as i64);
    let rsh = m.isub(wc, sh);
    let mut words = [zero; 4];
    for (k, word) in words.iter_mut().enumerate() {
        let i = m.iaddc(idx, k as i64);
        *word = m.table(Table::TwoOverPi, i);
    }
    let mut win = [zero; 3];
    for k in 0..3 {
        let hi = m.shlv(words[k], sh);
        let lo = m.srlv(words[k + 1], rsh);
        win[k] = m.ior(hi, lo);
    }
    // The product modulo 2^(3w): p2:p1:p0.
    let p0 = m.imul(mant, win[2]);
    let h2 = m.imulhi_u(mant, win[2]);
    let l1 = m.imul(mant, win[1]);
    let p1 = m.iadd(h2, l1);
    let carry = m.iltu(p1, l1);
    let one = m.iconst(1);
    let c1 = m.isel(carry, one, zero);
    let h1 = m.imulhi_u(mant, win[1]);
    let l0 = m.imul(mant, win[0]);
    let p2 = m.iadd(h1, l0);
    let p2 = m.iadd(p2, c1);
    // Quadrant and the signed fraction (in [-1/2, 1/2), as hi:lo words).
    let q = m.srl(p2, w - 2);
    let a2 = m.shl(p2, 2);
    let a1 = m.srl(p1, w - 2);
    let fa = m.ior(a2, a1);
    let b2 = m.shl(p1, 2);
    let b1 = m.srl(p0, w - 2);
    let fb = m.ior(b2, b1);
    let up = m.ilt(fa, zero);
    let q1 = m.isel(up, one, zero);
    let q = m.iadd(q, q1);
    // Exact pieces of p, p, and the rest bits: fa * 2^-w + fb * 2^-2w.
    let k1 = w - p;
    let k2 = 2 * p - w;
    let v1 = m.sra(fa, k1);
    let fam = m.iandc(fa, (1i64 << k1) - 1);
    let v2h = m.shl(fam, k2);
    let v2l = m.srl(fb, w - k2);
    let v2 = m.ior(v2h, v2l);
    let v3 = m.iandc(fb, (1i64 << (w - k2)) - 1);
    let f1 = m.i2f(v1);
    let f1 = m.mulc(f1, (-(p as f64)).exp2());
    let f2 = m.i2f(v2);
    let f2 = m.mulc(f2, (-2.0 * p as f64).exp2());
    let f3 = m.i2f(v3);
    let f3 = m.mulc(f3, (-2.0 * w as f64).exp2());
    let fr = m.ddadd2_ff(f1, f2);
    let fr = m.ddadd2_df(fr, f3);
    let pio2 = if w == 64 {
        m.cdd(1.5707963267948966, 6.123233995736766e-17)
    } else {
        m.cdd(1.5707963705062866, -4.371139e-8)
    };
    let r = m.ddmul_dd(fr, pio2);
    let dneg = m.ltc(d, 0.0);
    let rn = m.ddneg(r);
    let r = m.ddsel(dneg, rn, r);
    let qn = m.ineg(q);
    let q = m.isel(dneg, qn, q);
    (dd(r.x, r.y), q)
}
