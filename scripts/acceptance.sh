#!/usr/bin/env bash
# Acceptance check run by `./build verify` after the CLI jar is packaged: the same stream, byte
# for byte, from the native core at 1 and 2 threads, from the pure-Java twin, and on stdout; and a
# checkpoint saved in pure-Java mode verified by the native core.
# Usage: acceptance.sh JAVA_HOME CLI_JAR WORKDIR
set -euo pipefail
java="$1/bin/java"; jar="$2"; work="$3"
mkdir -p "$work"
run() { "$java" --enable-native-access=ALL-UNNAMED "$@"; }
args=(generate --size 256MiB --dedup 2 --compress 3 --seed 7)
passed=0; failed=0
run -jar "$jar" "${args[@]}" --threads 1 --out "$work/t1" >/dev/null
run -jar "$jar" "${args[@]}" --threads 2 --out "$work/t2" >/dev/null
run -Ddgen4j.native.disable=true -jar "$jar" "${args[@]}" --out "$work/java" >/dev/null
stdout_sum="$(run -jar "$jar" "${args[@]}" --out - 2>/dev/null | sha256sum | cut -d' ' -f1)"
ref="$(sha256sum "$work/t1" | cut -d' ' -f1)"
for f in t2 java; do
  got="$(sha256sum "$work/$f" | cut -d' ' -f1)"
  if [ "$got" = "$ref" ]; then passed=$((passed+1)); else failed=$((failed+1)); echo "acceptance: $f differs from threads 1 ($got vs $ref)" >&2; fi
done
if [ "$stdout_sum" = "$ref" ]; then passed=$((passed+1)); else failed=$((failed+1)); echo "acceptance: --out - differs" >&2; fi
# A checkpoint saved by the pure-Java path (FileChannel, twin) loads and verifies with the native core.
run -Ddgen4j.native.disable=true -jar "$jar" save "$work/twin.bin" --size 40000007 --chunk 4MiB --seed 5 --compress 2 --json >/dev/null
if run -jar "$jar" load "$work/twin.bin" --verify --chunk 4MiB >/dev/null; then passed=$((passed+1)); else failed=$((failed+1)); echo "acceptance: twin-saved checkpoint did not verify" >&2; fi
rm -f "$work/twin.bin" "$work/twin.bin.manifest.json"
# A signal during a save (SIGTERM here; Ctrl-C's SIGINT takes the same shutdown hook, but a
# background job of a script ignores SIGINT) removes the partial file.
timeout 300 "$java" --enable-native-access=ALL-UNNAMED -jar "$jar" save "$work/big.bin" --size 8GiB --seed 9 \
  --no-preallocate --json >/dev/null 2>"$work/int.err" &
pid=$!
for _ in $(seq 1 100); do ls "$work"/.big.bin.*.tmp >/dev/null 2>&1 && break; sleep 0.1; done
sleep 1; kill -TERM "$pid"; wait "$pid" || true
if ls -A "$work" | grep -q "big.bin"; then failed=$((failed+1)); echo "acceptance: a signal left $(ls -A "$work" | grep big.bin)" >&2
elif ! grep -q "interrupted" "$work/int.err"; then failed=$((failed+1)); echo "acceptance: the signalled save said: $(cat "$work/int.err")" >&2
else passed=$((passed+1)); fi
size="$(stat -c %s "$work/t1")"
if [ "$size" = "268435456" ]; then passed=$((passed+1)); else failed=$((failed+1)); echo "acceptance: size $size" >&2; fi
rm -f "$work/t1" "$work/t2" "$work/java" "$work/int.err"
echo "acceptance: generate --size 256MiB --dedup 2 --compress 3 --seed 7 -> sha256 $ref"
echo "acceptance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
