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
 * Reads the AWS shared credentials and config files (INI) that S3 settings come from besides the
 * environment and the {@code .env} file ({@link ConfigFiles#readDotEnv}). Error messages name the
 * file and line, never a line's text (it may hold a secret).
 */
final class EnvFiles {
    private EnvFiles() {}

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
