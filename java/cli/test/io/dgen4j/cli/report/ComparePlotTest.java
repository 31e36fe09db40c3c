package io.dgen4j.cli.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.cli.JsonRead;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code compare --plot} where the JDK has no fonts: the results print, one line on stderr says
 * why there is no plot, and no PNG (not even an empty one) is left. The fonts are hidden from a
 * child JVM by an empty tmpfs over /usr/share/fonts in a private mount namespace (unshare(1), as
 * root, as CI runs) and an empty fontconfig configuration.
 */
class ComparePlotTest {
    @TempDir
    Path dir;

    @Test
    void writesReplaceOnlyWhenCompleteAndLeaveNoTemporaryFile() throws IOException {
        Path png = dir.resolve("p.png");
        Files.writeString(png, "old");
        ComparePlot.writeAtomically(png, new byte[] {1, 2, 3});
        assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(png));
        assertEquals(List.of(png), list(dir));

        Path missing = dir.resolve("no-such-dir").resolve("p.png");
        IOException e = assertThrows(IOException.class, () -> ComparePlot.writeAtomically(missing, new byte[] {1}));
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
        assertEquals(List.of(png), list(dir), "nothing created");
    }

    @Test
    void fontFailuresAreNamed() {
        assertTrue(ComparePlot.fontsMissing(new Error("Probable fatal error: No physical fonts found.")));
        assertFalse(ComparePlot.fontsMissing(new IllegalArgumentException("Series data cannot be empty")));
    }

    @Test
    void withoutFontsCompareStillPrintsItsResultsAndLeavesNoPng() throws Exception {
        Path png = dir.resolve("compare.png");
        Result text = withoutFonts("compare", "--dir", dir.toString(), "--size", "8MiB", "--chunk", "4MiB",
                "--plot", png.toString());
        assertEquals(0, text.code(), text.err());
        assertTrue(text.out().contains("old (prealloc)") && text.out().contains("memory reduction: "), text.out());
        assertFalse(text.out().contains("plot: "), "no plot claimed: " + text.out());
        List<String> errLines = text.err().lines().filter(l -> !l.startsWith("WARNING:")).toList();
        assertEquals(1, errLines.size(), "one line about the plot: " + text.err());
        assertTrue(errLines.get(0).startsWith("dgen4j: cannot draw the plot " + png + ": "), errLines.get(0));
        assertTrue(errLines.get(0).contains("fonts"), errLines.get(0));
        assertEquals(List.of(), list(dir), "no PNG, no temporary file, no checkpoint left");

        Result json = withoutFonts("compare", "--dir", dir.toString(), "--size", "8MiB", "--chunk", "4MiB",
                "--plot", png.toString(), "--json");
        assertEquals(0, json.code(), json.err());
        Map<String, Object> m = JsonRead.object(json.out());
        assertTrue(m.containsKey("plot"));
        assertNull(m.get("plot"));
        assertTrue(((String) m.get("plotError")).contains("fonts"), json.out());
        assertTrue(m.get("streaming") instanceof Map, json.out());
        assertEquals(List.of(), list(dir));
    }

    record Result(int code, String out, String err) {}

    private Result withoutFonts(String... args) throws IOException, InterruptedException {
        String uid = new String(new ProcessBuilder("id", "-u").start().getInputStream().readAllBytes(),
                StandardCharsets.UTF_8).trim();
        if (!uid.equals("0")) {
            throw new AssertionError("this test hides the fonts with a tmpfs mounted in a private mount namespace "
                    + "and must run as root, as CI does; current uid is " + uid);
        }
        Path conf = Files.createTempFile("dgen4j-nofonts-", ".conf");
        Path outFile = Files.createTempFile("dgen4j-nofonts-", ".out");
        Path errFile = Files.createTempFile("dgen4j-nofonts-", ".err");
        try {
            Files.writeString(conf, "<?xml version=\"1.0\"?>\n<!DOCTYPE fontconfig SYSTEM \"fonts.dtd\">\n"
                    + "<fontconfig></fontconfig>\n");
            List<String> cmd = new ArrayList<>(List.of("unshare", "--mount", "--propagation", "private", "sh", "-c",
                    "mount -t tmpfs none /usr/share/fonts && exec \"$@\"", "sh",
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                    "io.dgen4j.cli.Main"));
            cmd.addAll(List.of(args));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(outFile.toFile()).redirectError(errFile.toFile());
            pb.environment().put("FONTCONFIG_FILE", conf.toString());
            Process p;
            try {
                p = pb.start();
            } catch (IOException e) {
                throw new AssertionError("unshare(1) from util-linux is needed to hide the fonts: " + e.getMessage(), e);
            }
            assertTrue(p.waitFor(180, TimeUnit.SECONDS), "the CLI did not finish");
            String err = Files.readString(errFile);
            if (err.contains("unshare:") || err.contains("mount:")) {
                throw new AssertionError("could not hide the fonts (unshare/mount as root): " + err);
            }
            return new Result(p.exitValue(), Files.readString(outFile), err);
        } finally {
            Files.deleteIfExists(conf);
            Files.deleteIfExists(outFile);
            Files.deleteIfExists(errFile);
        }
    }

    private static List<Path> list(Path d) throws IOException {
        try (Stream<Path> s = Files.list(d)) {
            return s.sorted().toList();
        }
    }
}
