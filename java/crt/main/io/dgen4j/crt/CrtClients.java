package io.dgen4j.crt;

import io.dgen4j.s3.PartPlan;
import io.dgen4j.s3.S3Settings;
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
     * this is split into ranges of this size fetched in parallel. It must fit the CRT's memory
     * limit (2 GiB at the default throughput target).
     */
    static final long MAX_CRT_PART = 256L << 20;
    /** Attempts after the first that the CRT makes of a failed request. */
    static final int RETRIES = 2;
    /** How long a connection attempt may take. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /**
     * A connection that moves less than 1 byte/s for this long is dropped (the server stopped
     * answering): the request fails instead of hanging.
     */
    static final Duration STALL_TIMEOUT = Duration.ofSeconds(60);

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
            Class.forName("software.amazon.awssdk.crt.CRT", true, CrtClients.class.getClassLoader());
            return Optional.empty();
        } catch (ClassNotFoundException e) {
            return Optional.of("the AWS CRT library (software.amazon.awssdk.crt:aws-crt) is not on the class path");
        } catch (LinkageError | RuntimeException e) {
            Throwable cause = e instanceof ExceptionInInitializerError && e.getCause() != null ? e.getCause() : e;
            return Optional.of(String.format("the AWS CRT native library does not load on %s: %s", platform,
                    CrtErrors.oneLine(cause)));
        }
    }

    /**
     * A client for these settings with room for {@code inFlight} data requests at once.
     *
     * @param partSize the size of the parts written or the ranges read (the CRT splits larger GETs)
     * @throws IOException when the settings cannot be used by this client (no credentials, a CA
     *                     bundle), or the CRT refuses them
     */
    static S3AsyncClient open(S3Settings s, int inFlight, long partSize, String target) throws IOException {
        Optional<String> problem = runtimeProblem();
        if (problem.isPresent()) {
            throw new IOException("the crt backend cannot be used for " + target + ": " + problem.get());
        }
        if (!s.hasCredentials()) {
            throw new IOException(String.format("no S3 credentials for %s: set %s and %s (in the environment or a "
                    + ".env file in the working directory), or AWS_PROFILE with a shared credentials file", target,
                    S3Settings.ACCESS_KEY_ID, S3Settings.SECRET_ACCESS_KEY));
        }
        checkCaBundle(s);
        int connections = Math.max(inFlight, s.maxInFlight().orElse(inFlight)) + CONTROL_REQUESTS;
        S3CrtAsyncClientBuilder b = S3AsyncClient.crtBuilder()
                .credentialsProvider(StaticCredentialsProvider.create(credentials(s)))
                .region(Region.of(s.region()))
                .forcePathStyle(s.pathStyle())
                .maxConcurrency(connections)
                .minimumPartSizeInBytes(Math.max(PartPlan.MIN_PART_SIZE, Math.min(MAX_CRT_PART, partSize)))
                // PutObject carries only the empty object: never split it.
                .thresholdInBytes(PartPlan.MAX_PART_SIZE)
                .retryConfiguration(r -> r.numRetries(RETRIES))
                .httpConfiguration(h -> h.connectionTimeout(CONNECT_TIMEOUT)
                        .connectionHealthConfiguration(c -> c.minimumThroughputInBps(1L)
                                .minimumThroughputTimeout(STALL_TIMEOUT)));
        if (s.checksumMode() == S3Settings.ChecksumMode.FULL) {
            b.requestChecksumCalculation(RequestChecksumCalculation.WHEN_SUPPORTED)
                    .responseChecksumValidation(ResponseChecksumValidation.WHEN_SUPPORTED);
        } else {
            // Many S3-compatible stores refuse the CRC32 trailers sent when supported.
            b.requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                    .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
        }
        s.endpoint().ifPresent(b::endpointOverride);
        try {
            return b.build();
        } catch (RuntimeException e) {
            throw new IOException(String.format("the CRT S3 client for %s could not be created (endpoint %s, region %s): "
                    + "%s", target, s.endpointDescription(), s.region(), CrtErrors.oneLine(e)), e);
        }
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
