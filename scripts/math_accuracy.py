#!/usr/bin/env python3
"""Max ulp error of kernlint's math functions against a 256-bit mpmath reference.

    KERNLINT_MATH_DUMP=/tmp/mathdump KERNLINT_MATH_SAMPLES=100000 \
        cargo test --release --test math
    python3 scripts/math_accuracy.py /tmp/mathdump

Reads the `<fn>_<f32|f64>.txt` files tests/math.rs writes (input, second input, result, as
hex bits per line) and prints the largest error per function, in ulps of the exact result
(the reference is rounded to nothing: the error is |result - exact| / ulp(exact)).
"""

import math
import os
import struct
import sys

import mpmath

mpmath.mp.prec = 256

FUNCS = {
    "exp": lambda a, b: mpmath.exp(a),
    "exp2": lambda a, b: mpmath.power(2, a),
    "expm1": lambda a, b: mpmath.expm1(a),
    "log": lambda a, b: mpmath.log(a),
    "log2": lambda a, b: mpmath.log(a, 2),
    "log10": lambda a, b: mpmath.log10(a),
    "log1p": lambda a, b: mpmath.log1p(a),
    "sin": lambda a, b: mpmath.sin(a),
    "cos": lambda a, b: mpmath.cos(a),
    "tan": lambda a, b: mpmath.tan(a),
    "asin": lambda a, b: mpmath.asin(a),
    "acos": lambda a, b: mpmath.acos(a),
    "atan": lambda a, b: mpmath.atan(a),
    "atan2": lambda a, b: mpmath.atan2(a, b),
    "sinh": lambda a, b: mpmath.sinh(a),
    "cosh": lambda a, b: mpmath.cosh(a),
    "tanh": lambda a, b: mpmath.tanh(a),
    "pow": lambda a, b: mpmath.power(a, b),
    "erf": lambda a, b: mpmath.erf(a),
    "hypot": lambda a, b: mpmath.hypot(a, b),
    # mpmath's cbrt of a negative number is the complex principal root.
    "cbrt": lambda a, b: mpmath.sign(a) * mpmath.cbrt(abs(a)),
    "asinh": lambda a, b: mpmath.asinh(a),
    "acosh": lambda a, b: mpmath.acosh(a),
    "atanh": lambda a, b: mpmath.atanh(a),
    # mpmath's erfc overflows a float on huge arguments; erfc is 0 or 2 there.
    "erfc": lambda a, b: mpmath.erfc(a) if abs(a) < 1e4 else mpmath.mpf(0 if a > 0 else 2),
    "lgamma": lambda a, b: lgamma(a),
    "gamma": lambda a, b: mpmath.gamma(a),
}


def lgamma(a):
    """log|gamma(a)|: +inf at the poles, the reflection formula below 0 (mpmath's loggamma
    of a negative number is the complex principal branch)."""
    if a > 0:
        return mpmath.loggamma(a)
    if a == mpmath.floor(a):
        return mpmath.inf
    return mpmath.log(mpmath.pi) - mpmath.log(abs(mpmath.sinpi(a))) - mpmath.loggamma(1 - a)


def unbounded(name, a, fmt):
    """Where CUDA documents no bound: lgamma around its negative zeros (tests/math.rs)."""
    lo, hi = (-11.0001, -2.2637) if fmt == "f64" else (-10.001, -2.264)
    return name == "lgamma" and lo <= a <= hi

FORMATS = {
    # significand bits, minimum normal exponent, largest finite value
    "f32": (24, -126, struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0]),
    "f64": (53, -1022, sys.float_info.max),
}


def decode(h, fmt):
    if fmt == "f32":
        return struct.unpack("<f", struct.pack("<I", int(h, 16)))[0]
    return struct.unpack("<d", struct.pack("<Q", int(h, 16)))[0]


def ulp_error(got, exact, fmt):
    p, emin, fmax = FORMATS[fmt]
    if math.isnan(got):
        return None  # the caller decides whether NaN was right
    if exact == 0:
        return 0.0 if got == 0 else math.inf
    e = max(int(mpmath.floor(mpmath.log(abs(exact), 2))), emin)
    ulp = mpmath.mpf(2) ** (e - p + 1)
    if math.isinf(got):
        # Overflow is right when the exact value is past the largest finite one by half an ulp.
        emax = 1023 if fmt == "f64" else 127
        top = mpmath.mpf(fmax) + mpmath.mpf(2) ** (emax - p)
        return 0.0 if abs(exact) >= top and (got > 0) == (exact > 0) else math.inf
    return float(abs(mpmath.mpf(got) - exact) / ulp)


def check(path):
    name, fmt = os.path.basename(path)[:-4].rsplit("_", 1)
    f = FUNCS[name]
    worst = (0.0, None)
    worst_unbounded = 0.0
    bad = []
    n = 0
    with open(path) as fh:
        for line in fh:
            ha, hb, hr = line.split()
            a, b, r = decode(ha, fmt), decode(hb, fmt), decode(hr, fmt)
            n += 1
            if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
                continue  # special values: tests/math.rs checks them
            if (name == "pow" and a == 0) or (name == "atan2" and (a == 0 or b == 0)):
                continue  # signed zeros: tests/math.rs checks them
            if name == "gamma" and a == 0:
                continue  # gamma(±0) = ±inf: tests/math.rs checks it
            try:
                exact = f(mpmath.mpf(a), mpmath.mpf(b))
            except (ValueError, ZeroDivisionError):
                exact = None
            if exact is None or isinstance(exact, mpmath.mpc) or (hasattr(exact, "imag") and exact.imag != 0):
                if not math.isnan(r):
                    bad.append((a, b, r, "want NaN"))
                continue
            if mpmath.isinf(exact):
                if not (math.isinf(r) and (r > 0) == (exact > 0)):
                    bad.append((a, b, r, "want inf"))
                continue
            err = ulp_error(r, exact, fmt)
            if err is None:
                bad.append((a, b, r, "NaN"))
                continue
            if unbounded(name, a, fmt):
                worst_unbounded = max(worst_unbounded, err)
            elif err > worst[0]:
                worst = (err, (a, b, r, float(exact)))
    return name, fmt, n, worst, worst_unbounded, bad


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "/tmp/mathdump"
    files = sorted(f for f in os.listdir(d) if f.endswith(".txt"))
    for fname in files:
        name, fmt, n, (err, at), err_unbounded, bad = check(os.path.join(d, fname))
        where = ""
        if at is not None:
            a, b, r, exact = at
            where = f" at {a!r}" + (f", {b!r}" if name in ("atan2", "pow", "hypot") else "") + f" -> {r!r} (exact {exact!r})"
        print(f"{fmt} {name:<6} {n:>7} inputs  max {err:.3f} ulp{where}")
        if name == "lgamma":
            print(f"    around the negative zeros (CUDA documents no bound): max {err_unbounded:.3f} ulp")
        for case in bad[:5]:
            print(f"    wrong special case: {case}")


if __name__ == "__main__":
    main()
