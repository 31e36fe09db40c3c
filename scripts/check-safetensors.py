#!/usr/bin/env python3
"""Checks safetensors files against the format's rules, independently of dgen4j's own code.

Usage: check-safetensors.py PATH [--stream FILE] [--alignment 8|4096] [--finite] [--packages]

PATH is one .safetensors file, or a directory holding model.safetensors.index.json and its shards.
Python's standard library only. Every rule is asserted; the first broken one is printed as
"FAIL: ..." and the exit status is 1:
  - 8-byte little-endian header length N, N <= 100,000,000, 8 + N within the file;
  - the header is UTF-8 JSON starting with '{', padded with spaces only, 8 + N a multiple of the
    alignment (8, as the reference writer pads, or 4096); compact (no whitespace) with
    "__metadata__" first, holding strings only, "format" "pt";
  - no tensor name twice; known dtype names; shape of non-negative integers; data_offsets
    [begin, end] with end - begin = elements x dtype size;
  - sorted by offset the tensors cover the data region from 0 with no gap or overlap, and the file
    ends exactly where the last one ends;
  - the header lists the tensors in the reference writer's order: dtype (largest first, as its
    enum orders them), then name by UTF-8 bytes;
  - a directory: shards named model-0000K-of-0000N.safetensors, an index with 2-space indent,
    sorted keys and a final newline, total_size the sum of tensor bytes, weight_map naming every
    tensor's shard and nothing else.
--stream FILE (the output of `dgen4j generate` with the save's seed and the tensors' bytes): the
bytes of every tensor of a file of at most 64 MiB of tensors, else the first MiB of its first, a
middle and its last tensor, equal the stream's bytes where they fall in it (the data regions one after another).
--finite: every float value (F16, BF16, F32, F64) read is finite, and the stream's bytes are compared
with the top exponent bit of each float value cleared (dgen4j's --finite, default for safetensors).
--packages: where the safetensors (and transformers, for a directory) packages are importable,
load with them too; where not, print that this part was skipped.
"""
import json
import os
import re
import struct
import sys

MAX_HEADER = 100_000_000
# dtype -> (bytes per element, place in the reference writer's enum: higher is written first)
DTYPES = {
    "BOOL": (1, 0), "U8": (1, 1), "I8": (1, 2), "F8_E5M2": (1, 3), "F8_E4M3": (1, 4),
    "I16": (2, 5), "U16": (2, 6), "F16": (2, 7), "BF16": (2, 8),
    "I32": (4, 9), "U32": (4, 10), "F32": (4, 11), "F64": (8, 12), "I64": (8, 13), "U64": (8, 14),
}


class Fail(Exception):
    pass


class Obj(list):
    """A JSON object as its (key, value) pairs in file order (a JSON array stays a list)."""


def need(cond, what):
    if not cond:
        raise Fail(what)


def no_duplicates(pairs):
    seen = {}
    for k, v in pairs:
        need(k not in seen, "name %r appears twice in one JSON object" % k)
        seen[k] = v
    return seen


def read_header(path, alignment):
    """The checked header of one file: (N, ordered list of (name, info), metadata)."""
    size = os.path.getsize(path)
    need(size >= 8, "%s: %d bytes cannot hold the 8-byte header length" % (path, size))
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        need(n <= MAX_HEADER, "%s: header length %d exceeds %d" % (path, n, MAX_HEADER))
        need(8 + n <= size, "%s: header of %d bytes runs past the file's %d bytes" % (path, n, size))
        raw = f.read(n)
    need((8 + n) % alignment == 0, "%s: 8 + N = %d is not a multiple of %d" % (path, 8 + n, alignment))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Fail("%s: header is not UTF-8: %s" % (path, e))
    need(text.startswith("{"), "%s: header does not start with '{'" % path)
    try:
        obj, end = json.JSONDecoder(object_pairs_hook=Obj).raw_decode(text)
    except ValueError as e:
        raise Fail("%s: header is not JSON: %s" % (path, e))
    need(text[end:] == " " * (len(text) - end), "%s: header is padded with other than spaces" % path)
    need(isinstance(obj, Obj), "%s: header is not a JSON object" % path)
    pairs = obj
    names = [k for k, _ in pairs]
    need(len(set(names)) == len(names), "%s: a tensor name appears twice: %s" % (
        path, sorted({x for x in names if names.count(x) > 1})))
    need(names and names[0] == "__metadata__", "%s: __metadata__ is not the first key" % path)
    meta_pairs = pairs[0][1]
    need(isinstance(meta_pairs, Obj), "%s: __metadata__ is not an object" % path)
    meta = no_duplicates(meta_pairs)
    need(all(isinstance(v, str) for v in meta.values()), "%s: __metadata__ holds a non-string value" % path)
    need(meta.get("format") == "pt", "%s: __metadata__ format is %r, not 'pt'" % (path, meta.get("format")))
    tensors = []
    for name, info_pairs in pairs[1:]:
        need(isinstance(info_pairs, Obj), "%s: tensor %s is not an object" % (path, name))
        info = no_duplicates(info_pairs)
        need(set(info) == {"dtype", "shape", "data_offsets"}, "%s: tensor %s has keys %s" % (path, name, sorted(info)))
        need(info["dtype"] in DTYPES, "%s: tensor %s has unknown dtype %r" % (path, name, info["dtype"]))
        shape = info["shape"]
        need(isinstance(shape, list) and all(isinstance(d, int) and d >= 0 for d in shape),
             "%s: tensor %s shape %r" % (path, name, shape))
        off = info["data_offsets"]
        need(isinstance(off, list) and len(off) == 2 and all(isinstance(o, int) and o >= 0 for o in off),
             "%s: tensor %s data_offsets %r" % (path, name, off))
        numel = 1
        for d in shape:
            numel *= d
        need(off[1] - off[0] == numel * DTYPES[info["dtype"]][0],
             "%s: tensor %s: data_offsets %r hold %d bytes, %s %r needs %d" % (
                 path, name, off, off[1] - off[0], info["dtype"], shape, numel * DTYPES[info["dtype"]][0]))
        tensors.append((name, info))
    # compact JSON, keys in the file's order, as the reference writer (serde_json) writes it
    rebuilt = "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + (
        json.dumps(dict(v), ensure_ascii=False, separators=(",", ":")) if k == "__metadata__" else
        json.dumps({"dtype": v["dtype"], "shape": v["shape"], "data_offsets": v["data_offsets"]},
                   ensure_ascii=False, separators=(",", ":")))
        for k, v in [("__metadata__", meta_pairs)] + tensors) + "}"
    need(rebuilt == text[:end], "%s: header JSON is not compact in the reference layout" % path)
    by_offset = sorted(tensors, key=lambda t: tuple(t[1]["data_offsets"]))
    at = 0
    for name, info in by_offset:
        b, e = info["data_offsets"]
        need(b <= e, "%s: tensor %s ends before it begins" % (path, name))
        need(b <= at, "%s: gap: bytes %d to %d of the data region belong to no tensor" % (path, at, b))
        need(b >= at, "%s: tensor %s overlaps the one before it" % (path, name))
        at = e
    need(8 + n + at == size, "%s: data region ends at byte %d, the file at %d" % (path, 8 + n + at, size))
    want = sorted(tensors, key=lambda t: (-DTYPES[t[1]["dtype"]][1], t[0].encode("utf-8")))
    need([t[0] for t in tensors] == [t[0] for t in want], "%s: tensors are not in the reference order" % path)
    need([t[0] for t in tensors] == [t[0] for t in by_offset], "%s: header order is not offset order" % path)
    return n, tensors, meta


FLOATS = {"F16": "e", "F32": "f", "F64": "d", "BF16": None}


def check_finite(path, n, tensors):
    """Every float value read (all of a file of at most 64 MiB of tensors, else each tensor's first MiB) is finite."""
    import math
    small = sum(i["data_offsets"][1] - i["data_offsets"][0] for _, i in tensors) <= 64 << 20
    with open(path, "rb") as f:
        for name, info in tensors:
            if info["dtype"] not in FLOATS:
                continue
            b, e = info["data_offsets"]
            f.seek(8 + n + b)
            data = f.read(e - b if small else min(e - b, 1 << 20))
            if info["dtype"] == "BF16":  # a bfloat16 is the high half of a float32
                data = b"".join(b"\0\0" + data[i:i + 2] for i in range(0, len(data), 2))
                code = "f"
            else:
                code = FLOATS[info["dtype"]]
            size = struct.calcsize(code)
            values = struct.unpack("<%d%s" % (len(data) // size, code), data)
            bad = next((i for i, v in enumerate(values) if not math.isfinite(v)), None)
            if bad is not None:
                raise Fail("%s: tensor %s value %d is %r, not finite" % (path, name, bad, values[bad]))


def compare_stream(path, n, tensors, stream, stream_at, finite=False):
    small = sum(i["data_offsets"][1] - i["data_offsets"][0] for _, i in tensors) <= 64 << 20
    picks = tensors if small else [tensors[0], tensors[len(tensors) // 2], tensors[-1]]
    with open(path, "rb") as f, open(stream, "rb") as s:
        for name, info in picks:
            b, e = info["data_offsets"]
            count = e - b if small else min(e - b, 1 << 20)  # a first MiB tells streams apart
            f.seek(8 + n + b)
            s.seek(stream_at + b)
            got, want = f.read(count), s.read(count)
            if finite and info["dtype"] in FLOATS:  # --finite clears the top exponent bit (0x40 of the last byte)
                size = DTYPES[info["dtype"]][0]
                want = bytearray(want)
                for i in range(size - 1, len(want), size):
                    want[i] &= 0xBF
                want = bytes(want)
            need(len(want) == count, "stream %s is shorter than byte %d" % (stream, stream_at + b + count))
            if got != want:
                raise Fail("%s: tensor %s differs from the stream at its byte %d" % (
                    path, name, next(i for i in range(count) if got[i] != want[i])))
    return len(picks)


def check_index(directory):
    path = os.path.join(directory, "model.safetensors.index.json")
    need(os.path.exists(path), "%s: no model.safetensors.index.json" % directory)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    index = json.loads(text, object_pairs_hook=no_duplicates)
    need(text == json.dumps(index, indent=2, sort_keys=True) + "\n",
         "%s: not written with 2-space indent, sorted keys and a final newline" % path)
    need(set(index) == {"metadata", "weight_map"}, "%s: keys %s" % (path, sorted(index)))
    files = sorted(set(index["weight_map"].values()))
    total = len(files)
    need(files == ["model-%05d-of-%05d.safetensors" % (k, total) for k in range(1, total + 1)],
         "%s: shards are not model-0000K-of-0000N.safetensors: %s" % (path, files))
    return index, files


def main(argv):
    import argparse
    parser = argparse.ArgumentParser(description="Checks safetensors files against the format's rules.")
    parser.add_argument("path")
    parser.add_argument("--stream")
    parser.add_argument("--alignment", type=int, default=8, choices=[8, 4096])
    parser.add_argument("--packages", action="store_true")
    parser.add_argument("--finite", action="store_true")
    a = parser.parse_args(argv[1:])
    stream, alignment, packages, finite = a.stream, a.alignment, a.packages, a.finite
    args = [a.path]
    target = args[0]
    need(os.path.exists(target), "%s does not exist" % target)
    if os.path.isdir(target):
        index, files = check_index(target)
        paths = [os.path.join(target, f) for f in files]
    else:
        index, paths = None, [target]
    total = 0
    stream_at = 0
    compared = 0
    seen = {}
    for p in paths:
        n, tensors, meta = read_header(p, alignment)
        for name, info in tensors:
            need(name not in seen, "tensor %s is in %s and %s" % (name, seen.get(name), p))
            seen[name] = os.path.basename(p)
            total += info["data_offsets"][1] - info["data_offsets"][0]
        if stream:
            compared += compare_stream(p, n, tensors, stream, stream_at, finite)
        if finite:
            check_finite(p, n, tensors)
        stream_at += os.path.getsize(p) - 8 - n
        print("ok %s: %d tensors, header %d bytes, metadata %s" % (p, len(tensors), n, json.dumps(meta)))
    if index is not None:
        need(index["weight_map"] == seen, "weight_map does not name each tensor's shard")
        need(index["metadata"].get("total_size") == total,
             "total_size %r is not the tensors' %d bytes" % (index["metadata"].get("total_size"), total))
    print("rules hold: %d file(s), %d tensors, %d tensor bytes%s" % (
        len(paths), len(seen), total, ", %d tensors equal the stream" % compared if stream else ""))
    if packages:
        try:
            from safetensors import safe_open
        except ImportError as e:
            print("skipped: the safetensors package is not importable (%s)" % e)
        else:
            for p in paths:
                with safe_open(p, framework="numpy") as f:
                    need(sorted(f.keys()) == sorted(k for k, v in seen.items() if v == os.path.basename(p)),
                         "safetensors package: keys differ in %s" % p)
            print("safetensors package: %d file(s) opened, keys equal" % len(paths))
        if index is not None:
            try:
                import transformers
            except ImportError as e:
                print("skipped: the transformers package is not importable (%s)" % e)
            else:
                config = transformers.AutoConfig.from_pretrained(target)
                print("transformers: %s read" % type(config).__name__)


if __name__ == "__main__":
    try:
        main(sys.argv)
    except Fail as e:
        print("FAIL: %s" % e)
        sys.exit(1)
