#!/usr/bin/env bash
# Load benchmark: `load` against `load --verify` of the same file, side by side in one run, for
# 1, 2 and 4 readers, from a page-cache-resident file (tmpfs) and with O_DIRECT from a disk.
# Rounds are interleaved (plain, verify, plain, verify, ...) so that both see the same conditions;
# prints the medians in GB/s (10^9 B/s, end to end), the verify/plain ratio of the medians and the
# median of each round's own ratio, the CPU seconds (user + sys, JVM start included) of each kind of
# load, and the 1-minute load average seen during the run (other processes on the machine skew every
# figure; CPU seconds much less). Not a test: it asserts nothing. Usage:
#   scripts/bench-load.sh [DISK_DIR=/tmp] [SIZE_MIB=4096] [ROUNDS=5] [MEM_DIR=/dev/shm] [READERS="1 2 4"]
# BENCH_CLIS compares builds or settings in the same run, interleaved: ';'-separated LABEL=COMMAND
# entries, COMMAND a launcher with optional leading JVM options, e.g.
#   BENCH_CLIS="before=/tmp/old/dgen4j;after=./dgen4j;inline=./dgen4j -Ddgen4j.load.verifier=inline"
# (dgen4j.load.verifier: auto, the default, verifies on a thread of its own when the readers leave a
# core idle and in the readers otherwise; inline and thread force one way). Default: this checkout.
# BENCH_HOGS=1 adds two controls per round: the first build's plain load beside a CPU hog (a busy
# shell loop: one CPU, no memory traffic) and beside a memory hog (dd clearing a 256 MiB buffer over
# and over: one CPU and all the memory bandwidth it can take), each as a ratio to the plain load
# alone. Where the memory hog slows a plain load and the CPU hog does not, reads share memory
# bandwidth with whatever else runs, and a verify (which reads every byte once more) pays that too.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
disk="${1:-/tmp}"; mib="${2:-4096}"; rounds="${3:-5}"; mem="${4:-/dev/shm}"; readers="${5:-1 2 4}"
[ -x /usr/bin/time ] || { echo "bench-load: needs GNU time at /usr/bin/time (Debian package time) for CPU seconds" >&2; exit 2; }
IFS=';' read -r -a clis <<<"${BENCH_CLIS:-this=$here/dgen4j}"
for c in "${clis[@]}"; do
  [[ "$c" == *=* ]] || { echo "bench-load: BENCH_CLIS entry '$c' is not LABEL=COMMAND" >&2; exit 2; }
  # shellcheck disable=SC2086
  ${c#*=} info >/dev/null 2>&1   # builds the jar first if needed, outside the timings
done
cli="${clis[0]#*=}"
# The reader-count option: --readers where the CLI has it, else --writers (reads in flight).
# shellcheck disable=SC2086
if $cli load --help 2>/dev/null | grep -q -- '--readers'; then ropt=--readers; else ropt=--writers; fi
results="$(mktemp)"; cpu="$(mktemp)"
files=()
cleanup() { rm -f "$results" "$cpu"; for f in "${files[@]}"; do rm -f "$f" "$f.manifest.json"; done; }
trap cleanup EXIT
media=()
[ -d "$mem" ] && media+=("page-cache:$mem")
media+=("o_direct:$disk")
for m in "${media[@]}"; do
  name="${m%%:*}"; dir="${m#*:}"
  f="$dir/dgen4j-bench-load.bin"; files+=("$f")
  # shellcheck disable=SC2086
  $cli save "$f" --size "${mib}MiB" --seed 1 --json >/dev/null 2>&1
  for r in $(seq 1 "$rounds"); do
    for n in $readers; do
      for c in "${clis[@]}"; do
        label="${c%%=*}"
        for v in plain verify; do
          flag=(); [ "$v" = verify ] && flag=(--verify)
          # shellcheck disable=SC2086
          j="$(/usr/bin/time -f '%U %S' -o "$cpu" ${c#*=} load "$f" "${flag[@]}" "$ropt" "$n" --buffers $((n + 1)) --json 2>/dev/null)"
          load1="$(cut -d' ' -f1 /proc/loadavg)"
          secs="$(awk '{ print $1 + $2 }' "$cpu")"
          echo "$name $n $label $v $(echo "$j" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["totalGBps"], d["backend"].replace(" ", "_"), d.get("verifier", "-"))') $load1 $r $secs" >>"$results"
        done
      done
      if [ "${BENCH_HOGS:-0}" = 1 ]; then
        for hog in cpu-hog mem-hog; do
          if [ $hog = cpu-hog ]; then sh -c 'while :; do :; done' & else dd if=/dev/zero of=/dev/null bs=256M count=1000000 2>/dev/null & fi
          hogpid=$!; sleep 0.3
          # shellcheck disable=SC2086
          j="$(/usr/bin/time -f '%U %S' -o "$cpu" $cli load "$f" "$ropt" "$n" --buffers $((n + 1)) --json 2>/dev/null)"
          kill "$hogpid"; wait "$hogpid" 2>/dev/null || true
          secs="$(awk '{ print $1 + $2 }' "$cpu")"
          echo "$name $n ${clis[0]%%=*} $hog $(echo "$j" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["totalGBps"], d["backend"].replace(" ", "_"))') - $(cut -d' ' -f1 /proc/loadavg) $r $secs" >>"$results"
        done
      fi
    done
    echo "$name: round $r done (load average $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  done
  rm -f "$f" "$f.manifest.json"
done
python3 - "$results" "$mib" "$rounds" "$ropt" "$(nproc)" <<'PY'
import sys, statistics
rows = [l.split() for l in open(sys.argv[1])]
t, backend, verifier, loads, per_round, cpu = {}, {}, {}, {}, {}, {}
for medium, n, label, kind, gbps, be, ver, load1, rnd, secs in rows:
    t.setdefault((medium, int(n), label, kind), []).append(float(gbps))
    per_round.setdefault((medium, int(n), label, rnd), {})[kind] = float(gbps)
    cpu.setdefault((medium, int(n), label, kind), []).append(float(secs))
    loads.setdefault(medium, []).append(float(load1))
    backend[medium] = be.replace("_", " ")
    if kind == "verify":
        verifier[medium] = ver
labels = list(dict.fromkeys(r[2] for r in rows))
print(f"load vs load --verify, {sys.argv[2]} MiB, {sys.argv[3]} interleaved rounds, medians of end-to-end GB/s "
      f"(1e9 B/s); readers set with {sys.argv[4]}, buffers = readers + 1; {sys.argv[5]} CPUs")
print(f"{'medium':11s} {'readers':>7s} {'build':>10s} {'load':>8s} {'verify':>8s} {'verify/plain':>13s} "
      f"{'per-round':>9s} {'cpu-s load':>10s} {'cpu-s verify':>12s}  goal")
for medium in dict.fromkeys(m for m, _, _, _ in t):
    for n in sorted({n for m, n, _, _ in t if m == medium}):
        for label in labels:
            if (medium, n, label, "plain") not in t:
                continue
            p = statistics.median(t[(medium, n, label, "plain")]); v = statistics.median(t[(medium, n, label, "verify")])
            pairs = [d["verify"] / d["plain"] for (m2, n2, l2, _), d in per_round.items()
                     if (m2, n2, l2) == (medium, n, label) and "plain" in d and "verify" in d]
            cp = statistics.median(cpu[(medium, n, label, "plain")]); cv = statistics.median(cpu[(medium, n, label, "verify")])
            goal = ">= 0.90" if n <= 2 else "-"
            print(f"{medium:11s} {n:7d} {label:>10s} {p:8.2f} {v:8.2f} {v / p:13.3f} {statistics.median(pairs):9.3f} "
                  f"{cp:10.2f} {cv:12.2f}  {goal}")
hogs = [(m, n, l) for (m, n, l, k) in t if k == "cpu-hog"]
if hogs:
    print("plain load beside other work (first build), median of each round's ratio to the plain load alone")
    print(f"{'medium':11s} {'readers':>7s} {'cpu hog / alone':>16s} {'memory hog / alone':>19s}")
    for medium, n, label in hogs:
        ratios = {}
        for (m2, n2, l2, _), d in per_round.items():
            if (m2, n2, l2) == (medium, n, label) and "plain" in d:
                for k in ("cpu-hog", "mem-hog"):
                    if k in d:
                        ratios.setdefault(k, []).append(d[k] / d["plain"])
        print(f"{medium:11s} {n:7d} {statistics.median(ratios['cpu-hog']):16.3f} {statistics.median(ratios['mem-hog']):19.3f}")
for medium, be in backend.items():
    l = loads[medium]
    print(f"  {medium}: {be}; verifier {verifier.get(medium, '-')}; 1-minute load average "
          f"{min(l):.1f}-{max(l):.1f} (median {statistics.median(l):.1f})")
PY
