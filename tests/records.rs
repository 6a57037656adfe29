//! Records (structured dtypes) as values: `r = p[i]` is a reference into the array (writes
//! through it land there), records passed to device functions and as kernel parameters,
//! whole-record stores (`p[0] = p[3]`), local and shared record arrays. Expected values from
//! Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1) where it runs the kernel, by hand from
//! Numba's PTX otherwise (its simulator cannot store a whole record, nor read a field of a
//! local or shared record array); each kernel's PTX assembles (`kernel_runs::run`).

#[path = "support/ptxas.rs"]
mod ptxas;
#[path = "support/kernel_runs.rs"]
mod kernel_runs;

use kernlint::analysis::db::{RootDatabase, SourceFile};
use kernlint::analysis::typing::type_function;
use kernlint::launch::HostArg;
use kernlint::launch::npy::NpyArray;

const SOURCE: &str = "import numpy as np
from numba import cuda

particle = np.dtype([(\"x\", np.float32), (\"y\", np.float32), (\"id\", np.int32)])

@cuda.jit(device=True)
def push(r, d):
    r.x += d
    r[\"y\"] = r.y * 2

@cuda.jit
def values(p, out):
    i = cuda.grid(1)
    if i < p.shape[0]:
        r = p[i]
        r.id = r.id + 10
        push(r, 0.5)
        out[i] = r.x + r[\"y\"] + r.id

@cuda.jit
def copy(p):
    p[0] = p[3]

@cuda.jit
def scalar(r, out):
    out[0] = r.x + r.y
    out[1] = r.id

@cuda.jit
def local_and_shared(p, out):
    i = cuda.grid(1)
    loc = cuda.local.array(2, dtype=particle)
    sh = cuda.shared.array(4, particle)
    loc[0].x = p[i].x
    loc[1] = p[i]
    sh[i].y = loc[0].x + loc[1].y
    cuda.syncthreads()
    out[i] = sh[3 - i].y
";

const PARTICLE: &str = "Record(x[type=float32;offset=0],y[type=float32;offset=4],id[type=int32;offset=8];12;False)";

/// `np.zeros(shape, particle)` with x = k * 0.5, y = k + 1, id = 3k for the k-th record.
fn particles(shape: Vec<usize>) -> HostArg {
    let n: usize = shape.iter().product();
    let skip = if shape.is_empty() { 2 } else { 0 };
    let data = (skip..skip + n)
        .flat_map(|k| [(k as f32 * 0.5).to_le_bytes(), (k as f32 + 1.0).to_le_bytes(), (3 * k as i32).to_le_bytes()].concat())
        .collect();
    HostArg::Array(NpyArray { descr: "[('x', '<f4'), ('y', '<f4'), ('id', '<i4')]".into(), itemsize: 12, shape, fortran_order: false, data })
}

fn fields(a: &Option<NpyArray>) -> Vec<(f32, f32, i32)> {
    let f = |b: &[u8]| [b[0], b[1], b[2], b[3]];
    a.as_ref().unwrap().data.chunks(12).map(|r| (f32::from_le_bytes(f(&r[0..])), f32::from_le_bytes(f(&r[4..])), i32::from_le_bytes(f(&r[8..])))).collect()
}

#[test]
fn a_record_value_is_a_reference_into_its_array() {
    let sig = format!("void({PARTICLE}[::1], float32[::1])");
    let out = kernel_runs::run(SOURCE, "values", &sig, 4, &[particles(vec![4]), kernel_runs::f32s(&[0.0; 4])]);
    assert_eq!(fields(&out[0]), [(0.5, 2.0, 10), (1.0, 4.0, 13), (1.5, 6.0, 16), (2.0, 8.0, 19)]);
    assert_eq!(kernel_runs::read_f32s(&out[1]), [12.5, 18.0, 23.5, 29.0]);
}

#[test]
fn storing_a_record_copies_it() {
    let out = kernel_runs::run(SOURCE, "copy", &format!("void({PARTICLE}[::1])"), 1, &[particles(vec![4])]);
    assert_eq!(fields(&out[0]), [(1.5, 4.0, 9), (0.5, 2.0, 3), (1.0, 3.0, 6), (1.5, 4.0, 9)]);
}

/// A record kernel parameter (`scalar[1, 1](p[2], out)`: Numba passes a pointer to a copy of
/// the record) is given as a 0-d structured array.
#[test]
fn record_kernel_parameters() {
    let out = kernel_runs::run(SOURCE, "scalar", &format!("void({PARTICLE}, float32[::1])"), 1, &[particles(Vec::new()), kernel_runs::f32s(&[0.0; 2])]);
    assert_eq!(kernel_runs::read_f32s(&out[1]), [4.0, 6.0]);
}

#[test]
fn local_and_shared_record_arrays() {
    let sig = format!("void({PARTICLE}[::1], float32[::1])");
    let out = kernel_runs::run(SOURCE, "local_and_shared", &sig, 4, &[particles(vec![4]), kernel_runs::f32s(&[0.0; 4])]);
    assert_eq!(kernel_runs::read_f32s(&out[1]), [5.5, 4.0, 2.5, 1.0]);
}

/// Numba's types (compile_cuda typemaps).
#[test]
fn record_values_type_as_numba() {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "t.py".into(), SOURCE.to_string());
    let array = format!("unaligned array({PARTICLE}, 1d, C)");
    let k = type_function(&db, file, "values", Some(&format!("void({PARTICLE}[::1], float32[::1])"))).unwrap();
    assert_eq!(k.variables["r"].iter().collect::<Vec<_>>(), [PARTICLE]);
    let k = type_function(&db, file, "local_and_shared", Some(&format!("void({PARTICLE}[::1], float32[::1])"))).unwrap();
    for var in ["loc", "sh"] {
        assert_eq!(k.variables[var].iter().collect::<Vec<_>>(), [array.as_str()], "{var}");
    }
    let k = type_function(&db, file, "scalar", Some(&format!("void({PARTICLE}, float32[::1])"))).unwrap();
    assert_eq!(k.variables["r"].iter().collect::<Vec<_>>(), [PARTICLE]);
}

/// A record launch argument (`k[1, 1](p[2], out)`, a `numpy.void`) is typed as Numba's
/// `typeof` types it, the array's `Record`, for a launch-derived signature; an index that does
/// not select one record (a field name) gives no record.
#[test]
fn record_launch_arguments_type_as_numba_typeof() {
    let source = format!(
        "{SOURCE}
def main():
    p = np.zeros(4, particle)
    grid = np.zeros((2, 3), dtype=particle)
    out = np.zeros(2, np.float32)
    scalar[1, 1](p[2], out)
    scalar[1, 1](grid[1, -1], out)
    copy[1, 1](p[\"x\"])
"
    );
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "t.py".into(), source);
    let functions = kernlint::analysis::kernels::file_gpu_functions(&db, file);
    let signature = |name: &str| {
        let f = functions.iter().map(|(_, f)| *f).find(|f| f.name == name).unwrap();
        kernlint::analysis::host_types::default_signature(&db, file, f).map(|s| s.args.iter().map(ToString::to_string).collect::<Vec<_>>())
    };
    assert_eq!(signature("scalar").unwrap(), [PARTICLE, "array(float32, 1d, C)"]);
    let launches = kernlint::analysis::host_types::launch_arg_types(&db, file);
    assert_eq!(launches["scalar"].len(), 1, "both launches pass a record: one signature");
    assert!(signature("copy").is_err());
}

const UNMODELLED: &str = "import numpy as np
from numba import cuda

body = np.dtype([(\"pos\", np.float32, 3), (\"m\", np.float32)])
particle = np.dtype([(\"x\", np.float32), (\"id\", np.int32)])

@cuda.jit
def centre(p, out):
    i = cuda.grid(1)
    if i < p.shape[0]:
        out[i] = p[i].pos[1] + p[i].m

@cuda.jit
def local_bodies(out):
    b = cuda.local.array(2, body)
    out[0] = b[0].m

@cuda.jit
def dynamic(p):
    buf = cuda.shared.array(0, particle)
    buf[0].x = p[0].x

def main():
    centre[1, 32](np.zeros(4, body), np.zeros(4, np.float32))
";

/// Array fields and nested records (which Numba compiles) and dynamic shared record arrays
/// are errors that name the construct.
#[test]
fn what_is_not_modelled_is_an_error_at_the_construct() {
    use kernlint::analysis::signature::parse_signature_str;
    use kernlint::launch::build_program;
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "t.py".into(), UNMODELLED.to_string());
    let functions = kernlint::analysis::kernels::file_gpu_functions(&db, file);
    let centre = functions.iter().map(|(_, f)| *f).find(|f| f.name == "centre").unwrap();
    let message = kernlint::analysis::host_types::default_signature(&db, file, centre).unwrap_err();
    assert!(message.contains("the structured dtype `body` has the field `(\"pos\", np.float32, 3)` on line 4"), "{message}");
    let e = type_function(&db, file, "local_bodies", Some("void(float32[::1])")).unwrap_err();
    assert!(e.message.starts_with("kernlint does not model the structured dtype `body` yet"), "{}", e.message);
    assert_eq!(&UNMODELLED[e.file_range()], "body");
    let sig = parse_signature_str("void(Record(x[type=float32;offset=0],id[type=int32;offset=4];8;False)[::1])").unwrap();
    let e = build_program(&db, file, "dynamic", &sig).err().unwrap();
    assert!(e.message.contains("a dynamic shared array of records"), "{}", e.message);
    let span = e.range.unwrap();
    assert_eq!(&UNMODELLED[span.start().to_usize()..span.end().to_usize()], "cuda.shared.array(0, particle)");
}
