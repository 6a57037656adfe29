#!/usr/bin/env python3
"""Differential check of kernlint's math on a GPU (not a test: run it where a GPU is).

For every math function and exactly rounded operation kernlint compiles (the shared math
library, the exact functions, float ** int, math.pow with int32, frexp/modf, libdevice's
directed-rounding arithmetic), one kernel is run over the same inputs three ways:

  - `kernlint run --device gpu` (our PTX on the GPU),
  - `kernlint run --device sim` (our simulator),
  - Numba on the GPU (NVVM and libdevice), when numba-cuda and a GPU are present.

It prints, per function and width, how many results differ in bits between our GPU run and
our simulator (the claim: none, NaN payloads aside) and the largest error of ours against
Numba's in ulps (libdevice's own error is up to its documented bound too, so this is a
difference, not an error), then how many runs failed. Exit status 1 when the GPU and the simulator disagree anywhere or a run fails.

Usage: scripts/gpu_math_diff.py KERNLINT_BINARY [--n N] [--only NAME,...] [--out DIR]
Env:   DEVICE_A / DEVICE_B (default gpu / sim) to compare other kernlint devices, e.g.
       DEVICE_A=sim to check the script's plumbing on a machine without a GPU.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

# (name, expression over x[i] (and y[i]), second input kind or None, float widths)
UNARY = "exp exp2 expm1 log log2 log10 log1p sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh erf erfc lgamma gamma sqrt floor ceil trunc fabs degrees radians".split()
BINARY = "atan2 pow hypot fmod remainder nextafter copysign".split()
CASES = (
    [(f, f"math.{f}(x[i])", None) for f in UNARY]
    + [(f, f"math.{f}(x[i], y[i])", "float") for f in BINARY]
    + [
        ("cbrt", "cuda.cbrt(x[i])", None),
        ("ldexp", "math.ldexp(x[i], n[i])", "int32"),
        ("pow_int32", "math.pow(x[i], n[i])", "int32"),
        ("power_int64", "x[i] ** n[i]", "int64"),
        ("power_3", "x[i] ** 3", None),
        ("power_minus_2", "x[i] ** -2", None),
        ("round_2", "round(x[i], 2)", None),
        ("round_minus_1", "round(x[i], -1)", None),
        ("frexp_mantissa", "math.frexp(x[i])[0]", None),
        ("modf_fraction", "math.modf(x[i])[0]", None),
        ("floordiv", "x[i] // y[i]", "float"),
        ("mod", "x[i] % y[i]", "float"),
        ("div", "x[i] / y[i]", "float"),
    ]
    + [(f"libdevice_{op}_{m}", None, "float") for op in ("add", "mul", "div") for m in ("rz", "rd", "ru")]
)
LIBDEVICE_NAME = {"add": ("fadd", "dadd"), "mul": ("fmul", "dmul"), "div": ("fdiv", "ddiv")}


def source(name, expr, second, width):
    if name.startswith("libdevice_"):
        _, op, mode = name.split("_")[:3]
        f32, f64 = LIBDEVICE_NAME[op]
        expr = f"libdevice.{f32 if width == 32 else f64}_{mode}(x[i], y[i])"
    params = "x, y, out" if second else "x, out"
    if second in ("int32", "int64"):
        params = "x, n, out"
    return (
        f"@cuda.jit\ndef {name}({params}):\n    i = cuda.grid(1)\n"
        f"    if i < x.size:\n        out[i] = {expr}\n\n"
    )


def inputs(name, width, n, rng):
    ft = np.float32 if width == 32 else np.float64
    it = np.uint32 if width == 32 else np.uint64
    # A third random bit patterns (every magnitude, NaN and infinities included), the rest
    # in ranges where the functions are interesting.
    bits = rng.integers(0, np.iinfo(it).max, size=n // 3, dtype=it, endpoint=True).view(ft)
    wide = (rng.standard_normal(n // 3) * 30).astype(ft)
    small = rng.uniform(-4, 4, n - 2 * (n // 3)).astype(ft)
    x = np.concatenate([bits, wide, small]).astype(ft)
    if name in ("lgamma", "gamma"):
        x[n // 3:] = np.abs(x[n // 3:]) * np.where(rng.random(n - n // 3) < 0.2, -1, 1)
    y = np.concatenate([small, bits, wide]).astype(ft)[:n]
    return x, y


def ulps(a, b, width):
    """|a - b| in ulps of b (NaN against NaN counts as equal)."""
    ft = np.float32 if width == 32 else np.float64
    with np.errstate(invalid="ignore"):
        a, b = a.astype(np.float64), b.astype(np.float64)
    both_nan = np.isnan(a) & np.isnan(b)
    same = (a == b) | both_nan
    with np.errstate(invalid="ignore", over="ignore"):
        spacing = np.spacing(np.abs(b).astype(ft)).astype(np.float64)
        e = np.where(same, 0.0, np.abs(a - b) / spacing)
    return np.nan_to_num(e, nan=np.inf, posinf=np.inf)


def run_kernlint(binary, file, name, sig, device, args, outdir, grid, block):
    cmd = [binary, "run", "--device", device, "--sig", sig, "--grid", str(grid), "--block", str(block),
           "--out", outdir, f"{file}::{name}", *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        return None, (p.stdout + p.stderr).strip().splitlines()[-1:]
    return np.load(os.path.join(outdir, "out.npy")), None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kernlint")
    ap.add_argument("--n", type=int, default=1 << 16)
    ap.add_argument("--only")
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "kernlint-math-diff"))
    a = ap.parse_args()
    dev_a, dev_b = os.environ.get("DEVICE_A", "gpu"), os.environ.get("DEVICE_B", "sim")
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(2026)
    cases = [c for c in CASES if not a.only or c[0] in a.only.split(",")]
    try:
        from numba import cuda
        numba_gpu = cuda.is_available()
    except Exception:
        numba_gpu = False
    header = "import math\nfrom numba import cuda\nfrom numba.cuda import libdevice\n\n"
    file = os.path.join(a.out, "kernels.py")
    with open(file, "w") as f:
        f.write(header)
        for width in (32, 64):
            for name, expr, second in cases:
                f.write(source(f"{name}_f{width}", expr, second, width))
    namespace = {}
    if numba_gpu:
        exec(compile(open(file).read(), file, "exec"), namespace)
    disagree = failed = 0
    print(f"{'function':24} {'width':>5} {dev_a + ' vs ' + dev_b:>14} {'max ulp vs numba':>17}  note")
    for width in (32, 64):
        ft = "float32" if width == 32 else "float64"
        for name, expr, second in cases:
            kname = f"{name}_f{width}"
            x, y = inputs(name, width, a.n, rng)
            paths = {"x": os.path.join(a.out, f"{kname}_x.npy")}
            np.save(paths["x"], x)
            if second == "float":
                sig, extra = f"void({ft}[::1], {ft}[::1], {ft}[::1])", y
            elif second in ("int32", "int64"):
                sig = f"void({ft}[::1], {second}[::1], {ft}[::1])"
                extra = rng.integers(-40, 40, a.n).astype(second)
            else:
                sig, extra = f"void({ft}[::1], {ft}[::1])", None
            args = [paths["x"]]
            if extra is not None:
                paths["y"] = os.path.join(a.out, f"{kname}_y.npy")
                np.save(paths["y"], extra)
                args.append(paths["y"])
            args.append(f"zeros:{ft}[{a.n}]")
            block, grid = 256, (a.n + 255) // 256
            results, notes = {}, []
            for dev in (dev_a, dev_b):
                d = os.path.join(a.out, f"{kname}_{dev}")
                results[dev], err = run_kernlint(a.kernlint, file, kname, sig, dev, args, d, grid, block)
                if err:
                    failed += 1
                    notes.append(f"{dev}: {' '.join(err)[:80]}")
            diff = "-"
            if results[dev_a] is not None and results[dev_b] is not None:
                ra, rb = results[dev_a], results[dev_b]
                nan_both = np.isnan(ra) & np.isnan(rb)
                n_diff = int(np.sum((ra.view(f"u{width // 8}") != rb.view(f"u{width // 8}")) & ~nan_both))
                diff = f"{n_diff} differ"
                if n_diff:
                    disagree += 1
                    k = int(np.argmax((ra.view(f"u{width // 8}") != rb.view(f"u{width // 8}")) & ~nan_both))
                    notes.append(f"first at x={x[k]!r}: {ra[k]!r} vs {rb[k]!r}")
            vs_numba = "-"
            if numba_gpu and results[dev_a] is not None:
                out = cuda.to_device(np.zeros(a.n, dtype=ft))
                kargs = [cuda.to_device(x)] + ([cuda.to_device(extra)] if extra is not None else []) + [out]
                try:
                    namespace[kname][grid, block](*kargs)
                    theirs = out.copy_to_host()
                    e = ulps(results[dev_a], theirs, width)
                    vs_numba = f"{float(np.max(e)):.2f}"
                    if np.max(e) > 2:  # the worst input, to tell accuracy from semantics
                        k = int(np.argmax(e))
                        second = f", {extra[k]!r}" if extra is not None else ""
                        notes.append(f"worst at ({x[k]!r}{second}): ours {results[dev_a][k]!r}, numba {theirs[k]!r}; "
                                     f"{int(np.count_nonzero(e > 2))} inputs over 2 ulps")
                except Exception as ex:  # a function Numba does not compile at this width
                    vs_numba = f"numba: {type(ex).__name__}"
            print(f"{name:24} {width:>5} {diff:>14} {vs_numba:>17}  {'; '.join(notes)}")
    print(f"\n{disagree} function/width pairs where {dev_a} and {dev_b} differ; {failed} runs failed")
    return 1 if disagree or failed else 0


if __name__ == "__main__":
    sys.exit(main())
