package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.s3.S3ProxyExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * No secret in anything the CLI writes (issue 19): real processes at the {@code trace} log level (the
 * AWS SDK's signers, Netty's wire log and the CRT's native log all run), every backend saving and
 * loading against s3proxy with a session token, and the failure cases with secrets planted in targets,
 * endpoint URLs, templates, DLIO folders, the environment and {@code .env}. Every output is read back
 * for every planted secret: stdout, stderr, an SLF4J log file, DLIO's output files.
 */
class SecretsCliTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    /** Planted where a URL's user info goes. */
    private static final String URL_SECRET = "PLANTEDurlPASS4711";
    /** A session token in the environment (s3proxy ignores it; the signers and the wire carry it). */
    private static final String ENV_TOKEN = "PLANTEDenvTOKEN0815";
    /** A session token in .env alone, so the masking of standard error does not know it. */
    private static final String DOTENV_TOKEN = "PLANTEDdotenvTOKEN2342";
    private static final List<String> SECRETS = List.of(URL_SECRET, ENV_TOKEN, DOTENV_TOKEN,
            S3ProxyExtension.SECRET_KEY);

    @TempDir
    Path dir;

    private final List<String> ran = new ArrayList<>();

    /** The CLI in a process in {@code cwd}, at the trace level plus {@code jvm} options; returns its exit code. */
    private int cli(Path cwd, Map<String, String> env, List<String> jvm, String... args)
            throws IOException, InterruptedException {
        Files.createDirectories(cwd);
        List<String> cmd = new ArrayList<>(List.of(JAVA, "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow", "-Xmx256m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=trace",
                "-Daws.crt.log.level=Trace", "-Daws.crt.log.destination=Stderr"));
        cmd.addAll(jvm);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("AWS_") || k.startsWith("S3_") || k.startsWith("DGEN4J_"));
        pb.environment().put("HOME", dir.resolve("home").toString());
        pb.environment().putAll(env);
        int n = ran.size();
        pb.redirectOutput(cwd.resolve("run" + n + ".out").toFile()).redirectError(cwd.resolve("run" + n + ".err").toFile());
        ran.add(String.join(" ", args));
        Process p = pb.start();
        p.getOutputStream().close();
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("hung: " + String.join(" ", args));
        }
        return p.exitValue();
    }

    private Map<String, String> s3Env() {
        Map<String, String> env = new HashMap<>();
        env.put("AWS_ACCESS_KEY_ID", S3ProxyExtension.ACCESS_KEY);
        env.put("AWS_SECRET_ACCESS_KEY", S3ProxyExtension.SECRET_KEY);
        env.put("AWS_SESSION_TOKEN", ENV_TOKEN);
        env.put("AWS_ENDPOINT_URL", S3.endpoint().toString());
        env.put("AWS_REGION", "us-east-1");
        return env;
    }

    @Test
    void noPlantedSecretReachesAnyOutputAtAnyLogLevel() throws Exception {
        Path work = dir.resolve("work");
        String bucket = S3.bucket();
        // every backend saves (two parts), with the secret key and a session token in the environment; one loads
        for (String backend : List.of("aws", "crt", "minio")) {
            assertEquals(0, cli(work, s3Env(), List.of(), "save", "s3://" + bucket + "/s/" + backend, "--size", "6MiB",
                    "--chunk", "5MiB", "--backend", backend), ran.getLast());
        }
        assertEquals(0, cli(work, s3Env(), List.of(), "load", "s3://" + bucket + "/s/aws", "--verify", "--backend",
                "crt"), ran.getLast());
        // credentials and token from .env alone, the SLF4J log to a file
        Path dotEnvDir = dir.resolve("dotenv");
        Files.createDirectories(dotEnvDir);
        Files.writeString(dotEnvDir.resolve(".env"), String.join("\n", "AWS_ACCESS_KEY_ID=" + S3ProxyExtension.ACCESS_KEY,
                "AWS_SECRET_ACCESS_KEY=" + S3ProxyExtension.SECRET_KEY, "AWS_SESSION_TOKEN=" + DOTENV_TOKEN,
                "AWS_ENDPOINT_URL=" + S3.endpoint(), ""));
        Path logFile = dir.resolve("slf4j.log");
        assertEquals(0, cli(dotEnvDir, Map.of(), List.of("-Dorg.slf4j.simpleLogger.logFile=" + logFile), "save",
                "s3://" + bucket + "/s/dotenv", "--size", "5MiB", "--backend", "aws"), ran.getLast());
        assertTrue(Files.size(logFile) > 10_000, "the trace log was written to the file");
        assertEquals(0, cli(dotEnvDir, Map.of(), List.of(), "load", "s3://" + bucket + "/s/dotenv", "--backend",
                "minio"), ran.getLast());
        long logged = assertNoSecretIn(dir); // the backends' runs, before a leak could be buried in later ones
        assertTrue(logged > 100_000, "the trace logs were written: " + logged + " bytes");
        // a failure at the store: a bucket that does not exist
        assertEquals(3, cli(work, s3Env(), List.of(), "save", "s3://no-such-bucket-here/k", "--size", "1MiB"),
                ran.getLast());
        // secrets in what users type
        String userInfo = "u:" + URL_SECRET + "@";
        Map<String, String> bad = new HashMap<>(s3Env());
        assertEquals(2, cli(work, bad, List.of(), "save", "s3://" + userInfo + bucket + "/k", "--size", "1MiB"));
        assertEquals(2, cli(work, bad, List.of(), "load", "file://" + userInfo + "localhost" + dir.resolve("x.bin")));
        assertEquals(2, cli(work, bad, List.of(), "save", "s3://" + bucket + "/k", "--size", "1MiB",
                "--endpoints", "http://" + userInfo + "127.0.0.1:9 000"));
        bad.put("S3_ENDPOINT_TEMPLATE", "http://" + userInfo + "127.0.0.{1...2}:" + S3.endpoint().getPort());
        assertEquals(2, cli(work, bad, List.of(), "save", "s3://" + bucket + "/k", "--size", "1MiB"));
        assertEquals(2, cli(work, bad, List.of(), "endpoints"));
        bad.remove("S3_ENDPOINT_TEMPLATE");
        bad.put("AWS_ENDPOINT_URL", "http://" + userInfo + "[::1");
        assertEquals(2, cli(work, bad, List.of(), "load", "s3://" + bucket + "/k"));
        bad.put("AWS_ENDPOINT_URL", "http://" + userInfo + "127.0.0.1:1 2");
        assertEquals(2, cli(work, bad, List.of(), "save", "s3://" + bucket + "/k", "--size", "1MiB"));
        String tiny = Path.of(System.getProperty("dgen4j.test.root", ".")).toAbsolutePath()
                .resolve("configs/dlio/tiny.yaml").toString();
        Path out = dir.resolve("dlio-out");
        assertNoSecretIn(dir);
        assertEquals(2, cli(work, s3Env(), List.of(), "dlio", "run", "--config", tiny, "--ranks", "4", "--output",
                out.toString(), "++workload.checkpoint.checkpoint_folder=s3://" + userInfo + bucket + "/d"));
        assertEquals(2, cli(work, s3Env(), List.of(), "dlio", "plan", "--config", tiny, "--ranks", "4",
                "++workload.storage.storage_type=s3", "++workload.storage.storage_root=" + userInfo + bucket));
        // a DLIO run that works: its output files are read too
        assertEquals(0, cli(work, s3Env(), List.of(), "dlio", "run", "--config", tiny, "--ranks", "4", "--output",
                out.toString(), "--json", "++workload.storage.storage_type=s3", "++workload.storage.storage_root=" + bucket,
                "++workload.checkpoint.checkpoint_folder=d", "++workload.checkpoint.streaming.chunk_size=5MiB",
                "++workload.checkpoint.num_checkpoints_write=1", "++workload.checkpoint.num_checkpoints_read=0"),
                ran.getLast());

        assertNoSecretIn(dir);
        assertTrue(Files.exists(out.resolve("summary.json")), "DLIO's outputs were read too");
        // the refusals said why, with the user info masked
        String errs = Files.readString(work.resolve("run" + ran.indexOf(ran.stream().filter(a -> a.startsWith("save s3://u:"))
                .findFirst().orElseThrow()) + ".err"));
        assertTrue(errs.startsWith("dgen4j: target s3://***@" + bucket + "/k carries user info"), errs);
    }

    /**
     * Reads every file under {@code root} that the runs wrote (stdout, stderr, the log file, DLIO's outputs;
     * the {@code .env} input aside) and fails naming the file and the text around a planted secret; returns
     * the bytes read.
     */
    private long assertNoSecretIn(Path root) throws IOException {
        List<Path> outputs;
        try (Stream<Path> s = Files.walk(root)) {
            outputs = s.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().equals(".env")).toList();
        }
        assertTrue(outputs.size() >= ran.size() * 2, outputs.toString());
        long bytes = 0;
        for (Path p : outputs) {
            String text = new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1);
            bytes += text.length();
            for (String secret : SECRETS) {
                int at = text.indexOf(secret);
                assertFalse(at >= 0, () -> p + " holds a planted secret: ..." + text.substring(Math.max(0, at - 200),
                        Math.min(text.length(), at + 50)));
            }
        }
        return bytes;
    }
}
