package io.dgen4j.minio;

import io.dgen4j.s3.internal.Crc32c;
import io.dgen4j.s3.spi.S3Errors;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.spi.S3Transport;
import io.minio.AbortMultipartUploadArgs;
import io.minio.Checksum;
import io.minio.CompleteMultipartUploadArgs;
import io.minio.CreateMultipartUploadArgs;
import io.minio.GetObjectArgs;
import io.minio.GetObjectResponse;
import io.minio.HeadBucketArgs;
import io.minio.Http;
import io.minio.ListMultipartUploadsArgs;
import io.minio.MinioAsyncClient;
import io.minio.PutObjectAPIArgs;
import io.minio.RemoveObjectArgs;
import io.minio.StatObjectArgs;
import io.minio.StatObjectResponse;
import io.minio.UploadPartArgs;
import io.minio.errors.ErrorResponseException;
import io.minio.errors.InsufficientDataException;
import io.minio.errors.InvalidResponseException;
import io.minio.errors.ServerException;
import io.minio.messages.Part;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The S3 calls of the {@code minio} backend against one endpoint, through a {@code MinioAsyncClient}
 * of its own over OkHttp (daemon threads; one OkHttp client shared by an endpoint set's transports),
 * one call per method as {@link S3Transport} says.
 *
 * <p><b>No part-sized heap copy.</b> MinIO's builders take a file, a {@code byte[]} or its own
 * {@code io.minio.ByteBuffer}; {@link #uploadPart} and {@link #putObject} hand it a {@link SegmentBody},
 * that {@code ByteBuffer} reading straight from the caller's segment as OkHttp sends the request. The
 * one copy left is OkHttp's, 8 KiB at a time into its socket buffers, as for any OkHttp body. (Copying
 * each part into a {@code byte[]} first cost a part-sized array per part in flight: 270 MiB of peak
 * RSS for a save with the launcher's heap, against 162 MiB now.)
 *
 * <p><b>No extra hashing pass.</b> In the {@code CRC32C} and {@code WHEN_REQUIRED} checksum modes each
 * part is sent with {@code x-amz-content-sha256: UNSIGNED-PAYLOAD} and an {@code x-amz-checksum-crc32c}
 * computed with the JDK's CRC32C (a CPU instruction, straight from the segment; by the driver in
 * {@code CRC32C} mode, which also creates the upload for a full-object CRC32C and completes it with
 * the parts' and the object's CRCs): MinIO then skips its own SHA-256 (http) or byte-by-byte CRC32C
 * (https) of the body, and the server still checks each part's bytes. {@code FULL} leaves the hashing
 * to MinIO (a signed SHA-256 payload).
 *
 * <p>Ranged GETs hand their body out as an {@code InputStream}: it is read on the client's own
 * threads through a per-thread 1 MiB array into the caller's segment.
 */
public final class MinioTransport implements S3Transport {
    private static final String CONTENT_TYPE = "application/octet-stream";
    private static final int STAGE = 1 << 20;
    private static final ThreadLocal<byte[]> STAGING = ThreadLocal.withInitial(() -> new byte[STAGE]);
    private static final int MAX_LIST_PAGES = 100;

    private final S3Settings settings;
    private final String endpoint;
    private final MinioClients.Entry entry;
    private final MinioAsyncClient client;
    private final PartCounters counters;
    private final boolean unsignedWithCrc;
    private final boolean crc32c;
    private final int expectedInFlight;

    private MinioTransport(S3Settings settings, MinioClients.Entry entry, PartCounters counters) {
        this.settings = settings;
        this.endpoint = settings.endpointDescription();
        this.entry = entry;
        this.client = entry.client();
        this.counters = counters;
        this.unsignedWithCrc = settings.checksumMode() != S3Settings.ChecksumMode.FULL;
        this.crc32c = settings.checksumMode() == S3Settings.ChecksumMode.CRC32C;
        this.expectedInFlight = settings.maxInFlight().orElse(1);
    }

    /**
     * A transport for the one endpoint of {@code settings} (its {@link S3Settings#endpoint()}, AWS's
     * own when empty; a set's other endpoints are ignored), with a client of its own.
     *
     * @param options     the OkHttp hook, applied after dgen4j's settings
     * @param connections requests at once and idle connections kept by the client
     * @param counters    the process's part counters, shared with the other endpoints' transports
     * @throws IOException when the CA bundle cannot be read
     */
    static MinioTransport open(S3Settings settings, MinioOptions options, int connections, PartCounters counters)
            throws IOException {
        S3Settings one = settings.endpointSet().isPresent() ? settings.perEndpoint().getFirst() : settings;
        return new MinioTransport(one, MinioClients.open(one, options, connections), counters);
    }

    /**
     * A transport for the one endpoint of {@code one} over an endpoint set's shared OkHttp client
     * (closing it leaves that client open).
     */
    static MinioTransport over(MinioClients.Shared http, S3Settings one, PartCounters counters) {
        return new MinioTransport(one, http.client(one), counters);
    }

    @Override
    public String endpoint() {
        return endpoint;
    }

    /** The settings of this endpoint. */
    S3Settings settings() {
        return settings;
    }

    @Override
    public CompletableFuture<Void> headBucket(String bucket) {
        return start(() -> client.headBucket(HeadBucketArgs.builder().bucket(bucket).build())).thenApply(r -> null);
    }

    @Override
    public CompletableFuture<String> createMultipartUpload(S3Location where, Map<String, String> metadata) {
        return createMultipartUpload(where, metadata, false);
    }

    @Override
    public CompletableFuture<String> createMultipartUpload(S3Location where, Map<String, String> metadata,
                                                           boolean crc32c) {
        Http.Headers headers = metadataHeaders(metadata);
        if (crc32c) {
            headers.set("x-amz-checksum-algorithm", "CRC32C");
            headers.set("x-amz-checksum-type", "FULL_OBJECT");
        }
        return start(() -> client.createMultipartUpload(CreateMultipartUploadArgs.builder().bucket(where.bucket())
                .object(where.key()).headers(headers).build()))
                .thenApply(r -> r.result().uploadId());
    }

    /**
     * Starts the upload of one part, streamed from {@code body} ({@link SegmentBody}): with the default
     * checksum mode its CRC32C is computed from the segment first and sent with an unsigned payload
     * (MinIO then hashes nothing). Completes exceptionally with an {@link IOException} when the answer
     * has no ETag.
     */
    @Override
    public CompletableFuture<UploadedPart> uploadPart(S3Location where, String uploadId, int partNumber,
                                                      MemorySegment body) {
        return uploadPart(where, uploadId, partNumber, body, null);
    }

    /** As {@link #uploadPart(S3Location, String, int, MemorySegment)}, with the CRC32C given when not null. */
    @Override
    public CompletableFuture<UploadedPart> uploadPart(S3Location where, String uploadId, int partNumber,
                                                      MemorySegment body, String crc32c) {
        CompletableFuture<io.minio.UploadPartResponse> call;
        SegmentBody data = new SegmentBody(body);
        String checksum = crc32c;
        try {
            Http.Headers headers = new Http.Headers();
            long crcNanos = 0;
            if (checksum != null || unsignedWithCrc) {
                long t0 = System.nanoTime();
                if (checksum == null) {
                    checksum = crc32c(body);
                }
                crcNanos = System.nanoTime() - t0;
                headers = new Http.Headers("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD", "x-amz-checksum-crc32c",
                        checksum);
            }
            counters.part(body.byteSize(), crcNanos);
            call = client.uploadPart(UploadPartArgs.builder().bucket(where.bucket()).object(where.key())
                    .uploadId(uploadId).partNumber(partNumber)
                    .setData(null, data, null, body.byteSize()).headers(headers).build());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        String crc = checksum;
        CompletableFuture<UploadedPart> out = call.handle((r, e) -> {
            if (e != null) {
                throw e instanceof CompletionException c ? c : new CompletionException(e);
            }
            if (r.part() == null || r.part().etag() == null || r.part().etag().isEmpty()) {
                throw new CompletionException(new IOException(String.format("UploadPart %d of %s at %s returned no "
                        + "ETag", partNumber, where, endpoint)));
            }
            return new UploadedPart(partNumber, r.part().etag(), crc);
        });
        // MinIO's call cannot be cancelled: a cancel of the part stops its body instead
        out.whenComplete((r, e) -> {
            if (out.isCancelled()) {
                data.cancel();
            }
        });
        return out;
    }

    /** The CRC32C of the segment, big-endian, in base 64 (the {@code x-amz-checksum-crc32c} form). */
    static String crc32c(MemorySegment body) {
        return Crc32c.base64(Crc32c.of(body));
    }

    @Override
    public CompletableFuture<Void> completeMultipartUpload(S3Location where, String uploadId,
                                                           List<UploadedPart> parts) {
        return completeMultipartUpload(where, uploadId, parts, null).thenApply(r -> null);
    }

    @Override
    public CompletableFuture<String> completeMultipartUpload(S3Location where, String uploadId,
                                                             List<UploadedPart> parts, String crc32c) {
        Part[] list = parts.stream().map(p -> crc32c == null ? new Part(p.number(), p.etag())
                : new Part(p.number(), p.etag(), null, p.checksum(), null, null, null)).toArray(Part[]::new);
        return start(() -> {
            CompleteMultipartUploadArgs.Builder b = CompleteMultipartUploadArgs.builder().bucket(where.bucket())
                    .object(where.key()).uploadId(uploadId).parts(list);
            if (crc32c != null) {
                b.extraHeaders(new Http.Headers("x-amz-checksum-crc32c", crc32c, "x-amz-checksum-type", "FULL_OBJECT"));
            }
            return client.completeMultipartUpload(b.build());
        }).thenApply(r -> crc32c == null ? null : r.checksumCRC32C());
    }

    @Override
    public CompletableFuture<Void> abortMultipartUpload(S3Location where, String uploadId) {
        return start(() -> client.abortMultipartUpload(AbortMultipartUploadArgs.builder().bucket(where.bucket())
                .object(where.key()).uploadId(uploadId).build()))
                .handle((r, e) -> {
                    if (e != null && !MinioErrors.notFound(e)) {
                        throw e instanceof CompletionException c ? c : new CompletionException(e);
                    }
                    return null;
                });
    }

    @Override
    public CompletableFuture<List<String>> uploadsOf(S3Location where) {
        return listPage(where, new java.util.ArrayList<>(), null, null, 0);
    }

    private CompletableFuture<List<String>> listPage(S3Location where, List<String> ids, String keyMarker,
                                                     String idMarker, int page) {
        return start(() -> client.listMultipartUploads(ListMultipartUploadsArgs.builder().bucket(where.bucket())
                .prefix(where.key()).keyMarker(keyMarker).uploadIdMarker(idMarker).build()))
                .thenCompose(resp -> {
                    var r = resp.result();
                    r.uploads().stream().filter(u -> where.key().equals(u.objectName()))
                            .forEach(u -> ids.add(u.uploadId()));
                    if (!r.isTruncated() || page + 1 >= MAX_LIST_PAGES) {
                        return CompletableFuture.completedFuture(ids);
                    }
                    return listPage(where, ids, r.nextKeyMarker(), r.nextUploadIdMarker(), page + 1);
                });
    }

    @Override
    public CompletableFuture<Void> putObject(S3Location where, Map<String, String> metadata, MemorySegment body) {
        return start(() -> {
            return client.putObject(PutObjectAPIArgs.builder().bucket(where.bucket()).object(where.key())
                    .setData(null, new SegmentBody(body), null, body.byteSize()).headers(metadataHeaders(metadata))
                    .contentType(CONTENT_TYPE).build());
        }).thenApply(r -> null);
    }

    @Override
    public CompletableFuture<Optional<ObjectHead>> headObject(S3Location where) {
        return start(() -> client.statObject(StatObjectArgs.builder().bucket(where.bucket()).object(where.key())
                .fetchChecksum(crc32c).build()))
                .handle((h, e) -> {
                    if (e != null) {
                        if (MinioErrors.notFound(e)) {
                            return Optional.empty();
                        }
                        throw e instanceof CompletionException c ? c : new CompletionException(e);
                    }
                    return Optional.of(new ObjectHead(h.size(), h.etag(), userMetadata(h),
                            crc32c && h.checksums() != null ? h.checksums().get(Checksum.Algorithm.CRC32C) : null));
                });
    }

    /** The user metadata as S3 names it (lower-case, without {@code x-amz-meta-}), first values. */
    static Map<String, String> userMetadata(StatObjectResponse h) {
        Map<String, String> m = new HashMap<>();
        for (String name : h.userMetadata().names()) {
            m.put(name.toLowerCase(Locale.ROOT), h.userMetadata().getFirst(name));
        }
        return m;
    }

    @Override
    public CompletableFuture<Void> deleteObject(S3Location where) {
        return start(() -> client.removeObject(RemoveObjectArgs.builder().bucket(where.bucket()).object(where.key())
                .build()))
                .handle((r, e) -> {
                    if (e != null && !MinioErrors.notFound(e)) {
                        throw e instanceof CompletionException c ? c : new CompletionException(e);
                    }
                    return null;
                });
    }

    /**
     * Starts the GET; its body is read into {@code dst} on the client's threads (never the caller's).
     * Completes exceptionally with an {@link IOException} when the server sends more bytes than asked for.
     */
    @Override
    public CompletableFuture<Long> getRange(S3Location where, long offset, MemorySegment dst, String etag) {
        return getRange(where, offset, dst, etag, null);
    }

    /** Sums each piece as it is copied from the staging buffer into the segment. */
    @Override
    public CompletableFuture<Long> getRange(S3Location where, long offset, MemorySegment dst, String etag,
                                            java.util.zip.Checksum sum) {
        long len = dst.byteSize();
        if (offset < 0 || len == 0) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(String.format(
                    "a ranged GET needs an offset >= 0 and at least one byte, got %d bytes at %d", len, offset)));
        }
        String range = "bytes=" + offset + "-" + (offset + len - 1);
        Landing landing = new Landing(dst, sum);
        CompletableFuture<Long> out = start(() -> {
            GetObjectArgs.Builder req = GetObjectArgs.builder().bucket(where.bucket()).object(where.key())
                    .offset(offset).length(len);
            if (etag != null) {
                req.matchETag(etag);
            }
            return client.getObject(req.build());
        }).thenApplyAsync(in -> {
            try (GetObjectResponse body = in) {
                String got = body.headers().get("ETag");
                if (!S3Transport.sameETag(etag, got)) {
                    throw new ETagChanged("GetObject " + range, where, endpoint, etag, got);
                }
                return readInto(body, landing, len, where, range);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, entry.http().executor()).exceptionally(e -> {
            Throwable t = MinioErrors.unwrap(e);
            throw new CompletionException(t instanceof UncheckedIOException u ? u.getCause() : t);
        });
        // however it ends (a cancel included), nothing more lands in dst after this
        out.whenComplete((n, e) -> landing.close());
        return out;
    }

    /** Where a GET's body lands (and what sums it): the caller's segment, until the GET ends or is cancelled. */
    private static final class Landing {
        private final MemorySegment dst;
        /** Fed each piece as it is copied (while it is in cache), or null. */
        private final java.util.zip.Checksum sum;
        private boolean closed;

        Landing(MemorySegment dst, java.util.zip.Checksum sum) {
            this.dst = dst;
            this.sum = sum;
        }

        /** Copies {@code r} bytes of {@code stage} to {@code at}; false once closed (nothing copied). */
        synchronized boolean copy(byte[] stage, long at, int r) {
            if (closed) {
                return false;
            }
            MemorySegment.copy(stage, 0, dst, ValueLayout.JAVA_BYTE, at, r);
            if (sum != null) {
                sum.update(stage, 0, r);
            }
            return true;
        }

        /** Before the first byte: the sum starts empty. */
        synchronized void startOver() {
            if (sum != null) {
                sum.reset();
            }
        }

        synchronized void close() {
            closed = true;
        }
    }

    private long readInto(GetObjectResponse in, Landing dst, long len, S3Location where, String range)
            throws IOException {
        byte[] stage = STAGING.get();
        dst.startOver();
        long n = 0;
        while (n < len) {
            int r = in.read(stage, 0, (int) Math.min(stage.length, len - n));
            if (r < 0) {
                break;
            }
            if (!dst.copy(stage, n, r)) {
                throw new java.io.InterruptedIOException(String.format("GetObject %s of %s at %s cancelled", range,
                        where, endpoint));
            }
            n += r;
        }
        if (n == len && in.read() >= 0) {
            throw new IOException(String.format("GetObject %s of %s at %s returned more bytes than asked for", range,
                    where, endpoint));
        }
        return n;
    }

    /**
     * {@link FailureKind#ENDPOINT} for a refused, reset or broken connection, a timeout, a TLS
     * failure, an HTTP 5xx or an answer that is not S3's; {@link FailureKind#REQUEST} for an HTTP 4xx
     * (credentials, missing bucket, precondition) and bad arguments.
     */
    @Override
    public FailureKind classify(Throwable failure) {
        Throwable t = MinioErrors.unwrap(failure);
        if (t instanceof UncheckedIOException u) {
            t = u.getCause();
        }
        if (t instanceof ETagChanged) {
            return FailureKind.CHANGED;
        }
        if (t instanceof ErrorResponseException e && e.response() != null) {
            String code = MinioErrors.code(e);
            if (S3Errors.preconditionFailed(e.response().code())) {
                return FailureKind.CHANGED;
            }
            if (S3Errors.corrupted(e.response().code(), code)) {
                return FailureKind.CORRUPTED;
            }
        }
        if (t instanceof ErrorResponseException e) {
            int status = e.response() == null ? 0 : e.response().code();
            // 5xx, and 429: this gateway throttles (another may not)
            return status >= 500 || status == 429 ? FailureKind.ENDPOINT : FailureKind.REQUEST;
        }
        if (t instanceof ServerException e) {
            return e.statusCode() >= 500 || e.statusCode() == 429 || e.statusCode() == 0 ? FailureKind.ENDPOINT
                    : FailureKind.REQUEST;
        }
        if (t instanceof IOException || t instanceof InvalidResponseException || t instanceof InsufficientDataException) {
            // ConnectException, SocketTimeoutException, SSLException, a reset or EOF: all IOExceptions
            return FailureKind.ENDPOINT;
        }
        return FailureKind.REQUEST;
    }

    /**
     * One line: the operation, the object, this endpoint and the cause (HTTP status, S3 error code and
     * message; or the connection's failure). MinIO's own exception strings, which carry the request's
     * headers, are never quoted; the failure is kept as the cause.
     */
    @Override
    public IOException describe(String operation, S3Location where, Throwable failure) {
        Throwable t = MinioErrors.unwrap(failure);
        if (t instanceof UncheckedIOException u) {
            t = u.getCause();
        }
        if (t instanceof ETagChanged) {
            return new IOException(t.getMessage(), t);
        }
        return MinioErrors.io(operation, where, settings, t);
    }

    /** Closes the client: its calls are cancelled, its connections dropped, its threads stopped. */
    @Override
    public void close() {
        entry.close();
    }

    @Override
    public String toString() {
        return "minio transport to " + endpoint;
    }

    private static Http.Headers metadataHeaders(Map<String, String> metadata) {
        Http.Headers h = new Http.Headers("Content-Type", CONTENT_TYPE);
        metadata.forEach((k, v) -> h.set("x-amz-meta-" + k, v));
        return h;
    }

    /** Starts a client call; a call that throws before returning its future becomes a failed future. */
    private static <T> CompletableFuture<T> start(Call<T> call) {
        try {
            return call.start();
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** A client call that may throw while it builds its request. */
    @FunctionalInterface
    private interface Call<T> {
        CompletableFuture<T> start() throws Exception;
    }
}
