package io.dgen4j.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.Properties;

/**
 * The project version, from {@code version.properties} next to this class, which Maven's resource
 * filtering fills with the pom's version: the same in the library jar, the shaded CLI jar and
 * {@code target/classes} (tests run in-process), unlike a jar manifest's Implementation-Version.
 */
public final class BuildVersion {
    static final String RESOURCE = "version.properties";

    private BuildVersion() {}

    /** The line {@code dgen4j --version} prints, e.g. {@code dgen4j 0.1.0-SNAPSHOT}. */
    static String line() {
        return "dgen4j " + version().orElse("(version unknown: built without Maven's resource filtering)");
    }

    /** The version, or empty when the resource is missing or was not filtered. */
    public static Optional<String> version() {
        try (InputStream in = BuildVersion.class.getResourceAsStream(RESOURCE)) {
            return in == null ? Optional.empty() : parse(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE + " from the dgen4j jar: " + e.getMessage(), e);
        }
    }

    static Optional<String> parse(InputStream in) throws IOException {
        Properties p = new Properties();
        p.load(in);
        String v = p.getProperty("version", "").trim();
        // an unfiltered copy still holds the placeholder
        return v.isEmpty() || v.contains("${") ? Optional.empty() : Optional.of(v);
    }
}
