package io.dgen4j.cli.s3;

import io.dgen4j.cli.Environment;
import io.dgen4j.cli.option.EndpointOptions;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.local.LocalS3Proxy;
import io.dgen4j.storage.StorageTarget;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Where the S3 commands (backends, quickstart's part 2) write: the configured endpoint
 * ({@code AWS_ENDPOINT_URL} etc., or {@code .env}; {@link S3Settings#fromEnvironment}), or, when
 * none is configured, a local s3proxy that this class starts (from the jar the launcher names in
 * {@value #JAR_PROPERTY}) and stops on {@link #close()} or at JVM exit (Ctrl-C).
 */
public final class S3Endpoint implements AutoCloseable {
    /** The system property naming the s3proxy jar ({@code ./dgen4j} sets it). */
    static final String JAR_PROPERTY = "dgen4j.s3proxy.jar";
    /** The variable that names the s3proxy jar, over the property. */
    public static final String JAR_VAR = "DGEN4J_S3PROXY_JAR";
    /** The variable naming the bucket to use on a configured endpoint when no target is given. */
    public static final String BUCKET_VAR = "DGEN4J_S3_BUCKET";
    /** The bucket made on a local s3proxy when no target is given. */
    public static final String LOCAL_BUCKET = "dgen4j";

    /** No local s3proxy could be started because its jar is missing: a usage error (exit 2). */
    public static final class NoS3ProxyJar extends IllegalArgumentException {
        public NoS3ProxyJar(String message) {
            super(message);
        }
    }

    /** A configured endpoint without a bucket to write to. */
    public static final class NoBucket extends IllegalArgumentException {
        public NoBucket(String message) {
            super(message);
        }
    }

    private final S3Settings settings;
    private final String bucket;
    private final String prefix;
    private final LocalS3Proxy local;
    private final Thread hook;
    private final CountDownLatch closed;

    private S3Endpoint(S3Settings settings, String[] at, LocalS3Proxy local, Thread hook, CountDownLatch closed) {
        this.closed = closed;
        this.settings = settings;
        this.bucket = at[0];
        this.prefix = at[1];
        this.local = local;
        this.hook = hook;
    }

    /**
     * Opens the endpoint for {@code target} ({@code s3://bucket/prefix}, or null for the default
     * prefix {@code defaultKey} in {@value #BUCKET_VAR}'s bucket, or on a local s3proxy the bucket
     * {@value #LOCAL_BUCKET}). A local s3proxy is started when no endpoint is configured and no
     * target with credentials names a real one; that is said on {@code err}.
     *
     * @param configured the settings of the environment and the command's options
     *                   ({@link EndpointOptions#settings})
     * @param env        the variables that name the default bucket and the s3proxy jar
     * @throws NoS3ProxyJar when a local s3proxy is needed and its jar is not there
     * @throws NoBucket     when an endpoint is configured but no bucket is named
     */
    public static S3Endpoint open(String target, String defaultKey, S3Settings configured, Environment env,
            PrintWriter err)
            throws IOException, InterruptedException {
        String[] given = target == null ? null : split(target);
        if (configured.endpoint().isPresent() || (given != null && configured.hasCredentials())) {
            String[] at = given;
            if (at == null) {
                String bucket = env.get(BUCKET_VAR);
                if (bucket == null || bucket.isBlank()) {
                    throw new NoBucket(String.format("an S3 endpoint is configured (%s) but no bucket is named: give "
                            + "s3://bucket/prefix or set %s", configured.endpointDescription(), BUCKET_VAR));
                }
                at = split("s3://" + bucket.strip() + "/" + defaultKey);
            }
            return new S3Endpoint(configured, at, null, null, null);
        }
        Path jar = jar(env);
        String[] at = given != null ? given : new String[] {LOCAL_BUCKET, defaultKey};
        LocalS3Proxy proxy = LocalS3Proxy.startTemporary(jar);
        CountDownLatch closed = new CountDownLatch(1);
        // Ctrl-C interrupts the command, whose cleanup (aborting the upload) still needs the server
        // and then closes it; this hook waits for that, and stops the server itself if it does not come.
        Thread hook = new Thread(() -> {
            try {
                closed.await(8, TimeUnit.SECONDS);
                proxy.close();
            } catch (IOException | InterruptedException | RuntimeException e) {
                // the JVM is exiting: nothing left to tell
            }
        }, "dgen4j-s3proxy-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        S3Endpoint e = new S3Endpoint(S3Settings.builder().endpoint(proxy.endpoint())
                .credentials(proxy.accessKey(), proxy.secretKey(), null).region(S3Settings.DEFAULT_REGION).build(), at, proxy, hook, closed);
        try {
            proxy.createBucket(at[0]);
        } catch (IOException | RuntimeException ex) {
            e.close();
            throw ex;
        }
        err.printf("no S3 endpoint configured: started a local s3proxy on %s (filesystem in %s)%n", proxy.endpoint(),
                proxy.dir());
        err.flush();
        return e;
    }

    /** The s3proxy jar: {@value #JAR_VAR}, else {@value #JAR_PROPERTY}. */
    static Path jar(Environment env) {
        String where = Optional.ofNullable(env.get(JAR_VAR)).filter(s -> !s.isBlank())
                .orElse(System.getProperty(JAR_PROPERTY));
        if (where == null || where.isBlank() || !Files.isRegularFile(Path.of(where))) {
            throw new NoS3ProxyJar(String.format("no S3 endpoint is configured (AWS_ENDPOINT_URL, or .env) and the "
                    + "local s3proxy jar is %s: build it with ./build -DskipTests -pl java/cli -am package "
                    + "(java/cli/target/s3proxy/s3proxy.jar, which ./dgen4j passes as -D%s), or set %s to "
                    + "org.gaul:s3proxy:4.1.0:jar-with-dependencies", where == null || where.isBlank()
                    ? "not set (-D" + JAR_PROPERTY + ")" : "missing (" + where + ")", JAR_PROPERTY, JAR_VAR));
        }
        return Path.of(where);
    }

    S3Settings settings() {
        return settings;
    }

    /** {@code s3://bucket/prefix/}, where the objects go. */
    public String prefix() {
        return "s3://" + bucket + "/" + (prefix.isEmpty() ? "" : prefix + "/");
    }

    /** {@code s3://bucket/prefix/name}. */
    String target(String name) {
        return prefix() + name;
    }

    /**
     * Splits {@code s3://bucket[/prefix[/]]} into the bucket and the prefix without its trailing '/'.
     *
     * @throws IllegalArgumentException when it is not an s3:// URI with a valid bucket
     */
    public static String[] split(String target) {
        StorageTarget t = StorageTarget.parse(target);
        if (!S3Location.SCHEME.equals(t.scheme())) {
            throw new IllegalArgumentException(String.format("'%s' is not an s3://bucket/prefix URI", target));
        }
        String loc = t.location();
        int slash = loc.indexOf('/');
        String bucket = slash < 0 ? loc : loc.substring(0, slash);
        String prefix = slash < 0 ? "" : loc.substring(slash + 1).replaceAll("/+$", "");
        S3Location.of(StorageTarget.parse("s3://" + bucket + "/" + (prefix.isEmpty() ? "" : prefix + "/") + "x"));
        return new String[] {bucket, prefix};
    }

    /** Whether this is a local s3proxy started here. */
    public boolean isLocal() {
        return local != null;
    }

    /** The endpoint's URL, for reports. */
    public String endpoint() {
        return settings.endpointDescription();
    }

    /** Stops the local s3proxy, if one was started, and removes its files. */
    @Override
    public void close() throws IOException, InterruptedException {
        if (local == null) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // already shutting down: the hook runs too (closing twice is harmless)
        }
        try {
            local.close();
        } finally {
            closed.countDown();
        }
    }
}
