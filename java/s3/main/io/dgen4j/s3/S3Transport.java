package io.dgen4j.s3;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

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
        /** HTTP 4xx (credentials, missing bucket, precondition), bad arguments: another endpoint would say the same. */
        REQUEST
    }

    /** One uploaded part: its number (1-based), its ETag and, when the backend sends one, its checksum. */
    record UploadedPart(int number, String etag, String checksum) {}

    /**
     * What a HEAD of an object returned.
     *
     * @param size     content length in bytes
     * @param etag     the ETag, quotes included as the server sent it
     * @param metadata user metadata, keys lower-case without the {@code x-amz-meta-} prefix
     */
    record ObjectHead(long size, String etag, Map<String, String> metadata) {}

    /** The endpoint this transport talks to, as configured (e.g. {@code http://127.0.0.1:9000}). */
    String endpoint();

    /** HEAD of the bucket; completes exceptionally when it is missing or unreachable. */
    CompletableFuture<Void> headBucket(String bucket);

    /** Starts a multipart upload of {@code where} with this user metadata; completes with the upload id. */
    CompletableFuture<String> createMultipartUpload(S3Location where, Map<String, String> metadata);

    /**
     * Sends one part whose body is all of {@code body}. The segment is readable from any thread
     * and stays valid until the returned future completes, not after: a transport must not keep it.
     */
    CompletableFuture<UploadedPart> uploadPart(S3Location where, String uploadId, int partNumber, MemorySegment body);

    /** Completes the upload with {@code parts}, sorted by part number. */
    CompletableFuture<Void> completeMultipartUpload(S3Location where, String uploadId, List<UploadedPart> parts);

    /** Aborts the upload; an upload that no longer exists (404, NoSuchUpload) completes normally. */
    CompletableFuture<Void> abortMultipartUpload(S3Location where, String uploadId);

    /** Whether ListMultipartUploads (prefix: the key) still lists this upload of exactly this key. */
    CompletableFuture<Boolean> uploadListed(S3Location where, String uploadId);

    /** One PutObject of all of {@code body} (used for empty objects), with this user metadata. */
    CompletableFuture<Void> putObject(S3Location where, Map<String, String> metadata, MemorySegment body);

    /** HEAD of the object; empty when it does not exist (404). */
    CompletableFuture<Optional<ObjectHead>> headObject(S3Location where);

    /** Deletes the object; a missing object completes normally. */
    CompletableFuture<Void> deleteObject(S3Location where);

    /**
     * A ranged GET of {@code dst.byteSize()} bytes at {@code offset} (fewer at the object's end)
     * into {@code dst}, refused by the server unless the object's ETag is still {@code etag}
     * ({@code If-Match}); completes with the count of bytes stored in {@code dst}. The segment is
     * writable from any thread (the driver reads a confined one through a shared buffer); the transport
     * writes into it only until the returned future completes, not after (a retry of its client
     * library starts over at the segment's start).
     */
    CompletableFuture<Long> getRange(S3Location where, long offset, MemorySegment dst, String etag);

    /** Whose fault {@code failure} (as this transport's futures complete with it) is. */
    FailureKind classify(Throwable failure);

    /**
     * An {@link IOException} for a failed call, in one line: the operation, the object, this
     * endpoint and the cause as the client library reported it (status, error code, message).
     */
    IOException describe(String operation, S3Location where, Throwable failure);

    /** Releases the client (connections, threads); the driver calls it when the endpoint set closes. */
    @Override
    void close();
}
