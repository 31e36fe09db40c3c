#!/usr/bin/env bash
# Load benchmark: `load` against `load --verify` of the same file, side by side in one run, for
# 1, 2 and 4 readers, from a page-cache-resident file (tmpfs) and with O_DIRECT from a disk.
# Rounds are interleaved (plain, verify, plain, verify, ...) so that both see the same conditions;
# prints the medians in GB/s (10^9 B/s, end to end) and the verify/plain ratio. Not a test: it
# asserts nothing. Usage:
#   scripts/bench-load.sh [DISK_DIR=/tmp] [SIZE_MIB=4096] [ROUNDS=5] [MEM_DIR=/dev/shm] [READERS="1 2 4"]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
disk="${1:-/tmp}"; mib="${2:-4096}"; rounds="${3:-5}"; mem="${4:-/dev/shm}"; readers="${5:-1 2 4}"
cli="$here/dgen4j"
"$cli" info >/dev/null 2>&1   # builds the jar first if needed, outside the timings
# The reader-count option: --readers where the CLI has it, else --writers (reads in flight).
if "$cli" load --help 2>/dev/null | grep -q -- '--readers'; then ropt=--readers; else ropt=--writers; fi
results="$(mktemp)"
files=()
cleanup() { rm -f "$results"; for f in "${files[@]}"; do rm -f "$f" "$f.manifest.json"; done; }
trap cleanup EXIT
media=()
[ -d "$mem" ] && media+=("page-cache:$mem")
media+=("o_direct:$disk")
for m in "${media[@]}"; do
  name="${m%%:*}"; dir="${m#*:}"
  f="$dir/dgen4j-bench-load.bin"; files+=("$f")
  "$cli" save "$f" --size "${mib}MiB" --seed 1 --json >/dev/null 2>&1
  for r in $(seq 1 "$rounds"); do
    for n in $readers; do
      for v in plain verify; do
        flag=(); [ "$v" = verify ] && flag=(--verify)
        j="$("$cli" load "$f" "${flag[@]}" "$ropt" "$n" --buffers $((n + 1)) --json 2>/dev/null)"
        echo "$name $n $v $(echo "$j" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["totalGBps"], d["backend"].replace(" ", "_"), d.get("verifier", "-"))')" >>"$results"
      done
    done
    echo "$name: round $r done" >&2
  done
  rm -f "$f" "$f.manifest.json"
done
python3 - "$results" "$mib" "$rounds" "$ropt" <<'PY'
import sys, statistics
rows = [l.split() for l in open(sys.argv[1])]
t, backend, verifier = {}, {}, {}
for medium, n, kind, gbps, be, ver in rows:
    t.setdefault((medium, int(n), kind), []).append(float(gbps))
    backend[medium] = be.replace("_", " ")
    if kind == "verify":
        verifier[medium] = ver
print(f"load vs load --verify, {sys.argv[2]} MiB, {sys.argv[3]} interleaved rounds, medians of end-to-end GB/s "
      f"(1e9 B/s); readers set with {sys.argv[4]}, buffers = readers + 1")
print(f"{'medium':11s} {'readers':>7s} {'load':>8s} {'verify':>8s} {'verify/plain':>13s}  goal")
for medium in dict.fromkeys(m for m, _, _ in t):
    for n in sorted({n for m, n, _ in t if m == medium}):
        p = statistics.median(t[(medium, n, "plain")]); v = statistics.median(t[(medium, n, "verify")])
        goal = ">= 0.90" if n <= 2 else "-"
        print(f"{medium:11s} {n:7d} {p:8.2f} {v:8.2f} {v / p:13.3f}  {goal}")
for medium, be in backend.items():
    print(f"  {medium}: {be}; verifier {verifier.get(medium, '-')}")
PY
