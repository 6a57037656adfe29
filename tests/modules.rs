//! Kernels that reach into other modules of the workspace, as real projects write them:
//! constants of a config module (`import cfg; cfg.X`, `from cfg import X`, re-exported from a
//! third module, module arrays), device functions called through a module (`dm.halve(x)`,
//! `import pkg.dev`, `from pkg.dev import halve as hv`), a module-level alias of a device
//! function (`gp = gmt`) and kernels made by a factory (`k = make_kernel(2.5)`). Each is
//! checked through the binary in a folder of files, as `kernlint types`, `run --device sim`
//! and `compile` (with ptxas) see them; the expected values are Numba's typemap and Numba's
//! CUDA simulator's outputs for the same files.

#[path = "support/binary.rs"]
mod binary;
#[path = "support/ptxas.rs"]
mod ptxas;
#[path = "support/workspace_runs.rs"]
mod workspace_runs;

use binary::{folder_with, write_file};
use workspace_runs::{ARRAY, compiles, kernlint, pairs, run, types, variables};

const BASE: &str = "SCALE = 3\n";

const CFG: &str = "\
import numpy as np
from base import SCALE

THRESH = 1e-14
DAMP = 0.5
N = 4
DEBUG = False
TABLE = np.array([3.0, 1.0, 4.0, 1.0], dtype=np.float64)
";

const DEV: &str = "\
from numba import cuda

@cuda.jit(device=True)
def halve(a):
    return a * 0.5
";

const KERN: &str = "\
from numba import cuda, float64
import cfg
import pkg.dev
import pkg.dev as dv
from cfg import DAMP, DEBUG, N, SCALE, TABLE as T
from pkg.dev import halve as hv


@cuda.jit(device=True)
def gmt(a):
    return a * 3.0


gp = gmt


@cuda.jit
def k(out, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        tmp = cuda.local.array(N, float64)
        tmp[0] = max(x[i], cfg.THRESH) * DAMP + cfg.TABLE[i] + T[i] + SCALE
        if DEBUG:
            tmp[0] = 1.0 + \"pruned, as Numba prunes a frozen global's branch\"
        out[i] = tmp[0] + dv.halve(x[i]) + pkg.dev.halve(x[i]) + hv(x[i]) + gp(x[i])


@cuda.jit
def attr(out, x):
    i = cuda.grid(1)
    n = cfg.N
    out[i] = n + cfg.THRESH


@cuda.jit
def attr_shape(out, x):
    tmp = cuda.local.array(cfg.N, float64)
    tmp[0] = 1.0
    out[0] = tmp[0]


def make_kernel(scale):
    def kern(out, x):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = x[i] * scale
    return cuda.jit(kern)


def make_decorated(offset):
    @cuda.jit
    def add(out, x):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = x[i] + offset
    return add


scale_kernel = make_kernel(2.5)
add_kernel = make_decorated(-1)
";

fn workspace() -> tempfile::TempDir {
    folder_with(&[("base.py", BASE), ("cfg.py", CFG), ("pkg/__init__.py", ""), ("pkg/dev.py", DEV), ("kern.py", KERN)])
}

#[test]
fn constants_arrays_and_device_functions_of_other_modules() {
    let dir = workspace();
    let d = dir.path();
    let t = types(d, "kern.py::k").unwrap();
    assert_eq!(
        variables(&t),
        pairs(&[("i", "int64"), ("out", ARRAY), ("tmp", "array(float64, 1d, C)"), ("x", ARRAY)])
    );
    // Numba's simulator: max(x, 1e-14) * 0.5 + 2 * TABLE + 3 + 3 * (x / 2) + 3 * x.
    let expected: Vec<f64> = (0..4)
        .map(|i| {
            let x = i as f64;
            let table = [3.0, 1.0, 4.0, 1.0][i];
            let tmp = x.max(1e-14) * 0.5 + table + table + 3.0;
            tmp + x * 0.5 + x * 0.5 + x * 0.5 + x * 3.0
        })
        .collect();
    assert_eq!(run(d, "kern.py::k"), expected);
    assert_eq!(run(d, "kern.py::k")[0], 9.000000000000005);
    compiles(d, "kern.py::k");
    // The module's attribute is `typeof` of its value (int64, no literal), as Numba's
    // getattr of a module types it: a local array's shape cannot be one.
    let t = types(d, "kern.py::attr").unwrap();
    assert_eq!(variables(&t), pairs(&[("i", "int64"), ("n", "int64"), ("out", ARRAY), ("x", ARRAY)]));
    assert_eq!(run(d, "kern.py::attr"), [4.00000000000001; 4]);
    compiles(d, "kern.py::attr");
    let e = types(d, "kern.py::attr_shape").unwrap_err();
    assert!(e.contains("must be a compile-time constant integer or tuple, not int64"), "{e}");
}

#[test]
fn kernels_made_by_factories_freeze_the_calls_arguments() {
    let dir = workspace();
    let d = dir.path();
    for (kernel, expected, qualname) in
        [("scale_kernel", [0.0, 2.5, 5.0, 7.5], "make_kernel.<locals>.kern"), ("add_kernel", [-1.0, 0.0, 1.0, 2.0], "make_decorated.<locals>.add")]
    {
        let target = format!("kern.py::{kernel}");
        let t = types(d, &target).unwrap();
        assert_eq!(t["kernel"], qualname);
        assert_eq!(variables(&t), pairs(&[("i", "int64"), ("out", ARRAY), ("x", ARRAY)]));
        assert_eq!(run(d, &target), expected);
        compiles(d, &target);
    }
    // A factory called with a value kernlint cannot know, or with different constants.
    let factory = "from numba import cuda\nimport sys\n\ndef make(scale):\n    def kern(out, x):\n        out[0] = x[0] * scale\n    return cuda.jit(kern)\n\nk1 = make(len(sys.argv))\n";
    std::fs::write(d.join("factory.py"), factory).unwrap();
    let e = types(d, "factory.py::k1").unwrap_err();
    assert!(e.contains("factory.py:6:25") && e.contains("`scale` is a parameter of the enclosing function `make`"), "{e}");
    std::fs::write(d.join("factory.py"), factory.replace("len(sys.argv)", "2.0") + "k2 = make(3.0)\n").unwrap();
    let e = types(d, "factory.py::k2").unwrap_err();
    assert!(e.contains("`scale` is a parameter of the enclosing function `make`"), "{e}");
}

#[test]
fn a_module_kernlint_cannot_see_is_named_at_the_use() {
    let dir = workspace();
    let d = dir.path();
    let source = "from numba import cuda\nimport thirdparty\nfrom vendor.consts import EPS\n\n@cuda.jit\ndef a(out, x):\n    out[0] = x[0] + thirdparty.EPS\n\n@cuda.jit\ndef b(out, x):\n    out[0] = x[0] * EPS\n";
    std::fs::write(d.join("missing.py"), source).unwrap();
    let e = types(d, "missing.py::a").unwrap_err();
    assert!(e.contains("missing.py:7:21: kernlint cannot see the module `thirdparty` (no `thirdparty.py`"), "{e}");
    let e = types(d, "missing.py::b").unwrap_err();
    assert!(
        e.contains("missing.py:11:21: kernlint cannot see the module that defines `vendor.consts.EPS` (no `vendor/consts/EPS.py` nor `vendor/consts.py`"),
        "{e}"
    );
    assert!(e.contains("if the module is part of your project, check this file from a folder that holds it"), "{e}");
    // A name the module does not bind to a constant.
    std::fs::write(d.join("notconst.py"), "from numba import cuda\nimport cfg\n\n@cuda.jit\ndef c(out, x):\n    out[0] = cfg.MISSING\n").unwrap();
    let e = types(d, "notconst.py::c").unwrap_err();
    assert!(e.contains("`cfg.MISSING` is not a constant kernlint can evaluate"), "{e}");
}

#[test]
fn the_linter_reports_nothing_on_these_forms() {
    let dir = workspace();
    let d = dir.path();
    std::fs::write(d.join("missing.py"), "from numba import cuda\nimport thirdparty\n\n@cuda.jit(\"void(float64[:], float64[:])\")\ndef a(out, x):\n    out[0] = x[0] + thirdparty.EPS\n").unwrap();
    // Every rule that needs types, on explicit signatures; KL103 knows a global's shape.
    let source = KERN.replace("@cuda.jit\ndef k(", "@cuda.jit(\"void(float64[:], float64[:])\")\ndef k(").replace(
        "@cuda.jit\ndef attr_shape",
        "def not_a_kernel",
    );
    std::fs::write(d.join("kern.py"), source).unwrap();
    let out = kernlint(d, &["check", "--select", "KL1,KL4", "kern.py", "missing.py", "cfg.py", "pkg"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn typing_every_function_of_a_folder_sees_the_workspace_modules() {
    let dir = workspace();
    let d = dir.path();
    let source = KERN.replace("@cuda.jit\ndef k(", "@cuda.jit(\"void(float64[:], float64[:])\")\ndef k(");
    std::fs::write(d.join("kern.py"), source).unwrap();
    let out = kernlint(d, &["types", "--all", "kern.py"]);
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let k = lines.iter().find(|l| l["function"] == "k").expect("`k` is typed");
    assert_eq!(k["outcome"], "typed", "{k}");
}

/// A kernel with no signature that its own module never launches, launched by the modules
/// that import it: `from .kernels import scale` in its package (a host function called
/// nowhere, so its parameter has its default) and `from pkg import kernels` in a script above.
#[test]
fn kernels_are_typed_for_the_launches_of_modules_that_import_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let write = |name: &str, text: &str| write_file(d, name, text);
    write("pkg/__init__.py", "");
    write(
        "pkg/kernels.py",
        "from numba import cuda\n\n\n@cuda.jit\ndef scale(x, out, factor):\n    i = cuda.grid(1)\n    if i < x.size:\n        out[i] = x[i] * factor * 0.5\n",
    );
    write(
        "pkg/solver.py",
        "import numpy as np\nfrom .kernels import scale\n\n\ndef run(n=4096):\n    x = np.ones(n, dtype=np.float32)\n    out = np.zeros_like(x)\n    scale[(n + 127) // 128, 128](x, out, np.float32(2.0))\n    return out\n",
    );
    write("main.py", "import numpy as np\nfrom pkg import kernels\n\n\ndef go():\n    a = np.arange(10, dtype=np.float64)\n    kernels.scale[1, 32](a, a, 3)\n");
    // `types` and `compile` with no `--sig`.
    let types = |dir: &std::path::Path, target: &str| -> Result<serde_json::Value, String> {
        let out = kernlint(dir, &["types", target, "--format", "json"]);
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        Ok(serde_json::from_slice(&out.stdout).unwrap())
    };
    let f32 = "array(float32, 1d, C)";
    let expect = pairs(&[("factor", "float32"), ("i", "int64"), ("out", f32), ("x", f32)]);
    // The kernel's own package first, from the folder above it and from its own folder.
    assert_eq!(variables(&types(d, "pkg/kernels.py::scale").unwrap()), expect);
    assert_eq!(variables(&types(&d.join("pkg"), "kernels.py::scale").unwrap()), expect);
    let out = kernlint(d, &["compile", "pkg/kernels.py::scale"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains(".entry"), "{}", String::from_utf8_lossy(&out.stderr));
    // Rules that need types see them: `0.5` promotes the float32 product to float64.
    let out = kernlint(d, &["check", "--select", "KL401", "--format", "github", "pkg"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("kernels.py,line=8,") && text.contains("KL401"), "{text}");
    // `run` takes the same launch (its host function's default `n`): out = 1 * 2 * 0.5.
    let out = kernlint(d, &["run", "pkg/kernels.py::scale", "--device", "sim", "--out", "res"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.contains("from the launch at") && stderr.contains("solver.py:8"), "{stderr}");
    let npy = kernlint::launch::npy::NpyArray::read(&d.join("res/out.npy")).unwrap();
    assert_eq!(npy.shape, [4096]);
    assert!(npy.data.chunks(4).all(|c| f32::from_le_bytes(c.try_into().unwrap()) == 1.0));
    // Without the package's launch, the script's (float64 arrays, an int) types it.
    std::fs::remove_file(d.join("pkg/solver.py")).unwrap();
    let f64 = "array(float64, 1d, C)";
    assert_eq!(variables(&types(d, "pkg/kernels.py::scale").unwrap()), pairs(&[("factor", "int64"), ("i", "int64"), ("out", f64), ("x", f64)]));
    // and runs it: the script passes `a` as both arrays, so each element becomes a * 3 * 0.5.
    let out = kernlint(d, &["run", "pkg/kernels.py::scale", "--device", "sim", "--out", "res2"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let npy = kernlint::launch::npy::NpyArray::read(&d.join("res2/out.npy")).unwrap();
    let values: Vec<f64> = npy.data.chunks(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(values, (0..10).map(|i| i as f64 * 1.5).collect::<Vec<_>>());
    // A script that launches its own `scale` (a local name) types nothing here.
    write("main.py", "import numpy as np\nfrom pkg import kernels\nfrom pkg.kernels import scale\n\n\ndef go(scale):\n    a = np.arange(10, dtype=np.float64)\n    scale[1, 32](a, a, 3)\n");
    let e = types(d, "pkg/kernels.py::scale").unwrap_err();
    assert!(e.contains("`scale` has no signature") && e.contains("in a module that imports it"), "{e}");
}

/// Enum and IntEnum classes kept in other modules (`from modes import Mode`, `import modes;
/// modes.Color.green`, `from pkg.shades import Shade as S`, re-exported as `Op` by a third
/// module), read in a kernel and passed to one as launch arguments. Expected types are
/// Numba's typemap (the class's own name, however imported); outputs Numba's simulator's.
#[test]
fn enum_classes_of_other_modules_and_enum_launch_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let write = |name: &str, text: &str| write_file(d, name, text);
    write("modes.py", "import enum\n\n\nclass Mode(enum.IntEnum):\n    ADD = 1\n    MUL = 2\n\n\nclass Color(enum.Enum):\n    red = 1\n    green = 2\n\n\nclass Scale(enum.Enum):\n    half = 0.5\n    double = 2.0\n");
    write("pkg/__init__.py", "");
    write("pkg/shades.py", "from enum import Enum\n\n\nclass Shade(Enum):\n    dark = 3\n    light = 4\n");
    write("pkg/reexport.py", "from modes import Mode as Op\n");
    write(
        "kern.py",
        "\
import numpy as np
from numba import cuda
import modes
from modes import Mode, Color
from pkg.shades import Shade as S
from pkg.reexport import Op


@cuda.jit
def k(out, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        m = Mode.MUL
        c = modes.Color.green
        s = S.light
        v = x[i] + (i * m + modes.Mode.ADD + Op.ADD)
        if c == Color.green:
            v += s.value
        out[i] = v + modes.Scale.half.value


@cuda.jit
def launched(out, mode, color, shade):
    i = cuda.grid(1)
    if i < out.shape[0]:
        if mode == Mode.ADD:
            out[i] = i + mode
        else:
            out[i] = i * mode
        if color == Color.red:
            out[i] += 100
        if shade == S.dark:
            out[i] += shade.value


def main():
    out = np.zeros(4)
    launched[1, 4](out, Mode.MUL, modes.Color.red, S.dark)
    return out
",
    );
    let t = types(d, "kern.py::k").unwrap();
    assert_eq!(
        variables(&t),
        pairs(&[
            ("c", "Enum<int64>(Color)"),
            ("i", "int64"),
            ("m", "IntEnum<int64>(Mode)"),
            ("out", ARRAY),
            ("s", "Enum<int64>(Shade)"),
            ("v", "float64"),
            ("x", ARRAY)
        ])
    );
    // x + 2i + 1 + 1 + 4 + 0.5
    assert_eq!(run(d, "kern.py::k"), [6.5, 9.5, 12.5, 15.5]);
    compiles(d, "kern.py::k");
    // Typed, compiled and run for its launch in `main`, which passes enum members.
    let out = kernlint(d, &["types", "kern.py::launched", "--format", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let t: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        variables(&t),
        pairs(&[
            ("color", "Enum<int64>(Color)"),
            ("i", "int64"),
            ("mode", "IntEnum<int64>(Mode)"),
            ("out", "array(float64, 1d, C)"),
            ("shade", "Enum<int64>(Shade)")
        ])
    );
    let out = kernlint(d, &["compile", "kern.py::launched"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    if let Some(ptxas) = ptxas::ptxas() {
        ptxas::assemble(&ptxas, &d.join("ptx"), &String::from_utf8(out.stdout).unwrap(), "enums").unwrap();
    }
    let out = kernlint(d, &["run", "kern.py::launched", "--device", "sim", "--out", "res"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let npy = kernlint::launch::npy::NpyArray::read(&d.join("res/out.npy")).unwrap();
    let values: Vec<f64> = npy.data.chunks(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(values, [103.0, 105.0, 107.0, 109.0]);
    // The class itself is no value, imported or not.
    write("whole.py", "from numba import cuda\nfrom modes import Mode\n\n@cuda.jit\ndef w(out, x):\n    m = Mode\n    out[0] = 1.0\n");
    let e = types(d, "whole.py::w").unwrap_err();
    assert!(e.contains("whole.py:6:9") && e.contains("cannot use the Enum class `Mode` itself as a value"), "{e}");
}

/// `Color["green"]` (Numba's Enum class getitem), and Enum classes of a module under a
/// `numba.*` path, as numba-cuda's tests import theirs (`from
/// numba.cuda.tests.cudapy.enum_usecases import Color`): read from its file like any module,
/// not taken for a part of Numba kernlint models. Expected types are Numba's typemap, outputs
/// Numba's simulator's.
#[test]
fn enum_getitem_and_enums_of_numba_test_modules() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let write = |name: &str, text: &str| write_file(d, name, text);
    write(
        "numba/cuda/tests/cudapy/enum_usecases.py",
        "from enum import Enum, IntEnum\n\n\nclass Color(Enum):\n    red = 1\n    green = 2\n\n\nclass RequestError(IntEnum):\n    not_found = 404\n    internal_error = 500\n",
    );
    write(
        "kern.py",
        "\
from numba import cuda
from numba.cuda.tests.cudapy.enum_usecases import Color, RequestError
from numba.cuda import int16


@cuda.jit
def k(out, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        c = Color[\"green\"]
        r = RequestError[\"not_found\"]
        v = x[i] + (c == Color.green) + 2 * (Color[\"red\"] == c)
        if i > 1:
            v += r - int16(RequestError.internal_error)
        out[i] = v + c.value


@cuda.jit
def missing(out, x):
    out[0] = Color[\"blue\"] == Color.red
",
    );
    let t = types(d, "kern.py::k").unwrap();
    assert_eq!(
        variables(&t),
        pairs(&[("c", "Enum<int64>(Color)"), ("i", "int64"), ("out", ARRAY), ("r", "IntEnum<int64>(RequestError)"), ("v", "float64"), ("x", ARRAY)])
    );
    assert_eq!(run(d, "kern.py::k"), [3.0, 4.0, -91.0, -90.0]);
    compiles(d, "kern.py::k");
    // Numba: `No implementation of function getitem ... (Enum class<int64>(Color), Literal[str](blue))`.
    let e = types(d, "kern.py::missing").unwrap_err();
    assert!(e.contains("kern.py:20:14") && e.contains("Enum class `Color` has no member `blue`"), "{e}");
}

/// Decorators a project makes of `cuda.jit` in a module of its own and imports: a name bound
/// to `cuda.jit` or to a configured one, a function that passes its argument to `cuda.jit`,
/// and a class that compiles the function it holds when launched (fbpic's `compile_cupy`);
/// `cuda` itself re-exported by that module (`from proj.gpu import cuda`) is Numba's.
#[test]
fn kernels_made_by_the_projects_own_decorators_are_found_typed_and_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let write = |name: &str, text: &str| write_file(d, name, text);
    write("proj/__init__.py", "");
    write(
        "proj/gpu.py",
        "\
from numba import cuda

jit = cuda.jit
device_jit = cuda.jit(device=True)

if cuda.is_available():
    class compile_cupy:
        def __init__(self, func):
            self.python_func = func

        def __getitem__(self, bt):
            def call_kernel(*args):
                kernel = cuda.jit()(self.python_func).specialize(*args)
                kernel[bt](*args)
            return call_kernel

def gpu(f):
    return cuda.jit(f)
",
    );
    write(
        "proj/kernels.py",
        "\
from proj.gpu import cuda, jit, device_jit, compile_cupy, gpu
from proj import gpu as g

@device_jit
def twice(v):
    return v * 2

@compile_cupy
def k_cupy(out, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = twice(x[i]) + 1

@gpu
def k_fn(out, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] * 3

@g.jit
def k_attr(out, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] - 1

@jit
def k_unguarded(out, x):
    i = cuda.grid(1)
    out[i] = x[i]
",
    );
    let k = types(d, "proj/kernels.py::k_cupy").unwrap();
    assert_eq!(variables(&k), pairs(&[("i", "int64"), ("out", ARRAY), ("x", ARRAY)]));
    assert_eq!(run(d, "proj/kernels.py::k_cupy"), [1.0, 3.0, 5.0, 7.0]);
    assert_eq!(run(d, "proj/kernels.py::k_fn"), [0.0, 3.0, 6.0, 9.0]);
    assert_eq!(run(d, "proj/kernels.py::k_attr"), [-1.0, 0.0, 1.0, 2.0]);
    compiles(d, "proj/kernels.py::k_cupy");
    // No launch in the project and a decorator that takes no signature: the advice is the
    // command line's `--sig`, not a signature in the decorator.
    let out = kernlint(d, &["types", "proj/kernels.py::k_fn"]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && e.contains("`gpu` makes it with `cuda.jit` and takes none; pass one with `--sig`"), "{e}");
    // `cuda.grid(1)` through the re-exported `cuda` is the thread's index: the unguarded
    // kernel is reported, the guarded ones are not.
    let out = kernlint(d, &["check", "--select", "KL301", "--format", "json", "proj"]);
    let found: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let lines: Vec<i64> = found.as_array().unwrap().iter().map(|f| f["location"]["row"].as_i64().unwrap()).collect();
    assert_eq!(lines, [29], "{found}");
}

#[test]
fn findings_and_line_info_in_another_modules_device_function_point_at_the_call() {
    // Spans are offsets into the kernel's file: those of `put` (in helpers.py) must not be
    // read as offsets of kern.py. Here `a[i + 1]` lies at the offset of kern.py's line 8,
    // column 9, where the old code placed the finding.
    let helpers = "from numba import cuda\n\n# padding\n# padding\n# padding\n\n\n@cuda.jit(device=True)\ndef put(a, i, v):\n    a[i + 1] = v\n";
    let kern = "from numba import cuda\nfrom helpers import put\n\n\n@cuda.jit\ndef kern(a):\n    i = cuda.grid(1)\n    put(a, i, 1.0)\n";
    let dir = folder_with(&[("helpers.py", helpers), ("kern.py", kern)]);
    let d = dir.path();
    let out = kernlint(d, &["run", "kern.py::kern", "--device", "sim", "--grid", "1", "--block", "32", "zeros:float32[32]"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("kern.py:8:5: sanitizer[out-of-bounds]: out-of-bounds access to a: index 32"), "{stdout}");
    let out = kernlint(d, &["compile", "kern.py::kern", "--sig", "void(float32[::1])", "--arch", "sm_90", "--lineinfo"]);
    let ptx = String::from_utf8_lossy(&out.stdout);
    // `.loc 1 LINE COLUMN`: kern.py's lines only, `put`'s code at its call.
    let lines: Vec<&str> = ptx.lines().filter_map(|l| l.trim().strip_prefix(".loc 1 ")).map(|l| l.split(' ').next().unwrap()).collect();
    assert_eq!(lines, ["7", "8"], "{ptx}");
    assert!(ptx.contains(".loc 1 8 5\n"), "{ptx}");
}

#[test]
fn a_finding_in_another_modules_device_function_names_the_call_that_made_it() {
    // `put` is lowered once for both calls: its code is located at whichever call a thread
    // entered it from (the old code placed every finding at the first call, line 8).
    let helpers = "from numba import cuda\n\n\n@cuda.jit(device=True)\ndef put(a, i, v):\n    a[i + 1] = v\n\n\n@cuda.jit(device=True)\ndef get(a, i):\n    return a[i]\n\n\n@cuda.jit(device=True)\ndef relay(a, i):\n    return get(a, i)\n";
    let kern = "from numba import cuda\nfrom helpers import put, relay\n\n\n@cuda.jit\ndef kern(a, o):\n    i = cuda.grid(1)\n    put(a, i - 1, 1.0)\n    cuda.syncthreads()\n    put(a, i, 2.0)\n    o[i] = relay(a, i)\n    o[i] += relay(a, i + 1)\n";
    let dir = folder_with(&[("helpers.py", helpers), ("kern.py", kern)]);
    let d = dir.path();
    let out = kernlint(d, &["run", "kern.py::kern", "--device", "sim", "--grid", "1", "--block", "32", "zeros:float32[32]", "zeros:float32[32]"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let findings: Vec<&str> = stdout.lines().filter(|l| l.contains("sanitizer[")).collect();
    // The write past the end comes from the second call; the read past it from the second
    // `relay`, through `get` (a call inside the other module).
    assert!(findings.iter().any(|l| l.starts_with("kern.py:10:5: sanitizer[out-of-bounds]: out-of-bounds access to a: index 32")), "{stdout}");
    assert!(findings.iter().any(|l| l.starts_with("kern.py:12:13: sanitizer[out-of-bounds]: out-of-bounds access to a: index 32")), "{stdout}");
    // A race's two accesses are both located at their calls: `get` (through `relay`) reads
    // what the second `put` wrote for the thread before.
    assert!(findings.iter().any(|l| l.starts_with("kern.py:11:12: sanitizer[global-race]") && l.ends_with("(the other access: kern.py:10:5)")), "{stdout}");
    assert!(!findings.iter().any(|l| l.starts_with("kern.py:8:")), "{stdout}");
    // In the PTX, each inlined copy has the line of its own call (the second `put` had
    // the first's, line 8).
    let out = kernlint(d, &["compile", "kern.py::kern", "--sig", "void(float32[::1], float32[::1])", "--arch", "sm_90", "--lineinfo"]);
    let ptx = String::from_utf8_lossy(&out.stdout);
    let mut lines: Vec<&str> = ptx.lines().filter_map(|l| l.trim().strip_prefix(".loc 1 ")).map(|l| l.split(' ').next().unwrap()).collect();
    lines.dedup();
    assert_eq!(lines, ["7", "8", "9", "10", "11", "12"], "{ptx}");
}
