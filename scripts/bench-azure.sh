#!/usr/bin/env bash
# The Azure save benchmark: `dgen4j save az://...` (the launcher, default settings, and --writers 4)
# against the Azure SDK's own upload of the same bytes from memory, in one run against one Azurite,
# rounds interleaved (the clients' order rotates each round). The SDK side is
# scripts/bench/AzureSdkUpload.java: the file written by `dgen4j generate` with the same size and seed
# read into a byte[], then BlobAsyncClient.uploadWithResponse(BinaryData.fromBytes(bytes)) with the
# same block size (--chunk) and concurrency (--writers) as the save it is paired with. It is compiled
# once here against the CLI jar (which holds the SDK), outside the Maven build.
# Per client: upload MB/s (10^6 bytes/s; dgen4j: its save's first chunk + I/O + stall + drain +
# commit phases, from --json, i.e. from its first generated block to the checked commit, after the
# container properties call of its open; the SDK: its own timer around the upload call, after a
# warm-up exists() call), the whole process's CPU seconds per GiB (user + system from /usr/bin/time:
# JVM start, and for the SDK reading the file, included), and its peak RSS (MiB, /usr/bin/time).
# Prints medians with min-max and each client's ratio to the SDK's upload at the same concurrency.
# With bigMiB > 0, one more `dgen4j save` of bigMiB with defaults gives the whole process's peak RSS.
#
# Starts its own Azurite (node, from ~/.cache/dgen4j/azurite or DGEN4J_AZURITE_DIR or azurite-blob on
# the PATH, as the CLI finds it; files in a temporary directory) unless AZURE_STORAGE_CONNECTION_STRING
# is set (then CONTAINER names the container, default "bench", created unless it exists).
# Usage: scripts/bench-azure.sh [sizeMiB=1024] [chunkMiB=32] [rounds=3] [clients="dgen4j dgen4j-w4 sdk sdk-w4"] [bigMiB=0]
# Clients: dgen4j (save with defaults: 1 writer, 2 buffers), dgen4j-w4 (--writers 4 --buffers 6),
# sdk (concurrency 1), sdk-w4 (concurrency 4). The SDK's JVM options are SDK_JAVA_OPTS (default:
# -Xmx of twice the size + 1 GiB: its buffered upload copies the byte[] into blocks); results are
# kept in $OUT (default: a temp file).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/find-jdk.sh
source "$here/scripts/find-jdk.sh"
JAVA_HOME="$(dgen4j_find_jdk)"
export JAVA_HOME
size="${1:-1024}" chunk="${2:-32}" rounds="${3:-3}" clients="${4:-dgen4j dgen4j-w4 sdk sdk-w4}" big="${5:-0}"
seed=7
cd "$here"
[ -x /usr/bin/time ] || { echo "bench-azure: /usr/bin/time is missing (Debian package 'time')" >&2; exit 1; }
[ "$size" -lt 2048 ] || { echo "bench-azure: sizeMiB $size is over the SDK side's one byte[] (under 2048 MiB)" >&2; exit 2; }
# the launcher builds the CLI jar when it is missing or older than the sources
"$here/dgen4j" --version > /dev/null
jar="$(ls -t "$here"/java/cli/target/dgen4j-cli-*-all.jar | head -n1)"
tmp="$(mktemp -d)"
azurite_pid=""
stop() {
  if [ -n "$azurite_pid" ]; then
    kill "$azurite_pid" 2>/dev/null || true
    wait "$azurite_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap stop EXIT
"$JAVA_HOME/bin/javac" -nowarn -cp "$jar" -d "$tmp/classes" "$here/scripts/bench/AzureSdkUpload.java"
# Netty uses sun.misc.Unsafe, which JDK 24+ warns about (as the launcher does, allowed)
sdk=("$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED)
[ "$(dgen4j_jdk_feature "$JAVA_HOME")" -lt 24 ] 2>/dev/null || sdk+=(--sun-misc-unsafe-memory-access=allow)
# shellcheck disable=SC2206
sdk+=(${SDK_JAVA_OPTS:--Xmx$((2 * size + 1024))m} -cp "$jar:$tmp/classes" AzureSdkUpload)

container="${CONTAINER:-bench}"
if [ -z "${AZURE_STORAGE_CONNECTION_STRING:-}" ]; then
  az_dir="${DGEN4J_AZURITE_DIR:-$HOME/.cache/dgen4j/azurite}"
  script="$az_dir/node_modules/azurite/dist/src/blob/main.js"
  [ -f "$script" ] || script="$(command -v azurite-blob || true)"
  [ -n "$script" ] || { echo "bench-azure: Azurite is not installed: npm install --prefix $az_dir azurite (Node.js 18+)" >&2; exit 1; }
  port="$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')"
  mkdir -p "$tmp/azurite"
  # telemetry off: Azurite would otherwise look up and post to an Azure host
  node "$script" --blobHost 127.0.0.1 --blobPort "$port" --location "$tmp/azurite" --loose --skipApiVersionCheck \
    --disableProductStyleUrl --disableTelemetry > "$tmp/azurite.log" 2>&1 &
  azurite_pid=$!
  for _ in $(seq 1 150); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.2
  done
  # Azurite's well-known development account (public, in Microsoft's documentation)
  export AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;BlobEndpoint=http://127.0.0.1:$port/devstoreaccount1;"
  echo "Azurite on 127.0.0.1:$port (files in $tmp/azurite)" >&2
fi
"${sdk[@]}" --create "$container"
echo "generating ${size} MiB (seed $seed) for the SDK side" >&2
"$here/dgen4j" generate --size "${size}MiB" --seed "$seed" --out "$tmp/data.bin" > /dev/null

out="${OUT:-$tmp/runs}"
: > "$out"
read -r -a order <<< "$clients"
record() { # record CLIENT ROUND: one JSON line from $tmp/out.json and $tmp/time
  python3 - "$1" "$2" "$tmp/out.json" "$tmp/time" >> "$out" <<'PY'
import json, sys
c, r, out, t = sys.argv[1:]
d = json.load(open(out))
user, sys_, rss_kib = open(t).read().split()[-3:]
if c.startswith("sdk"):
    nbytes, seconds = d["bytes"], d["seconds"]
else:
    p = d["phases"]
    nbytes = d["totalBytes"]
    seconds = sum(p.get(k, 0) for k in ("firstChunk", "io", "generationStall", "drain", "commit"))
cpu = (float(user) + float(sys_)) / (nbytes / 2**30)
print(json.dumps({"client": c, "round": int(r), "mbps": nbytes / seconds / 1e6, "cpuPerGiB": cpu,
                  "peakRssMiB": int(rss_kib) / 1024}))
PY
  echo "round $2: $(tail -1 "$out")" >&2
}
save() { # save ROUND CLIENT SIZE_MiB [options...]: one `dgen4j save` under /usr/bin/time
  local r="$1" c="$2" n="$3"; shift 3
  /usr/bin/time -f '%U %S %M' -o "$tmp/time" "$here/dgen4j" save "az://$container/ours.bin" --size "${n}MiB" \
    --seed "$seed" "$@" --json > "$tmp/out.json" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  record "$c" "$r"
}
for r in $(seq 1 "$rounds"); do
  for c in "${order[@]}"; do
    case "$c" in
      dgen4j) save "$r" "$c" "$size" --chunk "${chunk}MiB" ;;
      dgen4j-w4) save "$r" "$c" "$size" --chunk "${chunk}MiB" --writers 4 --buffers 6 ;;
      sdk|sdk-w4)
        conc=1; [ "$c" = sdk ] || conc=4
        /usr/bin/time -f '%U %S %M' -o "$tmp/time" "${sdk[@]}" "$container" sdk.bin "$tmp/data.bin" $((chunk << 20)) \
          "$conc" > "$tmp/out.json" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
        record "$c" "$r" ;;
      *) echo "bench-azure: unknown client $c (dgen4j, dgen4j-w4, sdk, sdk-w4)" >&2; exit 2 ;;
    esac
  done
  order=("${order[@]:1}" "${order[0]}")
done
python3 - "$out" "$size" "$chunk" "$clients" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
size, chunk, clients = sys.argv[2:]
by = {c: [] for c in clients.split()}
for x in runs:
    by.setdefault(x["client"], []).append(x)
def fig(xs, k, f):
    v = [x[k] for x in xs]
    return f"{f(statistics.median(v))} ({f(min(v))}-{f(max(v))})"
def base(c):  # the SDK's upload at the same concurrency
    ref = "sdk-w4" if c.endswith("-w4") else "sdk"
    return statistics.median(x["mbps"] for x in by[ref]) if ref in by else None
print(f"save of {size} MiB in {chunk} MiB blocks, {len(runs) // len(by)} rounds interleaved; medians (min-max)")
print(f"{'client':10} {'MB/s':>20} {'vs SDK':>7} {'CPU s/GiB':>20} {'peak RSS MiB':>20}")
for c, xs in by.items():
    b = base(c)
    ratio = f"{statistics.median(x['mbps'] for x in xs) / b:7.2f}" if b else f"{'-':>7}"
    print(f"{c:10} {fig(xs, 'mbps', lambda v: f'{v:.0f}'):>20} {ratio} {fig(xs, 'cpuPerGiB', lambda v: f'{v:.2f}'):>20} "
          f"{fig(xs, 'peakRssMiB', lambda v: f'{v:.0f}'):>20}")
PY
if [ "$big" -gt 0 ]; then
  echo "saving ${big} MiB with defaults (1 writer, 2 buffers, 32 MiB chunks) for the peak RSS" >&2
  save 0 "dgen4j-big" "$big"
  python3 - "$out" "$big" <<'PY'
import json, sys
x = json.loads(open(sys.argv[1]).readlines()[-1])
print(f"save of {sys.argv[2]} MiB with defaults: peak RSS {x['peakRssMiB']:.0f} MiB, {x['mbps']:.0f} MB/s, "
      f"CPU {x['cpuPerGiB']:.2f} s/GiB")
PY
fi
