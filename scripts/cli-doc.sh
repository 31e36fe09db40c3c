#!/usr/bin/env bash
# Regenerates docs/CLI.md below its marker line from what `dgen4j [COMMAND...] --help` prints for
# every command and subcommand, run in process by io.dgen4j.cli.CliDoc (in the CLI's test tree).
# CliDocTest fails when the page differs; run this after changing a command's options or texts:
#   scripts/cli-doc.sh            # builds the CLI jar and its test classes, rewrites docs/CLI.md
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
source "$here/scripts/find-jdk.sh"
JAVA_HOME="$(dgen4j_find_jdk)" || exit 1
cd "$here"
echo "cli-doc: building the CLI (./build -DskipTests -pl java/cli -am package)..." >&2
./build -q -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true -pl java/cli -am package >&2
jar="$(ls -t java/cli/target/dgen4j-cli-*-all.jar | head -n1)"
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "java/cli/target/test-classes:$jar" \
  io.dgen4j.cli.CliDoc docs/CLI.md
