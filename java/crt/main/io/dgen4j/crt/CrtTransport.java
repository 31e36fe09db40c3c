package io.dgen4j.crt;

import io.dgen4j.s3.spi.S3Errors;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.internal.RangeSink;
import io.dgen4j.s3.spi.S3Transport;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.Checksum;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
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
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;

/**
 * The S3 calls of the {@code crt} backend against one endpoint, through one CRT-based
 * {@link S3AsyncClient} created once: one request per call, no retry on another endpoint (the CRT
 * retries on the same one, {@value CrtClients#RETRIES} times at most, within its timeouts).
 *
 * <p>Copies: a part's body is the caller's segment itself ({@link AsyncRequestBody#fromRemainingByteBufferUnsafe});
 * the CRT's JNI body stream copies it once into a native buffer of the part's size (its UploadPart,
 * a "default" meta request, reads the whole body before sending so that it can retry it). A ranged
 * GET's body is read out of the CRT's own buffers, which its direct buffer pool lends to Java, into
 * the caller's segment through a small buffer in cache ({@link PooledGets}): no heap array per
 * piece. Only one client of a process has such a pool ({@link LendingClient}); the others' GETs
 * take each piece as a new heap array, copied into the segment on the CRT's thread ({@link RangeSink}).
 *
 * <p>In {@link S3Settings.ChecksumMode#CRC32C} mode (the default) the checksums are request members
 * sent as plain headers: the upload's algorithm and type, each part's {@code x-amz-checksum-crc32c}
 * (the driver's value: the client computes nothing, being built {@code WHEN_REQUIRED}), the parts'
 * and the object's CRCs in the completion; HEADs ask for the object's checksum.
 *
 * <p>With {@link S3Settings.ChecksumMode#FULL} the upload is created with CRC32, every part sends
 * one and the completion lists them (those its caller does not pass, as remembered from the parts'
 * answers).
 */
public final class CrtTransport implements S3Transport {
    private static final Logger LOG = LoggerFactory.getLogger(CrtTransport.class);
    /** Requests in flight the client is sized for when the settings set none. */
    static final int DEFAULT_IN_FLIGHT = 16;
    /** Stands for the CRT's threads (never started): a segment it may access is not thread-confined. */
    static final Thread ELSEWHERE = Thread.ofPlatform().unstarted(() -> { });

    private final S3AsyncClient client;
    /** The threads that read ranged GETs' bodies out of the CRT's lent buffers; null when its client lends none. */
    private final PooledGets gets;
    /** Whether {@link #gets} is this transport's own (closed with it), not its endpoint set's. */
    private final boolean ownGets;
    private final S3Settings settings;
    private final String endpoint;
    private final boolean fullChecksums;
    private final boolean crc32c;
    /**
     * With full checksums: each open upload's part checksums, by upload id, shared by the transports of
     * one endpoint set (the parts of one upload may go through every endpoint's transport), so that the
     * completion lists them even when its caller passes parts without ({@link UploadedPart#checksum()}
     * null). Removed when the upload is completed or aborted; gone with the set's clients.
     */
    private final Map<String, Map<Integer, String>> partChecksums;
    private volatile boolean warnedConfined;

    /**
     * A transport over {@code client}, whose requests go to the one endpoint of {@code settings}, keeping
     * part checksums in {@code partChecksums} (shared with the other transports of its endpoint set).
     */
    CrtTransport(S3AsyncClient client, PooledGets gets, S3Settings settings,
                 Map<String, Map<Integer, String>> partChecksums) {
        this(client, gets, false, settings, partChecksums);
    }

    private CrtTransport(S3AsyncClient client, PooledGets gets, boolean ownGets, S3Settings settings,
                         Map<String, Map<Integer, String>> partChecksums) {
        this.client = client;
        this.gets = gets;
        this.ownGets = ownGets;
        this.settings = settings;
        this.endpoint = settings.endpoint().map(Object::toString).orElseGet(settings::endpointDescription);
        this.fullChecksums = CrtClients.fullChecksums(settings);
        this.crc32c = settings.checksumMode() == S3Settings.ChecksumMode.CRC32C;
        this.partChecksums = partChecksums;
    }

    /**
     * A transport for the one endpoint of {@code settings} (the first of a set), its client sized
     * for the settings' requests in flight (else {@value #DEFAULT_IN_FLIGHT}).
     *
     * @throws IOException when the CRT cannot be used here, there are no credentials, or the CA
     *                     bundle cannot be used by this client
     */
    public static CrtTransport open(S3Settings settings) throws IOException {
        return open(settings, settings.maxInFlight().orElse(DEFAULT_IN_FLIGHT));
    }

    /** A transport whose client (its own) has room for {@code inFlight} data requests at once. */
    static CrtTransport open(S3Settings settings, int inFlight) throws IOException {
        S3AsyncClient client = client(settings, inFlight);
        PooledGets gets = client instanceof LendingClient ? new PooledGets() : null;
        return new CrtTransport(client, gets, gets != null, settings, new ConcurrentHashMap<>());
    }

    /** The client for the one endpoint of {@code settings}, with room for {@code inFlight} data requests at once. */
    static S3AsyncClient client(S3Settings settings, int inFlight) throws IOException {
        return CrtClients.open(settings, inFlight, settings.endpointDescription());
    }

    @Override
    public String endpoint() {
        return endpoint;
    }

    /** Whether this transport's GETs read the CRT's lent buffers (its client holds the process's pool). */
    boolean lends() {
        return gets != null;
    }

    @Override
    public CompletableFuture<Void> headBucket(String bucket) {
        return start(() -> client.headBucket(r -> r.bucket(bucket)).thenApply(r -> null));
    }

    @Override
    public CompletableFuture<String> createMultipartUpload(S3Location where, Map<String, String> metadata) {
        return createMultipartUpload(where, metadata, false);
    }

    @Override
    public CompletableFuture<String> createMultipartUpload(S3Location where, Map<String, String> metadata,
                                                           boolean crc32c) {
        return start(() -> client.createMultipartUpload(r -> {
            r.bucket(where.bucket()).key(where.key()).metadata(metadata);
            if (crc32c) {
                r.checksumAlgorithm(ChecksumAlgorithm.CRC32_C).checksumType(ChecksumType.FULL_OBJECT);
            } else if (fullChecksums) {
                r.checksumAlgorithm(ChecksumAlgorithm.CRC32);
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
        return start(() -> {
            UploadPartRequest.Builder r = UploadPartRequest.builder().bucket(where.bucket()).key(where.key())
                    .uploadId(uploadId).partNumber(partNumber).contentLength(body.byteSize());
            if (crc32c != null) {
                r.checksumCRC32C(crc32c); // a header with the value given: the client computes none
            } else if (fullChecksums) {
                r.checksumAlgorithm(ChecksumAlgorithm.CRC32);
            }
            // The segment's own memory, no copy on the Java side; the CRT copies it once (see above).
            return client.uploadPart(r.build(), AsyncRequestBody.fromRemainingByteBufferUnsafe(readable(body, where)))
                    .thenApply(p -> {
                        if (fullChecksums && p.checksumCRC32() != null) {
                            partChecksums.computeIfAbsent(uploadId, k -> new ConcurrentHashMap<>())
                                    .put(partNumber, p.checksumCRC32());
                        }
                        return new UploadedPart(partNumber, p.eTag(), crc32c != null ? p.checksumCRC32C()
                                : p.checksumCRC32());
                    })
                    .exceptionally(e -> {
                        if (crc32c != null && CrtErrors.status(e) == 400 && CrtErrors.code(e).isEmpty()) {
                            throw new java.util.concurrent.CompletionException(new CodelessRefusal(CrtErrors.unwrap(e)));
                        }
                        throw e instanceof java.util.concurrent.CompletionException c ? c
                                : new java.util.concurrent.CompletionException(e);
                    });
        });
    }

    /**
     * An HTTP 400 without an error code to a part sent with its CRC32C, taken for the store's refusal
     * of the checksum ({@link FailureKind#CORRUPTED}): the CRT reads no body of an answer delimited by
     * the connection's close, which is how s3proxy answers {@code BadDigest}, so the code is lost.
     * Any other 400 would be refused again on the next attempt, and fail the write after it.
     */
    static final class CodelessRefusal extends RuntimeException {
        CodelessRefusal(Throwable answer) {
            super(answer);
        }
    }

    @Override
    public CompletableFuture<String> completeMultipartUpload(S3Location where, String uploadId,
                                                             List<UploadedPart> parts, String crc32c) {
        if (crc32c == null) {
            return completeMultipartUpload(where, uploadId, parts).thenApply(r -> null);
        }
        return start(() -> {
            List<CompletedPart> done = parts.stream().map(p -> CompletedPart.builder().partNumber(p.number())
                    .eTag(p.etag()).checksumCRC32C(p.checksum()).build()).toList();
            return client.completeMultipartUpload(r -> r.bucket(where.bucket()).key(where.key()).uploadId(uploadId)
                    .multipartUpload(m -> m.parts(done)).checksumCRC32C(crc32c).checksumType(ChecksumType.FULL_OBJECT))
                    .thenApply(r -> r.checksumCRC32C());
        });
    }

    @Override
    public CompletableFuture<Void> completeMultipartUpload(S3Location where, String uploadId, List<UploadedPart> parts) {
        return start(() -> {
            Map<Integer, String> known = partChecksums.getOrDefault(uploadId, Map.of());
            List<CompletedPart> done = parts.stream().map(p -> {
                CompletedPart.Builder c = CompletedPart.builder().partNumber(p.number()).eTag(p.etag());
                String crc = p.checksum() != null ? p.checksum() : known.get(p.number());
                if (fullChecksums && crc != null) {
                    c.checksumCRC32(crc);
                }
                return c.build();
            }).toList();
            return client.completeMultipartUpload(r -> r.bucket(where.bucket()).key(where.key()).uploadId(uploadId)
                    .multipartUpload(m -> m.parts(done))).thenApply(r -> {
                        partChecksums.remove(uploadId);
                        return null;
                    });
        });
    }

    @Override
    public CompletableFuture<Void> abortMultipartUpload(S3Location where, String uploadId) {
        return start(() -> client.abortMultipartUpload(r -> r.bucket(where.bucket()).key(where.key())
                .uploadId(uploadId))).handle((r, e) -> {
                    if (e != null && !CrtErrors.notFound(e)) {
                        throw new java.util.concurrent.CompletionException(CrtErrors.unwrap(e));
                    }
                    partChecksums.remove(uploadId);
                    return null; // aborted, or gone already (404 NoSuchUpload)
                });
    }

    @Override
    public CompletableFuture<List<String>> uploadsOf(S3Location where) {
        return start(() -> listPage(where, new java.util.ArrayList<>(), null, null, 0));
    }

    /** One page of ListMultipartUploads on the key, then the next (up to 100). */
    private CompletableFuture<List<String>> listPage(S3Location where, List<String> ids, String keyMarker,
                                                     String idMarker, int n) {
        return client.listMultipartUploads(r -> {
            r.bucket(where.bucket()).prefix(where.key());
            if (keyMarker != null) {
                r.keyMarker(keyMarker).uploadIdMarker(idMarker);
            }
        }).thenCompose((ListMultipartUploadsResponse page) -> {
            for (MultipartUpload u : page.uploads()) {
                if (u.key().equals(where.key())) {
                    ids.add(u.uploadId());
                }
            }
            if (!Boolean.TRUE.equals(page.isTruncated()) || page.nextKeyMarker() == null || n >= 99) {
                return CompletableFuture.completedFuture(ids);
            }
            return listPage(where, ids, page.nextKeyMarker(), page.nextUploadIdMarker(), n + 1);
        });
    }

    @Override
    public CompletableFuture<Void> putObject(S3Location where, Map<String, String> metadata, MemorySegment body) {
        return start(() -> client.putObject(r -> r.bucket(where.bucket()).key(where.key())
                        .contentLength(body.byteSize()).metadata(metadata),
                body.byteSize() == 0 ? AsyncRequestBody.empty()
                        : AsyncRequestBody.fromRemainingByteBufferUnsafe(readable(body, where)))
                .thenApply(r -> null));
    }

    @Override
    public CompletableFuture<Optional<ObjectHead>> headObject(S3Location where) {
        return start(() -> client.headObject(r -> {
            r.bucket(where.bucket()).key(where.key());
            if (crc32c) {
                r.checksumMode(ChecksumMode.ENABLED);
            }
        })).handle((h, e) -> {
            if (e != null) {
                if (CrtErrors.notFound(e)) {
                    return Optional.<ObjectHead>empty();
                }
                throw new java.util.concurrent.CompletionException(CrtErrors.unwrap(e));
            }
            Map<String, String> meta = new HashMap<>();
            h.metadata().forEach((k, v) -> meta.put(k.toLowerCase(Locale.ROOT), v));
            return Optional.of(new ObjectHead(h.contentLength() == null ? 0 : h.contentLength(), h.eTag(),
                    Map.copyOf(meta), h.checksumCRC32C()));
        });
    }

    @Override
    public CompletableFuture<Void> deleteObject(S3Location where) {
        return start(() -> client.deleteObject(r -> r.bucket(where.bucket()).key(where.key()))).handle((r, e) -> {
            if (e != null && !CrtErrors.notFound(e)) {
                throw new java.util.concurrent.CompletionException(CrtErrors.unwrap(e));
            }
            return null;
        });
    }

    /**
     * {@inheritDoc}
     *
     * <p>The CRT's threads copy the body into {@code dst} as it arrives; a {@code dst} confined to
     * one thread is refused (the driver reads into such a segment through a shared one).
     */
    @Override
    public CompletableFuture<Long> getRange(S3Location where, long offset, MemorySegment dst, String etag) {
        return getRange(where, offset, dst, etag, null);
    }

    /** Sums each piece as it is copied into the segment (see {@link PooledGets} and {@link RangeSink}). */
    @Override
    public CompletableFuture<Long> getRange(S3Location where, long offset, MemorySegment dst, String etag,
                                            Checksum sum) {
        long len = dst.byteSize();
        if (offset < 0) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("negative offset " + offset + " of "
                    + object(where)));
        }
        if (len == 0) {
            return CompletableFuture.completedFuture(0L);
        }
        String range = String.format("bytes %d..%d of %s", offset, offset + len, object(where));
        if (!dst.isAccessibleBy(ELSEWHERE)) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("the segment to read " + range
                    + " into is confined to one thread: the CRT fills it from its own (use a shared, global or "
                    + "automatic arena)"));
        }
        return start(() -> {
            GetObjectRequest.Builder r = GetObjectRequest.builder().bucket(where.bucket()).key(where.key())
                    .range("bytes=" + offset + "-" + (offset + len - 1));
            if (etag != null) {
                r.ifMatch(etag);
            }
            String op = "GetObject bytes=" + offset + "-" + (offset + len - 1);
            if (gets != null) {
                return gets.get(client, r.build(), dst, sum, range, etag,
                        got -> new ETagChanged(op, where, endpoint, etag, got));
            }
            RangeSink sink = new RangeSink(dst, sum, range, etag, got -> new ETagChanged(op, where, endpoint, etag, got));
            CompletableFuture<Long> f = client.getObject(r.build(), sink);
            // however it ends (a cancel included), nothing more lands in dst after this
            f.whenComplete((n, e) -> sink.close());
            return f;
        });
    }

    @Override
    public FailureKind classify(Throwable failure) {
        if (S3Errors.has(failure, ETagChanged.class) || S3Errors.preconditionFailed(CrtErrors.status(failure))) {
            return FailureKind.CHANGED;
        }
        if (S3Errors.corrupted(CrtErrors.status(failure), CrtErrors.code(failure))
                || S3Errors.has(failure, CodelessRefusal.class)) {
            return FailureKind.CORRUPTED;
        }
        return CrtErrors.endpointsFault(failure) ? FailureKind.ENDPOINT : FailureKind.REQUEST;
    }

    /**
     * {@inheritDoc}
     *
     * <p>In the words every S3 backend uses ({@link S3Errors}); the CRT reports a failure without an
     * answer as "Failed to send the request: " and its error's text (socket connection refused, TLS
     * (SSL) negotiation failed, socket is closed, ...), which says which kind it is.
     */
    @Override
    public IOException describe(String operation, S3Location where, Throwable failure) {
        Throwable t = CrtErrors.unwrap(failure);
        if (t instanceof CodelessRefusal r) {
            return new IOException(line(operation, where, r.getCause()) + " (no error code: taken for the store's "
                    + "refusal of the part's CRC32C)", r.getCause());
        }
        return new IOException(line(operation, where, t), t);
    }

    private String line(String operation, S3Location where, Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof ETagChanged) {
                return c.getMessage();
            }
        }
        if (t instanceof AwsServiceException e) {
            int status = e.statusCode();
            String code = CrtErrors.code(e);
            if (code.equals("NoSuchBucket") || status == 404 && operation.startsWith("HeadBucket")) {
                // a HEAD's 404 has no body, hence no code: the bucket is what was asked for; the words are
                // every client's
                return S3Errors.noSuchBucket(where, endpoint);
            }
            if (S3Errors.refusesCredentials(status, code)) {
                return S3Errors.credentialsRefused(operation, where, endpoint, settings, status,
                        code.isEmpty() ? null : code);
            }
            String message = e.awsErrorDetails() == null || e.awsErrorDetails().errorMessage() == null ? null
                    : e.awsErrorDetails().errorMessage().replaceAll("[\\r\\n]+", " ").strip();
            return S3Errors.httpError(operation, where, endpoint, status, code.isEmpty() ? null : code, message);
        }
        String reason = CrtErrors.oneLine(t).replaceFirst("^Failed to send the request: ", "");
        String r = reason.toLowerCase(Locale.ROOT);
        if (S3Errors.isTimeout(t) || r.contains("throughput minimum")) {
            return S3Errors.timedOut(operation, where, endpoint, S3Errors.timeoutReason(settings, t));
        }
        if (t instanceof ApiCallTimeoutException || t instanceof ApiCallAttemptTimeoutException
                || r.contains("timed out") || r.contains("timeout")) {
            return S3Errors.timedOut(operation, where, endpoint, reason);
        }
        if (r.contains("tls") || r.contains("ssl")) {
            // not S3Errors.tls: AWS_CA_BUNDLE cannot help this client over https
            return String.format("%s of %s: TLS with %s failed: %s (the crt backend trusts only the system's CA "
                    + "file: add the certificate authority there, or use --backend aws with AWS_CA_BUNDLE)", operation,
                    where, endpoint, reason);
        }
        if (r.contains("refused") || r.contains("dns") || r.contains("host name") || r.contains("unreachable")
                || r.contains("no route")) {
            return S3Errors.cannotConnect(operation, where, endpoint, reason);
        }
        if (r.contains("closed") || r.contains("reset") || r.contains("broken pipe") || r.contains("socket")) {
            return S3Errors.connectionBroke(operation, where, endpoint, reason);
        }
        return S3Errors.failed(operation, where, endpoint, reason);
    }

    @Override
    public void close() {
        client.close();
        if (ownGets) {
            gets.close();
        }
    }

    @Override
    public String toString() {
        return "crt transport to " + endpoint + " (checksums " + CrtClients.checksums(settings) + ")";
    }

    private static String object(S3Location where) {
        return "s3://" + where.bucket() + "/" + where.key();
    }

    /**
     * The segment's memory as a buffer the CRT's threads may read: the segment itself, or a copy
     * when it is confined to the caller's thread (the checkpoint's pool is shared and never is).
     */
    private ByteBuffer readable(MemorySegment body, S3Location where) {
        if (body.isAccessibleBy(ELSEWHERE)) {
            return body.asByteBuffer();
        }
        MemorySegment copy = Arena.ofAuto().allocate(body.byteSize(), 4096);
        MemorySegment.copy(body, 0, copy, 0, body.byteSize());
        if (!warnedConfined) {
            warnedConfined = true;
            LOG.debug("{}: bodies come from thread-confined segments: each is copied once for the CRT", object(where));
        }
        return copy.asByteBuffer();
    }

    /**
     * Runs {@code call}, turning what it throws before any request into a failed future. The future
     * returned passes a cancel on to the client's ({@code S3AsyncClient} cancels its request), and
     * completes with an {@link OutOfMemoryError} where the CRT reports that its call into Java ran out
     * of heap (an {@link Error}: the driver neither retries it nor blames the endpoint).
     */
    private static <T> CompletableFuture<T> start(java.util.function.Supplier<CompletableFuture<T>> call) {
        CompletableFuture<T> raw;
        try {
            raw = call.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<T> out = new CompletableFuture<>();
        raw.whenComplete((r, e) -> {
            if (e == null) {
                out.complete(r);
            } else {
                out.completeExceptionally(CrtErrors.jvmError(e));
            }
        });
        return S3Transport.cancelling(raw, out);
    }
}
