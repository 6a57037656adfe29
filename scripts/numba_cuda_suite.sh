#!/usr/bin/env bash
# Robustness: run `kernlint check` over numba-cuda's own test suite (numba/cuda/tests).
# Passes when kernlint exits 0 or 1 (findings) and never crashes (2 = internal or usage error,
# anything above = a signal); exit 3 when the suite cannot be downloaded. Usage: scripts/numba_cuda_suite.sh [path/to/kernlint]
set -euo pipefail
kernlint=${1:-target/release/kernlint}
work=${KERNLINT_WORK:-${TMPDIR:-/tmp}/kernlint-numba-cuda}
if [ ! -d "$work/numba_cuda" ]; then
  mkdir -p "$work"
  # Exit 3: the suite could not be fetched (no network), which is not kernlint's failure.
  python3 -m pip download --quiet --no-deps --dest "$work" numba-cuda || exit 3
  python3 -m zipfile -e "$work"/numba_cuda-*.whl "$work"
fi
suite=$(find "$work/numba_cuda" -type d -path '*numba/cuda/tests' | head -n 1)
files=$(find "$suite" -name '*.py' | wc -l)
set +e
"$kernlint" check "$suite" --statistics > "$work/statistics.txt" 2> "$work/stderr.txt"
status=$?
set -e
echo "numba-cuda test suite: $files files, kernlint exit status $status"
cat "$work/statistics.txt"
if [ "$status" -gt 1 ]; then
  echo "FAIL: kernlint crashed or errored:" >&2
  cat "$work/stderr.txt" >&2
  exit 1
fi
