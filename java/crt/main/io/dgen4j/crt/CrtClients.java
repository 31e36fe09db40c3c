package io.dgen4j.crt;

import io.dgen4j.s3.internal.PartPlan;
import io.dgen4j.s3.spi.S3Errors;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.S3Timeouts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3CrtAsyncClientBuilder;
import software.amazon.awssdk.services.s3.crt.S3CrtDirectBufferPoolConfiguration;

/**
 * Builds the CRT-based S3 clients of this backend from {@link S3Settings}, and says whether the
 * CRT's native library loads here.
 */
final class CrtClients {
    /** Requests beside the parts or ranges in flight: HEAD, complete, abort, list. */
    static final int CONTROL_REQUESTS = 2;
    /**
     * The CRT's own part size, which it uses only to split PutObject and GetObject requests: our
     * parts go as UploadPart requests, which it sends as they are, but a ranged GET larger than
     * this is split into ranges of this size fetched in parallel, each received into a buffer of
     * this size. 8 MiB, its own default. (When the CRT handed each piece to Java as a heap array,
     * whole 32 MiB pieces ran the launcher's 96 MiB heap out in one load in four.)
     */
    static final long RANGE_PIECE = 8L << 20;
    /**
     * The CRT's read window per GET ({@code initialReadBufferSizeInBytes}): how much of a GET's body
     * it buffers natively ahead of what Java has taken. Its default, 10 pieces (80 MiB), let it hold
     * whole ranges natively beside their heap copies: a load of 1 GiB in 32 MiB ranges, 4 in flight,
     * peaked at 384 MiB RSS with it and 315 MiB with 2 pieces (2 MiB pieces with a 4 MiB window gave
     * the same 315 for 4 times the GETs). Two pieces still let a range's pieces come in parallel.
     */
    static final long READ_WINDOW = 2 * RANGE_PIECE;
    /**
     * The most the CRT's direct buffer pool holds, which it lends ranged GETs' bodies from (see {@link
     * PooledGets}; one client per process has one: {@link LendingClient}): 8 pieces, the read windows
     * of four GETs. A 4 GiB load in 32 MiB ranges, 4 in
     * flight, peaked at 275-276 MiB RSS with it and 283-284 with the pool sized by the CRT (a share
     * of the JVM's direct memory), at the same speed; before the pool (heap copies) it peaked at 344.
     * Where the JVM's direct memory is smaller (-Xmx40m) the ceiling is halved until the CRT takes it,
     * down to one piece.
     */
    static final long LENDING_POOL = 8 * RANGE_PIECE;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CrtClients.class);
    /** The largest part a save sends by default (see {@link CrtClient#largestEfficientPart()}). */
    static final long LARGEST_PART = 16L << 20;
    /**
     * Attempts after the first that the CRT makes of a failed request: one, the fewest it can be told
     * (0 means its default, 3); the driver retries beyond that (on another endpoint, or the same one
     * after its back-off, within the settings' retry budget). So a request to a gateway that never
     * answers fails after twice the settings' read timeout (first-byte or idle, the larger).
     */
    static final int RETRIES = 1;

    private static final Object RUNTIME_LOCK = new Object();
    private static volatile Optional<String> runtimeProblem;

    private CrtClients() {}

    /**
     * Why the CRT cannot be used here (its classes missing, or its native library not loading on
     * this platform), or empty when it can. Loads the native library on the first call.
     */
    static Optional<String> runtimeProblem() {
        Optional<String> p = runtimeProblem;
        if (p == null) {
            synchronized (RUNTIME_LOCK) {
                p = runtimeProblem;
                if (p == null) {
                    runtimeProblem = p = probeRuntime();
                }
            }
        }
        return p;
    }

    private static Optional<String> probeRuntime() {
        String platform = System.getProperty("os.name") + " " + System.getProperty("os.arch");
        try {
            // The CRT class loads libaws-crt-jni from the jar in its static initializer.
            Class<?> crt = Class.forName("software.amazon.awssdk.crt.CRT", true, CrtClients.class.getClassLoader());
            crt.getMethod("acquireShutdownRef");
            crt.getMethod("releaseShutdownRef");
            return Optional.empty();
        } catch (ClassNotFoundException e) {
            return Optional.of("the AWS CRT library (software.amazon.awssdk.crt:aws-crt) is not on the class path");
        } catch (ReflectiveOperationException e) {
            return Optional.of(String.format("the AWS CRT library on the class path has no shutdown references "
                    + "(CRT.acquireShutdownRef): %s", CrtErrors.oneLine(e)));
        } catch (LinkageError | RuntimeException e) {
            Throwable cause = e instanceof ExceptionInInitializerError && e.getCause() != null ? e.getCause() : e;
            return Optional.of(String.format("the AWS CRT native library does not load on %s: %s", platform,
                    CrtErrors.oneLine(cause)));
        }
    }

    /**
     * The CRT tears itself down in a JVM shutdown hook of its own, after which no request of it ever
     * completes: a Ctrl-C'd save then waited on its parts until the JVM gave up, its upload left
     * open. So each open group of this backend's clients holds one of the CRT's shutdown references
     * (taken here, released by the returned action when the group closes): at JVM shutdown the CRT
     * stays up until the storage sessions that use it are closed (the CLI closes its command's once
     * the command's cleanup has aborted its upload). The CRT is called by reflection: its jar is an
     * automatic module that this module does not require by name.
     *
     * @return what releases the reference, once
     */
    static Runnable holdShutdown() {
        try {
            Class<?> crt = Class.forName("software.amazon.awssdk.crt.CRT", true, CrtClients.class.getClassLoader());
            crt.getMethod("acquireShutdownRef").invoke(null);
            java.lang.reflect.Method release = crt.getMethod("releaseShutdownRef");
            java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();
            return () -> {
                if (released.compareAndSet(false, true)) {
                    try {
                        release.invoke(null);
                    } catch (ReflectiveOperationException | RuntimeException e) {
                        // the CRT stays up, as it would without this reference
                    }
                }
            };
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return () -> { }; // runtimeProblem() said why before a client was made
        }
    }

    /** The shortest throughput-monitor interval the CRT takes, in whole seconds. */
    static final int MIN_STALL_SECONDS = 2;

    /**
     * A client for these settings with room for {@code inFlight} data requests at once: a {@link
     * LendingClient} (with the direct buffer pool its ranged GETs' bodies are lent from) when no other
     * client of this process holds the pool, else one whose GETs' bodies come as heap arrays.
     *
     * @param target what the client is for, in failure messages
     * @throws IOException when the settings cannot be used by this client (no credentials, a CA
     *                     bundle), or the CRT refuses them
     */

    static S3AsyncClient open(S3Settings s, int inFlight, String target) throws IOException {
        Optional<String> problem = runtimeProblem();
        if (problem.isPresent()) {
            throw new IOException("the crt backend cannot be used for " + target + ": " + problem.get());
        }
        if (!s.hasCredentials()) {
            throw new IOException(S3Errors.noCredentials(target));
        }
        checkCaBundle(s);
        int connections = Math.max(inFlight, s.maxInFlight().orElse(inFlight)) + CONTROL_REQUESTS;
        // The CRT times every wait with one monitor: a connection moving less than 1 byte/s for
        // this many whole seconds (the wait for the answer included) is dropped; the larger of the
        // first-byte and idle timeouts, rounded up, and at least the 2 s the CRT accepts (it refuses
        // to build a client with a 1 s interval: --s3-timeouts idle=1s,first-byte=1s).
        S3Timeouts t = s.timeouts();
        Duration stall = Duration.ofSeconds(Math.max(MIN_STALL_SECONDS, (t.read().toMillis() + 999) / 1000));
        S3CrtAsyncClientBuilder b = S3AsyncClient.crtBuilder()
                .credentialsProvider(StaticCredentialsProvider.create(credentials(s)))
                .region(Region.of(s.region()))
                .forcePathStyle(s.pathStyle())
                .maxConcurrency(connections)
                .minimumPartSizeInBytes(RANGE_PIECE)
                .initialReadBufferSizeInBytes(READ_WINDOW)
                // PutObject carries only the empty object: never split it.
                .thresholdInBytes(PartPlan.MAX_PART_SIZE)
                .retryConfiguration(r -> r.numRetries(RETRIES))
                .httpConfiguration(h -> h.connectionTimeout(t.connect())
                        .connectionHealthConfiguration(c -> c.minimumThroughputInBps(1L)
                                .minimumThroughputTimeout(stall)));
        if (s.checksumMode() == S3Settings.ChecksumMode.FULL) {
            b.requestChecksumCalculation(RequestChecksumCalculation.WHEN_SUPPORTED)
                    .responseChecksumValidation(ResponseChecksumValidation.WHEN_SUPPORTED);
        } else {
            // Many S3-compatible stores refuse the CRC32 trailers sent when supported.
            b.requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                    .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
        }
        s.endpoint().ifPresent(b::endpointOverride);
        if (!LendingClient.takePool()) {
            return build(b, s, target); // another client of this process lends: heap arrays here
        }
        // ranged GETs read the CRT's own buffers, lent from this pool (see PooledGets); the CRT
        // allots it out of the JVM's direct memory and refuses a ceiling beyond 80 % of it (a small
        // -Xmx, which MaxDirectMemorySize follows by default): the ceiling is halved until it fits
        long pool = LENDING_POOL;
        while (true) {
            b.directBufferPoolConfiguration(S3CrtDirectBufferPoolConfiguration.elastic(0, pool));
            try {
                return LendingClient.holding(b.build());
            } catch (RuntimeException e) {
                if (pool > RANGE_PIECE && tooLittleDirectMemory(e)) {
                    LOG.debug("the CRT refused a {}-byte buffer pool: {}", pool, CrtErrors.oneLine(e));
                    pool /= 2;
                    continue;
                }
                LendingClient.givePoolBack();
                throw failed(s, target, e);
            } catch (Error e) {
                LendingClient.givePoolBack();
                throw e;
            }
        }
    }

    private static S3AsyncClient build(S3CrtAsyncClientBuilder b, S3Settings s, String target) throws IOException {
        try {
            return b.build();
        } catch (RuntimeException e) {
            throw failed(s, target, e);
        }
    }

    private static IOException failed(S3Settings s, String target, RuntimeException e) {
        return new IOException(String.format("the CRT S3 client for %s could not be created (endpoint %s, region %s): "
                + "%s", target, s.endpointDescription(), s.region(), CrtErrors.oneLine(e)), e);
    }

    /** Whether the CRT refused its buffer pool's ceiling for the JVM's direct memory. */
    static boolean tooLittleDirectMemory(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains("MaxDirectMemorySize")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The CA files the CRT trusts on Linux, in the order it looks for them: it uses the first that
     * exists (aws-c-io's default trust store).
     */
    static final List<Path> CRT_DEFAULT_CA_FILES = List.of(Path.of("/etc/ssl/certs/ca-certificates.crt"),
            Path.of("/etc/pki/tls/certs/ca-bundle.crt"), Path.of("/etc/ssl/ca-bundle.pem"),
            Path.of("/etc/pki/tls/cacert.pem"), Path.of("/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem"),
            Path.of("/etc/ssl/cert.pem"));

    /**
     * The SDK's CRT-based client takes no trust store: it trusts the system's CA file. A CA bundle
     * ({@code AWS_CA_BUNDLE}) is fine when the endpoint is plain http, or when it is that very
     * file; any other is refused rather than silently ignored.
     */
    static void checkCaBundle(S3Settings s) throws IOException {
        if (s.caBundle().isEmpty()) {
            return;
        }
        Path bundle = s.caBundle().get();
        boolean https = s.endpoint().map(u -> "https".equalsIgnoreCase(u.getScheme())).orElse(true);
        if (!https) {
            return;
        }
        Optional<Path> system = CRT_DEFAULT_CA_FILES.stream().filter(Files::isRegularFile).findFirst();
        try {
            if (system.isPresent() && Files.isRegularFile(bundle)
                    && bundle.toRealPath().equals(system.get().toRealPath())) {
                return;
            }
        } catch (IOException e) {
            // unreadable: refused below
        }
        throw new IOException(String.format("the crt backend cannot use %s=%s: the CRT-based S3 client trusts only the "
                + "system's CA file (%s); add the CA there, or use --backend aws", S3Settings.CA_BUNDLE, bundle,
                system.map(Path::toString).orElse("none found")));
    }

    private static AwsCredentials credentials(S3Settings s) {
        String id = s.accessKeyId().orElseThrow();
        String secret = s.secretAccessKey().orElseThrow();
        return s.sessionToken().<AwsCredentials>map(t -> AwsSessionCredentials.create(id, secret, t))
                .orElseGet(() -> AwsBasicCredentials.create(id, secret));
    }

    /** {@code true} when the settings ask for checksums on every request. */
    static boolean fullChecksums(S3Settings s) {
        return s.checksumMode() == S3Settings.ChecksumMode.FULL;
    }

    /** Lower-case name of a settings' checksum mode, for descriptions. */
    static String checksums(S3Settings s) {
        return s.checksumMode().name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }
}
