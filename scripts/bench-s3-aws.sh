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
# shellcheck source=scripts/s3-bench.sh
source "$here/scripts/s3-bench.sh"
cd "$here"
dgen4j_bench_build java/aws
trap dgen4j_bench_s3proxy_stop EXIT
dgen4j_bench_s3proxy "$s3proxy_jar"
opts=(--enable-native-access=ALL-UNNAMED -Xmx1g)
# shellcheck disable=SC2206
[ -n "${BENCH_JAVA_OPTS:-}" ] && opts+=($BENCH_JAVA_OPTS)
[ "$(dgen4j_jdk_feature "$JAVA_HOME")" -ge 24 ] && opts+=(--sun-misc-unsafe-memory-access=allow)
"$java" "${opts[@]}" -cp "$bench_cp" io.dgen4j.aws.SaveVsPlainUpload "$AWS_ENDPOINT_URL" "${BUCKET:-bench}" "$AWS_ACCESS_KEY_ID" \
  "$AWS_SECRET_ACCESS_KEY" "${1:-512}" "${2:-32}" "${3:-4}" "${4:-2}" "${5:-both}"
