#!/usr/bin/env bash
# Regenerates java/core/main/io/dgen4j/ffi/dgen4j_h.java from dgen4j.h with jextract 22+
# (https://jdk.java.net/jextract/). Where jextract cannot be installed, edit the committed
# class by hand in the same shape; AbiAgreementTest fails the build when the header, the
# library's exported symbols and the Java descriptors disagree.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v jextract >/dev/null 2>&1; then
  echo "regenerate.sh: jextract is not on PATH; install jextract 22+ or edit io.dgen4j.ffi.dgen4j_h by hand." >&2
  exit 1
fi
# Every function, macro and typedef of the header must be listed in dgen4j.args.
jextract @dgen4j.args dgen4j.h
# The bindings find their symbols in the library NativeLibrary opened with
# SymbolLookup.libraryLookup (it extracts the .so from the jar at run time, so no path is known
# here), not in the class loader's lookup that jextract emits without --library.
out=../java/core/main/io/dgen4j/ffi/dgen4j_h.java
sed -i 's/SymbolLookup\.loaderLookup()/io.dgen4j.nativelib.NativeLibrary.symbols()/' "$out"
grep -q 'NativeLibrary.symbols()' "$out" || { echo "regenerate.sh: no SymbolLookup.loaderLookup() to replace in $out" >&2; exit 1; }
echo "regenerated ../java/core/main/io/dgen4j/ffi/dgen4j_h.java; run ./build verify to check it against the header and the library"
