package io.dgen4j.checkpoint;

import io.dgen4j.format.Layout;
import io.dgen4j.format.Tensor;
import io.dgen4j.format.TensorList;
import io.dgen4j.gen.DataSpec;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a checkpoint carries besides its bytes: the stream's spec, seed included, so that
 * {@code load --verify} can regenerate every byte. It travels with the data atomically, as
 * storage metadata: for files, the sidecar {@code <target>.manifest.json} (a JSON object whose
 * top-level fields are these; see docs/CHECKPOINTS.md).
 *
 * @param formatVersion docs/FORMAT.md version of the bytes
 * @param spec          the stream (its size is the checkpoint size)
 * @param generator     what produced the bytes: native, java or jdk-random
 * @param chunkSize     chunk size used by the save
 * @param layout        the file's format and tensors when it is not the stream alone ({@code torch}),
 *                      else null: then the stream is the file
 */
public record Manifest(int formatVersion, DataSpec spec, String generator, long chunkSize, Layout layout) {
    private static final String KIND = "checkpoint";

    /** The manifest of a raw checkpoint: the file is the stream. */
    public Manifest(int formatVersion, DataSpec spec, String generator, long chunkSize) {
        this(formatVersion, spec, generator, chunkSize, null);
    }

    /** The file's bytes: the layout's size, or the stream's for a raw checkpoint. */
    public long fileSize() {
        return layout == null ? spec.size() : layout.size();
    }

    /** Whether a load may compare the bytes with the regenerated stream. */
    public boolean verifiable() {
        return !"jdk-random".equals(generator);
    }

    /**
     * The value of {@code "tensors"} in the metadata of a safetensors object whose tensor list is its own header
     * (object-store metadata is small: S3's 2 KiB hold the list of a few dozen tensors at most).
     */
    public static final String TENSORS_IN_HEADER = "header";

    /**
     * Whether metadata fields say the tensors are in the safetensors header of the object they describe: then
     * {@link #withTensors} must give them before {@link #fromMetadata} reads them.
     */
    public static boolean tensorsInHeader(Map<String, Object> m) {
        return Layout.Format.SAFETENSORS.label().equals(m.get("format")) && TENSORS_IN_HEADER.equals(m.get("tensors"));
    }

    /** {@code m} with the tensor list {@code tensors} (read from the object's header) in {@code "tensors"}. */
    public static Map<String, Object> withTensors(Map<String, Object> m, List<Tensor> tensors) {
        Map<String, Object> out = new LinkedHashMap<>(m);
        out.put("tensors", TensorList.format(tensors));
        return out;
    }

    /**
     * The metadata fields for an object store: those of {@link #toMetadata()}, except that a safetensors file's
     * tensor list is {@value #TENSORS_IN_HEADER} (its header, in the object, holds it; a load reads it there).
     */
    public Map<String, Object> toObjectMetadata() {
        Map<String, Object> m = toMetadata();
        if (layout != null && layout.format() == Layout.Format.SAFETENSORS) {
            m.put("tensors", TENSORS_IN_HEADER);
        }
        return m;
    }

    /** The metadata fields, in the order they are written. */
    public Map<String, Object> toMetadata() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("dgen4j", KIND);
        m.put("formatVersion", (long) formatVersion);
        m.put("size", spec.size());
        m.put("seed", spec.seedString()); // a string: unsigned 64-bit values exceed JSON's safe integers
        m.put("blockSize", (long) spec.blockSize());
        m.put("dedup", spec.dedupRatio());
        m.put("compress", spec.compressRatio());
        m.put("generator", generator);
        m.put("chunkSize", chunkSize);
        if (layout != null) { // raw manifests keep their fields: size is the stream's, here the payloads'
            m.put("format", layout.format().label());
            m.put("fileSize", layout.size());
            m.put("crc", layout.crc() ? "crc32" : "none");
            m.put("alignment", (long) layout.alignment());
            m.put("tensors", TensorList.format(layout.tensors()));
            if (layout.finite()) { // only then: manifests without --finite keep their fields
                m.put("finite", true);
            }
        }
        return m;
    }

    /**
     * Reads a manifest from metadata fields; {@code where} names it in errors. Unknown fields are
     * ignored; numbers may also be given as decimal strings (object-store metadata is text).
     */
    public static Manifest fromMetadata(Map<String, Object> m, String where) throws IOException {
        if (!KIND.equals(m.get("dgen4j"))) {
            throw new IOException(where + " is not a dgen4j checkpoint manifest (no \"dgen4j\": \"checkpoint\")");
        }
        long version = integer(m, "formatVersion", where);
        if (version != DataSpec.FORMAT_VERSION) {
            throw new IOException(String.format("%s was written with stream format %d; this dgen4j reads format %d",
                    where, version, DataSpec.FORMAT_VERSION));
        }
        String seed = text(m, "seed", where);
        long blockSize = integer(m, "blockSize", where);
        try {
            DataSpec spec = DataSpec.builder()
                    .size(integer(m, "size", where))
                    .seed(Long.parseUnsignedLong(seed))
                    .blockSize(Math.toIntExact(blockSize))
                    .dedupRatio(real(m, "dedup", where))
                    .compressRatio(real(m, "compress", where))
                    .build();
            Layout layout = null;
            Object format = m.get("format");
            boolean finite = flag(m, "finite", where);
            if (finite && Layout.Format.RAW.label().equals(format)) { // the tensors say which bytes are floats
                layout = Layout.raw(TensorList.parse(text(m, "tensors", where), where + " \"tensors\""))
                        .withFinite(true);
            } else if (format != null && !Layout.Format.RAW.label().equals(format)) {
                Layout.Format f = Layout.Format.parse(text(m, "format", where));
                String crc = text(m, "crc", where);
                if (!crc.equals("crc32") && !crc.equals("none")) {
                    throw new IOException("bad manifest " + where + ": \"crc\" must be crc32 or none, got " + crc);
                }
                layout = Layout.of(f, TensorList.parse(text(m, "tensors", where), where + " \"tensors\""),
                        crc.equals("crc32"), Math.toIntExact(integer(m, "alignment", where))).withFinite(finite)
                        .describing(spec);
                if (layout.size() != integer(m, "fileSize", where) || layout.payloadBytes() != spec.size()) {
                    throw new IOException(String.format("bad manifest %s: its tensors lay out %d bytes (%d of "
                            + "tensors), but it says %d (%d)", where, layout.size(), layout.payloadBytes(),
                            integer(m, "fileSize", where), spec.size()));
                }
            }
            return new Manifest((int) version, spec, text(m, "generator", where), integer(m, "chunkSize", where),
                    layout);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new IOException("bad manifest " + where + ": " + e.getMessage(), e);
        }
    }

    private static Object required(Map<String, Object> m, String key, String where) throws IOException {
        Object v = m.get(key);
        if (v == null) {
            throw new IOException("manifest " + where + " lacks \"" + key + "\"");
        }
        return v;
    }

    /** An optional true/false field (a string in object-store metadata); absent is false. */
    private static boolean flag(Map<String, Object> m, String key, String where) throws IOException {
        Object v = m.get(key);
        if (v == null || Boolean.FALSE.equals(v) || "false".equals(v)) {
            return false;
        }
        if (Boolean.TRUE.equals(v) || "true".equals(v)) {
            return true;
        }
        throw new IOException(String.format("bad manifest %s: \"%s\" must be true or false, got %s", where, key, v));
    }

    private static String text(Map<String, Object> m, String key, String where) throws IOException {
        Object v = required(m, key, where);
        if (v instanceof String s) {
            return s;
        }
        throw new IOException(String.format("bad manifest %s: \"%s\" must be a string, got %s", where, key, v));
    }

    private static long integer(Map<String, Object> m, String key, String where) throws IOException {
        Object v = required(m, key, where);
        try {
            return switch (v) {
                case Long l -> l;
                case Integer i -> i;
                case String s -> Long.parseLong(s);
                default -> throw new NumberFormatException();
            };
        } catch (NumberFormatException e) {
            throw new IOException(String.format("bad manifest %s: \"%s\" must be an integer, got %s", where, key, v));
        }
    }

    private static double real(Map<String, Object> m, String key, String where) throws IOException {
        Object v = required(m, key, where);
        try {
            double d = switch (v) {
                case Double x -> x;
                case Long l -> l;
                case Integer i -> i;
                case String s -> Double.parseDouble(s);
                default -> throw new NumberFormatException();
            };
            if (!Double.isFinite(d)) {
                throw new NumberFormatException();
            }
            return d;
        } catch (NumberFormatException e) {
            throw new IOException(String.format("bad manifest %s: \"%s\" must be a finite number, got %s", where, key, v));
        }
    }
}
