package io.dgen4j.s3;

import io.dgen4j.storage.ConfigFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the two text files S3 settings come from besides the environment: a {@code .env} file
 * ({@code KEY=VALUE} lines) and the AWS shared credentials and config files (INI). Error messages
 * name the file and line, never a line's text (it may hold a secret).
 */
final class EnvFiles {
    private EnvFiles() {}

    /** The variables of a {@code .env} file; empty when there is none. */
    static Map<String, String> readDotEnv(Path file) {
        return read(file, ".env file").map(lines -> parseDotEnv(lines, file.toString())).orElse(Map.of());
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

    /**
     * The keys of one section of an INI file ({@code [name]}; {@code key = value}; {@code #} and
     * {@code ;} comments); empty when the file or the section is missing.
     */
    static Optional<Map<String, String>> iniSection(Path file, String what, String section) {
        return read(file, what).flatMap(lines -> parseIniSection(lines, section));
    }

    static Optional<Map<String, String>> parseIniSection(List<String> lines, String section) {
        Map<String, String> keys = null;
        boolean in = false;
        for (String raw : lines) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#") || line.startsWith(";")) {
                continue;
            }
            if (line.startsWith("[") && line.endsWith("]")) {
                in = line.substring(1, line.length() - 1).strip().equals(section);
                if (in && keys == null) {
                    keys = new LinkedHashMap<>();
                }
                continue;
            }
            int eq = line.indexOf('=');
            if (in && eq > 0) {
                keys.put(line.substring(0, eq).strip().toLowerCase(java.util.Locale.ROOT), line.substring(eq + 1).strip());
            }
        }
        return Optional.ofNullable(keys);
    }

    /**
     * The lines of {@code file} ({@code what} names it), empty when there is none; a file that is not a
     * regular UTF-8 file of at most {@link ConfigFiles#MAX_BYTES} is refused ({@link ConfigFiles#read}).
     */
    private static Optional<List<String>> read(Path file, String what) {
        try {
            return Optional.of(ConfigFiles.read(file.toAbsolutePath(), what).lines().toList());
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }
}
