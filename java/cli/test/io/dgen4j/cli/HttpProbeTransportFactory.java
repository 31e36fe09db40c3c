package io.dgen4j.cli;

import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.spi.S3Transport;
import io.dgen4j.s3.spi.S3TransportFactory;
import io.dgen4j.s3.spi.S3ClientProvider;
import io.dgen4j.storage.StorageOptions;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A test-only backend transport ({@value #NAME}) that implements the one call {@code dgen4j endpoints}
 * makes, HEAD bucket, with the JDK's HTTP client and AWS v2 signatures (s3proxy takes them), so that
 * the command is tested against real gateways without depending on a client library's transport.
 * Registered as an S3 client in {@code test-resources/META-INF/services}; it {@link #stores() stores}
 * nothing, so it is no storage backend.
 */
public final class HttpProbeTransportFactory implements S3TransportFactory, S3ClientProvider {
    /** The backend name it registers under. */
    public static final String NAME = "test-http";

    @Override
    public String backend() {
        return NAME;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return 0;
    }

    @Override
    public S3TransportFactory transports(StorageOptions options, int requests) {
        return this;
    }

    @Override
    public boolean stores() {
        return false;
    }

    @Override
    public S3Transport open(S3Settings settings) throws IOException {
        URI endpoint = settings.endpoint().orElseThrow(() -> new IOException(NAME + " needs a custom endpoint"));
        return new Transport(endpoint, settings.accessKeyId().orElse(""), settings.secretAccessKey().orElse(""));
    }

    /** An HTTP status other than 200. */
    static final class StatusException extends IOException {
        final int status;

        StatusException(int status) {
            super("HTTP " + status);
            this.status = status;
        }
    }

    private static final class Transport implements S3Transport {
        private final URI endpoint;
        private final String accessKey;
        private final String secretKey;
        private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

        Transport(URI endpoint, String accessKey, String secretKey) {
            this.endpoint = endpoint;
            this.accessKey = accessKey;
            this.secretKey = secretKey;
        }

        @Override
        public String endpoint() {
            return endpoint.toString();
        }

        @Override
        public CompletableFuture<Void> headBucket(String bucket) {
            String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC));
            String path = "/" + bucket;
            String signature;
            try {
                Mac mac = Mac.getInstance("HmacSHA1");
                mac.init(new SecretKeySpec(secretKey.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
                signature = Base64.getEncoder().encodeToString(mac.doFinal(("HEAD\n\n\n" + date + "\n" + path)
                        .getBytes(StandardCharsets.UTF_8)));
            } catch (java.security.GeneralSecurityException | IllegalArgumentException e) {
                return CompletableFuture.failedFuture(e); // IllegalArgumentException: no secret key
            }
            HttpRequest req = HttpRequest.newBuilder(endpoint.resolve(path)).timeout(Duration.ofSeconds(30))
                    .header("Date", date).header("Authorization", "AWS " + accessKey + ":" + signature)
                    .method("HEAD", HttpRequest.BodyPublishers.noBody()).build();
            return http.sendAsync(req, HttpResponse.BodyHandlers.discarding()).thenCompose(r -> r.statusCode() == 200
                    ? CompletableFuture.completedFuture(null)
                    : CompletableFuture.failedFuture(new StatusException(r.statusCode())));
        }

        private static <T> CompletableFuture<T> unsupported() {
            return CompletableFuture.failedFuture(new UnsupportedOperationException(NAME + " only probes"));
        }

        @Override
        public CompletableFuture<String> createMultipartUpload(S3Location where, Map<String, String> metadata) {
            return unsupported();
        }

        @Override
        public CompletableFuture<UploadedPart> uploadPart(S3Location where, String uploadId, int partNumber,
                MemorySegment body) {
            return unsupported();
        }

        @Override
        public CompletableFuture<Void> completeMultipartUpload(S3Location where, String uploadId,
                List<UploadedPart> parts) {
            return unsupported();
        }

        @Override
        public CompletableFuture<Void> abortMultipartUpload(S3Location where, String uploadId) {
            return unsupported();
        }

        @Override
        public CompletableFuture<List<String>> uploadsOf(S3Location where) {
            return unsupported();
        }

        @Override
        public CompletableFuture<Void> putObject(S3Location where, Map<String, String> metadata, MemorySegment body) {
            return unsupported();
        }

        @Override
        public CompletableFuture<Optional<ObjectHead>> headObject(S3Location where) {
            return unsupported();
        }

        @Override
        public CompletableFuture<Void> deleteObject(S3Location where) {
            return unsupported();
        }

        @Override
        public CompletableFuture<Long> getRange(S3Location where, long offset, MemorySegment dst, String etag) {
            return unsupported();
        }

        @Override
        public FailureKind classify(Throwable failure) {
            Throwable f = unwrap(failure);
            return f instanceof StatusException s && s.status < 500 ? FailureKind.REQUEST : FailureKind.ENDPOINT;
        }

        @Override
        public IOException describe(String operation, S3Location where, Throwable failure) {
            Throwable f = unwrap(failure);
            String why = switch (f) {
                case StatusException s when s.status == 404 -> "the bucket does not exist (HTTP 404)";
                case StatusException s when s.status == 403 -> "access denied (HTTP 403)";
                case ConnectException c -> "connection refused";
                default -> f.getMessage() == null ? f.toString() : f.getMessage();
            };
            return new IOException(String.format("%s of s3://%s at %s: %s", operation, where.bucket(), endpoint, why),
                    failure);
        }

        private static Throwable unwrap(Throwable t) {
            while ((t instanceof java.util.concurrent.CompletionException
                    || t instanceof java.util.concurrent.ExecutionException) && t.getCause() != null) {
                t = t.getCause();
            }
            return t;
        }

        @Override
        public void close() {
            http.close();
        }
    }
}
