#!/usr/bin/env bash
# torch.save files against raw saves of the same bytes: `dgen4j save --format torch` (CRC-32 of every
# record, and with `--crc none`) and `--format raw` with the same tensor list and seed, on a disk
# directory and on a memory file system, then `load --verify` of the torch file against a plain load
# of it. Rounds interleaved, the order rotating each round, so that every case sees the same
# conditions. Per case: the command's own seconds (--json totalSeconds: open to rename, fsync
# included), the whole process's peak RSS and CPU seconds (/usr/bin/time: JVM included), load
# average. Prints medians and the ratios of the goals (torch save >= 0.95 x raw; load --verify
# >= 0.9 x plain load). Not a test: it asserts nothing.
# Usage: scripts/bench-torch.sh DISKDIR TMPFSDIR [ROUNDS=5] [MODEL=mlp-1b]
#   (TMPFSDIR: e.g. `mount -t tmpfs -o size=5g tmpfs /mnt/t`; rows are kept in $OUT, default a temp file)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
disk="${1:?usage: bench-torch.sh DISKDIR TMPFSDIR [ROUNDS] [MODEL]}"
tmp="${2:?usage: bench-torch.sh DISKDIR TMPFSDIR [ROUNDS] [MODEL]}"
rounds="${3:-5}"; model="${4:-mlp-1b}"
[ -x /usr/bin/time ] || { echo "bench-torch: /usr/bin/time is missing (Debian package 'time')" >&2; exit 1; }
out="${OUT:-$(mktemp)}"; : > "$out"
"$here/dgen4j" --version > /dev/null # builds the CLI first if it is stale: not inside a measured run
run() { # run LABEL ROUND ARGS...: one row "label round seconds bytes peakRssKiB load1 cpuSeconds"
  local label="$1" round="$2"; shift 2
  local tv j secs bytes rss cpu
  tv="$(mktemp)"
  j="$(/usr/bin/time -v -o "$tv" "$here/dgen4j" "$@" --json --no-progress 2>/dev/null)"
  read -r secs bytes < <(echo "$j" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["totalSeconds"], d["totalBytes"])')
  rss="$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tv")"
  cpu="$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$tv")"
  echo "$label $round $secs $bytes $rss $(cut -d' ' -f1 /proc/loadavg) $cpu" | tee -a "$out" >&2
  rm -f "$tv"
}
kinds=(raw torch torchnocrc)
for r in $(seq 1 "$rounds"); do
  for where in disk tmpfs; do
    dir="$disk"; [ "$where" = tmpfs ] && dir="$tmp"
    for i in 0 1 2; do
      kind="${kinds[$(( (i + r) % 3 ))]}"
      f="$dir/dgen4j-bench-$kind.bin"
      case "$kind" in
        raw) run "save-raw-$where" "$r" save "$f" --format raw --model "$model" --seed 7 ;;
        torch) run "save-torch-$where" "$r" save "$f" --format torch --model "$model" --seed 7 ;;
        torchnocrc) run "save-torchnocrc-$where" "$r" save "$f" --format torch --crc none --model "$model" --seed 7 ;;
      esac
      rm -f "$f" "$f.manifest.json"
    done
  done
done
f="$disk/dgen4j-bench-load.pt"
"$here/dgen4j" save "$f" --format torch --model "$model" --seed 7 --no-progress > /dev/null
for r in $(seq 1 "$rounds"); do
  order=(verify plain); [ $((r % 2)) -eq 0 ] && order=(plain verify)
  for kind in "${order[@]}"; do
    if [ "$kind" = verify ]; then run load-verify-disk "$r" load "$f" --verify; else run load-plain-disk "$r" load "$f"; fi
  done
done
rm -f "$f" "$f.manifest.json"
python3 - "$out" <<'PY'
import statistics, sys
by = {}
for line in open(sys.argv[1]):
    label, _, secs, nbytes, rss, load, cpu = line.split()
    d = by.setdefault(label, {"s": [], "rss": [], "load": [], "cpu": [], "bytes": int(nbytes)})
    d["s"].append(float(secs)); d["rss"].append(int(rss)); d["load"].append(float(load)); d["cpu"].append(float(cpu))
med = lambda label, k: statistics.median(by[label][k])
print(f"{'case':22s} {'median s':>9s} {'GB/s':>6s} {'peak RSS':>10s} {'CPU s':>6s} {'load1':>6s}  every round's seconds")
for label, d in by.items():
    m = med(label, "s")
    print(f"{label:22s} {m:9.3f} {d['bytes'] / m / 1e9:6.2f} {max(d['rss']) / 1024:6.1f} MiB {med(label, 'cpu'):6.2f} "
          f"{med(label, 'load'):6.2f}  " + " ".join(f"{x:.3f}" for x in d["s"]))
def ratio(fast, slow, what):
    print(f"{what}: {med(fast, 's'):.3f} / {med(slow, 's'):.3f} s = {med(fast, 's') / med(slow, 's'):.3f}")
for where in ("disk", "tmpfs"):
    ratio(f"save-raw-{where}", f"save-torch-{where}", f"torch vs raw save, {where} (raw s / torch s; goal >= 0.95)")
    ratio(f"save-raw-{where}", f"save-torchnocrc-{where}", f"torch --crc none vs raw save, {where}")
ratio("load-plain-disk", "load-verify-disk", "load --verify vs plain load, disk (plain s / verify s; goal >= 0.9)")
PY
