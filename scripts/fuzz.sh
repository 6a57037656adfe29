#!/usr/bin/env bash
# Coverage-guided fuzzing of kernlint with cargo-fuzz (libFuzzer): every target in fuzz/
# for SECONDS_PER_TARGET seconds each (default 60), one after the other.
#   analyse      arbitrary bytes as a Python file: parse, discover, every lint rule, editor features
#   type_lower   type and lower every kernel and device function, build its program
#   compile_ptx  compile every kernel that lowers to PTX
#   simulate     small launches of every kernel that lowers, on the simulator
#   lsp_decode   the LSP framing guard on arbitrary bytes
# Prints executions and crashes per target; a crash (panic, timeout, out of memory) leaves
# its input in fuzz/artifacts/TARGET/ and makes the script exit 1. Exit 3 when cargo-fuzz is
# missing and cannot be installed (no registry), which is not kernlint's failure.
# Stable Rust is enough: RUSTC_BOOTSTRAP=1 lets cargo-fuzz pass its -Z flags.
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET]; FUZZ_TARGETS="analyse simulate" picks targets.
# Reproduce a crash: fuzz/target/x86_64-unknown-linux-gnu/release/TARGET fuzz/artifacts/TARGET/crash-...
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
targets=(${FUZZ_TARGETS:-analyse type_lower compile_ptx simulate lsp_decode})
export RUSTC_BOOTSTRAP=1

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "installing cargo-fuzz"
  cargo install --locked cargo-fuzz >/dev/null 2>&1 || { echo "cargo-fuzz could not be installed" >&2; exit 3; }
fi

fuzz/seed_corpus.sh
start=$(date +%s)
# No sanitizer: kernlint is safe Rust, so ASan adds build and run time and finds nothing
# more; debug assertions (overflow checks) stay on.
(cd fuzz && cargo fuzz build --sanitizer none --debug-assertions)
echo "fuzz build: $(( $(date +%s) - start )) s"

failed=0
summary=()
for t in "${targets[@]}"; do
  mkdir -p "fuzz/artifacts/$t"
  before=$(ls "fuzz/artifacts/$t" | wc -l)
  flags=(-max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 -seed=1)
  [ "$t" != lsp_decode ] && flags+=(-max_len=16384 "-dict=$PWD/fuzz/python.dict")
  log="fuzz/artifacts/$t.log"
  status=0
  (cd fuzz && cargo fuzz run --sanitizer none --debug-assertions "$t" -- "${flags[@]}") > "$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  runs=${runs:-$(grep -o '^#[0-9]*' "$log" | tail -n 1 | tr -d '#')}
  crashes=$(( $(ls "fuzz/artifacts/$t" | wc -l) - before ))
  if [ "$status" -ne 0 ] && [ "$crashes" -eq 0 ]; then crashes=1; fi
  summary+=("$(printf '%-12s %10s executions %4s crashes' "$t" "${runs:-0}" "$crashes")")
  echo "${summary[-1]}"
  if [ "$crashes" -gt 0 ]; then
    failed=1
    echo "FAIL: $t crashed (exit status $status); the input is in fuzz/artifacts/$t/:" >&2
    ls -t "fuzz/artifacts/$t" | head -n "$crashes" | sed "s|^|  fuzz/artifacts/$t/|" >&2
    grep -E -A12 'panicked at|ERROR: libFuzzer|SUMMARY' "$log" | head -n 40 >&2 || true
  fi
done
echo "fuzzing: ${#targets[@]} targets, $seconds s each"
printf '%s\n' "${summary[@]}"
exit "$failed"
