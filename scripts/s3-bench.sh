# Sourced by scripts/bench-s3-crt.sh (CLI processes side by side), after find-jdk.sh, with $here the
# checkout and JAVA_HOME set: starts a local s3proxy when no store is configured. (The in-process
# S3 benchmarks, `./dgen4j bench s3`, start theirs themselves.)

# Unless AWS_ENDPOINT_URL is set (then AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and BUCKET name the
# store), starts the s3proxy jar $1 on a free 127.0.0.1 port (filesystem backend in a temporary
# directory) and exports AWS_ENDPOINT_URL, the keys and BUCKET=bench for it. The caller's EXIT trap
# calls dgen4j_bench_s3proxy_stop.
dgen4j_bench_s3proxy() {
  [ -z "${AWS_ENDPOINT_URL:-}" ] || return 0
  s3proxy_tmp="$(mktemp -d)"
  local port
  port="$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')"
  mkdir -p "$s3proxy_tmp/data/bench"
  cat > "$s3proxy_tmp/p.properties" <<PROPS
s3proxy.endpoint=http://127.0.0.1:$port
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=benchkey
s3proxy.credential=benchsecret
s3proxy.ignore-unknown-headers=true
jclouds.provider=filesystem
jclouds.filesystem.basedir=$s3proxy_tmp/data
PROPS
  "$JAVA_HOME/bin/java" -Xmx1g -jar "$1" --properties "$s3proxy_tmp/p.properties" > "$s3proxy_tmp/s3proxy.log" 2>&1 &
  s3proxy_pid=$!
  for _ in $(seq 1 300); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.2
  done
  export AWS_ENDPOINT_URL="http://127.0.0.1:$port" AWS_ACCESS_KEY_ID=benchkey AWS_SECRET_ACCESS_KEY=benchsecret BUCKET=bench
  echo "s3proxy on $AWS_ENDPOINT_URL (filesystem backend in $s3proxy_tmp)" >&2
}

# Stops what dgen4j_bench_s3proxy started, if anything.
dgen4j_bench_s3proxy_stop() {
  if [ -n "${s3proxy_pid:-}" ]; then
    kill "$s3proxy_pid" 2>/dev/null || true
    wait "$s3proxy_pid" 2>/dev/null || true
  fi
  if [ -n "${s3proxy_tmp:-}" ]; then
    rm -rf "$s3proxy_tmp"
  fi
}
