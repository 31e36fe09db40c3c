#!/usr/bin/env bash
# Checkpoint benchmark against dd on the same disk, rounds interleaved so that both see the
# same conditions; prints medians and the ratios of the issue's goals. Not a test: it asserts
# nothing. Usage: scripts/bench-checkpoint.sh DIR [SIZE_MIB=4096] [ROUNDS=3]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:?usage: bench-checkpoint.sh DIR [SIZE_MIB] [ROUNDS]}"; mib="${2:-4096}"; rounds="${3:-3}"
count=$((mib / 32))
f="$dir/dgen4j-bench.bin"; d="$dir/dgen4j-bench-dd.bin"
"$here/dgen4j" info >/dev/null   # builds the jar first if needed, outside the timings
results="$(mktemp)"
secs() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N); awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
for r in $(seq 1 "$rounds"); do
  s=$(secs dd if=/dev/zero of="$d" bs=32M count="$count" oflag=direct conv=fsync); echo "dd-write $s" >>"$results"
  j="$("$here/dgen4j" save "$f" --size "${mib}MiB" --seed 1 --json 2>/dev/null)"
  echo "save $(echo "$j" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["totalSeconds"], d["peakRssBytes"])')" >>"$results"
  s=$(secs dd if="$d" of=/dev/null bs=32M iflag=direct); echo "dd-read $s" >>"$results"
  j="$("$here/dgen4j" load "$f" --json 2>/dev/null)"
  echo "load $(echo "$j" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totalSeconds"])')" >>"$results"
  j="$("$here/dgen4j" load "$f" --verify --json 2>/dev/null)"
  echo "verify $(echo "$j" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totalSeconds"])')" >>"$results"
  echo "round $r done" >&2
done
rm -f "$f" "$f.manifest.json" "$d"
python3 - "$results" "$mib" <<'PY'
import sys, statistics
rows = [l.split() for l in open(sys.argv[1])]
mib = int(sys.argv[2]); gb = mib * 1048576 / 1e9
t = {}
for r in rows:
    t.setdefault(r[0], []).append(float(r[1]))
med = {k: statistics.median(v) for k, v in t.items()}
rate = {k: gb / v for k, v in med.items()}
rss = max(int(r[2]) for r in rows if r[0] == "save") / 1048576
print(f"checkpoint of {mib} MiB, {len(t['save'])} interleaved rounds, medians (GB/s = 1e9 B/s, end to end incl. fsync):")
for k in ["dd-write", "save", "dd-read", "load", "verify"]:
    print(f"  {k:9s} {med[k]:7.2f} s  {rate[k]:6.2f} GB/s")
print(f"  save / dd write        = {rate['save'] / rate['dd-write']:.3f}   (goal >= 0.95)")
print(f"  load / dd read         = {rate['load'] / rate['dd-read']:.3f}   (goal >= 0.95)")
print(f"  load+verify / dd read  = {rate['verify'] / rate['dd-read']:.3f}   (goal >= 0.90)")
print(f"  save peak RSS (whole process) = {rss:.0f} MiB")
PY
rm -f "$results"
