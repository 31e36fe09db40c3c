# shellcheck shell=bash
# Shared by the format benchmarks (bench-torch.sh, bench-safetensors.sh): one measured CLI run per row,
# and the table of medians with the ratios a benchmark asks for. Source it after setting $here (the
# repository) and $out (the rows file).

# bench_run LABEL ROUND ARGS...: runs `dgen4j ARGS --json --no-progress` and appends the row
# "label round seconds bytes peakRssKiB load1 cpuSeconds": the command's own seconds and bytes from its
# JSON (a save's totalSeconds/totalBytes, a sharded save's seconds/fileBytes, a sharded load's
# seconds/bytes), the whole process's peak RSS and user + system CPU from /usr/bin/time.
bench_run() {
  local label="$1" round="$2"; shift 2
  local tv j secs bytes rss cpu
  tv="$(mktemp)"
  j="$(/usr/bin/time -v -o "$tv" "$here/dgen4j" "$@" --json --no-progress 2>/dev/null)"
  read -r secs bytes < <(echo "$j" | python3 -c 'import json,sys; d=json.load(sys.stdin)
print(d.get("totalSeconds", d.get("seconds")), d.get("totalBytes", d.get("fileBytes", d.get("bytes"))))')
  rss="$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tv")"
  cpu="$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$tv")"
  echo "$label $round $secs $bytes $rss $(cut -d' ' -f1 /proc/loadavg) $cpu" | tee -a "$out" >&2
  rm -f "$tv"
}

# bench_summary ROWS [FAST SLOW WHAT]...: a line per label (median seconds, GB/s, peak RSS, median CPU
# and load, every round's seconds), then for each triple the ratio of FAST's median seconds to SLOW's.
bench_summary() {
  python3 - "$@" <<'PY'
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
args = sys.argv[2:]
for fast, slow, what in zip(args[0::3], args[1::3], args[2::3]):
    print(f"{what}: {med(fast, 's'):.3f} / {med(slow, 's'):.3f} s = {med(fast, 's') / med(slow, 's'):.3f}")
PY
}
