#!/usr/bin/env bash
# The restore benchmark: every backend's `dgen4j load s3://...` against boto3's download_fileobj of
# the same object, in one run against one store, rounds interleaved (the clients' order rotates each
# round). Per client: transfer MB/s (10^6 bytes/s; dgen4j: the load's requests + start-up + I/O +
# stalls + drain phases, from --json, i.e. from its HEAD to its last byte; boto3: its
# download_fileobj call, HEAD included, into a sink that drops the bytes), the whole process's CPU
# seconds per GiB (user + system from /usr/bin/time: JVM or interpreter start included), and its peak
# RSS (MiB, /usr/bin/time). Prints medians with min-max and each client's ratio to boto3 (and a verified
# load's to the plain one's).
# boto3 uses the same range size (--chunk) and concurrency (--readers) as the loads.
#
# Starts its own s3proxy (filesystem backend in a temporary directory) unless AWS_ENDPOINT_URL is set
# (then AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and BUCKET name the store).
# Usage: scripts/bench-s3-load.sh [sizeMiB=1024] [chunkMiB=32] [readers=4] [rounds=3] [clients="aws crt minio boto3"]
# Extra load options (e.g. --verify) go in LOAD_OPTS; results are kept in $OUT (default: a temp file).
# A client NAME-before runs backend NAME through another build's launcher, BEFORE=/path/to/dgen4j
# (e.g. a worktree of the previous commit, built): before and after side by side in one run. A client
# NAME+verify (or NAME-before+verify) runs the load with --verify: verified and plain loads side by side.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/find-jdk.sh
source "$here/scripts/find-jdk.sh"
JAVA_HOME="$(dgen4j_find_jdk)"
export JAVA_HOME
size="${1:-1024}" chunk="${2:-32}" readers="${3:-4}" rounds="${4:-3}" clients="${5:-aws crt minio boto3}"
cd "$here"
[ -x /usr/bin/time ] || { echo "bench-s3-load: /usr/bin/time is missing (Debian package 'time')" >&2; exit 1; }
case " $clients " in *" boto3 "*)
  python3 -c 'import boto3' 2>/dev/null || { echo "bench-s3-load: python3 with boto3 is needed for the boto3 side (pip install boto3), or leave boto3 out of the clients" >&2; exit 1; } ;;
esac
./build -q -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true -Dnative.skip="${NATIVE_SKIP:-false}" \
  -pl java/cli,java/crt -am package >&2
# shellcheck source=scripts/s3-bench.sh
source "$here/scripts/s3-bench.sh"
tmp="$(mktemp -d)"
trap 'dgen4j_bench_s3proxy_stop; rm -rf "$tmp"' EXIT
dgen4j_bench_s3proxy "$here/java/crt/target/s3proxy/s3proxy.jar"
bucket="${BUCKET:-bench}"
key="bench-load-${size}MiB.bin"
export AWS_REGION="${AWS_REGION:-us-east-1}" AWS_DEFAULT_REGION="${AWS_DEFAULT_REGION:-${AWS_REGION:-us-east-1}}"
echo "saving s3://$bucket/$key (${size} MiB) once with the minio backend" >&2
"$here/dgen4j" save "s3://$bucket/$key" --size "${size}MiB" --chunk "${chunk}MiB" --writers 4 --buffers 5 \
  --backend minio > /dev/null
cat > "$tmp/boto3_load.py" <<'PY'
import json, sys, time
import boto3
from boto3.s3.transfer import TransferConfig

class Sink:
    """Counts the bytes and drops them, as a load that does not verify keeps nothing."""
    def __init__(self):
        self.n = 0
    def write(self, b):
        self.n += len(b)
        return len(b)

bucket, key, chunk, readers = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
s3 = boto3.client("s3")
cfg = TransferConfig(multipart_threshold=chunk, multipart_chunksize=chunk, max_concurrency=readers)
sink = Sink()
t = time.perf_counter()
s3.download_fileobj(bucket, key, sink, Config=cfg)
print(json.dumps({"bytes": sink.n, "seconds": time.perf_counter() - t}))
PY
out="${OUT:-$tmp/runs}"
: > "$out"
read -r -a order <<< "$clients"
for r in $(seq 1 "$rounds"); do
  for c in "${order[@]}"; do
    if [ "$c" = boto3 ]; then
      /usr/bin/time -f '%U %S %M' -o "$tmp/time" python3 "$tmp/boto3_load.py" "$bucket" "$key" $((chunk << 20)) \
        "$readers" > "$tmp/out.json" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    else
      launcher="$here/dgen4j" backend="$c" verify=""
      case "$backend" in *+verify) verify="--verify" backend="${backend%+verify}" ;; esac
      case "$backend" in *-before)
        launcher="${BEFORE:?a client named *-before needs BEFORE=/path/to/another/dgen4j}" backend="${backend%-before}" ;;
      esac
      # shellcheck disable=SC2086
      /usr/bin/time -f '%U %S %M' -o "$tmp/time" "$launcher" load "s3://$bucket/$key" --backend "$backend" \
        --chunk "${chunk}MiB" --readers "$readers" --buffers "$readers" $verify ${LOAD_OPTS:-} --json \
        > "$tmp/out.json" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    fi
    python3 - "$c" "$r" "$tmp/out.json" "$tmp/time" >> "$out" <<'PY'
import json, sys
c, r, out, t = sys.argv[1:]
d = json.load(open(out))
user, sys_, rss_kib = open(t).read().split()[-3:]
if c == "boto3":
    nbytes, seconds = d["bytes"], d["seconds"]
else:
    p = d["phases"]
    nbytes = d["totalBytes"]
    seconds = sum(v for k, v in p.items() if k not in ("open", "clientStart", "release"))
cpu = (float(user) + float(sys_)) / (nbytes / 2**30)
print(json.dumps({"client": c, "round": int(r), "mbps": nbytes / seconds / 1e6, "cpuPerGiB": cpu,
                  "peakRssMiB": int(rss_kib) / 1024}))
PY
    echo "round $r: $(tail -1 "$out")" >&2
  done
  order=("${order[@]:1}" "${order[0]}")
done
python3 - "$out" "$size" "$chunk" "$readers" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
size, chunk, readers = sys.argv[2:]
by = {}
for x in runs:
    by.setdefault(x["client"], []).append(x)
def fig(xs, k, f):
    v = [x[k] for x in xs]
    return f"{f(statistics.median(v))} ({f(min(v))}-{f(max(v))})"
base = statistics.median(x["mbps"] for x in by["boto3"]) if "boto3" in by else None
print(f"restore of {size} MiB in {chunk} MiB ranges, {readers} in flight, {len(runs) // len(by)} rounds interleaved; "
      "medians (min-max)")
verified = any(c.endswith("+verify") for c in by)
print(f"{'client':8} {'MB/s':>20} {'vs boto3':>9} {'CPU s/GiB':>20} {'peak RSS MiB':>20}"
      + (f" {'vs plain':>9}" if verified else ""))
def mbps(c):
    return statistics.median(x["mbps"] for x in by[c])
for c, xs in by.items():
    ratio = f"{mbps(c) / base:9.2f}" if base else f"{'-':>9}"
    plain = c[:-len("+verify")] if c.endswith("+verify") else None
    vs_plain = f" {mbps(c) / mbps(plain):9.2f}" if plain in by else (f" {'-':>9}" if verified else "")
    print(f"{c:8} {fig(xs, 'mbps', lambda v: f'{v:.0f}'):>20} {ratio} {fig(xs, 'cpuPerGiB', lambda v: f'{v:.2f}'):>20} "
          f"{fig(xs, 'peakRssMiB', lambda v: f'{v:.0f}'):>20}{vs_plain}")
PY
