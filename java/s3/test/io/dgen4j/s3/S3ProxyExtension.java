package io.dgen4j.s3;

import io.dgen4j.s3.local.LocalS3Proxy;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
 * killed after them. The server itself is a {@link LocalS3Proxy}. With {@code new S3ProxyExtension(3)},
 * three servers run over one directory: three gateways of one store, each of which a test can kill
 * ({@link #kill(int)}) and start again on its port ({@link #start(int)}).
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

    private final LocalS3Proxy[] gateways;
    private Path dir;
    private String bucket;

    /** One server. */
    public S3ProxyExtension() {
        this(1);
    }

    /**
     * {@code gateways} servers over one directory: they serve the same buckets, objects and uploads,
     * as the gateways of one storage cluster do; each can be killed and restarted alone.
     */
    public S3ProxyExtension(int gateways) {
        if (gateways < 1) {
            throw new IllegalArgumentException("at least one gateway, not " + gateways);
        }
        this.gateways = new LocalS3Proxy[gateways];
    }

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

    /**
     * Starts every gateway that is not running: the first time on free ports, after {@link #kill()}
     * on the same ports over the same files.
     */
    public void start() throws IOException, InterruptedException {
        if (dir == null) {
            dir = Files.createTempDirectory("dgen4j-s3proxy-");
        }
        // the JVMs start side by side: each takes seconds
        List<Thread> starting = new ArrayList<>();
        List<Exception> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < gateways.length; i++) {
            if (gateways[i] == null || !gateways[i].isRunning()) {
                int g = i;
                starting.add(Thread.ofPlatform().name("s3proxy-start-" + g).start(() -> {
                    try {
                        start(g);
                    } catch (IOException | InterruptedException | RuntimeException e) {
                        failures.add(e);
                    }
                }));
            }
        }
        for (Thread t : starting) {
            t.join();
        }
        if (!failures.isEmpty()) {
            IOException e = new IOException("s3proxy did not start: " + failures.getFirst().getMessage(),
                    failures.getFirst());
            failures.stream().skip(1).forEach(e::addSuppressed);
            throw e;
        }
    }

    /**
     * Starts gateway {@code i} (again, after {@link #kill(int)}, on its port over the same files).
     *
     * @throws IllegalStateException when it is already running
     */
    public void start(int i) throws IOException, InterruptedException {
        LocalS3Proxy g = gateways[i];
        if (g != null && g.isRunning()) {
            throw new IllegalStateException("s3proxy " + i + " is already running on " + g.endpoint());
        }
        if (dir == null) {
            dir = Files.createTempDirectory("dgen4j-s3proxy-");
        }
        gateways[i] = g == null ? LocalS3Proxy.start(jar(), dir, ACCESS_KEY, SECRET_KEY) : g.restart();
    }

    /** Kills every gateway at once (for tests of a server dying mid-upload), and waits until they are gone. */
    public void kill() throws InterruptedException {
        for (int i = 0; i < gateways.length; i++) {
            kill(i);
        }
    }

    /** Kills gateway {@code i} at once and waits until it is gone. */
    public void kill(int i) throws InterruptedException {
        if (gateways[i] != null) {
            gateways[i].kill();
        }
    }

    /** Whether every gateway's process is running. */
    public boolean isRunning() {
        for (int i = 0; i < gateways.length; i++) {
            if (!isRunning(i)) {
                return false;
            }
        }
        return true;
    }

    /** Whether gateway {@code i}'s process is running. */
    public boolean isRunning(int i) {
        return gateways[i] != null && gateways[i].isRunning();
    }

    /** The number of gateways. */
    public int gateways() {
        return gateways.length;
    }

    /**
     * The environment of a CLI run against the first gateway: {@code HOME} (so that no user's
     * ~/.aws or dgen4j files leak in), the keys, the endpoint and a region. Mutable, for a test to add to.
     */
    public Map<String, String> cliEnv(Path home) {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", home.toString());
        env.put("AWS_ACCESS_KEY_ID", ACCESS_KEY);
        env.put("AWS_SECRET_ACCESS_KEY", SECRET_KEY);
        env.put("AWS_ENDPOINT_URL", endpoint().toString());
        env.put("AWS_REGION", "us-east-1");
        return env;
    }

    /** The first gateway's endpoint, {@code http://127.0.0.1:<port>}. */
    public URI endpoint() {
        return endpoint(0);
    }

    /** Gateway {@code i}'s endpoint. */
    public URI endpoint(int i) {
        return gateways[i].endpoint();
    }

    /** Every gateway's endpoint, in order. */
    public List<URI> endpoints() {
        List<URI> out = new ArrayList<>();
        for (int i = 0; i < gateways.length; i++) {
            out.add(endpoint(i));
        }
        return out;
    }

    /** The bucket created for the test class. */
    public String bucket() {
        return bucket;
    }

    /** Settings for the first gateway: its endpoint, the test keys, path-style addressing. */
    public S3Settings settings() {
        return S3Settings.builder().endpoint(endpoint()).credentials(ACCESS_KEY, SECRET_KEY, null)
                .region(S3Settings.DEFAULT_REGION).build();
    }

    /** Settings for every gateway, as an endpoint set with this strategy. */
    public S3Settings settings(EndpointSet.Strategy strategy) {
        return settings().toBuilder().endpointSet(EndpointSet.builder().endpoints(endpoints()).strategy(strategy)
                .build()).build();
    }

    /** The server's directory of buckets (the filesystem backend's base directory). */
    public Path dataDir() {
        return dir.resolve("data");
    }

    /** The last lines of the first gateway's log. */
    public String logTail() {
        return gateways[0] == null ? "" : gateways[0].logTail();
    }

    /**
     * Creates a bucket with a signed (AWS v2) PUT and returns its name.
     *
     * @throws IOException with the server's answer when it refuses
     */
    public String createBucket(String name) throws IOException, InterruptedException {
        return gateways[0].createBucket(name);
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
