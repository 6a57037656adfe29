//! Shared helpers of the fuzz targets: the input as a Python file, the GPU functions it
//! defines, the signatures to try for each, and generated launch arguments.

use std::hash::{Hash, Hasher};

use kernlint::analysis::host_types::launch_arg_types;
use kernlint::analysis::kernels::{FunctionKind, file_gpu_functions, for_each_body};
use kernlint::analysis::signature::Signature;
use kernlint::analysis::syntax::parse_module;
use kernlint::analysis::types::{Layout, Scalar, Type};
use kernlint::analysis::{RootDatabase, SourceFile};
use kernlint::launch::{Fill, HostArg, generate_array};
use ruff_python_ast::Stmt;
use ruff_text_size::{Ranged, TextRange};

/// Stack of the threads the CLI (rayon) and the server (tokio's blocking pool) analyse on:
/// the harness runs there too, so recursion that would overflow them is found.
pub const WORKER_STACK: usize = 2 * 1024 * 1024;

/// Run `f` on a thread with the workers' stack size. A panic there aborts the process
/// (libfuzzer-sys installs an aborting panic hook), which libFuzzer reports as a crash.
pub fn on_worker_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(WORKER_STACK)
            .spawn_scoped(s, f)
            .expect("spawn fuzz worker")
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e))
    })
}

/// The input as source text: UTF-8 as is, anything else with replacement characters (the
/// CLI refuses non-UTF-8 files, the server only ever receives strings).
pub fn source_text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

pub fn database(text: String) -> (RootDatabase, SourceFile) {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "fuzz.py".into(), text);
    (db, file)
}

/// A deterministic seed from the input, for choices the harness makes (types, sizes).
pub fn seed(data: &[u8]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    data.hash(&mut h);
    h.finish()
}

/// SplitMix64 over the seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// A GPU function of the input, with what the targets need to type and lower it.
pub struct Target {
    pub name: String,
    pub qualname: String,
    pub kind: FunctionKind,
    /// The `def` statement, file-relative.
    pub def_range: TextRange,
    pub params: usize,
    /// The decorator's signatures Numba can read.
    pub declared: Vec<Signature>,
}

impl Target {
    pub fn is_kernel(&self) -> bool {
        !self.kind.returns_values()
    }
}

fn count_params(stmts: &[Stmt], range: TextRange) -> Option<usize> {
    for stmt in stmts {
        if let Stmt::FunctionDef(def) = stmt
            && def.range() == range
        {
            return Some(def.parameters.iter().count());
        }
        let mut found = None;
        for_each_body(stmt, |body| {
            if found.is_none() {
                found = count_params(body, range);
            }
        });
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Every GPU function the discovery finds, at most `limit`.
pub fn targets(db: &RootDatabase, file: SourceFile, limit: usize) -> Vec<Target> {
    let module = parse_module(db, file);
    file_gpu_functions(db, file)
        .into_iter()
        .take(limit)
        .map(|(item, f)| {
            let def_range = f.def_range + item.start;
            Target {
                name: f.name.clone(),
                qualname: f.qualname.clone(),
                kind: f.spec.kind,
                def_range,
                params: count_params(&module.syntax().body, def_range).unwrap_or(0),
                declared: f
                    .spec
                    .signatures
                    .iter()
                    .filter_map(|s| s.as_ref().ok().cloned())
                    .collect(),
            }
        })
        .collect()
}

const SCALARS: &[Scalar] = &[
    Scalar::F32,
    Scalar::F64,
    Scalar::I32,
    Scalar::I64,
    Scalar::U32,
    Scalar::U8,
    Scalar::I16,
    Scalar::Bool,
    Scalar::F16,
    Scalar::U64,
];

/// A parameter type chosen by the rng: mostly arrays of 1 to 3 dimensions, some scalars.
pub fn random_type(rng: &mut Rng) -> Type {
    let scalar = *rng.pick(SCALARS);
    match rng.below(8) {
        0..=2 => Type::array(Type::Scalar(scalar), 1, *rng.pick(&[Layout::C, Layout::A])),
        3 => Type::array(
            Type::Scalar(scalar),
            2,
            *rng.pick(&[Layout::C, Layout::F, Layout::A]),
        ),
        4 => Type::array(Type::Scalar(scalar), 3, Layout::C),
        _ => Type::Scalar(scalar),
    }
}

/// The signatures to try for a function, at most `limit`: its declared ones, the argument
/// types of its launches in the file, then ones derived from the input (all float32[::1],
/// all int64, a random mix).
pub fn signatures(
    db: &RootDatabase,
    file: SourceFile,
    target: &Target,
    rng: &mut Rng,
    limit: usize,
) -> Vec<Signature> {
    let mut out: Vec<Signature> = target.declared.clone();
    if let Some(sites) = launch_arg_types(db, file).get(&target.name) {
        out.extend(sites.iter().map(|args| Signature {
            ret: None,
            args: args.clone(),
        }));
    }
    let n = target.params;
    let fixed = |t: Type| Signature {
        ret: None,
        args: vec![t; n],
    };
    out.push(fixed(Type::array(Type::Scalar(Scalar::F32), 1, Layout::C)));
    out.push(fixed(Type::Scalar(Scalar::I64)));
    out.push(Signature {
        ret: None,
        args: (0..n).map(|_| random_type(rng)).collect(),
    });
    out.dedup();
    out.truncate(limit);
    out
}

/// Small generated arguments for a kernel's parameters (arrays of at most 64 elements a
/// dimension, 512 in all); `None` for parameter types the launcher does not take.
pub fn launch_args(params: &[Type], rng: &mut Rng) -> Option<Vec<HostArg>> {
    params
        .iter()
        .map(|ty| match ty {
            Type::Array {
                dtype,
                ndim,
                layout,
                ..
            } => {
                let scalar = dtype.as_scalar()?;
                let mut shape: Vec<usize> = (0..*ndim).map(|_| 1 + rng.below(8) as usize).collect();
                if let Some(first) = shape.first_mut() {
                    *first = 1 + rng.below(64) as usize;
                }
                while shape.iter().product::<usize>() > 512 {
                    let big = shape.iter_mut().max().unwrap();
                    *big = (*big / 2).max(1);
                }
                let fill = *rng.pick(&[
                    Fill::Zeros,
                    Fill::Ones,
                    Fill::Arange,
                    Fill::Rand,
                    Fill::Randint,
                ]);
                let mut array = generate_array(scalar, shape, fill);
                array.fortran_order = *layout == Layout::F && array.shape.len() > 1;
                Some(HostArg::Array(array))
            }
            Type::Scalar(s) => Some(HostArg::Scalar(
                match s {
                    Scalar::Bool => *rng.pick(&["true", "false"]),
                    s if s.is_float() => *rng.pick(&["0.5", "3.0", "-1.25", "0"]),
                    s if s.is_signed() => *rng.pick(&["0", "1", "7", "-3", "64"]),
                    _ => *rng.pick(&["0", "1", "7", "64"]),
                }
                .to_string(),
            )),
            _ => None,
        })
        .collect()
}

/// With `KERNLINT_FUZZ_TRACE` set, print what the harness is about to do (to find which
/// function and signature of a crashing input is the culprit).
pub fn trace(what: impl FnOnce() -> String) {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *ON.get_or_init(|| std::env::var_os("KERNLINT_FUZZ_TRACE").is_some()) {
        eprintln!("[fuzz] {}", what());
    }
}
