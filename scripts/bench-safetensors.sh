#!/usr/bin/env bash
# Safetensors shards against a raw save of the same bytes: `dgen4j save DIR/ --format safetensors --model M`
# (Hugging Face shards, index and config.json; --finite on, its default, and off) and `--format raw --model M`
# (one file of the same tensor bytes, same seed), then `load --verify` of the shards against a plain load of
# them. Rounds interleaved, the order rotating each round, so that every case sees the same conditions. Per
# case: the command's own seconds (--json: open to the last fsync), the whole process's peak RSS and CPU
# seconds (/usr/bin/time: JVM included), load average. Prints medians and the ratios of the goals (shards
# >= 0.95 x raw; load --verify >= 0.9 x plain load). Not a test: it asserts nothing.
# Usage: scripts/bench-safetensors.sh DIR [ROUNDS=3] [MODEL=llama3-8b]
#   (DIR needs room for one model twice: 2 x 16.1 GB for llama3-8b; rows are kept in $OUT, default a temp file)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:?usage: bench-safetensors.sh DIR [ROUNDS] [MODEL]}"
rounds="${2:-3}"; model="${3:-llama3-8b}"
[ -x /usr/bin/time ] || { echo "bench-safetensors: /usr/bin/time is missing (Debian package 'time')" >&2; exit 1; }
out="${OUT:-$(mktemp)}"; : > "$out"
"$here/dgen4j" --version > /dev/null # builds the CLI first if it is stale: not inside a measured run
# shellcheck source=scripts/bench-rows.sh
source "$here/scripts/bench-rows.sh"
raw="$dir/dgen4j-bench-raw.bin"; st="$dir/dgen4j-bench-st"
kinds=(raw st stnofinite)
for r in $(seq 1 "$rounds"); do
  for i in 0 1 2; do
    kind="${kinds[$(( (i + r) % 3 ))]}"
    rm -rf "$st"
    case "$kind" in
      raw) bench_run save-raw "$r" save "$raw" --format raw --model "$model" --seed 7; rm -f "$raw" "$raw.manifest.json" ;;
      st) bench_run save-shards "$r" save "$st/" --format safetensors --model "$model" --seed 7 ;;
      stnofinite) bench_run save-shards-nofinite "$r" save "$st/" --format safetensors --no-finite --model "$model" --seed 7 ;;
    esac
  done
done
rm -rf "$st"
"$here/dgen4j" save "$st/" --format safetensors --model "$model" --seed 7 --no-progress > /dev/null
for r in $(seq 1 "$rounds"); do
  order=(verify plain); [ $((r % 2)) -eq 0 ] && order=(plain verify)
  for kind in "${order[@]}"; do
    if [ "$kind" = verify ]; then bench_run load-verify "$r" load "$st" --verify; else bench_run load-plain "$r" load "$st"; fi
  done
done
rm -rf "$st"
bench_summary "$out" \
  save-raw save-shards "shards vs raw save (raw s / shards s; goal >= 0.95)" \
  save-raw save-shards-nofinite "shards --no-finite vs raw save" \
  load-plain load-verify "load --verify vs plain load (plain s / verify s; goal >= 0.9)"
