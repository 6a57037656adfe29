#!/usr/bin/env bash
# Build the wheel (scripts/build_wheel.sh), install it into a fresh venv as a user would
# (`pip install kernlint-*.whl`), and run the installed binary: `kernlint --version` must
# print the Cargo.toml version, and `kernlint check examples/` must report the planted bugs
# (exit 1) from the `kernlint` that pip put on the venv's PATH; then the same through
# `uv tool install`.
# Usage: scripts/wheel_test.sh [path/to/kernlint-*.whl]   (default: build one)
# Exit 3 when maturin cannot be installed (no PyPI), so CI can skip.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
if [ -n "${1:-}" ]; then
  WHEEL=$1
else
  status=0
  out=$(scripts/build_wheel.sh) || status=$?
  [ "$status" -eq 0 ] || exit "$status"
  WHEEL=$(printf '%s\n' "$out" | tail -1)
fi
[ -f "$WHEEL" ] || { echo "no wheel at $WHEEL"; exit 2; }
echo "wheel: $WHEEL ($(du -h "$WHEEL" | cut -f1), built in $((SECONDS - start)) s)"
python3 - "$WHEEL" <<'EOF'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
scripts = [n for n in names if n.endswith(".data/scripts/kernlint")]
assert scripts, f"no kernlint binary in the wheel: {names}"
print("wheel holds", scripts[0])
EOF

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 -m venv "$WORK/venv"
# --no-index: the wheel has no dependencies; nothing is downloaded.
"$WORK/venv/bin/pip" install --quiet --disable-pip-version-check --no-index "$WHEEL"
KL="$WORK/venv/bin/kernlint"
[ -x "$KL" ] || { echo "pip installed no kernlint executable"; exit 1; }

failed=0
expected="kernlint $(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
got=$(PATH="$WORK/venv/bin:$PATH" kernlint --version)
if [ "$got" = "$expected" ]; then echo "ok: kernlint --version -> $got"; else echo "FAIL: kernlint --version -> '$got', expected '$expected'"; failed=1; fi

status=0
PATH="$WORK/venv/bin:$PATH" kernlint check examples/ > "$WORK/check.txt" || status=$?
findings=$(grep -c 'KL[0-9]' "$WORK/check.txt" || true)
if [ "$status" -eq 1 ] && [ "$findings" -gt 0 ]; then
  echo "ok: kernlint check examples/ -> exit 1 with $findings finding lines"
else
  echo "FAIL: kernlint check examples/ -> exit $status, $findings finding lines, expected exit 1 with findings"
  head -20 "$WORK/check.txt"
  failed=1
fi

# The server starts and answers `initialize` from the installed binary too.
msg='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}'
reply=$(printf 'Content-Length: %d\r\n\r\n%s' "${#msg}" "$msg" | timeout 10 "$KL" server 2>/dev/null | head -c 4000 || true)
if printf '%s' "$reply" | grep -q '"capabilities"'; then echo "ok: kernlint server answers initialize"; else echo "FAIL: kernlint server gave no capabilities"; failed=1; fi

# `uv tool install kernlint`: uv puts the same binary in its own tool environment.
if "$WORK/venv/bin/pip" install --quiet --disable-pip-version-check uv >/dev/null 2>&1; then
  export UV_TOOL_DIR="$WORK/uv-tools" UV_TOOL_BIN_DIR="$WORK/uv-bin" UV_CACHE_DIR="$WORK/uv-cache"
  if "$WORK/venv/bin/uv" tool install --quiet --offline --no-index "$WHEEL" 2>"$WORK/uv.txt" \
    && got=$("$WORK/uv-bin/kernlint" --version) && [ "$got" = "$expected" ] \
    && status=0 && { "$WORK/uv-bin/kernlint" check examples/ >/dev/null || status=$?; } && [ "$status" -eq 1 ]; then
    echo "ok: uv tool install -> $got, kernlint check examples/ -> exit 1"
  else
    echo "FAIL: uv tool install of the wheel did not give a working kernlint"; cat "$WORK/uv.txt"; failed=1
  fi
else
  echo "uv could not be installed from PyPI: uv tool install not tested"
fi

[ "$failed" -eq 0 ] || exit 1
echo "wheel test: passed ($((SECONDS - start)) s)"
