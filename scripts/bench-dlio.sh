#!/usr/bin/env bash
# `dgen4j dlio run` of one rank's checkpoint files against a plain `dgen4j save` of the same total
# bytes, on the same disk, rounds interleaved so that both see the same conditions; prints medians,
# the throughput ratio (goal >= 0.95) and both peak RSS figures. Not a test: it asserts nothing.
# The rank: DLIO's subset mode with one rank of `data` data-parallel ranks (for llama3 8B at 8 ranks,
# ZeRO 3: rank 0's model and optimizer files, 13.09 GiB, 1/8 of the checkpoint).
# With framework pytorch the dlio files are torch.save's by default; the save writes as many bytes raw.
# Usage: scripts/bench-dlio.sh DIR [CONFIG=configs/dlio/llama3_8b.yaml] [DATA=8] [ROUNDS=3]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:?usage: bench-dlio.sh DIR [CONFIG] [DATA] [ROUNDS]}"
config="${2:-$here/configs/dlio/llama3_8b.yaml}"; data="${3:-8}"; rounds="${4:-3}"
ckpt="$dir/dgen4j-bench-dlio"; f="$dir/dgen4j-bench-save.bin"; out="$dir/dgen4j-bench-dlio-out"
one_rank=(--ranks 1 "++workload.checkpoint.mode=subset" "++workload.model.parallelism.data=$data"
  "++workload.checkpoint.checkpoint_folder=$ckpt" "++workload.checkpoint.num_checkpoints_write=1"
  "++workload.checkpoint.num_checkpoints_read=0" "++workload.checkpoint.time_between_checkpoints=0")
bytes="$("$here/dgen4j" dlio plan --config "$config" "${one_rank[@]}" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["totalBytes"])')"
echo "one rank of $data: $bytes bytes per checkpoint" >&2
results="$(mktemp)"; tm="$(mktemp)"
for r in $(seq 1 "$rounds"); do
  j="$(/usr/bin/time -f %M -o "$tm" "$here/dgen4j" dlio run --config "$config" "${one_rank[@]}" --output "$out" --json 2>/dev/null)"
  echo "dlio $(echo "$j" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["metric"]["save_checkpoint_duration_mean_seconds"], d["dgen4j"]["saveBytes"], d["dgen4j"]["peakRssBytes"])') $(($(cat "$tm") * 1024))" >>"$results"
  rm -rf "$ckpt" "$out"
  j="$(/usr/bin/time -f %M -o "$tm" "$here/dgen4j" save "$f" --size "$bytes" --json 2>/dev/null)"
  echo "save $(echo "$j" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["totalSeconds"], d["totalBytes"], d["peakRssBytes"])') $(($(cat "$tm") * 1024))" >>"$results"
  rm -f "$f" "$f.manifest.json"
  echo "round $r: $(tail -n 2 "$results" | tr '\n' ' ')" >&2
done
python3 - "$results" <<'PY'
import sys, statistics
rows = [l.split() for l in open(sys.argv[1])]
t, b, rss, tr = {}, {}, {}, {}
for name, secs, nbytes, peak, timerss in rows:
    t.setdefault(name, []).append(float(secs)); b[name] = int(nbytes)
    rss[name] = max(rss.get(name, 0), int(peak)); tr[name] = max(tr.get(name, 0), int(timerss))
med = {k: statistics.median(v) for k, v in t.items()}
rate = {k: b[k] / med[k] / 1e9 for k in med}
print(f"{b['dlio']} bytes, {len(t['dlio'])} interleaved rounds, medians (GB/s = 1e9 B/s, end to end incl. fsync):")
for k in ["dlio", "save"]:
    print(f"  {k:5s} {med[k]:7.2f} s  {rate[k]:6.3f} GB/s  peak RSS {rss[k] / 1048576:7.1f} MiB (process, /usr/bin/time: {tr[k] / 1048576:7.1f} MiB)  all: {' '.join(f'{x:.2f}' for x in t[k])}")
print(f"  dlio / save = {rate['dlio'] / rate['save']:.3f}   (goal >= 0.95)")
PY
rm -f "$results" "$tm"
