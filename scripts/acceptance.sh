#!/usr/bin/env bash
# Acceptance check run by `./build verify` after the CLI jar is packaged: the same stream, byte
# for byte, from the native core at 1 and 2 threads, from the pure-Java twin, and on stdout; and a
# checkpoint saved in pure-Java mode verified by the native core; every command's --json output
# (bench's too; quickstart's part 2 and backends against a local s3proxy; endpoints against dead
# endpoints) parsed as one JSON document; --version; a DLIO workload's plan and the tiny config's checkpoint run;
# a safetensors file against an independent parser, and a LLaMA directory's forward pass in torch.
# Usage: acceptance.sh JAVA_HOME CLI_JAR WORKDIR BENCH_TARGET
# (CLI_JAR: java/cli/target/dgen4j-cli-<version>-all.jar; BENCH_TARGET: java/bench/target, with
# classes/ and bench.classpath; java/it's pom runs it in the verify phase)
set -euo pipefail
java="$1/bin/java"; jar="$2"; work="$3"; bench="$4"
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
# Every --json output is one JSON document on stdout, read by a real parser (Python's json, with
# NaN/Infinity refused: they are not JSON), with the fields a consumer reads typed as numbers.
# Stderr goes to a file: it must not hold a progress bar (stderr is not a terminal here).
command -v python3 >/dev/null 2>&1 || { echo "acceptance: python3 is needed to parse the --json outputs (apt-get install python3)" >&2; exit 1; }
json_check() { # json_check LABEL PYTHON-EXPR -- COMMAND...: runs COMMAND, parses its stdout as j, asserts EXPR
  # (COMMAND must exit 0, or $EXPECT_RC when set)
  local label="$1" expr="$2"; shift 3
  local rc=0
  "$@" >"$work/json.out" 2>"$work/json.err" || rc=$?
  if [ "$rc" -ne "${EXPECT_RC:-0}" ]; then
    failed=$((failed+1)); echo "acceptance: $label exited $rc: $(tail -n 3 "$work/json.err")" >&2; return 0
  fi
  if grep -q $'\r' "$work/json.err"; then
    failed=$((failed+1)); echo "acceptance: $label drew a progress bar on a redirected stderr" >&2; return 0
  fi
  if python3 - "$label" "$expr" "$work/json.out" <<'PY'
import json, os, sys
label, expr, path = sys.argv[1], sys.argv[2], sys.argv[3]
def no_constant(c):
    raise ValueError("not JSON: " + c)
try:
    with open(path, encoding="ascii") as f:   # the CLI escapes every non-ASCII character
        j = json.load(f, parse_constant=no_constant)
except ValueError as e:   # JSONDecodeError, UnicodeDecodeError, a NaN
    sys.exit(f"acceptance: {label}: stdout is not one JSON document: {e}")
if not eval(expr, {"j": j, "env": os.environ, "isnum": lambda v: type(v) in (int, float), "isint": lambda v: type(v) is int}):
    sys.exit(f"acceptance: {label}: {expr} is false for {json.dumps(j)[:600]}")
PY
  then passed=$((passed+1)); else failed=$((failed+1)); echo "acceptance: $label stdout began: $(head -c 300 "$work/json.out")" >&2; fi
}
odd="$work/we\"ird\\ dir"   # a quote, a backslash and a space, which the JSON must escape
mkdir -p "$odd"
json_check "generate --json" 'j["bytes"] == 1048576 and j["seed"] == "7" and isnum(j["fillGBps"]) and j["out"] is None' \
  -- run -jar "$jar" generate --size 1MiB --seed 7 --json
EXPECT_TARGET="$odd/c.bin" \
json_check "save --json" 'j["target"] == env["EXPECT_TARGET"] and isint(j["totalBytes"]) and j["totalBytes"] == 40000007 and isnum(j["totalGBps"])' \
  -- run -jar "$jar" save "$odd/c.bin" --size 40000007 --chunk 4MiB --seed 5 --json
json_check "load --json" 'j["totalBytes"] == 40000007 and j["verified"] is False and isnum(j["readGBps"])' \
  -- run -jar "$jar" load "$odd/c.bin" --chunk 4MiB --json
json_check "load --verify --json" 'j["verified"] is True and j["totalBytes"] == 40000007' \
  -- run -jar "$jar" load "$odd/c.bin" --verify --chunk 4MiB --json
json_check "compare --json" 'isint(j["streaming"]["peakRssBytes"]) and isnum(j["memoryReduction"]) and j["plot"] is None' \
  -- run -jar "$jar" compare --dir "$odd" --size 16MiB --chunk 4MiB --json
json_check "info --json" 'j["generator"] in ("native", "java") and isint(j["usableCpus"]) and isinstance(j["numaNodes"], list)' \
  -- run -jar "$jar" info --json
# quickstart's part 2 and `backends` against the local s3proxy the CLI starts when no S3 endpoint is
# configured (none here: the AWS_* variables are dropped and the commands run in $work, without a .env).
s3proxy="$(dirname "$jar")/s3proxy/s3proxy.jar"
no_s3=(env -u AWS_ENDPOINT_URL -u AWS_ENDPOINT_URL_S3 -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_PROFILE -C "$work")
json_check "quickstart --json" 'j["load"]["verified"] is True and j["save"]["totalBytes"] == 16777216 and j["s3"]["localS3proxy"] is True and len(j["s3"]["backends"]) >= 1 and all(b["verified"] is True for b in j["s3"]["backends"])' \
  -- "${no_s3[@]}" "$java" --enable-native-access=ALL-UNNAMED -Ddgen4j.s3proxy.jar="$s3proxy" -jar "$jar" quickstart --dir "$odd" --size 16MiB --chunk 4MiB --json
json_check "backends --json" 'j["localS3proxy"] is True and len(j["backends"]) >= 1 and all(b["verified"] is True and isnum(b["saveMBps"]) and isnum(b["cpuSecondsPerGiB"]) and isint(b["peakRssBytes"]) and isnum(b["ratioToBest"]) for b in j["backends"]) and max(b["ratioToBest"] for b in j["backends"]) == 1' \
  -- "${no_s3[@]}" "$java" --enable-native-access=ALL-UNNAMED -Ddgen4j.s3proxy.jar="$s3proxy" -jar "$jar" backends --size 16MiB --chunk 8MiB --json
# `endpoints --json` over a set whose endpoints are all dead (nothing listens on ports 1 and 2; no
# gateway to start): each probed through the aws client, down with an endpoint failure, exit status 3.
EXPECT_RC=3 \
json_check "endpoints --json" 'j["backend"] == "aws" and j["strategy"] == "least_connections" and j["up"] == 0 and j["down"] == 2 and [e["endpoint"] for e in j["endpoints"]] == ["http://127.0.0.1:1", "http://127.0.0.1:2"] and all(e["state"] == "down" and e["failureKind"] == "endpoint" and e["probesOk"] == 0 and isint(e["errors"]) and "Connection refused" in e["lastFailure"] for e in j["endpoints"])' \
  -- env -C "$work" AWS_ACCESS_KEY_ID=acceptance AWS_SECRET_ACCESS_KEY=acceptance-secret AWS_REGION=us-east-1 \
     "$java" --enable-native-access=ALL-UNNAMED -jar "$jar" endpoints s3://ckpt --backend aws \
     --endpoints http://127.0.0.1:1,http://127.0.0.1:2 --balance least_connections --probes 2 --timeout 5 --json
rm -rf "$odd"
# bench --json in its quickest form (8 forked JMH runs of 1 s; ~20 s): JMH and the forked VMs
# print on stderr, stdout holds the JSON array alone.
if [ -f "$bench/classes/META-INF/BenchmarkList" ] && [ -f "$bench/bench.classpath" ]; then
  json_check "bench --json" '{"native", "native-verify", "twin-vector", "twin-scalar", "memset"} <= {c["name"] for c in j} and all(isint(c["bytes"]) and c["threads"] == 1 and (c["gbps"] is None or isnum(c["gbps"])) for c in j)' \
    -- run --add-modules=jdk.incubator.vector -cp "$bench/classes:$(cat "$bench/bench.classpath")" \
       io.dgen4j.bench.BenchMain --json --quick --sizes 64KiB --threads 1 --warmup 0 --iterations 1 --time 1
else
  failed=$((failed+1)); echo "acceptance: bench --json not checked: $bench/classes (JMH's BenchmarkList) or $bench/bench.classpath is missing" >&2
fi
# DLIO workloads: the llama3 8B plan at 8 ranks holds DLIO's 104.70 GiB of tensors to the byte, in
# torch.save files (framework pytorch's default) of docs/DLIO.md's arithmetic, and the raw files are
# the tensors alone; the tiny config's checkpoint-only run (8 ranks in this process) writes, reads and
# verifies, leaving DLIO's output files with every summary key.
root="$(cd "$(dirname "$0")/.." && pwd)"
json_check "dlio plan --json" 'j["format"] == "torch" and j["tensorBytes"] == 112425623552 and j["totalBytes"] == 112426082960 and j["parameters"] == 8030261248 and j["filesPerCheckpoint"] == 16 and all(r["bytes"] == 2007619961 + 12045640409 for r in j["rankPlans"])' \
  -- run -jar "$jar" dlio plan --config "$root/configs/dlio/llama3_8b.yaml" --ranks 8 --json
json_check "dlio plan --json (raw)" 'j["format"] == "raw" and j["totalBytes"] == 112425623552 and all(r["bytes"] == 14053202944 for r in j["rankPlans"])' \
  -- run -jar "$jar" dlio plan --config "$root/configs/dlio/llama3_8b.yaml" --ranks 8 --json ++workload.checkpoint.streaming.format=raw
json_check "dlio run --json" 'j["dgen4j"]["verified"] is True and j["dgen4j"]["fsync"] is True and j["dgen4j"]["saveBytes"] == 2 * 49754694 and j["dgen4j"]["checkpointFormat"] == "torch" and j["dgen4j"]["checkpointTensorBytes"] == 49704960 and j["num_accelerators"] == 8 and {"save_checkpoint_io_mean_GB_per_second", "save_checkpoint_io_stdev_GB_per_second", "save_checkpoint_duration_mean_seconds", "save_checkpoint_duration_stdev_seconds", "load_checkpoint_io_mean_GB_per_second", "load_checkpoint_io_stdev_GB_per_second", "load_checkpoint_duration_mean_seconds", "load_checkpoint_duration_stdev_seconds", "checkpoint_size_GB"} <= set(j["metric"]) and {"start", "end", "num_hosts", "hostname", "host_cpu_count", "host_memory_GB"} <= set(j)' \
  -- run -jar "$jar" dlio run --config "$root/configs/dlio/tiny.yaml" --ranks 8 --verify --json --output "$work/dlio/out" \
     "++workload.checkpoint.checkpoint_folder=$work/dlio/ckpt"
dlio_files=("$work/dlio/out/summary.json")
for r in 0 1 2 3 4 5 6 7; do dlio_files+=("$work/dlio/out/${r}_output.json" "$work/dlio/out/${r}_per_epoch_stats.json"); done
if python3 -c 'import json, sys; [json.load(open(f)) for f in sys.argv[1:]]; s = json.load(open(sys.argv[1])); assert s["metric"]["checkpoint_size_GB"] == 49754694 / 2**30; assert all("load_ckpt2" in json.load(open(f))["1"] for f in sys.argv[1:] if f.endswith("_per_epoch_stats.json"))' "${dlio_files[@]}"; then
  passed=$((passed+1))
else
  failed=$((failed+1)); echo "acceptance: dlio run's output files are missing or incomplete: $(ls "$work/dlio/out" 2>&1)" >&2
fi
rm -rf "$work/dlio"
# safetensors: an independent parser (scripts/check-safetensors.py, Python's standard library only)
# checks every rule of the format and compares the tensors' bytes with `generate`'s stream; where the
# safetensors package is importable it loads the file too, else it says it skipped that part.
mkdir -p "$work/st"
if run -jar "$jar" save "$work/st/tiny.safetensors" --format safetensors --model tiny --seed 5 >/dev/null 2>&1 \
   && run -jar "$jar" generate --size 802824 --seed 5 --out "$work/st/stream" >/dev/null 2>&1 \
   && python3 "$root/scripts/check-safetensors.py" "$work/st/tiny.safetensors" --stream "$work/st/stream" --finite --packages \
      >"$work/st/check.out" 2>&1 \
   && grep -q "11 tensors equal the stream" "$work/st/check.out"; then
  passed=$((passed+1)); grep -E "^(skipped|safetensors package)" "$work/st/check.out" | sed 's/^/acceptance: /'
else
  failed=$((failed+1)); echo "acceptance: safetensors check failed: $(tail -n 3 "$work/st/check.out" 2>&1)" >&2
fi
rm -rf "$work/st"
# A forward pass in real torch (scripts/forward-llama.py: transformers' LLaMA computation, its own reading
# of the shards) of a small LLaMA saved as safetensors: --finite (the default) gives finite logits, and the
# same model saved with --no-finite does not (the check can fail). torch: Debian's python3-torch.
mkdir -p "$work/fw"
torch_py=""
for p in /usr/bin/python3 python3; do
  if "$p" -c 'import torch' >/dev/null 2>&1; then torch_py="$p"; break; fi
done
if [ -z "$torch_py" ]; then
  echo "acceptance: skipped: the forward pass needs torch (apt-get install python3-torch)"
else
  printf '%s\n' '{"hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 4,' \
    ' "num_key_value_heads": 2, "vocab_size": 512, "torch_dtype": "bfloat16", "model_type": "llama"}' > "$work/fw/config.json"
  if run -jar "$jar" save "$work/fw/finite/" --format safetensors --model "$work/fw/config.json" --seed 5 >/dev/null 2>&1 \
     && run -jar "$jar" save "$work/fw/raw/" --format safetensors --model "$work/fw/config.json" --seed 5 --no-finite >/dev/null 2>&1 \
     && "$torch_py" "$root/scripts/forward-llama.py" "$work/fw/finite" >"$work/fw/finite.out" 2>&1 \
     && ! "$torch_py" "$root/scripts/forward-llama.py" "$work/fw/raw" >"$work/fw/raw.out" 2>&1 \
     && grep -q "not finite" "$work/fw/raw.out"; then
    passed=$((passed+1)); sed 's/^/acceptance: /' "$work/fw/finite.out"
  else
    failed=$((failed+1)); echo "acceptance: forward pass check failed: $(tail -n 2 "$work/fw/finite.out" "$work/fw/raw.out" 2>&1)" >&2
  fi
fi
rm -rf "$work/fw"
# --version prints the pom's version (the jar is named after it).
want="dgen4j $(basename "$jar" | sed -n 's/^dgen4j-cli-\(.*\)-all\.jar$/\1/p')"
got="$(run -jar "$jar" --version)"
if [ "$got" = "$want" ]; then passed=$((passed+1)); else failed=$((failed+1)); echo "acceptance: --version printed '$got', expected '$want'" >&2; fi
rm -f "$work/json.out" "$work/json.err"
size="$(stat -c %s "$work/t1")"
if [ "$size" = "268435456" ]; then passed=$((passed+1)); else failed=$((failed+1)); echo "acceptance: size $size" >&2; fi
rm -f "$work/t1" "$work/t2" "$work/java" "$work/int.err"
echo "acceptance: generate --size 256MiB --dedup 2 --compress 3 --seed 7 -> sha256 $ref"
echo "acceptance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
