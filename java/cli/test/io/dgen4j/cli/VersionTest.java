package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code dgen4j --version} prints the pom's version, read from the resource Maven filtered. */
class VersionTest {

    @Test
    void versionIsThePomVersion() {
        String expected = System.getProperty("dgen4j.test.version");
        assertNotNull(expected, "surefire passes the pom's version as dgen4j.test.version");
        assertTrue(!expected.isBlank() && !expected.contains("${"), expected);
        CliTest.Result r = CliTest.run("--version");
        assertEquals(0, r.code(), r.err());
        assertEquals("dgen4j " + expected, r.out().strip());
        assertEquals(Optional.of(expected), BuildVersion.version());
        // every subcommand's --version says the same
        assertEquals("dgen4j " + expected, CliTest.run("save", "--version").out().strip());
    }

    @Test
    void anUnfilteredOrEmptyResourceIsNoVersion() throws IOException {
        assertEquals(Optional.empty(), parse("version=${project.version}\n"));
        assertEquals(Optional.empty(), parse("version=\n"));
        assertEquals(Optional.empty(), parse("# nothing\n"));
        assertEquals(Optional.of("1.2.3"), parse("version = 1.2.3 \n"));
    }

    private static Optional<String> parse(String text) throws IOException {
        return BuildVersion.parse(new ByteArrayInputStream(text.getBytes(StandardCharsets.ISO_8859_1)));
    }
}
