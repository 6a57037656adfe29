//! `for` loops over what Numba iterates: arrays (rows of a 2-D array are views), tuples,
//! `enumerate` (with a start) and `zip` (stopping at the shortest). The simulator computes
//! what Numba does and the PTX backend compiles each kernel to PTX that ptxas accepts.

#[path = "support/ptxas.rs"]
mod ptxas;
#[path = "support/kernel_runs.rs"]
mod kernel_runs;

use kernel_runs::from_values;
use kernlint::launch::HostArg;

fn f64s(values: &[f64]) -> HostArg {
    from_values("<f8", values, |v| v.to_le_bytes().to_vec())
}

fn read_f64s(a: &kernlint::launch::npy::NpyArray) -> Vec<f64> {
    a.data.chunks(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect()
}

const ITERATION: &str = "\
from numba import cuda

@cuda.jit
def walk(out, grid, a, b):
    i = cuda.grid(1)
    if i == 0:
        rows = 0.0
        for row in grid:
            for v in row:
                rows += v
        out[0] = rows
        weighted = 0.0
        for j, v in enumerate(a, 10):
            weighted += j * v
        out[1] = weighted
        dot = 0.0
        steps = 0
        for x, y in zip(a, b):
            dot += x * y
            steps += 1
        out[2] = dot
        out[3] = steps
        for k, (x, y) in enumerate(zip(b, a)):
            out[4] += k * (x - y)
        for t in (1.5, 2.5, 3.5):
            out[5] += t
";

#[test]
fn loops_walk_arrays_tuples_enumerate_and_zip() {
    let grid = from_values("<f8", &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], |v: f64| v.to_le_bytes().to_vec());
    let grid = match grid {
        HostArg::Array(mut a) => {
            a.shape = vec![2, 3];
            HostArg::Array(a)
        }
        other => other,
    };
    let a = [1.0, 2.0, 3.0];
    let b = [4.0, 5.0, 6.0, 7.0, 8.0];
    let outputs = kernel_runs::run(
        ITERATION,
        "walk",
        "void(float64[::1], float64[:, ::1], float64[::1], float64[::1])",
        1,
        &[f64s(&[0.0; 6]), grid, f64s(&a), f64s(&b)],
    );
    let out = read_f64s(outputs[0].as_ref().unwrap());
    // rows: 1+..+6; enumerate from 10: 10*1 + 11*2 + 12*3; zip stops after a's 3 items.
    let expected = [21.0, 68.0, 32.0, 3.0, 0.0 * 3.0 + 1.0 * 3.0 + 2.0 * 3.0, 7.5];
    assert_eq!(out, expected);
}
