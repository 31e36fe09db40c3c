package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A failure the CLI reports in one line is that one line on stderr, with no library log line before
 * it (a save to a closed port printed {@code [main] WARN io.dgen4j.s3.internal.Requests - S3 endpoint
 * ... marked down} first); {@code --verbose} adds the library's warnings. A real process, so that the
 * logging is configured as {@link Main#main} configures it.
 */
class LibraryLogCliTest {
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    @TempDir
    Path dir;

    record Proc(int code, String err) {}

    private Proc save(String backend, int port, boolean verbose) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(JAVA, "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow", "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "save", "s3://bkt/k", "--size", "8MiB", "--chunk", "8MiB", "--backend", backend,
                "--no-progress"));
        if (verbose) {
            cmd.add("--verbose");
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("AWS_") || k.startsWith("S3_") || k.startsWith("DGEN4J_"));
        pb.environment().put("AWS_ACCESS_KEY_ID", "ak");
        pb.environment().put("AWS_SECRET_ACCESS_KEY", "sk");
        pb.environment().put("AWS_REGION", "us-east-1");
        pb.environment().put("AWS_ENDPOINT_URL", "http://127.0.0.1:" + port);
        Path err = dir.resolve(backend + (verbose ? ".verbose" : "") + ".err");
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(err.toFile());
        Process p = pb.start();
        p.getOutputStream().close();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("hung: " + cmd);
        }
        return new Proc(p.exitValue(), Files.readString(err));
    }

    /** A port of 127.0.0.1 nothing listens on: bound, then closed. */
    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"aws", "crt", "minio"})
    void aSaveToAClosedPortIsOneLineAndVerboseAddsTheMarkedDownWarning(String backend) throws Exception {
        int port = closedPort();
        String endpoint = "http://127.0.0.1:" + port;
        String failure = "dgen4j: save to s3://bkt/k failed: HeadBucket of s3://bkt/k: cannot connect to the S3 endpoint "
                + endpoint + ": ";
        Proc quiet = save(backend, port, false);
        assertEquals(3, quiet.code(), quiet.err());
        List<String> lines = quiet.err().lines().toList();
        assertEquals(1, lines.size(), "stderr is the one line:\n" + quiet.err());
        assertTrue(lines.getFirst().startsWith(failure)
                && lines.getFirst().toLowerCase(java.util.Locale.ROOT).endsWith("connection refused"), quiet.err());

        Proc verbose = save(backend, port, true);
        assertEquals(3, verbose.code(), verbose.err());
        List<String> all = verbose.err().lines().toList();
        assertEquals(lines.getFirst(), all.getLast(), "the same line ends stderr with --verbose:\n" + verbose.err());
        assertTrue(all.stream().anyMatch(l -> l.contains("WARN io.dgen4j.s3.internal.Requests - S3 endpoint " + endpoint
                + " marked down: HeadBucket of s3://bkt/k: cannot connect")), "--verbose shows the warning:\n" + verbose.err());
    }
}
