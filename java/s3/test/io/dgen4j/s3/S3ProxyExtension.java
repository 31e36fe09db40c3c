package io.dgen4j.s3;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real S3 server for tests: s3proxy ({@code org.gaul:s3proxy}, the {@code jar-with-dependencies}
 * that Maven copies to {@code target/s3proxy/s3proxy.jar} and names in the system property
 * {@value #JAR_PROPERTY}) run as a child JVM on a free port of 127.0.0.1, with the filesystem
 * backend in a temporary directory and signed requests (AWS v2 or v4) required. Register it as a
 * static field; it starts before the class's tests, creates one bucket for the class, and is
 * killed after them. The server itself is a {@link LocalS3Proxy}.
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
    private static final AtomicInteger BUCKETS = new AtomicInteger();

    private Path dir;
    private LocalS3Proxy server;
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
        LocalS3Proxy.deleteTree(dir);
    }

    /** Starts the server (again, after {@link #kill()}, on a new port over the same files). */
    public void start() throws IOException, InterruptedException {
        if (server != null && server.isRunning()) {
            throw new IllegalStateException("s3proxy is already running on " + server.endpoint());
        }
        Path jar = jar();
        if (dir == null) {
            dir = Files.createTempDirectory("dgen4j-s3proxy-");
        }
        server = LocalS3Proxy.start(jar, dir, ACCESS_KEY, SECRET_KEY);
    }

    /** Kills the server at once (for tests of a server dying mid-upload), and waits until it is gone. */
    public void kill() throws InterruptedException {
        if (server != null) {
            server.kill();
        }
    }

    /** Whether the server process is running. */
    public boolean isRunning() {
        return server != null && server.isRunning();
    }

    /** {@code http://127.0.0.1:<port>}. */
    public URI endpoint() {
        return server.endpoint();
    }

    /** The bucket created for the test class. */
    public String bucket() {
        return bucket;
    }

    /** Settings for this server: its endpoint, the test keys, path-style addressing. */
    public S3Settings settings() {
        return server.settings();
    }

    /** The server's directory of buckets (the filesystem backend's base directory). */
    public Path dataDir() {
        return dir.resolve("data");
    }

    /** The last lines of the server's log. */
    public String logTail() {
        return server == null ? "" : server.logTail();
    }

    /**
     * Creates a bucket with a signed (AWS v2) PUT and returns its name.
     *
     * @throws IOException with the server's answer when it refuses
     */
    public String createBucket(String name) throws IOException, InterruptedException {
        return server.createBucket(name);
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
}
