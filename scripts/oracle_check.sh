#!/usr/bin/env bash
# Check `kernlint run` (simulator) against Numba's reference outputs for the 30-kernel
# corpus: builds the oracle venv (../shared/tools/oracle-env.sh), writes the references
# once (oracle.py reference, ~2.5 min) and runs oracle.py check. Usage:
#   scripts/oracle_check.sh [OUTDIR] [extra oracle.py check args, e.g. --only saxpy]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${KERNLINT_SHARED:-$root/../shared}
out=${1:-${TMPDIR:-/tmp}/kernlint-oracle-ref}
shift || true
venv=$(bash "$shared/tools/oracle-env.sh" | tail -n 1)
(cd "$root" && cargo build --release --quiet)
[ -f "$out/results.json" ] || "$venv/bin/python" "$shared/kernels/oracle.py" reference "$out" --no-compile
"$venv/bin/python" "$shared/kernels/oracle.py" check "$out" "$@" --candidate \
  "$root/target/release/kernlint run {file}::{kernel} --sig {sig} --grid {grid} --block {block} --shared-mem {shared_mem} --device sim --out {outdir} {args}"
