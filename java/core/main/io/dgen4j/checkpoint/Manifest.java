package io.dgen4j.checkpoint;

import io.dgen4j.gen.DataSpec;
import java.io.IOException;
import java.util.LinkedHashMap;
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
 */
public record Manifest(int formatVersion, DataSpec spec, String generator, long chunkSize) {
    private static final String KIND = "checkpoint";

    /** Whether a load may compare the bytes with the regenerated stream. */
    public boolean verifiable() {
        return !"jdk-random".equals(generator);
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
            return new Manifest((int) version, spec, text(m, "generator", where), integer(m, "chunkSize", where));
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
