#!/usr/bin/env bash
# Robustness over real Python: `kernlint check` (every rule) on every .py file of numba,
# numba-cuda, numpy and scipy as pip installs them. Passes when kernlint exits 0 or 1 and
# never reports an internal error or a panic. Two passes: the files as they are (files that
# never mention `cuda` are skipped unparsed, as in any run), then the same files with a
# `# cuda` comment appended, so that every one of them goes through the whole analysis.
# Prints files checked, findings per rule and wall time. Exit 3 when the packages cannot be
# installed (no PyPI), which is not kernlint's failure.
# Usage: scripts/check_site_packages.sh [path/to/kernlint]   (default: target/release/kernlint)
set -euo pipefail
kernlint=$(realpath "${1:-target/release/kernlint}")
work=${KERNLINT_WORK:-${TMPDIR:-/tmp}/kernlint-site-packages}
site="$work/site"
if [ ! -f "$site/.installed" ]; then
  rm -rf "$site"
  mkdir -p "$site"
  python3 -m pip install --quiet --disable-pip-version-check --no-compile --target "$site" \
    numba numba-cuda numpy scipy || { echo "numba/numba-cuda/numpy/scipy could not be installed" >&2; exit 3; }
  touch "$site/.installed"
fi
for package in numba numpy scipy; do
  [ -d "$site/$package" ] || { echo "FAIL: $package is missing from $site" >&2; exit 1; }
done
# Every rule, and no configuration from the directories around the files.
: > "$work/kernlint.toml"

failed=0
# check_pass NAME ROOT: check every .py file under ROOT in batches (one kernlint per batch).
check_pass() {
  local name=$1 root=$2
  local list="$work/$name.files" stats="$work/$name.statistics" errors="$work/$name.stderr"
  (cd "$root" && find . -name '*.py' -type f | sort) > "$list"
  : > "$stats"
  : > "$errors"
  local files start status worst=0
  files=$(wc -l < "$list")
  start=$(date +%s%N)
  rm -f "$work/batch."*
  split -l 1000 "$list" "$work/batch."
  local batch
  for batch in "$work/batch."*; do
    mapfile -t paths < "$batch"
    status=0
    (cd "$root" && "$kernlint" check --select ALL --config "$work/kernlint.toml" --statistics "${paths[@]}") \
      >> "$stats" 2>> "$errors" || status=$?
    # 0: clean, 1: findings; 2 is an internal or usage error, above that a signal.
    if [ "$status" -gt 1 ]; then worst=$status; fi
  done
  local ms=$(( ($(date +%s%N) - start) / 1000000 ))
  echo "== $name: $files files checked in $((ms / 1000)).$(printf '%03d' $((ms % 1000))) s"
  awk '$2 ~ /^KL/ {n[$2" "$3] += $1; total += $1} $2 == "files" {unreadable += $1}
       END {for (k in n) printf "%8d  %s\n", n[k], k; printf "%8d  findings\n", total;
            if (unreadable) printf "%8d  files that could not be checked\n", unreadable}' "$stats" | sort -k2
  # Any exit status but 0 and 1, an internal error or a panic message is a failure.
  if [ "$worst" -ne 0 ] || grep -q -E 'internal error|panicked|RUST_BACKTRACE' "$errors"; then
    echo "FAIL ($name): kernlint crashed or errored (exit status $worst):" >&2
    grep -E -B2 -A8 'internal error|panicked' "$errors" | head -n 60 >&2 || head -n 40 "$errors" >&2
    failed=1
  elif [ -s "$errors" ]; then
    echo "stderr (files kernlint could not read; not a failure):"
    sort "$errors" | uniq -c | sort -rn | head -n 10
  fi
}

echo "kernlint: $kernlint"
for package in numba numba_cuda numpy scipy; do
  [ -d "$site/$package" ] && echo "$package: $(find "$site/$package" -name '*.py' | wc -l) .py files"
done
check_pass as-installed "$site"

# Every file analysed: a copy of each with a `# cuda` line, which defeats the quick skip.
forced="$work/forced"
if [ ! -f "$forced/.done" ]; then
  rm -rf "$forced"
  (cd "$site" && find . -name '*.py' -type f) | while IFS= read -r f; do
    mkdir -p "$forced/$(dirname "$f")"
    { cat "$site/$f"; printf '\n# cuda\n'; } > "$forced/$f"
  done
  touch "$forced/.done"
fi
check_pass every-file-analysed "$forced"
exit "$failed"
