#!/usr/bin/env bash
# Benchmark (not a test): `kernlint check` against `ruff check` (default rules, no cache) on
# the same large tree, numba + numba-cuda site-packages. Prints kernlint's time as a ratio of
# ruff's; the goal is at most 0.5. Usage: scripts/bench_vs_ruff.sh [runs]
set -euo pipefail
runs=${1:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${KERNLINT_BENCH_VENV:-${TMPDIR:-/tmp}/kernlint-bench-venv}
[ -x "$venv/bin/ruff" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install --quiet ruff numba numba-cuda; }
site=$("$venv/bin/python" -c 'import numba, os; print(os.path.dirname(os.path.dirname(numba.__file__)))')
tree=("$site/numba" "$site/numba_cuda")
lines=$(find "${tree[@]}" -name '*.py' -print0 | xargs -0 cat | wc -l)
(cd "$root" && cargo build --release --quiet)
kernlint="$root/target/release/kernlint"

best() {  # best wall time of $runs runs, in seconds
  local best=999999
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s.%N); "$@" > /dev/null 2>&1 || true; end=$(date +%s.%N)
    best=$(python3 -c "print(min($best, $end - $start))")
  done
  echo "$best"
}
ruff_s=$(best "$venv/bin/ruff" check --no-cache --isolated "${tree[@]}")
kernlint_s=$(best "$kernlint" check "${tree[@]}")
python3 - "$lines" "$ruff_s" "$kernlint_s" <<'PY'
import sys
lines, ruff, kl = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
print(f"tree: numba + numba-cuda site-packages, {lines:,} lines")
print(f"ruff check (default rules, no cache): {ruff:.3f} s")
print(f"kernlint check:                       {kl:.3f} s")
print(f"ratio kernlint / ruff: {kl / ruff:.2f}  (goal <= 0.5)")
PY
