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
cd "$here"
./build -q -DskipTests -Dnative.skip="${NATIVE_SKIP:-false}" -pl java/aws -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench-classpath.txt -Dmdep.includeScope=test >&2
jar="$here/java/aws/target/s3proxy/s3proxy.jar"
if [ ! -f "$jar" ]; then
  ./build -q -pl java/aws -am process-test-resources -DskipTests -Dnative.skip="${NATIVE_SKIP:-false}" >&2
fi
cp="$here/java/aws/target/test-classes:$here/java/aws/target/classes:$(cat java/aws/target/bench-classpath.txt)"
opts=(--enable-native-access=ALL-UNNAMED -Xmx1g)
[ "$(dgen4j_jdk_feature "$JAVA_HOME")" -ge 24 ] && opts+=(--sun-misc-unsafe-memory-access=allow)
"$java" "${opts[@]}" -cp "$cp" io.dgen4j.aws.EndpointsBench "$jar" "${1:-256}" "${2:-8}" "${3:-4}" "${4:-3}"
