package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Misuse that needs a real process: stdout closed by the shell ({@code >&-}), the C locale through
 * the {@code dgen4j} launcher, and a full disk under {@code generate --out}.
 */
class MisuseProcessTest {
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    @TempDir
    Path dir;

    record Proc(int code, String out, String err) {}

    /** Runs {@code cmd} under bash with {@code redirect} (e.g. {@code >&-}) and the given environment changes. */
    Proc bash(String redirect, Map<String, String> env, List<String> cmd) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>(List.of("bash", "-c", "exec \"$@\" " + redirect, "bash"));
        full.addAll(cmd);
        ProcessBuilder pb = new ProcessBuilder(full).directory(dir.toFile());
        pb.environment().putAll(env);
        Path out = dir.resolve("proc.out");
        Path err = dir.resolve("proc.err");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        p.getOutputStream().close();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("hung: " + cmd);
        }
        return new Proc(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    /** The CLI on this test's class path, in a JVM that writes any crash report into {@link #dir}. */
    List<String> cli(String... args) {
        List<String> cmd = new ArrayList<>(List.of(JAVA, "--enable-native-access=ALL-UNNAMED",
                "-XX:ErrorFile=" + dir.resolve("hs_err.log"), "-cp", System.getProperty("java.class.path"),
                Main.class.getName()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    @Test
    void closedStdoutIsOneLineAndExitThreeNeverACrash() throws Exception {
        Proc gen = bash(">&-", Map.of(), cli("generate", "--size", "1MiB", "--out", "-"));
        assertEquals(3, gen.code(), gen.err());
        assertEquals("dgen4j: writing standard output failed at byte offset 0: Bad file descriptor\n", gen.err());
        for (List<String> args : List.of(List.of("info", "--json"), List.of("info"), List.of("--version"),
                List.of("save", dir.resolve("c.bin").toString(), "--size", "64KiB", "--chunk", "64KiB"))) {
            Proc p = bash(">&-", Map.of(), cli(args.toArray(String[]::new)));
            assertEquals(3, p.code(), args + ": " + p.err());
            assertEquals("dgen4j: cannot write to standard output (closed, or the reader went away)\n", p.err(),
                    args.toString());
        }
        // A reader that goes away: one line, exit 3.
        Proc pipe = bash("", Map.of(), List.of("bash", "-c", String.join(" ", cli("generate", "--size", "256MiB",
                "--out", "-").stream().map(a -> "'" + a + "'").toList()) + " | head -c 10 >/dev/null; exit ${PIPESTATUS[0]}"));
        assertEquals(3, pipe.code(), pipe.err());
        assertTrue(pipe.err().matches("dgen4j: writing standard output failed at byte offset \\d+: Broken pipe\n"),
                pipe.err());
        assertFalse(Files.exists(dir.resolve("hs_err.log")), "the JVM crashed");
    }

    /**
     * The launcher under LANG=C LC_ALL=C: a non-ASCII path works. The launcher is run as it is, next
     * to a jar whose manifest points at this test's class path (the real jar is built after the tests).
     */
    @Test
    void nonAsciiPathsWorkUnderTheCLocaleThroughTheLauncher() throws Exception {
        Path root = Path.of("").toAbsolutePath();
        Path home = Files.createDirectories(dir.resolve("home"));
        Files.copy(root.resolve("dgen4j"), home.resolve("dgen4j"));
        Files.createDirectories(home.resolve("scripts"));
        Files.copy(root.resolve("scripts/find-jdk.sh"), home.resolve("scripts/find-jdk.sh"));
        Files.createDirectories(home.resolve("java/cli/target"));
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().put(Attributes.Name.MAIN_CLASS, Main.class.getName());
        StringBuilder cp = new StringBuilder();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            cp.append(Path.of(e).toUri()).append(' ');
        }
        m.getMainAttributes().put(Attributes.Name.CLASS_PATH, cp.toString().trim());
        try (JarOutputStream j = new JarOutputStream(Files.newOutputStream(home.resolve("java/cli/target/dgen4j-cli-test-all.jar")), m)) {
            j.flush();
        }
        String locales = MisuseTest.exec("locale", "-a");
        assertTrue(locales.lines().anyMatch(l -> l.equalsIgnoreCase("C.UTF-8") || l.equalsIgnoreCase("C.utf8")),
                "this test needs the C.UTF-8 locale (glibc 2.35+ has it built in); locale -a lists: " + locales);
        Path target = dir.resolve("\u00e9t\u00e9 \u2603.bin");
        Map<String, String> c = Map.of("LANG", "C", "LC_ALL", "C", "JAVA_HOME", System.getProperty("java.home"));
        Proc save = bash("", c, List.of("bash", home.resolve("dgen4j").toString(), "save", target.toString(),
                "--size", "64KiB", "--chunk", "64KiB", "--seed", "3"));
        assertEquals(0, save.code(), save.err());
        assertTrue(save.out().contains(target.toString()), save.out());
        assertEquals(64 << 10, Files.size(target));
        Proc load = bash("", c, List.of("bash", home.resolve("dgen4j").toString(), "load", target.toString(),
                "--verify", "--chunk", "64KiB"));
        assertEquals(0, load.code(), load.err());
        // Without the launcher's fix the JVM cannot name the file, and says so in one line.
        Proc bare = bash("", c, cli("save", target.toString(), "--size", "64KiB", "--chunk", "64KiB"));
        assertEquals(2, bare.code(), bare.err());
        assertTrue(bare.err().startsWith("dgen4j: target ") && bare.err().endsWith("is not a valid path: Malformed "
                + "input or input contains unmappable characters\n"), bare.err());
    }

    /** generate --out on a full disk names the file and the offset and removes the partial output. */
    @Test
    void generateOnAFullDiskSaysWhereAndRemovesThePartialFile() throws Exception {
        String uid = MisuseTest.uid();
        assertEquals("0", uid, "this test mounts a 1 MiB tmpfs and must run as root, as CI does");
        Path mnt = Files.createDirectories(dir.resolve("full"));
        MisuseTest.exec("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt.toString());
        try {
            Path out = mnt.resolve("data.bin");
            StringWriter o = new StringWriter();
            StringWriter e = new StringWriter();
            int code = Main.run(new String[] {"generate", "--size", "4MiB", "--chunk", "256KiB", "--seed", "1",
                    "--out", out.toString()}, new PrintWriter(o, true), new PrintWriter(e, true));
            assertEquals(3, code, e.toString());
            assertTrue(e.toString().matches("dgen4j: writing \\Q" + out + "\\E failed at byte offset \\d+: "
                    + "No space left on device\n"), e.toString());
            try (Stream<Path> s = Files.list(mnt)) {
                assertEquals(List.of(), s.toList(), "the partial output is removed");
            }
        } finally {
            MisuseTest.exec("umount", mnt.toString());
        }
    }
}
