package io.dgen4j.s3;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real S3 server for tests: s3proxy ({@code org.gaul:s3proxy}, the {@code jar-with-dependencies}
 * that Maven copies to {@code target/s3proxy/s3proxy.jar} and names in the system property
 * {@value #JAR_PROPERTY}) run as a child JVM on a free port of 127.0.0.1, with the filesystem
 * backend in a temporary directory and signed requests (AWS v2 or v4) required. Register it as a
 * static field; it starts before the class's tests, creates one bucket for the class, and is
 * killed after them.
 *
 * {@snippet :
 * @RegisterExtension
 * static final S3ProxyExtension S3 = new S3ProxyExtension();
 * ... S3.endpoint(), S3.bucket(), S3.settings() ...
 * }
 *
 * <p>A test that cannot find the jar or start the server fails with the reason (never skips).
 */
public final class S3ProxyExtension implements BeforeAllCallback, AfterAllCallback {
    /** The system property naming the s3proxy jar. */
    public static final String JAR_PROPERTY = "dgen4j.test.s3proxy";
    /** The test access key id. */
    public static final String ACCESS_KEY = "dgen4jtestkey";
    /** The test secret: tests grep outputs for it to prove it is never printed. */
    public static final String SECRET_KEY = "dgen4j-SECRET-d0n0tpr1nt-7f3a9c";
    private static final Duration START_LIMIT = Duration.ofSeconds(90);
    private static final AtomicInteger BUCKETS = new AtomicInteger();

    private Path dir;
    private Path log;
    private Process process;
    private int port;
    private String bucket;

    /** Starts s3proxy and creates the class's bucket. */
    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        start();
        String name = context.getRequiredTestClass().getSimpleName().toLowerCase(Locale.ROOT)
                .replaceAll("[^a-z0-9-]", "-");
        bucket = createBucket("t" + BUCKETS.incrementAndGet() + "-" + name.substring(0, Math.min(name.length(), 40)));
    }

    /** Kills s3proxy and removes its files. */
    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        kill();
        if (dir != null) {
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** Starts the server (again, after {@link #kill()}, on a new port over the same files). */
    public void start() throws IOException, InterruptedException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("s3proxy is already running on port " + port);
        }
        Path jar = jar();
        if (dir == null) {
            dir = Files.createTempDirectory("dgen4j-s3proxy-");
            Files.createDirectories(dir.resolve("data"));
        }
        port = freePort();
        Path props = dir.resolve("s3proxy.properties");
        Files.writeString(props, String.join("\n",
                "s3proxy.endpoint=http://127.0.0.1:" + port,
                "s3proxy.authorization=aws-v2-or-v4",
                "s3proxy.identity=" + ACCESS_KEY,
                "s3proxy.credential=" + SECRET_KEY,
                "s3proxy.ignore-unknown-headers=true",
                "jclouds.provider=filesystem",
                "jclouds.filesystem.basedir=" + dir.resolve("data"),
                "jclouds.identity=" + ACCESS_KEY,
                "jclouds.credential=" + SECRET_KEY,
                ""), StandardCharsets.UTF_8);
        log = dir.resolve("s3proxy-" + port + ".log");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> cmd = new ArrayList<>(List.of(java.toString(), "-Xmx1g", "-XX:+UseParallelGC",
                "-jar", jar.toString(), "--properties", props.toString()));
        process = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        awaitReady();
    }

    /** Kills the server at once (for tests of a server dying mid-upload), and waits until it is gone. */
    public void kill() throws InterruptedException {
        if (process != null) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("s3proxy (pid " + process.pid() + ") did not exit after SIGKILL");
            }
        }
    }

    /** Whether the server process is running. */
    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** {@code http://127.0.0.1:<port>}. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** The bucket created for the test class. */
    public String bucket() {
        return bucket;
    }

    /** Settings for this server: its endpoint, the test keys, path-style addressing. */
    public S3Settings settings() {
        return S3Settings.builder().endpoint(endpoint()).credentials(ACCESS_KEY, SECRET_KEY, null)
                .region(S3Settings.DEFAULT_REGION).build();
    }

    /** The server's directory of buckets (the filesystem backend's base directory). */
    public Path dataDir() {
        return dir.resolve("data");
    }

    /** The last lines of the server's log. */
    public String logTail() {
        try {
            List<String> lines = log == null || !Files.exists(log) ? List.of() : Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    /**
     * Creates a bucket with a signed (AWS v2) PUT and returns its name.
     *
     * @throws IOException with the server's answer when it refuses
     */
    public String createBucket(String name) throws IOException, InterruptedException {
        HttpResponse<String> r = signed("PUT", "/" + name);
        if (r.statusCode() != 200) {
            throw new IOException("s3proxy refused to create bucket " + name + ": HTTP " + r.statusCode() + " "
                    + r.body());
        }
        return name;
    }

    private HttpResponse<String> signed(String method, String path) throws IOException, InterruptedException {
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC));
        String toSign = method + "\n\n\n" + date + "\n" + path;
        String signature;
        try {
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(new SecretKeySpec(SECRET_KEY.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
            signature = Base64.getEncoder().encodeToString(mac.doFinal(toSign.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA1 is missing", e);
        }
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            HttpRequest req = HttpRequest.newBuilder(endpoint().resolve(path)).timeout(Duration.ofSeconds(30))
                    .header("Date", date).header("Authorization", "AWS " + ACCESS_KEY + ":" + signature)
                    .method(method, HttpRequest.BodyPublishers.noBody()).build();
            return http.send(req, HttpResponse.BodyHandlers.ofString());
        }
    }

    private void awaitReady() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + START_LIMIT.toNanos();
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
            while (true) {
                if (!process.isAlive()) {
                    throw new IllegalStateException(String.format("s3proxy exited with status %d while starting; its "
                            + "log:%n%s", process.exitValue(), logTail()));
                }
                try {
                    http.send(HttpRequest.newBuilder(endpoint().resolve("/")).timeout(Duration.ofSeconds(5)).GET()
                            .build(), HttpResponse.BodyHandlers.discarding());
                    return; // any HTTP answer (403 without a signature) means it is serving
                } catch (IOException e) {
                    if (System.nanoTime() > deadline) {
                        kill();
                        throw new IllegalStateException(String.format("s3proxy did not answer on %s within %d s; its "
                                + "log:%n%s", endpoint(), START_LIMIT.toSeconds(), logTail()), e);
                    }
                    Thread.sleep(200);
                }
            }
        }
    }

    private static Path jar() {
        String prop = System.getProperty(JAR_PROPERTY);
        if (prop == null || prop.isBlank()) {
            throw new IllegalStateException("system property " + JAR_PROPERTY + " is not set: it names the s3proxy "
                    + "jar-with-dependencies that the module's pom copies to target/s3proxy/s3proxy.jar (run the "
                    + "tests through Maven, or pass -D" + JAR_PROPERTY + "=/path/to/s3proxy-jar-with-dependencies.jar)");
        }
        Path jar = Path.of(prop);
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the s3proxy jar " + jar + " (system property " + JAR_PROPERTY
                    + ") does not exist: Maven copies it in the process-test-resources phase "
                    + "(org.gaul:s3proxy:jar-with-dependencies)");
        }
        return jar;
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }
}
