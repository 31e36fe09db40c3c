#!/usr/bin/env bash
# Measures the same streaming save through the minio and the aws backends, alternating, to one
# server (same part size and parts in flight): elapsed and client CPU seconds per GiB, as ratios. Starts its own s3proxy on 127.0.0.1 (filesystem backend
# in a temporary directory) unless AWS_ENDPOINT_URL is set (then AWS_ACCESS_KEY_ID,
# AWS_SECRET_ACCESS_KEY and BUCKET name the store).
# Usage: scripts/bench-s3-minio.sh [sizeMiB=512] [partMiB=32] [inFlight=4] [rounds=3]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/find-jdk.sh
source "$here/scripts/find-jdk.sh"
JAVA_HOME="$(dgen4j_find_jdk)"
java="$JAVA_HOME/bin/java"
# shellcheck source=scripts/s3-bench.sh
source "$here/scripts/s3-bench.sh"
cd "$here"
dgen4j_bench_build java/minio
trap dgen4j_bench_s3proxy_stop EXIT
dgen4j_bench_s3proxy "$s3proxy_jar"
opts=(--enable-native-access=ALL-UNNAMED -Xmx2g)
[ "$(dgen4j_jdk_feature "$JAVA_HOME")" -ge 24 ] && opts+=(--sun-misc-unsafe-memory-access=allow)
"$java" "${opts[@]}" -cp "$bench_cp" io.dgen4j.minio.SaveMinioVsAws "$AWS_ENDPOINT_URL" "${BUCKET:-bench}" "$AWS_ACCESS_KEY_ID" \
  "$AWS_SECRET_ACCESS_KEY" "${1:-512}" "${2:-32}" "${3:-4}" "${4:-3}"
