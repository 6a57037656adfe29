#!/usr/bin/env bash
# Check kernlint against Numba on a kernel corpus in oracle.py's manifest format: by default
# tests/kernels (our own kernels, written beside ../shared/kernels to cover what it does not).
# Four contracts, each Numba's answer against ours:
#   types  typemap.py check          every variable's type
#   run    oracle.py check           outputs of `kernlint run --device sim` vs Numba's simulator
#   ptx    oracle.py ptx             our PTX assembles with ptxas; registers and SASS vs Numba's
# Usage: scripts/corpus_check.sh [MANIFEST] [OUTDIR] [--only a,b]
# Env: KERNLINT (binary, default target/release/kernlint), VENV (oracle venv), JOBS.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
manifest=$(realpath "${1:-$root/tests/kernels/manifest_a.toml}")
out=${2:-${TMPDIR:-/tmp}/kernlint-corpus-$(basename "$(dirname "$manifest")")}
shift 2 2>/dev/null || shift $#
kernlint=$(realpath "${KERNLINT:-$root/target/release/kernlint}")
shared=${KERNLINT_SHARED:-$root/../shared}
venv=${VENV:-/root/.cache/kernlint-oracle}
[ -x "$venv/bin/python" ] || venv=$(bash "$shared/tools/oracle-env.sh" | tail -n 1)
py="$venv/bin/python"
oracle="$shared/kernels/oracle.py"
status=0
mkdir -p "$out"
echo "== reference ($out)"
"$py" "$oracle" reference "$out" --manifest "$manifest" --no-gpu --cc 90 --jobs "${JOBS:-2}" "$@" > "$out/reference.log" 2>&1 \
  || { tail -n 30 "$out/reference.log"; status=1; }
echo "== types"
"$py" "$shared/kernels/typemap.py" check "$kernlint types {file}::{kernel} --sig {sig} --format json" \
  --manifest "$manifest" "$@" > "$out/types.log" 2>&1 || status=1
grep -v '^ok ' "$out/types.log" | tail -n 40
echo "== run (simulator)"
"$py" "$oracle" check "$out" "$@" --candidate \
  "$kernlint run {file}::{kernel} --sig {sig} --grid {grid} --block {block} --shared-mem {shared_mem} --device sim --out {outdir} {args}" \
  > "$out/check.log" 2>&1 || status=1
tail -n 40 "$out/check.log"
echo "== ptx"
"$py" "$oracle" ptx "$out" "$@" --cc 90 \
  --candidate-ptx "$kernlint compile {file}::{kernel} --sig {sig} --arch sm_{cc} -o {ptx}" > "$out/ptx.log" 2>&1 || status=1
tail -n 40 "$out/ptx.log"
exit $status
