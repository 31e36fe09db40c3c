package io.dgen4j.s3.spi;

import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.zip.Checksum;

/**
 * The S3 calls one backend makes against one endpoint, and nothing else: the multipart upload's
 * plan, the choice of endpoint for each request, failover, retries on another endpoint, the check
 * after commit, abort and cleanup, and statistics are the driver's ({@code dgen4j-s3}), shared by
 * every client library. A backend implements this once per client library (AWS SDK v2, AWS CRT,
 * MinIO) and the driver holds one instance per endpoint, made on its first request (from a
 * {@link S3TransportFactory.Group} that the endpoints of a set share) and reused.
 *
 * <p>Every method starts the call and returns at once; failures complete the future exceptionally
 * with the client library's own exception, which {@link #classify} and {@link #describe} interpret.
 * A transport never retries on another endpoint itself (its client library may retry on the same
 * one, within its own timeouts).
 */
public interface S3Transport extends AutoCloseable {

    /** Whether a failure is the endpoint's (try another) or the request's (fails everywhere). */
    enum FailureKind {
        /** Connection refused or reset, timeout, TLS handshake failure, HTTP 5xx: the endpoint is unhealthy. */
        ENDPOINT,
        /** HTTP 4xx (credentials, missing bucket), bad arguments: another endpoint would say the same. */
        REQUEST,
        /**
         * The store found that the body it received does not match the checksum sent with it (HTTP 400
         * {@code BadDigest} and its kin): the bytes were damaged on their way; the same bytes may be sent again.
         */
        CORRUPTED,
        /**
         * The object is no longer the one the request named: HTTP 412 to its {@code If-Match}, or an
         * answer carrying another ETag. It was replaced meanwhile; asking again cannot help.
         */
        CHANGED
    }

    /** One uploaded part: its number (1-based), its ETag and, when the backend sends one, its checksum. */
    record UploadedPart(int number, String etag, String checksum) {}

    /**
     * What a HEAD of an object returned.
     *
     * @param size     content length in bytes
     * @param etag     the ETag, quotes included as the server sent it
     * @param metadata user metadata, keys lower-case without the {@code x-amz-meta-} prefix
     * @param crc32c   the object's {@code x-amz-checksum-crc32c} as the store reported it (asked for with
     *                 {@code x-amz-checksum-mode: ENABLED} in {@link S3Settings.ChecksumMode#CRC32C} mode):
     *                 a full-object CRC in base 64, or a composite one ({@code <base64>-<parts>}); null when none
     */
    record ObjectHead(long size, String etag, Map<String, String> metadata, String crc32c) {
        /** A HEAD that reported no checksum. */
        public ObjectHead(long size, String etag, Map<String, String> metadata) {
            this(size, etag, metadata, null);
        }
    }

    /** The endpoint this transport talks to, as configured (e.g. {@code http://127.0.0.1:9000}). */
    String endpoint();

    /** HEAD of the bucket; completes exceptionally when it is missing or unreachable. */
    CompletableFuture<Void> headBucket(String bucket);

    /** Starts a multipart upload of {@code where} with this user metadata; completes with the upload id. */
    CompletableFuture<String> createMultipartUpload(S3Location where, Map<String, String> metadata);

    /**
     * Starts a multipart upload; with {@code crc32c}, one whose object has a full-object CRC32C
     * ({@code x-amz-checksum-algorithm: CRC32C}, {@code x-amz-checksum-type: FULL_OBJECT}), so that the
     * store checks each part's and the object's CRC. A transport that cannot send those headers
     * refuses {@code crc32c} rather than ignore it.
     */
    default CompletableFuture<String> createMultipartUpload(S3Location where, Map<String, String> metadata,
                                                            boolean crc32c) {
        return crc32c ? CompletableFuture.failedFuture(noChecksums("CreateMultipartUpload", where))
                : createMultipartUpload(where, metadata);
    }

    /**
     * Sends one part whose body is all of {@code body}. The segment is readable from any thread
     * and stays valid until the returned future completes, not after: a transport must not keep it.
     */
    CompletableFuture<UploadedPart> uploadPart(S3Location where, String uploadId, int partNumber, MemorySegment body);

    /**
     * {@link #uploadPart(S3Location, String, int, MemorySegment)} with the part's CRC32C, when not
     * null, sent as the header {@code x-amz-checksum-crc32c} (never as a trailer) for the store to
     * check against the bytes it receives. The answer's {@link UploadedPart#checksum()} is the CRC32C
     * the store reported for the part, if any.
     */
    default CompletableFuture<UploadedPart> uploadPart(S3Location where, String uploadId, int partNumber,
                                                       MemorySegment body, String crc32c) {
        return crc32c != null ? CompletableFuture.failedFuture(noChecksums("UploadPart " + partNumber, where))
                : uploadPart(where, uploadId, partNumber, body);
    }

    /** Completes the upload with {@code parts}, sorted by part number. */
    CompletableFuture<Void> completeMultipartUpload(S3Location where, String uploadId, List<UploadedPart> parts);

    /**
     * Completes the upload with {@code parts} (each with its CRC32C, {@link UploadedPart#checksum()},
     * when the upload was created for one) and, when not null, the object's full-object CRC32C
     * ({@code x-amz-checksum-crc32c}, {@code x-amz-checksum-type: FULL_OBJECT}) for the store to check;
     * completes with the CRC32C the store reported for the object, or null when it reported none.
     */
    default CompletableFuture<String> completeMultipartUpload(S3Location where, String uploadId,
                                                              List<UploadedPart> parts, String crc32c) {
        return crc32c != null ? CompletableFuture.failedFuture(noChecksums("CompleteMultipartUpload", where))
                : completeMultipartUpload(where, uploadId, parts).thenApply(v -> null);
    }

    /** Aborts the upload; an upload that no longer exists (404, NoSuchUpload) completes normally. */
    CompletableFuture<Void> abortMultipartUpload(S3Location where, String uploadId);

    /** Whether ListMultipartUploads (prefix: the key) still lists this upload of exactly this key. */
    default CompletableFuture<Boolean> uploadListed(S3Location where, String uploadId) {
        return uploadsOf(where).thenApply(ids -> ids.contains(uploadId));
    }

    /**
     * The ids of the uploads of exactly this key that ListMultipartUploads (prefix: the key) lists,
     * every page (up to 100).
     */
    CompletableFuture<List<String>> uploadsOf(S3Location where);

    /** One PutObject of all of {@code body} (used for empty objects), with this user metadata. */
    CompletableFuture<Void> putObject(S3Location where, Map<String, String> metadata, MemorySegment body);

    /**
     * HEAD of the object; empty when it does not exist (404). In {@link S3Settings.ChecksumMode#CRC32C}
     * mode it asks for the object's checksum ({@code x-amz-checksum-mode: ENABLED}).
     */
    CompletableFuture<Optional<ObjectHead>> headObject(S3Location where);

    /** Deletes the object; a missing object completes normally. */
    CompletableFuture<Void> deleteObject(S3Location where);

    /**
     * A ranged GET of {@code dst.byteSize()} bytes at {@code offset} (fewer at the object's end)
     * into {@code dst}, refused by the server unless the object's ETag is still {@code etag}
     * ({@code If-Match}; an answer with another ETag fails too, for stores that ignore the
     * condition: both as {@link FailureKind#CHANGED}); completes with the count of bytes stored in {@code dst}. The segment is
     * writable from any thread (the driver reads a confined one through a shared buffer); the transport
     * writes into it only until the returned future completes, not after (a retry of its client
     * library starts over at the segment's start).
     */
    CompletableFuture<Long> getRange(S3Location where, long offset, MemorySegment dst, String etag);

    /**
     * {@link #getRange(S3Location, long, MemorySegment, String)}, feeding {@code sum} every byte it
     * stores in {@code dst}, in order, each once it is in {@code dst} (a sum may read the bytes it is
     * fed there, as a verified load's does to compare them): {@code sum} is reset before the first
     * byte is stored, and again
     * whenever the client starts over at the segment's start (its own retry), so that once the
     * future completes it is the checksum of the bytes it counts. The bytes are summed while they are
     * in the CPU's cache instead of in a second pass over memory: transports that copy each piece of a
     * body into the segment override this default, which sums the segment once the GET has completed.
     */
    default CompletableFuture<Long> getRange(S3Location where, long offset, MemorySegment dst, String etag,
                                             Checksum sum) {
        CompletableFuture<Long> raw = getRange(where, offset, dst, etag);
        CompletableFuture<Long> out = raw.thenApply(n -> {
            sum.reset();
            sum.update(dst.asSlice(0, n).asByteBuffer());
            return n;
        });
        return cancelling(raw, out);
    }

    /**
     * {@code derived}, whose cancel (the driver's, on an interrupt) cancels {@code raw}, the client's
     * request it was derived from: a cancel reaches the request through any stage a transport adds.
     */
    static <T> CompletableFuture<T> cancelling(CompletableFuture<?> raw, CompletableFuture<T> derived) {
        derived.whenComplete((r, e) -> {
            if (derived.isCancelled()) {
                raw.cancel(true);
            }
        });
        return derived;
    }

    /** Whose fault {@code failure} (as this transport's futures complete with it) is. */
    FailureKind classify(Throwable failure);

    /**
     * An {@link IOException} for a failed call, in one line: the operation, the object, this
     * endpoint and the cause as the client library reported it (status, error code, message).
     */
    IOException describe(String operation, S3Location where, Throwable failure);

    /**
     * A ranged GET answered with an ETag other than the one its {@code If-Match} named (a store that
     * ignores the condition): a transport completes with it, and classifies it as {@link FailureKind#CHANGED}.
     * Unchecked, and no {@link IOException}: client libraries retry those, and asking again cannot help.
     */
    final class ETagChanged extends RuntimeException {
        /** {@code GetObject bytes=a-b of s3://b/k at <endpoint> answered with ETag "y", not "x"}. */
        public ETagChanged(String operation, S3Location where, String endpoint, String expected, String got) {
            super(String.format("%s of %s at %s answered with ETag %s, not %s", operation, where, endpoint, got,
                    expected));
        }
    }

    /**
     * Whether the ETag {@code got} in an answer names the object {@code expected} names (quotes and a
     * weak {@code W/} prefix aside); true when either is missing (nothing to compare).
     */
    static boolean sameETag(String expected, String got) {
        if (expected == null || got == null || expected.isEmpty() || got.isEmpty()) {
            return true;
        }
        return bare(expected).equals(bare(got));
    }

    private static String bare(String etag) {
        String e = etag.strip();
        if (e.startsWith("W/")) {
            e = e.substring(2);
        }
        return e.length() >= 2 && e.startsWith("\"") && e.endsWith("\"") ? e.substring(1, e.length() - 1) : e;
    }

    /** The refusal of a transport that cannot send checksums when asked to. */
    private UnsupportedOperationException noChecksums(String operation, S3Location where) {
        return new UnsupportedOperationException(String.format("%s of %s: %s sends no CRC32C checksums (use "
                + "DGEN4J_S3_CHECKSUMS=when_required)", operation, where, getClass().getSimpleName()));
    }

    /** Releases the client (connections, threads); the driver calls it when the endpoint set closes. */
    @Override
    void close();
}
