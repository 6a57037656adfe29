//! # KL001: syntax error
//!
//! ## What it does
//! Reports Python syntax errors, at their location: the first error of each line (the
//! parser's later errors on a line mostly echo it). An IPython line left in a `.py` file
//! (`%matplotlib inline`, `!pip install numba`) is named as such.
//!
//! ## Why is this bad?
//! Python cannot import the module, so no kernel in it can run. kernlint recovers from the
//! error and still analyses every definition it could read, so one half-typed line does
//! not hide the findings in the rest of the file.
//!
//! ## Example
//! ```python
//! from numba import cuda
//!
//! @cuda.jit
//! def scale(out, x):
//!     i = cuda.grid(1
//!     out[i] = 2 * x[i]
//! ```
//!
//! ## Use instead
//! ```python
//! from numba import cuda
//!
//! @cuda.jit
//! def scale(out, x):
//!     i = cuda.grid(1)
//!     out[i] = 2 * x[i]
//! ```
