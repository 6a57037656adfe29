//! Launch recipes: how to run a kernel, read from host code or a comment.

use kernlint::analysis::{RootDatabase, SourceFile};
use kernlint::launch::recipe::{RecipeSource, launch_recipes};

const SOURCE: &str = r#"import numpy as np
from numba import cuda

N = 1000


@cuda.jit
def saxpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


# kernlint: run grid=(2,2) block=(8,8) args=zeros:float32[16,16],arange:float32[16,16]
@cuda.jit
def double(out, x):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = 2 * x[i, j]


def main(m):
    n = N * 2
    x = np.random.rand(n).astype(np.float32)
    y = np.ones(n, dtype=np.float32)
    out = np.zeros_like(x)
    d_out = cuda.to_device(out)
    saxpy[(n + 255) // 256, 256](d_out, np.float32(2.0), x, y)
    saxpy[m, 256](d_out, 2.0, x, y)  # unknown grid: no recipe
"#;

#[test]
fn recipes_from_launch_sites_and_comments() {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "k.py".into(), SOURCE.to_string());
    let saxpy = launch_recipes(&db, file, "saxpy");
    assert_eq!(saxpy.len(), 1, "{saxpy:?}");
    assert_eq!(saxpy[0].grid, [8, 1, 1]);
    assert_eq!(saxpy[0].block, [256, 1, 1]);
    assert_eq!(saxpy[0].args, ["zeros:float32[2000]", "2.0", "rand:float32[2000]", "ones:float32[2000]"]);
    assert!(matches!(saxpy[0].source, RecipeSource::LaunchSite(_)));

    let double = launch_recipes(&db, file, "double");
    assert_eq!(double.len(), 1);
    assert_eq!(double[0].grid, [2, 2, 1]);
    assert_eq!(double[0].args, ["zeros:float32[16,16]", "arange:float32[16,16]"]);
    assert_eq!(double[0].source, RecipeSource::Comment);
}

#[test]
fn run_without_a_launch_uses_the_recipe() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.py");
    std::fs::write(&path, SOURCE).unwrap();
    // Without a signature anywhere, the comment's arguments type the kernel, as a launch would.
    for sig in [&["--sig", "void(float32[:, ::1], float32[:, ::1])"][..], &[]] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_kernlint"))
            .args(["run", &format!("{}::double", path.display()), "--device", "sim"])
            .args(sig)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{sig:?}: {stdout}{}", String::from_utf8_lossy(&out.stderr));
        // out = 2 * arange over 16 x 16: max 510, mean 255.
        assert!(stdout.contains("out: shape [16, 16], dtype <f4, min 0, max 510, mean 255"), "{stdout}");
    }
}

#[test]
fn undefined_host_memory_is_an_empty_argument_unless_host_code_touches_it_first() {
    let source = r#"import numpy as np
from numba import cuda


@cuda.jit
def acc(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] += x[i]


def fresh():
    x = np.ones(64, dtype=np.float32)
    out = cuda.device_array_like(x)
    acc[1, 64](x, out)


def fresh_np():
    x = np.zeros((4, 16), dtype=np.float64)
    out = np.empty((4, 16))
    acc[1, 64](x, out)


def filled():
    x = np.ones(64, dtype=np.float32)
    out = np.empty(64, dtype=np.float32)
    out[:] = 0
    acc[1, 64](x, out)


def written_by_an_earlier_launch():
    x = cuda.device_array(64, dtype=np.float32)
    out = np.zeros(64, dtype=np.float32)
    acc[1, 64](out, x)
    acc[1, 64](x, out)
"#;
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "k.py".into(), source.to_string());
    let args: Vec<Vec<String>> = launch_recipes(&db, file, "acc").into_iter().map(|r| r.args).collect();
    assert_eq!(args, [
        vec!["ones:float32[64]", "empty:float32[64]"],
        vec!["zeros:float64[4,16]", "empty:float64[4,16]"],
        vec!["ones:float32[64]", "zeros:float32[64]"],
        // The first launch reads `x` before anything wrote it; the second reads it after.
        vec!["zeros:float32[64]", "empty:float32[64]"],
        vec!["zeros:float32[64]", "zeros:float32[64]"],
    ]);
}

#[test]
fn a_script_launching_at_module_level_gives_a_recipe() {
    // The arrays are other top-level statements than the launch; so is a module array the
    // launch in a function reads. Grids computed from the arrays' extents count.
    let source = r#"import math
import numpy as np
from numba import cuda

@cuda.jit
def scale(out, x, m):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] * m

n = 64
x = np.arange(n, dtype=np.float32)
out = np.zeros(n, dtype=np.float32)
threads = 32
scale[(x.size + threads - 1) // threads, threads](out, x, 2)

def again():
    scale[1, 64](out, x, np.float32(3))
    blocks = math.ceil(len(x) / 24)
    scale[blocks, 24](out, x, 1)
    scale[int(np.ceil(x.shape[0] / 48)), (48,)](out, x, 1)
    scale[np.ceil(x.shape[0] / 48), 48](out, x, 1)  # a float grid: Numba refuses it
"#;
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "k.py".into(), source.to_string());
    let recipes = launch_recipes(&db, file, "scale");
    assert_eq!(recipes.len(), 4, "{recipes:?}");
    assert_eq!((recipes[0].grid, recipes[0].block), ([2, 1, 1], [32, 1, 1]));
    assert_eq!(recipes[0].args, ["zeros:float32[64]", "arange:float32[64]", "2"]);
    assert_eq!((recipes[1].grid, recipes[1].block), ([1, 1, 1], [64, 1, 1]));
    assert_eq!((recipes[2].grid, recipes[2].block), ([3, 1, 1], [24, 1, 1]));
    assert_eq!((recipes[3].grid, recipes[3].block), ([2, 1, 1], [48, 1, 1]));
}

#[test]
fn recipe_arrays_follow_the_launching_function_before_the_module() {
    // `x` is a parameter of `run`: it shadows the module's `x`, so its launch has no recipe.
    // CuPy arrays and shapes taken from another array's extent count.
    let source = r#"import cupy as cp
import numpy as np
from numba import cuda

@cuda.jit
def scale(out, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] * 2

x = np.ones(16, dtype=np.float32)

def run(x):
    out = np.zeros(x.size, dtype=np.float32)
    scale[1, 16](out, x)

def main():
    src = cp.arange(48, dtype=cp.float32)
    out = cp.empty(src.size, dtype=cp.float32)
    scale[(out.shape[0] + 15) // 16, 16](out, src)
"#;
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "k.py".into(), source.to_string());
    let recipes = launch_recipes(&db, file, "scale");
    assert_eq!(recipes.len(), 1, "{recipes:?}");
    assert_eq!((recipes[0].grid, recipes[0].block), ([3, 1, 1], [16, 1, 1]));
    assert_eq!(recipes[0].args, ["empty:float32[48]", "arange:float32[48]"]);
}
