package io.dgen4j.s3.internal;

import io.dgen4j.json.JsonReader;
import io.dgen4j.json.JsonWriter;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The checkpoint's metadata (scalar fields) as ONE S3 user-metadata entry,
 * {@value #KEY} ({@code x-amz-meta-dgen4j-manifest}), holding compact JSON in ASCII (non-ASCII
 * characters escaped, since HTTP headers are ASCII), so that the fields' types round-trip
 * (strings, integers as {@code Long}, reals as {@code Double}, booleans) and the spec travels with
 * the object: set when the upload is created, returned by every HEAD with the size.
 *
 * {@snippet :
 * Map<String, String> userMetadata = Map.of(MetadataCodec.KEY, MetadataCodec.encode(manifest));
 * Map<String, Object> back = MetadataCodec.decode(headUserMetadata, "s3://b/k");
 * }
 */
public final class MetadataCodec {
    /** The user-metadata name (without the {@code x-amz-meta-} prefix). */
    public static final String KEY = "dgen4j-manifest";
    /** S3 limits user metadata to 2 KiB (names and values, in UTF-8). */
    public static final int MAX_BYTES = 2048;

    private MetadataCodec() {}

    /**
     * The entry's value for {@code metadata}.
     *
     * @throws IllegalArgumentException when a value is not a String, Long, Integer, finite Double or
     *         Boolean, or the entry would exceed S3's 2 KiB of user metadata
     */
    public static String encode(Map<String, Object> metadata) {
        Map<String, Object> fields = new LinkedHashMap<>();
        for (Map.Entry<String, Object> f : metadata.entrySet()) {
            String k = f.getKey();
            fields.put(k, switch (f.getValue()) {
                case String s -> s;
                case Long l -> l;
                case Integer i -> i.longValue();
                case Double d when Double.isFinite(d) -> d;
                case Boolean b -> b;
                case null -> throw new IllegalArgumentException("metadata value of " + k + " is null");
                default -> throw new IllegalArgumentException(String.format("metadata value of %s must be a String, "
                        + "Long, Integer, finite Double or Boolean, got %s", k, f.getValue()));
            });
        }
        String json = JsonWriter.ASCII_LINE.write(fields);
        int bytes = KEY.length() + json.getBytes(StandardCharsets.US_ASCII).length;
        if (bytes > MAX_BYTES) {
            throw new IllegalArgumentException(String.format("the metadata is %d bytes as S3 user metadata: S3 "
                    + "allows %d", bytes, MAX_BYTES));
        }
        return json;
    }

    /**
     * The metadata held by an object's user metadata (names compared without case, as HTTP
     * headers); empty when it has no {@value #KEY} entry.
     *
     * @param userMetadata the object's user metadata, names without {@code x-amz-meta-}
     * @param object       names the object in errors, e.g. {@code s3://bucket/key}
     * @throws IOException naming the object when the entry is not a JSON object of scalars
     */
    public static Map<String, Object> decode(Map<String, String> userMetadata, String object) throws IOException {
        String json = null;
        for (Map.Entry<String, String> e : userMetadata.entrySet()) {
            if (e.getKey().equalsIgnoreCase(KEY)) {
                json = e.getValue();
            }
        }
        if (json == null) {
            return Map.of();
        }
        String where = "the " + KEY + " metadata of " + object;
        Object root;
        try {
            root = JsonReader.parse(json.getBytes(StandardCharsets.UTF_8));
        } catch (JsonReader.SyntaxException e) {
            throw new IOException(String.format("%s is not valid JSON: %s", where, e.getMessage()), e);
        }
        if (!(root instanceof Map<?, ?> fields)) {
            throw new IOException(where + " is not a JSON object");
        }
        Map<String, Object> m = new LinkedHashMap<>();
        for (Map.Entry<?, ?> f : fields.entrySet()) {
            String name = (String) f.getKey();
            m.put(name, switch (f.getValue()) {
                case String s -> s;
                case Long l -> l;
                case Double d -> d;
                case Boolean b -> b;
                case BigInteger b -> throw new IOException(String.format("%s: field %s is out of the 64-bit range",
                        where, name));
                case null, default -> throw new IOException(String.format("%s: field %s is not a string, number or "
                        + "boolean", where, name));
            });
        }
        return Collections.unmodifiableMap(m);
    }
}
