#!/usr/bin/env bash
# Measures the aws backend's streaming save against a plain AWS SDK multipart upload of the same
# bytes generated in memory beforehand (same server, part size and parts in flight): elapsed and
# client CPU seconds per GiB, as ratios. Starts its own s3proxy on 127.0.0.1 (filesystem backend
# in a temporary directory) unless AWS_ENDPOINT_URL is set (then AWS_ACCESS_KEY_ID,
# AWS_SECRET_ACCESS_KEY and BUCKET name the store).
# Usage: scripts/bench-s3-aws.sh [sizeMiB=512] [partMiB=32] [inFlight=4] [rounds=2] [sides=both|plain|streaming|driver|all]
# BENCH_JAVA_OPTS adds JVM options (e.g. a JFR recording of one side:
#   BENCH_JAVA_OPTS=-XX:StartFlightRecording=filename=plain.jfr,settings=profile ... 512 32 4 6 plain).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/find-jdk.sh
source "$here/scripts/find-jdk.sh"
JAVA_HOME="$(dgen4j_find_jdk)"
java="$JAVA_HOME/bin/java"
cd "$here"
./build -q -DskipTests -Dnative.skip="${NATIVE_SKIP:-false}" -pl java/aws -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench-classpath.txt -Dmdep.includeScope=test >&2
jar="$here/java/aws/target/s3proxy/s3proxy.jar"
if [ ! -f "$jar" ]; then
  ./build -q -pl java/aws -am process-test-resources -DskipTests -Dnative.skip="${NATIVE_SKIP:-false}" >&2
fi
cp="$here/java/aws/target/test-classes:$here/java/aws/target/classes:$(cat java/aws/target/bench-classpath.txt)"
tmp=""
if [ -z "${AWS_ENDPOINT_URL:-}" ]; then
  tmp="$(mktemp -d)"
  port="$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')"
  mkdir -p "$tmp/data/bench"
  cat > "$tmp/p.properties" <<PROPS
s3proxy.endpoint=http://127.0.0.1:$port
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=benchkey
s3proxy.credential=benchsecret
s3proxy.ignore-unknown-headers=true
jclouds.provider=filesystem
jclouds.filesystem.basedir=$tmp/data
PROPS
  "$java" -Xmx1g -jar "$jar" --properties "$tmp/p.properties" > "$tmp/s3proxy.log" 2>&1 &
  pid=$!
  trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp"' EXIT
  for _ in $(seq 1 300); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.2
  done
  AWS_ENDPOINT_URL="http://127.0.0.1:$port" AWS_ACCESS_KEY_ID=benchkey AWS_SECRET_ACCESS_KEY=benchsecret BUCKET=bench
  echo "s3proxy on $AWS_ENDPOINT_URL (filesystem backend in $tmp)" >&2
fi
opts=(--enable-native-access=ALL-UNNAMED -Xmx1g)
# shellcheck disable=SC2206
[ -n "${BENCH_JAVA_OPTS:-}" ] && opts+=($BENCH_JAVA_OPTS)
[ "$(dgen4j_jdk_feature "$JAVA_HOME")" -ge 24 ] && opts+=(--sun-misc-unsafe-memory-access=allow)
"$java" "${opts[@]}" -cp "$cp" io.dgen4j.aws.SaveVsPlainUpload "$AWS_ENDPOINT_URL" "${BUCKET:-bench}" "$AWS_ACCESS_KEY_ID" \
  "$AWS_SECRET_ACCESS_KEY" "${1:-512}" "${2:-32}" "${3:-4}" "${4:-2}" "${5:-both}"
