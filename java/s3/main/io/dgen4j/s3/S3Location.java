package io.dgen4j.s3;

import io.dgen4j.storage.StorageTarget;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;

/**
 * An S3 object named by an {@code s3://bucket/key} target. The bucket follows S3's naming rules
 * (3 to 63 characters: lower-case letters, digits, dots and hyphens, starting and ending with a
 * letter or digit, no {@code ..}, not an IP address); the key is percent-decoded like a
 * {@code file://} URI's path ({@code s3://b/a%20b} is the key {@code a b}), is not empty, is at most
 * 1024 bytes of UTF-8 and does not end with {@code /} (a checkpoint is an object, not a prefix).
 *
 * {@snippet :
 * S3Location l = S3Location.of(StorageTarget.parse("s3://ckpt-bucket/run1/rank0.bin"));
 * l.bucket();   // "ckpt-bucket"
 * l.key();      // "run1/rank0.bin"
 * }
 *
 * @param bucket the bucket name
 * @param key    the object key, decoded
 */
public record S3Location(String bucket, String key) {
    /** The URI scheme of S3 targets. */
    public static final String SCHEME = "s3";
    /** Longest key S3 takes, in bytes of UTF-8. */
    public static final int MAX_KEY_BYTES = 1024;

    /**
     * Checks both parts.
     *
     * @throws IllegalArgumentException naming the rule broken
     */
    public S3Location {
        if (bucket == null || key == null) {
            throw new IllegalArgumentException("bucket and key must not be null");
        }
        String why = bucketProblem(bucket);
        if (why != null) {
            throw new IllegalArgumentException(String.format("bad S3 bucket name '%s': %s", bucket, why));
        }
        if (key.isEmpty()) {
            throw new IllegalArgumentException("s3://" + bucket + "/ names no object: add a key, e.g. s3://"
                    + bucket + "/checkpoint.bin");
        }
        if (key.endsWith("/")) {
            throw new IllegalArgumentException(String.format("s3://%s/%s ends with '/': a checkpoint target is an "
                    + "object, not a prefix", bucket, key));
        }
        int bytes = key.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_KEY_BYTES) {
            throw new IllegalArgumentException(String.format("the key of s3://%s/... is %d bytes of UTF-8: S3 allows "
                    + "at most %d", bucket, bytes, MAX_KEY_BYTES));
        }
    }

    /**
     * The location of an {@code s3} target.
     *
     * @throws IllegalArgumentException when the target's scheme is not {@code s3}, or its bucket or key
     *         is not valid
     */
    public static S3Location of(StorageTarget target) {
        if (!SCHEME.equals(target.scheme())) {
            throw new IllegalArgumentException(String.format("%s is not an s3:// target", target));
        }
        return parseLocation(target.location(), target.original());
    }

    /**
     * Parses {@code s3://bucket/key}.
     *
     * @throws IllegalArgumentException when the text is not an {@code s3://} URI with a valid bucket and key
     */
    public static S3Location parse(String uri) {
        if (uri == null || !uri.regionMatches(true, 0, "s3://", 0, 5)) {
            throw new IllegalArgumentException(String.format("'%s' is not an s3://bucket/key URI", uri));
        }
        return parseLocation(uri.substring(5), uri);
    }

    private static S3Location parseLocation(String location, String original) {
        int slash = location.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException(String.format("%s names a bucket but no object: use s3://bucket/key",
                    original));
        }
        String bucket = location.substring(0, slash);
        if (bucket.isEmpty()) {
            throw new IllegalArgumentException(String.format("%s names no bucket: use s3://bucket/key", original));
        }
        return new S3Location(bucket, decode(location.substring(slash + 1), original));
    }

    /** Why {@code name} is not a valid bucket name, or null when it is. */
    static String bucketProblem(String name) {
        if (name.length() < 3 || name.length() > 63) {
            return "it must be 3 to 63 characters long, it has " + name.length();
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-')) {
                return String.format("character '%c' at index %d: only lower-case letters, digits, '.' and '-' "
                        + "are allowed", c, i);
            }
        }
        if (!Character.isLetterOrDigit(name.charAt(0)) || !Character.isLetterOrDigit(name.charAt(name.length() - 1))) {
            return "it must start and end with a letter or a digit";
        }
        if (name.contains("..")) {
            return "it must not contain two adjacent periods";
        }
        if (name.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            return "it must not be formatted as an IP address";
        }
        return null;
    }

    /** Decodes percent-escapes ({@code %20} is a space; the bytes are read as UTF-8). */
    private static String decode(String raw, String original) {
        if (raw.indexOf('%') < 0) {
            return raw;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); ) {
            char c = raw.charAt(i);
            if (c == '%') {
                int hi = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
                int lo = hi < 0 ? -1 : Character.digit(raw.charAt(i + 2), 16);
                if (lo < 0) {
                    throw new IllegalArgumentException(String.format(
                            "bad URI %s: '%%' at index %d of the key is not followed by two hex digits", original, i));
                }
                bytes.write(hi * 16 + lo);
                i += 3;
            } else {
                int cp = raw.codePointAt(i);
                bytes.writeBytes(Character.toString(cp).getBytes(StandardCharsets.UTF_8));
                i += Character.charCount(cp);
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("bad URI " + original + ": the key's percent-escapes are not UTF-8", e);
        }
    }

    /** {@code s3://bucket/key}, with the key decoded. */
    @Override
    public String toString() {
        return "s3://" + bucket + "/" + key;
    }
}
