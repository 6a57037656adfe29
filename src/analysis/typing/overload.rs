//! Numba's overload resolution for a `ConcreteTemplate` (numba-cuda `typing/context.py`,
//! `resolve_overload`): every case whose arity matches is rated by the conversions its
//! parameters need from the argument types, `(unsafe, safe, promote)` counted per argument,
//! the lowest rating wins and a tie goes to the case listed first. The conversion kinds are
//! those of Numba's type manager (`typeconv/rules.py`): the declared rules below, closed
//! transitively, a chain being as loose as its loosest step and the best chain counting.
//!
//! A call passes its arguments unliteral first (`types.Function.get_call_type` prefers
//! non-literal arguments for a template that does not ask for literals), so a literal
//! argument is rated as its base type.

use std::sync::OnceLock;

use crate::analysis::types::Scalar;

/// A conversion kind, from the strictest to the loosest (`typeconv/castgraph.py`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Conversion {
    Exact,
    Promote,
    Safe,
    Unsafe,
}

impl Conversion {
    /// Numba's name of the kind (`Conversion.safe.name`).
    pub fn name(self) -> &'static str {
        match self {
            Conversion::Exact => "exact",
            Conversion::Promote => "promote",
            Conversion::Safe => "safe",
            Conversion::Unsafe => "unsafe",
        }
    }
}

/// `_init_casting_rules` of `typeconv/rules.py`, in its order: (from, to, the conversion
/// from -> to, the conversion back if the rule declares one).
const RULES: &[(Scalar, Scalar, Conversion, Option<Conversion>)] = {
    use Conversion::{Promote, Safe, Unsafe};
    use Scalar::*;
    &[
        (Bool, I8, Safe, Some(Unsafe)),
        (Bool, U8, Safe, Some(Unsafe)),
        (I8, I16, Promote, Some(Unsafe)),
        (U8, U16, Promote, Some(Unsafe)),
        (I16, I32, Promote, Some(Unsafe)),
        (U16, U32, Promote, Some(Unsafe)),
        (I32, I64, Promote, Some(Unsafe)),
        (U32, U64, Promote, Some(Unsafe)),
        (U8, I16, Safe, Some(Unsafe)),
        (U16, I32, Safe, Some(Unsafe)),
        (U32, I64, Safe, Some(Unsafe)),
        (I8, F16, Safe, Some(Unsafe)),
        (I16, F32, Safe, Some(Unsafe)),
        (I32, F64, Safe, Some(Unsafe)),
        (I16, F16, Unsafe, Some(Unsafe)),
        (I32, F32, Unsafe, Some(Unsafe)),
        (I64, F64, Safe, Some(Unsafe)),
        (U64, F64, Safe, Some(Unsafe)),
        (F16, F32, Promote, Some(Unsafe)),
        (F32, F64, Promote, Some(Unsafe)),
        (F32, C64, Safe, None),
        (F64, C128, Safe, None),
        (C64, C128, Promote, Some(Unsafe)),
    ]
};

const N: usize = Scalar::ALL.len();

fn table() -> &'static [[Option<Conversion>; N]; N] {
    static TABLE: OnceLock<[[Option<Conversion>; N]; N]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [[None; N]; N];
        for s in Scalar::ALL {
            t[s as usize][s as usize] = Some(Conversion::Exact);
        }
        for &(a, b, forward, back) in RULES {
            t[a as usize][b as usize] = Some(forward);
            if back.is_some() {
                t[b as usize][a as usize] = back;
            }
        }
        // The best chain from i to j, a chain being as loose as its loosest step.
        for k in 0..N {
            for i in 0..N {
                for j in 0..N {
                    if let (Some(ik), Some(kj)) = (t[i][k], t[k][j]) {
                        let chain = ik.max(kj);
                        if t[i][j].is_none_or(|c| chain < c) {
                            t[i][j] = Some(chain);
                        }
                    }
                }
            }
        }
        t
    })
}

/// How Numba converts a value of `from` to `to` (`BaseContext.can_convert` on scalars), or
/// `None` when it cannot.
pub fn conversion(from: Scalar, to: Scalar) -> Option<Conversion> {
    table()[from as usize][to as usize]
}

/// The rating of one case: `(unsafe, safe, promote)` conversions, compared in that order.
fn rate(args: &[Scalar], params: &[Scalar]) -> Option<(usize, usize, usize)> {
    if args.len() != params.len() {
        return None;
    }
    let mut rating = (0, 0, 0);
    for (&a, &p) in args.iter().zip(params) {
        match conversion(a, p)? {
            Conversion::Exact => {}
            Conversion::Promote => rating.2 += 1,
            Conversion::Safe => rating.1 += 1,
            Conversion::Unsafe => rating.0 += 1,
        }
    }
    Some(rating)
}

/// Which of `cases` (parameter types, and what the case stands for) Numba selects for
/// these (unliteral) argument types, or `None` when no case accepts them.
pub fn resolve<R>(cases: &[(&[Scalar], R)], args: &[Scalar]) -> Option<usize> {
    let mut best: Option<((usize, usize, usize), usize)> = None;
    for (i, (params, _)) in cases.iter().enumerate() {
        if let Some(rating) = rate(args, params)
            && best.is_none_or(|(b, _)| rating < b)
        {
            best = Some((rating, i));
        }
    }
    best.map(|(_, i)| i)
}
