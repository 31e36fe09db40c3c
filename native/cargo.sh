#!/usr/bin/env bash
# Builds or tests the Rust core for the Maven build: `cargo.sh build|test`.
# crates.io is not needed: the crate uses std only, so we build --offline --locked.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cargo_bin="$(command -v cargo || true)"
for c in "${CARGO_HOME:-$HOME/.cargo}/bin/cargo" /root/.cargo/bin/cargo /usr/local/cargo/bin/cargo; do
  [ -n "$cargo_bin" ] && break
  [ -x "$c" ] && cargo_bin="$c"
done
if [ -z "$cargo_bin" ]; then
  echo "dgen4j: cargo was not found (PATH, \$CARGO_HOME/bin, ~/.cargo/bin): install Rust 1.89 or newer (rustup or your distribution's cargo package) to build the native core." >&2
  exit 1
fi
cd "$here"
case "${1:-build}" in
  build) exec "$cargo_bin" build --release --offline --locked ;;
  test)  exec "$cargo_bin" test --release --offline --locked ;;
  *) echo "usage: cargo.sh build|test" >&2; exit 2 ;;
esac
