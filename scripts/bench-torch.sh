#!/usr/bin/env bash
# torch.save files against raw saves of the same bytes: `dgen4j save --format torch` (CRC-32 of every
# record, and with `--crc none`) and `--format raw` with the same tensor list and seed, on a disk
# directory and on a memory file system, then `load --verify` of the torch file against a plain load
# of it. Rounds interleaved, the order rotating each round, so that every case sees the same
# conditions. Per case: the command's own seconds (--json totalSeconds: open to rename, fsync
# included), the whole process's peak RSS and CPU seconds (/usr/bin/time: JVM included), load
# average. Prints medians and the ratios of the goals (torch save >= 0.95 x raw; load --verify
# >= 0.9 x plain load). Not a test: it asserts nothing.
# Usage: scripts/bench-torch.sh DISKDIR TMPFSDIR [ROUNDS=5] [MODEL=mlp-1b]
#   (TMPFSDIR: e.g. `mount -t tmpfs -o size=5g tmpfs /mnt/t`; rows are kept in $OUT, default a temp file)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
disk="${1:?usage: bench-torch.sh DISKDIR TMPFSDIR [ROUNDS] [MODEL]}"
tmp="${2:?usage: bench-torch.sh DISKDIR TMPFSDIR [ROUNDS] [MODEL]}"
rounds="${3:-5}"; model="${4:-mlp-1b}"
[ -x /usr/bin/time ] || { echo "bench-torch: /usr/bin/time is missing (Debian package 'time')" >&2; exit 1; }
out="${OUT:-$(mktemp)}"; : > "$out"
"$here/dgen4j" --version > /dev/null # builds the CLI first if it is stale: not inside a measured run
# shellcheck source=scripts/bench-rows.sh
source "$here/scripts/bench-rows.sh"
kinds=(raw torch torchnocrc)
for r in $(seq 1 "$rounds"); do
  for where in disk tmpfs; do
    dir="$disk"; [ "$where" = tmpfs ] && dir="$tmp"
    for i in 0 1 2; do
      kind="${kinds[$(( (i + r) % 3 ))]}"
      f="$dir/dgen4j-bench-$kind.bin"
      case "$kind" in
        raw) bench_run "save-raw-$where" "$r" save "$f" --format raw --model "$model" --seed 7 ;;
        torch) bench_run "save-torch-$where" "$r" save "$f" --format torch --model "$model" --seed 7 ;;
        torchnocrc) bench_run "save-torchnocrc-$where" "$r" save "$f" --format torch --crc none --model "$model" --seed 7 ;;
      esac
      rm -f "$f" "$f.manifest.json"
    done
  done
done
f="$disk/dgen4j-bench-load.pt"
"$here/dgen4j" save "$f" --format torch --model "$model" --seed 7 --no-progress > /dev/null
for r in $(seq 1 "$rounds"); do
  order=(verify plain); [ $((r % 2)) -eq 0 ] && order=(plain verify)
  for kind in "${order[@]}"; do
    if [ "$kind" = verify ]; then bench_run load-verify-disk "$r" load "$f" --verify; else bench_run load-plain-disk "$r" load "$f"; fi
  done
done
rm -f "$f" "$f.manifest.json"
bench_summary "$out" \
  save-raw-disk save-torch-disk "torch vs raw save, disk (raw s / torch s; goal >= 0.95)" \
  save-raw-disk save-torchnocrc-disk "torch --crc none vs raw save, disk" \
  save-raw-tmpfs save-torch-tmpfs "torch vs raw save, tmpfs (raw s / torch s; goal >= 0.95)" \
  save-raw-tmpfs save-torchnocrc-tmpfs "torch --crc none vs raw save, tmpfs" \
  load-plain-disk load-verify-disk "load --verify vs plain load, disk (plain s / verify s; goal >= 0.9)"
