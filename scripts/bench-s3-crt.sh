#!/usr/bin/env bash
# Measures the crt backend against the aws backend: the same streaming save (`dgen4j save
# s3://...`, the CLI's shaded jar through ./dgen4j) to one s3proxy on 127.0.0.1, the order of the
# two backends alternating each round. Per backend: the save's own elapsed time (totalSeconds of
# --json), and the client's CPU seconds per GiB (the CLI process's user + system time, from
# /usr/bin/time: JVM start and data generation included, the same for both). Prints the medians and
# the crt/aws ratios. Starts its own s3proxy (filesystem backend in a temporary directory) unless
# AWS_ENDPOINT_URL is set (then AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and BUCKET name the store).
# Usage: scripts/bench-s3-crt.sh [sizeMiB=512] [chunkMiB=32] [writers=2] [rounds=2]
#
# The crt backend's streaming save against a plain multipart upload through the CRT-based client of
# the same bytes generated in memory beforehand (one JVM) is `./dgen4j bench s3 --backend crt`.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/find-jdk.sh
source "$here/scripts/find-jdk.sh"
JAVA_HOME="$(dgen4j_find_jdk)"
export JAVA_HOME
size="${1:-512}" chunk="${2:-32}" writers="${3:-2}" rounds="${4:-2}"
cd "$here"
[ -x /usr/bin/time ] || { echo "bench-s3-crt: /usr/bin/time is missing (Debian package 'time')" >&2; exit 1; }
./build -q -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true -Dnative.skip="${NATIVE_SKIP:-false}" \
  -pl java/cli,java/crt -am package >&2
# shellcheck source=scripts/s3-bench.sh
source "$here/scripts/s3-bench.sh"
s3proxy_jar="$here/java/crt/target/s3proxy/s3proxy.jar"
tmp="$(mktemp -d)"
trap 'dgen4j_bench_s3proxy_stop; rm -rf "$tmp"' EXIT
dgen4j_bench_s3proxy "$s3proxy_jar"
: > "$tmp/runs"
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then order="crt aws"; else order="aws crt"; fi
  for b in $order; do
    /usr/bin/time -f '%U %S' -o "$tmp/time" "$here/dgen4j" save "s3://${BUCKET:-bench}/bench-$b.bin" \
      --size "${size}MiB" --chunk "${chunk}MiB" --writers "$writers" --buffers $((writers + 1)) --backend "$b" \
      --json > "$tmp/out.json" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    python3 - "$b" "$tmp/out.json" "$tmp/time" >> "$tmp/runs" <<'PY'
import json, sys
b, out, t = sys.argv[1:]
r = json.load(open(out))
u, s = (float(x) for x in open(t).read().split()[-2:])
gib = r["totalBytes"] / 2**30
print(b, r["totalSeconds"], (u + s) / gib, r["peakRssBytes"])
PY
    echo "round $r: $(tail -1 "$tmp/runs")" >&2
  done
done
python3 - "$tmp/runs" "$size" "$chunk" "$writers" "$rounds" <<'PY'
import statistics, sys
runs, size, chunk, writers, rounds = sys.argv[1:]
rows = [l.split() for l in open(runs)]
med = {}
for b in ("crt", "aws"):
    mine = [r for r in rows if r[0] == b]
    med[b] = (statistics.median(float(r[1]) for r in mine), statistics.median(float(r[2]) for r in mine),
              max(int(r[3]) for r in mine))
print(f"streaming save of {size} MiB, chunks of {chunk} MiB, {writers} writers, {rounds} rounds (medians):")
print(f"{'backend':8} {'elapsed s':>10} {'MiB/s':>8} {'CPU s/GiB':>10} {'peak RSS MiB':>13}")
for b, (e, c, rss) in med.items():
    print(f"{b:8} {e:10.2f} {int(size) / e:8.1f} {c:10.2f} {rss / 2**20:13.0f}")
print(f"crt/aws: elapsed {med['crt'][0] / med['aws'][0]:.2f}, CPU per GiB {med['crt'][1] / med['aws'][1]:.2f}")
PY
