package io.dgen4j.storage;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Where a checkpoint lives, parsed from what a user types: a plain path or {@code file://} (file
 * backend, O_DIRECT where possible) or {@code direct://} (file backend, O_DIRECT demanded).
 *
 * {@snippet :
 * StorageTarget t = StorageTarget.parse("direct:///nvme/ckpt.bin");   // path /nvme/ckpt.bin, O_DIRECT required
 * }
 *
 * @param scheme   the backend family
 * @param path     the file path
 * @param original the text it was parsed from
 */
public record StorageTarget(Scheme scheme, Path path, String original) {
    /** Backend families. */
    public enum Scheme {
        /** Local file, O_DIRECT where the filesystem allows it. */
        FILE,
        /** Local file, O_DIRECT demanded. */
        DIRECT
    }

    /** Parses a path or a {@code file://} / {@code direct://} URI. */
    public static StorageTarget parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("target must be a path or a file:// or direct:// URI, got nothing");
        }
        int sep = text.indexOf("://");
        if (sep < 0) {
            return new StorageTarget(Scheme.FILE, Path.of(text).toAbsolutePath(), text);
        }
        String scheme = text.substring(0, sep).toLowerCase(Locale.ROOT);
        Scheme s = switch (scheme) {
            case "file" -> Scheme.FILE;
            case "direct" -> Scheme.DIRECT;
            default -> throw new IllegalArgumentException(String.format(
                    "no storage backend for '%s://' in %s (supported: a path, file://, direct://)", scheme, text));
        };
        String rest = text.substring(sep + 3);
        try {
            // file:///abs/path and direct:///abs/path; also direct://relative/path for convenience
            String p = rest.startsWith("/") ? new URI("file", "", rest, null).getPath() : rest;
            return new StorageTarget(s, Path.of(p).toAbsolutePath(), text);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("bad URI " + text + ": " + e.getMessage(), e);
        }
    }

    /** The options to use for this target, given the user's defaults. */
    public FileOptions options(FileOptions base) {
        return scheme == Scheme.DIRECT ? base.withDirect(FileOptions.Direct.REQUIRE) : base;
    }

    @Override
    public String toString() {
        return original;
    }
}
