//! Module-level values real projects compute at import time and Numba freezes into kernels:
//! a constant made from the length or shape of a module array, tuple, string or bytes
//! (`CHARSET_LEN = len(CHARSET_ARR)`, md5 crackers), a constant read from a module-level dict
//! literal (`TPB = _DEFAULTS["TPB"]`, stumpy's config), and a kernel factory given a function
//! (`make_kernel(user_field)` wrapping it with `cuda.jit(func, device=True)`, fbpic). Each is
//! checked through the binary in a folder of files, as `kernlint types`, `run --device sim`
//! and `compile` (with ptxas) see them; the expected values are Numba's typemap and Numba's
//! CUDA simulator's outputs for the same files (x = [0, 1, 2, 3]).

#[path = "support/binary.rs"]
mod binary;
#[path = "support/ptxas.rs"]
mod ptxas;
#[path = "support/workspace_runs.rs"]
mod workspace_runs;

use workspace_runs::{ARRAY, SIG, compiles, kernlint, pairs, run, types, variables};

const CFG: &str = r#"import numpy as np
TABLE = np.arange(5, dtype=np.float64)
TABLE_LEN = len(TABLE)
_DEFAULTS = {
    "TPB": 512,
    "THRESH": 1e-14,
    "EXCL": 4,
}
TPB = _DEFAULTS["TPB"]
THRESH = _DEFAULTS["THRESH"]
EXCL = _DEFAULTS["EXCL"]
"#;

const LENS: &str = r#"import numpy as np
from numba import cuda, float64
import cfg
from cfg import TABLE_LEN

CHARSET = b"abcdefghijklmnopqrstuvwxyz"
CHARSET_ARR = np.frombuffer(CHARSET, dtype=np.uint8)
CHARSET_LEN = len(CHARSET_ARR)
WORD = "hello".encode()
WORD_LEN = len(WORD) + len(CHARSET)
TUP = (1, 2, 3)
TUP_LEN = len(TUP)
STR_LEN = len("héllo")
SHAPE0 = CHARSET_ARR.shape[0]
M = np.zeros((3, 4), dtype=np.float32).T
ROWS, COLS = M.shape
CELLS = M.size + M.ndim
DOUBLE = np.ones(CHARSET_LEN * 2)
N = 3
A = np.zeros(N)
N = 5
A_LEN = len(A)
LAST = TUP[-1] + TUP[1:][0]


@cuda.jit
def k(out, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        tmp = cuda.local.array(CHARSET_LEN, float64)
        tmp[0] = CHARSET_ARR[i % CHARSET_LEN]
        a = CHARSET_LEN + WORD_LEN + TUP_LEN + STR_LEN + SHAPE0
        b = ROWS * 10 + COLS + CELLS + DOUBLE.size + A_LEN + LAST
        c = TABLE_LEN + cfg.TABLE_LEN
        out[i] = tmp[0] + a * 1000 + b + c * 100000 + x[i]
"#;

const DICTS: &str = r#"from numba import cuda
import cfg as config

_LOCAL = {"SCALE": 2.5, 3: 7, True: 9, "GONE": 1}
SCALE = _LOCAL["SCALE"]
SEVEN = _LOCAL[3]
NINE = _LOCAL[1]
_LOCAL["SCALE"] = 4.0
LATER = _LOCAL["SCALE"]


@cuda.jit
def k(out, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        tpb = config.TPB
        out[i] = max(x[i], config.THRESH) * SCALE + SEVEN + NINE + LATER + tpb + config.EXCL


@cuda.jit
def uses_dict(out, x):
    out[0] = _LOCAL["SCALE"]
"#;

const FACTORY: &str = r#"import math
from numba import cuda


def make_kernel(func):
    func_gpu = cuda.jit(func, device=True)

    @cuda.jit
    def kernel(out, x):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = func_gpu(x[i], 2.0)
    return kernel


def make_external(field_func):
    func = field_func
    inline_func = cuda.jit(func, inline=True, device=True)

    def external(out, x):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = inline_func(out[i], x[i], 0.5)
    return cuda.jit(external)


def make_decorated(func):
    f = cuda.jit(device=True)(func)

    @cuda.jit
    def through(out, x):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = f(x[i], 3.0)
    return through


def make_direct(dev):
    @cuda.jit
    def direct(out, x):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = dev(x[i], 3.0)
    return direct


def make_plain(func):
    @cuda.jit
    def plain(out, x):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = func(x[i], 3.0)
    return plain


def user_field(x, a):
    return a * x + 1.0


def wave(F, x, amplitude):
    return F + amplitude * math.cos(2 * math.pi * x / 4.0)


@cuda.jit(device=True)
def dev_fn(x, a):
    return a - x


scale_kernel = make_kernel(user_field)
external_kernel = make_external(wave)
through_kernel = make_decorated(user_field)
direct_kernel = make_direct(dev_fn)
plain_kernel = make_plain(user_field)
"#;

const LOOPS: &str = r#"import numpy as np
from numba import cuda

X = np.zeros(len(X))
P = np.zeros(len(Q))
Q = np.zeros(len(P))
SELF = len(SELF)
D = {"A": 1, **{"B": 2}}
FROM_UNPACKED = D["A"]
U = {"A": 1}
U.update(A=2)
UPDATED = U["A"]


@cuda.jit
def k(out, x):
    out[0] = X[0]


@cuda.jit
def self_len(out, x):
    out[0] = SELF


@cuda.jit
def unpacked(out, x):
    out[0] = FROM_UNPACKED


@cuda.jit
def updated(out, x):
    out[0] = UPDATED


def design_taps(n):
    return np.hamming(n).astype(np.float32)


TAPS = design_taps(5)


@cuda.jit
def from_host_function(out, x):
    out[0] = TAPS[0]


from scipy import signal
FIRWIN = signal.firwin(5, 0.2)


@cuda.jit
def from_library(out, x):
    out[0] = FIRWIN[0]
"#;

/// `A{i} = np.zeros(len(A{i-1}) + 1)` 300 times: a long chain of arrays and lengths.
/// Arithmetic on NumPy scalars at import time follows NumPy 2: a Python number takes the
/// scalar's type, two scalars promote, integers wrap.
const NPSCALARS: &str = r#"import numpy as np
from numba import cuda

BIG = np.int64(1) << 40
HALF3 = np.float32(1.5) * 2
WRAP = np.int32(2**31 - 1) + 1
MIX = np.int32(3) * np.uint32(2)
F = np.float32(0.1) + np.float64(0.2)
Q = np.uint8(200) + 100
R = np.int16(7) / 2


@cuda.jit
def k(out, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        a = BIG
        b = HALF3
        c = WRAP
        d = MIX
        e = F
        f = Q
        g = R
        out[i] = x[i] + a + b * 10 + c + d * 100 + e + int(f) * 1000 + g
"#;

fn chain() -> String {
    let mut s = String::from("import numpy as np\nfrom numba import cuda\n\nA0 = np.zeros(1)\n");
    for i in 1..300 {
        s += &format!("A{i} = np.zeros(len(A{}) + 1)\n", i - 1);
    }
    s += "CHAIN = len(A299)\nB = np.zeros(2)\nB = np.zeros(len(B) * 3)\nGROWN = B.size\nE = {}\nE[\"k\"] = 11\nE[2] = 5\ndel E[2]\nFROM_EMPTY = E[\"k\"] + len(E)\n\n\n";
    s += "@cuda.jit\ndef k(out, x):\n    i = cuda.grid(1)\n    if i < x.shape[0]:\n        out[i] = CHAIN + GROWN * 1000 + FROM_EMPTY * 100000 + x[i]\n";
    s
}

fn workspace() -> tempfile::TempDir {
    binary::folder_with(&[("cfg.py", CFG), ("lens.py", LENS), ("dicts.py", DICTS), ("factory.py", FACTORY), ("loops.py", LOOPS), ("chain.py", &chain()), ("npscalars.py", NPSCALARS)])
}

#[test]
fn constants_from_lengths_and_shapes_of_module_values() {
    let dir = workspace();
    let d = dir.path();
    // Numba's typemap: the globals are int64 (literals), the local array's extent a constant.
    let t = types(d, "lens.py::k").unwrap();
    assert_eq!(
        variables(&t),
        pairs(&[("a", "int64"), ("b", "int64"), ("c", "int64"), ("i", "int64"), ("out", ARRAY), ("tmp", "array(float64, 1d, C)"), ("x", ARRAY)])
    );
    // a = 26 + (5 + 26) + 3 + 5 + 26; b = 4 * 10 + 3 + (12 + 2) + 52 + 3 (`A` made while N
    // was 3) + (3 + 2); c = 5 + 5; out = 'a' + i + a * 1000 + b + c * 100000 + x: Numba's
    // simulator gives 1091214, 1091216, 1091218, 1091220.
    assert_eq!(run(d, "lens.py::k"), [1091214.0, 1091216.0, 1091218.0, 1091220.0]);
    compiles(d, "lens.py::k");
    // A chain of 300 arrays each sized by the one before, an array rebound from its own
    // length, a dict filled and emptied by statements.
    let t = types(d, "chain.py::k").unwrap();
    assert_eq!(variables(&t), pairs(&[("i", "int64"), ("out", ARRAY), ("x", ARRAY)]));
    assert_eq!(run(d, "chain.py::k"), [1206300.0, 1206301.0, 1206302.0, 1206303.0]);
    compiles(d, "chain.py::k");
}

#[test]
fn numpy_scalar_arithmetic_in_module_globals() {
    let dir = workspace();
    let d = dir.path();
    // Numba's typemap (compile_cuda) for the NumPy values `np.int64(1099511627776)`,
    // `np.float32(3.0)`, `np.int32(-2147483648)`, `np.int64(6)`, `np.float64(0.30000000149011613)`,
    // `np.uint8(44)`, `np.float64(3.5)`.
    let t = types(d, "npscalars.py::k").unwrap();
    assert_eq!(
        variables(&t),
        pairs(&[
            ("a", "int64"),
            ("b", "float32"),
            ("c", "int32"),
            ("d", "int64"),
            ("e", "float64"),
            ("f", "uint8"),
            ("g", "float64"),
            ("i", "int64"),
            ("out", ARRAY),
            ("x", ARRAY),
        ])
    );
    // Numba's simulator.
    assert_eq!(run(d, "npscalars.py::k"), [1097364188761.8, 1097364188762.8, 1097364188763.8, 1097364188764.8]);
    compiles(d, "npscalars.py::k");
}

#[test]
fn constants_read_from_module_dicts() {
    let dir = workspace();
    let d = dir.path();
    let t = types(d, "dicts.py::k").unwrap();
    assert_eq!(variables(&t), pairs(&[("i", "int64"), ("out", ARRAY), ("tpb", "int64"), ("x", ARRAY)]));
    // max(x, 1e-14) * 2.5 + 7 + 9 (`True` is the key 1) + 4.0 (the entry as reassigned
    // before `LATER`) + 512 + 4, as in Numba's simulator.
    assert_eq!(run(d, "dicts.py::k"), [536.0, 538.5, 541.0, 543.5]);
    compiles(d, "dicts.py::k");
    // Numba cannot type a dict in a kernel: "Untyped global name '_LOCAL': Cannot determine
    // Numba type of <class 'dict'>".
    let e = types(d, "dicts.py::uses_dict").unwrap_err();
    assert!(e.contains("dicts.py:22:14: untyped global name `_LOCAL`") && e.contains("dict"), "{e}");
    let out = kernlint(d, &["compile", "dicts.py::uses_dict", "--sig", SIG]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("dicts.py:22:14"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn factories_given_a_function_compile_it_as_a_device_function() {
    let dir = workspace();
    let d = dir.path();
    let cases: [(&str, &str, [f64; 4]); 4] = [
        // `cuda.jit(func, device=True)`: 2 * x + 1.
        ("scale_kernel", "make_kernel.<locals>.kernel", [1.0, 3.0, 5.0, 7.0]),
        // fbpic: `func = field_func; inline_func = cuda.jit(func, inline=True, device=True)`.
        ("external_kernel", "make_external.<locals>.external", [0.5, 3.061616997868383e-17, -0.5, -9.184850993605148e-17]),
        // `cuda.jit(device=True)(func)`: 3 * x + 1.
        ("through_kernel", "make_decorated.<locals>.through", [1.0, 4.0, 7.0, 10.0]),
        // A device function passed in and called through the parameter: 3 - x.
        ("direct_kernel", "make_direct.<locals>.direct", [3.0, 2.0, 1.0, 0.0]),
    ];
    for (kernel, qualname, expected) in cases {
        let target = format!("factory.py::{kernel}");
        let t = types(d, &target).unwrap();
        assert_eq!(t["kernel"], qualname);
        // Numba's typemap also lists the inlined `wave`'s variables under counter-dependent
        // names (`wave_v2_F`), which kernlint leaves out.
        assert_eq!(variables(&t), pairs(&[("i", "int64"), ("out", ARRAY), ("x", ARRAY)]), "{kernel}");
        assert_eq!(run(d, &target), expected, "{kernel}");
        compiles(d, &target);
    }
    // A plain Python function called through the parameter: Numba's "Untyped global name
    // 'func': Cannot determine Numba type of <class 'function'>".
    let e = types(d, "factory.py::plain_kernel").unwrap_err();
    assert!(e.contains("factory.py:52:22: untyped global name `func`") && e.contains("`user_field`"), "{e}");
    let out = kernlint(d, &["run", "factory.py::plain_kernel", "--sig", SIG, "--device", "sim", "--grid", "1", "--block", "4", "zeros:float64[4]", "arange:float64[4]"]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("factory.py:52:22"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn values_python_cannot_compute_are_errors_at_the_use() {
    let dir = workspace();
    let d = dir.path();
    // Names read before they are bound (Python's NameError), arrays sized by each other, a
    // dict with `**` unpacking or changed by a method: nothing loops, each use is an error
    // naming the global.
    for (kernel, at, name) in [("k", "loops.py:17:14", "`X`"), ("self_len", "loops.py:22:14", "`SELF`"), ("unpacked", "loops.py:27:14", "`FROM_UNPACKED`"), ("updated", "loops.py:32:14", "`UPDATED`")] {
        let e = types(d, &format!("loops.py::{kernel}")).unwrap_err();
        assert!(e.contains(at) && e.contains(name), "{kernel}: {e}");
    }
    // Numba reads the array a host function returned at import: kernlint runs the module's
    // own plain functions (np.hamming(5) as float32, read-only), and names a call it does
    // not run (a library's) at the use.
    let t = types(d, "loops.py::from_host_function").unwrap();
    assert_eq!(t["variables"]["out"], "array(float64, 1d, A)");
    let e = types(d, "loops.py::from_library").unwrap_err();
    assert!(e.contains("loops.py:53:14") && e.contains("`FIRWIN`") && e.contains("`signal.firwin(...)`") && e.contains("pass `FIRWIN` as an argument"), "{e}");
    let out = kernlint(d, &["check", "."]);
    assert!(out.status.code().is_some_and(|c| c <= 1), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Module arrays host code builds and only launches with (the DLI matrix-multiply exercise:
/// three 1024 x 1024 matrices at import) beside a small table the kernel reads: typing needs
/// only their shapes and dtypes, so only the table's elements are computed.
const BIG: &str = r#"import numpy as np
from numba import cuda

n = 1024
BIG = np.arange(n * n).reshape(n, n).astype(np.int32)
WIDE = np.zeros((BIG.shape[0], 2 * n)).T
SMALL = np.arange(4.0) * 2


@cuda.jit
def k(out, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = SMALL[i] + x[i]


d_big = cuda.to_device(BIG)
"#;

#[test]
fn module_arrays_no_kernel_reads_hold_no_elements() {
    use kernlint::analysis::{RootDatabase, SourceFile, host_arrays, typing};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("big.py"), BIG).unwrap();
    let t = types(d, "big.py::k").unwrap();
    assert_eq!(variables(&t), pairs(&[("i", "int64"), ("out", ARRAY), ("x", ARRAY)]));
    // out = SMALL + x = 2i + i (Numba's simulator: 0, 3, 6, 9).
    assert_eq!(run(d, "big.py::k"), [0.0, 3.0, 6.0, 9.0]);

    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "big.py".into(), BIG.to_string());
    let shapes = host_arrays::module_array_shapes(&db, file);
    for (name, shape) in [("BIG", vec![1024, 1024]), ("WIDE", vec![2048, 1024]), ("SMALL", vec![4])] {
        let array = shapes[name].as_ref().unwrap();
        assert_eq!(array.shape, shape, "{name}");
        assert!(array.data.is_none(), "{name}: typing computed its elements");
    }
    let types = typing::module_host_arrays(&db, file);
    assert_eq!(types["BIG"].as_ref().unwrap().to_string(), "readonly array(int32, 2d, C)");
    assert_eq!(types["WIDE"].as_ref().unwrap().to_string(), "readonly array(float64, 2d, F)");
    // Asked for, the elements are all there.
    let full = host_arrays::module_arrays(&db, file);
    assert_eq!(full["BIG"].as_ref().unwrap().data.as_ref().map(|d| d.len()), Some(1 << 20));
}

/// A module array made by `np.ascontiguousarray` of a list literal (a ray tracer's light
/// position): Numba freezes it like `np.array` of the list.
const CONTIGUOUS: &str = r#"import numpy as np
from numba import cuda

ORIGIN = np.ascontiguousarray([1.5, -2.0, 0.25, 4.0], dtype=np.float32)


@cuda.jit
def k(out, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        d = ORIGIN[i] - x[i]
        out[i] = d
"#;

#[test]
fn contiguous_array_of_a_list_literal() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("light.py"), CONTIGUOUS).unwrap();
    let t = types(d, "light.py::k").unwrap();
    assert_eq!(variables(&t), pairs(&[("d", "float64"), ("i", "int64"), ("out", ARRAY), ("x", ARRAY)]));
    // Numba's simulator: ORIGIN - [0, 1, 2, 3].
    assert_eq!(run(d, "light.py::k"), [1.5, -3.0, -1.75, 1.0]);
}

/// A test script's host-side check: products of large module arrays no kernel reads, and
/// an in-place store into a launch argument. Typing needs shapes only.
const SCRIPT: &str = r#"import numpy as np
from numba import cuda

N = 500
W = np.ones((N, N))
W[0, 0] += 1.0
D = np.diag(np.ones(N), 1)
P = np.dot(D, W.T)


@cuda.jit
def k(out, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = x[i] * 2.0


k[1, 4](W[0], W[1])
"#;

#[test]
fn module_arrays_only_shapes_for_a_script_check() {
    use kernlint::analysis::{RootDatabase, SourceFile, host_arrays};
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "script.py".into(), SCRIPT.to_string());
    let shapes = host_arrays::module_array_shapes(&db, file);
    let w = shapes["W"].as_ref().unwrap();
    assert_eq!(w.shape, [500, 500]);
    assert!(w.data.is_none(), "the store into `W` made typing compute its elements");
    let held: Vec<(&String, bool)> = shapes.iter().map(|(n, a)| (n, a.as_ref().is_ok_and(|a| a.data.is_some()))).collect();
    assert!(held.iter().all(|(_, data)| !data), "typing computed elements: {held:?}");
    // Numba: out and x are float64 rows of W, `i` int64.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("script.py"), SCRIPT).unwrap();
    let t = types(dir.path(), "script.py::k").unwrap();
    assert_eq!(variables(&t), pairs(&[("i", "int64"), ("out", ARRAY), ("x", ARRAY)]));
}
