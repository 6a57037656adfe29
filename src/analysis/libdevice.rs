//! NVIDIA libdevice routines as numba-cuda exposes them: `cuda.libdevice.<name>(...)`
//! (also `from numba.cuda import libdevice`, `from numba.cuda.libdevice import sinf`),
//! named without libdevice's `__nv_` prefix (reference, Appendix A).
//!
//! Each routine has exactly one signature (a Numba `ConcreteTemplate`): the arguments are
//! converted to its parameter types as any Numba conversion is (possibly lossily:
//! `sinf(float64)` rounds to float32, `popc(int64)` truncates to int32, a float given to an
//! integer parameter truncates, and `half2float(float16)` converts the *value* to int16).
//! Pointer out-parameters become results: the call returns a tuple of the C return value,
//! if any, then each out-parameter (`sincosf(x) -> (sin, cos)`, `frexpf(x) -> (m, e)`).
//! Numba declares the unsigned routines (`umax`, `ull2double_rn`, ...) with signed types.
//!
//! [`plan`] says how kernlint computes a routine, once for every backend: most are the
//! same function as an operation kernlint already has (`sinf` is `math.sin` at float32,
//! `umax` is `max` of the arguments as uint32), and the IR lowering emits that operation;
//! [`Native`] routines (directed rounding, conversions, bit casts, ...) become the
//! intrinsic `libdevice.<name>`, which the simulator and the PTX backend compute
//! themselves; the rest (Bessel functions, `erfinv`, `fast_*` approximations, ...) are
//! typed but neither backend computes them yet.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::analysis::signature::edit_distance;
use crate::analysis::types::{Scalar, Type};

/// The result of a routine: one value, or a pair (a C return value and an out-parameter,
/// or two out-parameters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ret {
    One(Scalar),
    Pair(Scalar, Scalar),
}

impl Ret {
    /// As a Numba type: a pair of equal types is a `UniTuple`.
    pub fn to_type(self) -> Type {
        match self {
            Ret::One(s) => Type::Scalar(s),
            Ret::Pair(a, b) => Type::tuple(vec![Type::Scalar(a), Type::Scalar(b)]),
        }
    }
}

/// One routine: its name (without `__nv_`), parameter types and result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Routine {
    pub name: &'static str,
    pub params: &'static [Scalar],
    pub ret: Ret,
}

use Ret::{One, Pair};
use Scalar::{F32, F64, I16, I32, I64};

/// Every routine of `numba.cuda.libdevicefuncs` (numba-cuda 0.30.4), grouped by signature.
const GROUPS: &[(&[Scalar], Ret, &[&str])] = &[
    (&[F32], One(F32), &[
        "acosf", "acoshf", "asinf", "asinhf", "atanf", "atanhf", "cbrtf", "ceilf", "cosf", "coshf", "cospif",
        "erfcf", "erfcinvf", "erfcxf", "erff", "erfinvf", "exp10f", "exp2f", "expf", "expm1f", "fabsf", "fast_cosf",
        "fast_exp10f", "fast_expf", "fast_log10f", "fast_log2f", "fast_logf", "fast_sinf", "fast_tanf", "floorf",
        "frcp_rd", "frcp_rn", "frcp_ru", "frcp_rz", "frsqrt_rn", "fsqrt_rd", "fsqrt_rn", "fsqrt_ru", "fsqrt_rz",
        "j0f", "j1f", "lgammaf", "log10f", "log1pf", "log2f", "logbf", "logf", "nearbyintf", "normcdff",
        "normcdfinvf", "rcbrtf", "rintf", "roundf", "rsqrtf", "saturatef", "sinf", "sinhf", "sinpif", "sqrtf",
        "tanf", "tanhf", "tgammaf", "truncf", "y0f", "y1f"
    ]),
    (&[F64], One(F64), &[
        "acos", "acosh", "asin", "asinh", "atan", "atanh", "cbrt", "ceil", "cos", "cosh", "cospi", "drcp_rd",
        "drcp_rn", "drcp_ru", "drcp_rz", "dsqrt_rd", "dsqrt_rn", "dsqrt_ru", "dsqrt_rz", "erf", "erfc", "erfcinv",
        "erfcx", "erfinv", "exp", "exp10", "exp2", "expm1", "fabs", "floor", "j0", "j1", "lgamma", "log", "log10",
        "log1p", "log2", "logb", "nearbyint", "normcdf", "normcdfinv", "rcbrt", "rint", "round", "rsqrt", "sin",
        "sinh", "sinpi", "sqrt", "tan", "tanh", "tgamma", "trunc", "y0", "y1"
    ]),
    (&[F32, F32], One(F32), &[
        "atan2f", "copysignf", "fadd_rd", "fadd_rn", "fadd_ru", "fadd_rz", "fast_fdividef", "fast_powf", "fdimf",
        "fdiv_rd", "fdiv_rn", "fdiv_ru", "fdiv_rz", "fmaxf", "fminf", "fmodf", "fmul_rd", "fmul_rn", "fmul_ru",
        "fmul_rz", "fsub_rd", "fsub_rn", "fsub_ru", "fsub_rz", "hypotf", "nextafterf", "powf", "remainderf"
    ]),
    (&[F64, F64], One(F64), &[
        "atan2", "copysign", "dadd_rd", "dadd_rn", "dadd_ru", "dadd_rz", "ddiv_rd", "ddiv_rn", "ddiv_ru", "ddiv_rz",
        "dmul_rd", "dmul_rn", "dmul_ru", "dmul_rz", "fdim", "fmax", "fmin", "fmod", "hypot", "nextafter", "pow",
        "remainder"
    ]),
    (&[F64], One(I32), &[
        "double2hiint", "double2int_rd", "double2int_rn", "double2int_ru", "double2int_rz", "double2loint",
        "double2uint_rd", "double2uint_rn", "double2uint_ru", "double2uint_rz", "ilogb", "isfinited", "isinfd",
        "isnand", "signbitd"
    ]),
    (&[F32], One(I32), &[
        "finitef", "float2int_rd", "float2int_rn", "float2int_ru", "float2int_rz", "float2uint_rd", "float2uint_rn",
        "float2uint_ru", "float2uint_rz", "float_as_int", "ilogbf", "isinff", "isnanf", "signbitf"
    ]),
    (&[I32, I32], One(I32), &[
        "hadd", "max", "min", "mul24", "mulhi", "rhadd", "uhadd", "umax", "umin", "umul24", "umulhi", "urhadd"
    ]),
    (&[F64], One(I64), &[
        "double2ll_rd", "double2ll_rn", "double2ll_ru", "double2ll_rz", "double2ull_rd", "double2ull_rn",
        "double2ull_ru", "double2ull_rz", "double_as_longlong", "llrint", "llround"
    ]),
    (&[F32], One(I64), &[
        "float2ll_rd", "float2ll_rn", "float2ll_ru", "float2ll_rz", "float2ull_rd", "float2ull_rn", "float2ull_ru",
        "float2ull_rz", "llrintf", "llroundf"
    ]),
    (&[I32], One(F32), &[
        "int2float_rd", "int2float_rn", "int2float_ru", "int2float_rz", "int_as_float", "uint2float_rd",
        "uint2float_rn", "uint2float_ru", "uint2float_rz"
    ]),
    (&[I64], One(F64), &[
        "ll2double_rd", "ll2double_rn", "ll2double_ru", "ll2double_rz", "longlong_as_double", "ull2double_rd",
        "ull2double_rn", "ull2double_ru", "ull2double_rz"
    ]),
    (&[I64], One(F32), &[
        "ll2float_rd", "ll2float_rn", "ll2float_ru", "ll2float_rz", "ull2float_rd", "ull2float_rn", "ull2float_ru",
        "ull2float_rz"
    ]),
    (&[I64, I64], One(I64), &["llmax", "llmin", "mul64hi", "ullmax", "ullmin", "umul64hi"]),
    (&[I32], One(I32), &["abs", "brev", "clz", "ffs", "popc"]),
    (&[F64, F64, F64], One(F64), &["fma", "fma_rd", "fma_rn", "fma_ru", "fma_rz"]),
    (&[F32, F32, F32], One(F32), &["fmaf", "fmaf_rd", "fmaf_rn", "fmaf_ru", "fmaf_rz"]),
    (&[F64], One(F32), &["double2float_rd", "double2float_rn", "double2float_ru", "double2float_rz"]),
    (&[F32], Pair(F32, F32), &["fast_sincosf", "modff", "sincosf", "sincospif"]),
    (&[I32, I32, I32], One(I32), &["byte_perm", "sad", "usad"]),
    (&[I64], One(I32), &["clzll", "ffsll", "popcll"]),
    (&[F64, I32], One(F64), &["ldexp", "powi", "scalbn"]),
    (&[F32, I32], One(F32), &["ldexpf", "powif", "scalbnf"]),
    (&[F64], Pair(F64, F64), &["modf", "sincos", "sincospi"]),
    (&[I64], One(I64), &["brevll", "llabs"]),
    (&[I32], One(F64), &["int2double_rn", "uint2double_rn"]),
    (&[I32, F64], One(F64), &["jn", "yn"]),
    (&[I32, F32], One(F32), &["jnf", "ynf"]),
    (&[F32], One(I16), &["float2half_rn"]),
    (&[F64], Pair(F64, I32), &["frexp"]),
    (&[F32], Pair(F32, I32), &["frexpf"]),
    (&[I16], One(F32), &["half2float"]),
    (&[I32, I32], One(F64), &["hiloint2double"]),
    (&[F64, F64], Pair(F64, I32), &["remquo"]),
    (&[F32, F32], Pair(F32, I32), &["remquof"]),
];

fn table() -> &'static HashMap<&'static str, Routine> {
    static TABLE: OnceLock<HashMap<&'static str, Routine>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut map = HashMap::new();
        for (params, ret, names) in GROUPS {
            for name in *names {
                map.insert(*name, Routine { name, params, ret: *ret });
            }
        }
        map
    })
}

/// The routine `name` (without `__nv_`), if libdevice has it.
pub fn routine(name: &str) -> Option<Routine> {
    table().get(name).copied()
}

/// Every routine name, sorted.
pub fn names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = GROUPS.iter().flat_map(|(_, _, names)| names.iter().copied()).collect();
    names.sort_unstable();
    names
}

/// `libdevice.sinf(x: float32) -> float32`.
pub fn signature(r: &Routine) -> String {
    const PARAMS: [&str; 3] = ["x", "y", "z"];
    let params: Vec<String> = r.params.iter().zip(PARAMS).map(|(s, n)| format!("{n}: {s}")).collect();
    format!("libdevice.{}({}) -> {}", r.name, params.join(", "), r.ret.to_type())
}

/// The libdevice routine whose name is closest to `name`, if one is close enough to be a
/// likely misspelling.
pub fn closest(name: &str) -> Option<&'static str> {
    let limit = if name.chars().count() <= 4 { 1 } else { 2 };
    let name = name.to_ascii_lowercase();
    // The smallest edit distance; among equals, the longest common prefix (`sinff` is
    // `sinf`, not `isinff`).
    let mut best: Option<(usize, usize, &'static str)> = None;
    for candidate in names() {
        let d = edit_distance(&name, candidate);
        let prefix = name.chars().zip(candidate.chars()).take_while(|(a, b)| a == b).count();
        if d <= limit && best.is_none_or(|(bd, bp, _)| d < bd || (d == bd && prefix > bp)) {
            best = Some((d, prefix, candidate));
        }
    }
    best.map(|(_, _, s)| s)
}

/// How kernlint computes a routine (for its arguments already converted to its parameter
/// types).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plan {
    /// The same function as the IR intrinsic `name` (`math.sin`, `builtins.max`, `popc`),
    /// applied to the arguments converted to `args` (left as they are when `None`), whose
    /// result has type `result`; that result is then converted to the routine's.
    Intrinsic { name: &'static str, args: Option<Scalar>, result: Ret },
    /// `sincos[f](x)`: `(math.sin(x), math.cos(x))`.
    SinCos,
    /// `exp10[f](x)`: `math.pow(10, x)`.
    Exp10,
    /// The backends compute the intrinsic `libdevice.<name>` themselves.
    Native(Native),
    /// No backend computes it yet (the call types, but compiling or simulating it is an
    /// error at the call).
    Unsupported,
}

/// An IEEE rounding direction: libdevice's `_rn`, `_rz`, `_rd`, `_ru` suffixes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    Nearest,
    Zero,
    Down,
    Up,
}

impl Rounding {
    fn from_suffix(s: &str) -> Option<Rounding> {
        Some(match s {
            "rn" => Rounding::Nearest,
            "rz" => Rounding::Zero,
            "rd" => Rounding::Down,
            "ru" => Rounding::Up,
            _ => return None,
        })
    }

    /// The PTX modifier of a float result (`add.rz.f32`, `cvt.rm.f32.s32`).
    pub fn ptx(self) -> &'static str {
        match self {
            Rounding::Nearest => "rn",
            Rounding::Zero => "rz",
            Rounding::Down => "rm",
            Rounding::Up => "rp",
        }
    }

    /// The PTX modifier of an integer result of a float (`cvt.rmi.s32.f32`).
    pub fn ptx_int(self) -> &'static str {
        match self {
            Rounding::Nearest => "rni",
            Rounding::Zero => "rzi",
            Rounding::Down => "rmi",
            Rounding::Up => "rpi",
        }
    }
}

/// An IEEE operation with one exactly defined, rounded result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    /// `1 / x`.
    Rcp,
    Sqrt,
    /// `x * y + z`, rounded once.
    Fma,
}

/// A routine the backends compute themselves. Every one is exactly defined: one correct
/// result per argument (the same as the GPU's instructions give).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Native {
    /// `op` on float type `s` rounded as `mode`, never contracted (`fadd_rz`, `dsqrt_rn`,
    /// `fmaf_rd`, `frcp_rn`): `add.rz.f32`, `sqrt.rn.f64`, `fma.rm.f32`, `rcp.rn.f32`.
    Arith(Arith, Scalar, Rounding),
    /// A float to integer type `to` (int32, uint32, int64 or uint64; the result has its
    /// bits), rounded as `mode` to an integer, saturating, NaN giving 0 (`cvt.rmi.s32.f32`).
    FloatToInt { from: Scalar, to: Scalar, mode: Rounding },
    /// The argument's bits read as `from` (an integer type, or float64) to float type
    /// `to`, rounded as `mode` (`cvt.rp.f32.u64`, `cvt.rz.f32.f64`).
    ToFloat { from: Scalar, to: Scalar, mode: Rounding },
    /// C `round` in float type `s` (halfway cases away from zero), then to int64 (`cvt.rzi`,
    /// saturating) when `int` (`llround`).
    Round { s: Scalar, int: bool },
    /// `saturatef`: clamped to [+0, 1], NaN giving +0 (`cvt.sat.f32.f32`).
    Saturate,
    /// `fdim[f](x, y)`: `x - y` if `x > y`, else +0, NaN if either is.
    Fdim(Scalar),
    /// `logb[f]`: the exponent of `|x|` as a float (subnormals too); -inf for 0, +inf for
    /// an infinity, NaN for NaN.
    Logb(Scalar),
    /// `ilogb[f]`: the exponent as int32; INT_MIN for 0 and NaN, INT_MAX for infinities.
    Ilogb(Scalar),
    /// `signbit[d|f]`: 1 if the sign bit is set, else 0.
    Signbit(Scalar),
    /// The bits of the argument as the result type (`float_as_int`, `longlong_as_double`).
    BitCast,
    /// The high (`double2hiint`) or low (`double2loint`) 32 bits of a float64.
    DoubleWord { high: bool },
    /// `hiloint2double(hi, lo)`: the float64 with these words.
    HiLoToDouble,
    /// `(x + y) >> 1` (`hadd`) or `(x + y + 1) >> 1` (`rhadd`) without overflow, on the
    /// arguments as int32 or as uint32 (`uhadd`, `urhadd`).
    HalfAdd { unsigned: bool, round_up: bool },
    /// The low 32 bits of the product of the arguments' low 24 bits, sign-extended
    /// (`mul24`) or not (`umul24`).
    Mul24 { unsigned: bool },
    /// The high half of the full product, in integer type `s` (int32 `mulhi`, uint32
    /// `umulhi`, int64 `mul64hi`, uint64 `umul64hi`).
    MulHi(Scalar),
    /// `|x - y| + z`, the difference taken as int32 or uint32 (`sad.s32`, `sad.u32`).
    Sad { unsigned: bool },
    /// `byte_perm(x, y, s)`: bytes of the 64-bit `{y, x}` picked by the low three bits of
    /// each nibble of `s` (`prmt.b32`).
    BytePerm,
    /// `float2half_rn`: the float16 nearest the float32, as its bits in an int16.
    FloatToHalf,
    /// `half2float`: the float16 whose bits the int16 holds, as a float32.
    HalfToFloat,
    /// `powi[f](x, n)`: `x ** n` by repeated squaring, each product rounded to nearest
    /// (what libdevice computes), then `1 / r` for a negative `n`.
    Powi(Scalar),
}

/// How kernlint computes `name` (a routine of [`routine`]).
pub fn plan(name: &str) -> Plan {
    let Some(r) = routine(name) else { return Plan::Unsupported };
    let first = r.params.first().copied().unwrap_or(F64);
    let same = |intrinsic: &'static str| Plan::Intrinsic { name: intrinsic, args: None, result: r.ret };
    let to = |intrinsic: &'static str, result: Scalar| Plan::Intrinsic { name: intrinsic, args: None, result: One(result) };
    let via = |intrinsic: &'static str, s: Scalar| Plan::Intrinsic { name: intrinsic, args: Some(s), result: One(s) };
    let native = Plan::Native;
    // The float routines named after C's: `sinf`/`sin`, `powf`/`pow`.
    let all_f32 = r.params.iter().all(|p| *p == F32);
    let base = if all_f32 { name.strip_suffix('f').unwrap_or(name) } else { name };
    if let Some(math) = math_name(base)
        && r.params.iter().all(|p| p.is_float())
        && matches!(r.ret, One(s) if s == first)
    {
        return same(math);
    }
    // Directed and explicit rounding: `fadd_rz`, `dsqrt_rn`, `float2int_rd`, `ll2double_ru`.
    if let Some((stem, suffix)) = name.rsplit_once('_')
        && let Some(mode) = Rounding::from_suffix(suffix)
    {
        let arith = |op: Arith, s: Scalar| native(Native::Arith(op, s, mode));
        let (from, ret) = (first, match r.ret { One(s) => s, Pair(s, _) => s });
        return match stem {
            "fadd" | "dadd" => arith(Arith::Add, from),
            "fsub" => arith(Arith::Sub, from),
            "fmul" | "dmul" => arith(Arith::Mul, from),
            "fdiv" | "ddiv" => arith(Arith::Div, from),
            "frcp" | "drcp" => arith(Arith::Rcp, from),
            "fsqrt" | "dsqrt" => arith(Arith::Sqrt, from),
            // Round-to-nearest fma is `cuda.fma`.
            "fma" | "fmaf" if mode == Rounding::Nearest => same("fma"),
            "fma" | "fmaf" => arith(Arith::Fma, from),
            "float2int" | "double2int" => native(Native::FloatToInt { from, to: I32, mode }),
            "float2uint" | "double2uint" => native(Native::FloatToInt { from, to: Scalar::U32, mode }),
            "float2ll" | "double2ll" => native(Native::FloatToInt { from, to: I64, mode }),
            "float2ull" | "double2ull" => native(Native::FloatToInt { from, to: Scalar::U64, mode }),
            "int2float" | "int2double" | "ll2float" | "ll2double" | "double2float" => {
                native(Native::ToFloat { from, to: ret, mode })
            }
            "uint2float" | "uint2double" => native(Native::ToFloat { from: Scalar::U32, to: ret, mode }),
            "ull2float" | "ull2double" => native(Native::ToFloat { from: Scalar::U64, to: ret, mode }),
            "float2half" => native(Native::FloatToHalf),
            _ => Plan::Unsupported,
        };
    }
    match name {
        "isnanf" | "isnand" => to("math.isnan", Scalar::Bool),
        "isinff" | "isinfd" => to("math.isinf", Scalar::Bool),
        "finitef" | "isfinited" => to("math.isfinite", Scalar::Bool),
        // Round half to even, to a float: Python's `round`, kept in the float type.
        "rint" | "rintf" | "nearbyint" | "nearbyintf" => same("builtins.round"),
        // Two-argument float `max`/`min` ignore a NaN, as fmax/fmin do.
        "fmax" | "fmaxf" | "max" | "llmax" => same("builtins.max"),
        "fmin" | "fminf" | "min" | "llmin" => same("builtins.min"),
        "umax" => via("builtins.max", Scalar::U32),
        "umin" => via("builtins.min", Scalar::U32),
        "ullmax" => via("builtins.max", Scalar::U64),
        "ullmin" => via("builtins.min", Scalar::U64),
        "abs" | "llabs" => same("builtins.abs"),
        // `cuda.popc` and `cuda.clz` give the argument's type, `cuda.ffs` uint32, `cuda.brev`
        // uint32 or uint64.
        "popc" => same("popc"),
        "clz" => same("clz"),
        "popcll" => to("popc", I64),
        "clzll" => to("clz", I64),
        "ffs" | "ffsll" => to("ffs", Scalar::U32),
        "brev" => to("brev", Scalar::U32),
        "brevll" => to("brev", Scalar::U64),
        "ldexp" | "ldexpf" | "scalbn" | "scalbnf" => same("math.ldexp"),
        "frexp" | "frexpf" => same("math.frexp"),
        "modf" | "modff" => same("math.modf"),
        "fmaf" | "fma" => same("fma"),
        "sincos" | "sincosf" => Plan::SinCos,
        "exp10" | "exp10f" => Plan::Exp10,
        "round" | "roundf" => native(Native::Round { s: first, int: false }),
        "llround" | "llroundf" => native(Native::Round { s: first, int: true }),
        "llrint" | "llrintf" => native(Native::FloatToInt { from: first, to: I64, mode: Rounding::Nearest }),
        "saturatef" => native(Native::Saturate),
        "fdim" | "fdimf" => native(Native::Fdim(first)),
        "logb" | "logbf" => native(Native::Logb(first)),
        "ilogb" | "ilogbf" => native(Native::Ilogb(first)),
        "signbitd" | "signbitf" => native(Native::Signbit(first)),
        "float_as_int" | "int_as_float" | "double_as_longlong" | "longlong_as_double" => native(Native::BitCast),
        "double2hiint" => native(Native::DoubleWord { high: true }),
        "double2loint" => native(Native::DoubleWord { high: false }),
        "hiloint2double" => native(Native::HiLoToDouble),
        "hadd" => native(Native::HalfAdd { unsigned: false, round_up: false }),
        "rhadd" => native(Native::HalfAdd { unsigned: false, round_up: true }),
        "uhadd" => native(Native::HalfAdd { unsigned: true, round_up: false }),
        "urhadd" => native(Native::HalfAdd { unsigned: true, round_up: true }),
        "mul24" => native(Native::Mul24 { unsigned: false }),
        "umul24" => native(Native::Mul24 { unsigned: true }),
        "mulhi" => native(Native::MulHi(I32)),
        "umulhi" => native(Native::MulHi(Scalar::U32)),
        "mul64hi" => native(Native::MulHi(I64)),
        "umul64hi" => native(Native::MulHi(Scalar::U64)),
        "sad" => native(Native::Sad { unsigned: false }),
        "usad" => native(Native::Sad { unsigned: true }),
        "byte_perm" => native(Native::BytePerm),
        "float2half_rn" => native(Native::FloatToHalf),
        "half2float" => native(Native::HalfToFloat),
        "powi" | "powif" => native(Native::Powi(first)),
        _ => Plan::Unsupported,
    }
}

/// The `math` intrinsic computing the C function `name` (float arguments, result of the
/// first argument's type), for the functions the backends compute.
fn math_name(name: &str) -> Option<&'static str> {
    Some(match name {
        "sqrt" => "math.sqrt",
        "fabs" => "math.fabs",
        "floor" => "math.floor",
        "ceil" => "math.ceil",
        "trunc" => "math.trunc",
        "exp" => "math.exp",
        "exp2" => "math.exp2",
        "expm1" => "math.expm1",
        "log" => "math.log",
        "log2" => "math.log2",
        "log10" => "math.log10",
        "log1p" => "math.log1p",
        "sin" => "math.sin",
        "cos" => "math.cos",
        "tan" => "math.tan",
        "asin" => "math.asin",
        "acos" => "math.acos",
        "atan" => "math.atan",
        "atan2" => "math.atan2",
        "sinh" => "math.sinh",
        "cosh" => "math.cosh",
        "tanh" => "math.tanh",
        "asinh" => "math.asinh",
        "acosh" => "math.acosh",
        "atanh" => "math.atanh",
        "pow" => "math.pow",
        "erf" => "math.erf",
        "erfc" => "math.erfc",
        "lgamma" => "math.lgamma",
        "tgamma" => "math.gamma",
        "hypot" => "math.hypot",
        "cbrt" => "math.cbrt",
        "copysign" => "math.copysign",
        "fmod" => "math.fmod",
        "remainder" => "math.remainder",
        "nextafter" => "math.nextafter",
        _ => return None,
    })
}
