//! Integer `//` and `%` by a constant divisor without a division instruction, as LLVM lowers
//! them for Numba: shifts and masks for powers of two, a multiply-high by a "magic" reciprocal
//! otherwise (Granlund and Montgomery, "Division by invariant integers using
//! multiplication", 1994). The results are the simulator's: Python's floor division and
//! modulo for int64 (the remainder takes the divisor's sign; the most negative `x` over -1
//! is 0, as Numba guards it), plain division for uint64, and 0 for a zero divisor.
//!
//! A lowering is a [`Plan`]: [`Step`]s the PTX backend prints one instruction (or two) each,
//! and [`eval`] runs, so the tests check the very sequence that is emitted.
//!
//! Signed floor division by `d > 0` uses `floor(x / d) == !(!x / d)` for negative `x`: with
//! `s = x >> 63` (all ones for negative `x`), `t = x ^ s` is in `[0, 2**63)` and
//! `floor(x / d) == (t / d) ^ s`, an unsigned division of a 63-bit value, which a 64-bit magic
//! number always covers. For `d < 0`, `floor(x / d) == floor(-x / -d)`, taken the same way
//! on `-x` in `[0, 2**63]` (`x > 0` goes through `!(x - 1)`, which is `-x`).
//!
//! Numba computes integer arithmetic in 64 bits, but a dividend converted from a 32-bit (or
//! narrower) integer fits in 32 bits, and so do the quotient and remainder for most divisors:
//! the plan then runs in 32 bits (one `mul.hi.u32` instead of the several multiplies a
//! `mul.hi.u64` becomes) and extends its result to 64.

/// One step of a lowering. Registers have the plan's width and are numbered: register 0 is
/// the dividend (its low `bits`) and step `i` writes register `i + 1`; the result is the
/// last register (the dividend itself when there are no steps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The constant.
    Const(u64),
    /// Arithmetic shift right (`shr.s64`).
    ShrS(usize, u32),
    /// Logical shift right (`shr.u64`).
    ShrU(usize, u32),
    /// Shift left (`shl.b64`).
    Shl(usize, u32),
    /// `and.b64` with a constant.
    AndI(usize, u64),
    Xor(usize, usize),
    /// `and.b64`.
    And(usize, usize),
    /// `add.s64` (wrapping).
    Add(usize, usize),
    /// `add.s64` with a constant (wrapping).
    AddI(usize, u64),
    /// `sub.s64` (wrapping).
    Sub(usize, usize),
    /// `neg.s64` (wrapping).
    Neg(usize),
    /// The high half of the unsigned double-width product with a constant (`mul.hi.u64`).
    MulHiU(usize, u64),
    /// The low half of the product with a constant (`mul.lo.s64`).
    MulLoI(usize, u64),
    /// All ones where the register is positive as a signed value, else 0 (`setp.gt.s64`,
    /// `selp.b64`).
    PosMask(usize),
    /// 1 where the register is at least the constant as unsigned values, else 0
    /// (`setp.ge.u64`, `selp.b64`).
    GeU(usize, u64),
}

/// The steps and the width they run in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// 64, or 32: the steps run on the dividend's low 32 bits, and the result is extended to
    /// 64 bits (with its sign where `signed_result`, else with zeros).
    pub bits: u32,
    pub signed_result: bool,
    pub steps: Vec<Step>,
}

/// The values the dividend (an int64 or uint64 register) is known to take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Range {
    Any,
    /// `[-2**31, 2**31)`: converted from int32, int16 or int8.
    I32,
    /// `[0, 2**32)`: converted from uint32, uint16 or uint8.
    U32,
}

/// Run a plan on the dividend `x` (its 64 bits), with PTX's wrapping arithmetic.
pub fn eval(plan: &Plan, x: u64) -> u64 {
    let w = plan.bits;
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    // The register as a signed value.
    let signed = |v: u64| ((v << (64 - w)) as i64) >> (64 - w);
    let mut r = Vec::with_capacity(plan.steps.len() + 1);
    r.push(x & mask);
    for step in &plan.steps {
        let v = match *step {
            Step::Const(c) => c,
            Step::ShrS(a, k) => (signed(r[a]) >> k) as u64,
            Step::ShrU(a, k) => r[a] >> k,
            Step::Shl(a, k) => r[a] << k,
            Step::AndI(a, c) => r[a] & c,
            Step::Xor(a, b) => r[a] ^ r[b],
            Step::And(a, b) => r[a] & r[b],
            Step::Add(a, b) => r[a].wrapping_add(r[b]),
            Step::AddI(a, c) => r[a].wrapping_add(c),
            Step::Sub(a, b) => r[a].wrapping_sub(r[b]),
            Step::Neg(a) => r[a].wrapping_neg(),
            Step::MulHiU(a, c) => ((r[a] as u128 * (c & mask) as u128) >> w) as u64,
            Step::MulLoI(a, c) => r[a].wrapping_mul(c),
            Step::PosMask(a) => {
                if signed(r[a]) > 0 {
                    u64::MAX
                } else {
                    0
                }
            }
            Step::GeU(a, c) => (r[a] >= (c & mask)) as u64,
        };
        r.push(v & mask);
    }
    let v = *r.last().unwrap_or(&0);
    if plan.signed_result { signed(v) as u64 } else { v }
}

/// A multiply-high replacing an unsigned division by `d` (not 0 and not a power of two) for
/// every dividend up to `max`, at width `bits`: the smallest `p >= bits` whose
/// `m = ceil(2**p / d)` has `(m * d - 2**p) * max < 2**p`, which makes
/// `floor(t * m / 2**p) == t / d` for every `t <= max`. Returns `(m, p)` with `m` below
/// `2**(bits + 1)`.
pub fn magic(d: u64, max: u64, bits: u32) -> Option<(u128, u32)> {
    if d < 3 || d.is_power_of_two() {
        return None;
    }
    let d = d as u128;
    for p in bits..=2 * bits {
        // 2**p / d without overflowing at p = 128: (2**p - 1) / d, plus one (d is not a
        // power of two, so it never divides 2**p).
        let pow_minus_1 = if p == 128 { u128::MAX } else { (1u128 << p) - 1 };
        let m = pow_minus_1 / d + 1;
        if m >> (bits + 1) != 0 {
            return None;
        }
        // e = m * d - 2**p, in [1, d); e * max < 2**128.
        let e = m.wrapping_mul(d).wrapping_sub(pow_minus_1).wrapping_sub(1);
        if p == 128 || (e * max as u128) >> p == 0 {
            return Some((m, p));
        }
    }
    None
}

/// Push the steps dividing register `t` (at most `max`) by `d` (not 0 and not a power of
/// two), unsigned, at width `bits`; returns the quotient's register.
fn udiv(steps: &mut Vec<Step>, t: usize, d: u64, max: u64, bits: u32) -> Option<usize> {
    if d > max {
        steps.push(Step::Const(0));
        return Some(steps.len());
    }
    if d > 1 << (bits - 1) {
        // The quotient is 0 or 1.
        steps.push(Step::GeU(t, d));
        return Some(steps.len());
    }
    let (m, p) = magic(d, max, bits)?;
    let mask = if bits == 64 { u64::MAX } else { (1 << bits) - 1 };
    let low = m as u64 & mask;
    steps.push(Step::MulHiU(t, low));
    if m >> bits == 0 {
        if p > bits {
            steps.push(Step::ShrU(steps.len(), p - bits));
        }
    } else {
        // m = 2**bits + m': floor(t * m / 2**p) == ((t - h) / 2 + h) >> (p - bits - 1),
        // where h = mulhi(t, m') <= t (the halving keeps t + h within the width).
        let h = steps.len();
        steps.push(Step::Sub(t, h));
        steps.push(Step::ShrU(steps.len(), 1));
        steps.push(Step::Add(steps.len(), h));
        if p > bits + 1 {
            steps.push(Step::ShrU(steps.len(), p - bits - 1));
        }
    }
    Some(steps.len())
}

/// The remainder from the quotient in register `q`: `x - q * d`.
fn remainder(steps: &mut Vec<Step>, q: usize, d: u64) {
    steps.push(Step::MulLoI(q, d));
    steps.push(Step::Sub(0, steps.len()));
}

/// The steps computing `x // d` (or `x % d` when `modulo`) at width `bits` for a signed or
/// unsigned dividend in register 0 and the divisor `d` (its `bits`); `None` where a
/// division instruction is as good.
fn steps(bits: u32, signed: bool, modulo: bool, d: u64) -> Option<Vec<Step>> {
    let mask = if bits == 64 { u64::MAX } else { (1 << bits) - 1 };
    let sign = 1u64 << (bits - 1);
    let mut s = Vec::new();
    if d == 0 {
        // Numba's integer division by zero gives 0.
        s.push(Step::Const(0));
        return Some(s);
    }
    if d == 1 || (signed && d == mask) {
        if modulo {
            s.push(Step::Const(0));
        } else if d != 1 {
            // -x, and 0 for the most negative x (Numba's guard against the overflow):
            // x + 2**(bits-1) is 0 only there, which makes the mask 0.
            s.push(Step::Neg(0));
            s.push(Step::AddI(0, sign));
            s.push(Step::GeU(2, 1));
            s.push(Step::Neg(3));
            s.push(Step::And(1, 4));
        }
        return Some(s);
    }
    if !signed {
        if d.is_power_of_two() {
            s.push(if modulo {
                Step::AndI(0, d - 1)
            } else {
                Step::ShrU(0, d.trailing_zeros())
            });
            return Some(s);
        }
        let q = udiv(&mut s, 0, d, mask, bits)?;
        if modulo {
            remainder(&mut s, q, d);
        }
        return Some(s);
    }
    let negative = d & sign != 0;
    let magnitude = if negative { d.wrapping_neg() & mask } else { d };
    if !negative && d.is_power_of_two() {
        // Two's complement: the arithmetic shift is floor division, the mask the modulo
        // Python gives for a positive divisor.
        s.push(if modulo {
            Step::AndI(0, d - 1)
        } else {
            Step::ShrS(0, d.trailing_zeros())
        });
        return Some(s);
    }
    if negative && magnitude.is_power_of_two() {
        // d = -2**k (k up to bits - 1): with low = x & (2**k - 1) and nz = (low != 0) as
        // 1 or 0, floor(x / d) = -(x >> k) - nz and x % d = low - (nz << k); nz is
        // (low + 2**k - 1) >> k, which stays within the width.
        let k = magnitude.trailing_zeros();
        let low_mask = magnitude - 1;
        if modulo {
            s.push(Step::AndI(0, low_mask));
            s.push(Step::AddI(1, low_mask));
            s.push(Step::ShrU(2, k));
            s.push(Step::Shl(3, k));
            s.push(Step::Sub(1, 4));
        } else {
            s.push(Step::ShrS(0, k));
            s.push(Step::Neg(1));
            s.push(Step::AndI(0, low_mask));
            s.push(Step::AddI(3, low_mask));
            s.push(Step::ShrU(4, k));
            s.push(Step::Sub(2, 5));
        }
        return Some(s);
    }
    let q = if !negative {
        // t = x ^ (x >> 63) in [0, 2**63): floor(x / d) = (t / d) ^ (x >> 63).
        s.push(Step::ShrS(0, bits - 1));
        s.push(Step::Xor(0, 1));
        let qu = udiv(&mut s, 2, d, sign - 1, bits)?;
        s.push(Step::Xor(qu, 1));
        s.len()
    } else {
        // e = -d in [3, 2**63); sign = all ones for x > 0; t = -x ^ sign is -x for x <= 0
        // (2**63 for i64::MIN) and x - 1 for x > 0: floor(x / d) = (t / e) ^ sign.
        s.push(Step::Neg(0));
        s.push(Step::PosMask(0));
        s.push(Step::Xor(1, 2));
        let qu = udiv(&mut s, 3, magnitude, sign, bits)?;
        s.push(Step::Xor(qu, 2));
        s.len()
    };
    if modulo {
        remainder(&mut s, q, d);
    }
    Some(s)
}

/// The plan computing `x // d` (or `x % d` when `modulo`) for an int64 (`signed`) or
/// uint64 dividend whose values lie in `range` and the constant divisor `d` (its 64 bits),
/// as the simulator computes them; `None` where a division instruction is as good.
pub fn lower(signed: bool, modulo: bool, d: u64, range: Range) -> Option<Plan> {
    let v = d as i64;
    // Where the quotient and the remainder fit in 32 bits: a signed division of an int32
    // value (but -2**31 // -1 is 2**31), an unsigned one of a uint32 value by a positive
    // divisor (what a signed operation is on a non-negative dividend too). Only worth it for
    // a multiply: a shift or mask is one instruction either way, and the 64-bit one leaves
    // ptxas no extension to make.
    let magnitude = if signed { v.unsigned_abs() } else { d };
    let narrow = match range {
        _ if magnitude.is_power_of_two() || d == 0 => None,
        Range::I32 if signed && i32::try_from(v).is_ok() => Some(true),
        Range::U32 if (!signed || v > 0) && u32::try_from(d).is_ok() => Some(false),
        _ => None,
    };
    Some(match narrow {
        Some(signed_steps) => Plan {
            bits: 32,
            // A remainder by a positive divisor is in [0, d): zero-extension is the same,
            // and free.
            signed_result: signed_steps && !(modulo && v > 0),
            steps: steps(32, signed_steps, modulo, d & u32::MAX as u64)?,
        },
        None => Plan { bits: 64, signed_result: false, steps: steps(64, signed, modulo, d)? },
    })
}
