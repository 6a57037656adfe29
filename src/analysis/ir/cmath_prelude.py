# kernlint's complex-number prelude: numba-cuda's own implementations of complex division,
# complex power and the `cmath` functions, written as device functions that kernlint types
# and lowers like any other (so that float32 and float64 mix inside them exactly as Numba's
# typing mixes them). The lowering calls them for `/` and `**` on complex numbers and for
# `cmath.<name>` (`<name>_c64` / `<name>_c128` where numba-cuda's constants depend on the
# type); a ConcreteTemplate's result (`cmath.exp` of a complex64 is a complex64) is the
# function's result converted, as `compile_internal` converts it.
#
# Sources (numba-cuda): cpython/numbers.py (complex_div), mathimpl.py (cpow_implement),
# cpython/cmathimpl.py (everything else). The globals those closures capture are spelled
# out below with their Numba types: numba-cuda computes `FLT_MAX / 4` and the square root
# thresholds with NumPy scalars, so those are float32 (or float64) globals, not floats.
import cmath
import math

import numpy as np
from numba import cuda

# cmathimpl.acos_impl / acosh / asinh: THRES = mathimpl.FLT_MAX / 4 (a np.float32).
THRES_FLT_MAX_4 = np.float32(8.5070586659632215e37)
# cmathimpl.sqrt_impl: THRES = MAX / (1 + sqrt(2)), MAX the type's np.finfo(...).max.
SQRT_THRES_F32 = np.float32(1.4094955303793193e38)
SQRT_THRES_F64 = np.float64(7.446288774449766e307)
# math.log(4), math.pi / 2, the ln(10) literal of log10, atanh's thresholds (floats).
LN_4 = 1.3862943611198906
PI_12 = 1.5707963267948966
LN_10 = 2.302585092994046
THRES_LARGE = 9.223371761976865e18
THRES_SMALL = 1.0842021724855044e-19


# numbers.py complex_div_impl: CPython's _Py_c_quot.
@cuda.jit(device=True)
def div(a, b):
    areal = a.real
    aimag = a.imag
    breal = b.real
    bimag = b.imag
    if not breal and not bimag:
        raise ZeroDivisionError("complex division by zero")
    if abs(breal) >= abs(bimag):
        # Divide tops and bottom by b.real
        if not breal:
            return complex(math.nan, math.nan)
        ratio = bimag / breal
        denom = breal + bimag * ratio
        return complex((areal + aimag * ratio) / denom, (aimag - areal * ratio) / denom)
    else:
        # Divide tops and bottom by b.imag
        if not bimag:
            return complex(math.nan, math.nan)
        ratio = breal / bimag
        denom = breal * ratio + bimag
        return complex((a.real * ratio + a.imag) / denom, (a.imag * ratio - a.real) / denom)


# mathimpl.py cpow_implement(float32, complex64): CPython's _Py_c_pow.
@cuda.jit(device=True)
def pow_c64(a, b):
    if b.real == np.float32(0.0) and b.imag == np.float32(0.0):
        return np.complex64(1.0) + np.complex64(0.0j)
    elif a.real == np.float32(0.0) and b.real == np.float32(0.0):
        return np.complex64(0.0) + np.complex64(0.0j)
    vabs = math.hypot(a.real, a.imag)
    length = math.pow(vabs, b.real)
    at = math.atan2(a.imag, a.real)
    phase = at * b.real
    if b.imag != np.float32(0.0):
        length /= math.exp(at * b.imag)
        phase += b.imag * math.log(vabs)
    return length * (np.complex64(math.cos(phase)) + np.complex64(math.sin(phase) * np.complex64(1.0j)))


# mathimpl.py cpow_implement(float64, complex128).
@cuda.jit(device=True)
def pow_c128(a, b):
    if b.real == np.float64(0.0) and b.imag == np.float64(0.0):
        return np.complex128(1.0) + np.complex128(0.0j)
    elif a.real == np.float64(0.0) and b.real == np.float64(0.0):
        return np.complex128(0.0) + np.complex128(0.0j)
    vabs = math.hypot(a.real, a.imag)
    length = math.pow(vabs, b.real)
    at = math.atan2(a.imag, a.real)
    phase = at * b.real
    if b.imag != np.float64(0.0):
        length /= math.exp(at * b.imag)
        phase += b.imag * math.log(vabs)
    return length * (np.complex128(math.cos(phase)) + np.complex128(math.sin(phase) * np.complex128(1.0j)))


# cmathimpl.rect (an @overload: its result type is this function's).
@cuda.jit(device=True)
def rect(r, phi):
    if not math.isfinite(phi):
        if not r:
            # cmath.rect(0, phi={inf, nan}) = 0
            return abs(r)
        if math.isinf(r):
            # cmath.rect(inf, phi={inf, nan}) = inf + j phi
            return complex(r, phi)
    real = math.cos(phi)
    imag = math.sin(phi)
    if real == 0.0 and math.isinf(r):
        # 0 * inf would return NaN, we want to keep 0 but xor the sign
        real /= r
    else:
        real *= r
    if imag == 0.0 and math.isinf(r):
        # ditto
        imag /= r
    else:
        imag *= r
    return complex(real, imag)


# cmathimpl.exp_impl (intrinsic_complex_unary: the parts and their finiteness passed in).
@cuda.jit(device=True)
def exp_parts(x, y, x_is_finite, y_is_finite):
    if x_is_finite:
        if y_is_finite:
            c = math.cos(y)
            s = math.sin(y)
            r = math.exp(x)
            return complex(r * c, r * s)
        else:
            return complex(math.nan, math.nan)
    elif math.isnan(x):
        if y:
            return complex(x, x)  # nan + j nan
        else:
            return complex(x, y)  # nan + 0j
    elif x > 0.0:
        # x == +inf
        if y_is_finite:
            real = math.cos(y)
            imag = math.sin(y)
            # Avoid NaNs if math.cos(y) or math.sin(y) == 0
            # (e.g. cmath.exp(inf + 0j) == inf + 0j)
            if real != 0:
                real *= x
            if imag != 0:
                imag *= x
            return complex(real, imag)
        else:
            return complex(x, math.nan)
    else:
        # x == -inf
        if y_is_finite:
            r = math.exp(x)
            c = math.cos(y)
            s = math.sin(y)
            return complex(r * c, r * s)
        else:
            r = 0
            return complex(r, r)


@cuda.jit(device=True)
def exp(z):
    return exp_parts(z.real, z.imag, math.isfinite(z.real), math.isfinite(z.imag))


# cmathimpl.log_impl (intrinsic_complex_unary).
@cuda.jit(device=True)
def log_parts(x, y, x_is_finite, y_is_finite):
    a = math.log(math.hypot(x, y))
    b = math.atan2(y, x)
    return complex(a, b)


@cuda.jit(device=True)
def log(z):
    return log_parts(z.real, z.imag, math.isfinite(z.real), math.isfinite(z.imag))


# cmathimpl.log_base_impl.
@cuda.jit(device=True)
def log_base(z, base):
    return cmath.log(z) / cmath.log(base)


# cmathimpl.impl_cmath_log10 (@overload).
@cuda.jit(device=True)
def log10(z):
    z = cmath.log(z)
    # This formula gives better results on +/-inf than cmath.log(z, 10)
    # See http://bugs.python.org/issue22544
    return complex(z.real / LN_10, z.imag / LN_10)


# cmathimpl.phase_impl (@overload).
@cuda.jit(device=True)
def phase(x):
    return math.atan2(x.imag, x.real)


# cmathimpl.polar_impl (@overload).
@cuda.jit(device=True)
def polar(x):
    r, i = x.real, x.imag
    return math.hypot(r, i), math.atan2(i, r)


# cmathimpl.sqrt_impl: NumPy's npy_csqrt, with the threshold of the argument's float type.
@cuda.jit(device=True)
def sqrt_c64(z):
    a = z.real
    b = z.imag
    if a == 0.0 and b == 0.0:
        return complex(abs(b), b)
    if math.isinf(b):
        return complex(abs(b), b)
    if math.isnan(a):
        return complex(a, a)
    if math.isinf(a):
        if a < 0.0:
            return complex(abs(b - b), math.copysign(a, b))
        else:
            return complex(a, math.copysign(b - b, b))
    # The remaining special case (b is NaN) is handled just fine by
    # the normal code path below.
    # Scale to avoid overflow
    if abs(a) >= SQRT_THRES_F32 or abs(b) >= SQRT_THRES_F32:
        a *= 0.25
        b *= 0.25
        scale = True
    else:
        scale = False
    # Algorithm 312, CACM vol 10, Oct 1967
    if a >= 0:
        t = math.sqrt((a + math.hypot(a, b)) * 0.5)
        real = t
        imag = b / (2 * t)
    else:
        t = math.sqrt((-a + math.hypot(a, b)) * 0.5)
        real = abs(b) / (2 * t)
        imag = math.copysign(t, b)
    # Rescale
    if scale:
        return complex(real * 2, imag)
    else:
        return complex(real, imag)


@cuda.jit(device=True)
def sqrt_c128(z):
    a = z.real
    b = z.imag
    if a == 0.0 and b == 0.0:
        return complex(abs(b), b)
    if math.isinf(b):
        return complex(abs(b), b)
    if math.isnan(a):
        return complex(a, a)
    if math.isinf(a):
        if a < 0.0:
            return complex(abs(b - b), math.copysign(a, b))
        else:
            return complex(a, math.copysign(b - b, b))
    if abs(a) >= SQRT_THRES_F64 or abs(b) >= SQRT_THRES_F64:
        a *= 0.25
        b *= 0.25
        scale = True
    else:
        scale = False
    if a >= 0:
        t = math.sqrt((a + math.hypot(a, b)) * 0.5)
        real = t
        imag = b / (2 * t)
    else:
        t = math.sqrt((-a + math.hypot(a, b)) * 0.5)
        real = abs(b) / (2 * t)
        imag = math.copysign(t, b)
    if scale:
        return complex(real * 2, imag)
    else:
        return complex(real, imag)


# cmathimpl.cos_impl: cmath.cos(z) = cmath.cosh(z j).
@cuda.jit(device=True)
def cos(z):
    return cmath.cosh(complex(-z.imag, z.real))


# cmathimpl.impl_cmath_cosh (@overload).
@cuda.jit(device=True)
def cosh(z):
    x = z.real
    y = z.imag
    if math.isinf(x):
        if math.isnan(y):
            # x = +inf, y = NaN => cmath.cosh(x + y j) = inf + Nan * j
            real = abs(x)
            imag = y
        elif y == 0.0:
            # x = +inf, y = 0 => cmath.cosh(x + y j) = inf + 0j
            real = abs(x)
            imag = y
        else:
            real = math.copysign(x, math.cos(y))
            imag = math.copysign(x, math.sin(y))
        if x < 0.0:
            # x = -inf => negate imaginary part of result
            imag = -imag
        return complex(real, imag)
    return complex(math.cos(y) * math.cosh(x), math.sin(y) * math.sinh(x))


# cmathimpl.sin_impl: cmath.sin(z) = -j * cmath.sinh(z j).
@cuda.jit(device=True)
def sin(z):
    r = cmath.sinh(complex(-z.imag, z.real))
    return complex(r.imag, -r.real)


# cmathimpl.impl_cmath_sinh (@overload).
@cuda.jit(device=True)
def sinh(z):
    x = z.real
    y = z.imag
    if math.isinf(x):
        if math.isnan(y):
            # x = +/-inf, y = NaN => cmath.sinh(x + y j) = x + NaN * j
            real = x
            imag = y
        else:
            real = math.cos(y)
            imag = math.sin(y)
            if real != 0.0:
                real *= x
            if imag != 0.0:
                imag *= abs(x)
        return complex(real, imag)
    return complex(math.cos(y) * math.sinh(x), math.sin(y) * math.cosh(x))


# cmathimpl.tan_impl: cmath.tan(z) = -j * cmath.tanh(z j).
@cuda.jit(device=True)
def tan(z):
    r = cmath.tanh(complex(-z.imag, z.real))
    return complex(r.imag, -r.real)


# cmathimpl.impl_cmath_tanh (@overload): CPython's c_tanh.
@cuda.jit(device=True)
def tanh(z):
    x = z.real
    y = z.imag
    if math.isinf(x):
        real = math.copysign(1.0, x)
        if math.isinf(y):
            imag = 0.0
        else:
            imag = math.copysign(0.0, math.sin(2.0 * y))
        return complex(real, imag)
    tx = math.tanh(x)
    ty = math.tan(y)
    cx = 1.0 / math.cosh(x)
    txty = tx * ty
    denom = 1.0 + txty * txty
    return complex(tx * (1.0 + ty * ty) / denom, ((ty / denom) * cx) * cx)


# cmathimpl.acos_impl: CPython's c_acos.
@cuda.jit(device=True)
def acos(z):
    if abs(z.real) > THRES_FLT_MAX_4 or abs(z.imag) > THRES_FLT_MAX_4:
        # Avoid unnecessary overflow for large arguments
        # (also handles infinities gracefully)
        real = math.atan2(abs(z.imag), z.real)
        imag = math.copysign(math.log(math.hypot(z.real * 0.5, z.imag * 0.5)) + LN_4, -z.imag)
        return complex(real, imag)
    else:
        s1 = cmath.sqrt(complex(1.0 - z.real, -z.imag))
        s2 = cmath.sqrt(complex(1.0 + z.real, z.imag))
        real = 2.0 * math.atan2(s1.real, s2.real)
        imag = math.asinh(s2.real * s1.imag - s2.imag * s1.real)
        return complex(real, imag)


# cmathimpl.impl_cmath_acosh (@overload): CPython's c_acosh.
@cuda.jit(device=True)
def acosh(z):
    if abs(z.real) > THRES_FLT_MAX_4 or abs(z.imag) > THRES_FLT_MAX_4:
        # Avoid unnecessary overflow for large arguments
        # (also handles infinities gracefully)
        real = math.log(math.hypot(z.real * 0.5, z.imag * 0.5)) + LN_4
        imag = math.atan2(z.imag, z.real)
        return complex(real, imag)
    else:
        s1 = cmath.sqrt(complex(z.real - 1.0, z.imag))
        s2 = cmath.sqrt(complex(z.real + 1.0, z.imag))
        real = math.asinh(s1.real * s2.real + s1.imag * s2.imag)
        imag = 2.0 * math.atan2(s1.imag, s2.real)
        return complex(real, imag)


# cmathimpl.asinh_impl: CPython's c_asinh.
@cuda.jit(device=True)
def asinh(z):
    if abs(z.real) > THRES_FLT_MAX_4 or abs(z.imag) > THRES_FLT_MAX_4:
        real = math.copysign(math.log(math.hypot(z.real * 0.5, z.imag * 0.5)) + LN_4, z.real)
        imag = math.atan2(z.imag, abs(z.real))
        return complex(real, imag)
    else:
        s1 = cmath.sqrt(complex(1.0 + z.imag, -z.real))
        s2 = cmath.sqrt(complex(1.0 - z.imag, z.real))
        real = math.asinh(s1.real * s2.imag - s2.real * s1.imag)
        imag = math.atan2(z.imag, s1.real * s2.real - s1.imag * s2.imag)
        return complex(real, imag)


# cmathimpl.asin_impl: cmath.asin(z) = -j * cmath.asinh(z j).
@cuda.jit(device=True)
def asin(z):
    r = cmath.asinh(complex(-z.imag, z.real))
    return complex(r.imag, -r.real)


# cmathimpl.atan_impl: cmath.atan(z) = -j * cmath.atanh(z j).
@cuda.jit(device=True)
def atan(z):
    r = cmath.atanh(complex(-z.imag, z.real))
    if math.isinf(z.real) and math.isnan(z.imag):
        # XXX this is odd but necessary
        return complex(r.imag, r.real)
    else:
        return complex(r.imag, -r.real)


# cmathimpl.atanh_impl: CPython's c_atanh.
@cuda.jit(device=True)
def atanh(z):
    if z.real < 0.0:
        # Reduce to case where z.real >= 0., using atanh(z) = -atanh(-z).
        negate = True
        z = -z
    else:
        negate = False

    ay = abs(z.imag)
    if math.isnan(z.real) or z.real > THRES_LARGE or ay > THRES_LARGE:
        if math.isinf(z.imag):
            real = math.copysign(0.0, z.real)
        elif math.isinf(z.real):
            real = 0.0
        else:
            # may be safe from overflow, depending on hypot's implementation...
            h = math.hypot(z.real * 0.5, z.imag * 0.5)
            real = z.real / 4.0 / h / h
        imag = -math.copysign(PI_12, -z.imag)
    elif z.real == 1.0 and ay < THRES_SMALL:
        # C99 standard says:  atanh(1+/-0.) should be inf +/- 0j
        if ay == 0.0:
            real = math.inf
            imag = z.imag
        else:
            real = -math.log(math.sqrt(ay) / math.sqrt(math.hypot(ay, 2.0)))
            imag = math.copysign(math.atan2(2.0, -ay) / 2, z.imag)
    else:
        sqay = ay * ay
        zr1 = 1 - z.real
        real = math.log1p(4.0 * z.real / (zr1 * zr1 + sqay)) * 0.25
        imag = -math.atan2(-2.0 * z.imag, zr1 * (1 + z.real) - sqay) * 0.5

    if math.isnan(z.imag):
        imag = math.nan
    if negate:
        return complex(-real, -imag)
    else:
        return complex(real, imag)
