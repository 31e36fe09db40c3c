# Sourced by ./build and ./dgen4j: prints the home of a JDK 22 or newer, or explains and fails.
dgen4j_jdk_feature() { # prints the feature version of the JDK at $1, or nothing
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 0
  local v
  v="$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null)"
  [ -n "$v" ] || v="$("$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1)"
  echo "$v"
}

dgen4j_find_jdk() {
  local v best="" best_v=0 d
  if [ -n "${JAVA_HOME:-}" ]; then
    v="$(dgen4j_jdk_feature "$JAVA_HOME")"
    if [ -n "$v" ] && [ "$v" -ge 22 ]; then echo "$JAVA_HOME"; return 0; fi
  fi
  for d in /usr/lib/jvm/*/; do
    d="${d%/}"
    [ -L "$d" ] && continue
    v="$(dgen4j_jdk_feature "$d")"
    if [ -n "$v" ] && [ "$v" -ge 22 ] && [ "$v" -gt "$best_v" ]; then best="$d"; best_v="$v"; fi
  done
  if [ -z "$best" ]; then
    echo "dgen4j: no JDK 22 or newer found (JAVA_HOME=${JAVA_HOME:-unset}, /usr/lib/jvm/*): install one, e.g. Temurin 25, and set JAVA_HOME to it." >&2
    return 1
  fi
  echo "$best"
}
