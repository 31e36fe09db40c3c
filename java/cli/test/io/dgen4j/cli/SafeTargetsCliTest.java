package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code save} and {@code load} of targets that are not regular files: one line naming the target and
 * what it is, exit 2, nothing changed; {@code save /dev/null} as root in a private mount namespace
 * whose {@code /dev} is a fresh tmpfs (the host's {@code /dev/null} is never at stake).
 */
class SafeTargetsCliTest {
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    @TempDir
    Path dir;

    @Test
    void specialFilesAndLinksAreRefusedByName() throws Exception {
        MisuseTest.exec("mknod", dir.resolve("null").toString(), "c", "1", "3");
        MisuseTest.exec("mkfifo", dir.resolve("fifo").toString());
        Files.createDirectory(dir.resolve("dir"));
        Files.writeString(dir.resolve("real.bin"), "x");
        Files.createSymbolicLink(dir.resolve("link"), Path.of("real.bin"));
        try (ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            s.bind(UnixDomainSocketAddress.of(dir.resolve("sock")));
            Map<String, String> kinds = Map.of("null", "is a character device, not a regular file",
                    "fifo", "is a FIFO (named pipe), not a regular file", "sock", "is a socket, not a regular file",
                    "dir", "is a directory, not a regular file", "link", "is a symbolic link (to real.bin): a save or "
                            + "delete does not follow links");
            for (var k : kinds.entrySet()) {
                String target = dir.resolve(k.getKey()).toString();
                // a load follows a link (to real.bin, which is no checkpoint: exit 3 there, not a refusal)
                for (List<String> args : k.getKey().equals("link") ? List.of(List.of("save", target, "--size", "1MiB"))
                        : List.of(List.of("save", target, "--size", "1MiB"), List.of("load", target),
                        List.of("load", target, "--verify"))) {
                    CliRun r = CliRun.of(Map.of(), args.toArray(String[]::new));
                    assertEquals(2, r.code(), args + ": " + r.err());
                    assertTrue(r.err().startsWith("dgen4j: " + target + " " + k.getValue()), args + ": " + r.err());
                    assertEquals(1, r.err().lines().count(), r.err());
                }
            }
        }
        assertEquals("x", Files.readString(dir.resolve("real.bin")));
        assertTrue(Files.isSymbolicLink(dir.resolve("link")));
        assertEquals("character special file", MisuseTest.exec("stat", "-c", "%F", dir.resolve("null").toString()).strip());
        assertEquals("fifo", MisuseTest.exec("stat", "-c", "%F", dir.resolve("fifo").toString()).strip());
    }

    @Test
    void saveToDevNullAsRootLeavesItADevice() throws Exception {
        String uid = MisuseTest.uid();
        assertEquals("0", uid, "this test makes a private mount namespace (unshare -m) and must run as root, as CI "
                + "does");
        // In the namespace, /dev is a tmpfs with the four nodes a JVM opens: a regression would replace the
        // namespace's /dev/null, never the host's.
        String script = "mount -t tmpfs -o size=64m,mode=755 tmpfs /dev && mknod -m 666 /dev/null c 1 3 "
                + "&& mknod -m 666 /dev/zero c 1 5 && mknod -m 666 /dev/random c 1 8 && mknod -m 666 /dev/urandom c 1 9 "
                + "&& \"$@\" 2>" + dir.resolve("err") + "; rc=$?; stat -c %F /dev/null; exit $rc";
        List<String> cmd = new ArrayList<>(List.of("unshare", "-m", "--propagation", "private", "bash", "-c", script,
                "bash", JAVA, "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "save", "/dev/null", "--size", "8MiB"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "hung");
        String err = Files.readString(dir.resolve("err"));
        assertEquals(2, p.exitValue(), err + out);
        assertEquals("dgen4j: /dev/null is a character device, not a regular file: a checkpoint is a regular file (or, "
                + "for a save, a name not yet taken)\n", err);
        assertEquals("character special file", out.strip());
    }

    @Test
    void aLoadThroughASymbolicLinkVerifiesTheFileItNames() throws Exception {
        String real = dir.resolve("ckpt-100.bin").toString();
        CliRun saved = CliRun.of(Map.of(), "save", real, "--size", "1MiB", "--json");
        assertEquals(0, saved.code(), saved.err());
        Files.createSymbolicLink(dir.resolve("latest.bin"), Path.of("ckpt-100.bin"));
        CliRun loaded = CliRun.of(Map.of(), "load", dir.resolve("latest.bin").toString(), "--verify", "--json");
        assertEquals(0, loaded.code(), loaded.err());
        assertTrue(loaded.out().contains("\"verified\":true") || loaded.out().contains("\"verified\": true"),
                loaded.out());
        assertTrue(Files.isSymbolicLink(dir.resolve("latest.bin")));
    }
}
