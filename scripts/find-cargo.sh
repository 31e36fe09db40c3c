# Sourced by native/cargo.sh and .ci/run: finds a cargo new enough for the crate (its rust-version in
# native/Cargo.toml), and names the Debian packages that bring one where none is found.

dgen4j_rust_version() { # the crate's rust-version, e.g. 1.89
  sed -n 's/^rust-version *= *"\([0-9.]*\)".*/\1/p' "$(dirname "${BASH_SOURCE[0]}")/../native/Cargo.toml"
}

dgen4j_version_ge() { # dgen4j_version_ge A B: A >= B, both dotted numbers (1.96.0 >= 1.89)
  local IFS=. i
  local -a a=($1) b=($2)
  for i in 0 1 2; do
    [ "${a[i]:-0}" -gt "${b[i]:-0}" ] && return 0
    [ "${a[i]:-0}" -lt "${b[i]:-0}" ] && return 1
  done
  return 0
}

# where rustup (HOME root's) and the rust Docker images put cargo, when PATH lacks it
dgen4j_cargo_places=(/root/.cargo/bin/cargo /usr/local/cargo/bin/cargo)

dgen4j_find_cargo() { # DGEN4J_CARGO := the first cargo of version >= $1 (PATH, then rustup's places), or
  # fails with DGEN4J_CARGO_SEEN naming those found too old
  local c v
  DGEN4J_CARGO="" DGEN4J_CARGO_SEEN=""
  for c in "$(command -v cargo || true)" "${CARGO_HOME:-$HOME/.cargo}/bin/cargo" "${dgen4j_cargo_places[@]}"; do
    [ -n "$c" ] && [ -x "$c" ] || continue
    v="$("$c" --version 2>/dev/null | sed -n 's/^cargo \([0-9][0-9.]*\).*/\1/p')"
    if [ -n "$v" ] && dgen4j_version_ge "$v" "$1"; then
      DGEN4J_CARGO="$c"; return 0
    fi
    case ", $DGEN4J_CARGO_SEEN," in *", $c "*) ;; *) DGEN4J_CARGO_SEEN="$DGEN4J_CARGO_SEEN${DGEN4J_CARGO_SEEN:+, }$c ${v:-(no version)}" ;; esac
  done
  return 1
}

dgen4j_rust_packages() { # the apt packages to install for a cargo >= $1: none when one is found
  dgen4j_find_cargo "$1" && return 0
  # Debian 12's own cargo is 1.63; its security updates carry a current Rust as cargo-web/rustc-web
  # (they replace cargo/rustc and install /usr/bin/cargo and /usr/bin/rustc)
  echo "cargo-web rustc-web"
}
