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
use kernlint::analysis::signature::parse_signature_str;
use kernlint::launch::build_program;
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

const ARRAY_FIELDS: &str = "import numpy as np
from numba import cuda

body = np.dtype([(\"pos\", np.float32, 3), (\"id\", np.int32), (\"m\", np.int16, (2, 3))])
padded = np.dtype([(\"a\", np.int8), (\"pos\", np.float64, 2)], align=True)

@cuda.jit
def array_fields(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        r = a[i]
        p = r.f0
        out[i] = r.f0[1] + a[i][\"f0\"][2] + r.f2[1, 2] + p[0] * r.f1
        a[i].f0[0] = out[i]
        a[i][\"f2\"][0, 1] = r.f1 + 3
        r.f0[2] += 1.5
        for k in range(p.shape[0]):
            r.f2[1, k] -= k

@cuda.jit
def local_bodies(out):
    b = cuda.local.array(2, body)
    b[1].m[1, 2] = 7
    out[0] = b[1].m[1, 2] + b[1].id

@cuda.jit
def whole_fields(a, out):
    a[0].f0 = a[1].f0
    a[2][\"f2\"] = a[3].f2
    a[3].f0[:] = 7.5
    v = a.f0
    out[0] = v[1, 2] + a[\"f0\"][3, 0]
    v[1, 0] = 9

@cuda.jit
def bad_whole_field(a, out):
    a[0].f0 = out
";

/// `np.dtype(\"3f4,i4,(2,3)i4\")`, as Numba prints it.
const TRIPLE: &str = "Record(f0[type=nestedarray(float32, (3,));offset=0],f1[type=int32;offset=12],f2[type=nestedarray(int32, (2, 3));offset=16];40;False)";

/// Array fields (Numba's `NestedArray`) read and written through `a[i].f`, `a[i]['f']` and a
/// record value; values from Numba's CUDA simulator.
#[test]
fn array_fields_of_records_run_as_numba() {
    let data: Vec<u8> = (0..4i32)
        .flat_map(|k| {
            let pos = (0..3).flat_map(move |j| ((3 * k + j) as f32 * 0.5).to_le_bytes());
            let m = (0..6).flat_map(move |j| (6 * k + j).to_le_bytes());
            pos.chain((3 * k - 1).to_le_bytes()).chain(m)
        })
        .collect();
    let a = HostArg::Array(NpyArray { descr: "[('f0', '<f4', (3,)), ('f1', '<i4'), ('f2', '<i4', (2, 3))]".into(), itemsize: 40, shape: vec![4], fortran_order: false, data });
    let sig = format!("void({TRIPLE}[::1], float32[::1])");
    let out = kernel_runs::run(ARRAY_FIELDS, "array_fields", &sig, 4, &[a, kernel_runs::f32s(&[0.0; 4])]);
    assert_eq!(kernel_runs::read_f32s(&out[1]), [6.5, 18.5, 39.5, 69.5]);
    let records: Vec<Vec<[u8; 4]>> = kernel_runs::words::<4>(out[0].as_ref().unwrap()).chunks(10).map(<[_]>::to_vec).collect();
    let f = |w: &[[u8; 4]]| w.iter().map(|b| f32::from_le_bytes(*b)).collect::<Vec<_>>();
    let i = |w: &[[u8; 4]]| w.iter().map(|b| i32::from_le_bytes(*b)).collect::<Vec<_>>();
    let expected = [
        ([6.5, 0.5, 2.5], -1, [0, 2, 2, 3, 3, 3]),
        ([18.5, 2.0, 4.0], 2, [6, 5, 8, 9, 9, 9]),
        ([39.5, 3.5, 5.5], 5, [12, 8, 14, 15, 15, 15]),
        ([69.5, 5.0, 7.0], 8, [18, 11, 20, 21, 21, 21]),
    ];
    for (r, (pos, id, m)) in records.iter().zip(expected) {
        assert_eq!((f(&r[0..3]), i(&r[3..4])[0], i(&r[4..10])), (pos.to_vec(), id, m.to_vec()));
    }
    let sig = parse_signature_str("void(float32[::1])").unwrap();
    let (db, file) = kernel_runs::database(ARRAY_FIELDS);
    let program = build_program(&db, file, "local_bodies", &sig).unwrap();
    kernel_runs::assemble(&program, "local_bodies", false);
}

/// A whole array field: stored from the same field of a record (numba-cuda's `record_setattr`
/// copies its bytes), filled through `[:]`, and viewed over the whole record array (`a.f0`:
/// the record array's axes, then the field's). Values from Numba's CUDA simulator; each PTX
/// assembles.
#[test]
fn whole_array_fields_run_as_numba() {
    let data: Vec<u8> = (0..4i32)
        .flat_map(|k| {
            let pos = (0..3).flat_map(move |j| ((3 * k + j) as f32).to_le_bytes());
            pos.chain(k.to_le_bytes()).chain((0..6).flat_map(move |j| (10 * k + j).to_le_bytes()))
        })
        .collect();
    let a = HostArg::Array(NpyArray { descr: "[('f0', '<f4', (3,)), ('f1', '<i4'), ('f2', '<i4', (2, 3))]".into(), itemsize: 40, shape: vec![4], fortran_order: false, data });
    let out = kernel_runs::run(ARRAY_FIELDS, "whole_fields", &format!("void({TRIPLE}[::1], float32[::1])"), 1, &[a, kernel_runs::f32s(&[0.0])]);
    assert_eq!(kernel_runs::read_f32s(&out[1]), [12.5]);
    let words = kernel_runs::words::<4>(out[0].as_ref().unwrap());
    let f = |r: usize| words[10 * r..10 * r + 3].iter().map(|b| f32::from_le_bytes(*b)).collect::<Vec<_>>();
    let m = |r: usize| words[10 * r + 4..10 * r + 10].iter().map(|b| i32::from_le_bytes(*b)).collect::<Vec<_>>();
    assert_eq!([f(0), f(1), f(2), f(3)], [[3.0, 4.0, 5.0], [9.0, 4.0, 5.0], [6.0, 7.0, 8.0], [7.5, 7.5, 7.5]]);
    assert_eq!(m(2), [30, 31, 32, 33, 34, 35]);
    // Numba's typemap: the view over the whole array (Numba prints it `unaligned`, which
    // kernlint's array types do not carry).
    let (db, file) = kernel_runs::database(ARRAY_FIELDS);
    let k = type_function(&db, file, "whole_fields", Some(&format!("void({TRIPLE}[::1], float32[::1])"))).unwrap();
    assert_eq!(k.variables["v"].iter().collect::<Vec<_>>(), ["array(float32, 2d, A)"]);
}

/// Numba's layout (NumPy's offsets, packed and aligned) and types of records with array
/// fields (compile_cuda typemaps): an array field value is Numba's `nestedarray(T, (n, ...))`,
/// through a name bound to one too.
#[test]
fn array_fields_type_as_numba() {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "t.py".into(), ARRAY_FIELDS.to_string());
    let dtypes = &kernlint::analysis::host_types::module_dtypes(&db, file).records;
    assert_eq!(
        dtypes["body"].to_string(),
        "Record(pos[type=nestedarray(float32, (3,));offset=0],id[type=int32;offset=12],m[type=nestedarray(int16, (2, 3));offset=16];28;False)"
    );
    assert_eq!(dtypes["padded"].to_string(), "Record(a[type=int8;offset=0],pos[type=nestedarray(float64, (2,));offset=8];24;True)");
    let k = type_function(&db, file, "array_fields", Some(&format!("void({TRIPLE}[::1], float32[::1])"))).unwrap();
    assert_eq!(k.variables["r"].iter().collect::<Vec<_>>(), [TRIPLE]);
    assert_eq!(k.variables["a"].iter().collect::<Vec<_>>(), [format!("unaligned array({TRIPLE}, 1d, C)").as_str()]);
    assert_eq!(k.variables["p"].iter().collect::<Vec<_>>(), ["nestedarray(float32, (3,))"]);
    // Numba refuses an array field off its elements' alignment, as a scalar field.
    let packed = "Record(a[type=int8;offset=0],f0[type=nestedarray(float32, (2,));offset=1];9;False)";
    let e = type_function(&db, file, "array_fields", Some(&format!("void({packed}[::1], float32[::1])"))).unwrap_err();
    assert!(e.message.contains(&format!("{packed}.f0 of type float32 is not aligned")), "{}", e.message);
}

const UNMODELLED: &str = "import numpy as np
from numba import cuda

N = 2
body = np.dtype([(\"pos\", np.float32, N), (\"m\", np.float32)])
particle = np.dtype([(\"x\", np.float32), (\"id\", np.int32)])

@cuda.jit
def centre(p, out):
    i = cuda.grid(1)
    if i < p.shape[0]:
        out[i] = p[i].pos.x + p[i].m

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

/// Array fields of a shape that is not a literal and dynamic shared record arrays are
/// errors that name the construct; so is a whole array field stored from anything but the same field of a record,
/// which Numba's lowering refuses (an AssertionError).
#[test]
fn what_is_not_modelled_is_an_error_at_the_construct() {
    let (db, file) = kernel_runs::database(ARRAY_FIELDS);
    let e = type_function(&db, file, "bad_whole_field", Some(&format!("void({TRIPLE}[::1], float32[::1])"))).unwrap_err();
    assert!(e.message.contains("Numba cannot store array(float32, 1d, C) into the array field nestedarray(float32, (3,))"), "{}", e.message);
    assert_eq!(&ARRAY_FIELDS[e.file_range()], "a[0].f0");
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "t.py".into(), UNMODELLED.to_string());
    let functions = kernlint::analysis::kernels::file_gpu_functions(&db, file);
    let centre = functions.iter().map(|(_, f)| *f).find(|f| f.name == "centre").unwrap();
    let message = kernlint::analysis::host_types::default_signature(&db, file, centre).unwrap_err().to_string();
    assert!(message.contains("the structured dtype `body` has the field `(\"pos\", np.float32, N)` on line 5"), "{message}");
    let e = type_function(&db, file, "local_bodies", Some("void(float32[::1])")).unwrap_err();
    assert!(e.message.starts_with("kernlint does not model the structured dtype `body` yet"), "{}", e.message);
    assert_eq!(&UNMODELLED[e.file_range()], "body");
    let sig = parse_signature_str("void(Record(x[type=float32;offset=0],id[type=int32;offset=4];8;False)[::1])").unwrap();
    let e = build_program(&db, file, "dynamic", &sig).err().unwrap();
    assert!(e.message.to_string().contains("a dynamic shared array of records"), "{}", e.message);
    let span = e.range.unwrap();
    assert_eq!(&UNMODELLED[span.start().to_usize()..span.end().to_usize()], "cuda.shared.array(0, particle)");
}

const NESTED: &str = "import numpy as np
from numba import cuda

inner = np.dtype([(\"x\", np.float32), (\"y\", np.int32)])
outer = np.dtype([(\"inner\", inner), (\"w\", np.float32), (\"v\", np.float32, 2)])

@cuda.jit
def nested(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        r = a[i].inner
        x = a[i].inner.x
        r.x += 1
        a[i][\"inner\"][\"y\"] = a[i][\"inner\"][\"y\"] * 2
        rr = a[i]
        out[i] = x + r.y + rr.w + rr.inner[0] + a[i].v[1]

@cuda.jit
def copies(a):
    a[0].inner = a[1].inner
    a[2][\"inner\"] = a[3][\"inner\"]

@cuda.jit
def views(a, out):
    v = a.inner
    out[0] = v[1].x + a[\"inner\"].x[2]

@cuda.jit
def bad_copy(a):
    a[0].inner = a[1]
";

const INNER: &str = "Record(x[type=float32;offset=0],y[type=int32;offset=4];8;False)";

/// `outer` as Numba prints it.
fn outer() -> String {
    format!("Record(inner[type={INNER};offset=0],w[type=float32;offset=8],v[type=nestedarray(float32, (2,));offset=12];20;False)")
}

/// `outer` records k = 0..4: inner = (k / 2, k + 10), w = 100 k, v = (2k, 2k + 1), as NumPy
/// writes them (`np.save`).
fn outers() -> HostArg {
    let data = (0..4)
        .flat_map(|k| {
            let mut r = (k as f32 * 0.5).to_le_bytes().to_vec();
            r.extend((k + 10i32).to_le_bytes());
            r.extend((100.0 * k as f32).to_le_bytes());
            r.extend((2.0 * k as f32).to_le_bytes());
            r.extend((2.0 * k as f32 + 1.0).to_le_bytes());
            r
        })
        .collect();
    let descr = "[('inner', [('x', '<f4'), ('y', '<i4')]), ('w', '<f4'), ('v', '<f4', (2,))]".into();
    let array = NpyArray { descr, itemsize: 20, shape: vec![4], fortran_order: false, data };
    HostArg::Array(NpyArray::parse(&array.to_bytes()).unwrap())
}

/// The `inner` of each `outer` record: (x, y).
fn inners(a: &Option<NpyArray>) -> Vec<(f32, i32)> {
    let w = kernel_runs::words::<4>(a.as_ref().unwrap());
    w.chunks(5).map(|r| (f32::from_le_bytes(r[0]), i32::from_le_bytes(r[1]))).collect()
}

/// Records nested in records: `a[i].inner` is a reference to the inner record's bytes, its
/// fields read and written through it, `a[i]['inner']['y']`, `a.inner` over the whole array.
/// Values from Numba's CUDA simulator, but the whole-record stores (`a[0].inner = ...`, which
/// its simulator cannot run), from numba-cuda's `record_setattr` (a copy of the bytes). Each
/// PTX assembles. (Fields of one size: the sanitizer reports a false race between fields of
/// different sizes of neighbouring records.)
#[test]
fn nested_records_run_as_numba() {
    let sig = format!("void({}[::1], float32[::1])", outer());
    let out = kernel_runs::run(NESTED, "nested", &sig, 4, &[outers(), kernel_runs::f32s(&[0.0; 4])]);
    assert_eq!(kernel_runs::read_f32s(&out[1]), [22.0, 127.0, 232.0, 337.0]);
    assert_eq!(inners(&out[0]), [(1.0, 20), (1.5, 22), (2.0, 24), (2.5, 26)]);
    let out = kernel_runs::run(NESTED, "copies", &format!("void({}[::1])", outer()), 1, &[outers()]);
    assert_eq!(inners(&out[0]), [(0.5, 11), (0.5, 11), (1.5, 13), (1.5, 13)]);
    let out = kernel_runs::run(NESTED, "views", &sig, 1, &[outers(), kernel_runs::f32s(&[0.0])]);
    assert_eq!(kernel_runs::read_f32s(&out[1]), [1.5]);
}

/// Numba's types of nested records (compile_cuda typemaps), NumPy's layout of them (packed,
/// and aligned to the inner record's strictest field), and Numba's refusal of a store of
/// another record into a nested one.
#[test]
fn nested_records_type_as_numba() {
    let (db, file) = kernel_runs::database(NESTED);
    let dtypes = &kernlint::analysis::host_types::module_dtypes(&db, file).records;
    assert_eq!(dtypes["outer"].to_string(), outer());
    let sig = format!("void({}[::1], float32[::1])", outer());
    let k = type_function(&db, file, "nested", Some(&sig)).unwrap();
    assert_eq!(k.variables["r"].iter().collect::<Vec<_>>(), [INNER]);
    assert_eq!(k.variables["x"].iter().collect::<Vec<_>>(), ["float32"]);
    let k = type_function(&db, file, "views", Some(&sig)).unwrap();
    assert_eq!(k.variables["v"].iter().collect::<Vec<_>>(), [format!("unaligned array({INNER}, 1d, A)").as_str()]);
    let e = type_function(&db, file, "bad_copy", Some(&format!("void({}[::1])", outer()))).unwrap_err();
    assert!(e.message.contains(&format!("Numba cannot store {} into the record field of type {INNER}", outer())), "{}", e.message);
    let aligned = "import numpy as np
inner = np.dtype([(\"x\", np.float64), (\"y\", np.int8)], align=True)
packed = np.dtype([(\"x\", np.float64), (\"y\", np.int8)])
a = np.dtype([(\"a\", np.int8), (\"inner\", inner)], align=True)
b = np.dtype([(\"a\", np.int8), (\"inner\", packed)], align=True)
";
    let (db, file) = kernel_runs::database(aligned);
    let dtypes = &kernlint::analysis::host_types::module_dtypes(&db, file).records;
    let inner = "Record(x[type=float64;offset=0],y[type=int8;offset=8];16;True)";
    assert_eq!(dtypes["a"].to_string(), format!("Record(a[type=int8;offset=0],inner[type={inner};offset=8];24;True)"));
    let packed = "Record(x[type=float64;offset=0],y[type=int8;offset=8];9;False)";
    assert_eq!(dtypes["b"].to_string(), format!("Record(a[type=int8;offset=0],inner[type={packed};offset=1];10;True)"));
}

const PACKED: &str = "import numpy as np
from numba import cuda

packed = np.dtype([(\"x\", np.float64), (\"c\", np.complex64), (\"h\", np.float16), (\"n\", np.int16), (\"k\", np.int32), (\"a\", np.uint8)])
mixed = np.dtype([(\"x\", np.float64), (\"y\", np.int32), (\"z\", np.float32)])
outer = np.dtype([(\"a\", np.int8), (\"inner\", mixed)], align=True)

@cuda.jit
def fields(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        r = a[i]
        out[i] = r.x + r.c.real + r.c.imag + r.h + r.n + r.k + r.a
        r.x = r.x * 2
        r.c = r.c * 1j
        r.h = r.h + 1
        r.n = -r.n - 3
        r.k = r.k * -5
        r.a = r.a + 1

@cuda.jit
def staged(a, out):
    i = cuda.grid(1)
    sh = cuda.shared.array(4, packed)
    loc = cuda.local.array(3, packed)
    sh[i] = a[i]
    j = i % 3
    loc[j].x = a[i].x + 1
    loc[j].n = a[i].n
    cuda.syncthreads()
    out[i] = sh[3 - i].x + sh[3 - i].k + loc[j].x + loc[j].n

@cuda.jit
def nested(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        r = a[i].inner
        out[i] = r.x + r.y + r.z
        r.x = r.x + 0.25
        r.y = -r.y
        r.z = r.z * 4
";

/// `packed` (25 bytes: every other record's fields are off their alignment) and `outer` (17
/// bytes, its packed 16-byte `inner` at offset 1), as Numba prints them.
const PACKED_RECORD: &str = "Record(x[type=float64;offset=0],c[type=complex64;offset=8],h[type=float16;offset=16],n[type=int16;offset=18],k[type=int32;offset=20],a[type=uint8;offset=24];25;False)";
const OUTER_PACKED: &str = "Record(a[type=int8;offset=0],inner[type=Record(x[type=float64;offset=0],y[type=int32;offset=8],z[type=float32;offset=12];16;False);offset=1];17;True)";

/// One `packed` record: x, (c.real, c.imag), h as float16 bits, n, k, a.
type Packed = (f64, (f32, f32), u16, i16, i32, u8);

/// `packed` records, as NumPy lays them out.
fn packed_records(rows: &[Packed]) -> HostArg {
    let data = rows
        .iter()
        .flat_map(|&(x, (re, im), h, n, k, a)| [&x.to_le_bytes()[..], &re.to_le_bytes(), &im.to_le_bytes(), &h.to_le_bytes(), &n.to_le_bytes(), &k.to_le_bytes(), &[a]].concat())
        .collect();
    let descr = "[('x', '<f8'), ('c', '<c8'), ('h', '<f2'), ('n', '<i2'), ('k', '<i4'), ('a', '|u1')]".into();
    HostArg::Array(NpyArray { descr, itemsize: 25, shape: vec![rows.len()], fortran_order: false, data })
}

/// `outer` records (a, (inner.x, inner.y, inner.z)).
fn outer_records(rows: &[(i8, (f64, i32, f32))]) -> HostArg {
    let data = rows.iter().flat_map(|&(a, (x, y, z))| [&a.to_le_bytes()[..], &x.to_le_bytes(), &y.to_le_bytes(), &z.to_le_bytes()].concat()).collect();
    let descr = "[('a', '|i1'), ('inner', [('x', '<f8'), ('y', '<i4'), ('z', '<f4')])]".into();
    HostArg::Array(NpyArray { descr, itemsize: 17, shape: vec![rows.len()], fortran_order: false, data })
}

fn data(arg: &HostArg) -> &[u8] {
    match arg {
        HostArg::Array(a) => &a.data,
        _ => unreachable!(),
    }
}

/// Fields of packed records at addresses off their alignment (every other record of 25
/// bytes; a record nested at offset 1), in global, shared and local memory: the simulator
/// gives Numba's CUDA simulator's values (`staged`, whose shared and local record arrays
/// Numba's simulator cannot run, by hand), and the PTX reads and writes them a byte at a
/// time as Numba's does (`compile_ptx`: 50 byte loads and 25 byte stores in `fields`,
/// where an aligned field would fault on odd records) and assembles. Where a GPU is, it
/// computes what the simulator does.
#[test]
fn packed_fields_off_their_alignment_run_as_numba() {
    let sig = format!("void({PACKED_RECORD}[::1], float64[::1])");
    let rows: Vec<_> = (0..4).map(|k| (k as f64 * 1.5 + 0.125, (k as f32, -k as f32 - 0.5), [0x3800, 0x3E00, 0x4100, 0x4300][k as usize], -300 * (k as i16 + 1), -70000 * (k + 1) + 3, 250 + k as u8)).collect();
    let args = [packed_records(&rows), kernel_runs::f64s(&[0.0; 4])];
    let out = kernel_runs::run(PACKED, "fields", &sig, 4, &args);
    assert_eq!(kernel_runs::read_f64s(&out[1]), [-70046.875, -140343.375, -210639.875, -280936.375]);
    let after: Vec<_> = (0..4).map(|k| (k as f64 * 3.0 + 0.25, (k as f32 + 0.5, k as f32), [0x3E00, 0x4100, 0x4300, 0x4480][k as usize], 300 * (k as i16 + 1) - 3, 350000 * (k + 1) - 15, 251 + k as u8)).collect();
    assert_eq!(out[0].as_ref().unwrap().data, data(&packed_records(&after)));
    let out = kernel_runs::run(PACKED, "staged", &sig, 4, &args);
    assert_eq!(kernel_runs::read_f64s(&out[1]), [-280291.25, -210591.25, -140891.25, -71191.25]);

    let outer_sig = format!("void({OUTER_PACKED}[::1], float64[::1])");
    let rows: Vec<_> = (0..4).map(|k| (k as i8, (k as f64 * 2.5 - 1.0, -5 * k - 1, k as f32 + 0.75))).collect();
    let out = kernel_runs::run(PACKED, "nested", &outer_sig, 4, &[outer_records(&rows), kernel_runs::f64s(&[0.0; 4])]);
    assert_eq!(kernel_runs::read_f64s(&out[1]), [-1.25, -2.75, -4.25, -5.75]);
    let after: Vec<_> = (0..4).map(|k| (k as i8, (k as f64 * 2.5 - 0.75, 5 * k + 1, 4.0 * (k as f32 + 0.75)))).collect();
    assert_eq!(out[0].as_ref().unwrap().data, data(&outer_records(&after)));

    let (db, file) = kernel_runs::database(PACKED);
    let program = build_program(&db, file, "fields", &parse_signature_str(&sig).unwrap()).unwrap();
    let ptx = kernlint::compile::compile_ptx(&program, "sm_90", &Default::default()).unwrap();
    let count = |op: &str| ptx.lines().filter(|l| l.trim_start().starts_with(op)).count();
    assert_eq!((count("ld.global.u8 ") + count("ld.global.s8 "), count("st.global.u8 ")), (50, 25));
    assert_eq!((count("ld.global.f64"), count("st.global.f64")), (0, 1), "{ptx}");
    if kernlint::launch::gpu::gpu_available().is_ok() {
        let launch = kernel_runs::launch(4);
        let (gpu, _) = kernlint::launch::run_on_gpu(&program, &ptx, "fields", &launch, &args, 1).unwrap();
        let (sim, _) = kernlint::launch::simulate(&program, &launch, &args).unwrap();
        assert_eq!(gpu, sim);
    }
    // An aligned field of a packed record whose size keeps it aligned (12 bytes, float32s)
    // is one load, as Numba's aligned records' are.
    let (db, file) = kernel_runs::database(SOURCE);
    let program = build_program(&db, file, "values", &parse_signature_str(&format!("void({PARTICLE}[::1], float32[::1])")).unwrap()).unwrap();
    let ptx = kernlint::compile::compile_ptx(&program, "sm_90", &Default::default()).unwrap();
    assert!(ptx.contains("ld.global.f32") && !ptx.contains("ld.global.u8"), "{ptx}");
}

const POINTS: &str = "import numpy as np
from numba import cuda

inner = np.dtype([(\"x\", np.float32), (\"y\", np.int32)])
body = np.dtype([(\"pts\", inner, 3), (\"w\", np.float32), (\"grid\", inner, (2, 2))])

@cuda.jit
def points(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        p = a[i].pts
        q = p[1]
        out[i] = p[0].x + q.y + a[i].pts[2].x * a[i].w + a[i].grid[1, 0].y
        q.x = out[i]
        a[i][\"pts\"][2].y = p.shape[0] + a[i].grid[0, 1].y
        a[i].grid[1, 1] = a[i].pts[0]

@cuda.jit
def local_points(out):
    b = cuda.local.array(2, body)
    b[1].pts[2].x = 2.5
    b[1].pts[0].y = 4
    out[0] = b[1].pts[2].x + b[1].pts[0].y

@cuda.jit
def field_of_points(a, out):
    out[0] = a[1].pts.x
";

const POINT: &str = "Record(x[type=float32;offset=0],y[type=int32;offset=4];8;False)";

/// `body` as Numba prints it: arrays of `inner` records as fields.
fn body() -> String {
    format!("Record(pts[type=nestedarray({POINT}, (3,));offset=0],w[type=float32;offset=24],grid[type=nestedarray({POINT}, (2, 2));offset=28];60;False)")
}

/// One `body` record: its three points (x, y), w, and its 2x2 grid of points in C order.
type Body = ([(f32, i32); 3], f32, [(f32, i32); 4]);

/// `body` records, as NumPy lays them out.
fn bodies(rows: &[Body]) -> HostArg {
    let point = |&(x, y): &(f32, i32)| [x.to_le_bytes(), y.to_le_bytes()].concat();
    let data = rows.iter().flat_map(|(pts, w, grid)| [pts.iter().flat_map(point).collect(), w.to_le_bytes().to_vec(), grid.iter().flat_map(point).collect()].concat()).collect();
    let descr = "[('pts', [('x', '<f4'), ('y', '<i4')], (3,)), ('w', '<f4'), ('grid', [('x', '<f4'), ('y', '<i4')], (2, 2))]".into();
    HostArg::Array(NpyArray { descr, itemsize: 60, shape: vec![rows.len()], fortran_order: false, data })
}

/// Arrays of records as fields (Numba's `nestedarray(Record(...), (3,))`): their elements
/// are records, read and written through a name, a record value taken from them, a string
/// index, a 2-d field, in global and local memory; one element stored whole from another
/// field's. Values from Numba's CUDA simulator (the whole-record store, which it cannot run,
/// and the local array, whose fields it cannot read, by hand from numba-cuda's
/// `record_setattr`: a copy of the bytes); each PTX assembles.
#[test]
fn arrays_of_records_as_fields_run_as_numba() {
    // Record k: pts[j] = (3k + j + 0.5, 10k + j), w = k + 2, grid[r, c] = (-(k + r + c) - 0.25, 100k + 10r + c).
    let row = |k: i32| {
        let pts = [0, 1, 2].map(|j| ((3 * k + j) as f32 + 0.5, 10 * k + j));
        let grid = [(0, 0), (0, 1), (1, 0), (1, 1)].map(|(r, c)| (-((k + r + c) as f32) - 0.25, 100 * k + 10 * r + c));
        (pts, k as f32 + 2.0, grid)
    };
    let sig = format!("void({}[::1], float32[::1])", body());
    let out = kernel_runs::run(POINTS, "points", &sig, 3, &[bodies(&(0..3).map(row).collect::<Vec<_>>()), kernel_runs::f32s(&[0.0; 3])]);
    assert_eq!(kernel_runs::read_f32s(&out[1]), [16.5, 141.0, 271.5]);
    let after: Vec<_> = (0..3)
        .map(|k| {
            let (mut pts, w, mut grid) = row(k);
            pts[1].0 = [16.5, 141.0, 271.5][k as usize];
            pts[2].1 = 3 + 100 * k + 1;
            grid[3] = pts[0];
            (pts, w, grid)
        })
        .collect();
    assert_eq!(out[0].as_ref().unwrap().data, data(&bodies(&after)));
    let out = kernel_runs::run(POINTS, "local_points", "void(float32[::1])", 1, &[kernel_runs::f32s(&[0.0])]);
    assert_eq!(kernel_runs::read_f32s(&out[0]), [6.5]);
}

/// Numba's types of arrays of records as fields (compile_cuda typemaps), and its refusal
/// of an array where a number is stored (`a[1].pts.x` is a view of the three `x`s).
#[test]
fn arrays_of_records_as_fields_type_as_numba() {
    let (db, file) = kernel_runs::database(POINTS);
    assert_eq!(kernlint::analysis::host_types::module_dtypes(&db, file).records["body"].to_string(), body());
    let sig = format!("void({}[::1], float32[::1])", body());
    let k = type_function(&db, file, "points", Some(&sig)).unwrap();
    assert_eq!(k.variables["p"].iter().collect::<Vec<_>>(), [format!("nestedarray({POINT}, (3,))").as_str()]);
    assert_eq!(k.variables["q"].iter().collect::<Vec<_>>(), [POINT]);
    assert_eq!(k.variables["a"].iter().collect::<Vec<_>>(), [format!("unaligned array({}, 1d, C)", body()).as_str()]);
    let e = type_function(&db, file, "field_of_points", Some(&sig)).unwrap_err();
    assert!(e.message.contains("No implementation of function setitem(array(float32, 1d, C), ..., array(float32, 1d, A))"), "{}", e.message);
    assert_eq!(&POINTS[e.file_range()], "out[0]");
}
