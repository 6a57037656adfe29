#!/usr/bin/env bash
# Check `kernlint run --device gpu` against Numba on a GPU machine, for the 30-kernel corpus.
# That machine has CUDA, numba-cuda and Python but no Rust: build kernlint elsewhere and pass
# the binary. Steps:
#   1. references: `oracle.py reference OUT --no-compile` (Numba's simulator and the Python
#      references, CPU only, in parallel); skipped when OUT/results.json exists (prepared
#      elsewhere and carried, which saves device time);
#   2. Numba on the GPU, all cases in one process: outputs (checked against the references)
#      and two kernel-time medians merged into OUT/CASE/record.json as `gpu`: `kernel_s_median`
#      as oracle.py's `_gpu` records it (Numba's Python dispatch inside the events), and
#      `kernel_only_s_median`, the launch behind a GPU-side sleep (the GPU's work alone, as
#      `kernlint run --device gpu` times its own);
#   3. `oracle.py check OUT --candidate 'KERNLINT run ... --device gpu --repeat R ...'`;
#   4. a table: per kernel, pass/fail, kernlint's median kernel time (CUDA events, printed by
#      `kernlint run`), Numba's (`gpu.kernel_only_s_median`) and their ratio, and the geometric
#      mean;
#   5. scripts/gpu_math_diff.py: every math function and exactly rounded operation over 32768
#      inputs, our GPU run against our simulator bit for bit, and ulps against Numba's.
# With FULL=1, step 1 and 2 are one plain `oracle.py reference OUT` instead (sequential,
# with Numba's compile statistics; several minutes).
#
# Usage: scripts/gpu_check.sh KERNLINT_BINARY [OUT] [oracle.py selection args: --only a,b | --tags t]
# Env:   KERNELS  corpus dir with oracle.py and manifest.toml (default: ../shared/kernels beside
#                 the repo, else shared/kernels or .gpu_check/kernels inside it)
#        PYTHON   (default python3), JOBS (step 1, default: number of CPUs), REPEAT (timed
#                 launches per kernel, default 20), FULL=1 (see above)
# Exit status: 0 when every case passed, 1 otherwise, 2 on a setup error.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 KERNLINT_BINARY [OUT] [--only a,b | --tags t]" >&2; exit 2; }
kernlint=$(realpath "$1"); shift
out=${1:-${TMPDIR:-/tmp}/kernlint-gpu-check}
[ $# -ge 1 ] && shift
out=$(mkdir -p "$out" && cd "$out" && pwd)
py=${PYTHON:-python3}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 4)}
repeat=${REPEAT:-20}
kernels=${KERNELS:-}
if [ -z "$kernels" ]; then
  for d in "$root/../shared/kernels" "$root/shared/kernels" "$root/.gpu_check/kernels"; do
    [ -f "$d/oracle.py" ] && { kernels=$d; break; }
  done
fi
[ -n "$kernels" ] && [ -f "$kernels/oracle.py" ] || { echo "no corpus (oracle.py) found: set KERNELS" >&2; exit 2; }
kernels=$(cd "$kernels" && pwd)
[ -x "$kernlint" ] || { echo "not an executable: $kernlint" >&2; exit 2; }
export PYTHONUNBUFFERED=1

echo "== kernlint: $("$kernlint" --version 2>&1 | head -1)"
"$py" -c 'import numba, numba.cuda as c; print("== numba", numba.__version__, "| GPU:", c.is_available() and c.get_current_device().name)' \
  || { echo "numba/numba-cuda is not importable with $py" >&2; exit 2; }
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | sed 's/^/== nvidia-smi: /'
fi

# 1 + 2: references and Numba's GPU times.
if [ "${FULL:-0}" = 1 ]; then
  "$py" "$kernels/oracle.py" reference "$out" "$@" || { echo "oracle.py reference failed" >&2; exit 2; }
else
  if [ ! -f "$out/results.json" ]; then
    "$py" "$kernels/oracle.py" reference "$out" --no-compile --jobs "$jobs" "$@" \
      || { echo "oracle.py reference failed" >&2; exit 2; }
  fi
  "$py" - "$kernels" "$out" <<'PY' || { echo "the Numba GPU step failed" >&2; exit 2; }
# Every case in this one process (numba imported once): compile, launch once for the
# outputs, then time. Two medians: `kernel_s_median` as oracle.py's `_gpu` records it (events
# around the Python call, so Numba's dispatch is inside), and `kernel_only_s_median`, the
# same launch behind a ~0.2 ms GPU-side sleep, so that the events time the GPU's work alone,
# as `kernlint run --device gpu` times its own launches.
import os, sys, time, traceback
import numpy as np
kernels, out = sys.argv[1], sys.argv[2]
sys.path.insert(0, kernels)
import oracle  # noqa: E402
from numba import cuda  # noqa: E402

@cuda.jit
def _sleep(n):
    for _ in range(n):
        cuda.nanosleep(1000)

def median(xs):
    return float(np.median(xs))

REPS = int(os.environ.get("REPEAT", "20"))
for r in oracle.read_json(os.path.join(out, "results.json"))["cases"]:
    cdir = os.path.join(out, r["name"])
    recp = os.path.join(cdir, "record.json")
    if not os.path.exists(recp):
        continue
    rec = oracle.read_json(recp)
    if rec.get("gpu", {}).get("kernel_only_s_median") is not None:
        continue
    cj = oracle.read_json(os.path.join(cdir, "case.json"))
    g = {"ok": False}
    try:
        vals = oracle.load_inputs(cj)
        pyf = oracle.py_func_of(getattr(oracle.import_kernel_module(cj["file"]), cj["kernel"]))
        _, sig = oracle.parse_sig(cj["sig"])
        t0 = time.perf_counter()
        kern = cuda.jit(sig)(pyf)
        g["jit_s"] = time.perf_counter() - t0
        cfg = kern[oracle.launch_dims(cj["grid_as_written"]), oracle.launch_dims(cj["block_as_written"]), 0, cj["shared_mem"]]
        host = [v.copy(order="K") if isinstance(v, np.ndarray) else v for v in vals]  # keep F order
        dev = [cuda.to_device(v) if isinstance(v, np.ndarray) else v for v in host]
        cfg(*dev)
        cuda.synchronize()
        outs = [d.copy_to_host() if isinstance(v, np.ndarray) else v for v, d in zip(vals, dev)]
        with_dispatch, kernel_only = [], []
        for sleep_first in (False, True):
            for _ in range(REPS):
                for h, d in zip(host, dev):
                    if isinstance(h, np.ndarray):
                        d.copy_to_device(h)
                cuda.synchronize()
                if sleep_first:
                    _sleep[1, 1](200)
                e0, e1 = cuda.event(), cuda.event()
                e0.record()
                cfg(*dev)
                e1.record()
                e1.synchronize()
                (kernel_only if sleep_first else with_dispatch).append(cuda.event_elapsed_time(e0, e1) * 1e-3)
        g.update(kernel_s_median=median(with_dispatch), kernel_only_s_median=median(kernel_only), reps=REPS)
        oracle.save_outputs(cj, outs, os.path.join(cdir, "gpu"))
        g["ok"] = True
        if rec.get("reference_ok"):
            g["vs_reference"] = oracle.compare_dirs(cj, os.path.join(cdir, "gpu"), os.path.join(cdir, "ref"))
    except Exception as e:  # noqa: BLE001
        g["error"] = f"{type(e).__name__}: {e}"[:2000]
        g["traceback"] = traceback.format_exc()[-3000:]
    rec["gpu"] = g
    oracle.write_json(recp, rec)
    ko = g.get("kernel_only_s_median")
    print(f"numba gpu {r['name']:22} {'ok' if g.get('ok') else 'FAILED: ' + ' '.join(str(g.get('error')).split())[:100]}"
          + (f"  {ko * 1e3:.4f} ms kernel, {g['kernel_s_median'] * 1e3:.4f} ms with dispatch" if ko is not None else ""))
PY
fi

# 3: kernlint on the GPU.
"$py" "$kernels/oracle.py" check "$out" "$@" --results "$out/gpu-check-results.json" --candidate \
  "$kernlint run {file}::{kernel} --sig {sig} --grid {grid} --block {block} --shared-mem {shared_mem} --device gpu --repeat $repeat --out {outdir} {args}"
check_rc=$?

# 4: pass/fail and kernel-time ratios against Numba.
"$py" - "$out" <<'PY'
import json, math, os, re, sys
out = sys.argv[1]
res = json.load(open(os.path.join(out, "gpu-check-results.json")))
rows, ratios = [], []
print(f"\n{'kernel':22} {'kernlint':9} {'numba-gpu':9} {'kernlint ms':>12} {'numba ms':>12} {'ratio':>7} {'numba+disp':>11}  detail")
for r in res["cases"]:
    name = r["name"]
    rec = json.load(open(os.path.join(out, name, "record.json")))
    g = rec.get("gpu", {})
    numba_s = g.get("kernel_only_s_median", g.get("kernel_s_median"))
    numba_ms = numba_s * 1e3 if numba_s is not None else None
    dispatch_ms = g["kernel_s_median"] * 1e3 if g.get("kernel_s_median") is not None else None
    numba_ok = "pass" if g.get("vs_reference", {}).get("ok") else ("n/a" if not g else "FAIL")
    ours_ms = None
    log = os.path.join(out, name, "cand", "log.txt")
    text = open(log).read() if os.path.exists(log) else ""
    m = re.search(r"time: ([0-9.]+) ms on the GPU", text)
    if m:
        ours_ms = float(m.group(1))
    ratio = ours_ms / numba_ms if ours_ms and numba_ms else None
    if ratio and r["status"] == "pass":
        ratios.append(ratio)
    detail = ""
    if r["status"] != "pass":
        tail = (r.get("log_tail") or "").strip().splitlines()
        detail = (tail[-1] if tail else r["status"])[:90]
    f = lambda v, d=4: "-" if v is None else f"{v:.{d}f}"
    print(f"{name[:22]:22} {r['status']:9} {numba_ok:9} {f(ours_ms):>12} {f(numba_ms):>12} {f(ratio, 2):>7} {f(dispatch_ms):>11}  {detail}")
n = len(res["cases"]); npass = sum(r["status"] == "pass" for r in res["cases"])
gm = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else None
print(f"\nkernlint --device gpu: {npass}/{n} pass; kernel time ratio kernlint/numba, geometric mean over "
      f"{len(ratios)} passing kernels: {'-' if gm is None else f'{gm:.3f}'} (below 1: kernlint faster)")
print("note: both times are CUDA-event medians around one launch, recorded behind a GPU-side sleep so that "
      "they time the GPU's work alone; numba+disp is Numba's as oracle.py records it, its Python dispatch included")
PY
# 5: the math, GPU against simulator, bit for bit.
"$py" "$root/scripts/gpu_math_diff.py" "$kernlint" --n 32768 --out "$out/math-diff" || check_rc=1
exit $check_rc
