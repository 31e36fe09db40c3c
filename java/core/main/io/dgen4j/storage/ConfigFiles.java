package io.dgen4j.storage;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads the small text files settings come from ({@code .env}, {@code S3_ENDPOINT_FILE}, a DLIO
 * workload YAML, the AWS credentials and config files): each must be a regular file (a symbolic link
 * to one is followed) of at most {@link #MAX_BYTES}, in UTF-8 without NUL bytes. Anything else is
 * refused without being opened, so a FIFO never blocks and {@code /dev/zero} never fills the heap;
 * every refusal names the file and what it is.
 *
 * {@snippet :
 * String yaml = ConfigFiles.read(Path.of("llama3_8b.yaml"), "--config");   // at most 1 MiB of UTF-8
 * }
 */
public final class ConfigFiles {
    /** The largest settings file read: 1 MiB (a DLIO workload is a few KiB, 4096 endpoints under 256 KiB). */
    public static final int MAX_BYTES = 1 << 20;

    private ConfigFiles() {}

    /**
     * The text of {@code file}; {@code what} names it in messages, followed by the path unless it
     * already ends with it (an option or variable, e.g. {@code S3_ENDPOINT_FILE}, or a description
     * such as {@code AWS credentials file}).
     *
     * @throws java.nio.file.NoSuchFileException when there is no such file
     * @throws IllegalArgumentException when it is not a regular file (a directory, FIFO, device, socket),
     *         is larger than {@link #MAX_BYTES}, or is not UTF-8 text
     * @throws IOException when it cannot be read (permissions, I/O error)
     */
    public static String read(Path file, String what) throws IOException {
        BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
        if (!a.isRegularFile()) {
            throw new IllegalArgumentException(String.format("%s is %s, not a regular file", name(what, file),
                    kind(file)));
        }
        if (a.size() > MAX_BYTES) {
            throw tooLarge(file, what, a.size());
        }
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(MAX_BYTES + 1);
        }
        if (bytes.length > MAX_BYTES) {
            throw tooLarge(file, what, bytes.length); // it grew while we looked
        }
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == 0) {
                throw notText(file, what, i);
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw notText(file, what, firstBadUtf8(bytes));
        }
    }

    /**
     * What {@code path} is, in words: {@code a regular file}, {@code a directory}, {@code a symbolic
     * link}, {@code a FIFO (named pipe)}, {@code a character device}, {@code a block device},
     * {@code a socket}; {@code nothing} when it does not exist. {@code options} as for
     * {@link Files#readAttributes(Path, String, LinkOption...)}.
     */
    public static String kind(Path path, LinkOption... options) {
        try {
            Object mode = Files.getAttribute(path, "unix:mode", options);
            if (mode instanceof Integer m) {
                return switch (m & 0170000) { // S_IFMT
                    case 0140000 -> "a socket";
                    case 0120000 -> "a symbolic link";
                    case 0100000 -> "a regular file";
                    case 0060000 -> "a block device";
                    case 0040000 -> "a directory";
                    case 0020000 -> "a character device";
                    case 0010000 -> "a FIFO (named pipe)";
                    default -> String.format(Locale.ROOT, "a file of type %o", m & 0170000);
                };
            }
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            // no unix view: the basic attributes below
        } catch (java.nio.file.NoSuchFileException e) {
            return "nothing";
        } catch (IOException e) {
            return "not readable (" + e.getMessage() + ")";
        }
        try {
            BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class, options);
            return a.isRegularFile() ? "a regular file" : a.isDirectory() ? "a directory"
                    : a.isSymbolicLink() ? "a symbolic link" : "a special file";
        } catch (IOException e) {
            return "nothing";
        }
    }

    private static IllegalArgumentException tooLarge(Path file, String what, long size) {
        return new IllegalArgumentException(String.format(Locale.ROOT, "%s is %d bytes: the limit for a settings "
                + "file is %d (1 MiB)", name(what, file), size, MAX_BYTES));
    }

    private static IllegalArgumentException notText(Path file, String what, int offset) {
        return new IllegalArgumentException(String.format(Locale.ROOT, "%s is not UTF-8 text (a binary byte at "
                + "offset %d)", name(what, file), offset));
    }

    private static String name(String what, Path file) {
        return what.endsWith(file.toString()) ? what : what + " " + file;
    }

    /** Offset of the first byte that does not start or continue a valid UTF-8 sequence. */
    private static int firstBadUtf8(byte[] b) {
        var decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(b);
        java.nio.CharBuffer out = java.nio.CharBuffer.allocate(Math.max(16, b.length));
        java.nio.charset.CoderResult r = decoder.decode(in, out, true);
        return r.isError() ? in.position() : b.length;
    }

    /**
     * The variables of a {@code .env} file ({@code KEY=VALUE} lines, as {@link #parseDotEnv}); empty
     * when there is none. Messages name the file and line, never a line's text (it may hold a secret).
     *
     * @throws IllegalArgumentException when a line is not {@code KEY=VALUE}, or the file is not a
     *         settings file ({@link #read})
     * @throws java.io.UncheckedIOException when it cannot be read
     */
    public static Map<String, String> readDotEnv(Path file) {
        String text;
        try {
            text = read(file.toAbsolutePath(), ".env file");
        } catch (java.nio.file.NoSuchFileException e) {
            return Map.of();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        return parseDotEnv(text.lines().toList(), file.toString());
    }

    /**
     * Parses {@code .env} lines: {@code KEY=VALUE}, optionally prefixed by {@code export }; blank
     * lines and {@code #} comments skipped; a value in single or double quotes is taken as is
     * (double quotes also take {@code \"}, {@code \\} and {@code \n}); an unquoted value ends at
     * {@code " #"} (a trailing comment).
     */
    static Map<String, String> parseDotEnv(List<String> lines, String where) {
        Map<String, String> vars = new LinkedHashMap<>();
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("export ") || line.startsWith("export\t")) {
                line = line.substring(7).strip();
            }
            int eq = line.indexOf('=');
            String key = eq < 0 ? "" : line.substring(0, eq).strip();
            if (!key.matches("[A-Za-z_][A-Za-z0-9_.]*")) {
                throw new IllegalArgumentException(String.format("%s line %d is not KEY=VALUE", where, n + 1));
            }
            vars.put(key, unquote(line.substring(eq + 1).strip(), where, n + 1));
        }
        return vars;
    }

    private static String unquote(String v, String where, int line) {
        if (v.isEmpty()) {
            return v;
        }
        char q = v.charAt(0);
        if (q == '"' || q == '\'') {
            StringBuilder out = new StringBuilder(v.length());
            for (int i = 1; i < v.length(); i++) {
                char c = v.charAt(i);
                if (c == q) {
                    String rest = v.substring(i + 1).strip();
                    if (!rest.isEmpty() && !rest.startsWith("#")) {
                        throw new IllegalArgumentException(String.format("%s line %d: text after the closing quote",
                                where, line));
                    }
                    return out.toString();
                }
                if (q == '"' && c == '\\' && i + 1 < v.length()) {
                    char e = v.charAt(++i);
                    out.append(e == 'n' ? '\n' : e);
                } else {
                    out.append(c);
                }
            }
            throw new IllegalArgumentException(String.format("%s line %d: the value's quote is not closed", where, line));
        }
        int comment = v.indexOf(" #");
        return (comment < 0 ? v : v.substring(0, comment)).strip();
    }
}
