package io.dgen4j.checkpoint;

import io.dgen4j.gen.DataSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The small JSON sidecar written next to a checkpoint ({@code <target>.manifest.json}): the
 * stream's spec, seed included, so that {@code load --verify} can regenerate every byte.
 *
 * @param formatVersion docs/FORMAT.md version of the bytes
 * @param spec          the stream (its size is the checkpoint size)
 * @param generator     what produced the bytes: native, java or jdk-random
 * @param chunkSize     chunk size used by the save
 */
public record Manifest(int formatVersion, DataSpec spec, String generator, long chunkSize) {
    /** Suffix of the sidecar file. */
    public static final String SUFFIX = ".manifest.json";
    private static final Pattern FIELD = Pattern.compile("\"(\\w+)\"\\s*:\\s*(\"[^\"]*\"|[-+0-9.eE]+|true|false)");

    /** Whether a load may compare the bytes with the regenerated stream. */
    public boolean verifiable() {
        return !"jdk-random".equals(generator);
    }

    /** The JSON text. */
    public byte[] toJson() {
        String json = String.format(Locale.ROOT,
                "{\"dgen4j\":\"checkpoint\",\"formatVersion\":%d,\"size\":%d,\"seed\":\"%s\",\"blockSize\":%d,"
                        + "\"dedup\":%s,\"compress\":%s,\"generator\":\"%s\",\"chunkSize\":%d}%n",
                formatVersion, spec.size(), spec.seedString(), spec.blockSize(), Double.toString(spec.dedupRatio()),
                Double.toString(spec.compressRatio()), generator, chunkSize);
        return json.getBytes(StandardCharsets.UTF_8);
    }

    /** Parses a manifest; {@code where} names it in errors. */
    public static Manifest parse(byte[] json, String where) throws IOException {
        Map<String, String> f = new LinkedHashMap<>();
        Matcher m = FIELD.matcher(new String(json, StandardCharsets.UTF_8));
        while (m.find()) {
            String v = m.group(2);
            f.put(m.group(1), v.startsWith("\"") ? v.substring(1, v.length() - 1) : v);
        }
        try {
            if (!"checkpoint".equals(f.get("dgen4j"))) {
                throw new IOException(where + " is not a dgen4j checkpoint manifest");
            }
            int version = Integer.parseInt(req(f, "formatVersion", where));
            if (version != DataSpec.FORMAT_VERSION) {
                throw new IOException(String.format("%s was written with stream format %d; this dgen4j reads format %d",
                        where, version, DataSpec.FORMAT_VERSION));
            }
            DataSpec spec = DataSpec.builder()
                    .size(Long.parseLong(req(f, "size", where)))
                    .seed(Long.parseUnsignedLong(req(f, "seed", where)))
                    .blockSize(Integer.parseInt(req(f, "blockSize", where)))
                    .dedupRatio(Double.parseDouble(req(f, "dedup", where)))
                    .compressRatio(Double.parseDouble(req(f, "compress", where)))
                    .build();
            return new Manifest(version, spec, req(f, "generator", where), Long.parseLong(req(f, "chunkSize", where)));
        } catch (IllegalArgumentException e) {
            throw new IOException("bad manifest " + where + ": " + e.getMessage(), e);
        }
    }

    private static String req(Map<String, String> f, String key, String where) throws IOException {
        String v = f.get(key);
        if (v == null) {
            throw new IOException("manifest " + where + " lacks \"" + key + "\"");
        }
        return v;
    }
}
