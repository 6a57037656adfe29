#!/usr/bin/env bash
# Benchmark (not a test): kernlint's PTX against Numba's on the corpus (../shared/kernels).
# Numba compiles every kernel (NVVM, `oracle.py reference --no-sim`), kernlint compiles the
# same kernels (`oracle.py ptx`), ptxas assembles both for sm_90; prints per kernel the
# registers and SASS instructions of ours over Numba's and the compile time of each, then
# geometric means. Goals: registers and SASS at most 1.0; compile time 100x faster. Compile
# time is given twice: the whole of ours (parsing the file, finding its GPU functions, typing,
# lowering, PTX), and ours from the loaded module on, which is what Numba's compile_s covers
# (oracle.py times `compile_ptx` on the function of a module imported before the clock starts).
# Needs the oracle venv (../shared/tools/oracle-env.sh): Numba, NVVM, ptxas.
# Usage: scripts/ptx_vs_numba.sh [path/to/kernlint]   (default target/release/kernlint)
# Env: REF (Numba's results, reused when present), VENV (the oracle venv), KERNELS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kernlint=$(realpath "${1:-$root/target/release/kernlint}")
kernels=${KERNELS:-$root/../shared/kernels}
venv=${VENV:-/root/.cache/kernlint-oracle}
ref=${REF:-${TMPDIR:-/tmp}/kernlint-ptx-ref}
[ -x "$venv/bin/python" ] || { echo "no oracle venv at $venv (run ../shared/tools/oracle-env.sh)"; exit 2; }
cd "$kernels"
if [ ! -f "$ref/saxpy/record.json" ]; then
  # Without the simulator the reference outputs are missing, which `reference` reports with a
  # non-zero status; what this needs is Numba's compile records.
  "$venv/bin/python" oracle.py reference "$ref" --no-sim --no-gpu --cc 90 > "$ref.log" 2>&1 || true
  [ -f "$ref/saxpy/record.json" ] || { tail "$ref.log"; exit 1; }
fi
"$venv/bin/python" oracle.py ptx "$ref" --cc 90 \
  --candidate-ptx "$kernlint compile {file}::{kernel} --sig {sig} --arch sm_{cc} -o {ptx}" > "$ref/ptx.log" 2>&1 || true
python3 - "$ref/ptx-results.json" "$kernlint" "$kernels" <<'PY'
import json, math, re, subprocess, sys
results, kernlint, kernels = json.load(open(sys.argv[1]))["cases"], sys.argv[2], sys.argv[3]
geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
regs, sass, speed, loaded_speed, failed = [], [], [], [], []
print(f"{'kernel':22} {'regs':>9} {'sass':>11} {'ours ms':>8} {'loaded':>7} {'numba ms':>9} {'speedup':>8} {'loaded':>7}")
for r in results:
    numba = r.get("numba") or {}
    if r.get("status") != "valid":
        failed.append(r["name"])
        print(f"{r['name']:22} {r.get('status')}")
        continue
    # Our in-process compile time (`--time`), the best of 5, against Numba's compile_ptx:
    # the whole, and from the loaded module on.
    cmd = r["cmd"].replace(" -o ", " --time -o ", 1)
    runs = [re.search(r"in ([0-9.]+) ms \(([0-9.]+) ms after loading", subprocess.run(cmd, shell=True, capture_output=True, text=True).stderr) for _ in range(5)]
    best = min(float(m.group(1)) for m in runs)
    best_loaded = min(float(m.group(2)) for m in runs)
    ours_regs, ours_sass = r["ptxas"]["registers"], r["sass_instrs"]
    regs.append(ours_regs / numba["registers"])
    sass.append(ours_sass / numba["sass_instrs"])
    speed.append(numba["compile_s"] * 1e3 / best)
    loaded_speed.append(numba["compile_s"] * 1e3 / best_loaded)
    print(f"{r['name']:22} {ours_regs:>4}/{numba['registers']:<4} {ours_sass:>5}/{numba['sass_instrs']:<5} {best:8.3f} {best_loaded:7.3f} {numba['compile_s'] * 1e3:9.1f} {speed[-1]:7.0f}x {loaded_speed[-1]:6.0f}x")
print(f"\n{len(regs)} kernels compiled and assembled, {len(failed)} not ({', '.join(failed) or 'none'})")
print(f"registers / Numba's: geometric mean {geo(regs):.2f} (goal <= 1.0)")
print(f"SASS instructions / Numba's: geometric mean {geo(sass):.2f} (goal <= 1.0)")
print(f"compile time, the whole (parse, find, type, lower, PTX): geometric mean {geo(speed):.0f}x faster than Numba (goal >= 100x)")
print(f"compile time from the loaded module on, as Numba's compile_s: geometric mean {geo(loaded_speed):.0f}x faster than Numba")
PY
