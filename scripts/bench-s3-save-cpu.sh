#!/usr/bin/env bash
# Steady-state save CPU per backend: the whole process's user + system CPU seconds of
# `dgen4j save s3://... --size 4GiB`, less that of a 1 GiB save, over 3 GiB (JVM start, class loading
# and the first compilations cancel out), in interleaved rounds; prints each round, the median and
# the 1 GiB one-shot figure. A config NAME=OPTS runs the backends with the JVM flags OPTS added to the
# launcher's (leading -D/-X arguments; e.g. "netty=-Ddgen4j.aws.uploads=netty"); "default=" runs it as it is.
# The client "rawput" is the floor for any client: one signed PutObject (UNSIGNED-PAYLOAD) of the same
# sizes sent with Python's socket.sendall straight from a 256 MiB buffer (no generation, no copy).
#
# Starts its own s3proxy (filesystem backend in a temporary directory) unless AWS_ENDPOINT_URL is set
# (then AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and BUCKET name the store).
# Usage: scripts/bench-s3-save-cpu.sh [rounds=3] [clients="aws crt minio"] [configs="default="]...
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/find-jdk.sh
source "$here/scripts/find-jdk.sh"
JAVA_HOME="$(dgen4j_find_jdk)"
export JAVA_HOME
rounds="${1:-3}" clients="${2:-aws crt minio}"
shift $(( $# < 2 ? $# : 2 ))
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=("default=")
cd "$here"
[ -x /usr/bin/time ] || { echo "bench-s3-save-cpu: /usr/bin/time is missing (Debian package 'time')" >&2; exit 1; }
case " $clients " in *" rawput "*)
  python3 -c 'import botocore' 2>/dev/null || { echo "bench-s3-save-cpu: python3 with botocore is needed for rawput (pip install boto3), or leave rawput out of the clients" >&2; exit 1; } ;;
esac
./build -q -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true -Dnative.skip="${NATIVE_SKIP:-false}" \
  -pl java/cli,java/crt -am package >&2
# shellcheck source=scripts/s3-bench.sh
source "$here/scripts/s3-bench.sh"
tmp="$(mktemp -d)"
trap 'dgen4j_bench_s3proxy_stop; rm -rf "$tmp"' EXIT
dgen4j_bench_s3proxy "$here/java/crt/target/s3proxy/s3proxy.jar"
bucket="${BUCKET:-bench}"
export AWS_REGION="${AWS_REGION:-us-east-1}" AWS_DEFAULT_REGION="${AWS_DEFAULT_REGION:-${AWS_REGION:-us-east-1}}"
cat > "$tmp/rawput.py" <<'PY'
import os, socket, sys
from urllib.parse import urlparse
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
bucket, key, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
buf = memoryview(bytearray(os.urandom(1 << 20) * 256))
u = urlparse(os.environ["AWS_ENDPOINT_URL"])
req = AWSRequest(method="PUT", url=f"{u.scheme}://{u.netloc}/{bucket}/{key}",
                 headers={"x-amz-content-sha256": "UNSIGNED-PAYLOAD", "Content-Length": str(n)})
SigV4Auth(Credentials(os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"]), "s3",
          os.environ.get("AWS_REGION", "us-east-1")).add_auth(req)
s = socket.create_connection((u.hostname, u.port or 80))
head = (f"PUT /{bucket}/{key} HTTP/1.1\r\nHost: {u.netloc}\r\n"
        + "".join(f"{k}: {v}\r\n" for k, v in req.headers.items() if k.lower() != "host") + "\r\n")
s.sendall(head.encode())
left = n
while left:
    k = min(left, len(buf)); s.sendall(buf[:k]); left -= k
status = s.recv(4096).split(b"\r\n", 1)[0].decode()
if " 200 " not in status + " ":
    sys.exit(f"rawput: {status}")
PY
out="$tmp/rounds.txt"
for r in $(seq 1 "$rounds"); do
  for c in $clients; do
    for cfg in "${configs[@]}"; do
      name="${cfg%%=*}" opts="${cfg#*=}"
      if [ "$c" = rawput ]; then # no JVM flags: once a round
        [ "$cfg" = "${configs[0]}" ] || continue
        name=-
      fi
      for gib in 1 4; do
        if [ "$c" = rawput ]; then
          /usr/bin/time -f "%U %S %M" -o "$tmp/t" python3 "$tmp/rawput.py" "$bucket" "cpu-rawput.bin" $((gib << 30))
        else
          # shellcheck disable=SC2086 # the config's JVM flags, split; the launcher adds them to its own
          /usr/bin/time -f "%U %S %M" -o "$tmp/t" "$here/dgen4j" $opts save \
            "s3://$bucket/cpu-$c.bin" --size "${gib}GiB" --backend "$c" > /dev/null
        fi
        read -r u s m < "$tmp/t"
        echo "$r $c $name $gib $(python3 -c "print(f'{$u + $s:.2f}')") $m" | tee -a "$out" >&2
      done
    done
  done
done
python3 - "$out" <<'PY'
import sys, collections, statistics
by = {}
for line in open(sys.argv[1]):
    r, c, name, gib, cpu, rss = line.split()
    by[(r, c, name, gib)] = (float(cpu), int(rss))
steady, one, peak = collections.defaultdict(list), collections.defaultdict(list), collections.defaultdict(int)
for (r, c, name, gib), (cpu, rss) in by.items():
    if gib == "4" and (r, c, name, "1") in by:
        steady[(c, name)].append((cpu - by[(r, c, name, "1")][0]) / 3)
        one[(c, name)].append(by[(r, c, name, "1")][0])
    peak[(c, name)] = max(peak[(c, name)], rss)
print("| client | config | steady CPU s/GiB (rounds) | median | 1 GiB one-shot CPU s (median) | peak RSS MiB |")
print("|---|---|---|---|---|---|")
for k in steady:
    rs = ", ".join(f"{v:.2f}" for v in steady[k])
    print(f"| {k[0]} | {k[1]} | {rs} | {statistics.median(steady[k]):.2f} | {statistics.median(one[k]):.2f} | {peak[k] // 1024} |")
PY
