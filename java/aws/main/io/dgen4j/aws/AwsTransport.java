package io.dgen4j.aws;

import io.dgen4j.s3.internal.EndpointProbe;
import io.dgen4j.s3.spi.S3Errors;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.internal.RangeSink;
import io.dgen4j.s3.spi.S3Transport;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.ConnectException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.zip.Checksum;
import javax.net.ssl.SSLException;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.ChecksumType;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;

/**
 * The S3 calls of the {@code aws} backend on one endpoint, through the AWS SDK v2's clients. Through
 * {@link AwsSyncCalls}: ranged GETs (a sync client's bodies copied once into the caller's segment)
 * and, to an {@code http://} endpoint, parts and single-part objects (a sync client on {@link
 * SegmentHttpClient}, each body written to the socket from the caller's segment). Through the async
 * client (Netty): every other request, and uploads to {@code https://} endpoints (bodies handed to
 * the SDK as {@code ByteBuffer} views of the caller's segment, {@code fromRemainingByteBuffersUnsafe}:
 * no copy). When the options customize the async client, it makes every request. The driver
 * ({@code io.dgen4j.s3}) does the rest.
 *
 * <p>In {@link S3Settings.ChecksumMode#CRC32C} mode the checksums are request members that the SDK
 * sends as plain headers: the upload's algorithm and type, each part's {@code x-amz-checksum-crc32c}
 * (the driver's value: the SDK computes nothing and sends no trailer, the client being built
 * {@code WHEN_REQUIRED}), the parts' and the object's CRCs in the completion; HEADs ask for the
 * object's checksum.
 *
 * <p>Before its first call, and again after a failure of the endpoint's, a TCP connect checks
 * the endpoint, so that a dead one fails within milliseconds: the SDK's Netty pool was seen waiting
 * out its connection-acquisition timeout on a refused connection instead.
 */
final class AwsTransport implements S3Transport {
    /**
     * Bodies are handed to the SDK in pieces of this size: Netty's write timeout bounds one write, so
     * that it bounds a stall of the body (idle), not the time a whole part takes.
     */
    static final int BODY_PIECE = 1 << 20;

    /** The async client (made on first use) that sends this endpoint's requests. */
    private final Lazy<S3AsyncClient> client;
    /** The set's async client: once made, a HEAD goes through it (a save's), else through the sync one (a load's). */
    private final Lazy<S3AsyncClient> setClient;
    /** Whether closing this transport closes {@link #client} (its own), or its group does. */
    private final boolean closesClient;
    private final S3Settings settings;
    private final String endpoint;
    private final boolean crc32c;
    /** The sync clients' view (ranged GETs, a load's HEAD, uploads to http://), or null: the async client does all. */
    private final AwsSyncCalls sync;
    /** What closes with this transport beside the async client: its own sync clients, or null. */
    private final AwsSyncCalls.Shared ownSync;
    private volatile boolean checkConnect = true;

    AwsTransport(Lazy<S3AsyncClient> client, Lazy<S3AsyncClient> setClient, S3Settings settings, AwsSyncCalls sync,
                 AwsSyncCalls.Shared ownSync, boolean closesClient) {
        this.client = client;
        this.setClient = setClient;
        this.closesClient = closesClient;
        this.sync = sync;
        this.ownSync = ownSync;
        this.settings = settings;
        this.endpoint = settings.endpointDescription();
        this.crc32c = settings.checksumMode() == S3Settings.ChecksumMode.CRC32C;
    }

    @Override
    public String endpoint() {
        return endpoint;
    }

    /** Starts {@code call} after the TCP check when one is due; notes an endpoint failure for the next check. */
    private <T> CompletableFuture<T> run(String operation, String object, Function<S3AsyncClient, CompletableFuture<T>> call) {
        return run(operation, object, call, true);
    }

    /** {@link #run(String, String, Function)}, given the async client only when {@code async} (else null). */
    private <T> CompletableFuture<T> run(String operation, String object,
                                         Function<S3AsyncClient, CompletableFuture<T>> call, boolean async) {
        if (checkConnect) {
            try {
                EndpointProbe.check(settings, operation + " of " + object);
                checkConnect = false;
            } catch (IOException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        CompletableFuture<T> f;
        try {
            f = call.apply(async ? client.get() : null);
        } catch (RuntimeException e) { // the SDK refused to build the client, or the request
            return CompletableFuture.failedFuture(e);
        }
        f.whenComplete((r, e) -> {
            if (e != null && classify(e) == FailureKind.ENDPOINT) {
                checkConnect = true;
            }
        });
        return f;
    }

    @Override
    public CompletableFuture<Void> headBucket(String bucket) {
        return run("HeadBucket", "s3://" + bucket, c -> c.headBucket(b -> b.bucket(bucket)).thenApply(r -> null));
    }

    @Override
    public CompletableFuture<String> createMultipartUpload(S3Location where, Map<String, String> metadata) {
        return createMultipartUpload(where, metadata, false);
    }

    @Override
    public CompletableFuture<String> createMultipartUpload(S3Location where, Map<String, String> metadata,
                                                           boolean crc32c) {
        return run("CreateMultipartUpload", where.toString(), c -> c.createMultipartUpload(b -> {
            b.bucket(where.bucket()).key(where.key()).metadata(metadata).contentType("application/octet-stream");
            if (crc32c) {
                b.checksumAlgorithm(ChecksumAlgorithm.CRC32_C).checksumType(ChecksumType.FULL_OBJECT);
            }
        }).thenApply(r -> r.uploadId()));
    }

    @Override
    public CompletableFuture<UploadedPart> uploadPart(S3Location where, String uploadId, int partNumber,
                                                      MemorySegment body) {
        return uploadPart(where, uploadId, partNumber, body, null);
    }

    @Override
    public CompletableFuture<UploadedPart> uploadPart(S3Location where, String uploadId, int partNumber,
                                                      MemorySegment body, String crc32c) {
        UploadPartRequest.Builder req = UploadPartRequest.builder().bucket(where.bucket()).key(where.key())
                .uploadId(uploadId).partNumber(partNumber).contentLength(body.byteSize());
        if (crc32c != null) {
            req.checksumCRC32C(crc32c); // a header with the value given: the SDK adds no trailer
        }
        CompletableFuture<software.amazon.awssdk.services.s3.model.UploadPartResponse> raw = sync != null && sync.uploads()
                ? run("UploadPart " + partNumber, where.toString(), c -> sync.uploadPart(req, body), false)
                : run("UploadPart " + partNumber, where.toString(), c -> c.uploadPart(req.build(), body(body)));
        return S3Transport.cancelling(raw, raw.thenApply(r -> new UploadedPart(partNumber, r.eTag(), crc32c == null ? null
                : r.checksumCRC32C())));
    }

    @Override
    public CompletableFuture<Void> completeMultipartUpload(S3Location where, String uploadId, List<UploadedPart> parts) {
        return completeMultipartUpload(where, uploadId, parts, null).thenApply(r -> null);
    }

    @Override
    public CompletableFuture<String> completeMultipartUpload(S3Location where, String uploadId,
                                                             List<UploadedPart> parts, String crc32c) {
        List<CompletedPart> list = parts.stream().map(p -> {
            CompletedPart.Builder b = CompletedPart.builder().partNumber(p.number()).eTag(p.etag());
            if (crc32c != null) {
                b.checksumCRC32C(p.checksum());
            }
            return b.build();
        }).toList();
        return run("CompleteMultipartUpload", where.toString(), c -> c.completeMultipartUpload(b -> {
            b.bucket(where.bucket()).key(where.key()).uploadId(uploadId).multipartUpload(u -> u.parts(list));
            if (crc32c != null) {
                b.checksumCRC32C(crc32c).checksumType(ChecksumType.FULL_OBJECT);
            }
        }).thenApply(r -> r.checksumCRC32C()));
    }

    @Override
    public CompletableFuture<Void> abortMultipartUpload(S3Location where, String uploadId) {
        return run("AbortMultipartUpload", where.toString(), c -> c.abortMultipartUpload(b -> b.bucket(where.bucket())
                .key(where.key()).uploadId(uploadId)).handle((r, e) -> {
                    if (e != null && !notFound(e)) {
                        throw new CompletionException(unwrap(e));
                    }
                    return null;
                }));
    }

    @Override
    public CompletableFuture<List<String>> uploadsOf(S3Location where) {
        return run("ListMultipartUploads", where.toString(), c -> listed(c, where, new ArrayList<>(), null, null, 0));
    }

    private static CompletableFuture<List<String>> listed(S3AsyncClient c, S3Location where, List<String> ids,
                                                          String keyMarker, String idMarker, int page) {
        return c.listMultipartUploads(b -> b.bucket(where.bucket()).prefix(where.key()).keyMarker(keyMarker)
                .uploadIdMarker(idMarker)).thenCompose((ListMultipartUploadsResponse r) -> {
                    r.uploads().stream().filter(u -> where.key().equals(u.key())).forEach(u -> ids.add(u.uploadId()));
                    if (!Boolean.TRUE.equals(r.isTruncated()) || page >= 99) {
                        return CompletableFuture.completedFuture(ids);
                    }
                    return listed(c, where, ids, r.nextKeyMarker(), r.nextUploadIdMarker(), page + 1);
                });
    }

    @Override
    public CompletableFuture<Void> putObject(S3Location where, Map<String, String> metadata, MemorySegment body) {
        PutObjectRequest.Builder req = PutObjectRequest.builder().bucket(where.bucket()).key(where.key())
                .contentLength(body.byteSize()).metadata(metadata).contentType("application/octet-stream");
        if (sync != null && sync.uploads()) {
            CompletableFuture<?> raw = run("PutObject", where.toString(), c -> sync.putObject(req, body), false);
            return S3Transport.cancelling(raw, raw.thenApply(r -> null));
        }
        AsyncRequestBody content = body.byteSize() == 0 ? AsyncRequestBody.empty() : body(body);
        return run("PutObject", where.toString(), c -> c.putObject(req.build(), content).thenApply(r -> null));
    }

    @Override
    public CompletableFuture<Optional<ObjectHead>> headObject(S3Location where) {
        if (sync != null && !setClient.made()) {
            // a load's first request: through the sync client that its GETs use, so that a load never
            // makes the async one (Netty's event loops, arenas and classes)
            return run("HeadObject", where.toString(), c -> sync.head(where, crc32c), false);
        }
        return run("HeadObject", where.toString(), c -> c.headObject(b -> {
            b.bucket(where.bucket()).key(where.key());
            if (crc32c) {
                b.checksumMode(ChecksumMode.ENABLED);
            }
        }).handle((h, e) -> {
            if (e != null) {
                if (notFound(e)) {
                    return Optional.empty();
                }
                throw new CompletionException(unwrap(e));
            }
            return Optional.of(new ObjectHead(h.contentLength(), h.eTag(), h.metadata(), h.checksumCRC32C()));
        }));
    }

    @Override
    public CompletableFuture<Void> deleteObject(S3Location where) {
        return run("DeleteObject", where.toString(), c -> c.deleteObject(b -> b.bucket(where.bucket()).key(where.key()))
                .handle((r, e) -> {
                    if (e != null && !notFound(e)) {
                        throw new CompletionException(unwrap(e));
                    }
                    return null;
                }));
    }

    /** The segment's own memory (no copy), as {@value #BODY_PIECE}-byte pieces. */
    private static AsyncRequestBody body(MemorySegment body) {
        int n = (int) ((body.byteSize() + BODY_PIECE - 1) / BODY_PIECE);
        ByteBuffer[] pieces = new ByteBuffer[n];
        for (int i = 0; i < n; i++) {
            long at = (long) i * BODY_PIECE;
            pieces[i] = body.asSlice(at, Math.min(BODY_PIECE, body.byteSize() - at)).asByteBuffer();
        }
        return AsyncRequestBody.fromRemainingByteBuffersUnsafe(pieces);
    }

    /**
     * Sums each piece as the GET copies it into the segment (the sync GET's copy, or the async
     * client's through a {@link RangeSink}); a null {@code sum} for a plain GET.
     */
    @Override
    public CompletableFuture<Long> getRange(S3Location where, long offset, MemorySegment dst, String etag,
                                            Checksum sum) {
        String range = "bytes=" + offset + "-" + (offset + dst.byteSize() - 1);
        if (sync != null) {
            return run("GetObject " + range, where.toString(), c -> sync.get(where, offset, dst, etag, endpoint, sum),
                    false);
        }
        GetObjectRequest.Builder req = GetObjectRequest.builder().bucket(where.bucket()).key(where.key()).range(range);
        if (etag != null) {
            req.ifMatch(etag);
        }
        RangeSink sink = new RangeSink(dst, sum, range + " of " + where, etag,
                got -> new ETagChanged("GetObject " + range, where, endpoint, etag, got));
        CompletableFuture<Long> raw = run("GetObject " + range, where.toString(), c -> c.getObject(req.build(), sink));
        CompletableFuture<Long> out = raw.handle((n, e) -> {
            sink.close(); // no byte lands in the segment after the future completes
            if (e != null) {
                throw new CompletionException(unwrap(e));
            }
            return n;
        });
        out.whenComplete((n, e) -> sink.close()); // a cancel of out too
        return S3Transport.cancelling(raw, out);
    }

    @Override
    public CompletableFuture<Long> getRange(S3Location where, long offset, MemorySegment dst, String etag) {
        return getRange(where, offset, dst, etag, null);
    }

    /**
     * Connect failures, timeouts, TLS failures, broken connections and 5xx answers are the
     * endpoint's; other answers (4xx) and the SDK's own refusals are the request's.
     */
    @Override
    public FailureKind classify(Throwable failure) {
        Throwable t = unwrap(failure);
        if (S3Errors.has(t, ETagChanged.class)
                || t instanceof S3Exception e && S3Errors.preconditionFailed(e.statusCode())) {
            return FailureKind.CHANGED;
        }
        if (t instanceof S3Exception e && S3Errors.corrupted(e.statusCode(), code(e))) {
            return FailureKind.CORRUPTED;
        }
        if (t instanceof S3Exception e) {
            // 5xx, and 429: this gateway throttles (another may not)
            return e.statusCode() >= 500 || e.statusCode() == 429 ? FailureKind.ENDPOINT : FailureKind.REQUEST;
        }
        if (t instanceof ApiCallTimeoutException || t instanceof ApiCallAttemptTimeoutException
                || S3Errors.has(t, IOException.class) || S3Errors.has(t, TimeoutException.class)) {
            return FailureKind.ENDPOINT;
        }
        return FailureKind.REQUEST;
    }

    @Override
    public IOException describe(String operation, S3Location where, Throwable failure) {
        Throwable t = unwrap(failure);
        if (t.getClass() == IOException.class && t.getMessage() != null
                && t.getMessage().contains(": cannot connect to the S3 endpoint ")) {
            // the TCP check's refusal
            return new IOException(S3Errors.cannotConnect(operation, where, endpoint, S3Errors.rootMessage(t)), t);
        }
        return new IOException(line(operation, where, t), t);
    }

    private String line(String operation, S3Location where, Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof ETagChanged) {
                return c.getMessage();
            }
        }
        if (t instanceof NoSuchBucketException || t instanceof S3Exception e && "NoSuchBucket".equals(code(e))) {
            return S3Errors.noSuchBucket(where, endpoint);
        }
        if (t instanceof S3Exception e && e.statusCode() == 999) {
            // Netty's HTTP decoder gives an answer it cannot parse this status
            return S3Errors.failed(operation, where, endpoint, "the answer is not HTTP (garbage)");
        }
        if (t instanceof S3Exception e) {
            String code = code(e);
            if (S3Errors.refusesCredentials(e.statusCode(), code)) {
                return S3Errors.credentialsRefused(operation, where, endpoint, settings, e.statusCode(), code);
            }
            return S3Errors.httpError(operation, where, endpoint, e.statusCode(), code,
                    e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorMessage());
        }
        String root = S3Errors.rootMessage(t);
        if (S3Errors.has(t, SSLException.class)) {
            return S3Errors.tls(operation, where, endpoint, root);
        }
        if (S3Errors.has(t, ConnectException.class) || root.contains("Connection refused")) {
            return S3Errors.cannotConnect(operation, where, endpoint, root);
        }
        if (t instanceof ApiCallTimeoutException || t instanceof ApiCallAttemptTimeoutException) {
            return S3Errors.timedOut(operation, where, endpoint, t.getMessage());
        }
        if (S3Errors.isTimeout(t)) {
            return S3Errors.timedOut(operation, where, endpoint, S3Errors.timeoutReason(settings, t));
        }
        if (S3Errors.has(t, ClosedChannelException.class) || S3Errors.has(t, IOException.class)) {
            return S3Errors.connectionBroke(operation, where, endpoint, root);
        }
        return S3Errors.failed(operation, where, endpoint, root);
    }

    private static String code(S3Exception e) {
        return e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
    }

    private static boolean notFound(Throwable failure) {
        return unwrap(failure) instanceof S3Exception e && e.statusCode() == 404;
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof java.util.concurrent.ExecutionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    @Override
    public void close() {
        try {
            S3AsyncClient c = client.ifMade();
            if (closesClient && c != null) {
                c.close();
            }
        } finally {
            if (ownSync != null) {
                ownSync.close();
            }
        }
    }
}
