#!/usr/bin/env bash
# Builds or tests the Rust core for the Maven build: `cargo.sh build|test`.
# crates.io is not needed: the crate uses std only, so we build --offline --locked.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=scripts/find-cargo.sh
source "$here/../scripts/find-cargo.sh"
need="$(dgen4j_rust_version)"
if ! dgen4j_find_cargo "$need"; then
  if [ -n "$DGEN4J_CARGO_SEEN" ]; then
    echo "dgen4j: the crate needs Rust $need or newer; found only $DGEN4J_CARGO_SEEN: install a newer one (rustup, or on Debian 12 apt-get install cargo-web rustc-web; .ci/run does)." >&2
  else
    echo "dgen4j: cargo was not found (PATH, \$CARGO_HOME/bin, ~/.cargo/bin): install Rust $need or newer (rustup, or on Debian 12 apt-get install cargo-web rustc-web; .ci/run does) to build the native core." >&2
  fi
  exit 1
fi
cargo_bin="$DGEN4J_CARGO"
# the rustc beside that cargo, not an older one earlier on PATH
if [ -z "${RUSTC:-}" ] && [ -x "$(dirname "$cargo_bin")/rustc" ]; then
  export RUSTC="$(dirname "$cargo_bin")/rustc"
fi
cd "$here"
case "${1:-build}" in
  build) exec "$cargo_bin" build --release --offline --locked ;;
  # The tests' build: optimized as the release, but without its fat LTO and single codegen unit,
  # which each of the 7 test binaries paid again (~100 s of CPU against ~26 s; the library the jar
  # ships and the Java tests load is the LTO build above). Its own target directory, so that it
  # never replaces the release library in target/release.
  test)  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
           exec "$cargo_bin" test --release --offline --locked --target-dir "$here/target/tests" ;;
  *) echo "usage: cargo.sh build|test" >&2; exit 2 ;;
esac
