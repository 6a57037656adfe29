#!/usr/bin/env bash
# Typing robustness: type every GPU function of numba-cuda's own test suite that carries an
# explicit signature (`kernlint types --all`), and run `kernlint check` over it. Reports how
# many were typed, how many gave a typing error Numba also raises (listed), how many use
# something kernlint does not model, and fails if anything panicked or crashed.
# Exit 3 when the suite cannot be downloaded. Usage: scripts/type_numba_cuda_suite.sh [path/to/kernlint]
set -euo pipefail
kernlint=${1:-target/release/kernlint}
work=${KERNLINT_WORK:-${TMPDIR:-/tmp}/kernlint-numba-cuda}
if [ ! -d "$work/numba_cuda" ]; then
  mkdir -p "$work"
  python3 -m pip download --quiet --no-deps --dest "$work" numba-cuda || exit 3
  python3 -m zipfile -e "$work"/numba_cuda-*.whl "$work"
fi
suite=$(find "$work/numba_cuda" -type d -path '*numba/cuda/tests' | head -n 1)
set +e
"$kernlint" types --all "$suite" > "$work/typing.jsonl" 2> "$work/typing-stderr.txt"
types_status=$?
"$kernlint" check "$suite" --select KL108,KL110,KL401 --format json > "$work/typing-check.json" 2> "$work/typing-check-stderr.txt"
check_status=$?
set -e
python3 - "$work/typing.jsonl" "$work/typing-check.json" "$suite" <<'PY'
import collections, json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
suite = sys.argv[3].rstrip("/") + "/"
count = collections.Counter(r["outcome"] for r in rows)
print(f"functions with an explicit signature: {len(rows)}")
for outcome in ("typed", "numba-error", "unmodeled", "panic"):
    print(f"  {outcome}: {count.get(outcome, 0)}")
print("typing errors Numba also raises:")
for r in rows:
    if r["outcome"] == "numba-error":
        print(f"  {r['file'].replace(suite, '')}::{r['function']}: {r['message']}")
reasons = collections.Counter(r["message"].split("`")[0].strip() for r in rows if r["outcome"] == "unmodeled")
print("most common unmodeled reasons:")
for reason, n in reasons.most_common(10):
    print(f"  {n:4d}  {reason}")
findings = json.load(open(sys.argv[2]))
by_code = collections.Counter(f["code"] for f in findings)
print("kernlint check findings (KL108, KL110, KL401):", dict(sorted(by_code.items())))
PY
if [ "$types_status" -ne 0 ] || [ "$check_status" -gt 1 ]; then
  echo "FAIL: kernlint panicked or errored (types: $types_status, check: $check_status)" >&2
  tail -n 20 "$work/typing-stderr.txt" "$work/typing-check-stderr.txt" >&2
  exit 1
fi
