package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.s3.FaultProxy;
import io.dgen4j.s3.S3ProxyExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * Ctrl-C (SIGINT) and SIGTERM sent to a real CLI process in the middle of an S3 save or load, on
 * every backend: the process stops within seconds (the goal is 2 s; the bound asserted leaves room
 * for a loaded machine) with the usual one-line message saying it was interrupted, the exit status
 * of the signal, no stack trace, and the save's multipart upload aborted. The process talks to
 * s3proxy through a {@link FaultProxy} that injects nothing: it tells when parts or ranges are on
 * their way, so the signal comes mid-transfer.
 */
class InterruptCliTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();
    /** The goal is 2 s; what is asserted allows for a machine busy with other builds. */
    private static final Duration BOUND = Duration.ofSeconds(6);
    private static FaultProxy proxy;
    private static S3AsyncClient raw;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() throws IOException {
        proxy = FaultProxy.start(S3.endpoint());
        raw = S3AsyncClient.builder().endpointOverride(S3.endpoint()).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                        S3ProxyExtension.ACCESS_KEY, S3ProxyExtension.SECRET_KEY))).build();
    }

    @AfterAll
    static void stop() {
        raw.close();
        proxy.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"aws", "crt", "minio"})
    void ctrlCStopsASaveWithinSecondsAndAbortsItsUpload(String backend) throws Exception {
        String key = "interrupt/save-" + backend + ".bin";
        proxy.clear();
        Process p = cli("save", "s3://" + S3.bucket() + "/" + key, "--size", "2GiB", "--chunk", "8MiB",
                "--writers", "2", "--buffers", "3", "--backend", backend, "--no-progress");
        String err = interrupt(p, "INT", FaultProxy.Match.uploadPart(), 3);
        assertEquals(130, p.exitValue(), err);
        assertTrue(err.contains("interrupted") && err.contains("s3://" + S3.bucket() + "/" + key), err);
        assertTrue(err.contains("nothing was stored"), err);
        assertEquals(List.of(), raw.listMultipartUploads(b -> b.bucket(S3.bucket()).prefix(key)).join().uploads(),
                "the upload was aborted");
    }

    @ParameterizedTest
    @ValueSource(strings = {"aws", "crt", "minio"})
    void sigtermStopsALoadWithinSeconds(String backend) throws Exception {
        String target = "s3://" + S3.bucket() + "/interrupt/load.bin";
        if (raw.listObjectsV2(b -> b.bucket(S3.bucket()).prefix("interrupt/load.bin")).join().contents().isEmpty()) {
            CliRun saved = CliRun.of(Map.of("AWS_ACCESS_KEY_ID", S3ProxyExtension.ACCESS_KEY, "AWS_SECRET_ACCESS_KEY",
                    S3ProxyExtension.SECRET_KEY, "AWS_REGION", "us-east-1", "AWS_ENDPOINT_URL", S3.endpoint().toString(),
                    "HOME", dir.toString()), "save", target, "--size", "1GiB", "--chunk", "8MiB", "--no-progress");
            assertEquals(0, saved.code(), saved.err());
        }
        proxy.clear();
        Process p = cli("load", target, "--chunk", "8MiB", "--readers", "2", "--verify", "--backend", backend,
                "--no-progress");
        String err = interrupt(p, "TERM", FaultProxy.Match.rangedGet(), 3);
        assertEquals(143, p.exitValue(), err);
        assertTrue(err.contains("load of " + target + " interrupted"), err);
        assertFalse(err.contains("failed: load of"), err); // said once, not wrapped in itself
    }

    @Test
    void ctrlCStopsADlioRunAndSaysSo() throws Exception {
        Path ckpt = dir.resolve("ckpt");
        String config = Path.of(System.getProperty("dgen4j.test.root", ".")).resolve("configs/dlio/tiny.yaml")
                .toString();
        // --force: 10,000 checkpoints would not fit (the run is interrupted after a few)
        Process p = cli("dlio", "run", "--force", "--config", config, "--ranks", "4", "--output",
                dir.resolve("results").toString(),
                "++workload.checkpoint.checkpoint_folder=" + ckpt, "++workload.checkpoint.num_checkpoints_write=10000",
                "++workload.checkpoint.num_checkpoints_read=0");
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (p.isAlive() && steps(ckpt) < 3 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(p.isAlive() && steps(ckpt) >= 3, "the run did not get going: " + stderr());
            String err = signal(p, "INT");
            assertEquals(130, p.exitValue(), err);
            assertTrue(err.startsWith("dgen4j: dlio run interrupted while saving checkpoint ")
                    && err.contains(" of 10000 to " + ckpt), err);
            assertFalse(err.contains("internal error"), err);
        } finally {
            p.destroyForcibly();
        }
    }

    private static long steps(Path ckpt) throws IOException {
        if (!Files.isDirectory(ckpt)) {
            return 0;
        }
        try (var s = Files.list(ckpt)) {
            return s.count();
        }
    }

    /** The CLI, run as the launcher runs it (its heap), through the proxy. */
    private Process cli(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-Xmx96m", "-cp",
                System.getProperty("java.class.path"), Main.class.getName()));
        if (Runtime.version().feature() >= 24) {
            cmd.add(4, "--sun-misc-unsafe-memory-access=allow"); // as the launcher: Netty's warning on stderr
        }
        cmd.addAll(List.of(args));
        // A shell runs background jobs with SIGINT ignored, and the JVM keeps a signal ignored at its
        // start (nohup's rule): a test run from such a job would time the ignored signal, not the CLI.
        // env execs the JVM in place (same pid) with both signals back at their default.
        cmd.addAll(0, List.of("env", "--default-signal=INT,TERM"));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        pb.environment().put("AWS_ACCESS_KEY_ID", S3ProxyExtension.ACCESS_KEY);
        pb.environment().put("AWS_SECRET_ACCESS_KEY", S3ProxyExtension.SECRET_KEY);
        pb.environment().put("AWS_REGION", "us-east-1");
        pb.environment().put("AWS_ENDPOINT_URL", proxy.endpoint().toString());
        pb.environment().put("HOME", dir.toString());
        // a file, not a pipe: the JVM's exit must not wait on a reader
        pb.redirectError(dir.resolve("err").toFile()).redirectOutput(dir.resolve("out").toFile());
        return pb.start();
    }

    /** {@link #signal}s {@code p} once {@code n} requests that {@code match} picks went through the proxy. */
    private String interrupt(Process p, String signal, FaultProxy.Match match, int n) throws Exception {
        try {
            boolean started = proxy.await(match, n, Duration.ofSeconds(120));
            assertTrue(started && p.isAlive(), "the transfer did not get going: " + stderr());
            return signal(p, signal);
        } finally {
            p.destroyForcibly();
        }
    }

    /**
     * Sends {@code signal} to {@code p}, waits for it to exit, and returns its stderr after checking
     * that it exited within {@link #BOUND}, in one line with no stack trace.
     */
    private String signal(Process p, String signal) throws Exception {
        String ignored = Files.readAllLines(Path.of("/proc/" + p.pid() + "/status")).stream()
                .filter(l -> l.startsWith("SigIgn:")).findFirst().orElse("SigIgn: 0");
        long mask = Long.parseLong(ignored.substring(7).strip(), 16);
        assertEquals(0, mask & 0x4002L, "the CLI process ignores SIGINT or SIGTERM (inherited from how this "
                + "JVM was started): the test cannot signal it");
        long t0 = System.nanoTime();
        assertEquals(0, new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).start().waitFor());
        boolean exited = p.waitFor(60, TimeUnit.SECONDS);
        double seconds = (System.nanoTime() - t0) / 1e9;
        String err = stderr();
        System.out.printf("SIG%s -> exit %.1f s: %s", signal, seconds, err);
        assertTrue(exited, "the CLI did not exit within 60 s of SIG" + signal + ": " + err);
        assertTrue(seconds <= BOUND.toSeconds(), String.format("exit %.1f s after SIG%s: %s", seconds, signal,
                err));
        assertEquals(1, err.lines().count(), err);
        assertTrue(err.startsWith("dgen4j: "), err);
        assertFalse(err.contains("\tat ") || err.contains("Exception in thread"), err);
        return err;
    }

    private String stderr() throws IOException {
        return Files.readString(dir.resolve("err"));
    }
}
