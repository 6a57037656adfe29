//! The PTX backend (MVP): typed IR [`Program`] -> PTX ISA 8.0 text.
//!
//! # Kernel parameter layout
//!
//! The kernel (`functions[0]`) becomes one `.visible .entry` named after the kernel; its
//! parameters, in order, are:
//! - a scalar: by value, as `.u8` (bool, 0 or 1), `.s8`/`.u8`/`.s16`/`.u16`/`.s32`/`.u32`/
//!   `.s64`/`.u64`, `.b16` (float16, its bits), `.f32` or `.f64`;
//! - an N-d array: its data pointer (`.u64`, a global address), then its N extents
//!   (`.u64` each), then its N strides in bytes (`.u64` each). For C- and F-contiguous
//!   signatures the innermost stride is still passed but the code assumes the item size;
//! - a tuple of scalars, which is what a complex number is in the IR: one parameter per
//!   item, named `_0`, `_1`, ... (a complex128 is two `.f64`, real part first: Numba's ABI).
//!
//! An element of a complex array is two floats, the real part at the element's address and
//! the imaginary part after it.
//!
//! Device functions become `.func`s, one per program function, called with one `.param`
//! per scalar component (bools as `.b32`, arrays as generic pointer + extents + strides) and
//! returning their components in one `.param .align 8 .b8 retval[8 * n]` (one 8-byte slot each).
//!
//! Registers: one virtual register per IR value component (`%p` pred, `%r` b32 for ints up to
//! 32 bits kept normalised as the simulator's `norm` does, `%rd` b64, `%f` f32, `%fd` f64,
//! `%h` b16 for float16 bits);
//! slots are registers too (a write is a `mov`). Arithmetic follows `launch::sim` exactly:
//! floats use `.rn` (contracted only where the IR has an `fma`, see
//! `analysis::ir::contract`) unless `fastmath` is on; integer `//` and `%` floor and
//! give 0 for a zero divisor; by a divisor known at compile time (see `int_constants`) they
//! are shifts, masks and multiply-highs (`compile::divide`).
//!
//! Transcendental math functions (`math.exp`, `math.sin`, ..., `math.pow` and float `**`,
//! `cuda.cbrt`, `math.asinh`/`acosh`/`atanh`, `math.erfc`/`lgamma`/`gamma`) call one `.func`
//! each (`__kl_math_sin_f64`), emitted from the shared implementations in
//! `analysis::ir::math` by `compile::ptx_math`: the same operations the simulator runs, one
//! PTX instruction each, so results match it bit for bit (`fastmath` does not change them).
//!
//! float16 arithmetic and the `cuda.fp16` functions compute in float32 and round once to
//! float16 (for `+ - * /` and `sqrt` that is the correctly rounded float16 result), except
//! `hfma`, which is `fma.rn.f16` as in Numba; conversions to float16 round once from the
//! source type. `numba.cuda.random`'s xoroshiro128+ functions are inlined on the state
//! record. Float `%` is Numba's `real_mod` over an exact shift-and-subtract `fmod`; float
//! `//` is Python's (Numba's `real_divmod`) over the same `fmod`. The exactly rounded
//! functions (`ldexp`, `frexp`, `modf`, `remainder`, `nextafter`) are written inline with
//! the steps of `analysis::ir::math::exact`, which the simulator runs.
//!
//! `cuda.libdevice` routines arrive either as the intrinsic they are the same function as
//! (lowering chose it: `sinf` is `math.sin` at float32) or as `libdevice.<name>`, which
//! the backend emits with libdevice's own instructions (`add.rz.f32`,
//! `cvt.rmi.s32.f32`, `prmt.b32`, ...).
//!
//! `print` is Numba's `vprintf` call: the format string and every literal string (`True`
//! and `False` for booleans) are `.const .align 1 .b8 __conststring__$<mangled text>`
//! arrays, named as Numba names them; the arguments are laid out in a local buffer as
//! Numba's argument struct is (8-byte integers, doubles and string addresses, 4-byte
//! `threadIdx` members, each at its natural alignment), whose generic address is the
//! second argument of `vprintf`. Constructs the backend cannot compile yet (records,
//! the libdevice routines kernlint does not compute) are reported as a
//! [`CompileError`] at the instruction's span; no PTX is produced then.

use std::collections::BTreeSet;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::fmt::Write;

use ruff_text_size::TextRange;

use super::divide;
use crate::analysis::ir::math::MathFn;
use crate::analysis::libdevice::{self, Arith, Native, Plan, Ret};
use crate::analysis::ir::{
    BinaryOp, BlockId, CompareOp, Constant, Function, MemorySpace, Op, PrintArg, SlicePart, SlotId,
    Terminator, UnaryOp, ValueId,
};
use crate::analysis::kernels::JitOptions;
use crate::analysis::types::{Layout, Scalar, Type};
use crate::launch::Program;

#[derive(Clone, Debug, Default)]
pub struct CompileOptions {
    /// Allow contraction and approximate division/sqrt (the shared math functions and `**`
    /// stay as the simulator computes them).
    pub fastmath: bool,
    /// Emit `.loc` lines (needs `source`).
    pub lineinfo: bool,
    /// The text the spans refer to and the files its lines are (for `.loc`).
    pub source: Option<LineSource>,
    /// `.maxnreg` on the kernel: ptxas keeps it within this many registers per thread.
    pub max_registers: Option<u32>,
}

/// What `.loc` lines point into: the analysed text, and the files its lines come from: one
/// file, or a notebook's code cells (joined as analysis reads them), each a `.file` of its
/// own with lines counted from the cell's first, as the notebook shows them.
#[derive(Clone, Debug, Default)]
pub struct LineSource {
    pub text: String,
    /// Each `.file`'s name and the zero-based line of `text` where it begins, in order.
    pub files: Vec<(String, u32)>,
}

impl LineSource {
    pub fn file(path: String, text: String) -> Self {
        LineSource { text, files: vec![(path, 0)] }
    }

    /// The `.file` number (1-based) and the line in that file (1-based) of the 1-based
    /// `line` of the text.
    fn file_line(&self, line: usize) -> (usize, usize) {
        match self.files.partition_point(|&(_, first)| (first as usize) < line) {
            0 => (1, line),
            file => (file, line - self.files[file - 1].1 as usize),
        }
    }
}

impl CompileOptions {
    /// What the kernel's `@cuda.jit(fastmath=..., lineinfo=..., max_registers=...)` asks for.
    pub fn from_jit(jit: &JitOptions) -> Self {
        CompileOptions {
            fastmath: jit.fastmath == Some(true),
            lineinfo: jit.lineinfo == Some(true),
            source: None,
            max_registers: jit.max_registers.and_then(|n| u32::try_from(n).ok()).filter(|n| *n > 0),
        }
    }
}

#[derive(Clone, Debug)]
pub struct CompileError {
    pub message: String,
    pub span: Option<TextRange>,
}

type R<T> = Result<T, CompileError>;

fn err<T>(message: impl Into<String>, span: TextRange) -> R<T> {
    Err(CompileError {
        message: message.into(),
        span: Some(span),
    })
}

/// Where an array's pointer register points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Space {
    Global,
    Shared,
    Local,
    Const,
    Generic,
}

impl Space {
    fn suffix(self) -> &'static str {
        match self {
            Space::Global => ".global",
            Space::Shared => ".shared",
            Space::Local => ".local",
            Space::Const => ".const",
            Space::Generic => "",
        }
    }
}

#[derive(Clone, Debug)]
struct Arr {
    ptr: String,
    shape: Vec<String>,
    strides: Vec<String>,
    space: Space,
    dtype: Option<Scalar>,
}

#[derive(Clone, Debug)]
enum Repr {
    None,
    S(String, Scalar),
    A(Arr),
    T(Vec<Repr>),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Rc {
    P,
    R,
    Rd,
    F,
    Fd,
    /// A float16, as its bits in a `.b16` register.
    H,
}

/// The float type of a complex dtype's parts (an array element is two of them).
fn complex_part(s: Scalar) -> Option<Scalar> {
    match s {
        Scalar::C64 => Some(Scalar::F32),
        Scalar::C128 => Some(Scalar::F64),
        _ => None,
    }
}

fn rc_of(s: Scalar) -> Option<Rc> {
    Some(match s {
        Scalar::Bool => Rc::P,
        Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::U8 | Scalar::U16 | Scalar::U32 => Rc::R,
        Scalar::I64 | Scalar::U64 => Rc::Rd,
        Scalar::F32 => Rc::F,
        Scalar::F64 => Rc::Fd,
        Scalar::F16 => Rc::H,
        _ => return None,
    })
}

fn scalar_of_type(t: &Type) -> Option<Scalar> {
    crate::analysis::typing::promote::base_scalar(t)
}

/// The largest power of two, up to 16, that divides `n` (16 for 0).
fn pow2_factor(n: i64) -> u32 {
    1 << n.trailing_zeros().min(4)
}

/// A record, or an array of records.
fn holds_records(t: &Type) -> bool {
    match t {
        Type::Record(_) => true,
        Type::Array { dtype, .. } => matches!(**dtype, Type::Record(_)),
        _ => false,
    }
}

/// The alignment of the element addresses of an array of type `t` that comes from outside
/// (a parameter, a call's result): its items' for numbers; for records, the power of two
/// their size is a multiple of (up to 16), as the elements of a record array allocated
/// on the device (256-byte aligned) have.
fn assumed_alignment(t: &Type) -> u32 {
    match t {
        Type::Array { dtype, .. } => match &**dtype {
            Type::Record(r) => pow2_factor(i64::from(r.size)),
            other => scalar_of_type(other).map_or(1, |s| s.alignment()),
        },
        _ => 16,
    }
}

/// What is known about a value before it runs: an integer constant (normalised to its type,
/// as the simulator holds it), an array's shape, or a tuple's integers.
#[derive(Clone, Debug, PartialEq)]
enum Known {
    Int(i64),
    Shape(Vec<i64>),
    Ints(Vec<Option<i64>>),
}

/// The integer constant each value of `f` is, where it is one: integer literals,
/// `warpsize`, the extents of static shared and local arrays and of module arrays, their
/// casts, negations and integer operations (computed as the simulator does), and reads of
/// slots that every write gives the same value (`n = 32` before a loop, `lut = ...`).
fn int_constants(program: &Program, f: &Function) -> Vec<Option<i64>> {
    use crate::launch::sim::{int_binary, norm};
    let mut vals: Vec<Option<Known>> = vec![None; f.values.len()];
    let mut slots: Vec<Option<Known>> = vec![None; f.slots.len()];
    let int_of = |v: ValueId| scalar_of_type(f.value_type(v)).filter(|s| s.is_int());
    // Knowledge only grows (a slot is known once all its writes are), so this ends.
    let mut last = vals.clone();
    loop {
        for (_, inst) in f.instructions() {
            let Some(r) = inst.result else { continue };
            let int = |v: &ValueId, vals: &[Option<Known>]| match vals[v.0 as usize] {
                Some(Known::Int(c)) if int_of(*v).is_some() => Some(c),
                _ => None,
            };
            let s = int_of(r);
            let known = match (&inst.op, s) {
                (Op::Const(Constant::Int(v, cs)), Some(s)) if cs.is_int() => {
                    Some(Known::Int(norm(*v as i64, s)))
                }
                (Op::Intrinsic { name, args }, Some(s)) if name == "warpsize" && args.is_empty() => {
                    Some(Known::Int(norm(32, s)))
                }
                (Op::Cast(v, _), Some(s)) => int(v, &vals).map(|c| Known::Int(norm(c, s))),
                (Op::Unary(UnaryOp::Neg, v), Some(s)) => {
                    int(v, &vals).map(|c| Known::Int(norm(c.wrapping_neg(), s)))
                }
                (Op::Binary(op, a, b), Some(s)) if *op != BinaryOp::TrueDiv => {
                    match (int(a, &vals), int(b, &vals)) {
                        (Some(x), Some(y)) => Some(Known::Int(int_binary(*op, x, y, s))),
                        _ => None,
                    }
                }
                (Op::Extent { array, axis }, Some(s)) => match &vals[array.0 as usize] {
                    Some(Known::Shape(shape)) => {
                        shape.get(*axis as usize).map(|n| Known::Int(norm(*n, s)))
                    }
                    _ => None,
                },
                // A dynamic shared array is `[0]`: its size comes with the launch.
                (Op::AllocArray { shape, .. }, _) if shape.as_slice() != [0] => {
                    Some(Known::Shape(shape.clone()))
                }
                (Op::GlobalArray(name), _) => {
                    program.globals.get(name).map(|a| Known::Shape(a.shape.clone()))
                }
                (Op::MakeTuple(items), _) => {
                    Some(Known::Ints(items.iter().map(|v| int(v, &vals)).collect()))
                }
                (Op::Extract(t, k), Some(s)) => match &vals[t.0 as usize] {
                    Some(Known::Ints(items)) => {
                        items.get(*k as usize).copied().flatten().map(|c| Known::Int(norm(c, s)))
                    }
                    _ => None,
                },
                (Op::ReadSlot(slot), _) => match (&slots[slot.0 as usize], s) {
                    (Some(Known::Int(c)), Some(s)) => Some(Known::Int(norm(*c, s))),
                    (Some(Known::Int(_)), None) => None,
                    (other, _) => other.clone(),
                },
                _ => None,
            };
            vals[r.0 as usize] = known;
        }
        let mut writes: Vec<Option<Option<Known>>> = vec![None; f.slots.len()];
        for (_, inst) in f.instructions() {
            if let Op::WriteSlot(SlotId(slot), v) = inst.op {
                let w = &mut writes[slot as usize];
                let k = vals[v.0 as usize].clone();
                *w = match w.take() {
                    None => Some(k),
                    Some(prev) if prev == k => Some(k),
                    Some(_) => Some(None),
                };
            }
        }
        let next: Vec<Option<Known>> = writes.into_iter().map(Option::flatten).collect();
        if next == slots && vals == last {
            break;
        }
        slots = next;
        last.clone_from(&vals);
    }
    vals.into_iter()
        .map(|k| match k {
            Some(Known::Int(c)) => Some(c),
            _ => None,
        })
        .collect()
}

/// The type integer arithmetic of `s` takes in registers of class `rc` (64-bit registers
/// carry every int64 and uint64 value).
fn int_arith_type(s: Scalar, rc: Rc) -> &'static str {
    match rc {
        Rc::Rd if s.is_unsigned_int() => "u64",
        Rc::Rd => "s64",
        _ => aty(s),
    }
}

/// Arithmetic type suffix of a scalar held in a register.
fn aty(s: Scalar) -> &'static str {
    match s {
        Scalar::I8 | Scalar::I16 | Scalar::I32 => "s32",
        Scalar::U8 | Scalar::U16 | Scalar::U32 | Scalar::Bool => "u32",
        Scalar::I64 => "s64",
        Scalar::U64 => "u64",
        Scalar::F32 => "f32",
        Scalar::F16 => "f16",
        _ => "f64",
    }
}

fn bty(s: Scalar) -> &'static str {
    match rc_of(s) {
        Some(Rc::Rd) | Some(Rc::Fd) => "b64",
        Some(Rc::H) => "b16",
        _ => "b32",
    }
}

/// The integer registers (and their width) that hold the bits of `s`, a byte at a time.
fn bits_of(s: Scalar) -> (Rc, u32) {
    match s.itemsize() {
        2 if s == Scalar::F16 => (Rc::H, 16),
        8 => (Rc::Rd, 64),
        _ => (Rc::R, 32),
    }
}

/// Memory type of an element.
fn mty(s: Scalar) -> &'static str {
    match s {
        Scalar::Bool | Scalar::U8 => "u8",
        Scalar::I8 => "s8",
        Scalar::I16 => "s16",
        Scalar::U16 => "u16",
        Scalar::I32 => "s32",
        Scalar::U32 => "u32",
        Scalar::I64 => "s64",
        Scalar::U64 => "u64",
        Scalar::F32 => "f32",
        Scalar::F16 => "b16",
        _ => "f64",
    }
}

/// The bits of a float16 as a `.b16` immediate.
fn f16_imm(bits: u16) -> String {
    format!("0x{bits:04X}")
}

fn f32_imm(x: f32) -> String {
    format!("0f{:08X}", x.to_bits())
}

fn f64_imm(x: f64) -> String {
    format!("0d{:016X}", x.to_bits())
}

/// `x` as an immediate of float type `s` (float32 rounds it).
fn float_imm(s: Scalar, x: f64) -> String {
    if s == Scalar::F32 { f32_imm(x as f32) } else { f64_imm(x) }
}

/// `2^e` (a normal exponent) as an immediate of float type `s`.
fn pow2_imm(s: Scalar, e: i32) -> String {
    if s == Scalar::F32 {
        f32_imm(f32::from_bits(((e + 127) as u32) << 23))
    } else {
        f64_imm(f64::from_bits(((e + 1023) as u64) << 52))
    }
}

/// All ones in the low `w` bits.
fn mask(w: u32) -> u64 {
    if w == 64 { u64::MAX } else { (1u64 << w) - 1 }
}

struct Module {
    decls: String,
    counter: u32,
    needs_dyn_smem: bool,
    needs_grid_barrier: bool,
    /// `print` calls `vprintf`.
    needs_vprintf: bool,
    /// The `__conststring__` symbol of each string declared, by its text.
    strings: HashMap<String, String>,
    symbols: HashSet<String>,
}

impl Module {
    /// The `.const` symbol holding `text` and a NUL, declared on first use, named as Numba
    /// names it (`__conststring__$` and the text mangled as an Itanium identifier).
    fn string(&mut self, text: &str) -> String {
        if let Some(symbol) = self.strings.get(text) {
            return symbol.clone();
        }
        let mut symbol = format!("__conststring__${}", mangle_identifier(text));
        // Numba's names are not one to one (`:` and `_3a` escape alike): another text that
        // would share a name gets a number after it.
        if self.symbols.contains(&symbol) {
            symbol = format!("{symbol}${}", self.strings.len());
        }
        let bytes = text.as_bytes();
        // As Numba's NVVM writes it: the trailing NUL only in the size.
        let init = if bytes.is_empty() {
            String::new()
        } else {
            format!(" = {{{}}}", bytes.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(", "))
        };
        let _ = writeln!(self.decls, ".const .align 1 .b8 {symbol}[{}]{init};", bytes.len() + 1);
        self.symbols.insert(symbol.clone());
        self.strings.insert(text.to_string(), symbol.clone());
        symbol
    }
}

/// Numba's `itanium_mangler.mangle_identifier` of a string (no template parameters or ABI
/// tags): each `.`-separated part with the bytes outside `[A-Za-z0-9_]` written `_xx` (hex)
/// and its length in front (`_` first if it starts with a digit); several parts as
/// `N<parts>E`. (Python's case-insensitive pattern would leave four non-ASCII letters such
/// as the Kelvin sign unescaped; they are escaped here, keeping PTX identifiers ASCII.)
fn mangle_identifier(text: &str) -> String {
    let parts: Vec<String> = text
        .split('.')
        .map(|part| {
            let mut escaped = String::new();
            for &b in part.as_bytes() {
                if b.is_ascii_alphanumeric() || b == b'_' {
                    escaped.push(b as char);
                } else {
                    let _ = write!(escaped, "_{b:02x}");
                }
            }
            if escaped.starts_with(|c: char| c.is_ascii_digit()) {
                escaped.insert(0, '_');
            }
            format!("{}{escaped}", escaped.len())
        })
        .collect();
    if parts.len() > 1 { format!("N{}E", parts.concat()) } else { parts.concat() }
}

/// Whether kernlint generates PTX for `arch` (`sm_70` and later, `a` variants included).
pub fn check_arch(arch: &str) -> Result<(), String> {
    let ok = arch
        .strip_prefix("sm_")
        .and_then(|n| n.trim_end_matches('a').parse::<u32>().ok())
        .is_some_and(|n| n >= 70);
    if ok { Ok(()) } else { Err(format!("unsupported --arch `{arch}` (expected sm_70 ... sm_90)")) }
}

/// Compile a program (the kernel and the device functions it calls) to PTX for `arch`
/// (`sm_70` ... `sm_90`).
pub fn compile_ptx(
    program: &Program,
    arch: &str,
    options: &CompileOptions,
) -> Result<String, CompileError> {
    check_arch(arch).map_err(|message| CompileError { message, span: None })?;
    let optimized = super::optimize(program, options.fastmath);
    let program = &optimized;
    let mut module = Module {
        decls: String::new(),
        counter: 0,
        needs_dyn_smem: false,
        needs_grid_barrier: false,
        needs_vprintf: false,
        strings: HashMap::default(),
        symbols: HashSet::default(),
    };
    let line_starts: Vec<usize> = match &options.source {
        Some(LineSource { text, .. }) if options.lineinfo => std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect(),
        _ => Vec::new(),
    };
    let names: Vec<String> = program
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| {
            if i == 0 {
                f.name.clone()
            } else {
                format!("{}__kl{}", f.name, i)
            }
        })
        .collect();
    let mut protos = String::new();
    let mut bodies = String::new();
    let mut math = BTreeSet::new();
    for (fi, f) in program.functions.iter().enumerate().rev() {
        let mut cx = FnCx::new(program, fi, f, options, &names, &line_starts);
        let (header, body) = cx.compile(&mut module)?;
        math.append(&mut cx.math);
        if fi != 0 {
            let _ = writeln!(protos, "{header};");
        }
        let _ = writeln!(bodies, "{header}\n{{\n{body}}}\n");
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "//\n// Generated by kernlint {}\n//\n",
        env!("CARGO_PKG_VERSION")
    );
    let _ = writeln!(out, ".version 8.0\n.target {arch}\n.address_size 64\n");
    if options.lineinfo
        && let Some(source) = &options.source
    {
        for (number, (name, _)) in source.files.iter().enumerate() {
            let _ = writeln!(out, ".file {} \"{}\"", number + 1, name.replace('\\', "\\\\").replace('"', "\\\""));
        }
        out.push('\n');
    }
    if module.needs_dyn_smem {
        let _ = writeln!(out, ".extern .shared .align 16 .b8 __kl_dynsmem[];");
    }
    if module.needs_grid_barrier {
        let _ = writeln!(out, ".global .align 4 .u32 __kl_grid_barrier;");
    }
    if module.needs_vprintf {
        let _ = writeln!(
            out,
            ".extern .func (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0,\n\t.param .b64 vprintf_param_1\n);"
        );
    }
    out.push_str(&module.decls);
    out.push('\n');
    out.push_str(&super::ptx_math::definitions(&math));
    out.push_str(&protos);
    out.push('\n');
    out.push_str(&bodies);
    Ok(out)
}

struct FnCx<'a> {
    program: &'a Program,
    fi: usize,
    f: &'a Function,
    opts: &'a CompileOptions,
    names: &'a [String],
    line_starts: &'a [usize],
    out: String,
    counts: [u32; 6],
    vals: Vec<Option<Repr>>,
    slots: Vec<Repr>,
    slot_spaces: Vec<Option<Space>>,
    /// The alignment of each array value's element addresses (see [`FnCx::infer_alignment`]).
    aligns: HashMap<ValueId, u32>,
    labels: u32,
    span: TextRange,
    last_line: usize,
    locals: String,
    /// The shared math functions (and widths) this function calls.
    math: BTreeSet<(MathFn, u32)>,
    /// The integer constant each value is, where it is one (see [`int_constants`]).
    consts: Vec<Option<i64>>,
    /// The instruction defining each value: (block, index).
    defs: HashMap<ValueId, (usize, usize)>,
    /// The bases that two or more different element indices split into (see
    /// [`FnCx::split_index`]): only their accesses share an address.
    shared_bases: HashSet<ValueId>,
    /// The floor quotient and remainder registers of the integer divisions done so far in
    /// the block being emitted, by (dividend, divisor, type).
    divmods: HashMap<(ValueId, ValueId, Scalar), (String, String)>,
}

impl<'a> FnCx<'a> {
    fn new(
        program: &'a Program,
        fi: usize,
        f: &'a Function,
        opts: &'a CompileOptions,
        names: &'a [String],
        line_starts: &'a [usize],
    ) -> Self {
        let mut cx = Self {
            program,
            fi,
            f,
            opts,
            names,
            line_starts,
            out: String::new(),
            counts: [0; 6],
            vals: vec![None; f.values.len()],
            slots: Vec::new(),
            slot_spaces: vec![None; f.slots.len()],
            aligns: HashMap::default(),
            labels: 0,
            span: TextRange::default(),
            last_line: 0,
            locals: String::new(),
            math: BTreeSet::new(),
            consts: int_constants(program, f),
            defs: f
                .blocks
                .iter()
                .enumerate()
                .flat_map(|(b, block)| {
                    block.insts.iter().enumerate().filter_map(move |(i, inst)| inst.result.map(|r| (r, (b, i))))
                })
                .collect(),
            shared_bases: HashSet::default(),
            divmods: HashMap::default(),
        };
        let mut indices: HashMap<ValueId, HashSet<ValueId>> = HashMap::default();
        for (_, inst) in f.instructions() {
            if let Op::Load { indices: idx, .. } | Op::Store { indices: idx, .. } = &inst.op {
                for v in idx {
                    indices.entry(cx.split_index(*v).0).or_default().insert(*v);
                }
            }
        }
        cx.shared_bases = indices.into_iter().filter(|(_, vs)| vs.len() > 1).map(|(b, _)| b).collect();
        cx
    }

    /// The value of `v` where a numeric constant (or a cast of one) defines it.
    fn float_constant(&self, v: ValueId) -> Option<f64> {
        let &(b, i) = self.defs.get(&v)?;
        match &self.f.blocks[b].insts[i].op {
            Op::Const(Constant::Float(x, _)) => Some(*x),
            Op::Const(Constant::Int(k, _)) => Some(*k as f64),
            Op::Cast(u, _) => self.float_constant(*u),
            _ => None,
        }
    }

    /// Call the shared math function `f` on `args` (registers of float type `s`).
    fn math_call(&mut self, f: MathFn, s: Scalar, args: &[String]) -> R<String> {
        let bits = match s {
            Scalar::F32 => 32,
            Scalar::F64 => 64,
            _ => return self.unsupported_scalar(s),
        };
        self.math.insert((f, bits));
        let t = aty(s);
        let d = self.sreg(s)?;
        let _ = writeln!(self.out, "\t{{");
        for i in 0..args.len() {
            self.e(format!(".param .{t} param{i}"));
        }
        self.e(format!(".param .{t} retval0"));
        for (i, a) in args.iter().enumerate() {
            self.e(format!("st.param.{t} [param{i}], {a}"));
        }
        let plist = (0..args.len())
            .map(|i| format!("param{i}"))
            .collect::<Vec<_>>()
            .join(", ");
        let name = super::ptx_math::func_name(f, bits);
        self.e(format!("call (retval0), {name}, ({plist})"));
        self.e(format!("ld.param.{t} {d}, [retval0]"));
        let _ = writeln!(self.out, "\t}}");
        Ok(d)
    }

    fn e(&mut self, s: impl AsRef<str>) {
        self.out.push('\t');
        self.out.push_str(s.as_ref());
        self.out.push_str(";\n");
    }

    fn reg(&mut self, rc: Rc) -> String {
        let (i, p) = match rc {
            Rc::P => (0, "%p"),
            Rc::R => (1, "%r"),
            Rc::Rd => (2, "%rd"),
            Rc::F => (3, "%f"),
            Rc::Fd => (4, "%fd"),
            Rc::H => (5, "%h"),
        };
        self.counts[i] += 1;
        format!("{p}{}", self.counts[i])
    }

    fn sreg(&mut self, s: Scalar) -> R<String> {
        match rc_of(s) {
            Some(rc) => Ok(self.reg(rc)),
            None => self.unsupported_scalar(s),
        }
    }

    fn unsupported_scalar<T>(&self, s: Scalar) -> R<T> {
        let what = match s {
            Scalar::BF16 => "bfloat16 values".to_string(),
            other => format!("{other} values"),
        };
        err(format!("kernlint cannot compile {what} yet"), self.span)
    }

    fn label(&mut self) -> String {
        self.labels += 1;
        format!("$L__{}_{}", self.fi, self.labels)
    }

    /// Fresh registers for a value of type `t`.
    fn fresh(&mut self, t: &Type, space: Space) -> R<Repr> {
        if let Some(s) = scalar_of_type(t) {
            let r = self.sreg(s)?;
            return Ok(Repr::S(r, s));
        }
        Ok(match t {
            Type::Array { dtype, ndim, .. } => {
                let ptr = self.reg(Rc::Rd);
                let shape = (0..*ndim).map(|_| self.reg(Rc::Rd)).collect();
                let strides = (0..*ndim).map(|_| self.reg(Rc::Rd)).collect();
                Repr::A(Arr {
                    ptr,
                    shape,
                    strides,
                    space,
                    dtype: scalar_of_type(dtype),
                })
            }
            Type::UniTuple(e, n) => {
                Repr::T((0..*n).map(|_| self.fresh(e, space)).collect::<R<_>>()?)
            }
            Type::Tuple(items) => Repr::T(
                items
                    .iter()
                    .map(|e| self.fresh(e, space))
                    .collect::<R<_>>()?,
            ),
            _ => Repr::None,
        })
    }

    fn val(&self, v: ValueId) -> R<Repr> {
        match &self.vals[v.0 as usize] {
            Some(r) => Ok(r.clone()),
            None => err(
                "kernlint cannot compile this value yet (used before it is defined)",
                self.span,
            ),
        }
    }

    fn scalar(&self, v: ValueId) -> R<(String, Scalar)> {
        match self.val(v)? {
            Repr::S(r, s) => Ok((r, s)),
            _ => err(
                "kernlint cannot compile this value yet (expected a number)",
                self.span,
            ),
        }
    }

    /// The values a 64-bit integer value takes, where it is converted from a narrower one.
    fn range(&self, v: ValueId) -> divide::Range {
        let Some(&(b, i)) = self.defs.get(&v) else {
            return divide::Range::Any;
        };
        let Op::Cast(src, to) = &self.f.blocks[b].insts[i].op else {
            return divide::Range::Any;
        };
        let from = scalar_of_type(self.f.value_type(*src));
        match (from, to) {
            (Some(Scalar::I8 | Scalar::I16 | Scalar::I32), Scalar::I64) => divide::Range::I32,
            (Some(Scalar::Bool | Scalar::U8 | Scalar::U16 | Scalar::U32), Scalar::I64 | Scalar::U64) => {
                divide::Range::U32
            }
            _ => divide::Range::Any,
        }
    }

    fn array(&self, v: ValueId) -> R<Arr> {
        match self.val(v)? {
            Repr::A(a) => Ok(a),
            _ => err(
                "kernlint cannot compile this value yet (expected an array)",
                self.span,
            ),
        }
    }

    /// Copy `src` into `dst`'s registers, converting pointers to generic where needed.
    fn mov(&mut self, dst: &Repr, src: &Repr) -> R<()> {
        match (dst, src) {
            (Repr::S(d, ds), Repr::S(s, ss)) => {
                if ds == ss || rc_of(*ds) == rc_of(*ss) {
                    let t = if rc_of(*ds) == Some(Rc::P) {
                        "pred".to_string()
                    } else {
                        bty(*ds).to_string()
                    };
                    self.e(format!("mov.{t} {d}, {s}"));
                } else {
                    let c = self.cast(s, *ss, *ds)?;
                    self.mov(dst, &Repr::S(c, *ds))?;
                }
            }
            (Repr::A(d), Repr::A(s)) => {
                let ptr = self.ptr_in(s, d.space)?;
                self.e(format!("mov.b64 {}, {ptr}", d.ptr));
                for (a, b) in d
                    .shape
                    .iter()
                    .zip(&s.shape)
                    .chain(d.strides.iter().zip(&s.strides))
                {
                    self.e(format!("mov.b64 {a}, {b}"));
                }
            }
            (Repr::T(d), Repr::T(s)) => {
                for (a, b) in d.iter().zip(s) {
                    self.mov(a, b)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The pointer of `a` as an address in `space` (only generic conversions are possible).
    fn ptr_in(&mut self, a: &Arr, space: Space) -> R<String> {
        if a.space == space {
            return Ok(a.ptr.clone());
        }
        if space != Space::Generic {
            return err(
                "kernlint cannot compile arrays from different memory spaces in one variable yet",
                self.span,
            );
        }
        let r = self.reg(Rc::Rd);
        self.e(format!("cvta{}.u64 {r}, {}", a.space.suffix(), a.ptr));
        Ok(r)
    }

    /// Memory spaces of array values and slots, to a fixpoint.
    fn infer_spaces(&mut self) {
        let f = self.f;
        let mut spaces: HashMap<ValueId, Space> = HashMap::default();
        let param_space = if f.is_kernel {
            Space::Global
        } else {
            Space::Generic
        };
        for p in &f.params {
            spaces.insert(p.value, param_space);
        }
        for _ in 0..8 {
            let mut changed = false;
            for (_, inst) in f.instructions() {
                let new = match &inst.op {
                    Op::AllocArray { space, .. } => Some(match space {
                        MemorySpace::Shared => Space::Shared,
                        MemorySpace::Local => Space::Local,
                        MemorySpace::Const => Space::Const,
                        MemorySpace::Global => Space::Global,
                    }),
                    Op::GlobalArray(_) => Some(Space::Const),
                    Op::ReadSlot(s) => self.slot_spaces[s.0 as usize],
                    Op::SubArray { array, .. }
                    | Op::Slice { array, .. }
                    | Op::Transpose(array)
                    | Op::View { array, .. } => {
                        spaces.get(array).copied()
                    }
                    Op::WriteSlot(s, v) => {
                        if matches!(f.value_type(*v), Type::Array { .. })
                            && let Some(sp) = spaces.get(v).copied()
                        {
                            let slot = &mut self.slot_spaces[s.0 as usize];
                            let joined = match *slot {
                                None => sp,
                                Some(old) if old == sp => old,
                                Some(_) => Space::Generic,
                            };
                            if *slot != Some(joined) {
                                *slot = Some(joined);
                                changed = true;
                            }
                        }
                        None
                    }
                    _ => None,
                };
                if let (Some(r), Some(sp)) = (inst.result, new)
                    && spaces.get(&r) != Some(&sp)
                {
                    spaces.insert(r, sp);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// The alignment every element address of each array value is known to have (a power
    /// of two up to 16), to a fixpoint: what a field of a packed record (a float64 in a
    /// 12-byte record, or in a packed record nested at an odd offset) loses. Arrays from
    /// outside (parameters, calls' results) have their type's [`assumed_alignment`].
    fn infer_alignment(&mut self) {
        let f = self.f;
        let mut aligns: HashMap<ValueId, u32> = HashMap::default();
        let mut slots: Vec<Option<u32>> = vec![None; f.slots.len()];
        for p in &f.params {
            aligns.insert(p.value, assumed_alignment(&p.ty));
        }
        // Alignments only fall (from 16, in powers of two), so this ends.
        loop {
            let mut changed = false;
            for (_, inst) in f.instructions() {
                let Some(r) = inst.result else {
                    if let Op::WriteSlot(s, v) = &inst.op
                        && matches!(f.value_type(*v), Type::Array { .. })
                        && let Some(&a) = aligns.get(v)
                        && slots[s.0 as usize].is_none_or(|old| a < old)
                    {
                        slots[s.0 as usize] = Some(a);
                        changed = true;
                    }
                    continue;
                };
                if !matches!(f.value_type(r), Type::Array { .. }) {
                    continue;
                }
                let of = |v: &ValueId| aligns.get(v).copied();
                let new = match &inst.op {
                    Op::AllocArray { .. } => Some(16),
                    Op::GlobalArray(name) => self.program.globals.get(name).map(|g| {
                        g.strides.iter().fold(pow2_factor(g.offset), |a, &s| a.min(pow2_factor(s)))
                    }),
                    Op::ReadSlot(s) => slots[s.0 as usize],
                    Op::SubArray { array, .. } | Op::Slice { array, .. } | Op::Transpose(array) => of(array),
                    // A field of a record (array) is where alignment is lost. A view of
                    // numbers (a reshape, `.view(dtype)`, `.real`) of an aligned array is
                    // aligned for its own items, as Numba takes it.
                    Op::View { array, .. }
                        if !holds_records(f.value_type(*array))
                            && of(array).is_some_and(|a| a >= assumed_alignment(f.value_type(*array))) =>
                    {
                        Some(assumed_alignment(f.value_type(r)))
                    }
                    Op::View { array, offset, strides, .. } => of(array).map(|a| {
                        strides.iter().fold(a.min(pow2_factor(*offset)), |a, s| {
                            a.min(match (self.consts[s.0 as usize], self.definition(*s)) {
                                (Some(c), _) => pow2_factor(c),
                                // Steps over the array's elements.
                                (None, Some(Op::Stride { array, .. })) => of(array).unwrap_or(1),
                                _ => 1,
                            })
                        })
                    }),
                    Op::Select { then, otherwise, .. } => of(then).zip(of(otherwise)).map(|(a, b)| a.min(b)),
                    Op::Extract(t, k) => match self.definition(*t) {
                        Some(Op::MakeTuple(items)) => items.get(*k as usize).and_then(of),
                        _ => Some(assumed_alignment(f.value_type(r))),
                    },
                    _ => Some(assumed_alignment(f.value_type(r))),
                };
                if let Some(a) = new
                    && aligns.get(&r).is_none_or(|&old| a < old)
                {
                    aligns.insert(r, a);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        self.aligns = aligns;
    }

    /// The alignment of `array`'s element addresses (see [`FnCx::infer_alignment`]).
    fn alignment(&self, array: ValueId) -> u32 {
        self.aligns.get(&array).copied().unwrap_or_else(|| assumed_alignment(self.f.value_type(array)))
    }

    fn compile(&mut self, module: &mut Module) -> R<(String, String)> {
        let f = self.f;
        self.infer_spaces();
        self.infer_alignment();
        // Parameters.
        let mut params = Vec::new();
        let fname = self.names[self.fi].clone();
        let pname = |i: usize, k: &str| format!("{fname}_param_{i}{k}");
        if f.is_kernel || self.fi == 0 {
            for (i, p) in f.params.iter().enumerate() {
                match &p.ty {
                    Type::Array {
                        dtype,
                        ndim,
                        layout,
                        ..
                    } => {
                        let ptr = self.reg(Rc::Rd);
                        params.push(format!(".param .u64 {}", pname(i, "")));
                        self.e(format!("ld.param.u64 {ptr}, [{}]", pname(i, "")));
                        self.e(format!("cvta.to.global.u64 {ptr}, {ptr}"));
                        let mut shape = Vec::new();
                        let mut strides = Vec::new();
                        for k in 0..*ndim as usize {
                            let r = self.reg(Rc::Rd);
                            params.push(format!(".param .u64 {}", pname(i, &format!("_shape{k}"))));
                            self.e(format!(
                                "ld.param.u64 {r}, [{}]",
                                pname(i, &format!("_shape{k}"))
                            ));
                            shape.push(r);
                        }
                        let ds = scalar_of_type(dtype);
                        for k in 0..*ndim as usize {
                            params
                                .push(format!(".param .u64 {}", pname(i, &format!("_stride{k}"))));
                            let inner = match layout {
                                Layout::C => k + 1 == *ndim as usize,
                                Layout::F => k == 0,
                                Layout::A => false,
                            };
                            if inner && let Some(s) = ds {
                                strides.push(s.itemsize().to_string());
                            } else {
                                let r = self.reg(Rc::Rd);
                                self.e(format!(
                                    "ld.param.u64 {r}, [{}]",
                                    pname(i, &format!("_stride{k}"))
                                ));
                                strides.push(r);
                            }
                        }
                        self.vals[p.value.0 as usize] = Some(Repr::A(Arr {
                            ptr,
                            shape,
                            strides,
                            space: Space::Global,
                            dtype: ds,
                        }));
                    }
                    // A tuple (a complex number is a pair of floats): one parameter per
                        // scalar item, in order, as Numba flattens it.
                    t @ (Type::UniTuple(..) | Type::Tuple(_)) => {
                        let first = f.blocks.first().and_then(|b| b.insts.first()).map(|i| i.span);
                        let repr = self.fresh(t, Space::Global).map_err(|e| CompileError { span: first, ..e })?;
                        let mut scalars = Vec::new();
                        flat_scalars(&repr, &mut scalars);
                        if scalars.len() != components(&repr).len() {
                            return Err(CompileError {
                                message: format!("kernlint cannot compile parameters of type {t} yet"),
                                span: first,
                            });
                        }
                        for (k, (r, s)) in scalars.into_iter().enumerate() {
                            let name = pname(i, &format!("_{k}"));
                            let m = mty(s);
                            params.push(format!(".param .{m} {name}"));
                            if s == Scalar::Bool {
                                let t = self.reg(Rc::R);
                                self.e(format!("ld.param.u8 {t}, [{name}]"));
                                self.e(format!("setp.ne.u32 {r}, {t}, 0"));
                            } else {
                                self.e(format!("ld.param.{m} {r}, [{name}]"));
                            }
                        }
                        self.vals[p.value.0 as usize] = Some(repr);
                    }
                    t => {
                        let Some(s) = scalar_of_type(t) else {
                            return Err(CompileError {
                                message: format!(
                                    "kernlint cannot compile parameters of type {t} yet"
                                ),
                                span: f
                                    .blocks
                                    .first()
                                    .and_then(|b| b.insts.first())
                                    .map(|i| i.span),
                            });
                        };
                        let first = f
                            .blocks
                            .first()
                            .and_then(|b| b.insts.first())
                            .map(|i| i.span);
                        let r = self
                            .sreg(s)
                            .map_err(|e| CompileError { span: first, ..e })?;
                        let m = mty(s);
                        params.push(format!(".param .{m} {}", pname(i, "")));
                        if s == Scalar::Bool {
                            let t = self.reg(Rc::R);
                            self.e(format!("ld.param.u8 {t}, [{}]", pname(i, "")));
                            self.e(format!("setp.ne.u32 {r}, {t}, 0"));
                        } else {
                            self.e(format!("ld.param.{m} {r}, [{}]", pname(i, "")));
                        }
                        self.vals[p.value.0 as usize] = Some(Repr::S(r, s));
                    }
                }
            }
        } else {
            let mut n = 0;
            for p in &f.params {
                let repr = self.fresh(&p.ty, Space::Generic)?;
                for (reg, rc) in components(&repr) {
                    let name = pname(n, "");
                    n += 1;
                    let pt = param_type(rc);
                    params.push(format!(".param .{pt} {name}"));
                    if rc == Rc::P {
                        let t = self.reg(Rc::R);
                        self.e(format!("ld.param.b32 {t}, [{name}]"));
                        self.e(format!("setp.ne.u32 {reg}, {t}, 0"));
                    } else {
                        self.e(format!("ld.param.{pt} {reg}, [{name}]"));
                    }
                }
                self.vals[p.value.0 as usize] = Some(repr);
            }
        }
        // Slots.
        for (i, s) in f.slots.iter().enumerate() {
            let sp = self.slot_spaces[i].unwrap_or(Space::Generic);
            let r = self.fresh(&s.ty, sp).unwrap_or(Repr::None);
            self.slots.push(r);
        }
        for (b, block) in f.blocks.iter().enumerate() {
            let _ = writeln!(self.out, "$L__BB{}_{b}:", self.fi);
            self.divmods.clear();
            for (i, inst) in block.insts.iter().enumerate() {
                self.span = inst.span;
                self.loc(inst.span);
                let value = self.inst(module, b, i, &inst.op, inst.result)?;
                if let Some(r) = inst.result {
                    self.vals[r.0 as usize] = Some(value);
                }
            }
            match &block.term {
                Terminator::Jump(t) => self.e(format!("bra {}", self.block_label(*t))),
                Terminator::Branch {
                    cond,
                    then,
                    otherwise,
                } => {
                    let (c, _) = self.scalar(*cond)?;
                    self.e(format!("@{c} bra {}", self.block_label(*then)));
                    self.e(format!("bra {}", self.block_label(*otherwise)));
                }
                Terminator::Return(v) => {
                    if let Some(v) = v
                        && !f.is_kernel
                    {
                        if self.alignment(*v) < assumed_alignment(f.value_type(*v)) {
                            return err(
                                format!("kernlint cannot compile returning {} yet: its items are not at aligned addresses (a field of a packed record) and the call is not inlined", f.value_type(*v)),
                                self.span,
                            );
                        }
                        let r = self.val(*v)?;
                        let r = self.generic(&r)?;
                        for (k, (reg, rc)) in components(&r).into_iter().enumerate() {
                            if !reg.starts_with('%') {
                                let t = self.reg(rc);
                                self.e(format!("mov.{} {t}, {reg}", param_type(rc)));
                                self.e(format!(
                                    "st.param.{} [func_retval0+{}], {t}",
                                    param_type(rc),
                                    8 * k
                                ));
                            } else if rc == Rc::P {
                                let t = self.reg(Rc::R);
                                self.e(format!("selp.u32 {t}, 1, 0, {reg}"));
                                self.e(format!("st.param.b32 [func_retval0+{}], {t}", 8 * k));
                            } else {
                                self.e(format!(
                                    "st.param.{} [func_retval0+{}], {reg}",
                                    param_type(rc),
                                    8 * k
                                ));
                            }
                        }
                    }
                    self.e("ret");
                }
                Terminator::Exit => self.e("exit"),
                Terminator::Unreachable => self.e("ret"),
            }
        }
        // Header.
        let name = &self.names[self.fi];
        let header = if self.fi == 0 && f.is_kernel {
            let maxnreg = self.opts.max_registers.map(|n| format!("\n.maxnreg {n}")).unwrap_or_default();
            format!(".visible .entry {name}(\n\t{}\n){maxnreg}", params.join(",\n\t"))
        } else {
            let ret = match f.ret {
                Type::None => String::new(),
                ref t => {
                    let n = components(&self.fresh_count_only(t)).len().max(1);
                    format!("(.param .align 8 .b8 func_retval0[{}]) ", 8 * n)
                }
            };
            // A device function compiled on its own is visible, as Numba's `device=True` PTX.
            let linkage = if self.fi == 0 { ".visible " } else { "" };
            format!("{linkage}.func {ret}{name}(\n\t{}\n)", params.join(",\n\t"))
        };
        let mut body = String::new();
        for (i, (decl, p)) in [
            (".pred", "%p"),
            (".b32", "%r"),
            (".b64", "%rd"),
            (".f32", "%f"),
            (".f64", "%fd"),
            (".b16", "%h"),
        ]
        .iter()
        .enumerate()
        {
            if self.counts[i] > 0 {
                let _ = writeln!(body, "\t.reg {decl} {p}<{}>;", self.counts[i] + 1);
            }
        }
        body.push_str(&self.locals);
        body.push('\n');
        body.push_str(&self.out);
        Ok((header, body))
    }

    fn fresh_count_only(&mut self, t: &Type) -> Repr {
        let saved = self.counts;
        let r = self.fresh(t, Space::Generic).unwrap_or(Repr::None);
        self.counts = saved;
        r
    }

    fn block_label(&self, b: BlockId) -> String {
        format!("$L__BB{}_{}", self.fi, b.0)
    }

    fn loc(&mut self, span: TextRange) {
        if !self.opts.lineinfo || self.line_starts.is_empty() {
            return;
        }
        let at = u32::from(span.start()) as usize;
        let line = self.line_starts.partition_point(|&s| s <= at);
        let col = at - self.line_starts[line - 1] + 1;
        if line != self.last_line {
            self.last_line = line;
            let Some(source) = &self.opts.source else { return };
            let (file, line) = source.file_line(line);
            let _ = writeln!(self.out, "\t.loc {file} {line} {col}");
        }
    }

    /// Bring a 32-bit register holding an 8- or 16-bit integer back to its normal form.
    fn norm(&mut self, r: &str, s: Scalar) {
        match s {
            Scalar::I8 => self.e(format!("cvt.s32.s8 {r}, {r}")),
            Scalar::I16 => self.e(format!("cvt.s32.s16 {r}, {r}")),
            Scalar::U8 => self.e(format!("and.b32 {r}, {r}, 255")),
            Scalar::U16 => self.e(format!("and.b32 {r}, {r}, 65535")),
            _ => {}
        }
    }

    fn const_scalar(&mut self, c: &Constant) -> R<Repr> {
        Ok(match *c {
            Constant::Bool(b) => {
                let r = self.reg(Rc::P);
                self.e(format!("setp.ne.u32 {r}, {}, 0", b as u32));
                Repr::S(r, Scalar::Bool)
            }
            Constant::Int(v, s) => {
                let r = self.sreg(s)?;
                match rc_of(s) {
                    Some(Rc::R) => self.e(format!(
                        "mov.b32 {r}, {}",
                        crate::launch::sim::norm(v as i64, s) as i32
                    )),
                    Some(Rc::Rd) => self.e(format!("mov.b64 {r}, {}", v as i64)),
                    Some(Rc::P) => self.e(format!("setp.ne.u32 {r}, {}, 0", (v != 0) as u32)),
                    Some(Rc::F) => self.e(format!("mov.f32 {r}, {}", f32_imm(v as f32))),
                    Some(Rc::H) => self.e(format!(
                        "mov.b16 {r}, {}",
                        f16_imm(crate::analysis::ir::math::f16_from_f64(v as f64).to_bits())
                    )),
                    _ => self.e(format!("mov.f64 {r}, {}", f64_imm(v as f64))),
                }
                Repr::S(r, s)
            }
            Constant::Float(x, s) => {
                let r = self.sreg(s)?;
                match rc_of(s) {
                    Some(Rc::F) => self.e(format!("mov.f32 {r}, {}", f32_imm(x as f32))),
                    Some(Rc::Fd) => self.e(format!("mov.f64 {r}, {}", f64_imm(x))),
                    // Rounded once, as NVVM folds `fptrunc double to half`.
                    Some(Rc::H) => self.e(format!(
                        "mov.b16 {r}, {}",
                        f16_imm(crate::analysis::ir::math::f16_from_f64(x).to_bits())
                    )),
                    _ => return self.const_scalar(&Constant::Int(x as i128, s)),
                }
                Repr::S(r, s)
            }
        })
    }

    /// Convert register `x` of type `from` to a new register of type `to`.
    fn cast(&mut self, x: &str, from: Scalar, to: Scalar) -> R<String> {
        let (fc, tc) = match (rc_of(from), rc_of(to)) {
            (Some(a), Some(b)) => (a, b),
            (None, _) => return self.unsupported_scalar(from),
            (_, None) => return self.unsupported_scalar(to),
        };
        if fc == Rc::H && tc != Rc::H {
            // Exact: every float16 is a float32.
            let f = self.reg(Rc::F);
            self.e(format!("cvt.f32.f16 {f}, {x}"));
            if to == Scalar::F32 {
                return Ok(f);
            }
            if to.is_int() {
                // Numba's `cvt.rni.{int}.f16`: to nearest, saturating at the target's width.
                self.e(format!("cvt.rni.f32.f32 {f}, {f}"));
                if to.bits() < 32 {
                    let (lo, hi) = if to.is_signed() {
                        (-(1i64 << (to.bits() - 1)), (1i64 << (to.bits() - 1)) - 1)
                    } else {
                        (0, (1i64 << to.bits()) - 1)
                    };
                    self.e(format!("max.f32 {f}, {f}, {}", f32_imm(lo as f32)));
                    self.e(format!("min.f32 {f}, {f}, {}", f32_imm(hi as f32)));
                }
            }
            return self.cast(&f, Scalar::F32, to);
        }
        let d = self.reg(tc);
        if from == to {
            let t = if tc == Rc::P { "pred" } else { bty(to) };
            self.e(format!("mov.{t} {d}, {x}"));
            return Ok(d);
        }
        match (fc, tc) {
            (Rc::P, Rc::H) => self.e(format!("selp.b16 {d}, 0x3C00, 0x0000, {x}")),
            // One rounding from the source type, as Numba's `sitofp`/`fptrunc` to half.
            (Rc::R | Rc::Rd | Rc::F | Rc::Fd, Rc::H) => {
                self.e(format!("cvt.rn.f16.{} {d}, {x}", aty(from)))
            }
            (_, Rc::H) => unreachable!("float16 sources are widened above"),
            (Rc::P, Rc::R | Rc::Rd) => self.e(format!("selp.{} {d}, 1, 0, {x}", bty(to))),
            (Rc::P, Rc::F) => self.e(format!("selp.f32 {d}, 0f3F800000, 0f00000000, {x}")),
            (Rc::P, Rc::Fd) => self.e(format!(
                "selp.f64 {d}, 0d3FF0000000000000, 0d0000000000000000, {x}"
            )),
            (_, Rc::P) => {
                let op = if from.is_float() { "neu" } else { "ne" };
                let z = match fc {
                    Rc::F => f32_imm(0.0),
                    Rc::Fd => f64_imm(0.0),
                    _ => "0".into(),
                };
                self.e(format!("setp.{op}.{} {d}, {x}, {z}", aty(from)));
            }
            (Rc::R, Rc::R) => {
                self.e(format!("mov.b32 {d}, {x}"));
                self.norm(&d, to);
            }
            (Rc::R, Rc::Rd) => self.e(format!(
                "cvt.{}.{} {d}, {x}",
                if from.is_signed() { "s64" } else { "u64" },
                aty(from)
            )),
            (Rc::Rd, Rc::Rd) => self.e(format!("mov.b64 {d}, {x}")),
            (Rc::Rd, Rc::R) => {
                self.e(format!("cvt.u32.u64 {d}, {x}"));
                self.norm(&d, to);
            }
            (Rc::R | Rc::Rd, Rc::F | Rc::Fd) => {
                self.e(format!("cvt.rn.{}.{} {d}, {x}", aty(to), aty(from)))
            }
            (Rc::F | Rc::Fd, Rc::R) if matches!(to, Scalar::I32 | Scalar::U32) => {
                self.e(format!("cvt.rzi.{}.{} {d}, {x}", aty(to), aty(from)))
            }
            // Numba converts to 8- and 16-bit types with `cvt.rzi.{s16,u16}`: saturated at
            // 16 bits, of which the 8-bit types keep the low byte. The same instruction, not a
            // clamp of a 32-bit conversion: a float64 NaN gives 0x8000 (seen on an H200).
            (Rc::F | Rc::Fd, Rc::R) => {
                let t16 = if to.is_signed() { "s16" } else { "u16" };
                let h = self.reg(Rc::H);
                self.e(format!("cvt.rzi.{t16}.{} {h}, {x}", aty(from)));
                self.e(format!("cvt.{}.{t16} {d}, {h}", if to.is_signed() { "s32" } else { "u32" }));
                self.norm(&d, to);
            }
            (Rc::F | Rc::Fd, Rc::Rd) => {
                self.e(format!("cvt.rzi.{}.{} {d}, {x}", aty(to), aty(from)))
            }
            (Rc::F, Rc::Fd) => self.e(format!("cvt.f64.f32 {d}, {x}")),
            (Rc::Fd, Rc::F) => self.e(format!("cvt.rn.f32.f64 {d}, {x}")),
            (Rc::F, Rc::F) | (Rc::Fd, Rc::Fd) => self.e(format!("mov.{} {d}, {x}", aty(to))),
            (Rc::H, _) => unreachable!("float16 sources are widened above"),
        }
        Ok(d)
    }

    fn cast_repr(&mut self, r: &Repr, to: Scalar) -> R<String> {
        match r {
            Repr::S(x, s) => self.cast(x, *s, to),
            _ => err(
                "kernlint cannot compile this value yet (expected a number)",
                self.span,
            ),
        }
    }

    /// Byte address of an element.
    fn address(&mut self, a: &Arr, indices: &[Repr]) -> R<String> {
        let addr = self.reg(Rc::Rd);
        self.e(format!("mov.b64 {addr}, {}", a.ptr));
        for (i, idx) in indices.iter().enumerate() {
            let x = self.cast_repr(idx, Scalar::I64)?;
            let Some(stride) = a.strides.get(i) else {
                return err(
                    "kernlint cannot compile this index yet (too many indices)",
                    self.span,
                );
            };
            self.e(format!("mad.lo.s64 {addr}, {x}, {stride}, {addr}"));
        }
        Ok(addr)
    }

    /// `v` as `base + offset + (wrap ? extent : 0)`: the constant offset split off an int64
    /// index (`x + 1`, `x - 1` and its negative-index wraparound `select(x - 1 < 0, x - 1 + n,
    /// x - 1)`), so that neighbouring elements share the address of `base` and ptxas folds
    /// the rest into the access's immediate. Exact: int64 arithmetic wraps.
    fn split_index(&self, v: ValueId) -> (ValueId, i64, Option<(ValueId, ValueId)>) {
        let i64_value = |v: ValueId| scalar_of_type(self.f.value_type(v)) == Some(Scalar::I64);
        let konst = |v: ValueId| self.consts[v.0 as usize].filter(|_| i64_value(v));
        let linear = |mut v: ValueId| {
            let mut offset = 0i64;
            while i64_value(v) && konst(v).is_none() {
                let (next, c) = match self.definition(v) {
                    Some(Op::Binary(BinaryOp::Add, a, b)) => match (konst(*a), konst(*b)) {
                        (_, Some(c)) => (*a, c),
                        (Some(c), _) => (*b, c),
                        _ => break,
                    },
                    Some(Op::Binary(BinaryOp::Sub, a, b)) => match konst(*b) {
                        Some(c) => (*a, c.wrapping_neg()),
                        None => break,
                    },
                    _ => break,
                };
                if !i64_value(next) {
                    break;
                }
                v = next;
                offset = offset.wrapping_add(c);
            }
            (v, offset)
        };
        if let Some(Op::Select { cond, then, otherwise }) = self.definition(v)
            && i64_value(v)
            && let Some(Op::Binary(BinaryOp::Add, t, extent)) = self.definition(*then)
            && t == otherwise
        {
            // A wrapped index at no offset is computed once as it is: splitting it would
            // only repeat its select at each access.
            let (base, offset) = linear(*t);
            if offset != 0 {
                return (base, offset, Some((*cond, *extent)));
            }
        }
        let (base, offset) = linear(v);
        (base, offset, None)
    }

    /// Byte address of an element: the split indices' bases (shared by neighbouring
    /// elements), then their constant offsets and wraparounds. An index whose base no other
    /// index shares is used whole: splitting it would add instructions and share nothing.
    fn element_address(&mut self, a: &Arr, indices: &[ValueId]) -> R<String> {
        let split: Vec<_> = indices
            .iter()
            .map(|v| match self.split_index(*v) {
                split if self.shared_bases.contains(&split.0) => split,
                _ => (*v, 0, None),
            })
            .collect();
        let bases: Vec<Repr> = split.iter().map(|(b, ..)| self.val(*b)).collect::<R<_>>()?;
        let addr = self.address(a, &bases)?;
        for ((_, offset, wrap), stride) in split.iter().zip(&a.strides) {
            match stride.parse::<i64>() {
                _ if *offset == 0 => {}
                Ok(size) => self.e(format!("add.s64 {addr}, {addr}, {}", offset.wrapping_mul(size))),
                // ptxas keeps a 64-bit multiply by 1 as a wide multiply-add.
                Err(_) if *offset == 1 => self.e(format!("add.s64 {addr}, {addr}, {stride}")),
                Err(_) if *offset == -1 => self.e(format!("sub.s64 {addr}, {addr}, {stride}")),
                Err(_) => self.e(format!("mad.lo.s64 {addr}, {stride}, {offset}, {addr}")),
            }
            if let Some((cond, extent)) = wrap {
                let c = self.scalar(*cond)?.0;
                let n = self.cast_repr(&self.val(*extent)?, Scalar::I64)?;
                self.e(format!("@{c} mad.lo.s64 {addr}, {n}, {stride}, {addr}"));
            }
        }
        Ok(addr)
    }

    fn indices(&self, v: &[ValueId]) -> R<Vec<Repr>> {
        v.iter().map(|v| self.val(*v)).collect()
    }

    fn inst(
        &mut self,
        module: &mut Module,
        b: usize,
        i: usize,
        op: &Op,
        result: Option<ValueId>,
    ) -> R<Repr> {
        let rty = result
            .map(|r| self.f.value_type(r).clone())
            .unwrap_or(Type::None);
        let rs = scalar_of_type(&rty);
        Ok(match op {
            Op::Const(c) => self.const_scalar(c)?,
            Op::ReadSlot(s) => {
                let slot = self.slots[s.0 as usize].clone();
                let sp = self.slot_spaces[s.0 as usize].unwrap_or(Space::Generic);
                let ty = self.f.slots[s.0 as usize].ty.clone();
                let d = self.fresh(&ty, sp)?;
                self.mov(&d, &slot)?;
                d
            }
            Op::WriteSlot(SlotId(s), v) => {
                let src = self.val(*v)?;
                let dst = self.slots[*s as usize].clone();
                self.mov(&dst, &src)?;
                Repr::None
            }
            Op::Cast(v, to) => {
                let (x, s) = self.scalar(*v)?;
                Repr::S(self.cast(&x, s, *to)?, *to)
            }
            Op::Unary(u, v) => {
                let (x, s) = self.scalar(*v)?;
                let d = self.sreg(s)?;
                match (u, rc_of(s)) {
                    (UnaryOp::Not | UnaryOp::Invert, Some(Rc::P)) => {
                        self.e(format!("not.pred {d}, {x}"))
                    }
                    (UnaryOp::Not, _) => {
                        return err("kernlint cannot compile `not` of a number yet", self.span);
                    }
                    (UnaryOp::Invert, Some(Rc::R | Rc::Rd)) => {
                        self.e(format!("not.{} {d}, {x}", bty(s)));
                        self.norm(&d, s);
                    }
                    (UnaryOp::Neg, Some(Rc::R | Rc::Rd)) => {
                        let t = if rc_of(s) == Some(Rc::R) {
                            "s32"
                        } else {
                            "s64"
                        };
                        self.e(format!("neg.{t} {d}, {x}"));
                        self.norm(&d, s);
                    }
                    (UnaryOp::Neg, Some(Rc::F | Rc::Fd)) => {
                        self.e(format!("neg.{} {d}, {x}", aty(s)))
                    }
                    // The sign flipped, NaNs too (as the simulator's `-x`).
                    (UnaryOp::Neg, Some(Rc::H)) => self.e(format!("xor.b16 {d}, {x}, 0x8000")),
                    _ => {
                        return err(
                            "kernlint cannot compile this unary operation yet",
                            self.span,
                        );
                    }
                }
                Repr::S(d, s)
            }
            Op::Binary(bop, a, bv) => {
                let (x, s) = self.scalar(*a)?;
                let (y, _) = self.scalar(*bv)?;
                let s = rs.unwrap_or(s);
                let by_constant = match (bop, s, self.consts[bv.0 as usize]) {
                    (BinaryOp::FloorDiv | BinaryOp::FloorMod, Scalar::I64 | Scalar::U64, Some(d)) => {
                        let modulo = *bop == BinaryOp::FloorMod;
                        divide::lower(s == Scalar::I64, modulo, d as u64, self.range(*a))
                    }
                    _ => None,
                };
                // `x / 2.0` is `x * 0.5`, exactly (as NVVM folds it): a power of two whose
                // reciprocal is a normal number of the type.
                let reciprocal = match (bop, s) {
                    (BinaryOp::TrueDiv, Scalar::F32 | Scalar::F64) => self.float_constant(*bv).and_then(|c| {
                        let r = 1.0 / c;
                        let (min, max) = if s == Scalar::F32 { (f32::MIN_POSITIVE as f64, f32::MAX as f64) } else { (f64::MIN_POSITIVE, f64::MAX) };
                        (c.abs().log2().fract() == 0.0 && (min..=max).contains(&r.abs())).then_some(r)
                    }),
                    _ => None,
                };
                match (by_constant, reciprocal) {
                    (Some(plan), _) => Repr::S(self.plan(&x, &plan), s),
                    (None, Some(r)) => {
                        let r = if s == Scalar::F32 { f32_imm(r as f32) } else { f64_imm(r) };
                        Repr::S(self.binary(BinaryOp::Mul, &x, &r, s)?, s)
                    }
                    (None, None) => match (bop, rc_of(s)) {
                        (BinaryOp::FloorDiv | BinaryOp::FloorMod, Some(rc @ (Rc::R | Rc::Rd))) => {
                            let key = (*a, *bv, s);
                            let (q, r) = match self.divmods.get(&key) {
                                Some(qr) => qr.clone(),
                                None => {
                                    let qr = self.int_divmod(&x, &y, s, rc);
                                    self.divmods.insert(key, qr.clone());
                                    qr
                                }
                            };
                            Repr::S(if *bop == BinaryOp::FloorDiv { q } else { r }, s)
                        }
                        _ => Repr::S(self.binary(*bop, &x, &y, s)?, s),
                    },
                }
            }
            Op::Compare(cop, a, bv) => {
                let (mut x, s) = self.scalar(*a)?;
                let (mut y, s2) = self.scalar(*bv)?;
                let mut s = s;
                if s == Scalar::F16 && s2 == Scalar::F16 {
                    // float16 compares exactly as float32.
                    x = self.cast(&x, s, Scalar::F32)?;
                    y = self.cast(&y, s2, Scalar::F32)?;
                    s = Scalar::F32;
                } else if s == Scalar::Bool || s2 != s {
                    let t = if s2 != s && (s.is_float() || s2.is_float()) {
                        Scalar::F64
                    } else if s == Scalar::Bool {
                        Scalar::U32
                    } else {
                        s
                    };
                    x = self.cast(&x, s, t)?;
                    y = self.cast(&y, s2, t)?;
                    s = t;
                }
                let d = self.reg(Rc::P);
                let c = match cop {
                    CompareOp::Eq => "eq",
                    CompareOp::Ne if s.is_float() => "neu",
                    CompareOp::Ne => "ne",
                    CompareOp::Lt => "lt",
                    CompareOp::Le => "le",
                    CompareOp::Gt => "gt",
                    CompareOp::Ge => "ge",
                };
                self.e(format!("setp.{c}.{} {d}, {x}, {y}", aty(s)));
                Repr::S(d, Scalar::Bool)
            }
            Op::Select {
                cond,
                then,
                otherwise,
            } => {
                let (c, _) = self.scalar(*cond)?;
                let t = self.val(*then)?;
                let o = self.val(*otherwise)?;
                self.select(&c, &t, &o)?
            }
            Op::Extent { array, axis } => {
                let a = self.array(*array)?;
                let d = self.reg(Rc::Rd);
                match a.shape.get(*axis as usize) {
                    Some(x) => self.e(format!("mov.b64 {d}, {x}")),
                    None => self.e(format!("mov.b64 {d}, 1")),
                }
                Repr::S(d, Scalar::I64)
            }
            Op::Stride { array, axis } => {
                let a = self.array(*array)?;
                let d = self.reg(Rc::Rd);
                match a.strides.get(*axis as usize) {
                    Some(x) => self.e(format!("mov.b64 {d}, {x}")),
                    None => self.e(format!("mov.b64 {d}, 0")),
                }
                Repr::S(d, Scalar::I64)
            }
            Op::Load { array, indices, .. } => {
                let a = self.array(*array)?;
                let Some(s) = a.dtype else {
                    return err("kernlint cannot compile loads of records yet", self.span);
                };
                let addr = self.element_address(&a, indices)?;
                let sp = a.space.suffix();
                let unaligned = self.alignment(*array) < s.alignment();
                if let Some(f) = complex_part(s) {
                    // A complex element: its real part, then its imaginary part.
                    let re = self.load_scalar(sp, &addr, 0, f, unaligned)?;
                    let im = self.load_scalar(sp, &addr, f.itemsize(), f, unaligned)?;
                    return Ok(Repr::T(vec![Repr::S(re, f), Repr::S(im, f)]));
                }
                Repr::S(self.load_scalar(sp, &addr, 0, s, unaligned)?, s)
            }
            Op::Store {
                array,
                indices,
                value,
                ..
            } => {
                let a = self.array(*array)?;
                let Some(s) = a.dtype else {
                    return err("kernlint cannot compile stores of records yet", self.span);
                };
                if a.space == Space::Const {
                    return err(
                        "kernlint cannot compile stores to constant memory",
                        self.span,
                    );
                }
                let v = self.val(*value)?;
                let sp = a.space.suffix();
                let unaligned = self.alignment(*array) < s.alignment();
                if let Some(f) = complex_part(s) {
                    let Repr::T(items) = &v else {
                        return err("kernlint cannot compile this store of a complex number yet", self.span);
                    };
                    let [re, im] = items.as_slice() else {
                        return err("kernlint cannot compile this store of a complex number yet", self.span);
                    };
                    let (re, im) = (self.cast_repr(re, f)?, self.cast_repr(im, f)?);
                    let addr = self.element_address(&a, indices)?;
                    self.store_scalar(sp, &addr, 0, f, &re, unaligned)?;
                    self.store_scalar(sp, &addr, f.itemsize(), f, &im, unaligned)?;
                    return Ok(Repr::None);
                }
                let x = self.cast_repr(&v, s)?;
                let addr = self.element_address(&a, indices)?;
                self.store_scalar(sp, &addr, 0, s, &x, unaligned)?;
                Repr::None
            }
            Op::SubArray { array, indices } => {
                let a = self.array(*array)?;
                let idx = self.indices(indices)?;
                let ptr = self.address(&a, &idx)?;
                let n = indices.len();
                Repr::A(Arr {
                    ptr,
                    shape: a.shape[n..].to_vec(),
                    strides: a.strides[n..].to_vec(),
                    ..a
                })
            }
            Op::Slice { array, parts } => {
                let a = self.array(*array)?;
                let ptr = self.reg(Rc::Rd);
                self.e(format!("mov.b64 {ptr}, {}", a.ptr));
                let (mut shape, mut strides) = (Vec::new(), Vec::new());
                let mut axis = 0;
                for part in parts {
                    let Some(stride) = a.strides.get(axis).cloned() else {
                        if *part == SlicePart::NewAxis {
                            shape.push("1".to_string());
                            strides.push("0".to_string());
                            continue;
                        }
                        return err(
                            "kernlint cannot compile this index yet (too many indices)",
                            self.span,
                        );
                    };
                    match part {
                        SlicePart::Index(i) => {
                            let x = self.val(*i)?;
                            let x = self.cast_repr(&x, Scalar::I64)?;
                            self.e(format!("mad.lo.s64 {ptr}, {x}, {stride}, {ptr}"));
                            axis += 1;
                        }
                        SlicePart::Range { start, len, step } => {
                            let (x, _) = self.scalar(*start)?;
                            self.e(format!("mad.lo.s64 {ptr}, {x}, {stride}, {ptr}"));
                            let (n, _) = self.scalar(*len)?;
                            shape.push(n);
                            strides.push(match step {
                                None => stride,
                                Some(step) => {
                                    let (k, _) = self.scalar(*step)?;
                                    let r = self.reg(Rc::Rd);
                                    self.e(format!("mul.lo.s64 {r}, {k}, {stride}"));
                                    r
                                }
                            });
                            axis += 1;
                        }
                        SlicePart::NewAxis => {
                            shape.push("1".to_string());
                            strides.push("0".to_string());
                        }
                    }
                }
                shape.extend(a.shape[axis..].iter().cloned());
                strides.extend(a.strides[axis..].iter().cloned());
                Repr::A(Arr {
                    ptr,
                    shape,
                    strides,
                    ..a
                })
            }
            Op::View { array, offset, shape, strides } => {
                let mut a = self.array(*array)?;
                let regs = |this: &Self, vs: &[ValueId]| -> R<Vec<String>> {
                    vs.iter().map(|v| this.scalar(*v).map(|(r, _)| r)).collect()
                };
                if *offset != 0 {
                    let ptr = self.reg(Rc::Rd);
                    self.e(format!("add.s64 {ptr}, {}, {offset}", a.ptr));
                    a.ptr = ptr;
                }
                Repr::A(Arr {
                    shape: regs(self, shape)?,
                    strides: regs(self, strides)?,
                    dtype: rty.dtype().and_then(scalar_of_type),
                    ..a
                })
            }
            Op::Transpose(array) => {
                let mut a = self.array(*array)?;
                a.shape.reverse();
                a.strides.reverse();
                Repr::A(a)
            }
            Op::AllocArray {
                space,
                shape,
                dtype,
            } => {
                if rc_of(*dtype).or(complex_part(*dtype).and_then(rc_of)).is_none() {
                    return self.unsupported_scalar(*dtype);
                }
                let size = dtype.itemsize() as i64;
                let ptr = self.reg(Rc::Rd);
                let mut strides = vec![size.to_string(); shape.len()];
                let mut acc = size;
                for k in (0..shape.len()).rev() {
                    strides[k] = acc.to_string();
                    acc *= shape[k].max(0);
                }
                let bytes = acc.max(1);
                let mut shape_s: Vec<String> = shape.iter().map(|n| n.to_string()).collect();
                let sp = match space {
                    MemorySpace::Shared if shape.as_slice() == [0] => {
                        module.needs_dyn_smem = true;
                        self.e(format!("mov.u64 {ptr}, __kl_dynsmem"));
                        let t = self.reg(Rc::R);
                        let n = self.reg(Rc::Rd);
                        self.e(format!("mov.u32 {t}, %dynamic_smem_size"));
                        self.e(format!("cvt.u64.u32 {n}, {t}"));
                        self.e(format!("div.u64 {n}, {n}, {size}"));
                        shape_s = vec![n];
                        Space::Shared
                    }
                    MemorySpace::Shared => {
                        module.counter += 1;
                        let name = format!("__kl_smem_{}_{b}_{i}_{}", self.fi, module.counter);
                        let _ = writeln!(module.decls, ".shared .align 16 .b8 {name}[{bytes}];");
                        self.e(format!("mov.u64 {ptr}, {name}"));
                        Space::Shared
                    }
                    MemorySpace::Local => {
                        let name = format!("__kl_local_{b}_{i}");
                        let _ = writeln!(self.locals, "\t.local .align 16 .b8 {name}[{bytes}];");
                        self.e(format!("mov.u64 {ptr}, {name}"));
                        Space::Local
                    }
                    _ => return err("kernlint cannot compile this allocation yet", self.span),
                };
                Repr::A(Arr {
                    ptr,
                    shape: shape_s,
                    strides,
                    space: sp,
                    dtype: Some(*dtype),
                })
            }
            Op::GlobalArray(name) => {
                let Some(crate::analysis::host_arrays::ModuleArray { dtype, shape, strides, offset, bytes }) = self.program.globals.get(name) else {
                    return err(
                        format!("kernlint cannot find the module array `{name}`"),
                        self.span,
                    );
                };
                // An imported module's array is named by its path (`cfg.TABLE`).
                let sym = format!("__kl_const_{}", name.replace('.', "$"));
                if !module.decls.contains(&format!(" {sym}[")) {
                    let init: Vec<String> = bytes.iter().map(|b| b.to_string()).collect();
                    let _ = writeln!(
                        module.decls,
                        ".const .align 16 .b8 {sym}[{}] = {{{}}};",
                        bytes.len().max(1),
                        if init.is_empty() {
                            "0".into()
                        } else {
                            init.join(", ")
                        }
                    );
                }
                let ptr = self.reg(Rc::Rd);
                self.e(format!("mov.u64 {ptr}, {sym}"));
                // A strided view (`A[::-2]`) starts inside the bytes it spans.
                if *offset != 0 {
                    self.e(format!("add.s64 {ptr}, {ptr}, {offset}"));
                }
                Repr::A(Arr {
                    ptr,
                    shape: shape.iter().map(|n| n.to_string()).collect(),
                    strides: strides.iter().map(|n| n.to_string()).collect(),
                    space: Space::Const,
                    dtype: Some(*dtype),
                })
            }
            Op::MakeTuple(items) => Repr::T(items.iter().map(|v| self.val(*v)).collect::<R<_>>()?),
            Op::Extract(t, k) => match self.val(*t)? {
                Repr::T(items) => items.get(*k as usize).cloned().unwrap_or(Repr::None),
                _ => return err("kernlint cannot compile this tuple access yet", self.span),
            },
            Op::TupleGet(t, k) => {
                let Repr::T(items) = self.val(*t)? else {
                    return err("kernlint cannot compile this tuple access yet", self.span);
                };
                let idx = self.val(*k)?;
                let k = self.cast_repr(&idx, Scalar::I64)?;
                let n = items.len() as i64;
                let Some(first) = items.first().cloned() else {
                    return err("index into an empty tuple", self.span);
                };
                let mut acc = first;
                for (j, item) in items.iter().enumerate().skip(1) {
                    let p = self.reg(Rc::P);
                    let q = self.reg(Rc::P);
                    self.e(format!("setp.eq.s64 {p}, {k}, {j}"));
                    self.e(format!("setp.eq.s64 {q}, {k}, {}", j as i64 - n));
                    self.e(format!("or.pred {p}, {p}, {q}"));
                    acc = self.select(&p, item, &acc)?;
                }
                acc
            }
            Op::Intrinsic { name, args } => self.intrinsic(module, name, args, &rty, rs)?,
            Op::Call { args, .. } => self.call(b, i, args, &rty)?,
            Op::Print { format, args } => {
                self.print(module, b, i, format, args)?;
                Repr::None
            }
        })
    }

    /// The operation that computes `v`, looking through items taken from tuples built here.
    fn definition(&self, mut v: ValueId) -> Option<&'a Op> {
        let f = self.f;
        loop {
            let &(b, i) = self.defs.get(&v)?;
            let op = &f.blocks[b].insts[i].op;
            let Op::Extract(tuple, k) = op else { return Some(op) };
            let &(tb, ti) = self.defs.get(tuple)?;
            match &f.blocks[tb].insts[ti].op {
                Op::MakeTuple(items) => v = *items.get(*k as usize)?,
                _ => return Some(op),
            }
        }
    }

    /// The `s` at `addr + at` in the memory of suffix `sp`. An address not known to be aligned
    /// for `s` (`unaligned`) is read a byte at a time, little-endian, as Numba reads a field
    /// of a packed record; the top byte of a signed integer sign-extends it.
    fn load_scalar(&mut self, sp: &str, addr: &str, at: u32, s: Scalar, unaligned: bool) -> R<String> {
        let d = self.sreg(s)?;
        let plus = |k: u32| if k == 0 { String::new() } else { format!("+{k}") };
        if s == Scalar::Bool {
            let t = self.reg(Rc::R);
            self.e(format!("ld{sp}.u8 {t}, [{addr}{}]", plus(at)));
            self.e(format!("setp.ne.u32 {d}, {t}, 0"));
            return Ok(d);
        }
        if !unaligned || s.itemsize() == 1 {
            self.e(format!("ld{sp}.{} {d}, [{addr}{}]", mty(s), plus(at)));
            return Ok(d);
        }
        let n = s.itemsize();
        let (rc, w) = bits_of(s);
        let bits = if rc_of(s) == Some(rc) { d.clone() } else { self.reg(rc) };
        for k in 0..n {
            let t = if k == 0 { bits.clone() } else { self.reg(rc) };
            let ty = if k + 1 == n && s.is_signed() { "s8" } else { "u8" };
            self.e(format!("ld{sp}.{ty} {t}, [{addr}{}]", plus(at + k)));
            if k > 0 {
                self.e(format!("shl.b{w} {t}, {t}, {}", 8 * k));
                self.e(format!("or.b{w} {bits}, {bits}, {t}"));
            }
        }
        if bits != d {
            self.e(format!("mov.b{w} {d}, {bits}"));
        }
        Ok(d)
    }

    /// Store `x` (a register or immediate of type `s`) at `addr + at`, a byte at a time where
    /// the address is not known to be aligned for `s` (see [`FnCx::load_scalar`]).
    fn store_scalar(&mut self, sp: &str, addr: &str, at: u32, s: Scalar, x: &str, unaligned: bool) -> R<()> {
        let plus = |k: u32| if k == 0 { String::new() } else { format!("+{k}") };
        if s == Scalar::Bool {
            let t = self.reg(Rc::R);
            self.e(format!("selp.u32 {t}, 1, 0, {x}"));
            self.e(format!("st{sp}.u8 [{addr}{}], {t}", plus(at)));
            return Ok(());
        }
        if !unaligned || s.itemsize() == 1 {
            self.e(format!("st{sp}.{} [{addr}{}], {x}", mty(s), plus(at)));
            return Ok(());
        }
        let (rc, w) = bits_of(s);
        let bits = self.reg(rc);
        self.e(format!("mov.b{w} {bits}, {x}"));
        for k in 0..s.itemsize() {
            let t = if k == 0 { bits.clone() } else { self.reg(rc) };
            if k > 0 {
                self.e(format!("shr.b{w} {t}, {bits}, {}", 8 * k));
            }
            self.e(format!("st{sp}.u8 [{addr}{}], {t}", plus(at + k)));
        }
        Ok(())
    }

    /// The generic address of the `.const` string `text`.
    fn string_address(&mut self, module: &mut Module, text: &str) -> String {
        let symbol = module.string(text);
        let r = self.reg(Rc::Rd);
        self.e(format!("mov.u64 {r}, {symbol}"));
        self.e(format!("cvta.const.u64 {r}, {r}"));
        r
    }

    /// `print`: `vprintf(format, buffer)`, the arguments laid out in a local buffer as
    /// Numba's argument struct is (each at its natural alignment).
    fn print(&mut self, module: &mut Module, b: usize, i: usize, format: &str, args: &[PrintArg]) -> R<()> {
        module.needs_vprintf = true;
        let mut stores = Vec::new();
        let mut offset = 0u32;
        for arg in args {
            let (value, ty, size) = match arg {
                PrintArg::Value(v) => {
                    let (r, s) = self.scalar(*v)?;
                    match s {
                        Scalar::I64 | Scalar::U64 => (r, "u64", 8),
                        Scalar::F64 => (r, "f64", 8),
                        Scalar::I32 | Scalar::U32 => (r, "u32", 4),
                        other => return self.unsupported_scalar(other),
                    }
                }
                // A constant is its string (NVVM folds the choice).
                PrintArg::Bool(v) if let Some(&Op::Const(Constant::Bool(truth))) = self.definition(*v) => {
                    (self.string_address(module, if truth { "True" } else { "False" }), "u64", 8)
                }
                PrintArg::Bool(v) => {
                    let (p, _) = self.scalar(*v)?;
                    let yes = self.string_address(module, "True");
                    let no = self.string_address(module, "False");
                    let r = self.reg(Rc::Rd);
                    self.e(format!("selp.b64 {r}, {yes}, {no}, {p}"));
                    (r, "u64", 8)
                }
                PrintArg::Str(text) => (self.string_address(module, text), "u64", 8),
            };
            offset = offset.next_multiple_of(size);
            stores.push((offset, ty, value));
            offset += size;
        }
        let buffer = format!("__kl_print_{b}_{i}");
        let _ = writeln!(self.locals, "\t.local .align 8 .b8 {buffer}[{}];", offset.next_multiple_of(8).max(8));
        let local = self.reg(Rc::Rd);
        self.e(format!("mov.u64 {local}, {buffer}"));
        for (offset, ty, value) in stores {
            self.e(format!("st.local.{ty} [{local}+{offset}], {value}"));
        }
        let generic = self.reg(Rc::Rd);
        self.e(format!("cvta.local.u64 {generic}, {local}"));
        let fmt = self.string_address(module, format);
        let ret = self.reg(Rc::R);
        let _ = writeln!(self.out, "\t{{");
        self.e(".param .b64 param0");
        self.e(format!("st.param.b64 [param0], {fmt}"));
        self.e(".param .b64 param1");
        self.e(format!("st.param.b64 [param1], {generic}"));
        self.e(".param .b32 retval0");
        self.e("call.uni (retval0), vprintf, (param0, param1)");
        self.e(format!("ld.param.b32 {ret}, [retval0]"));
        let _ = writeln!(self.out, "\t}}");
        Ok(())
    }

    fn select(&mut self, c: &str, t: &Repr, o: &Repr) -> R<Repr> {
        Ok(match (t, o) {
            (Repr::S(x, s), Repr::S(y, s2)) => {
                let y = if s2 != s {
                    self.cast(y, *s2, *s)?
                } else {
                    y.clone()
                };
                let d = self.sreg(*s)?;
                if rc_of(*s) == Some(Rc::P) {
                    let a = self.reg(Rc::P);
                    self.e(format!("and.pred {a}, {c}, {x}"));
                    self.e(format!("not.pred {d}, {c}"));
                    self.e(format!("and.pred {d}, {d}, {y}"));
                    self.e(format!("or.pred {d}, {d}, {a}"));
                } else {
                    self.e(format!("selp.{} {d}, {x}, {y}, {c}", bty(*s)));
                }
                Repr::S(d, *s)
            }
            (Repr::A(x), Repr::A(y)) => {
                let sp = if x.space == y.space {
                    x.space
                } else {
                    Space::Generic
                };
                let px = self.ptr_in(x, sp)?;
                let py = self.ptr_in(y, sp)?;
                let ptr = self.reg(Rc::Rd);
                self.e(format!("selp.b64 {ptr}, {px}, {py}, {c}"));
                let sel = |a: &[String], b: &[String], cx: &mut Self| -> Vec<String> {
                    a.iter()
                        .zip(b)
                        .map(|(u, v)| {
                            let d = cx.reg(Rc::Rd);
                            cx.e(format!("selp.b64 {d}, {u}, {v}, {c}"));
                            d
                        })
                        .collect()
                };
                let shape = sel(&x.shape, &y.shape, self);
                let strides = sel(&x.strides, &y.strides, self);
                Repr::A(Arr {
                    ptr,
                    shape,
                    strides,
                    space: sp,
                    dtype: x.dtype,
                })
            }
            (Repr::T(x), Repr::T(y)) => Repr::T(
                x.iter()
                    .zip(y)
                    .map(|(a, b)| self.select(c, a, b))
                    .collect::<R<_>>()?,
            ),
            _ => Repr::None,
        })
    }

    /// Emit a [`divide`] plan on the 64-bit register `x`; returns the result's register.
    fn plan(&mut self, x: &str, plan: &divide::Plan) -> String {
        use divide::Step;
        let wide = plan.bits == 64;
        let rc = if wide { Rc::Rd } else { Rc::R };
        let (b, s, u) = if wide { ("b64", "s64", "u64") } else { ("b32", "s32", "u32") };
        let imm = |c: u64| if wide { c as i64 } else { c as u32 as i32 as i64 };
        let x0 = if wide {
            x.to_string()
        } else {
            let r = self.reg(Rc::R);
            self.e(format!("cvt.u32.u64 {r}, {x}"));
            r
        };
        let mut r = vec![x0];
        for step in &plan.steps {
            let d = self.reg(rc);
            match *step {
                Step::Const(c) => self.e(format!("mov.{b} {d}, {}", imm(c))),
                Step::ShrS(a, k) => self.e(format!("shr.{s} {d}, {}, {k}", r[a])),
                Step::ShrU(a, k) => self.e(format!("shr.{u} {d}, {}, {k}", r[a])),
                Step::Shl(a, k) => self.e(format!("shl.{b} {d}, {}, {k}", r[a])),
                Step::AndI(a, c) => self.e(format!("and.{b} {d}, {}, {}", r[a], imm(c))),
                Step::Xor(a, c) => self.e(format!("xor.{b} {d}, {}, {}", r[a], r[c])),
                Step::And(a, c) => self.e(format!("and.{b} {d}, {}, {}", r[a], r[c])),
                Step::Add(a, c) => self.e(format!("add.{s} {d}, {}, {}", r[a], r[c])),
                Step::AddI(a, c) => self.e(format!("add.{s} {d}, {}, {}", r[a], imm(c))),
                Step::Sub(a, c) => self.e(format!("sub.{s} {d}, {}, {}", r[a], r[c])),
                Step::Neg(a) => self.e(format!("neg.{s} {d}, {}", r[a])),
                Step::MulHiU(a, c) => self.e(format!("mul.hi.{u} {d}, {}, {}", r[a], imm(c))),
                Step::MulLoI(a, c) => self.e(format!("mul.lo.{s} {d}, {}, {}", r[a], imm(c))),
                Step::PosMask(a) => {
                    let p = self.reg(Rc::P);
                    self.e(format!("setp.gt.{s} {p}, {}, 0", r[a]));
                    self.e(format!("selp.{b} {d}, -1, 0, {p}"));
                }
                Step::GeU(a, c) => {
                    let p = self.reg(Rc::P);
                    self.e(format!("setp.ge.{u} {p}, {}, {}", r[a], imm(c)));
                    self.e(format!("selp.{b} {d}, 1, 0, {p}"));
                }
            }
            r.push(d);
        }
        // The result in a 64-bit register of its own, as every value has.
        let last = r.pop().unwrap_or_default();
        let d = self.reg(Rc::Rd);
        if wide {
            self.e(format!("mov.b64 {d}, {last}"));
        } else if plan.signed_result {
            self.e(format!("cvt.s64.s32 {d}, {last}"));
        } else {
            self.e(format!("cvt.u64.u32 {d}, {last}"));
        }
        d
    }

    /// Python's `x // y` and `x % y` on integers (of register class `rc`), both from one
    /// division, in registers written only here: a `//` and a `%` of the same operands share
    /// them (see `divmods`). ptxas drops the one not used.
    fn int_divmod(&mut self, x: &str, y: &str, s: Scalar, rc: Rc) -> (String, String) {
        let wide = rc == Rc::Rd;
        let b = bty(s);
        let it = int_arith_type(s, rc);
        let pz = self.reg(Rc::P);
        self.e(format!("setp.eq.{it} {pz}, {y}, 0"));
        if s.is_signed() {
            // The overflowing quotient (the most negative x over -1) is 0 and so is
            // its remainder, as Numba guards them.
            let (px, py) = (self.reg(Rc::P), self.reg(Rc::P));
            let min = if wide { i64::MIN.to_string() } else { (-(1i64 << (s.bits().min(32) - 1))).to_string() };
            self.e(format!("setp.eq.{it} {px}, {x}, {min}"));
            self.e(format!("setp.eq.{it} {py}, {y}, -1"));
            self.e(format!("and.pred {px}, {px}, {py}"));
            self.e(format!("or.pred {pz}, {pz}, {px}"));
        }
        let (q, r) = (self.reg(rc), self.reg(rc));
        // The remainder from the quotient: ptxas makes each 64-bit div and rem a
        // subroutine of its own, and a multiply-subtract is cheaper than the second.
        self.e(format!("div.{it} {q}, {x}, {y}"));
        self.e(format!("mul.lo.{it} {r}, {q}, {y}"));
        self.e(format!("sub.{it} {r}, {x}, {r}"));
        if s.is_signed() {
            // Rounded toward minus infinity: a non-zero remainder whose sign is not the
            // divisor's moves the quotient down by one and the remainder up by y.
            let (p1, p2, t) = (self.reg(Rc::P), self.reg(Rc::P), self.reg(rc));
            self.e(format!("setp.ne.{it} {p1}, {r}, 0"));
            self.e(format!("xor.{b} {t}, {r}, {y}"));
            self.e(format!("setp.lt.{it} {p2}, {t}, 0"));
            self.e(format!("and.pred {p1}, {p1}, {p2}"));
            let (fq, fr) = (self.reg(rc), self.reg(rc));
            self.e(format!("sub.{it} {fq}, {q}, 1"));
            self.e(format!("selp.{b} {q}, {fq}, {q}, {p1}"));
            self.e(format!("add.{it} {fr}, {r}, {y}"));
            self.e(format!("selp.{b} {r}, {fr}, {r}, {p1}"));
        }
        self.e(format!("selp.{b} {q}, 0, {q}, {pz}"));
        self.e(format!("selp.{b} {r}, 0, {r}, {pz}"));
        (q, r)
    }

    fn binary(&mut self, op: BinaryOp, x: &str, y: &str, s: Scalar) -> R<String> {
        let rc = match rc_of(s) {
            Some(rc) => rc,
            None => return self.unsupported_scalar(s),
        };
        if rc == Rc::H {
            return self.f16_binary(op, x, y);
        }
        let d = self.reg(rc);
        let t = aty(s);
        let b = bty(s);
        if rc == Rc::P {
            let o = match op {
                BinaryOp::BitAnd => "and",
                BinaryOp::BitOr => "or",
                BinaryOp::BitXor => "xor",
                _ => {
                    return err(
                        "kernlint cannot compile this operation on bools yet",
                        self.span,
                    );
                }
            };
            self.e(format!("{o}.pred {d}, {x}, {y}"));
            return Ok(d);
        }
        if matches!(rc, Rc::F | Rc::Fd) {
            let rn = if self.opts.fastmath { "" } else { ".rn" };
            match op {
                BinaryOp::Add => self.e(format!("add{rn}.{t} {d}, {x}, {y}")),
                BinaryOp::Sub => self.e(format!("sub{rn}.{t} {d}, {x}, {y}")),
                BinaryOp::Mul => self.e(format!("mul{rn}.{t} {d}, {x}, {y}")),
                BinaryOp::TrueDiv => {
                    if self.opts.fastmath && rc == Rc::F {
                        self.e(format!("div.full.f32 {d}, {x}, {y}"));
                    } else {
                        self.e(format!("div.rn.{t} {d}, {x}, {y}"));
                    }
                }
                BinaryOp::FloorDiv => {
                    let r = self.float_floor_div(x, y, s)?;
                    self.e(format!("mov.{t} {d}, {r}"));
                }
                BinaryOp::Pow => {
                    let r = self.math_call(MathFn::Pow, s, &[x.to_string(), y.to_string()])?;
                    self.e(format!("mov.{t} {d}, {r}"));
                }
                BinaryOp::FloorMod => {
                    let r = self.float_mod(x, y, s)?;
                    self.e(format!("mov.{t} {d}, {r}"));
                }
                _ => {
                    return err(
                        "kernlint cannot compile this float operation yet",
                        self.span,
                    );
                }
            }
            return Ok(d);
        }
        let wide = rc == Rc::Rd;
        let it = int_arith_type(s, rc);
        match op {
            BinaryOp::Add => self.e(format!("add.{it} {d}, {x}, {y}")),
            BinaryOp::Sub => self.e(format!("sub.{it} {d}, {x}, {y}")),
            BinaryOp::Mul => self.e(format!("mul.lo.{it} {d}, {x}, {y}")),
            BinaryOp::BitAnd => self.e(format!("and.{b} {d}, {x}, {y}")),
            BinaryOp::BitOr => self.e(format!("or.{b} {d}, {x}, {y}")),
            BinaryOp::BitXor => self.e(format!("xor.{b} {d}, {x}, {y}")),
            BinaryOp::FloorDiv | BinaryOp::FloorMod => {
                let (q, r) = self.int_divmod(x, y, s, rc);
                return Ok(if op == BinaryOp::FloorDiv { q } else { r });
            }
            BinaryOp::Shl | BinaryOp::Shr => {
                let amt = self.reg(Rc::R);
                // The count is unsigned, as in Numba's PTX: a negative one is out of
                // range, and PTX clamps those to the width (shr.s fills with the sign).
                if wide {
                    let c = self.reg(Rc::Rd);
                    self.e(format!("min.u64 {c}, {y}, 64"));
                    self.e(format!("cvt.u32.u64 {amt}, {c}"));
                } else {
                    self.e(format!("mov.b32 {amt}, {y}"));
                }
                if op == BinaryOp::Shl {
                    self.e(format!("shl.{b} {d}, {x}, {amt}"));
                } else {
                    let st = if s.is_unsigned_int() { "u" } else { "s" };
                    self.e(format!(
                        "shr.{st}{} {d}, {x}, {amt}",
                        if wide { 64 } else { 32 }
                    ));
                }
            }
            BinaryOp::Pow => {
                let (base, e) = (self.reg(rc), self.reg(rc));
                let neg_check = s.is_signed() || s == Scalar::U64;
                let (l_loop, l_neg, l_done) = (self.label(), self.label(), self.label());
                let p = self.reg(Rc::P);
                let tmp = self.reg(rc);
                self.e(format!("mov.{b} {d}, 1"));
                self.e(format!("mov.{b} {base}, {x}"));
                self.e(format!("mov.{b} {e}, {y}"));
                let st = if wide { "s64" } else { "s32" };
                if neg_check {
                    self.e(format!("setp.lt.{st} {p}, {e}, 0"));
                    self.e(format!("@{p} bra {l_neg}"));
                }
                let _ = writeln!(self.out, "{l_loop}:");
                let ut = if wide { "u64" } else { "u32" };
                self.e(format!("setp.eq.{ut} {p}, {e}, 0"));
                self.e(format!("@{p} bra {l_done}"));
                self.e(format!("and.{b} {tmp}, {e}, 1"));
                self.e(format!("setp.ne.{ut} {p}, {tmp}, 0"));
                self.e(format!("mul.lo.{it} {tmp}, {d}, {base}"));
                self.e(format!("selp.{b} {d}, {tmp}, {d}, {p}"));
                self.e(format!("mul.lo.{it} {base}, {base}, {base}"));
                self.e(format!("shr.{ut} {e}, {e}, 1"));
                self.e(format!("bra {l_loop}"));
                let _ = writeln!(self.out, "{l_neg}:");
                if neg_check {
                    let q = self.reg(Rc::P);
                    self.e(format!("and.{b} {tmp}, {e}, 1"));
                    self.e(format!("setp.ne.{ut} {p}, {tmp}, 0"));
                    self.e(format!("selp.{b} {tmp}, -1, 1, {p}"));
                    self.e(format!("setp.eq.{st} {q}, {x}, -1"));
                    self.e(format!("selp.{b} {d}, {tmp}, 0, {q}"));
                    self.e(format!("setp.eq.{st} {q}, {x}, 1"));
                    self.e(format!("selp.{b} {d}, 1, {d}, {q}"));
                }
                let _ = writeln!(self.out, "{l_done}:");
            }
            BinaryOp::TrueDiv => {
                return err("kernlint cannot compile `/` on integers here", self.span);
            }
        }
        if !wide {
            self.norm(&d, s);
        }
        Ok(d)
    }

    /// A float16 operation: computed in float32, then rounded once to float16. For `+ - * /`
    /// that is the correctly rounded float16 result (float32 has 24 >= 2 * 11 + 2 bits, so
    /// the double rounding is innocuous), what `add.rn.f16` etc. compute; `.rn` always, as
    /// Numba's float16 operators do not contract.
    fn f16_binary(&mut self, op: BinaryOp, x: &str, y: &str) -> R<String> {
        let a = self.cast(x, Scalar::F16, Scalar::F32)?;
        let b = self.cast(y, Scalar::F16, Scalar::F32)?;
        let r = match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::TrueDiv => {
                let o = match op {
                    BinaryOp::Add => "add",
                    BinaryOp::Sub => "sub",
                    BinaryOp::Mul => "mul",
                    _ => "div",
                };
                let r = self.reg(Rc::F);
                self.e(format!("{o}.rn.f32 {r}, {a}, {b}"));
                r
            }
            _ => self.binary(op, &a, &b, Scalar::F32)?,
        };
        self.cast(&r, Scalar::F32, Scalar::F16)
    }

    fn args(&self, args: &[ValueId]) -> R<Vec<Repr>> {
        args.iter().map(|a| self.val(*a)).collect()
    }

    fn u32_of(&mut self, r: &Repr) -> R<String> {
        self.cast_repr(r, Scalar::U32)
    }

    fn result_from(&mut self, x: &str, from: Scalar, rs: Option<Scalar>) -> R<Repr> {
        let to = rs.unwrap_or(from);
        Ok(Repr::S(self.cast(x, from, to)?, to))
    }

    fn intrinsic(
        &mut self,
        module: &mut Module,
        name: &str,
        args: &[ValueId],
        rty: &Type,
        rs: Option<Scalar>,
    ) -> R<Repr> {
        let a = self.args(args)?;
        let not_yet = |cx: &Self| err(format!("kernlint cannot compile `{name}` yet"), cx.span);
        if let Some(f) = MathFn::from_intrinsic(name) {
            // float16 goes through the float32 function, as the simulator does.
            let Some((s, out)) = float_work(rs) else {
                return not_yet(self);
            };
            let xs: Vec<String> = a.iter().map(|v| self.cast_repr(v, s)).collect::<R<_>>()?;
            let r = self.math_call(f, s, &xs)?;
            return Ok(Repr::S(self.cast(&r, s, out)?, out));
        }
        if let Some((head, axis)) = name.split_once('.')
            && matches!(axis, "x" | "y" | "z")
        {
            let sreg = match head {
                "threadIdx" => "%tid",
                "blockIdx" => "%ctaid",
                "blockDim" => "%ntid",
                "gridDim" => "%nctaid",
                _ => return not_yet(self),
            };
            let r = self.reg(Rc::R);
            self.e(format!("mov.u32 {r}, {sreg}.{axis}"));
            return self.result_from(&r, Scalar::U32, rs);
        }
        match name {
            "grid" | "gridsize" => {
                let n = match rty {
                    Type::UniTuple(_, n) => *n,
                    _ => 1,
                };
                let mut items = Vec::new();
                for axis in ["x", "y", "z"].iter().take(n) {
                    let (c, nt) = (self.reg(Rc::R), self.reg(Rc::R));
                    let d = self.reg(Rc::Rd);
                    if name == "grid" {
                        let t = self.reg(Rc::R);
                        self.e(format!("mov.u32 {c}, %ctaid.{axis}"));
                        self.e(format!("mov.u32 {nt}, %ntid.{axis}"));
                        self.e(format!("mov.u32 {t}, %tid.{axis}"));
                        let t64 = self.reg(Rc::Rd);
                        self.e(format!("cvt.u64.u32 {t64}, {t}"));
                        self.e(format!("mul.wide.u32 {d}, {c}, {nt}"));
                        self.e(format!("add.s64 {d}, {d}, {t64}"));
                    } else {
                        self.e(format!("mov.u32 {c}, %nctaid.{axis}"));
                        self.e(format!("mov.u32 {nt}, %ntid.{axis}"));
                        self.e(format!("mul.wide.u32 {d}, {c}, {nt}"));
                    }
                    items.push(Repr::S(d, Scalar::I64));
                }
                Ok(if n == 1 && !matches!(rty, Type::UniTuple(..)) {
                    items.remove(0)
                } else {
                    Repr::T(items)
                })
            }
            "laneid" => {
                let r = self.reg(Rc::R);
                self.e(format!("mov.u32 {r}, %laneid"));
                self.result_from(&r, Scalar::U32, rs)
            }
            "warpsize" => {
                let r = self.reg(Rc::R);
                self.e(format!("mov.u32 {r}, 32"));
                self.result_from(&r, Scalar::U32, rs)
            }
            "syncthreads" => {
                self.e("bar.sync 0");
                Ok(Repr::None)
            }
            "syncthreads_count" | "syncthreads_and" | "syncthreads_or" => {
                let p = self.cast_repr(&a[0], Scalar::Bool)?;
                let r = self.reg(Rc::R);
                match name {
                    "syncthreads_count" => self.e(format!("bar.red.popc.u32 {r}, 0, {p}")),
                    _ => {
                        let q = self.reg(Rc::P);
                        let o = if name.ends_with("and") { "and" } else { "or" };
                        self.e(format!("bar.red.{o}.pred {q}, 0, {p}"));
                        self.e(format!("selp.u32 {r}, 1, 0, {q}"));
                    }
                }
                self.result_from(&r, Scalar::U32, rs)
            }
            "syncwarp" => {
                let m = match a.first() {
                    Some(m) => self.u32_of(m)?,
                    None => "-1".into(),
                };
                self.e(format!("bar.warp.sync {m}"));
                Ok(Repr::None)
            }
            "shfl_sync" | "shfl_up_sync" | "shfl_down_sync" | "shfl_xor_sync" => {
                let m = self.u32_of(&a[0])?;
                let Repr::S(v, s) = a[1].clone() else {
                    return not_yet(self);
                };
                let lane = self.u32_of(&a[2])?;
                let (mode, c) = match name {
                    "shfl_sync" => ("idx", "31"),
                    "shfl_up_sync" => ("up", "0"),
                    "shfl_down_sync" => ("down", "31"),
                    _ => ("bfly", "31"),
                };
                let d = self.sreg(s)?;
                match rc_of(s) {
                    Some(Rc::P) => {
                        let t = self.reg(Rc::R);
                        self.e(format!("selp.u32 {t}, 1, 0, {v}"));
                        self.e(format!("shfl.sync.{mode}.b32 {t}, {t}, {lane}, {c}, {m}"));
                        self.e(format!("setp.ne.u32 {d}, {t}, 0"));
                    }
                    Some(Rc::R | Rc::F) => {
                        self.e(format!("shfl.sync.{mode}.b32 {d}, {v}, {lane}, {c}, {m}"))
                    }
                    Some(Rc::H) | None => return not_yet(self),
                    _ => {
                        let (lo, hi) = (self.reg(Rc::R), self.reg(Rc::R));
                        self.e(format!("mov.b64 {{{lo}, {hi}}}, {v}"));
                        self.e(format!("shfl.sync.{mode}.b32 {lo}, {lo}, {lane}, {c}, {m}"));
                        self.e(format!("shfl.sync.{mode}.b32 {hi}, {hi}, {lane}, {c}, {m}"));
                        self.e(format!("mov.b64 {d}, {{{lo}, {hi}}}"));
                    }
                }
                Ok(Repr::S(d, s))
            }
            "ballot_sync" | "all_sync" | "any_sync" | "eq_sync" => {
                let m = self.u32_of(&a[0])?;
                let p = self.cast_repr(&a[1], Scalar::Bool)?;
                if name == "ballot_sync" {
                    let r = self.reg(Rc::R);
                    self.e(format!("vote.sync.ballot.b32 {r}, {p}, {m}"));
                    return self.result_from(&r, Scalar::U32, rs);
                }
                let mode = match name {
                    "all_sync" => "all",
                    "any_sync" => "any",
                    _ => "uni",
                };
                let q = self.reg(Rc::P);
                self.e(format!("vote.sync.{mode}.pred {q}, {p}, {m}"));
                self.result_from(&q, Scalar::Bool, rs)
            }
            "activemask" => {
                let r = self.reg(Rc::R);
                self.e(format!("activemask.b32 {r}"));
                self.result_from(&r, Scalar::U32, rs)
            }
            "lanemask_lt" => {
                let r = self.reg(Rc::R);
                self.e(format!("mov.u32 {r}, %lanemask_lt"));
                self.result_from(&r, Scalar::U32, rs)
            }
            "match_any_sync" | "match_all_sync" => {
                let m = self.u32_of(&a[0])?;
                let Repr::S(v, s) = a[1].clone() else {
                    return not_yet(self);
                };
                // The value's bits: 32 or 64 of them (a bool as 0 or 1).
                let (v, b) = match rc_of(s) {
                    Some(Rc::R | Rc::F) => (v, "b32"),
                    Some(Rc::Rd | Rc::Fd) => (v, "b64"),
                    Some(Rc::P) => {
                        let t = self.reg(Rc::R);
                        self.e(format!("selp.u32 {t}, 1, 0, {v}"));
                        (t, "b32")
                    }
                    _ => return not_yet(self),
                };
                let r = self.reg(Rc::R);
                if name == "match_any_sync" {
                    self.e(format!("match.any.sync.{b} {r}, {v}, {m}"));
                    return self.result_from(&r, Scalar::U32, Some(Scalar::I32));
                }
                let p = self.reg(Rc::P);
                self.e(format!("match.all.sync.{b} {r}|{p}, {v}, {m}"));
                let r = self.cast(&r, Scalar::U32, Scalar::I32)?;
                Ok(Repr::T(vec![Repr::S(r, Scalar::I32), Repr::S(p, Scalar::Bool)]))
            }
            "threadfence" | "threadfence_block" | "threadfence_system" => {
                let l = match name {
                    "threadfence" => "gl",
                    "threadfence_block" => "cta",
                    _ => "sys",
                };
                self.e(format!("membar.{l}"));
                Ok(Repr::None)
            }
            "nanosleep" => {
                let t = self.u32_of(&a[0])?;
                self.e(format!("nanosleep.u32 {t}"));
                Ok(Repr::None)
            }
            "popc" | "clz" | "brev" | "ffs" => {
                let Repr::S(x, s) = a[0].clone() else {
                    return not_yet(self);
                };
                if !s.is_int() {
                    return not_yet(self);
                }
                let wide = rc_of(s) == Some(Rc::Rd);
                let b = if wide { "b64" } else { "b32" };
                let r = self.reg(Rc::R);
                match name {
                    "popc" | "clz" => {
                        // A narrow integer sits (sign-)extended in its register: count its own
                        // bits only, and `clz` from its own top bit.
                        let narrow = !wide && s.bits() < 32;
                        let own = if narrow {
                            self.e(format!("and.b32 {r}, {x}, {}", (1u32 << s.bits()) - 1));
                            r.clone()
                        } else {
                            x.clone()
                        };
                        self.e(format!("{name}.{b} {r}, {own}"));
                        if narrow && name == "clz" {
                            self.e(format!("sub.s32 {r}, {r}, {}", 32 - s.bits()));
                        }
                    }
                    "brev" => {
                        let d = self.reg(if wide { Rc::Rd } else { Rc::R });
                        self.e(format!("brev.{b} {d}, {x}"));
                        let from = if wide { Scalar::U64 } else { Scalar::U32 };
                        return self.result_from(&d, from, rs);
                    }
                    _ => {
                        let t = self.reg(if wide { Rc::Rd } else { Rc::R });
                        let p = self.reg(Rc::P);
                        self.e(format!("brev.{b} {t}, {x}"));
                        self.e(format!("clz.{b} {r}, {t}"));
                        self.e(format!("add.u32 {r}, {r}, 1"));
                        self.e(format!(
                            "setp.eq.{} {p}, {x}, 0",
                            if wide { "u64" } else { "u32" }
                        ));
                        self.e(format!("selp.u32 {r}, 0, {r}, {p}"));
                    }
                }
                self.result_from(&r, Scalar::U32, rs)
            }
            "fma" => {
                let s = rs.unwrap_or(Scalar::F64);
                if !matches!(s, Scalar::F32 | Scalar::F64) {
                    return not_yet(self);
                }
                let x: Vec<String> = a.iter().map(|v| self.cast_repr(v, s)).collect::<R<_>>()?;
                let d = self.sreg(s)?;
                self.e(format!(
                    "fma.rn.{} {d}, {}, {}, {}",
                    aty(s),
                    x[0],
                    x[1],
                    x[2]
                ));
                Ok(Repr::S(d, s))
            }
            "selp" => {
                let (c, _) = match &a[0] {
                    Repr::S(c, s) => (self.cast(c, *s, Scalar::Bool)?, ()),
                    _ => return not_yet(self),
                };
                self.select(&c, &a[1], &a[2])
            }
            "math.sqrt" | "math.fabs" | "math.floor" | "math.ceil" | "math.trunc" => {
                let Some((s, out)) = float_work(rs) else {
                    return not_yet(self);
                };
                let x = self.cast_repr(&a[0], s)?;
                let d = self.sreg(s)?;
                let t = aty(s);
                match name {
                    "math.sqrt" if self.opts.fastmath && s == Scalar::F32 => {
                        self.e(format!("sqrt.approx.f32 {d}, {x}"))
                    }
                    "math.sqrt" => self.e(format!("sqrt.rn.{t} {d}, {x}")),
                    "math.fabs" => self.e(format!("abs.{t} {d}, {x}")),
                    "math.floor" => self.e(format!("cvt.rmi.{t}.{t} {d}, {x}")),
                    "math.ceil" => self.e(format!("cvt.rpi.{t}.{t} {d}, {x}")),
                    _ => self.e(format!("cvt.rzi.{t}.{t} {d}, {x}")),
                }
                self.result_from(&d, s, Some(out))
            }
            "math.copysign" | "math.fmod" => {
                let Some((s, out)) = float_work(rs) else {
                    return not_yet(self);
                };
                let x = self.cast_repr(&a[0], s)?;
                let y = self.cast_repr(&a[1], s)?;
                let d = if name == "math.copysign" {
                    let d = self.sreg(s)?;
                    self.e(format!("copysign.{} {d}, {y}, {x}", aty(s)));
                    d
                } else {
                    self.fmod(&x, &y, s)?
                };
                self.result_from(&d, s, Some(out))
            }
            "math.degrees" | "math.radians" => {
                let Some((s, out)) = float_work(rs) else {
                    return not_yet(self);
                };
                let x = self.cast_repr(&a[0], s)?;
                // Numba multiplies by the constant rounded to the result type.
                let c = if name == "math.degrees" {
                    180.0 / std::f64::consts::PI
                } else {
                    std::f64::consts::PI / 180.0
                };
                let d = self.sreg(s)?;
                let rn = if self.opts.fastmath { "" } else { ".rn" };
                self.e(format!("mul{rn}.{} {d}, {x}, {}", aty(s), float_imm(s, c)));
                self.result_from(&d, s, Some(out))
            }
            "math.remainder" | "math.nextafter" | "math.ldexp" => {
                let Some((s, out)) = float_work(rs) else {
                    return not_yet(self);
                };
                let x = self.cast_repr(&a[0], s)?;
                let d = match name {
                    "math.ldexp" => {
                        let n = self.cast_repr(&a[1], Scalar::I32)?;
                        self.ldexp(&x, &n, s)?
                    }
                    "math.remainder" => {
                        let y = self.cast_repr(&a[1], s)?;
                        self.remainder(&x, &y, s)?
                    }
                    _ => {
                        let y = self.cast_repr(&a[1], s)?;
                        self.nextafter(&x, &y, s)?
                    }
                };
                self.result_from(&d, s, Some(out))
            }
            "round_ndigits" => {
                let Some((s, out)) = float_work(rs) else {
                    return not_yet(self);
                };
                let x = self.cast_repr(&a[0], s)?;
                let n = self.cast_repr(&a[1], Scalar::I64)?;
                let d = self.round_ndigits(&x, &n, s)?;
                self.result_from(&d, s, Some(out))
            }
            "int_power" => {
                let Some((s, out)) = float_work(rs) else {
                    return not_yet(self);
                };
                let x = self.cast_repr(&a[0], s)?;
                let n = self.cast_repr(&a[1], Scalar::I64)?;
                let d = self.int_power(&x, &n, s)?;
                self.result_from(&d, s, Some(out))
            }
            "math.frexp" | "math.modf" => {
                let s = match rty {
                    Type::Tuple(items) => items.first().and_then(Type::as_scalar),
                    Type::UniTuple(item, _) => item.as_scalar(),
                    _ => None,
                };
                let Some(s @ (Scalar::F32 | Scalar::F64)) = s else {
                    return not_yet(self);
                };
                let x = self.cast_repr(&a[0], s)?;
                Ok(Repr::T(if name == "math.frexp" {
                    let (m, e) = self.frexp(&x, s)?;
                    vec![Repr::S(m, s), Repr::S(e, Scalar::I32)]
                } else {
                    let (frac, int) = self.modf(&x, s)?;
                    vec![Repr::S(frac, s), Repr::S(int, s)]
                }))
            }
            "math.isnan" | "math.isinf" | "math.isfinite" => {
                let Repr::S(mut x, mut s) = a[0].clone() else {
                    return not_yet(self);
                };
                if s == Scalar::F16 {
                    x = self.cast(&x, s, Scalar::F32)?;
                    s = Scalar::F32;
                }
                let d = self.reg(Rc::P);
                if s.is_float() && rc_of(s).is_some() {
                    let m = match name {
                        // PTX spells it `notanumber` (`testp.nan` does not assemble).
                        "math.isnan" => "notanumber",
                        "math.isinf" => "infinite",
                        _ => "finite",
                    };
                    self.e(format!("testp.{m}.{} {d}, {x}", aty(s)));
                } else {
                    self.e(format!(
                        "setp.ne.u32 {d}, {}, 0",
                        (name == "math.isfinite") as u32
                    ));
                }
                self.result_from(&d, Scalar::Bool, rs)
            }
            "builtins.abs" => {
                let Repr::S(x, s) = a[0].clone() else {
                    return not_yet(self);
                };
                let s = rs.unwrap_or(s);
                let x = self.cast(&x, a_scalar(&a[0]), s)?;
                let d = self.sreg(s)?;
                match rc_of(s) {
                    Some(Rc::F | Rc::Fd) => self.e(format!("abs.{} {d}, {x}", aty(s))),
                    Some(Rc::H) => self.e(format!("and.b16 {d}, {x}, 0x7FFF")),
                    Some(Rc::R | Rc::Rd) if s.is_unsigned_int() => {
                        self.e(format!("mov.{} {d}, {x}", bty(s)))
                    }
                    Some(Rc::R) => {
                        self.e(format!("abs.s32 {d}, {x}"));
                        self.norm(&d, s);
                    }
                    Some(Rc::Rd) => self.e(format!("abs.s64 {d}, {x}")),
                    _ => return not_yet(self),
                }
                Ok(Repr::S(d, s))
            }
            "builtins.min" | "builtins.max" => {
                let items: Vec<Repr> = match a.as_slice() {
                    [Repr::T(items)] => items.clone(),
                    _ => a.clone(),
                };
                let Some(out) = rs else { return not_yet(self) };
                if rc_of(out).is_none() || out == Scalar::Bool {
                    return not_yet(self);
                }
                // float16 through float32: exact, and `max.f16` needs sm_80.
                let s = if out == Scalar::F16 { Scalar::F32 } else { out };
                let mut acc = self.cast_repr(&items[0], out)?;
                acc = self.cast(&acc, out, s)?;
                let o = if name.ends_with("max") { "max" } else { "min" };
                for it in &items[1..] {
                    let y = self.cast_repr(it, out)?;
                    let y = self.cast(&y, out, s)?;
                    let d = self.sreg(s)?;
                    self.e(format!("{o}.{} {d}, {acc}, {y}", aty(s)));
                    acc = d;
                }
                self.result_from(&acc, s, Some(out))
            }
            "builtins.round" => {
                let Repr::S(mut x, mut s) = a[0].clone() else {
                    return not_yet(self);
                };
                if s == Scalar::F16 {
                    x = self.cast(&x, s, Scalar::F32)?;
                    s = Scalar::F32;
                }
                if a.len() != 1 || !matches!(s, Scalar::F32 | Scalar::F64) {
                    return not_yet(self);
                }
                let d = self.sreg(s)?;
                self.e(format!("cvt.rni.{t}.{t} {d}, {x}", t = aty(s)));
                self.result_from(&d, s, rs)
            }
            "cg.this_grid" => Ok(Repr::None),
            "cg.grid_sync" => {
                module.needs_grid_barrier = true;
                let (l_skip, l_wait) = (self.label(), self.label());
                let (t, u, v, nb) = (
                    self.reg(Rc::R),
                    self.reg(Rc::R),
                    self.reg(Rc::R),
                    self.reg(Rc::R),
                );
                let (p, q) = (self.reg(Rc::P), self.reg(Rc::P));
                let bar = self.reg(Rc::Rd);
                self.e("bar.sync 0");
                self.e(format!("mov.u32 {t}, %tid.x"));
                self.e(format!("mov.u32 {u}, %tid.y"));
                self.e(format!("or.b32 {t}, {t}, {u}"));
                self.e(format!("mov.u32 {u}, %tid.z"));
                self.e(format!("or.b32 {t}, {t}, {u}"));
                self.e(format!("setp.ne.u32 {p}, {t}, 0"));
                self.e(format!("@{p} bra {l_skip}"));
                // Expected blocks and whether this is block 0.
                self.e(format!("mov.u32 {nb}, %nctaid.x"));
                self.e(format!("mov.u32 {u}, %nctaid.y"));
                self.e(format!("mul.lo.u32 {nb}, {nb}, {u}"));
                self.e(format!("mov.u32 {u}, %nctaid.z"));
                self.e(format!("mul.lo.u32 {nb}, {nb}, {u}"));
                self.e(format!("mov.u32 {t}, %ctaid.x"));
                self.e(format!("mov.u32 {u}, %ctaid.y"));
                self.e(format!("or.b32 {t}, {t}, {u}"));
                self.e(format!("mov.u32 {u}, %ctaid.z"));
                self.e(format!("or.b32 {t}, {t}, {u}"));
                self.e(format!("setp.eq.u32 {q}, {t}, 0"));
                self.e(format!("sub.u32 {v}, 0x80000001, {nb}"));
                self.e(format!("selp.u32 {v}, {v}, 1, {q}"));
                self.e(format!("mov.u64 {bar}, __kl_grid_barrier"));
                self.e("membar.gl");
                self.e(format!("atom.global.add.u32 {t}, [{bar}], {v}"));
                let _ = writeln!(self.out, "{l_wait}:");
                self.e(format!("ld.volatile.global.u32 {u}, [{bar}]"));
                self.e(format!("xor.b32 {u}, {u}, {t}"));
                self.e(format!("and.b32 {u}, {u}, 0x80000000"));
                self.e(format!("setp.eq.u32 {p}, {u}, 0"));
                self.e(format!("@{p} bra {l_wait}"));
                self.e("membar.gl");
                let _ = writeln!(self.out, "{l_skip}:");
                self.e("bar.sync 0");
                Ok(Repr::None)
            }
            n if n.starts_with("atomic.") => self.atomic(&n["atomic.".len()..], &a, name),
            n if n.starts_with("fp16.") => self.fp16(&n["fp16.".len()..], &a, name),
            n if n.starts_with("random.") => self.random(&n["random.".len()..], &a, name),
            n if n.starts_with("libdevice.") => self.libdevice(&n["libdevice.".len()..], &a, name),
            _ => not_yet(self),
        }
    }

    /// `cuda.fp16.*`: the arguments rounded to float16 first, then the operation as the
    /// simulator computes it (in float32, rounded once to float16), except `hfma`, which is
    /// Numba's `fma.rn.f16` (one rounding of the exact `a * b + c`).
    fn fp16(&mut self, op: &str, a: &[Repr], name: &str) -> R<Repr> {
        let not_yet = |cx: &Self| err(format!("kernlint cannot compile `{name}` yet"), cx.span);
        let arity = match op {
            "hfma" => 3,
            "hadd" | "hsub" | "hmul" | "hdiv" | "hmax" | "hmin" | "heq" | "hne" | "hgt" | "hge"
            | "hlt" | "hle" => 2,
            "hneg" | "habs" | "hsqrt" | "hrsqrt" | "hrcp" | "hexp" | "hexp2" | "hexp10"
            | "hlog" | "hlog2" | "hlog10" | "hsin" | "hcos" | "htanh" | "hfloor" | "hceil"
            | "htrunc" | "hrint" => 1,
            _ => return not_yet(self),
        };
        if a.len() != arity {
            return not_yet(self);
        }
        let h: Vec<String> = a
            .iter()
            .map(|v| self.cast_repr(v, Scalar::F16))
            .collect::<R<_>>()?;
        match op {
            "hneg" => {
                let d = self.reg(Rc::H);
                self.e(format!("xor.b16 {d}, {}, 0x8000", h[0]));
                return Ok(Repr::S(d, Scalar::F16));
            }
            "habs" => {
                let d = self.reg(Rc::H);
                self.e(format!("and.b16 {d}, {}, 0x7FFF", h[0]));
                return Ok(Repr::S(d, Scalar::F16));
            }
            "hfma" => {
                let d = self.reg(Rc::H);
                self.e(format!("fma.rn.f16 {d}, {}, {}, {}", h[0], h[1], h[2]));
                return Ok(Repr::S(d, Scalar::F16));
            }
            _ => {}
        }
        let f: Vec<String> = h
            .iter()
            .map(|x| self.cast(x, Scalar::F16, Scalar::F32))
            .collect::<R<_>>()?;
        let cmp = match op {
            "heq" => Some("eq"),
            // `__hne` is ordered: false when either is NaN.
            "hne" => Some("ne"),
            "hgt" => Some("gt"),
            "hge" => Some("ge"),
            "hlt" => Some("lt"),
            "hle" => Some("le"),
            _ => None,
        };
        if let Some(c) = cmp {
            let d = self.reg(Rc::P);
            self.e(format!("setp.{c}.f32 {d}, {}, {}", f[0], f[1]));
            return Ok(Repr::S(d, Scalar::Bool));
        }
        let math = |m: MathFn| Some(m);
        let shared = match op {
            "hexp" => math(MathFn::Exp),
            "hexp2" => math(MathFn::Exp2),
            "hlog" => math(MathFn::Log),
            "hlog2" => math(MathFn::Log2),
            "hlog10" => math(MathFn::Log10),
            "hsin" => math(MathFn::Sin),
            "hcos" => math(MathFn::Cos),
            "htanh" => math(MathFn::Tanh),
            _ => None,
        };
        let r = if let Some(m) = shared {
            self.math_call(m, Scalar::F32, &f)?
        } else {
            let r = self.reg(Rc::F);
            let (x, y) = (&f[0], f.get(1).cloned().unwrap_or_default());
            match op {
                "hadd" => self.e(format!("add.rn.f32 {r}, {x}, {y}")),
                "hsub" => self.e(format!("sub.rn.f32 {r}, {x}, {y}")),
                "hmul" => self.e(format!("mul.rn.f32 {r}, {x}, {y}")),
                "hdiv" => self.e(format!("div.rn.f32 {r}, {x}, {y}")),
                "hmax" => self.e(format!("max.f32 {r}, {x}, {y}")),
                "hmin" => self.e(format!("min.f32 {r}, {x}, {y}")),
                "hsqrt" => self.e(format!("sqrt.rn.f32 {r}, {x}")),
                "hrsqrt" => {
                    self.e(format!("sqrt.rn.f32 {r}, {x}"));
                    self.e(format!("div.rn.f32 {r}, 0f3F800000, {r}"));
                }
                "hrcp" => self.e(format!("div.rn.f32 {r}, 0f3F800000, {x}")),
                "hexp10" => {
                    let ten = self.reg(Rc::F);
                    self.e(format!("mov.f32 {ten}, 0f41200000"));
                    let p = self.math_call(MathFn::Pow, Scalar::F32, &[ten, x.clone()])?;
                    self.e(format!("mov.f32 {r}, {p}"));
                }
                "hfloor" => self.e(format!("cvt.rmi.f32.f32 {r}, {x}")),
                "hceil" => self.e(format!("cvt.rpi.f32.f32 {r}, {x}")),
                "htrunc" => self.e(format!("cvt.rzi.f32.f32 {r}, {x}")),
                _ => self.e(format!("cvt.rni.f32.f32 {r}, {x}")),
            }
            r
        };
        Ok(Repr::S(
            self.cast(&r, Scalar::F32, Scalar::F16)?,
            Scalar::F16,
        ))
    }

    /// A libdevice routine [`libdevice::plan`] leaves to the backends ([`Native`]), with the
    /// instructions libdevice itself uses; the arguments already have its parameter types.
    /// The explicitly rounded operations never take `fastmath`'s approximations or `.ftz`.
    fn libdevice(&mut self, routine: &str, a: &[Repr], name: &str) -> R<Repr> {
        let not_yet = |cx: &Self| err(format!("kernlint cannot compile `{name}` yet"), cx.span);
        let (Plan::Native(op), Some(r)) = (libdevice::plan(routine), libdevice::routine(routine)) else {
            return not_yet(self);
        };
        let Ret::One(out) = r.ret else { return not_yet(self) };
        if a.len() != r.params.len() {
            return not_yet(self);
        }
        let x: Vec<String> = a.iter().zip(r.params).map(|(v, p)| self.cast_repr(v, *p)).collect::<R<_>>()?;
        let d = match op {
            Native::Arith(op, s, mode) => {
                let (t, m) = (aty(s), mode.ptx());
                let d = self.sreg(s)?;
                match op {
                    Arith::Add => self.e(format!("add.{m}.{t} {d}, {}, {}", x[0], x[1])),
                    Arith::Sub => self.e(format!("sub.{m}.{t} {d}, {}, {}", x[0], x[1])),
                    Arith::Mul => self.e(format!("mul.{m}.{t} {d}, {}, {}", x[0], x[1])),
                    Arith::Div => self.e(format!("div.{m}.{t} {d}, {}, {}", x[0], x[1])),
                    Arith::Rcp => self.e(format!("rcp.{m}.{t} {d}, {}", x[0])),
                    Arith::Sqrt => self.e(format!("sqrt.{m}.{t} {d}, {}", x[0])),
                    Arith::Fma => self.e(format!("fma.{m}.{t} {d}, {}, {}, {}", x[0], x[1], x[2])),
                }
                return Ok(Repr::S(d, s));
            }
            Native::FloatToInt { from, to, mode } => {
                let d = self.sreg(to)?;
                self.e(format!("cvt.{}.{}.{} {d}, {}", mode.ptx_int(), aty(to), aty(from), x[0]));
                return self.result_from(&d, to, Some(out));
            }
            Native::ToFloat { from, to, mode } => {
                // The argument's register holds `from`'s bits (uint32 in an int32's).
                let d = self.sreg(to)?;
                self.e(format!("cvt.{}.{}.{} {d}, {}", mode.ptx(), aty(to), aty(from), x[0]));
                d
            }
            Native::Round { s, int } => {
                // libdevice: trunc(x + copysign(0.5, x)), the sum rounded toward zero.
                let t = aty(s);
                let (half, sum, d) = (self.sreg(s)?, self.sreg(s)?, self.sreg(s)?);
                self.e(format!("mov.{t} {half}, {}", float_imm(s, 0.5)));
                self.e(format!("copysign.{t} {half}, {}, {half}", x[0]));
                self.e(format!("add.rz.{t} {sum}, {}, {half}", x[0]));
                self.e(format!("cvt.rzi.{t}.{t} {d}, {sum}"));
                if !int {
                    return Ok(Repr::S(d, s));
                }
                let i = self.reg(Rc::Rd);
                self.e(format!("cvt.rzi.s64.{t} {i}, {d}"));
                return Ok(Repr::S(i, Scalar::I64));
            }
            Native::Saturate => {
                let d = self.reg(Rc::F);
                self.e(format!("cvt.sat.f32.f32 {d}, {}", x[0]));
                d
            }
            Native::Fdim(s) => {
                let t = aty(s);
                let (diff, d, p) = (self.sreg(s)?, self.sreg(s)?, self.reg(Rc::P));
                self.e(format!("sub.rn.{t} {diff}, {}, {}", x[0], x[1]));
                self.e(format!("setp.le.{t} {p}, {}, {}", x[0], x[1]));
                self.e(format!("selp.{t} {d}, {}, {diff}, {p}", float_imm(s, 0.0)));
                d
            }
            Native::Ilogb(s) => self.ilogb(&x[0], s)?,
            Native::Logb(s) => {
                let t = aty(s);
                let e = self.ilogb(&x[0], s)?;
                let (d, inf_nan, zero, sq) = (self.sreg(s)?, self.reg(Rc::P), self.reg(Rc::P), self.sreg(s)?);
                self.e(format!("cvt.rn.{t}.s32 {d}, {e}"));
                self.e(format!("setp.eq.{t} {zero}, {}, {}", x[0], float_imm(s, 0.0)));
                self.e(format!("selp.{t} {d}, {}, {d}, {zero}", float_imm(s, f64::NEG_INFINITY)));
                // An infinity or a NaN: x * x (+inf, or the NaN).
                self.e(format!("testp.finite.{t} {inf_nan}, {}", x[0]));
                self.e(format!("mul.rn.{t} {sq}, {}, {}", x[0], x[0]));
                self.e(format!("selp.{t} {d}, {d}, {sq}, {inf_nan}"));
                d
            }
            Native::Signbit(s) => {
                let d = self.reg(Rc::R);
                if s == Scalar::F32 {
                    self.e(format!("mov.b32 {d}, {}", x[0]));
                } else {
                    let lo = self.reg(Rc::R);
                    self.e(format!("mov.b64 {{{lo}, {d}}}, {}", x[0]));
                }
                self.e(format!("shr.u32 {d}, {d}, 31"));
                d
            }
            Native::BitCast => {
                let d = self.sreg(out)?;
                self.e(format!("mov.{} {d}, {}", bty(out), x[0]));
                d
            }
            Native::DoubleWord { high } => {
                let (lo, hi) = (self.reg(Rc::R), self.reg(Rc::R));
                self.e(format!("mov.b64 {{{lo}, {hi}}}, {}", x[0]));
                if high { hi } else { lo }
            }
            Native::HiLoToDouble => {
                let d = self.reg(Rc::Fd);
                self.e(format!("mov.b64 {d}, {{{}, {}}}", x[1], x[0]));
                d
            }
            Native::HalfAdd { unsigned, round_up } => {
                // (x & y) + ((x ^ y) >> 1), or (x | y) - ((x ^ y) >> 1) rounding up.
                let (both, diff, d) = (self.reg(Rc::R), self.reg(Rc::R), self.reg(Rc::R));
                let (logic, combine) = if round_up { ("or", "sub") } else { ("and", "add") };
                self.e(format!("{logic}.b32 {both}, {}, {}", x[0], x[1]));
                self.e(format!("xor.b32 {diff}, {}, {}", x[0], x[1]));
                self.e(format!("shr.{} {diff}, {diff}, 1", if unsigned { "u32" } else { "s32" }));
                self.e(format!("{combine}.s32 {d}, {both}, {diff}"));
                d
            }
            Native::Mul24 { unsigned } => {
                let (p, q, d) = (self.reg(Rc::R), self.reg(Rc::R), self.reg(Rc::R));
                for (r, v) in [(&p, &x[0]), (&q, &x[1])] {
                    if unsigned {
                        self.e(format!("and.b32 {r}, {v}, 16777215"));
                    } else {
                        self.e(format!("shl.b32 {r}, {v}, 8"));
                        self.e(format!("shr.s32 {r}, {r}, 8"));
                    }
                }
                self.e(format!("mul.lo.s32 {d}, {p}, {q}"));
                d
            }
            Native::MulHi(s) => {
                let d = self.sreg(out)?;
                self.e(format!("mul.hi.{} {d}, {}, {}", aty(s), x[0], x[1]));
                d
            }
            Native::Sad { unsigned } => {
                let d = self.reg(Rc::R);
                self.e(format!("sad.{} {d}, {}, {}, {}", if unsigned { "u32" } else { "s32" }, x[0], x[1], x[2]));
                d
            }
            Native::BytePerm => {
                let (sel, d) = (self.reg(Rc::R), self.reg(Rc::R));
                self.e(format!("and.b32 {sel}, {}, 30583", x[2]));
                self.e(format!("prmt.b32 {d}, {}, {}, {sel}", x[0], x[1]));
                d
            }
            Native::FloatToHalf => {
                let (h, d) = (self.reg(Rc::H), self.reg(Rc::R));
                self.e(format!("cvt.rn.f16.f32 {h}, {}", x[0]));
                self.e(format!("cvt.s32.s16 {d}, {h}"));
                d
            }
            Native::HalfToFloat => {
                let (h, d) = (self.reg(Rc::H), self.reg(Rc::F));
                self.e(format!("cvt.u16.u32 {h}, {}", x[0]));
                self.e(format!("cvt.f32.f16 {d}, {h}"));
                d
            }
            Native::Powi(s) => self.powi(&x[0], &x[1], s)?,
        };
        Ok(Repr::S(d, out))
    }

    /// libdevice's `ilogb[f]`: the exponent of `|x|` (subnormals counted from their leading
    /// bit), INT_MIN for 0 and NaN, INT_MAX for infinities.
    fn ilogb(&mut self, x: &str, s: Scalar) -> R<String> {
        let (t, wide) = (aty(s), s == Scalar::F64);
        let (bits_rc, b) = if wide { (Rc::Rd, "b64") } else { (Rc::R, "b32") };
        let (mant, bias, sub_base, inf_bits) = if wide {
            (52, 1023, -1011, "0x7FF0000000000000")
        } else {
            (23, 127, -118, "0x7F800000")
        };
        let u = if wide { "u64" } else { "u32" };
        let (m, bits) = (self.sreg(s)?, self.reg(bits_rc));
        self.e(format!("abs.{t} {m}, {x}"));
        self.e(format!("mov.{b} {bits}, {m}"));
        let (e, sub, lz) = (self.reg(Rc::R), self.reg(Rc::R), self.reg(Rc::R));
        let shifted = self.reg(bits_rc);
        self.e(format!("shr.{u} {shifted}, {bits}, {mant}"));
        if wide {
            self.e(format!("cvt.u32.u64 {e}, {shifted}"));
        } else {
            self.e(format!("mov.b32 {e}, {shifted}"));
        }
        self.e(format!("sub.s32 {e}, {e}, {bias}"));
        self.e(format!("clz.{b} {lz}, {bits}"));
        self.e(format!("mov.u32 {sub}, {sub_base}"));
        self.e(format!("sub.s32 {sub}, {sub}, {lz}"));
        let p = self.reg(Rc::P);
        self.e(format!("setp.lt.{u} {p}, {bits}, {}", 1u64 << mant));
        self.e(format!("selp.b32 {e}, {sub}, {e}, {p}"));
        self.e(format!("setp.eq.{u} {p}, {bits}, 0"));
        self.e(format!("selp.b32 {e}, -2147483648, {e}, {p}"));
        self.e(format!("setp.eq.{u} {p}, {bits}, {inf_bits}"));
        self.e(format!("selp.b32 {e}, 2147483647, {e}, {p}"));
        self.e(format!("setp.gt.{u} {p}, {bits}, {inf_bits}"));
        self.e(format!("selp.b32 {e}, -2147483648, {e}, {p}"));
        Ok(e)
    }

    /// libdevice's `powi[f](x, n)`: repeated squaring over `|n|`, each product rounded to
    /// nearest, then the correctly rounded reciprocal for a negative `n`.
    fn powi(&mut self, x: &str, n: &str, s: Scalar) -> R<String> {
        let t = aty(s);
        let (r, sq, k, bit) = (self.sreg(s)?, self.sreg(s)?, self.reg(Rc::R), self.reg(Rc::R));
        let (odd, done, neg) = (self.reg(Rc::P), self.reg(Rc::P), self.reg(Rc::P));
        let (top, end) = (self.label(), self.label());
        self.e(format!("mov.{t} {r}, {}", float_imm(s, 1.0)));
        self.e(format!("mov.{t} {sq}, {x}"));
        self.e(format!("abs.s32 {k}, {n}"));
        let _ = writeln!(self.out, "{top}:");
        self.e(format!("and.b32 {bit}, {k}, 1"));
        self.e(format!("setp.ne.u32 {odd}, {bit}, 0"));
        self.e(format!("@{odd} mul.rn.{t} {r}, {r}, {sq}"));
        self.e(format!("shr.u32 {k}, {k}, 1"));
        self.e(format!("setp.eq.u32 {done}, {k}, 0"));
        self.e(format!("@{done} bra {end}"));
        self.e(format!("mul.rn.{t} {sq}, {sq}, {sq}"));
        self.e(format!("bra.uni {top}"));
        let _ = writeln!(self.out, "{end}:");
        self.e(format!("setp.lt.s32 {neg}, {n}, 0"));
        self.e(format!("@{neg} rcp.rn.{t} {r}, {r}"));
        Ok(r)
    }

    /// `numba.cuda.random`: xoroshiro128+ on the state record `states[index]` (`s0` at
    /// offset 0, `s1` at 8), and Numba's conversions to floats, operation for operation
    /// (`log`/`cos` are the shared math functions the simulator calls).
    fn random(&mut self, f: &str, a: &[Repr], name: &str) -> R<Repr> {
        let (Some(Repr::A(states)), Some(index)) = (a.first(), a.get(1)) else {
            return err(format!("kernlint cannot compile `{name}` yet"), self.span);
        };
        let (states, index) = (states.clone(), index.clone());
        match f {
            "xoroshiro128p_next" => {
                let x = self.rng_next(&states, &index)?;
                Ok(Repr::S(x, Scalar::U64))
            }
            "xoroshiro128p_uniform_float64" => {
                let x = self.rng_next(&states, &index)?;
                Ok(Repr::S(self.rng_unit64(&x), Scalar::F64))
            }
            "xoroshiro128p_uniform_float32" => {
                let u = self.rng_unit32(&states, &index)?;
                Ok(Repr::S(u, Scalar::F32))
            }
            "xoroshiro128p_normal_float32" | "xoroshiro128p_normal_float64" => {
                let u1 = self.rng_unit32(&states, &index)?;
                let u2 = self.rng_unit32(&states, &index)?;
                // math.log(u1) is float32's log in both (u1 is a float32).
                let l = self.math_call(MathFn::Log, Scalar::F32, &[u1])?;
                if f.ends_with("32") {
                    let (m, q, t, d) = (
                        self.reg(Rc::F),
                        self.reg(Rc::F),
                        self.reg(Rc::F),
                        self.reg(Rc::F),
                    );
                    let two_pi = (2.0 * std::f64::consts::PI) as f32;
                    self.e(format!("mul.rn.f32 {m}, {}, {l}", f32_imm(-2.0)));
                    self.e(format!("sqrt.rn.f32 {q}, {m}"));
                    self.e(format!("mul.rn.f32 {t}, {}, {u2}", f32_imm(two_pi)));
                    let c = self.math_call(MathFn::Cos, Scalar::F32, &[t])?;
                    self.e(format!("mul.rn.f32 {d}, {q}, {c}"));
                    Ok(Repr::S(d, Scalar::F32))
                } else {
                    let (ld, m, q, w, t, d) = (
                        self.reg(Rc::Fd),
                        self.reg(Rc::Fd),
                        self.reg(Rc::Fd),
                        self.reg(Rc::Fd),
                        self.reg(Rc::Fd),
                        self.reg(Rc::Fd),
                    );
                    self.e(format!("cvt.f64.f32 {ld}, {l}"));
                    self.e(format!("mul.rn.f64 {m}, {}, {ld}", f64_imm(-2.0)));
                    self.e(format!("sqrt.rn.f64 {q}, {m}"));
                    self.e(format!("cvt.f64.f32 {w}, {u2}"));
                    let two_pi = 2.0 * std::f64::consts::PI;
                    self.e(format!("mul.rn.f64 {t}, {}, {w}", f64_imm(two_pi)));
                    let c = self.math_call(MathFn::Cos, Scalar::F64, &[t])?;
                    self.e(format!("mul.rn.f64 {d}, {q}, {c}"));
                    Ok(Repr::S(d, Scalar::F64))
                }
            }
            "xoroshiro128p_jump" => {
                self.rng_jump(&states, &index)?;
                Ok(Repr::None)
            }
            "init_xoroshiro128p_state" => {
                let Some(seed) = a.get(2) else {
                    return err(format!("kernlint cannot compile `{name}` yet"), self.span);
                };
                // SplitMix64 of the seed, into both words.
                let z = self.cast_repr(seed, Scalar::U64)?;
                let [x, t] = std::array::from_fn(|_| self.reg(Rc::Rd));
                self.e(format!("add.s64 {x}, {z}, {}", 0x9E37_79B9_7F4A_7C15u64 as i64));
                for (shift, mul) in [(30, 0xBF58_476D_1CE4_E5B9u64), (27, 0x94D0_49BB_1331_11EB)] {
                    self.e(format!("shr.u64 {t}, {x}, {shift}"));
                    self.e(format!("xor.b64 {x}, {x}, {t}"));
                    self.e(format!("mul.lo.s64 {x}, {x}, {}", mul as i64));
                }
                self.e(format!("shr.u64 {t}, {x}, 31"));
                self.e(format!("xor.b64 {x}, {x}, {t}"));
                let addr = self.address(&states, std::slice::from_ref(&index))?;
                let sp = states.space.suffix();
                self.e(format!("st{sp}.u64 [{addr}], {x}"));
                self.e(format!("st{sp}.u64 [{addr}+8], {x}"));
                Ok(Repr::None)
            }
            _ => err(format!("kernlint cannot compile `{name}` yet"), self.span),
        }
    }

    /// `xoroshiro128p_jump`: advance `states[index]` by 2^64 steps, as Numba does (the xor
    /// of the states at the set bits of the jump polynomial, over 128 steps), in registers.
    fn rng_jump(&mut self, states: &Arr, index: &Repr) -> R<()> {
        const JUMP: [u64; 2] = [0xBEAC_0467_EBA5_FACB, 0xD86B_048B_86AA_9922];
        let addr = self.address(states, std::slice::from_ref(index))?;
        let sp = states.space.suffix();
        let [s0, s1, acc0, acc1, bits, bit] = std::array::from_fn(|_| self.reg(Rc::Rd));
        let step = self.reg(Rc::R);
        let p = self.reg(Rc::P);
        let top = self.label();
        self.e(format!("ld{sp}.u64 {s0}, [{addr}]"));
        self.e(format!("ld{sp}.u64 {s1}, [{addr}+8]"));
        self.e(format!("mov.u64 {acc0}, 0"));
        self.e(format!("mov.u64 {acc1}, 0"));
        self.e(format!("mov.b64 {bits}, {}", JUMP[0] as i64));
        self.e(format!("mov.u32 {step}, 0"));
        let _ = writeln!(self.out, "{top}:");
        self.e(format!("and.b64 {bit}, {bits}, 1"));
        self.e(format!("setp.ne.u64 {p}, {bit}, 0"));
        self.e(format!("@{p} xor.b64 {acc0}, {acc0}, {s0}"));
        self.e(format!("@{p} xor.b64 {acc1}, {acc1}, {s1}"));
        self.rng_advance(&s0, &s1);
        self.e(format!("shr.u64 {bits}, {bits}, 1"));
        self.e(format!("add.u32 {step}, {step}, 1"));
        self.e(format!("setp.eq.u32 {p}, {step}, 64"));
        self.e(format!("@{p} mov.b64 {bits}, {}", JUMP[1] as i64));
        self.e(format!("setp.lt.u32 {p}, {step}, 128"));
        self.e(format!("@{p} bra {top}"));
        self.e(format!("st{sp}.u64 [{addr}], {acc0}"));
        self.e(format!("st{sp}.u64 [{addr}+8], {acc1}"));
        Ok(())
    }

    /// `xoroshiro128p_next`: the next uint64 of `states[index]`, advancing it.
    fn rng_next(&mut self, states: &Arr, index: &Repr) -> R<String> {
        let addr = self.address(states, std::slice::from_ref(index))?;
        let sp = states.space.suffix();
        let [s0, s1, res] = std::array::from_fn(|_| self.reg(Rc::Rd));
        self.e(format!("ld{sp}.u64 {s0}, [{addr}]"));
        self.e(format!("ld{sp}.u64 {s1}, [{addr}+8]"));
        self.e(format!("add.s64 {res}, {s0}, {s1}"));
        self.rng_advance(&s0, &s1);
        self.e(format!("st{sp}.u64 [{addr}], {s0}"));
        self.e(format!("st{sp}.u64 [{addr}+8], {s1}"));
        Ok(res)
    }

    /// One xoroshiro128+ state transition of the registers `s0`, `s1`, in place.
    fn rng_advance(&mut self, s0: &str, s1: &str) {
        let [t, u, v] = std::array::from_fn(|_| self.reg(Rc::Rd));
        self.e(format!("xor.b64 {s1}, {s1}, {s0}"));
        // s0' = rotl(s0, 55) ^ s1 ^ (s1 << 14); s1' = rotl(s1, 36).
        self.e(format!("shl.b64 {t}, {s0}, 55"));
        self.e(format!("shr.u64 {u}, {s0}, 9"));
        self.e(format!("or.b64 {t}, {t}, {u}"));
        self.e(format!("xor.b64 {t}, {t}, {s1}"));
        self.e(format!("shl.b64 {u}, {s1}, 14"));
        self.e(format!("xor.b64 {t}, {t}, {u}"));
        self.e(format!("shl.b64 {v}, {s1}, 36"));
        self.e(format!("shr.u64 {u}, {s1}, 28"));
        self.e(format!("or.b64 {v}, {v}, {u}"));
        self.e(format!("mov.b64 {s0}, {t}"));
        self.e(format!("mov.b64 {s1}, {v}"));
    }

    /// `uint64_to_unit_float64`: `(x >> 11) * 2**-53` (both steps exact).
    fn rng_unit64(&mut self, x: &str) -> String {
        let t = self.reg(Rc::Rd);
        let d = self.reg(Rc::Fd);
        self.e(format!("shr.u64 {t}, {x}, 11"));
        self.e(format!("cvt.rn.f64.u64 {d}, {t}"));
        self.e(format!(
            "mul.rn.f64 {d}, {d}, {}",
            f64_imm(1.0 / (1u64 << 53) as f64)
        ));
        d
    }

    /// `xoroshiro128p_uniform_float32`: the float64 uniform rounded to float32.
    fn rng_unit32(&mut self, states: &Arr, index: &Repr) -> R<String> {
        let x = self.rng_next(states, index)?;
        let d64 = self.rng_unit64(&x);
        let d = self.reg(Rc::F);
        self.e(format!("cvt.rn.f32.f64 {d}, {d64}"));
        Ok(d)
    }

    /// Python's float `%` (Numba's `real_mod`): `fmod` (exact), then the divisor's sign: a
    /// non-zero remainder of the other sign gets `y` added, a zero one is `-0.0` for a
    /// negative divisor and `0.0` otherwise.
    fn float_mod(&mut self, x: &str, y: &str, s: Scalar) -> R<String> {
        let t = aty(s);
        let (zero, nzero) = match s {
            Scalar::F32 => (f32_imm(0.0), f32_imm(-0.0)),
            _ => (f64_imm(0.0), f64_imm(-0.0)),
        };
        let r = self.fmod(x, y, s)?;
        let (pa, pb, pz) = (self.reg(Rc::P), self.reg(Rc::P), self.reg(Rc::P));
        let (d, sum, z) = (self.sreg(s)?, self.sreg(s)?, self.sreg(s)?);
        self.e(format!("setp.lt.{t} {pa}, {r}, {zero}"));
        self.e(format!("setp.lt.{t} {pb}, {y}, {zero}"));
        self.e(format!("xor.pred {pa}, {pa}, {pb}"));
        self.e(format!("add.rn.{t} {sum}, {r}, {y}"));
        self.e(format!("selp.{t} {d}, {sum}, {r}, {pa}"));
        self.e(format!("selp.{t} {z}, {nzero}, {zero}, {pb}"));
        self.e(format!("setp.eq.{t} {pz}, {r}, {zero}"));
        self.e(format!("selp.{t} {d}, {z}, {d}, {pz}"));
        Ok(d)
    }

    /// Python's float `//` as Numba computes it (`real_divmod`, CPython's
    /// `float_floor_div`; `math::floor_div` for the simulator): the exact
    /// `m = fmod(x, y)`, `div = (x - m) / y`, minus one where `m` is non-zero and of the other
    /// sign than `y`, snapped to the nearest integral value (`floor(div)`, plus one where
    /// `div - floor(div) > 0.5`); a zero `div` is `copysign(0, x / y)` and a zero divisor
    /// gives `x / y`. Always `.rn`: `fastmath` does not change it.
    fn float_floor_div(&mut self, x: &str, y: &str, s: Scalar) -> R<String> {
        let t = aty(s);
        let imm = |v: f64| match s {
            Scalar::F32 => f32_imm(v as f32),
            _ => f64_imm(v),
        };
        let (zero, one, mone, half) = (imm(0.0), imm(1.0), imm(-1.0), imm(0.5));
        let m = self.fmod(x, y, s)?;
        let [pa, pb, pm, pg, pz] = std::array::from_fn(|_| self.reg(Rc::P));
        let (diff, div, dm1) = (self.sreg(s)?, self.sreg(s)?, self.sreg(s)?);
        let (fl, frac, fl1) = (self.sreg(s)?, self.sreg(s)?, self.sreg(s)?);
        let (q, z, d) = (self.sreg(s)?, self.sreg(s)?, self.sreg(s)?);
        self.e(format!("sub.rn.{t} {diff}, {x}, {m}"));
        self.e(format!("div.rn.{t} {div}, {diff}, {y}"));
        // One less where the remainder is non-zero (or NaN) and of the other sign than y.
        self.e(format!("setp.neu.{t} {pm}, {m}, {zero}"));
        self.e(format!("setp.lt.{t} {pa}, {m}, {zero}"));
        self.e(format!("setp.lt.{t} {pb}, {y}, {zero}"));
        self.e(format!("xor.pred {pa}, {pa}, {pb}"));
        self.e(format!("and.pred {pa}, {pa}, {pm}"));
        self.e(format!("add.rn.{t} {dm1}, {div}, {mone}"));
        self.e(format!("selp.{t} {div}, {dm1}, {div}, {pa}"));
        // Snapped to the nearest integral value.
        self.e(format!("cvt.rmi.{t}.{t} {fl}, {div}"));
        self.e(format!("sub.rn.{t} {frac}, {div}, {fl}"));
        self.e(format!("add.rn.{t} {fl1}, {fl}, {one}"));
        self.e(format!("setp.gt.{t} {pg}, {frac}, {half}"));
        self.e(format!("selp.{t} {d}, {fl1}, {fl}, {pg}"));
        // A zero quotient takes the sign of x / y; a zero divisor gives x / y.
        self.e(format!("div.rn.{t} {q}, {x}, {y}"));
        self.e(format!("copysign.{t} {z}, {q}, {zero}"));
        self.e(format!("setp.eq.{t} {pz}, {div}, {zero}"));
        self.e(format!("selp.{t} {d}, {z}, {d}, {pz}"));
        self.e(format!("setp.eq.{t} {pz}, {y}, {zero}"));
        self.e(format!("selp.{t} {d}, {q}, {d}, {pz}"));
        Ok(d)
    }

    /// C's `fmod(x, y)` (exact: the remainder of the truncated quotient, with x's sign), by
    /// shift-and-subtract on the significands (as musl's `fmod`): NaN when `y` is 0 or NaN
    /// or `x` is infinite or NaN, `x` when `|x| < |y|`.
    /// The float width's layout: (type, bits, integer register class, mantissa bits, bias).
    fn float_layout(&self, s: Scalar) -> R<(&'static str, u32, Rc, i32, i32)> {
        match s {
            Scalar::F32 => Ok(("f32", 32, Rc::R, 23, 127)),
            Scalar::F64 => Ok(("f64", 64, Rc::Rd, 52, 1023)),
            _ => self.unsupported_scalar(s),
        }
    }

    /// `x * 2^n` rounded once: `analysis::ir::math::ldexp`'s steps (musl's `scalbn`).
    fn ldexp(&mut self, x: &str, n: &str, s: Scalar) -> R<String> {
        let (t, w, rc, mant, bias) = self.float_layout(s)?;
        let (max, min) = (bias, 1 - bias);
        let down = min + mant + 1;
        let pow2 = |e: i32| pow2_imm(s, e);
        let (y, d) = (self.sreg(s)?, self.sreg(s)?);
        let k = self.reg(Rc::R);
        let p = self.reg(Rc::P);
        self.e(format!("mov.{t} {y}, {x}"));
        self.e(format!("mov.b32 {k}, {n}"));
        for _ in 0..2 {
            self.e(format!("setp.gt.s32 {p}, {k}, {max}"));
            self.e(format!("@{p} mul.rn.{t} {y}, {y}, {}", pow2(max)));
            self.e(format!("@{p} sub.s32 {k}, {k}, {max}"));
        }
        self.e(format!("min.s32 {k}, {k}, {max}"));
        for _ in 0..2 {
            self.e(format!("setp.lt.s32 {p}, {k}, {min}"));
            self.e(format!("@{p} mul.rn.{t} {y}, {y}, {}", pow2(down)));
            self.e(format!("@{p} sub.s32 {k}, {k}, {down}"));
        }
        self.e(format!("max.s32 {k}, {k}, {min}"));
        self.e(format!("add.s32 {k}, {k}, {bias}"));
        let scale = self.sreg(s)?;
        if w == 64 {
            let kk = self.reg(rc);
            self.e(format!("cvt.u64.u32 {kk}, {k}"));
            self.e(format!("shl.b64 {kk}, {kk}, {mant}"));
            self.e(format!("mov.b64 {scale}, {kk}"));
        } else {
            self.e(format!("shl.b32 {k}, {k}, {mant}"));
            self.e(format!("mov.b32 {scale}, {k}"));
        }
        self.e(format!("mul.rn.{t} {d}, {y}, {scale}"));
        Ok(d)
    }

    /// `round(x, ndigits)`: `analysis::ir::math::round_ndigits`'s steps (numba-cuda's
    /// `round_to_impl`), in float64.
    fn round_ndigits(&mut self, x: &str, n: &str, s: Scalar) -> R<String> {
        let t = aty(s);
        let out = self.sreg(s)?;
        let [xd, y, pow1, pow2, z, z2, h] = std::array::from_fn(|_| self.reg(Rc::Fd));
        let [e, zi] = std::array::from_fn(|_| self.reg(Rc::Rd));
        let (p, negative) = (self.reg(Rc::P), self.reg(Rc::P));
        let [l_negative, l_round, l_keep, l_done] = std::array::from_fn(|_| self.label());
        let ten = self.reg(Rc::Fd);
        self.e(format!("mov.f64 {ten}, {}", f64_imm(10.0)));
        if s == Scalar::F64 {
            self.e(format!("mov.f64 {xd}, {x}"));
        } else {
            self.e(format!("cvt.f64.f32 {xd}, {x}"));
        }
        self.e(format!("testp.finite.{t} {p}, {x}"));
        self.e(format!("@!{p} bra {l_keep}"));
        self.e(format!("setp.lt.s64 {negative}, {n}, 0"));
        self.e(format!("@{negative} bra {l_negative}"));
        // ndigits >= 0: x * 10^n, in two factors past 10^22.
        self.e(format!("setp.gt.s64 {p}, {n}, 22"));
        self.e(format!("sub.s64 {e}, {n}, 22"));
        self.e(format!("selp.b64 {e}, {e}, {n}, {p}"));
        self.e(format!("selp.f64 {pow2}, {}, {}, {p}", f64_imm(1e22), f64_imm(1.0)));
        let power = self.int_power(&ten, &e, Scalar::F64)?;
        self.e(format!("mov.f64 {pow1}, {power}"));
        self.e(format!("mul.rn.f64 {y}, {xd}, {pow1}"));
        self.e(format!("mul.rn.f64 {y}, {y}, {pow2}"));
        self.e(format!("testp.infinite.f64 {p}, {y}"));
        self.e(format!("@{p} bra {l_keep}"));
        self.e(format!("bra.uni {l_round}"));
        // ndigits < 0: x / 10^-n.
        let _ = writeln!(self.out, "{l_negative}:");
        self.e(format!("neg.s64 {e}, {n}"));
        let power = self.int_power(&ten, &e, Scalar::F64)?;
        self.e(format!("mov.f64 {pow1}, {power}"));
        self.e(format!("mov.f64 {pow2}, {}", f64_imm(1.0)));
        self.e(format!("div.rn.f64 {y}, {xd}, {pow1}"));
        // llrint, and a halfway case to even once more.
        let _ = writeln!(self.out, "{l_round}:");
        self.e(format!("cvt.rni.s64.f64 {zi}, {y}"));
        self.e(format!("cvt.rn.f64.s64 {z}, {zi}"));
        self.e(format!("sub.rn.f64 {h}, {y}, {z}"));
        self.e(format!("abs.f64 {h}, {h}"));
        self.e(format!("setp.eq.f64 {p}, {h}, {}", f64_imm(0.5)));
        self.e(format!("mul.rn.f64 {h}, {y}, {}", f64_imm(0.5)));
        self.e(format!("cvt.rni.s64.f64 {zi}, {h}"));
        self.e(format!("cvt.rn.f64.s64 {z2}, {zi}"));
        self.e(format!("mul.rn.f64 {z2}, {z2}, {}", f64_imm(2.0)));
        self.e(format!("selp.f64 {z}, {z2}, {z}, {p}"));
        // Scale back.
        self.e(format!("div.rn.f64 {z2}, {z}, {pow2}"));
        self.e(format!("div.rn.f64 {z2}, {z2}, {pow1}"));
        self.e(format!("mul.rn.f64 {h}, {z}, {pow1}"));
        self.e(format!("selp.f64 {z}, {h}, {z2}, {negative}"));
        if s == Scalar::F64 {
            self.e(format!("mov.f64 {out}, {z}"));
        } else {
            self.e(format!("cvt.rn.f32.f64 {out}, {z}"));
        }
        self.e(format!("bra.uni {l_done}"));
        let _ = writeln!(self.out, "{l_keep}:");
        self.e(format!("mov.{t} {out}, {x}"));
        let _ = writeln!(self.out, "{l_done}:");
        Ok(out)
    }

    /// Float `**` integer: `analysis::ir::math::int_power`'s steps (Numba's `int_power_impl`).
    fn int_power(&mut self, x: &str, n: &str, s: Scalar) -> R<String> {
        let t = aty(s);
        let (r, sq) = (self.sreg(s)?, self.sreg(s)?);
        let (k, bit) = (self.reg(Rc::Rd), self.reg(Rc::Rd));
        let p = self.reg(Rc::P);
        let [top, end, big, done] = std::array::from_fn(|_| self.label());
        self.e(format!("abs.s64 {k}, {n}"));
        self.e(format!("setp.gt.u64 {p}, {k}, 65536"));
        self.e(format!("@{p} bra {big}"));
        self.e(format!("mov.{t} {r}, {}", float_imm(s, 1.0)));
        self.e(format!("mov.{t} {sq}, {x}"));
        let _ = writeln!(self.out, "{top}:");
        self.e(format!("setp.eq.u64 {p}, {k}, 0"));
        self.e(format!("@{p} bra {end}"));
        self.e(format!("and.b64 {bit}, {k}, 1"));
        self.e(format!("setp.ne.u64 {p}, {bit}, 0"));
        self.e(format!("@{p} mul.rn.{t} {r}, {r}, {sq}"));
        self.e(format!("shr.u64 {k}, {k}, 1"));
        self.e(format!("mul.rn.{t} {sq}, {sq}, {sq}"));
        self.e(format!("bra.uni {top}"));
        // A negative exponent: `1.0 / r` in float64.
        let _ = writeln!(self.out, "{end}:");
        self.e(format!("setp.lt.s64 {p}, {n}, 0"));
        self.e(format!("@!{p} bra {done}"));
        if s == Scalar::F64 {
            self.e(format!("rcp.rn.f64 {r}, {r}"));
        } else {
            let w = self.reg(Rc::Fd);
            self.e(format!("cvt.f64.f32 {w}, {r}"));
            self.e(format!("rcp.rn.f64 {w}, {w}"));
            self.e(format!("cvt.rn.f32.f64 {r}, {w}"));
        }
        self.e(format!("bra.uni {done}"));
        // Beyond 2^16: `math.pow(x, float(n))` at float64.
        let _ = writeln!(self.out, "{big}:");
        let (xd, nd) = (self.reg(Rc::Fd), self.reg(Rc::Fd));
        if s == Scalar::F64 {
            self.e(format!("mov.f64 {xd}, {x}"));
        } else {
            self.e(format!("cvt.f64.f32 {xd}, {x}"));
        }
        self.e(format!("cvt.rn.f64.s64 {nd}, {n}"));
        let pw = self.math_call(MathFn::Pow, Scalar::F64, &[xd, nd])?;
        if s == Scalar::F64 {
            self.e(format!("mov.f64 {r}, {pw}"));
        } else {
            self.e(format!("cvt.rn.f32.f64 {r}, {pw}"));
        }
        let _ = writeln!(self.out, "{done}:");
        Ok(r)
    }

    /// `(m, e)` with `x == m * 2^e`, `0.5 <= |m| < 1`; `(x, 0)` for zeros, infinities and
    /// NaN (`analysis::ir::math::frexp`).
    fn frexp(&mut self, x: &str, s: Scalar) -> R<(String, String)> {
        let (t, w, rc, mant, bias) = self.float_layout(s)?;
        let b = format!("b{w}");
        let field_mask = (bias as u64) * 2 + 1;
        let (xs, m) = (self.sreg(s)?, self.sreg(s)?);
        let (bits, tmp) = (self.reg(rc), self.reg(rc));
        let (e, adj) = (self.reg(Rc::R), self.reg(Rc::R));
        let (sub, special, q) = (self.reg(Rc::P), self.reg(Rc::P), self.reg(Rc::P));
        let field = |cx: &mut Self, from: &str, to: &str| {
            cx.e(format!("shr.u{w} {tmp}, {from}, {mant}"));
            if w == 64 {
                cx.e(format!("cvt.u32.u64 {to}, {tmp}"));
            } else {
                cx.e(format!("mov.b32 {to}, {tmp}"));
            }
            cx.e(format!("and.b32 {to}, {to}, {field_mask}"));
        };
        // Subnormals are scaled into the normal range first.
        self.e(format!("mov.{b} {bits}, {x}"));
        field(self, &bits, &e);
        self.e(format!("setp.eq.s32 {sub}, {e}, 0"));
        self.e(format!("mul.rn.{t} {xs}, {x}, {}", pow2_imm(s, mant + 2)));
        self.e(format!("selp.{t} {xs}, {xs}, {x}, {sub}"));
        self.e(format!("selp.s32 {adj}, {}, 0, {sub}", mant + 2));
        self.e(format!("mov.{b} {bits}, {xs}"));
        field(self, &bits, &e);
        self.e(format!("sub.s32 {e}, {e}, {adj}"));
        self.e(format!("sub.s32 {e}, {e}, {}", bias - 1));
        self.e(format!("and.{b} {bits}, {bits}, {}", !(field_mask << mant) & mask(w)));
        self.e(format!("or.{b} {bits}, {bits}, {}", ((bias - 1) as u64) << mant));
        self.e(format!("mov.{b} {m}, {bits}"));
        self.e(format!("setp.eq.{t} {special}, {x}, {}", float_imm(s, 0.0)));
        self.e(format!("testp.infinite.{t} {q}, {x}"));
        self.e(format!("or.pred {special}, {special}, {q}"));
        self.e(format!("testp.notanumber.{t} {q}, {x}"));
        self.e(format!("or.pred {special}, {special}, {q}"));
        self.e(format!("selp.{t} {m}, {x}, {m}, {special}"));
        self.e(format!("selp.s32 {e}, 0, {e}, {special}"));
        Ok((m, e))
    }

    /// `(fraction, integer part)`, each with the sign of `x` (`analysis::ir::math::modf`).
    fn modf(&mut self, x: &str, s: Scalar) -> R<(String, String)> {
        let (t, ..) = self.float_layout(s)?;
        let (frac, int) = (self.sreg(s)?, self.sreg(s)?);
        let p = self.reg(Rc::P);
        self.e(format!("cvt.rzi.{t}.{t} {int}, {x}"));
        self.e(format!("sub.rn.{t} {frac}, {x}, {int}"));
        self.e(format!("testp.infinite.{t} {p}, {x}"));
        self.e(format!("selp.{t} {frac}, {}, {frac}, {p}", float_imm(s, 0.0)));
        self.e(format!("copysign.{t} {frac}, {x}, {frac}"));
        Ok((frac, int))
    }

    /// The IEEE remainder, exactly (`analysis::ir::math::remainder`, fdlibm's steps, with
    /// the reduction modulo `2|y|` always taken: it returns `x` where `2|y|` overflows).
    fn remainder(&mut self, x: &str, y: &str, s: Scalar) -> R<String> {
        let (t, w, rc, _, bias) = self.float_layout(s)?;
        let mut float = || self.sreg(s);
        let (p, pp, ph, r) = (float()?, float()?, float()?, float()?);
        let (a, bnd, d) = (float()?, float()?, float()?);
        let [small, c1, c2, q] = std::array::from_fn(|_| self.reg(Rc::P));
        self.e(format!("abs.{t} {p}, {y}"));
        self.e(format!("add.rn.{t} {pp}, {p}, {p}"));
        let reduced = self.fmod(x, &pp, s)?;
        self.e(format!("abs.{t} {r}, {reduced}"));
        // |r| < 2p now: subtract p at most twice, comparing `2r` with `p` where `p/2` would
        // lose bits (p below twice the smallest normal), else `r` with `p/2`.
        self.e(format!("setp.lt.{t} {small}, {p}, {}", pow2_imm(s, 2 - bias)));
        self.e(format!("mul.rn.{t} {ph}, {p}, {}", float_imm(s, 0.5)));
        self.e(format!("selp.{t} {bnd}, {p}, {ph}, {small}"));
        for (c, op) in [(&c1, "gt"), (&c2, "ge")] {
            self.e(format!("add.rn.{t} {a}, {r}, {r}"));
            self.e(format!("selp.{t} {a}, {a}, {r}, {small}"));
            self.e(format!("setp.{op}.{t} {c}, {a}, {bnd}"));
            if op == "ge" {
                self.e(format!("and.pred {c}, {c}, {c1}"));
            }
            self.e(format!("@{c} sub.rn.{t} {r}, {r}, {p}"));
        }
        // The sign of x (its bit, so that -0.0 counts), and a zero of that sign where
        // |x| == |y|.
        let (xb, rb) = (self.reg(rc), self.reg(rc));
        self.e(format!("mov.b{w} {xb}, {x}"));
        self.e(format!("and.b{w} {xb}, {xb}, {}", 1u64 << (w - 1)));
        self.e(format!("mov.b{w} {rb}, {r}"));
        self.e(format!("xor.b{w} {rb}, {rb}, {xb}"));
        self.e(format!("mov.b{w} {r}, {rb}"));
        self.e(format!("abs.{t} {a}, {x}"));
        self.e(format!("setp.eq.{t} {q}, {a}, {p}"));
        self.e(format!("@{q} mul.rn.{t} {r}, {x}, {}", float_imm(s, 0.0)));
        // NaN where y is 0 or NaN or x is not finite.
        self.e(format!("mov.{t} {d}, {r}"));
        self.e(format!("setp.eq.{t} {q}, {p}, {}", float_imm(s, 0.0)));
        self.e(format!("@{q} mov.{t} {d}, {}", float_imm(s, f64::NAN)));
        self.e(format!("testp.notanumber.{t} {q}, {y}"));
        self.e(format!("@{q} mov.{t} {d}, {}", float_imm(s, f64::NAN)));
        self.e(format!("testp.finite.{t} {q}, {x}"));
        self.e(format!("@!{q} mov.{t} {d}, {}", float_imm(s, f64::NAN)));
        Ok(d)
    }

    /// The next float after `x` towards `y` (`analysis::ir::math::nextafter`).
    fn nextafter(&mut self, x: &str, y: &str, s: Scalar) -> R<String> {
        let (t, w, rc, ..) = self.float_layout(s)?;
        let b = format!("b{w}");
        let d = self.sreg(s)?;
        let tiny = self.sreg(s)?;
        let (bits, up) = (self.reg(rc), self.reg(rc));
        let [toward, positive, q] = std::array::from_fn(|_| self.reg(Rc::P));
        self.e(format!("mov.{b} {bits}, {x}"));
        self.e(format!("add.s{w} {up}, {bits}, 1"));
        self.e(format!("sub.s{w} {bits}, {bits}, 1"));
        // One step away from zero when y lies beyond x on x's side of zero.
        self.e(format!("setp.gt.{t} {toward}, {y}, {x}"));
        self.e(format!("setp.gt.{t} {positive}, {x}, {}", float_imm(s, 0.0)));
        self.e(format!("xor.pred {q}, {toward}, {positive}"));
        self.e(format!("selp.{b} {bits}, {bits}, {up}, {q}"));
        self.e(format!("mov.{b} {d}, {bits}"));
        self.e(format!("mov.{b} {tiny}, 1"));
        self.e(format!("copysign.{t} {tiny}, {y}, {tiny}"));
        self.e(format!("setp.eq.{t} {q}, {x}, {}", float_imm(s, 0.0)));
        self.e(format!("selp.{t} {d}, {tiny}, {d}, {q}"));
        self.e(format!("setp.eq.{t} {q}, {x}, {y}"));
        self.e(format!("selp.{t} {d}, {y}, {d}, {q}"));
        self.e(format!("setp.nan.{t} {q}, {x}, {y}"));
        self.e(format!("@{q} add.rn.{t} {d}, {x}, {y}"));
        Ok(d)
    }

    fn fmod(&mut self, x: &str, y: &str, s: Scalar) -> R<String> {
        let (t, w, rc, mant) = match s {
            Scalar::F32 => ("f32", 32, Rc::R, 23u32),
            Scalar::F64 => ("f64", 64, Rc::Rd, 52),
            _ => return self.unsupported_scalar(s),
        };
        let b = format!("b{w}");
        let st = format!("s{w}");
        let ut = format!("u{w}");
        let hidden = format!("{}", 1u64 << mant);
        let low = format!("{}", (1u64 << mant) - 1);
        let nan = if w == 32 {
            f32_imm(f32::NAN)
        } else {
            f64_imm(f64::NAN)
        };
        let d = self.sreg(s)?;
        let (ax, ay) = (self.sreg(s)?, self.sreg(s)?);
        let [p, q] = std::array::from_fn(|_| self.reg(Rc::P));
        let [ux, uy, mx, my, sx, i] = std::array::from_fn(|_| self.reg(rc));
        let [ex, ey, k] = std::array::from_fn(|_| self.reg(Rc::R));
        let [l_nan, l_zero, l_loop, l_tail, l_end] = std::array::from_fn(|_| self.label());
        self.e(format!("mov.{t} {d}, {x}"));
        self.e(format!("abs.{t} {ax}, {x}"));
        self.e(format!("abs.{t} {ay}, {y}"));
        self.e(format!("testp.notanumber.{t} {p}, {y}"));
        self.e(format!("testp.notanumber.{t} {q}, {x}"));
        self.e(format!("or.pred {p}, {p}, {q}"));
        self.e(format!("testp.infinite.{t} {q}, {x}"));
        self.e(format!("or.pred {p}, {p}, {q}"));
        let zero = if w == 32 { f32_imm(0.0) } else { f64_imm(0.0) };
        self.e(format!("setp.eq.{t} {q}, {ay}, {zero}"));
        self.e(format!("or.pred {p}, {p}, {q}"));
        self.e(format!("@{p} bra {l_nan}"));
        self.e(format!("setp.lt.{t} {p}, {ax}, {ay}"));
        self.e(format!("@{p} bra {l_end}"));
        self.e(format!("setp.eq.{t} {p}, {ax}, {ay}"));
        self.e(format!("mov.{b} {ux}, {x}"));
        self.e(format!("mov.{b} {uy}, {ay}"));
        self.e(format!("and.{b} {sx}, {ux}, {}", 1u64 << (w - 1)));
        self.e(format!("@{p} bra {l_zero}"));
        self.e(format!("mov.{b} {ux}, {ax}"));
        // Exponents and significands (with the hidden bit), subnormals normalised.
        for (u, m, e) in [(&ux, &mx, &ex), (&uy, &my, &ey)] {
            let i64_ = self.reg(rc);
            self.e(format!("shr.{ut} {i64_}, {u}, {mant}"));
            if rc == Rc::Rd {
                self.e(format!("cvt.u32.u64 {e}, {i64_}"));
            } else {
                self.e(format!("mov.b32 {e}, {i64_}"));
            }
            self.e(format!("and.{b} {m}, {u}, {low}"));
            self.e(format!("or.{b} {i}, {m}, {hidden}"));
            // Subnormal: shift the top set bit up to the hidden bit; the exponent is 1 - shift.
            self.e(format!("clz.{b} {k}, {m}"));
            self.e(format!("sub.s32 {k}, {k}, {}", w - 1 - mant));
            self.e(format!("setp.eq.s32 {q}, {e}, 0"));
            let sh = self.reg(rc);
            self.e(format!("shl.{b} {sh}, {m}, {k}"));
            self.e(format!("selp.{b} {m}, {sh}, {i}, {q}"));
            self.e(format!("sub.s32 {k}, 1, {k}"));
            self.e(format!("selp.b32 {e}, {k}, {e}, {q}"));
        }
        let _ = writeln!(self.out, "{l_loop}:");
        self.e(format!("setp.le.s32 {p}, {ex}, {ey}"));
        self.e(format!("@{p} bra {l_tail}"));
        self.e(format!("sub.{st} {i}, {mx}, {my}"));
        self.e(format!("setp.eq.{st} {q}, {i}, 0"));
        self.e(format!("@{q} bra {l_zero}"));
        self.e(format!("setp.gt.{st} {q}, {i}, 0"));
        self.e(format!("selp.{b} {mx}, {i}, {mx}, {q}"));
        self.e(format!("shl.{b} {mx}, {mx}, 1"));
        self.e(format!("sub.s32 {ex}, {ex}, 1"));
        self.e(format!("bra {l_loop}"));
        let _ = writeln!(self.out, "{l_tail}:");
        self.e(format!("sub.{st} {i}, {mx}, {my}"));
        self.e(format!("setp.eq.{st} {q}, {i}, 0"));
        self.e(format!("@{q} bra {l_zero}"));
        self.e(format!("setp.gt.{st} {q}, {i}, 0"));
        self.e(format!("selp.{b} {mx}, {i}, {mx}, {q}"));
        // Normalise: the top bit back to the hidden bit.
        self.e(format!("clz.{b} {k}, {mx}"));
        self.e(format!("sub.s32 {k}, {k}, {}", w - 1 - mant));
        self.e(format!("shl.{b} {mx}, {mx}, {k}"));
        self.e(format!("sub.s32 {ex}, {ex}, {k}"));
        // Normal: replace the hidden bit by the exponent; subnormal: shift right by 1 - ex.
        self.e(format!("setp.gt.s32 {p}, {ex}, 0"));
        let (n, e64) = (self.reg(rc), self.reg(rc));
        if rc == Rc::Rd {
            self.e(format!("cvt.u64.u32 {e64}, {ex}"));
        } else {
            self.e(format!("mov.b32 {e64}, {ex}"));
        }
        self.e(format!("shl.{b} {e64}, {e64}, {mant}"));
        self.e(format!("and.{b} {n}, {mx}, {low}"));
        self.e(format!("or.{b} {n}, {n}, {e64}"));
        self.e(format!("sub.s32 {k}, 1, {ex}"));
        self.e(format!("min.s32 {k}, {k}, {w}"));
        self.e(format!("shr.{ut} {mx}, {mx}, {k}"));
        self.e(format!("selp.{b} {mx}, {n}, {mx}, {p}"));
        self.e(format!("or.{b} {mx}, {mx}, {sx}"));
        self.e(format!("mov.{b} {d}, {mx}"));
        self.e(format!("bra {l_end}"));
        let _ = writeln!(self.out, "{l_zero}:");
        self.e(format!("mov.{b} {d}, {sx}"));
        self.e(format!("bra {l_end}"));
        let _ = writeln!(self.out, "{l_nan}:");
        self.e(format!("mov.{t} {d}, {nan}"));
        let _ = writeln!(self.out, "{l_end}:");
        Ok(d)
    }

    fn atomic(&mut self, op: &str, a: &[Repr], name: &str) -> R<Repr> {
        let not_yet = |cx: &Self, why: &str| {
            err(
                format!("kernlint cannot compile `{name}` {why}yet"),
                cx.span,
            )
        };
        let Repr::A(arr) = a[0].clone() else {
            return not_yet(self, "");
        };
        let Some(s) = arr.dtype else {
            return not_yet(self, "on records ");
        };
        let idx = match &a[1] {
            Repr::T(items) => items.clone(),
            other => vec![other.clone()],
        };
        let sp = match arr.space {
            Space::Global => ".global",
            Space::Shared => ".shared",
            Space::Generic => "",
            // Numba's own PTX for this is a `trap`: PTX has no atomics on local memory.
            Space::Local => {
                return err(
                    format!("`cuda.{name}` on a local array: PTX has no atomics on local memory (Numba's compiled kernel traps here); a local array is private to its thread, so update it with plain code (`loc[i] += v`)"),
                    self.span,
                );
            }
            _ => return not_yet(self, "on constant arrays "),
        };
        let (t, b) = match s {
            Scalar::I32 => ("s32", "b32"),
            Scalar::U32 => ("u32", "b32"),
            Scalar::I64 => ("s64", "b64"),
            Scalar::U64 => ("u64", "b64"),
            Scalar::F32 => ("f32", "b32"),
            Scalar::F64 => ("f64", "b64"),
            _ => return not_yet(self, &format!("on {s} arrays ")),
        };
        let addr = self.address(&arr, &idx)?;
        let val = self.cast_repr(&a[2], s)?;
        let d = self.sreg(s)?;
        let float = s.is_float();
        match op {
            "add" | "sub" => {
                let v = if op == "sub" {
                    let n = self.sreg(s)?;
                    let nt = if float {
                        t
                    } else if b == "b64" {
                        "s64"
                    } else {
                        "s32"
                    };
                    self.e(format!("neg.{nt} {n}, {val}"));
                    n
                } else {
                    val
                };
                let at = if s == Scalar::I64 { "u64" } else { t };
                self.e(format!("atom{sp}.add.{at} {d}, [{addr}], {v}"));
            }
            // Integers have no NaN: Numba lowers nanmax/nanmin of them as max/min.
            "max" | "min" | "nanmax" | "nanmin" if !float => {
                let o = op.trim_start_matches("nan");
                self.e(format!("atom{sp}.{o}.{t} {d}, [{addr}], {val}"))
            }
            "max" | "min" | "nanmax" | "nanmin" if float => {
                let want_max = op.ends_with("max");
                let rc = if b == "b64" { Rc::Rd } else { Rc::R };
                let (old, new, prev) = (self.reg(rc), self.reg(rc), self.reg(rc));
                let (p, q) = (self.reg(Rc::P), self.reg(Rc::P));
                let l = self.label();
                self.e(format!("ld.volatile{sp}.{b} {old}, [{addr}]"));
                let _ = writeln!(self.out, "{l}:");
                self.e(format!("mov.{b} {d}, {old}"));
                let c = if want_max { "gt" } else { "lt" };
                self.e(format!("setp.{c}.{t} {p}, {val}, {d}"));
                if op.starts_with("nan") {
                    self.e(format!("testp.notanumber.{t} {q}, {d}"));
                    self.e(format!("or.pred {p}, {p}, {q}"));
                }
                self.e(format!("mov.{b} {new}, {val}"));
                self.e(format!("selp.{b} {new}, {new}, {old}, {p}"));
                self.e(format!("atom{sp}.cas.{b} {prev}, [{addr}], {old}, {new}"));
                self.e(format!("setp.ne.{b} {q}, {prev}, {old}"));
                self.e(format!("mov.{b} {old}, {prev}"));
                self.e(format!("@{q} bra {l}"));
            }
            "and_" | "or_" | "xor" if !float => {
                let o = op.trim_end_matches('_');
                self.e(format!("atom{sp}.{o}.{b} {d}, [{addr}], {val}"));
            }
            "exch" => self.e(format!("atom{sp}.exch.{b} {d}, [{addr}], {val}")),
            "inc" | "dec" if s == Scalar::U32 => {
                self.e(format!("atom{sp}.{op}.u32 {d}, [{addr}], {val}"))
            }
            "inc" | "dec" if s == Scalar::U64 => {
                // No 64-bit atom.inc/dec: Numba's compare-and-swap loop. inc stores
                // old < val ? old + 1 : 0; dec stores min(old - 1, val) unsigned, which is
                // val for old == 0 or old > val and old - 1 otherwise.
                let (old, new, prev) = (self.reg(Rc::Rd), self.reg(Rc::Rd), self.reg(Rc::Rd));
                let p = self.reg(Rc::P);
                let l = self.label();
                self.e(format!("ld.volatile{sp}.u64 {old}, [{addr}]"));
                let _ = writeln!(self.out, "{l}:");
                self.e(format!("mov.b64 {d}, {old}"));
                if op == "inc" {
                    self.e(format!("add.s64 {new}, {old}, 1"));
                    self.e(format!("setp.lt.u64 {p}, {old}, {val}"));
                    self.e(format!("selp.b64 {new}, {new}, 0, {p}"));
                } else {
                    self.e(format!("add.s64 {new}, {old}, -1"));
                    self.e(format!("min.u64 {new}, {new}, {val}"));
                }
                self.e(format!("atom{sp}.cas.b64 {prev}, [{addr}], {old}, {new}"));
                self.e(format!("setp.ne.b64 {p}, {prev}, {old}"));
                self.e(format!("mov.b64 {old}, {prev}"));
                self.e(format!("@{p} bra {l}"));
            }
            "cas" => {
                let new = self.cast_repr(&a[3], s)?;
                self.e(format!("atom{sp}.cas.{b} {d}, [{addr}], {val}, {new}"));
            }
            _ => return not_yet(self, &format!("on {s} arrays ")),
        }
        Ok(Repr::S(d, s))
    }

    fn call(&mut self, b: usize, i: usize, args: &[ValueId], rty: &Type) -> R<Repr> {
        let Some(&callee) = self.program.calls.get(&(self.fi, b as u32, i)) else {
            return err(
                "kernlint cannot find the device function this call calls",
                self.span,
            );
        };
        let name = self.names[callee].clone();
        // The callee takes its array parameters' elements as aligned (`assumed_alignment`).
        if let Some(v) = args.iter().find(|v| self.alignment(**v) < assumed_alignment(self.f.value_type(**v))) {
            return err(
                format!(
                    "kernlint cannot compile passing {} to `{}` yet: its items are not at aligned addresses (a field of a packed record) and the call is not inlined",
                    self.f.value_type(*v),
                    self.program.functions[callee].name
                ),
                self.span,
            );
        }
        let a = self.args(args)?;
        let mut decls = Vec::new();
        let mut stores = Vec::new();
        let mut k = 0;
        for r in &a {
            // Arrays travel as generic pointers.
            let r = self.generic(r)?;
            for (reg, rc) in components(&r) {
                let pn = format!("param{k}");
                k += 1;
                let pt = param_type(rc);
                decls.push(format!(".param .{pt} {pn}"));
                if rc == Rc::P {
                    let t = self.reg(Rc::R);
                    self.e(format!("selp.u32 {t}, 1, 0, {reg}"));
                    stores.push(format!("st.param.b32 [{pn}], {t}"));
                } else if reg.starts_with('%') {
                    stores.push(format!("st.param.{pt} [{pn}], {reg}"));
                } else {
                    let t = self.reg(rc);
                    self.e(format!("mov.{pt} {t}, {reg}"));
                    stores.push(format!("st.param.{pt} [{pn}], {t}"));
                }
            }
        }
        let result = self.fresh(rty, Space::Generic)?;
        let comps = components(&result);
        let _ = writeln!(self.out, "\t{{");
        for d in &decls {
            self.e(d);
        }
        if !matches!(self.f_ret_of(callee), Type::None) {
            let n = comps.len().max(1);
            self.e(format!(".param .align 8 .b8 retval0[{}]", 8 * n));
        }
        for s in &stores {
            self.e(s);
        }
        let plist = (0..k)
            .map(|j| format!("param{j}"))
            .collect::<Vec<_>>()
            .join(", ");
        if matches!(self.f_ret_of(callee), Type::None) {
            self.e(format!("call.uni {name}, ({plist})"));
        } else {
            self.e(format!("call.uni (retval0), {name}, ({plist})"));
        }
        for (j, (reg, rc)) in comps.iter().enumerate() {
            if *rc == Rc::P {
                let t = self.reg(Rc::R);
                self.e(format!("ld.param.b32 {t}, [retval0+{}]", 8 * j));
                self.e(format!("setp.ne.u32 {reg}, {t}, 0"));
            } else {
                self.e(format!(
                    "ld.param.{} {reg}, [retval0+{}]",
                    param_type(*rc),
                    8 * j
                ));
            }
        }
        let _ = writeln!(self.out, "\t}}");
        Ok(result)
    }

    /// The value with every array pointer converted to a generic address.
    fn generic(&mut self, r: &Repr) -> R<Repr> {
        Ok(match r {
            Repr::A(arr) => {
                let ptr = self.ptr_in(arr, Space::Generic)?;
                Repr::A(Arr {
                    ptr,
                    space: Space::Generic,
                    ..arr.clone()
                })
            }
            Repr::T(items) => Repr::T(items.iter().map(|i| self.generic(i)).collect::<R<_>>()?),
            other => other.clone(),
        })
    }

    fn f_ret_of(&self, callee: usize) -> &Type {
        &self.program.functions[callee].ret
    }
}

/// The float type an operation with result `rs` computes in, and its result type: float16
/// computes in float32 and rounds once at the end.
fn float_work(rs: Option<Scalar>) -> Option<(Scalar, Scalar)> {
    match rs? {
        s @ (Scalar::F32 | Scalar::F64) => Some((s, s)),
        Scalar::F16 => Some((Scalar::F32, Scalar::F16)),
        _ => None,
    }
}

fn a_scalar(r: &Repr) -> Scalar {
    match r {
        Repr::S(_, s) => *s,
        _ => Scalar::I64,
    }
}

fn param_type(rc: Rc) -> &'static str {
    match rc {
        Rc::P | Rc::R => "b32",
        Rc::Rd => "b64",
        Rc::F => "f32",
        Rc::Fd => "f64",
        Rc::H => "b16",
    }
}

/// The scalar registers of a tuple (or scalar) value, in order, with their types; arrays
/// have none.
fn flat_scalars(r: &Repr, out: &mut Vec<(String, Scalar)>) {
    match r {
        Repr::S(x, s) => out.push((x.clone(), *s)),
        Repr::T(items) => items.iter().for_each(|i| flat_scalars(i, out)),
        Repr::None | Repr::A(_) => {}
    }
}

/// The scalar components of a value, in order (arrays: pointer, extents, strides).
fn components(r: &Repr) -> Vec<(String, Rc)> {
    let mut out = Vec::new();
    fn go(r: &Repr, out: &mut Vec<(String, Rc)>) {
        match r {
            Repr::None => {}
            Repr::S(x, s) => out.push((x.clone(), rc_of(*s).unwrap_or(Rc::Rd))),
            Repr::A(a) => {
                out.push((a.ptr.clone(), Rc::Rd));
                for x in a.shape.iter().chain(&a.strides) {
                    out.push((x.clone(), Rc::Rd));
                }
            }
            Repr::T(items) => items.iter().for_each(|i| go(i, out)),
        }
    }
    go(r, &mut out);
    out
}
