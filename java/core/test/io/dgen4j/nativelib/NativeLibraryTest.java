package io.dgen4j.nativelib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The loader in fresh JVMs: bundled resource, explicit path, disabled, broken, demanded. */
class NativeLibraryTest {

    record Run(String out, String err) {
        String value(String key) {
            return out.lines().filter(l -> l.startsWith(key + "=")).map(l -> l.substring(key.length() + 1))
                    .findFirst().orElseThrow(() -> new AssertionError("no " + key + " in:\n" + out + "\n" + err));
        }

        long count(String text) {
            return (out + err).lines().filter(l -> l.contains(text)).count();
        }
    }

    static Run probe(String... props) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.addAll(List.of(props));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(LoaderProbe.class.getName());
        Process p = new ProcessBuilder(cmd).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        byte[] err = p.getErrorStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "probe JVM did not finish");
        assertEquals(0, p.exitValue(), new String(err, StandardCharsets.UTF_8));
        return new Run(new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    }

    @Test
    void bundledLibraryIsExtractedLoadedAndCleanedUp(@TempDir Path tmp) throws Exception {
        Run r = probe("-D" + NativeLibrary.PROP_TMPDIR + "=" + tmp);
        assertEquals("true", r.value("available"));
        assertEquals(NativeLibrary.resourcePath(), r.value("source"));
        assertEquals("native", r.value("impl"));
        try (Stream<Path> left = Files.list(tmp)) {
            assertEquals(List.of(), left.toList(), "extraction left files behind");
        }
    }

    @Test
    void explicitPathIsLoaded() throws Exception {
        Path lib = Path.of(System.getProperty("dgen4j.test.nativeLib"));
        assertTrue(Files.isRegularFile(lib), "the cargo build did not produce " + lib);
        Run r = probe("-D" + NativeLibrary.PROP_PATH + "=" + lib);
        assertEquals("true", r.value("available"));
        assertEquals(lib.toAbsolutePath().toString(), r.value("source"));
        assertEquals("native", r.value("impl"));
    }

    @Test
    void brokenPathFallsBackToTheTwinWithOneWarning(@TempDir Path tmp) throws Exception {
        Path bogus = tmp.resolve("libdgen4j.so");
        Files.writeString(bogus, "not an ELF file");
        Run r = probe("-D" + NativeLibrary.PROP_PATH + "=" + bogus);
        assertEquals("false", r.value("available"));
        String failure = r.value("failure");
        for (String expected : List.of(NativeLibrary.platform(), "os.arch=", bogus.toString(),
                NativeLibrary.PROP_PATH, NativeLibrary.PROP_DISABLE + "=true")) {
            assertTrue(failure.contains(expected), "failure message lacks '" + expected + "': " + failure);
        }
        assertEquals("java-scalar", r.value("impl"), "no --add-modules in the probe JVM: the scalar twin");
        assertEquals(1, r.count("Using the pure-Java generator"), "expected exactly one warning:\n" + r.err());
    }

    @Test
    void missingPathIsNamed() throws Exception {
        Run r = probe("-D" + NativeLibrary.PROP_PATH + "=/nonexistent/libdgen4j.so");
        assertTrue(r.value("failure").contains("no such file: /nonexistent/libdgen4j.so"), r.value("failure"));
        assertEquals("java-scalar", r.value("impl"), "no --add-modules in the probe JVM: the scalar twin");
    }

    @Test
    void disabledUsesTheTwinWithoutWarning() throws Exception {
        Run r = probe("-D" + NativeLibrary.PROP_DISABLE + "=true");
        assertEquals("false", r.value("available"));
        assertEquals("java-scalar", r.value("impl"), "no --add-modules in the probe JVM: the scalar twin");
        assertEquals(0, r.count("WARN"), r.err());
    }

    @Test
    void demandedNativeFailsLoudly() throws Exception {
        Run r = probe("-D" + NativeLibrary.PROP_PATH + "=/nonexistent/libdgen4j.so",
                "-D" + NativeLibrary.PROP_REQUIRE + "=true");
        String error = r.value("error");
        assertTrue(error.startsWith("java.lang.LinkageError: dgen4j: cannot load the native core for "), error);
        assertEquals(0, r.count("impl="));
    }

    @Test
    void unwritableTmpdirIsReported(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("a-file");
        Files.writeString(file, "x");
        Run r = probe("-D" + NativeLibrary.PROP_TMPDIR + "=" + file.resolve("sub"));
        assertEquals("false", r.value("available"));
        assertTrue(r.value("failure").contains("jar resource " + NativeLibrary.resourcePath()), r.value("failure"));
        assertEquals("java-scalar", r.value("impl"), "no --add-modules in the probe JVM: the scalar twin");
    }
}
