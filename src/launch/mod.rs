//! Kernel launches: the simulator (interpreting the typed IR) and the GPU launcher ([`gpu`]).
//! Both sit behind one interface: a program, a launch configuration and arguments in,
//! final array contents and findings out.

pub mod gpu;
pub mod npy;
pub mod recipe;
pub mod sim;

use std::collections::HashMap;

use ruff_text_size::TextRange;

use crate::analysis::ir::{CLOSURE, LowerError, Op, PRELUDE, flatten_complex, lower_closure, lower_function};
use crate::analysis::kernels::ItemScope;
use crate::analysis::scope::module_scope;
use crate::analysis::signature::Signature;
use std::sync::Arc;

use crate::analysis::ir::MemorySpace;
use crate::analysis::message::Message;
use crate::analysis::types::{Layout, Scalar, Type};
use crate::analysis::host_arrays::ModuleArray;
use crate::analysis::typing::{find_gpu_function, resolve_device_function};
use crate::analysis::{Db, SourceFile};

pub use gpu::{GpuTiming, gpu_available, run_on_gpu};
pub use sim::{Finding, FindingKind, Launch, Program};

/// Why a kernel cannot be prepared for a launch, with a file-relative location when known;
/// the lines `message` names are the file's too.
#[derive(Clone, Debug)]
pub struct PrepareError {
    pub message: Message,
    pub range: Option<TextRange>,
}

impl PrepareError {
    fn at(message: impl Into<Message>, range: TextRange) -> Self {
        Self { message: message.into(), range: Some(range) }
    }
}

/// Lower a kernel and every device function it calls (per argument types), and evaluate
/// the module arrays it captures.
pub fn build_program(db: &dyn Db, file: SourceFile, name: &str, signature: &Signature) -> Result<Program, PrepareError> {
    let (item_start, function) = find_gpu_function(db, file, name)
        .ok_or_else(|| PrepareError { message: format!("no kernel or device function `{name}`").into(), range: None })?;
    let is_kernel = !function.spec.kind.returns_values();
    let lower = |range: TextRange, args: &[Type], kernel: bool| {
        lower_function(db, file, range, args, kernel).map_err(|e| PrepareError::at(e.message, e.range))
    };
    let mut functions = vec![lower(function.def_range + item_start, &signature.args, is_kernel)?];
    // The file each function comes from: its calls and globals resolve there.
    let mut homes = vec![file];
    let mut placed_at = vec![None];
    let mut index: HashMap<(String, Vec<Type>), usize> = HashMap::new();
    let mut calls = rustc_hash::FxHashMap::default();
    let mut globals = HashMap::new();
    let mut next = 0;
    while next < functions.len() {
        let here = homes[next];
        // Where this function's code is in the kernel's file.
        let located = |span: TextRange| placed_at[next].unwrap_or(span);
        let mut pending = Vec::new();
        for (b, block) in functions[next].blocks.iter().enumerate() {
            for (i, inst) in block.insts.iter().enumerate() {
                match &inst.op {
                    Op::Call { callee, args } => {
                        let types: Vec<Type> = args.iter().map(|a| functions[next].value_type(*a).clone()).collect();
                        pending.push(((next, b as u32, i), callee.clone(), types, located(inst.span)));
                    }
                    Op::GlobalArray(g) if !globals.contains_key(g) => {
                        // An imported module's array is named by its path there (`cfg.TABLE`).
                        let (home, name) = match crate::analysis::typing::imported_array(db, here, g) {
                            Some((home, name, _)) if g.contains('.') => (home, name),
                            _ => (here, g.clone()),
                        };
                        let value = module_array(db, home, &name)
                            .ok_or_else(|| format!("kernlint cannot evaluate the module array `{g}`"))
                            .and_then(|r| r)
                            .map_err(|message| PrepareError::at(message, located(inst.span)))?;
                        globals.insert(g.clone(), value);
                    }
                    _ => {}
                }
            }
        }
        for (site, callee, types, span) in pending {
            // A closure is named by its range in its own file.
            let key = match callee.starts_with(CLOSURE) {
                true => (format!("{callee} {:?}", here), types.clone()),
                false => (callee.clone(), types.clone()),
            };
            let target = match index.get(&key) {
                Some(t) => *t,
                None => {
                    // A closure: the `def` at the range the callee names, in the caller's file.
                    if let Some(range) = callee.strip_prefix(CLOSURE) {
                        let range = range
                            .split_once(':')
                            .and_then(|(a, b)| Some(TextRange::new(a.parse::<u32>().ok()?.into(), b.parse::<u32>().ok()?.into())))
                            .ok_or_else(|| PrepareError::at(format!("bad closure callee `{callee}`"), span))?;
                        let lowered = lower_closure(db, here, range, &types).map_err(|e| lowering_error(db, file, here, e, span))?;
                        functions.push(lowered);
                        homes.push(here);
                        placed_at.push((here != file).then_some(span));
                        index.insert(key, functions.len() - 1);
                        calls.insert(site, functions.len() - 1);
                        continue;
                    }
                    let not_found = || PrepareError::at(format!("`{callee}` is not a device function kernlint can find"), span);
                    let scope = ItemScope::new(module_scope(db, here), &[]);
                    // The prelude's functions (complex division and power, `cmath`).
                    let (home, name) = match callee.strip_prefix(PRELUDE) {
                        Some(name) => (db.prelude(), name.to_string()),
                        None => resolve_device_function(db, here, &scope, &callee).ok_or_else(not_found)?,
                    };
                    let (start, f) = find_gpu_function(db, home, &name).ok_or_else(not_found)?;
                    let lowered = lower_function(db, home, f.def_range + start, &types, false)
                        .map_err(|e| lowering_error(db, file, home, e, span))?;
                    functions.push(lowered);
                    homes.push(home);
                    placed_at.push((home != file).then_some(span));
                    index.insert(key, functions.len() - 1);
                    functions.len() - 1
                }
            };
            calls.insert(site, target);
        }
        next += 1;
    }
    // Every call is resolved with its arguments' Numba types: now complex numbers become
    // the pairs of floats the backends compute with.
    for f in &mut functions {
        flatten_complex(f);
    }
    Ok(Program { functions, calls, globals, as_lowered: true, placed_at })
}

/// Why a function of `home` called at `call` (in `file`) could not be lowered: where it
/// failed when `home` is `file`, else at the call, the lines it names then named with the
/// module they are in.
fn lowering_error(db: &dyn Db, file: SourceFile, home: SourceFile, e: LowerError, call: TextRange) -> PrepareError {
    if home == file {
        return PrepareError::at(e.message, e.range);
    }
    let lines = crate::analysis::syntax::line_index(db, home);
    let path = home.path(db).display().to_string();
    PrepareError::at(e.message.render(|at| format!("line {} of {path}", lines.line_of(at) + 1)), call)
}

pub use crate::analysis::host_arrays::MAX_MODULE_ARRAY_ELEMENTS;

/// A module-level NumPy array as the kernel captures it (see `analysis::host_arrays`):
/// `None` when the module binds no array of that name, an error when kernlint cannot
/// evaluate it or it is too large to.
fn module_array(db: &dyn Db, file: SourceFile, name: &str) -> Option<Result<ModuleArray, String>> {
    let array = match crate::analysis::host_arrays::module_arrays(db, file).get(name)? {
        Ok(a) => a,
        Err(why) => return Some(Err(crate::analysis::scope::module_scope(db, file).unevaluated_value(name, "", why))),
    };
    Some(array.to_module_array().ok_or_else(|| {
        format!(
            "the module array `{name}` has {} elements, more than {MAX_MODULE_ARRAY_ELEMENTS} elements: far more than the 64 KiB of constant memory a kernel can capture",
            array.len()
        )
    }))
}

/// A kernel argument as the host gives it.
#[derive(Clone, Debug)]
pub enum HostArg {
    Array(npy::NpyArray),
    /// An array whose contents are undefined (`empty:`, `cuda.device_array`, `np.empty`):
    /// its data is zeros, and the simulator reports reads of elements no thread has written.
    Uninitialised(npy::NpyArray),
    /// A literal: an integer, a float, a complex number (`1+2j`) or true/false.
    Scalar(String),
}

impl HostArg {
    /// A generated array: uninitialised for [`Fill::Empty`].
    pub fn generated(array: npy::NpyArray, fill: Fill) -> Self {
        match fill {
            Fill::Empty => HostArg::Uninitialised(array),
            _ => HostArg::Array(array),
        }
    }

    /// A generator shorthand (see [`parse_generator`]) as an argument; `None` when `spec`
    /// is not written that way.
    pub fn parse_generator(spec: &str) -> Option<Result<Self, String>> {
        let fill = generator_parts(spec).and_then(|(kind, _, _)| Fill::parse(kind));
        let array = parse_generator(spec)?;
        Some(array.map(|a| match fill {
            Some(fill) => Self::generated(a, fill),
            None => HostArg::Array(a),
        }))
    }
}

/// A complex literal as Python writes one (`repr(complex)` and what `complex(str)`
/// accepts): `1+2j`, `(1-2j)`, `-0.5j`, `2`, `(nan+infj)`, `1e-3-4.5E+2J`.
pub fn parse_complex(text: &str) -> Option<(f64, f64)> {
    let t = text.trim();
    let t = t.strip_prefix('(').and_then(|t| t.strip_suffix(')')).unwrap_or(t).trim();
    let float = |x: &str| -> Option<f64> {
        match x {
            "" | "+" => Some(1.0),
            "-" => Some(-1.0),
            x if x.starts_with(['+', '-']) && x[1..].starts_with(['+', '-']) => None,
            x => x.parse::<f64>().ok(),
        }
    };
    let Some(body) = t.strip_suffix(['j', 'J']) else {
        return Some((t.parse::<f64>().ok()?, 0.0));
    };
    // The imaginary part starts at the last sign that is not the first character and does
    // not follow an exponent's `e`.
    let bytes = body.as_bytes();
    let split = (1..bytes.len()).rev().find(|&i| matches!(bytes[i], b'+' | b'-') && !matches!(bytes[i - 1], b'e' | b'E'));
    match split {
        Some(i) => {
            let real = &body[..i];
            if real.is_empty() || real == "+" || real == "-" {
                return None;
            }
            Some((real.parse::<f64>().ok()?, float(&body[i..])?))
        }
        None => Some((0.0, float(body)?)),
    }
}

/// The type Numba's dispatcher gives a `kernlint run` argument when it compiles a kernel for
/// the arguments it is called with (`numba.typeof`): an array generator or an `.npy` file
/// its array type (C layout, F for a Fortran-order file of 2 or more dimensions), an integer
/// int64 (uint64 beyond int64), a float float64, a complex number complex128, `True`/`False`
/// boolean, a tuple its tuple type.
pub fn argument_type(spec: &str) -> Result<Type, String> {
    if let Some((_, dtype, shape)) = generator_parts(spec) {
        let scalar = generator_scalar(dtype).ok_or_else(|| format!("`{spec}`: unknown dtype `{dtype}`"))?;
        let ndim = shape.split(',').count();
        return Ok(Type::array(scalar.into(), ndim as u8, Layout::C));
    }
    if spec.ends_with(".npy") {
        let array = npy::NpyArray::read(std::path::Path::new(spec))?;
        let scalar = array.scalar().ok_or_else(|| format!("`{spec}` holds the structured dtype {}: give the kernel's types with --sig", array.descr))?;
        let layout = if array.fortran_order && array.shape.len() > 1 { Layout::F } else { Layout::C };
        return match u8::try_from(array.shape.len()) {
            Ok(ndim @ 1..=32) => Ok(Type::array(scalar.into(), ndim, layout)),
            _ => Err(format!("`{spec}` is a {}-dimensional array: give the kernel's types with --sig", array.shape.len())),
        };
    }
    if let Some(items) = tuple_items(spec) {
        return Ok(Type::tuple(items.into_iter().map(argument_type).collect::<Result<_, _>>()?));
    }
    let scalar = match spec.trim() {
        "True" | "False" | "true" | "false" => Scalar::Bool,
        t if t.parse::<i64>().is_ok() => Scalar::I64,
        t if t.parse::<u64>().is_ok() => Scalar::U64,
        t if t.parse::<f64>().is_ok() => Scalar::F64,
        t if parse_complex(t).is_some() => Scalar::C128,
        _ => return Err(format!("`{spec}` is not an .npy file, an array generator (zeros:float32[1024]) or a literal")),
    };
    Ok(scalar.into())
}

/// A scalar or tuple argument, written as Python writes it (`3`, `0.5`, `1+2j`, `(1, 2, 3)`,
/// `(4, (0.5, True))`), as the value the IR computes with for a parameter declared `declared`.
fn host_value(text: &str, declared: &Type, name: &str) -> Result<sim::V, String> {
    let items: Vec<&Type> = match declared {
        Type::Scalar(s) => return scalar_arg(text, *s, name),
        Type::UniTuple(item, n) => vec![&**item; *n],
        Type::Tuple(items) => items.iter().collect(),
        other => return Err(format!("argument `{name}`: parameters of type {other} are not supported yet")),
    };
    let texts = tuple_items(text)
        .ok_or_else(|| format!("argument `{name}`: `{text}` is not a tuple; write it as Python does, e.g. `(1, 2)` or `(3,)`"))?;
    if texts.len() != items.len() {
        return Err(format!("argument `{name}`: the signature wants a tuple of {} items ({declared}); `{text}` has {}", items.len(), texts.len()));
    }
    let values = texts.iter().zip(items).map(|(t, ty)| host_value(t, ty, name)).collect::<Result<Vec<_>, _>>()?;
    Ok(sim::V::Tup(values.into()))
}

/// The items of a tuple literal (`(1, 2)`, `(3,)`, `()`, `((1, 2), (3+1j))`), split at its
/// top-level commas; `None` when `text` is not one (`(3)` is a parenthesised 3).
fn tuple_items(text: &str) -> Option<Vec<&str>> {
    let inner = text.trim().strip_prefix('(')?.strip_suffix(')')?;
    if inner.trim().is_empty() {
        return Some(Vec::new());
    }
    let mut items = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.checked_sub(1)?,
            ',' if depth == 0 => {
                items.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = inner[start..].trim();
    match last.is_empty() {
        // `(3,)`: a trailing comma; `(,)` and `(1,,)` are not Python.
        true if items.is_empty() || items.iter().any(|i| i.is_empty()) => None,
        true => Some(items),
        false if items.is_empty() => None,
        false => {
            items.push(last);
            (!items.iter().any(|i| i.is_empty())).then_some(items)
        }
    }
}

fn scalar_arg(text: &str, s: Scalar, name: &str) -> Result<sim::V, String> {
    use sim::V;
    let bad = || format!("argument `{name}`: `{text}` is not a valid {s}");
    Ok(match s {
        // The pair the IR computes a complex number as, each part rounded to the type's.
        Scalar::C64 | Scalar::C128 => {
            let (re, im) = parse_complex(text).ok_or_else(bad)?;
            let part = if s == Scalar::C64 { Scalar::F32 } else { Scalar::F64 };
            V::Tup(vec![sim::convert(&V::F64(re), part), sim::convert(&V::F64(im), part)].into())
        }
        Scalar::Bool => match text {
            "true" | "True" | "1" => V::Bool(true),
            "false" | "False" | "0" => V::Bool(false),
            _ => return Err(bad()),
        },
        s if s.is_float() => sim::convert(&V::F64(text.parse::<f64>().map_err(|_| bad())?), s),
        s if s.is_int() => {
            let v = text.parse::<i64>().or_else(|_| text.parse::<u64>().map(|u| u as i64)).map_err(|_| bad())?;
            sim::convert(&V::Int(v), s)
        }
        _ => return Err(format!("argument `{name}`: {s} scalars are not supported")),
    })
}

/// Whether an array argument fits its parameter: dtype, item size, dimensions, layout and
/// data length. Gives the item size.
pub(crate) fn check_array(name: &str, dtype: &Type, ndim: u8, layout: Layout, array: &npy::NpyArray) -> Result<usize, String> {
    let itemsize = match dtype {
        Type::Scalar(s) => {
            if array.scalar() != Some(*s) {
                return Err(format!(
                    "argument `{name}`: the signature wants {s} but the array holds {}",
                    array.scalar().map_or_else(|| array.descr.clone(), |a| a.to_string())
                ));
            }
            s.itemsize() as usize
        }
        Type::Record(r) => r.size as usize,
        other => return Err(format!("argument `{name}`: arrays of {other} are not supported")),
    };
    if array.itemsize != itemsize {
        return Err(format!(
            "argument `{name}`: items of {} bytes, the signature wants {itemsize}",
            array.itemsize
        ));
    }
    if array.shape.len() != ndim as usize {
        return Err(format!(
            "argument `{name}`: the signature wants a {ndim}-d array, the array is {}-d (shape {:?})",
            array.shape.len(),
            array.shape
        ));
    }
    let layout_ok = array.shape.len() <= 1
        || match layout {
            Layout::C => !array.fortran_order,
            Layout::F => array.fortran_order,
            Layout::A => true,
        };
    if !layout_ok {
        return Err(format!(
            "argument `{name}`: the signature wants layout {layout}, the array is not"
        ));
    }
    if array.data.len() != array.len() * itemsize {
        return Err(format!(
            "argument `{name}`: {} bytes of data for {} items of {itemsize} bytes",
            array.data.len(),
            array.len()
        ));
    }
    Ok(itemsize)
}

/// Check the arguments against the kernel's parameters, run the launch on the simulator,
/// and return each array argument's final contents (in parameter order; `None` for
/// scalars) with the findings.
pub fn simulate(program: &Program, launch: &Launch, args: &[HostArg]) -> Result<(Vec<Option<npy::NpyArray>>, sim::Outcome), String> {
    check_launch(program, launch)?;
    let params = &program.functions[0].params;
    if args.len() != params.len() {
        return Err(format!("the kernel takes {} arguments, {} given", params.len(), args.len()));
    }
    let mut buffers = Vec::new();
    let mut values = Vec::new();
    let mut headers = Vec::new();
    for (param, arg) in params.iter().zip(args) {
        match (&param.ty, arg) {
            (Type::Array { .. }, HostArg::Scalar(text)) => {
                return Err(format!("argument `{}`: expected an array, got `{text}`", param.name));
            }
            // A scalar or a tuple (a complex scalar is a pair of floats).
            (_, HostArg::Scalar(text)) => {
                values.push(host_value(text, &param.declared, &param.name)?);
                headers.push(None);
            }
            (Type::Array { dtype, ndim, layout, .. }, HostArg::Array(array) | HostArg::Uninitialised(array)) => {
                let itemsize = check_array(&param.name, dtype, *ndim, *layout, array)?;
                if array.data.len() > MAX_ARRAY_BYTES {
                    return Err(format!(
                        "argument `{}`: {} bytes, more than the {} MiB the simulator takes per array",
                        param.name,
                        array.data.len(),
                        MAX_ARRAY_BYTES >> 20
                    ));
                }
                let mut buffer = sim::Buffer::new(array.data.clone(), MemorySpace::Global, param.name.clone());
                let layout = sim::HostLayout { shape: array.shape.clone(), itemsize, fortran_order: array.fortran_order };
                if let HostArg::Uninitialised(_) = arg {
                    buffer.uninitialised = Some(layout.clone());
                }
                buffer.layout = Some(layout);
                if let Type::Record(record) = &**dtype {
                    buffer.record = Some(record.clone());
                }
                buffers.push(buffer);
                let shape = array.shape.iter().map(|&d| d as i64).collect();
                let view = sim::ArrayRef::contiguous(buffers.len() - 1, shape, itemsize as i64, dtype.as_scalar(), array.fortran_order);
                values.push(sim::V::Arr(Arc::new(view)));
                headers.push(Some((buffers.len() - 1, array.clone())));
            }
            (ty, _) => return Err(format!("argument `{}`: parameters of type {ty} are not supported yet", param.name)),
        }
    }
    let (finals, mut outcome) = sim::run(program, buffers, values, launch);
    outcome.unwritten = headers.iter().map(|h| h.as_ref().and_then(|(buffer, _)| finals[*buffer].unwritten_elements())).collect();
    let arrays = headers
        .into_iter()
        .map(|h| h.map(|(buffer, header)| npy::NpyArray { data: finals[buffer].data.clone(), ..header }))
        .collect();
    Ok((arrays, outcome))
}

/// The most threads one simulated launch may have. Each runs interpreted; beyond this a
/// launch would run for hours (CUDA allows 2^31 - 1 blocks in x: refused with a message,
/// never attempted).
pub const MAX_SIM_THREADS: u64 = 1 << 24;

/// The most threads of a launch that uses grid sync, all of which the simulator keeps live
/// at once (a GPU also runs only as many blocks as fit on it at the same time).
pub const MAX_COOPERATIVE_THREADS: u64 = 1 << 18;

/// The largest array the simulator generates or takes (per array).
pub const MAX_ARRAY_BYTES: usize = 256 << 20;

/// Whether the simulator can run `launch`: the limits CUDA sets on a launch, and its own.
pub fn check_launch(program: &Program, launch: &Launch) -> Result<(), String> {
    let [gx, gy, gz] = launch.grid;
    let [bx, by, bz] = launch.block;
    if launch.grid.contains(&0) || launch.block.contains(&0) {
        return Err(format!("grid {:?}, block {:?}: every dimension must be at least 1", launch.grid, launch.block));
    }
    if gx > i32::MAX as u32 || gy > 65_535 || gz > 65_535 {
        return Err(format!("grid {:?}: CUDA allows at most 2147483647 blocks in x and 65535 in y and z", launch.grid));
    }
    let per_block = bx as u64 * by as u64 * bz as u64;
    if per_block > 1024 || bz > 64 {
        return Err(format!("block {:?}: a block may have at most 1024 threads (z at most 64)", launch.block));
    }
    if launch.shared_mem > 48 * 1024 {
        return Err(format!("{} bytes of dynamic shared memory: more than the 48 KiB a block may have by default", launch.shared_mem));
    }
    let threads = gx as u64 * gy as u64 * gz as u64 * per_block;
    if threads > MAX_SIM_THREADS {
        return Err(format!(
            "grid {:?} x block {:?} is {threads} threads: the simulator runs at most {MAX_SIM_THREADS} (each thread is interpreted); use a smaller grid",
            launch.grid, launch.block
        ));
    }
    let cooperative = program.functions.iter().any(|f| {
        f.instructions().any(|(_, i)| matches!(&i.op, Op::Intrinsic { name, .. } if name == "cg.grid_sync"))
    });
    if cooperative && threads > MAX_COOPERATIVE_THREADS {
        return Err(format!(
            "grid {:?} x block {:?} is {threads} threads in a launch with grid sync: the simulator runs at most {MAX_COOPERATIVE_THREADS} such threads at once",
            launch.grid, launch.block
        ));
    }
    Ok(())
}

/// How to fill a generated input array.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fill {
    Zeros,
    Ones,
    /// 0, 1, 2, ...
    Arange,
    /// Uniform in [0, 1), reproducible (SplitMix64).
    Rand,
    /// Integers in 0..256, reproducible.
    Randint,
    Constant(f64),
    /// Undefined contents (`np.empty`, `cuda.device_array`): zeros in the data, and reads
    /// of elements no thread wrote are findings (see [`HostArg::Uninitialised`]).
    Empty,
}

impl Fill {
    pub fn parse(kind: &str) -> Option<Self> {
        Some(match kind {
            "zeros" => Fill::Zeros,
            "ones" => Fill::Ones,
            "arange" => Fill::Arange,
            "rand" | "random" => Fill::Rand,
            "randint" => Fill::Randint,
            "empty" => Fill::Empty,
            _ => return None,
        })
    }
}

/// A generated input array, unless it would be larger than [`MAX_ARRAY_BYTES`] (an error
/// that says so, before anything is allocated).
pub fn try_generate_array(scalar: Scalar, shape: Vec<usize>, fill: Fill) -> Result<npy::NpyArray, String> {
    let bytes = shape.iter().try_fold(scalar.itemsize() as usize, |acc, &d| acc.checked_mul(d));
    match bytes {
        Some(b) if b <= MAX_ARRAY_BYTES => Ok(generate_array(scalar, shape, fill)),
        _ => Err(format!(
            "an array of shape {shape:?} of {scalar} is {}: more than the {} MiB kernlint generates",
            bytes.map_or_else(|| "too many bytes to count".to_string(), |b| format!("{b} bytes")),
            MAX_ARRAY_BYTES >> 20
        )),
    }
}

/// A generated input array (of any size: see [`try_generate_array`] for input from users).
pub fn generate_array(scalar: Scalar, shape: Vec<usize>, fill: Fill) -> npy::NpyArray {
    let n: usize = shape.iter().product();
    let size = scalar.itemsize() as usize;
    let mut data = vec![0u8; n * size];
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for i in 0..n {
        let v = match fill {
            Fill::Zeros | Fill::Empty => sim::V::Int(0),
            Fill::Ones => sim::V::Int(1),
            Fill::Arange => sim::V::Int(i as i64),
            // Both parts of a complex number random.
            Fill::Rand if scalar.is_complex() => {
                let mut unit = || sim::V::F64((next() >> 11) as f64 / (1u64 << 53) as f64);
                sim::V::Tup(vec![unit(), unit()].into())
            }
            Fill::Rand => sim::V::F64((next() >> 11) as f64 / (1u64 << 53) as f64),
            Fill::Randint => sim::V::Int((next() % 256) as i64),
            Fill::Constant(c) => sim::V::F64(c),
        };
        sim::write_value(&mut data[i * size..], scalar, &v);
    }
    npy::NpyArray::new(scalar, shape, data)
}

/// What a result panel shows of an array: min, max, mean (numeric dtypes), the first
/// values and a checksum of the bytes.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ArraySummary {
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub mean: Option<f64>,
    pub head: Vec<f64>,
    pub checksum: u64,
}

impl ArraySummary {
    pub fn of(a: &npy::NpyArray) -> Self {
        let checksum = a.data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ *b as u64).wrapping_mul(0x100_0000_01b3));
        let Some(values) = array_values(a) else {
            return Self { min: None, max: None, mean: None, head: Vec::new(), checksum };
        };
        let nonempty = !values.is_empty();
        Self {
            min: nonempty.then(|| values.iter().copied().fold(f64::INFINITY, f64::min)),
            max: nonempty.then(|| values.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
            mean: nonempty.then(|| values.iter().sum::<f64>() / values.len() as f64),
            head: values.iter().take(10).copied().collect(),
            checksum,
        }
    }
}

/// A generator shorthand `kind:dtype[d0,d1]` (zeros, ones, arange, rand, randint, empty) as
/// an array (`empty` as zeros: [`HostArg::parse_generator`] keeps it uninitialised); `None`
/// when `spec` is not written that way.
pub fn parse_generator(spec: &str) -> Option<Result<npy::NpyArray, String>> {
    let (kind, dtype, shape) = generator_parts(spec)?;
    let Some(scalar) = generator_scalar(dtype) else {
        // A generator's name with a misspelt dtype is no file name either.
        return Fill::parse(kind).map(|_| Err(format!("`{spec}`: unknown dtype `{dtype}` (float32, float64, int32, uint8, complex64, ...)")));
    };
    let shape: Result<Vec<usize>, String> = shape
        .split(',')
        .map(|d| d.trim().parse::<usize>().map_err(|_| format!("`{spec}`: bad extent `{d}`")))
        .collect();
    Some(shape.and_then(|shape| {
        let fill = Fill::parse(kind)
            .ok_or_else(|| format!("`{spec}`: unknown generator `{kind}` (zeros, ones, arange, rand, randint, empty)"))?;
        try_generate_array(scalar, shape, fill).map_err(|e| format!("`{spec}`: {e}"))
    }))
}

/// A generator shorthand's parts, unchecked: `rand:float32[4,8]` -> (`rand`, `float32`, `4,8`).
pub fn generator_parts(spec: &str) -> Option<(&str, &str, &str)> {
    let (kind, rest) = spec.split_once(':')?;
    let (dtype, shape) = rest.split_once('[')?;
    Some((kind, dtype, shape.trim_end_matches(']')))
}

/// The element type a generator's dtype names (Numba's or NumPy's spelling).
pub fn generator_scalar(dtype: &str) -> Option<Scalar> {
    Scalar::from_name(dtype).or_else(|| Scalar::from_numpy_name(dtype))
}

/// An array's elements as numbers, in memory order (`None` for records; complex numbers
/// by their magnitude).
pub fn array_values(a: &npy::NpyArray) -> Option<Vec<f64>> {
    let s = a.scalar()?;
    let size = s.itemsize() as usize;
    fn number(v: &sim::V, s: Scalar) -> f64 {
        match v {
            sim::V::Int(v) if s == Scalar::U64 => *v as u64 as f64,
            sim::V::Int(v) => *v as f64,
            sim::V::F32(x) | sim::V::F16(x) => *x as f64,
            sim::V::F64(x) => *x,
            sim::V::Bool(b) => *b as i64 as f64,
            sim::V::Tup(parts) if parts.len() == 2 => number(&parts[0], s).hypot(number(&parts[1], s)),
            _ => 0.0,
        }
    }
    Some((0..a.len()).map(|i| number(&sim::read_value(&a.data[i * size..], s), s)).collect())
}

/// A 2-D array as an image for a result panel: at most `max_side` pixels a side, each
/// pixel the mean of the elements it covers (so a peak in a large array still shows),
/// row-major whatever the array's memory order. `None` for other ranks, empty arrays and
/// records.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct HeatMap {
    pub rows: usize,
    pub cols: usize,
    pub values: Vec<f64>,
}

impl HeatMap {
    pub fn of(a: &npy::NpyArray, max_side: usize) -> Option<Self> {
        let [rows, cols] = a.shape[..] else { return None };
        if rows == 0 || cols == 0 || max_side == 0 {
            return None;
        }
        let values = array_values(a)?;
        let at = |r: usize, c: usize| if a.fortran_order { values[c * rows + r] } else { values[r * cols + c] };
        let (out_rows, out_cols) = (rows.min(max_side), cols.min(max_side));
        // Output pixel k covers source rows [k * rows / out_rows, (k + 1) * rows / out_rows).
        let span = |k: usize, n: usize, out: usize| (k * n / out)..((k + 1) * n / out);
        let mut pixels = Vec::with_capacity(out_rows * out_cols);
        for pr in 0..out_rows {
            for pc in 0..out_cols {
                let (mut sum, mut count) = (0.0, 0usize);
                for r in span(pr, rows, out_rows) {
                    for c in span(pc, cols, out_cols) {
                        sum += at(r, c);
                        count += 1;
                    }
                }
                pixels.push(sum / count as f64);
            }
        }
        Some(Self { rows: out_rows, cols: out_cols, values: pixels })
    }
}

#[cfg(test)]
mod tuple_tests {
    use super::tuple_items;

    #[test]
    fn tuple_literals_split_at_their_top_level_commas() {
        assert_eq!(tuple_items("(1, 2, 3)"), Some(vec!["1", "2", "3"]));
        assert_eq!(tuple_items(" (3,) "), Some(vec!["3"]));
        assert_eq!(tuple_items("()"), Some(vec![]));
        assert_eq!(tuple_items("((1, 2), (3+1j), ())"), Some(vec!["(1, 2)", "(3+1j)", "()"]));
        for not_a_tuple in ["3", "(3)", "(,)", "(1,,2)", "(1, 2", "1, 2)", "((1, 2)", "(1))"] {
            assert_eq!(tuple_items(not_a_tuple), None, "{not_a_tuple}");
        }
    }
}

#[cfg(test)]
mod heat_map_tests {
    use super::*;

    #[test]
    fn small_arrays_keep_every_element_row_major() {
        let a = generate_array(Scalar::F32, vec![2, 3], Fill::Arange);
        let h = HeatMap::of(&a, 256).unwrap();
        assert_eq!((h.rows, h.cols), (2, 3));
        assert_eq!(h.values, vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
        let mut f = a.clone();
        f.fortran_order = true; // the same bytes read column-major: [[0, 2, 4], [1, 3, 5]]
        assert_eq!(HeatMap::of(&f, 256).unwrap().values, vec![0.0, 2.0, 4.0, 1.0, 3.0, 5.0]);
    }

    #[test]
    fn large_arrays_are_averaged_down_to_the_limit() {
        // 600 x 1000: rows fold by 600/256 (2 or 3 rows per pixel), columns by 1000/256.
        let a = generate_array(Scalar::F64, vec![600, 1000], Fill::Arange);
        let h = HeatMap::of(&a, 256).unwrap();
        assert_eq!((h.rows, h.cols), (256, 256));
        assert_eq!(h.values.len(), 256 * 256);
        // The first pixel averages rows 0..2 and columns 0..3: (0+1+2 + 1000+1001+1002) / 6.
        assert_eq!(h.values[0], (0.0 + 1.0 + 2.0 + 1000.0 + 1001.0 + 1002.0) / 6.0);
        // Means are monotone along a row of an arange, and the last pixel reaches the end.
        assert!(h.values.windows(2).take(255).all(|w| w[0] < w[1]));
        let last = *h.values.last().unwrap();
        assert!(last > 598_000.0 && last < 600_000.0, "{last}");
        // A single hot element is still visible after averaging.
        let mut spike = generate_array(Scalar::F32, vec![1024, 1024], Fill::Zeros);
        sim::write_value(&mut spike.data[(500 * 1024 + 700) * 4..], Scalar::F32, &sim::V::F32(1.0));
        let h = HeatMap::of(&spike, 256).unwrap();
        assert_eq!(h.values.iter().filter(|v| **v > 0.0).count(), 1);
        assert_eq!(h.values[125 * 256 + 175], 1.0 / 16.0);
    }

    #[test]
    fn other_ranks_and_empty_arrays_have_none() {
        assert!(HeatMap::of(&generate_array(Scalar::F32, vec![16], Fill::Zeros), 256).is_none());
        assert!(HeatMap::of(&generate_array(Scalar::F32, vec![0, 4], Fill::Zeros), 256).is_none());
        assert!(HeatMap::of(&generate_array(Scalar::F32, vec![2, 2, 2], Fill::Zeros), 256).is_none());
    }
}
