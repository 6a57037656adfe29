#!/usr/bin/env python3
"""Every recorded kernel case of tests/kernels/reference on a GPU (not a test: run it where a
GPU is). For each case.json (written by scripts/record_kernel_references.py): `kernlint run
--device gpu` and `kernlint run --device sim` from the same inputs, then

  - the GPU's outputs against Numba's recorded ones, within the case's tolerance (as
    tests/kernel_corpus.rs checks the simulator's), and
  - the GPU's outputs against the simulator's, bit for bit (NaNs equal whatever their payload):
    the simulator claims to compute what the GPU computes.

Prints one line per case that does not pass both, then the totals. Exit status 1 when a case
fails against Numba or a run fails.

Usage: scripts/gpu_corpus.py KERNLINT_BINARY [--jobs J] [--only SUBSTRING] [--work DIR]
Env:   DEVICE (default gpu): DEVICE=sim checks the script's plumbing where no GPU is.
"""
import argparse
import concurrent.futures as cf
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = os.path.join(ROOT, "tests", "kernels")
DEVICE = os.environ.get("DEVICE", "gpu")


def materialise(case_dir, work, arg, i):
    """The command-line form of one argument: an .npy path or a scalar literal."""
    if "scalar" in arg:
        return arg["scalar"]
    if "npy" in arg:
        return os.path.join(case_dir, arg["npy"])
    item = np.frombuffer(bytes.fromhex(arg["fill"]), dtype=np.dtype(arg["descr"]))
    a = np.full(arg["shape"], item[0], dtype=item.dtype, order="F" if arg["fortran_order"] else "C")
    path = os.path.join(work, f"arg{i}.npy")
    np.save(path, a)
    return path


def run(binary, case, args, device, out, timeout):
    cmd = [binary, "run", f"{os.path.join(KERNELS, case['file'])}::{case['kernel']}", "--sig", case["sig"],
           "--grid", ",".join(map(str, case["grid"])), "--block", ",".join(map(str, case["block"])),
           "--shared-mem", str(case["shared_mem"]), "--device", device, "--out", out, *args]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout} s"
    # The simulator exits 1 when its sanitizer reports something; its outputs are still written.
    if p.returncode != 0 and not (device == "sim" and p.returncode == 1 and os.path.isdir(out)):
        tail = (p.stdout + p.stderr).strip().splitlines()
        return f"rc={p.returncode}: {tail[-1] if tail else ''}"[:200]
    return None


def within(ours, numba, tol):
    if ours.shape != numba.shape or ours.dtype != numba.dtype:
        return f"shape/dtype {ours.shape} {ours.dtype} vs {numba.shape} {numba.dtype}"
    if ours.dtype.names:  # a record array: each field within the tolerance
        problems = [f"field {f}: {p}" for f in ours.dtype.names if (p := within(ours[f], numba[f], tol))]
        return "; ".join(problems) or None
    if tol == "exact":
        if ours.dtype.kind in "fc":
            same = (ours == numba) | (np.isnan(ours) & np.isnan(numba))
        else:
            same = ours == numba
        bad = int(np.size(same) - np.count_nonzero(same))
        return f"{bad} items differ (exact)" if bad else None
    rtol, atol, frac = tol.get("rtol", 0.0), tol.get("atol", 0.0), tol.get("mismatch_frac", 0.0)
    close = np.isclose(ours, numba, rtol=rtol, atol=atol, equal_nan=True)
    bad = int(np.size(close) - np.count_nonzero(close))
    return f"{bad} items beyond rtol={rtol} atol={atol}" if bad > frac * np.size(close) else None


def bits_equal(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.names:
        return all(bits_equal(a[f], b[f]) for f in a.dtype.names)
    a, b = np.ascontiguousarray(a).reshape(-1), np.ascontiguousarray(b).reshape(-1)
    if a.dtype.kind == "c":
        a, b = a.view(a.real.dtype), b.view(b.real.dtype)
    if a.dtype.kind == "f":
        bits = f"u{a.dtype.itemsize}"
        return bool(np.all((a.view(bits) == b.view(bits)) | (np.isnan(a) & np.isnan(b))))
    return bool(np.array_equal(a.view(np.uint8), b.view(np.uint8)))


def one(binary, case_json, work_root, timeout):
    case_dir = os.path.dirname(case_json)
    case = json.load(open(case_json))
    tag = os.path.relpath(case_dir, os.path.join(KERNELS, "reference"))
    work = os.path.join(work_root, tag.replace(os.sep, "__"))
    os.makedirs(work, exist_ok=True)
    args = [materialise(case_dir, work, a, i) for i, a in enumerate(case["args"])]
    res = {"case": tag, "numba": None, "sim": None, "error": None}
    outs = {}
    for role, device in (("gpu", DEVICE), ("sim", "sim")):
        out = os.path.join(work, role)
        err = run(binary, case, args, device, out, timeout)
        if err:
            if role == "gpu":
                res["error"] = f"{device}: {err}"
                return res
            res["sim"] = f"sim: {err}"
        outs[role] = out
    numba_bad, sim_diff = [], []
    for o in case["outputs"]:
        name = case["args"][o["arg"]]["name"]
        gpu = np.load(os.path.join(outs["gpu"], f"{name}.npy"))
        problem = within(gpu, np.load(os.path.join(case_dir, o["npy"])), o["tol"])
        if problem:
            numba_bad.append(f"{name}: {problem}")
        sim_path = os.path.join(outs["sim"], f"{name}.npy")
        if res["sim"] is None and not bits_equal(gpu, np.load(sim_path)):
            sim_diff.append(name)
    res["numba"] = "; ".join(numba_bad) or None
    if res["sim"] is None and sim_diff:
        res["sim"] = f"differs from the simulator in {', '.join(sim_diff)}"
    return res


def guarded(binary, case_json, work_root, timeout):
    try:
        return one(binary, case_json, work_root, timeout)
    except Exception as e:  # noqa: BLE001  (one broken case must not hide the others' results)
        tag = os.path.relpath(os.path.dirname(case_json), os.path.join(KERNELS, "reference"))
        return {"case": tag, "numba": None, "sim": None, "error": f"script: {type(e).__name__}: {e}"[:200]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kernlint")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    ap.add_argument("--only")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "kernlint-gpu-corpus"))
    a = ap.parse_args()
    binary = os.path.abspath(a.kernlint)
    cases = sorted(glob.glob(os.path.join(KERNELS, "reference", "*", "*", "case.json")))
    cases = [c for c in cases if not a.only or a.only in c]
    with cf.ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(lambda c: guarded(binary, c, a.work, a.timeout), cases))
    errors = [r for r in results if r["error"]]
    vs_numba = [r for r in results if not r["error"] and r["numba"]]
    vs_sim = [r for r in results if not r["error"] and r["sim"]]
    for r in results:
        problems = [p for p in (r["error"], r["numba"] and f"vs Numba: {r['numba']}", r["sim"]) if p]
        if problems:
            print(f"{r['case']:60} {' | '.join(problems)}")
    ran = len(results) - len(errors)
    print(f"\n{len(results)} cases: {len(errors)} failed to run on the GPU; of the {ran} that ran, "
          f"{ran - len(vs_numba)} agree with Numba's outputs and {ran - len(vs_sim)} equal the simulator's bit for bit")
    return 1 if errors or vs_numba else 0


if __name__ == "__main__":
    sys.exit(main())
