#!/usr/bin/env bash
# Everything the GPU checks need, prepared here, then run in one go where the GPU is.
#
#   scripts/gpu_session.sh prepare   (here: Rust, the oracle venv (../shared/tools/oracle-env.sh)
#                                      and ../shared/kernels needed; no GPU)
#   scripts/gpu_session.sh run       (on the GPU machine, from the repository root: CUDA,
#                                      numba-cuda and Python needed, no Rust)
#
# `prepare` fills .gpu_check/ (the stripped release binary, the corpus with oracle.py, its
# references, and the inputs of every tests/realworld kernel) and .whl/ (a numpy that the
# machine's numba can import: there numba 0.68.0 failed with numpy 2.5.2). Add both to
# .git/info/exclude and carry them to the GPU machine. `run` does the smoke checks, then
# scripts/gpu_check.sh (the corpus against Numba, kernel times, math bit for bit) and
# scripts/gpu_corpus.py (recorded and real kernels against the simulator and Numba), and
# writes gpu_check.log, gpu_corpus.log and results.tgz under $OUT (default /tmp/gpu-session).
# Env for `run`: STEPS (default smoke,check,corpus), CHECK_TIMEOUT, CORPUS_TIMEOUT (seconds).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
G=.gpu_check
case "${1:-}" in
prepare)
  venv=${ORACLE_VENV:-/root/.cache/kernlint-oracle}
  shared=${KERNLINT_SHARED:-$root/../shared}
  cargo build --release || exit 1
  rm -rf "$G" && mkdir -p "$G/rw"
  cp target/release/kernlint "$G/kernlint" && strip "$G/kernlint"
  cp -r "$shared/kernels" "$G/kernels"
  "$venv/bin/python" "$G/kernels/oracle.py" reference "$G/ref" --no-compile --jobs "$(nproc)" >/dev/null || exit 1
  for m in tests/realworld/*/manifest.toml; do
    set_name=$(basename "$(dirname "$m")")
    # Inputs are what is wanted: oracle.py exits 1 for the kernels with no Python reference.
    "$venv/bin/python" "$G/kernels/oracle.py" reference "$G/rw/$set_name" --manifest "$m" \
      --no-sim --no-compile --no-gpu --jobs "$(nproc)" >/dev/null
  done
  [ "$(ls "$G"/rw/*/*/case.json | wc -l)" -gt 0 ] || { echo "no tests/realworld case prepared" >&2; exit 1; }
  mkdir -p .whl
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 -d .whl numpy==2.4.6 || exit 1
  du -sh "$G" .whl
  ;;
run)
  OUT=${OUT:-/tmp/gpu-session}
  mkdir -p "$OUT"
  STEPS=${STEPS:-smoke,check,corpus}
  export PYTHONUNBUFFERED=1
  if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
      && export PYTHONPATH=/tmp/site
  fi
  # The prepared cases name files by this checkout's absolute path.
  prepared=$(grep -o '"file": "[^"]*"' "$G/ref/saxpy/case.json" | sed 's/.*"\(.*\)\/.gpu_check\/.*/\1/')
  [ -e "$prepared" ] || { mkdir -p "$(dirname "$prepared")" && ln -s "$root" "$prepared"; }
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>&1
  if [[ $STEPS == *smoke* ]]; then
    sig='void(float32[::1], float32, float32[::1], float32[::1])'
    "$G/kernlint" compile "$G/kernels/elementwise.py::saxpy" --sig "$sig" | grep -m1 '^\.target'
    "$G/kernlint" run "$G/kernels/elementwise.py::saxpy" --sig "$sig" --grid 4 --block 256 --repeat 5 \
      'zeros:float32[1000]' 2.0 'rand:float32[1000]' 'ones:float32[1000]' | tail -1
  fi
  if [[ $STEPS == *check* ]]; then
    timeout "${CHECK_TIMEOUT:-330}" scripts/gpu_check.sh "$G/kernlint" "$G/ref" 2>&1 | tee "$OUT/gpu_check.log"
    tar czf "$OUT/results.tgz" "$G"/ref/results.json "$G"/ref/gpu-check-results.json "$G"/ref/*/record.json "$G"/ref/*/cand/log.txt 2>/dev/null
  fi
  if [[ $STEPS == *corpus* ]]; then
    oracle_dirs=()
    for d in "$G"/rw/set*; do oracle_dirs+=(--oracle "$d"); done
    timeout "${CORPUS_TIMEOUT:-240}" python3 scripts/gpu_corpus.py "$G/kernlint" "${oracle_dirs[@]}" --jobs 12 --numba-jobs 12 2>&1 \
      | grep -v 'Warning\|warn(' | tee "$OUT/gpu_corpus.log" | tail -60
  fi
  ;;
*)
  echo "usage: $0 prepare|run" >&2
  exit 2
  ;;
esac
