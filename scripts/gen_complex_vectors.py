#!/usr/bin/env python3
"""Expected values of tests/complex.rs, printed as Rust (run in the oracle venv, which has
NumPy and numba-cuda; the output is the body of the test's `mod expected`).

- complex128 `+ - * /`: CPython's complex arithmetic, whose formulas are numba-cuda's
  (`complex_mul_impl`; `complex_div_impl` is CPython's `_Py_c_quot`); complex64: the same
  formulas in NumPy float32 (each operation rounded to float32, as Numba's compiled code).
- `cmath` of ordinary arguments: CPython's `cmath`.
- `cmath` of special arguments (infinities, NaNs, signed zeros, overflow) and `**`:
  numba-cuda's algorithms as kernlint's prelude writes them (src/analysis/ir/cmath_prelude.py,
  the same code), run by CPython over NumPy's float64 functions (libm, without CPython's
  domain errors).
- The Mandelbrot image of the Numba documentation's kernel: Numba's CUDA simulator.
"""
import math, os, sys, types, warnings
os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
import cmath as pycmath
import numpy as np

warnings.simplefilter("ignore")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
inf, nan = float("inf"), float("nan")
f32 = np.float32


def prelude():
    """The prelude's functions, run by CPython with float64 NumPy math."""
    src = open(os.path.join(ROOT, "src/analysis/ir/cmath_prelude.py")).read()
    src = src.replace("@cuda.jit(device=True)\n", "").replace("from numba import cuda\n", "")
    src = src.replace("import cmath\nimport math\n", "")
    f = lambda fn: (lambda *a: float(fn(*[float(x) for x in a])))
    m = types.SimpleNamespace(cos=f(np.cos), sin=f(np.sin), exp=f(np.exp), log=f(np.log), hypot=f(np.hypot),
                              atan2=f(np.arctan2), isfinite=math.isfinite, isnan=math.isnan, isinf=math.isinf,
                              copysign=math.copysign, sqrt=f(np.sqrt), cosh=f(np.cosh), sinh=f(np.sinh), tanh=f(np.tanh),
                              tan=f(np.tan), asinh=f(np.arcsinh), log1p=f(np.log1p), nan=math.nan, inf=math.inf,
                              pow=f(np.power))
    ns = {}
    exec(src, ns)
    ns["math"] = m
    names = ["exp", "log10", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan", "asinh", "acosh",
             "atanh", "phase", "polar", "rect"]
    c = types.SimpleNamespace(**{k: ns[k] for k in names})
    c.sqrt = ns["sqrt_c128"]
    c.log = lambda z, base=None: ns["log"](z) if base is None else ns["log_base"](z, base)
    c.pow = ns["pow_c128"]
    ns["cmath"] = c
    return c


NUMBA = prelude()


def lit(x):
    x = float(x)
    if math.isnan(x):
        return "f64::NAN"
    if math.isinf(x):
        return "f64::INFINITY" if x > 0 else "f64::NEG_INFINITY"
    r = repr(x)
    return r if ("e" in r or "." in r) else r + ".0"


def clit(z):
    return f"({lit(z.real)}, {lit(z.imag)})"


def div(a, b, t):
    ar, ai, br, bi = t(a.real), t(a.imag), t(b.real), t(b.imag)
    if not br and not bi:
        return None
    if abs(br) >= abs(bi):
        if not br:
            return (nan, nan)
        r = bi / br
        d = br + bi * r
        return ((ar + ai * r) / d, (ai - ar * r) / d)
    if not bi:
        return (nan, nan)
    r = br / bi
    d = br * r + bi
    return ((ar * r + ai) / d, (ai * r - ar) / d)


def mul(a, b, t):
    ar, ai, br, bi = t(a.real), t(a.imag), t(b.real), t(b.imag)
    return (ar * br - ai * bi, ar * bi + ai * br)


Z = [complex(1.5, -2.25), complex(-0.0, 3.0), complex(1e300, 1e-300), complex(0.1, 0.7), complex(inf, 1.0),
     complex(nan, 0.0), complex(3.0, 4.0), complex(-7.5, 0.0)]
W = [complex(0.5, 0.25), complex(2.0, -0.0), complex(1e-300, 1e300), complex(0.3, -1.9), complex(2.0, 3.0),
     complex(1.0, 1.0), complex(0.0, 0.0), complex(0.0, -2.0)]
X = [2.0, -0.5, 1e-10, 3.0, 0.0, 1.0, -4.0, 0.25]
for name, t in [("ARITH128", float), ("ARITH64", f32)]:
    print(f"    pub const {name}: &[Arith] = &[")
    for z, w, x in zip(Z, W, X):
        z, w, x = complex(t(z.real), t(z.imag)), complex(t(w.real), t(w.imag)), t(x)
        q, q2 = div(z, w, t), div(complex(x, 0), z, t)
        res = "None"
        if q is not None and q2 is not None:
            r = [(t(z.real) + t(w.real), t(z.imag) + t(w.imag)), (t(z.real) - t(w.real), t(z.imag) - t(w.imag)),
                 mul(z, w, t), q, (-t(z.real), -t(z.imag)), (t(z.real), -t(z.imag)), mul(z, complex(x, 0), t), q2]
            res = "Some([" + ", ".join(f"({lit(a)}, {lit(b)})" for a, b in r) + "])"
        eq = t(z.real) == t(w.real) and t(z.imag) == t(w.imag)
        ne = t(z.real) != t(w.real) or t(z.imag) != t(w.imag)
        tr = t(z.real) != 0 or t(z.imag) != 0
        flags = ", ".join(str(b).lower() for b in (eq, ne, tr))
        print(f"        ({clit(z)}, {clit(w)}, {lit(x)}, {res}, [{flags}]),")
    print("    ];")

FUNCTIONS = ["exp", "log", "log10", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan",
             "asinh", "acosh", "atanh"]
REGULAR = [complex(0.5, 0.25), complex(-1.25, 2.0), complex(3.0, -0.75), complex(-0.3, -0.4), complex(10.0, 1.0),
           complex(0.0, 2.0), complex(-2.0, 0.0), complex(1e-8, 1e-8)]
SPECIAL = [complex(0.0, 0.0), complex(-0.0, 0.0), complex(1.0, 0.0), complex(inf, 0.0), complex(-inf, 1.0),
           complex(nan, 0.0), complex(1.0, inf), complex(0.0, nan), complex(1e300, 1e300), complex(3.0, -inf)]


def cmath_row(z, c):
    values = [complex(getattr(c, f)(z)) for f in FUNCTIONS]
    values.append(complex(c.phase(z)))
    r, p = c.polar(z)
    values.append(complex(r, p))
    values.append(complex(c.rect(z.real, z.imag)))
    values.append(complex(c.log(z, complex(2, 1))))
    return values


for name, inputs, c in [("CMATH_REGULAR", REGULAR, pycmath), ("CMATH_SPECIAL", SPECIAL, NUMBA)]:
    print(f"    pub const {name}: &[Cmath] = &[")
    for z in inputs:
        print(f"        ({clit(z)}, &[" + ", ".join(clit(v) for v in cmath_row(z, c)) + "]),")
    print("    ];")

print("    pub const POWERS: &[Powers] = &[")
for z in REGULAR + SPECIAL[:3]:
    p = NUMBA.pow
    row = [p(z, complex(2, 0)), p(z, complex(0.5, 1.0)), p(z, complex(0.5, 0)), p(complex(2, 0), z), p(z, complex(0, 0))]
    print(f"        ({clit(z)}, [" + ", ".join(clit(complex(v)) for v in row) + "]),")
print("    ];")

sys.path.insert(0, os.path.join(ROOT, "tests/kernels"))
from complex_kernels import mandel_kernel  # noqa: E402
image = np.zeros((24, 32), np.uint8)
mandel_kernel[(2, 2), (16, 16)](image, -2.0, 1.0, -1.0, 1.0, 20)
print('    pub const MANDELBROT: &str = "' + "".join(chr(ord("a") + int(v)) for v in image.ravel()) + '";')
