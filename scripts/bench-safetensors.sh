#!/usr/bin/env bash
# Safetensors shards against a raw save of the same bytes: `dgen4j save DIR/ --format safetensors --model M`
# (Hugging Face shards, index and config.json; --finite on, its default, and off) and `--format raw --model M`
# (one file of the same tensor bytes, same seed), then `load --verify` of the shards against a plain load of
# them. Rounds interleaved, the order rotating each round, so that every case sees the same conditions. Per
# case: the command's own seconds (--json: open to the last fsync), the whole process's peak RSS and CPU
# seconds (/usr/bin/time: JVM included), load average. Prints medians and the ratios of the goals (shards
# >= 0.95 x raw; load --verify >= 0.9 x plain load). Not a test: it asserts nothing.
# Usage: scripts/bench-safetensors.sh DIR [ROUNDS=3] [MODEL=llama3-8b]
#   (DIR needs room for one model twice: 2 x 16.1 GB for llama3-8b; rows are kept in $OUT, default a temp file)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:?usage: bench-safetensors.sh DIR [ROUNDS] [MODEL]}"
rounds="${2:-3}"; model="${3:-llama3-8b}"
[ -x /usr/bin/time ] || { echo "bench-safetensors: /usr/bin/time is missing (Debian package 'time')" >&2; exit 1; }
out="${OUT:-$(mktemp)}"; : > "$out"
"$here/dgen4j" --version > /dev/null # builds the CLI first if it is stale: not inside a measured run
run() { # run LABEL ROUND ARGS...: one row "label round seconds bytes peakRssKiB load1 cpuSeconds"
  local label="$1" round="$2"; shift 2
  local tv j secs bytes rss cpu
  tv="$(mktemp)"
  j="$(/usr/bin/time -v -o "$tv" "$here/dgen4j" "$@" --json --no-progress 2>/dev/null)"
  # a raw save reports totalSeconds/totalBytes, a sharded save seconds/fileBytes, a sharded load seconds/bytes
  read -r secs bytes < <(echo "$j" | python3 -c 'import json,sys; d=json.load(sys.stdin)
print(d.get("totalSeconds", d.get("seconds")), d.get("totalBytes", d.get("fileBytes", d.get("bytes"))))')
  rss="$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tv")"
  cpu="$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$tv")"
  echo "$label $round $secs $bytes $rss $(cut -d' ' -f1 /proc/loadavg) $cpu" | tee -a "$out" >&2
  rm -f "$tv"
}
raw="$dir/dgen4j-bench-raw.bin"; st="$dir/dgen4j-bench-st"
kinds=(raw st stnofinite)
for r in $(seq 1 "$rounds"); do
  for i in 0 1 2; do
    kind="${kinds[$(( (i + r) % 3 ))]}"
    rm -rf "$st"
    case "$kind" in
      raw) run save-raw "$r" save "$raw" --format raw --model "$model" --seed 7; rm -f "$raw" "$raw.manifest.json" ;;
      st) run save-shards "$r" save "$st/" --format safetensors --model "$model" --seed 7 ;;
      stnofinite) run save-shards-nofinite "$r" save "$st/" --format safetensors --no-finite --model "$model" --seed 7 ;;
    esac
  done
done
rm -rf "$st"
"$here/dgen4j" save "$st/" --format safetensors --model "$model" --seed 7 --no-progress > /dev/null
for r in $(seq 1 "$rounds"); do
  order=(verify plain); [ $((r % 2)) -eq 0 ] && order=(plain verify)
  for kind in "${order[@]}"; do
    if [ "$kind" = verify ]; then run load-verify "$r" load "$st" --verify; else run load-plain "$r" load "$st"; fi
  done
done
rm -rf "$st"
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
ratio("save-raw", "save-shards", "shards vs raw save (raw s / shards s; goal >= 0.95)")
ratio("save-raw", "save-shards-nofinite", "shards --no-finite vs raw save")
ratio("load-plain", "load-verify", "load --verify vs plain load (plain s / verify s; goal >= 0.9)")
PY
