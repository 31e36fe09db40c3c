package io.dgen4j.cli.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.cli.JsonRead;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The progress bar policy: drawn only when stderr is a terminal (whatever stdin and stdout are),
 * never with {@code --no-progress}; checked on real pseudo-terminals with {@code script(1)}.
 */
class ProgressTest {
    @TempDir
    Path dir;

    @Test
    void drawsOnlyWhenWantedOnATerminalWithSomethingToCount() {
        assertTrue(Progress.shouldDraw(true, true, 1));
        assertFalse(Progress.shouldDraw(false, true, 1), "--no-progress");
        assertFalse(Progress.shouldDraw(true, false, 1), "stderr not a terminal");
        assertFalse(Progress.shouldDraw(true, true, 0), "nothing to count");
    }

    @Test
    void aBarDrawsThenErasesItself() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        try (Progress p = new Progress(err, "save", 1000, true, true)) {
            assertTrue(p.enabled());
            p.update(1000);
        }
        String s = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(s.startsWith("\rsave [" + "#".repeat(30) + "] 100.0% "), s);
        assertTrue(s.endsWith("\r" + " ".repeat(90) + "\r"), s);

        bytes.reset();
        try (Progress p = new Progress(err, "save", 1000, true, false)) {
            assertFalse(p.enabled());
            p.update(1000);
        }
        assertEquals("", bytes.toString(StandardCharsets.UTF_8), "no terminal: nothing drawn");
    }

    @Test
    void terminalDevicesAreRecognisedByTheirProcLink() {
        assertTrue(Terminal.isTerminalDevice("/dev/pts/3"));
        assertTrue(Terminal.isTerminalDevice("/dev/tty1"));
        assertTrue(Terminal.isTerminalDevice("/dev/console"));
        assertFalse(Terminal.isTerminalDevice("pipe:[12345]"));
        assertFalse(Terminal.isTerminalDevice("/dev/null"));
        assertFalse(Terminal.isTerminalDevice("/tmp/err.txt"));
        // isatty and the /proc fallback agree on this JVM's stderr (a pipe under surefire)
        assertEquals(Terminal.procLinkIsTerminal(Terminal.STDERR), Terminal.isTerminal(Terminal.STDERR));
        assertFalse(Terminal.isTerminal(Terminal.STDERR), "surefire's stderr is a pipe");
    }

    @Test
    void stderrOnATerminalGetsTheBarEvenWithStdoutRedirected() throws Exception {
        Path out = dir.resolve("out.json");
        String pty = onPty(cli("generate --size 64MiB --seed 1 --json") + " > " + quote(out));
        assertTrue(pty.contains("\rgenerate [" + "#".repeat(30) + "] 100.0%"), "bar on the terminal: " + pty);
        assertTrue(pty.endsWith("\r" + " ".repeat(90) + "\r"), "erased at the end: " + pty);
        String json = Files.readString(out);
        assertEquals(67108864L, JsonRead.object(json).get("bytes"), json);
        assertFalse(json.contains("\r"), json);
    }

    @Test
    void noProgressTurnsTheBarOff() throws Exception {
        for (String cmd : List.of("generate --size 64MiB --seed 1 --no-progress",
                "save " + quote(dir.resolve("c.bin")) + " --size 16MiB --chunk 4MiB --no-progress",
                "load " + quote(dir.resolve("c.bin")) + " --verify --chunk 4MiB --no-progress")) {
            String pty = onPty(cli(cmd) + " > /dev/null");
            assertFalse(pty.contains("\r"), cmd + " drew: " + pty);
        }
    }

    @Test
    void stderrRedirectedGetsNoBarEvenWithStdinAndStdoutOnATerminal() throws Exception {
        Path err = dir.resolve("err.txt");
        String pty = onPty(cli("generate --size 64MiB --seed 1") + " 2> " + quote(err));
        assertTrue(pty.contains("generated 64.00 MiB"), "the report on the terminal: " + pty);
        assertFalse(pty.contains("generate ["), pty);
        String e = Files.readString(err);
        assertFalse(e.contains("\r") || e.contains("generate ["), "bar in a redirected stderr: " + e);
    }

    /** A shell command running the CLI in a fresh JVM on this test's class path. */
    private static String cli(String args) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return quote(java) + " --enable-native-access=ALL-UNNAMED -cp " + quote(System.getProperty("java.class.path"))
                + " io.dgen4j.cli.Main " + args;
    }

    /** Runs {@code command} with stdin, stdout and stderr on a new pseudo-terminal; returns what the terminal showed. */
    private String onPty(String command) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder("script", "-q", "-e", "-c", command, "/dev/null")
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        } catch (IOException e) {
            throw new AssertionError("this test runs the CLI on a pseudo-terminal with script(1) from util-linux "
                    + "(Debian: bsdutils), which could not be started: " + e.getMessage(), e);
        }
        byte[] shown = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "script(1) did not finish: " + command);
        String s = new String(shown, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), "exit status of " + command + ": " + s);
        return s;
    }

    private static String quote(Object s) {
        return "'" + s.toString().replace("'", "'\\''") + "'";
    }
}
