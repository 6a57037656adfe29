#!/usr/bin/env bash
# Compile every corpus kernel to PTX with kernlint and assemble it with ptxas.
# Usage: scripts/ptx_check.sh [ARCH]   (default sm_80)
# Env: KERNLINT (binary; default target/debug/kernlint), PTXAS, KERNELS (corpus dir), OUT (ptx dir).
set -u
ARCH="${1:-sm_80}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
KERNLINT="${KERNLINT:-$ROOT/target/debug/kernlint}"
KERNELS="${KERNELS:-$ROOT/../shared/kernels}"
OUT="${OUT:-$(mktemp -d)}"
if [ -z "${PTXAS:-}" ]; then
  PTXAS="$(command -v ptxas || true)"
  [ -z "$PTXAS" ] && PTXAS=/root/.cache/kernlint-oracle/lib/python3.11/site-packages/nvidia/cu13/bin/ptxas
fi
[ -x "$PTXAS" ] || { echo "ptxas not found (set PTXAS)"; exit 2; }
[ -f "$KERNELS/manifest.toml" ] || { echo "no manifest at $KERNELS"; exit 2; }
python3 - "$KERNELS/manifest.toml" <<'PY' > "$OUT/cases.tsv"
import sys, tomllib
for k in tomllib.load(open(sys.argv[1], "rb"))["kernel"]:
    print("\t".join([k["name"], k["file"], k["kernel"], k["sig"]]))
PY
ok=0; asm=0; nyi=0; other=0; total=0
while IFS=$'\t' read -r name file kernel sig; do
  total=$((total + 1))
  ptx="$OUT/$name.ptx"
  if ! msg="$("$KERNLINT" compile "$KERNELS/$file::$kernel" --sig "$sig" --emit ptx --arch "$ARCH" -o "$ptx" 2>&1)"; then
    if echo "$msg" | grep -q "cannot compile"; then
      nyi=$((nyi + 1)); printf '%-20s %s\n' "$name" "$(echo "$msg" | sed 's/.*: \(kernlint cannot compile\)/\1/' | head -1)"
    else
      other=$((other + 1)); printf '%-20s compile error: %s\n' "$name" "$(echo "$msg" | head -1)"
    fi
    continue
  fi
  if perr="$("$PTXAS" -arch="$ARCH" "$ptx" -o /dev/null 2>&1)"; then
    ok=$((ok + 1)); printf '%-20s ok\n' "$name"
  else
    asm=$((asm + 1)); printf '%-20s ptxas error: %s\n' "$name" "$(echo "$perr" | head -2 | tr '\n' ' ')"
  fi
done < "$OUT/cases.tsv"
echo "total $total: ok $ok, ptxas error $asm, not yet $nyi, other $other (PTX in $OUT)"
[ "$asm" -eq 0 ] && [ "$other" -eq 0 ]
