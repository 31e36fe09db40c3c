#!/usr/bin/env bash
# Measures the S3 driver's endpoint goals (issue 10) in one run, through the aws backend, against
# two s3proxy gateways over one directory (one store) that the measurement starts on 127.0.0.1:
#   balancing overhead: a save through an endpoint set of one endpoint / the same endpoint alone (goal >= 0.97)
#   failover: a save over both gateways with one killed at 25 % / undisturbed (goal >= 0.5), each
#   failed-over object loaded back with verification.
# Usage: scripts/bench-s3-endpoints.sh [sizeMiB=256] [partMiB=8] [inFlight=4] [rounds=3]
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
opts=(--enable-native-access=ALL-UNNAMED -Xmx1g)
[ "$(dgen4j_jdk_feature "$JAVA_HOME")" -ge 24 ] && opts+=(--sun-misc-unsafe-memory-access=allow)
"$java" "${opts[@]}" -cp "$bench_cp" io.dgen4j.aws.EndpointsBench "$s3proxy_jar" "${1:-256}" "${2:-8}" "${3:-4}" "${4:-3}"
