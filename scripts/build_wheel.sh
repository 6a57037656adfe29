#!/usr/bin/env bash
# Build the `kernlint` wheel (maturin, `bindings = "bin"`: the wheel holds only the binary,
# installed as `bin/kernlint` of the environment, as ruff ships) into target/wheels/.
#
# Usage: scripts/build_wheel.sh [extra maturin build arguments]
#   scripts/build_wheel.sh                 # native wheel, tag manylinux_2_XX of this machine's glibc
#   KL_WHEEL_PORTABLE=1 scripts/build_wheel.sh
#                                          # the wheel to publish: `maturin build --zig
#                                          # --compatibility manylinux2014`, tagged
#                                          # manylinux_2_17 (needs glibc 2.17 only), so it installs
#                                          # on RHEL 8 / Ubuntu 20.04, common on GPU clusters; the
#                                          # native tag (manylinux_2_35 here) does not. Installs
#                                          # PyPI `ziglang` into the venv; builds every crate again
#                                          # with zig cc (about 5.5 min on 2 cores; set
#                                          # CARGO_TARGET_DIR to keep it apart from target/release)
#   KL_WHEEL_PROFILE=dist scripts/build_wheel.sh
#                                          # Cargo.toml's [profile.dist]: fat LTO, one codegen
#                                          # unit, stripped (slower to build; the default
#                                          # `release` reuses `cargo build --release`)
# maturin lives in a venv under target/ (KL_WHEEL_VENV, default target/wheel-venv, with zig
# target/wheel-venv-zig), kept between runs. Prints the wheel's path as the last line.
# Exit 3 when maturin cannot be installed (no PyPI), so CI can skip.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${KL_WHEEL_PORTABLE:-}" ]; then
  VENV=${KL_WHEEL_VENV:-target/wheel-venv-zig}
  PKGS="maturin==1.16.0 ziglang==0.17.0"
else
  VENV=${KL_WHEEL_VENV:-target/wheel-venv}
  PKGS="maturin==1.16.0"
fi
if [ ! -f "$VENV/.installed" ] || [ "$(cat "$VENV/.installed")" != "$PKGS" ]; then
  rm -rf "$VENV"
  python3 -m venv "$VENV" || exit 3
  timeout 300 "$VENV/bin/pip" install --quiet --disable-pip-version-check $PKGS || exit 3
  echo "$PKGS" > "$VENV/.installed"
fi
ARGS=(--out target/wheels)
case "${KL_WHEEL_PROFILE:-release}" in
  release) ARGS+=(--release) ;;
  *) ARGS+=(--profile "$KL_WHEEL_PROFILE") ;;
esac
if [ -n "${KL_WHEEL_PORTABLE:-}" ]; then
  ARGS+=(--zig --compatibility manylinux2014)
fi
# Remove stale wheels of this version so the path printed is the one just built.
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
rm -f target/wheels/kernlint-"$VERSION"-*.whl
# maturin runs cargo (the toolchain on PATH) and, with --zig, `python -m ziglang`: put the
# venv's python first so it finds the ziglang installed there.
PATH="$(realpath "$VENV/bin"):$PATH" "$VENV/bin/maturin" build "${ARGS[@]}" "$@" >&2
WHEEL=$(ls -t target/wheels/kernlint-"$VERSION"-*.whl | head -1)
echo "$WHEEL"
