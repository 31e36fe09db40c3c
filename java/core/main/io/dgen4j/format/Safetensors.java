package io.dgen4j.format;

import io.dgen4j.gen.DataSpec;
import io.dgen4j.json.JsonReader;
import io.dgen4j.json.JsonWriter;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Hugging Face's safetensors: an 8-byte little-endian header length N, N bytes of compact UTF-8
 * JSON ({@code __metadata__} first, then per tensor {@code {"dtype","shape","data_offsets"}}),
 * padded with spaces so that 8 + N is a multiple of the alignment (8 as the reference writer pads,
 * or 4096), then the data region, which the tensors cover exactly with nothing after it. Tensors are
 * in the reference writer's order: by dtype (its enum, largest items first), then by name.
 * {@link #read} checks every rule of the format the way the reference reader does.
 */
public final class Safetensors {
    /** The reference reader refuses a longer header. */
    public static final long MAX_HEADER = 100_000_000L;

    /**
     * A tensor of a file's header.
     *
     * @param begin where its bytes start in the data region ({@code data_offsets[0]})
     * @param end   where they end ({@code data_offsets[1]})
     */
    public record Entry(String name, DType dtype, long[] shape, long begin, long end) {
        /** Its bytes. */
        public long bytes() {
            return end - begin;
        }
    }

    /**
     * A file's header as read and checked.
     *
     * @param length   N, the JSON's bytes (padding included)
     * @param metadata {@code __metadata__}, empty when absent
     * @param entries  the tensors in data order
     */
    public record Header(long length, Map<String, String> metadata, List<Entry> entries) {
        /** The file offset of the data region. */
        public long dataStart() {
            return 8 + length;
        }
    }

    private Safetensors() {}

    /** The dtype as safetensors spells it: F32, BF16, I64, BOOL, ... */
    public static String dtypeName(DType d) {
        return switch (d) {
            case FLOAT64 -> "F64";
            case FLOAT32 -> "F32";
            case FLOAT16 -> "F16";
            case BFLOAT16 -> "BF16";
            case INT64 -> "I64";
            case INT32 -> "I32";
            case INT16 -> "I16";
            case INT8 -> "I8";
            case UINT8 -> "U8";
            case BOOL -> "BOOL";
        };
    }

    /** The place of {@code d} in the reference writer's dtype enum (BOOL 0 ... U64 14); higher is written first. */
    private static int rank(DType d) {
        return switch (d) {
            case BOOL -> 0;
            case UINT8 -> 1;
            case INT8 -> 2;
            case INT16 -> 5;
            case FLOAT16 -> 7;
            case BFLOAT16 -> 8;
            case INT32 -> 9;
            case FLOAT32 -> 11;
            case FLOAT64 -> 12;
            case INT64 -> 13;
        };
    }

    /** The tensors in the order the reference writer puts them: dtype (largest first), then name. */
    static List<Tensor> order(List<Tensor> tensors) {
        List<Tensor> out = new ArrayList<>(tensors);
        out.sort(Comparator.comparingInt((Tensor t) -> -rank(t.dtype())).thenComparing(Tensor::name,
                Safetensors::compareUtf8));
        return out;
    }

    /** Rust compares strings by their UTF-8 bytes; Java's compareTo by UTF-16 units (they differ above U+FFFF). */
    private static int compareUtf8(String a, String b) {
        return java.util.Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The metadata that names the stream filling the payloads, as strings (safetensors allows no
     * other values): with {@code {"format":"pt"}}, it makes the file describe itself.
     */
    public static Map<String, String> specMetadata(DataSpec spec) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("dgen4j", "checkpoint");
        m.put("formatVersion", Integer.toString(DataSpec.FORMAT_VERSION));
        m.put("size", Long.toString(spec.size()));
        m.put("seed", spec.seedString());
        m.put("blockSize", Integer.toString(spec.blockSize()));
        m.put("dedup", Double.toString(spec.dedupRatio()));
        m.put("compress", Double.toString(spec.compressRatio()));
        return m;
    }

    /** The layout of {@code tensors} with {@code metadata} after {@code "format":"pt"}; alignment 8 or 4096. */
    static Layout layout(List<Tensor> tensors, int alignment, Map<String, String> metadata) {
        if (alignment != 8 && alignment != 4096) {
            throw new IllegalArgumentException("safetensors alignment must be 8 or 4096, got " + alignment);
        }
        List<Tensor> fileOrder = order(tensors);
        Map<String, Object> header = new LinkedHashMap<>();
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("format", "pt");
        metadata.forEach((k, v) -> {
            if (!k.equals("format")) {
                meta.put(k, v);
            }
        });
        header.put("__metadata__", meta);
        List<String> members = new ArrayList<>();
        long at = 0;
        for (Tensor t : fileOrder) {
            String name = t.name();
            if (name.equals("__metadata__") || name.chars().anyMatch(c -> c < 0x20)) {
                throw new IllegalArgumentException("tensor name '" + name.replaceAll("\\p{Cntrl}", "?")
                        + "' cannot be a safetensors name (reserved, or a control character)");
            }
            Map<String, Object> info = new LinkedHashMap<>();
            info.put("dtype", dtypeName(t.dtype()));
            List<Long> shape = new ArrayList<>();
            for (long d : t.shape()) {
                shape.add(d);
            }
            info.put("shape", shape);
            info.put("data_offsets", List.of(at, at + t.bytes()));
            members.add("data_offsets [" + at + "," + (at + t.bytes()) + "]");
            header.put(name, info);
            at += t.bytes();
        }
        // names hold no control characters (refused above): the compact line is what serde_json writes
        byte[] json = JsonWriter.LINE.write(header).getBytes(StandardCharsets.UTF_8);
        int pad = (int) ((alignment - (8 + json.length) % alignment) % alignment);
        long n = json.length + pad;
        if (n > MAX_HEADER) {
            throw new IllegalArgumentException("the safetensors header of " + fileOrder.size() + " tensors takes " + n
                    + " bytes, more than readers accept (" + MAX_HEADER + ")");
        }
        byte[] head = new byte[(int) (8 + n)];
        for (int i = 0; i < 8; i++) {
            head[i] = (byte) (n >>> (8 * i));
        }
        System.arraycopy(json, 0, head, 8, json.length);
        java.util.Arrays.fill(head, 8 + json.length, head.length, (byte) ' ');
        List<Layout.Segment> segs = new ArrayList<>();
        segs.add(new Layout.Segment(0, 8, java.util.Arrays.copyOf(head, 8), "the header length", -1, -1));
        segs.add(new Layout.Segment(8, n, java.util.Arrays.copyOfRange(head, 8, head.length), "the JSON header", -1,
                -1));
        long pos = 8 + n;
        long stream = 0;
        for (int i = 0; i < fileOrder.size(); i++) {
            long b = fileOrder.get(i).bytes();
            segs.add(new Layout.Segment(pos, b, null, null, stream, i));
            pos += b;
            stream += b;
        }
        return new Layout(Layout.Format.SAFETENSORS, tensors, fileOrder, members, false, alignment, segs, List.of());
    }

    /** Whether the first bytes (9 or more) can start a safetensors file of {@code size} bytes. */
    public static boolean looksLike(byte[] first, long size) {
        if (first.length < 9) {
            return false;
        }
        long n = le64(first, 0);
        return n > 0 && n <= MAX_HEADER && 8 + n <= size && first[8] == '{';
    }

    /**
     * Reads and checks the header of a safetensors file of {@code size} bytes as the reference reader
     * does: N within bounds, UTF-8 JSON object, {@code __metadata__} of strings, known dtypes, no
     * duplicate name, each tensor's bytes its dtype's size times its elements, the tensors covering
     * the data region from 0 without gap or overlap, and the file ending where the last one ends.
     * Errors are one line naming {@code where} and the rule broken.
     */
    public static Header read(TorchReader.ReadAt in, long size, String where) throws IOException {
        if (size < 8) {
            throw new IOException(where + " is truncated: its " + size + " bytes cannot hold the 8-byte header length");
        }
        byte[] len = new byte[8];
        in.readFully(0, len);
        long n = le64(len, 0);
        if (n < 0 || n > MAX_HEADER) {
            throw new IOException(where + ": its header length " + Long.toUnsignedString(n) + " exceeds "
                    + MAX_HEADER + " bytes (not a safetensors file, or a damaged one)");
        }
        if (8 + n > size) {
            throw new IOException(where + ": its header of " + n + " bytes runs past the end of the file (" + size
                    + " bytes): the file is truncated");
        }
        byte[] json = new byte[(int) n];
        in.readFully(8, json);
        if (n == 0 || json[0] != '{') {
            throw new IOException(where + ": its header does not start with '{'");
        }
        Object doc;
        try {
            doc = JsonReader.parse(json);
        } catch (JsonReader.SyntaxException e) {
            String m = e.getMessage();
            throw new IOException(where + ": bad safetensors header: " + (m != null && m.startsWith("Duplicate field")
                    ? "a tensor name appears twice (" + m + ")" : m));
        }
        if (!(doc instanceof Map<?, ?> top)) {
            throw new IOException(where + ": its header is not a JSON object");
        }
        Map<String, String> metadata = new LinkedHashMap<>();
        List<Entry> entries = new ArrayList<>();
        for (Map.Entry<?, ?> e : top.entrySet()) {
            String name = (String) e.getKey();
            if (name.equals("__metadata__")) {
                if (!(e.getValue() instanceof Map<?, ?> meta)) {
                    throw new IOException(where + ": its __metadata__ is not an object");
                }
                for (Map.Entry<?, ?> m : meta.entrySet()) {
                    if (!(m.getValue() instanceof String s)) {
                        throw new IOException(where + ": __metadata__ \"" + m.getKey() + "\" is not a string");
                    }
                    metadata.put((String) m.getKey(), s);
                }
                continue;
            }
            entries.add(entry(name, e.getValue(), where));
        }
        entries.sort(Comparator.comparingLong(Entry::begin).thenComparingLong(Entry::end));
        long at = 0;
        for (Entry e : entries) {
            if (e.begin() > at) {
                throw new IOException(String.format("%s: a gap in the data region: bytes %d to %d belong to no tensor"
                        + " (tensor %s begins at %d)", where, at, e.begin(), e.name(), e.begin()));
            }
            if (e.begin() < at) {
                throw new IOException(String.format("%s: tensor %s (data_offsets [%d,%d]) overlaps the tensor before"
                        + " it, which ends at %d", where, e.name(), e.begin(), e.end(), at));
            }
            at = e.end();
        }
        long end = 8 + n + at;
        if (end != size) {
            throw new IOException(end < size
                    ? String.format("%s: %d trailing bytes after the data region, which ends at byte %d", where,
                    size - end, end)
                    : String.format("%s is truncated: its data region ends at byte %d, the file at %d", where, end,
                    size));
        }
        return new Header(n, metadata, List.copyOf(entries));
    }

    private static Entry entry(String name, Object value, String where) throws IOException {
        if (!(value instanceof Map<?, ?> info)) {
            throw new IOException(where + ": tensor " + name + " is not an object");
        }
        DType dtype = null;
        if (info.get("dtype") instanceof String s) {
            for (DType d : DType.values()) {
                if (dtypeName(d).equals(s)) {
                    dtype = d;
                }
            }
            if (dtype == null) {
                throw new IOException(where + ": tensor " + name + " has dtype " + s + ", which dgen4j does not know");
            }
        } else {
            throw new IOException(where + ": tensor " + name + " has no \"dtype\" string");
        }
        if (!(info.get("shape") instanceof List<?> shape)) {
            throw new IOException(where + ": tensor " + name + " has no \"shape\" list");
        }
        long[] dims = new long[shape.size()];
        BigInteger numel = BigInteger.ONE;
        for (int i = 0; i < dims.length; i++) {
            if (!(shape.get(i) instanceof Long d) || d < 0) {
                throw new IOException(where + ": tensor " + name + " has a shape that is not non-negative integers: "
                        + shape);
            }
            dims[i] = d;
            numel = numel.multiply(BigInteger.valueOf(d));
        }
        if (!(info.get("data_offsets") instanceof List<?> off) || off.size() != 2 || !(off.get(0) instanceof Long b)
                || !(off.get(1) instanceof Long e) || b < 0 || e < b) {
            throw new IOException(where + ": tensor " + name + " has no \"data_offsets\" [begin,end] with 0 <= begin"
                    + " <= end: " + info.get("data_offsets"));
        }
        BigInteger need = numel.multiply(BigInteger.valueOf(dtype.itemSize()));
        if (!need.equals(BigInteger.valueOf(e - b))) {
            throw new IOException(String.format("%s: tensor %s: data_offsets [%d,%d] hold %d bytes, but %s %s needs %s",
                    where, name, b, e, e - b, dtypeName(dtype), shape.toString().replace(" ", ""), need));
        }
        return new Entry(name, dtype, dims, b, e);
    }

    private static long le64(byte[] b, int p) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v |= (long) (b[p + i] & 0xff) << (8 * i);
        }
        return v;
    }
}
