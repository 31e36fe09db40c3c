package io.dgen4j.storage;

import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Where a checkpoint lives, parsed from what a user types: a plain path or {@code file://} (file
 * backend, O_DIRECT where possible) or {@code direct://} (file backend, O_DIRECT demanded), or
 * {@code scheme://location} for another backend ({@code s3://bucket/key}), which that backend
 * checks when it opens the target ({@link StorageProviders}).
 *
 * <p>URIs follow RFC 8089: {@code file:///abs/path} or {@code file://localhost/abs/path}, with
 * percent-escapes decoded ({@code file:///tmp/a%20b} is {@code /tmp/a b}); another host is refused,
 * since the file backend is local. {@code direct://} takes the same forms, and also a relative path
 * ({@code direct://ckpt.bin}). A target is a file: a trailing {@code /}, {@code .} or {@code ..} is
 * refused, and so is a name whose derived names (temporary file, manifest) exceed
 * {@link #NAME_MAX} bytes.
 *
 * {@snippet :
 * StorageTarget t = StorageTarget.parse("direct:///nvme/ckpt.bin");   // path /nvme/ckpt.bin, O_DIRECT required
 * }
 *
 * @param scheme   the URI scheme, lower case: {@code file} for plain paths
 * @param location for {@code file} and {@code direct}, the absolute path; else the text after
 *                 {@code ://}
 * @param original the text it was parsed from
 */
public record StorageTarget(String scheme, String location, String original) {
    /** The scheme of plain paths and {@code file://} URIs. */
    public static final String FILE = "file";
    /** The scheme of {@code direct://} URIs: a local file, O_DIRECT demanded. */
    public static final String DIRECT = "direct";

    /** Longest file name, in bytes, that Linux file systems take (NAME_MAX). */
    public static final int NAME_MAX = 255;
    /**
     * Bytes the file backend adds to a target's name for its derived names; the longest is the
     * manifest's temporary file {@code .<name>.manifest.json.dgen4j-<pid>-<8 hex>.tmp}: 1 + 14 + 8
     * + 7 (pid_max is at most 2^22, 7 digits) + 1 + 8 + 4 = 43 bytes (the data's temporary file
     * adds 29, the lock file {@code .<name>.dgen4j.lock} 13, the manifest 14).
     */
    public static final int DERIVED_NAME_OVERHEAD = 43;

    /**
     * Parses a path or a {@code file://} / {@code direct://} URI.
     *
     * @throws IllegalArgumentException when the text is empty, names another host or a directory, is
     *         not a valid path, or its file name (with the derived names) is too long
     */
    public static StorageTarget parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("target must be a path or a file:// or direct:// URI, got nothing");
        }
        int sep = text.indexOf("://");
        if (sep < 0) {
            return of(FILE, text, text);
        }
        String s = text.substring(0, sep).toLowerCase(Locale.ROOT);
        if (!s.matches("[a-z][a-z0-9+.-]*")) {
            throw new IllegalArgumentException(Secrets.mask(String.format("bad URI %s: '%s' is not a URI scheme", text,
                    text.substring(0, sep))));
        }
        if (Secrets.hasUserInfo(text)) {
            // never echoed: the user info may hold a password or secret key
            throw new IllegalArgumentException(String.format("target %s carries user info (user:secret@): credentials "
                    + "never go in a target; set them in the environment or a profile", Secrets.mask(text)));
        }
        String rest = text.substring(sep + 3);
        if (!s.equals(FILE) && !s.equals(DIRECT)) {
            return new StorageTarget(s, rest, text); // its backend checks the rest
        }
        String path;
        if (rest.isEmpty() || rest.equalsIgnoreCase("localhost")) {
            path = "";
        } else if (rest.startsWith("/")) {
            path = decode(rest, text);
        } else if (rest.regionMatches(true, 0, "localhost/", 0, 10)) {
            path = decode(rest.substring(9), text);
        } else if (s.equals(FILE)) {
            int slash = rest.indexOf('/');
            String host = slash < 0 ? rest : rest.substring(0, slash);
            throw new IllegalArgumentException(String.format("%s names host '%s': the file backend is local; use "
                    + "file:///path or file://localhost/path", text, host));
        } else {
            path = decode(rest, text); // direct://relative/path, for convenience
        }
        return of(s, path, text);
    }

    private static StorageTarget of(String scheme, String path, String original) {
        if (path.isEmpty()) {
            throw new IllegalArgumentException("target " + original + " names no file");
        }
        if (path.endsWith("/")) {
            throw new IllegalArgumentException("target " + original + " ends with '/': a checkpoint target is a file, "
                    + "not a directory");
        }
        Path p;
        try {
            p = Path.of(path).toAbsolutePath();
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("target " + original + " is not a valid path: " + e.getReason(), e);
        }
        String name = p.getFileName() == null ? "" : p.getFileName().toString();
        if (name.isEmpty() || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("target " + original + " names a directory: a checkpoint target is a file");
        }
        checkNameLength(p, DERIVED_NAME_OVERHEAD);
        return new StorageTarget(scheme, p.toString(), original);
    }

    /** Whether this is a local file ({@code file} or {@code direct}). */
    public boolean isFile() {
        return scheme.equals(FILE) || scheme.equals(DIRECT);
    }

    /**
     * The local path of a {@code file} or {@code direct} target.
     *
     * @throws IllegalStateException for another scheme
     */
    public Path path() {
        if (!isFile()) {
            throw new IllegalStateException(original + " is not a local file");
        }
        return Path.of(location);
    }

    /**
     * Refuses a path whose file name, plus {@code overhead} bytes of derived names, exceeds
     * {@link #NAME_MAX} bytes of UTF-8 (the encoding of file names on Linux here).
     *
     * @throws IllegalArgumentException naming the limit and the name's length
     */
    public static void checkNameLength(Path path, int overhead) {
        Path file = path.getFileName();
        int bytes = file == null ? 0 : file.toString().getBytes(StandardCharsets.UTF_8).length;
        if (bytes + overhead > NAME_MAX) {
            throw new IllegalArgumentException(overhead == 0
                    ? String.format("file name of %s is %d bytes: the limit is %d", path, bytes, NAME_MAX)
                    : String.format("file name of %s is %d bytes: with its temporary and manifest names (up to %d "
                            + "bytes more) it must be at most %d bytes", path, bytes, overhead, NAME_MAX - overhead));
        }
    }

    /** Decodes the percent-escapes of a URI path ({@code %20} is a space; bytes read as UTF-8). */
    private static String decode(String rawPath, String original) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(rawPath.length());
        for (int i = 0; i < rawPath.length(); ) {
            char c = rawPath.charAt(i);
            if (c == '%') {
                int hi = i + 2 < rawPath.length() ? Character.digit(rawPath.charAt(i + 1), 16) : -1;
                int lo = hi < 0 ? -1 : Character.digit(rawPath.charAt(i + 2), 16);
                if (lo < 0) {
                    throw new IllegalArgumentException(String.format(
                            "bad URI %s: '%%' at index %d is not followed by two hex digits", original, i));
                }
                bytes.write(hi * 16 + lo);
                i += 3;
            } else {
                int cp = rawPath.codePointAt(i);
                bytes.writeBytes(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
                i += Character.charCount(cp);
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new IllegalArgumentException("bad URI " + original + ": its percent-escapes are not UTF-8", e);
        }
    }


    @Override
    public String toString() {
        return original;
    }
}
