#!/usr/bin/env bash
# Build the VS Code extension (editors/vscode) into a .vsix.
# Usage: scripts/package_vscode.sh [OUT.vsix]   (default: target/vscode/kernlint-<version>.vsix)
# Prints the .vsix path on its last line. Exit 3 when the npm packages cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
command -v npm >/dev/null 2>&1 || { echo "npm not found"; exit 3; }
cd editors/vscode
VERSION=$(node -p "require('./package.json').version")
OUT=${1:-$ROOT/target/vscode/kernlint-$VERSION.vsix}
case "$OUT" in /*) ;; *) OUT=$ROOT/$OUT ;; esac
mkdir -p "$(dirname "$OUT")"
if [ -f node_modules/.package-lock.json ] && [ node_modules/.package-lock.json -nt package-lock.json ] \
   && [ node_modules/.package-lock.json -nt package.json ]; then
  :  # node_modules is up to date
elif [ -f package-lock.json ]; then
  timeout 600 npm ci --no-audit --no-fund --loglevel=error || exit 3
else
  timeout 600 npm install --no-audit --no-fund --loglevel=error || exit 3
fi
rm -rf out
npx --no-install tsc -p ./
npx --no-install vsce package --skip-license --out "$OUT" >&2
echo "$OUT"
