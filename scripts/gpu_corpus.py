#!/usr/bin/env python3
"""Every recorded kernel case of tests/kernels/reference on a GPU (not a test: run it where a
GPU is). For each case.json (written by scripts/record_kernel_references.py): `kernlint run
--device gpu` and `kernlint run --device sim` from the same inputs, then

  - the GPU's outputs against Numba's recorded ones, within the case's tolerance (as
    tests/kernel_corpus.rs checks the simulator's), and
  - the GPU's outputs against the simulator's, bit for bit (NaNs equal whatever their payload):
    the simulator claims to compute what the GPU computes.

Prints one line per case that does not pass both, then the totals. Then, where numba-cuda
can run on the GPU, each such case again with Numba on the GPU, compared bit for bit with
our GPU run and our simulator, first differing items shown: which of the two matches what
Numba's compiled kernel computes (the recorded outputs come from Numba's simulator or a
Python reference, which a racy or undefined case can contradict). Exit status 1 when a case
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


def show(a, k):
    v = a.reshape(-1)[k]
    if a.dtype.kind in "fc":
        return f"{v!r} ({np.ascontiguousarray(a).reshape(-1)[k:k + 1].view(np.uint8).tobytes()[::-1].hex()})"
    return repr(v.item() if hasattr(v, "item") else v)


def against_numba_gpu(flagged, work_root):
    """The flagged cases with Numba on the GPU: which of ours matches its compiled kernel."""
    try:
        from numba import cuda
        if not cuda.is_available():
            return
    except Exception:  # noqa: BLE001  (no numba-cuda: nothing to compare with)
        return
    import ast
    import importlib.util
    print("\nflagged cases against Numba on the GPU (bits; first differing items: ours-gpu / ours-sim / numba-gpu)")
    for r in flagged:
        case_dir = os.path.join(KERNELS, "reference", r["case"])
        case = json.load(open(os.path.join(case_dir, "case.json")))
        work = os.path.join(work_root, r["case"].replace(os.sep, "__"))
        try:
            spec = importlib.util.spec_from_file_location(f"kcase_{len(r['case'])}_{abs(hash(r['case']))}", os.path.join(KERNELS, case["file"]))
            mod = importlib.util.module_from_spec(spec)
            sys.path.insert(0, KERNELS)
            spec.loader.exec_module(mod)
            fn = getattr(mod, case["kernel"])
            kern = cuda.jit(case["sig"])(getattr(fn, "py_func", fn))
            host = []
            for i, arg in enumerate(case["args"]):
                if "scalar" in arg:
                    host.append(ast.literal_eval(arg["scalar"]))
                else:
                    host.append(np.load(materialise(case_dir, work, arg, i)))
            dev = [cuda.to_device(h) if isinstance(h, np.ndarray) else h for h in host]
            kern[tuple(case["grid"]), tuple(case["block"]), 0, case["shared_mem"]](*dev)
            cuda.synchronize()
            lines = []
            for o in case["outputs"]:
                name = case["args"][o["arg"]]["name"]
                numba = dev[o["arg"]].copy_to_host()
                ours = {role: np.load(os.path.join(work, role, f"{name}.npy")) for role in ("gpu", "sim") if os.path.exists(os.path.join(work, role, f"{name}.npy"))}
                verdict = ", ".join(f"{role} {'==' if bits_equal(v, numba) else '!='} numba-gpu" for role, v in ours.items())
                lines.append(f"  {name}: {verdict}")
                flat = {role: np.ascontiguousarray(v).reshape(-1) for role, v in ours.items()}
                nflat = np.ascontiguousarray(numba).reshape(-1)
                shown = 0
                for k in range(nflat.size):
                    items = [flat[role][k:k + 1] for role in flat] + [nflat[k:k + 1]]
                    if all(bits_equal(items[0], it) for it in items[1:]):
                        continue
                    lines.append(f"    {[int(i) for i in np.unravel_index(k, numba.shape)]} " + " / ".join(show(v, k) for v in [*flat.values(), nflat]))
                    shown += 1
                    if shown == 4:
                        break
            print(f"{r['case']}\n" + "\n".join(lines))
        except Exception as e:  # noqa: BLE001
            print(f"{r['case']}: numba on the GPU: {type(e).__name__}: {str(e)[:200]}")


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
    flagged = [r for r in results if r["error"] is None and (r["numba"] or r["sim"])]
    if flagged:
        against_numba_gpu(flagged, a.work)
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
