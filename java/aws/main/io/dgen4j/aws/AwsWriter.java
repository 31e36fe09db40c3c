package io.dgen4j.aws;

import io.dgen4j.s3.MetadataCodec;
import io.dgen4j.s3.PartPlan;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.storage.StorageWriter;
import io.dgen4j.storage.WriteRequest;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * One object written as a multipart upload that this writer drives: created when opened (with the
 * metadata, so data and spec become visible together), parts sent straight from the caller's
 * segments ({@code fromRemainingByteBufferUnsafe} on a {@code ByteBuffer} view: no copy), completed
 * with the ETags in part order, then checked with a HEAD (size and metadata) every time.
 *
 * <p>{@link #write} returns only once its parts are acknowledged (or failed), so the caller may
 * reuse the segment as soon as it returns; the pipeline's writer threads give the parallelism.
 * On failure or {@link #abort()}: the upload is aborted, parts still in flight are waited for, the
 * upload is aborted again if any landed meanwhile, and ListMultipartUploads confirms that this
 * upload is gone. A 0-byte object is one plain PUT at commit.
 */
final class AwsWriter implements StorageWriter {
    private static final Logger LOG = LoggerFactory.getLogger(AwsWriter.class);
    /** An unstarted thread: a segment accessible by it is accessible by the SDK's threads. */
    private static final Thread OTHER_THREAD = Thread.ofPlatform().unstarted(() -> { });
    private static final long SETTLE_SECONDS = 60;

    private enum State { OPEN, COMMITTED, ABORTED, FAILED_CHECK }

    private final S3AsyncClient client;
    private final S3Location where;
    private final S3Settings settings;
    private final PartPlan plan;
    private final String manifest;
    private final Map<String, Object> expectedMetadata;
    private final String uploadId;
    private final int inFlight;
    private final Semaphore permits;
    private final ConcurrentSkipListMap<Integer, String> etags = new ConcurrentSkipListMap<>();
    private final Set<CompletableFuture<UploadPartResponse>> sending = ConcurrentHashMap.newKeySet();
    private final AtomicReference<IOException> failure = new AtomicReference<>();
    private final Object lock = new Object();
    private volatile State state = State.OPEN;
    private volatile String leftOpen;

    private AwsWriter(S3AsyncClient client, S3Location where, S3Settings settings, PartPlan plan, String manifest,
                      Map<String, Object> expectedMetadata, String uploadId, int inFlight) {
        this.client = client;
        this.where = where;
        this.settings = settings;
        this.plan = plan;
        this.manifest = manifest;
        this.expectedMetadata = expectedMetadata;
        this.uploadId = uploadId;
        this.inFlight = inFlight;
        this.permits = new Semaphore(inFlight);
    }

    /**
     * Plans the parts (refusing too many up front), checks the bucket with a HEAD and creates the
     * multipart upload.
     *
     * @throws IllegalArgumentException when the size needs more than 10,000 parts, or chunks do not fill whole parts
     * @throws IOException              when the bucket cannot be reached (endpoint, credentials, TLS, missing bucket)
     */
    static AwsWriter open(S3AsyncClient client, S3Location where, S3Settings s, WriteRequest r, int inFlight)
            throws IOException {
        // The pipeline writes chunk-aligned offsets; the manifest names the chunk size.
        long chunk = r.metadata().get("chunkSize") instanceof Number n ? n.longValue() : 0;
        PartPlan plan = PartPlan.of(r.size(), s.partSizeFor(chunk > 0 ? chunk : PartPlan.MIN_PART_SIZE));
        if (chunk > 0) {
            plan.checkChunk(chunk);
        }
        String manifest = MetadataCodec.encode(r.metadata());
        Map<String, Object> expected = MetadataCodec.decode(Map.of(MetadataCodec.KEY, manifest), where.toString());
        io.dgen4j.s3.EndpointProbe.check(s, "HeadBucket of " + where);
        AwsStorageProvider.await(client.headBucket(b -> b.bucket(where.bucket())), "HeadBucket", where, s);
        String uploadId = null;
        if (plan.parts() > 0) {
            uploadId = AwsStorageProvider.await(client.createMultipartUpload(b -> b.bucket(where.bucket())
                    .key(where.key()).metadata(Map.of(MetadataCodec.KEY, manifest))
                    .contentType("application/octet-stream")), "CreateMultipartUpload", where, s).uploadId();
        }
        return new AwsWriter(client, where, s, plan, manifest, expected, uploadId, inFlight);
    }

    /**
     * Sends the parts that {@code data} holds (one, or several when a chunk spans whole parts) and
     * returns when S3 has acknowledged them all.
     *
     * @throws IllegalArgumentException when the write does not cover whole parts, or the segment is
     *         confined to one thread (the SDK sends it from its own)
     * @throws IOException when a part fails, or an earlier one did
     */
    @Override
    public void write(long offset, MemorySegment data) throws IOException {
        checkOpen();
        long len = data.byteSize();
        if (plan.parts() == 0 || len == 0) {
            throw new IllegalArgumentException(String.format("write of %d bytes at %d to %s, a %d-byte object",
                    len, offset, where, plan.objectSize()));
        }
        int first = plan.partNumber(offset);
        long end = offset + len;
        if (end > plan.objectSize() || end != plan.objectSize() && len % plan.partSize() != 0) {
            throw new IllegalArgumentException(String.format("write of %d bytes at %d to %s does not end on a part "
                    + "boundary (parts of %d bytes, object of %d)", len, offset, where, plan.partSize(),
                    plan.objectSize()));
        }
        if (!data.isAccessibleBy(OTHER_THREAD)) {
            throw new IllegalArgumentException("the segment written to " + where + " is confined to one thread: the "
                    + "SDK sends it from its own threads (use a shared, global or automatic arena)");
        }
        List<CompletableFuture<UploadPartResponse>> calls = new ArrayList<>();
        List<Integer> numbers = new ArrayList<>();
        IOException failed = null;
        for (int n = first; n <= plan.parts() && plan.partOffset(n) < end; n++) {
            try {
                acquire();
            } catch (IOException e) {
                failed = e;
                break;
            }
            long rel = plan.partOffset(n) - offset;
            long partLen = plan.partLength(n);
            ByteBuffer body = data.asSlice(rel, partLen).asByteBuffer();
            UploadPartRequest req = UploadPartRequest.builder().bucket(where.bucket()).key(where.key())
                    .uploadId(uploadId).partNumber(n).contentLength(partLen).build();
            CompletableFuture<UploadPartResponse> call;
            try {
                call = client.uploadPart(req, AsyncRequestBody.fromRemainingByteBufferUnsafe(body));
            } catch (RuntimeException e) {
                permits.release();
                failed = AwsErrors.io("UploadPart " + n, where, settings, e);
                break;
            }
            sending.add(call);
            call.whenComplete((r, e) -> {
                sending.remove(call);
                permits.release();
            });
            calls.add(call);
            numbers.add(n);
        }
        // Every part sent is waited for, failed or not: the segment must outlive its requests.
        for (int i = 0; i < calls.size(); i++) {
            int n = numbers.get(i);
            try {
                UploadPartResponse r = calls.get(i).join();
                if (r.eTag() == null || r.eTag().isEmpty()) {
                    throw new IOException(String.format("UploadPart %d of %s at %s returned no ETag", n, where,
                            settings.endpointDescription()));
                }
                etags.put(n, r.eTag());
            } catch (RuntimeException | IOException e) {
                IOException io = e instanceof IOException x ? x : AwsErrors.io("UploadPart " + n, where, settings, e);
                if (failed == null) {
                    failed = io;
                }
            }
        }
        if (failed != null) {
            failure.compareAndSet(null, failed);
            throw failed;
        }
    }

    private void acquire() throws IOException {
        try {
            while (!permits.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                checkOpen();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("write to " + where + " interrupted");
        }
    }

    private void checkOpen() throws IOException {
        IOException f = failure.get();
        if (f != null) {
            throw new IOException("an earlier part of " + where + " failed: " + f.getMessage(), f);
        }
        if (state != State.OPEN) {
            throw new IOException("the writer of " + where + " is " + state.name().toLowerCase(java.util.Locale.ROOT));
        }
    }

    /**
     * Completes the upload with every part in order (an empty object: one PUT), then checks with a
     * HEAD that the object has the size and metadata sent; a mismatch deletes it and fails.
     */
    @Override
    public void commit() throws IOException {
        synchronized (lock) {
            checkOpen();
            if (plan.parts() == 0) {
                AwsStorageProvider.await(client.putObject(b -> b.bucket(where.bucket()).key(where.key())
                        .contentLength(0L).metadata(Map.of(MetadataCodec.KEY, manifest))
                        .contentType("application/octet-stream"), AsyncRequestBody.empty()), "PutObject", where, settings);
            } else {
                if (etags.size() != plan.parts()) {
                    // Completing now would store an object missing parts: the failure the minio writer has.
                    throw new IOException(String.format("commit of %s with %d of %d parts written", where,
                            etags.size(), plan.parts()));
                }
                List<CompletedPart> parts = etags.entrySet().stream()
                        .map(e -> CompletedPart.builder().partNumber(e.getKey()).eTag(e.getValue()).build()).toList();
                AwsStorageProvider.await(client.completeMultipartUpload(b -> b.bucket(where.bucket()).key(where.key())
                        .uploadId(uploadId).multipartUpload(u -> u.parts(parts))), "CompleteMultipartUpload", where,
                        settings);
            }
            state = State.COMMITTED;
            check();
        }
    }

    /** The HEAD after commit: the object must have the size and metadata sent, else it is deleted. */
    private void check() throws IOException {
        HeadObjectResponse h = AwsStorageProvider.await(client.headObject(b -> b.bucket(where.bucket())
                .key(where.key())), "HeadObject after commit", where, settings);
        String problem = null;
        if (h.contentLength() == null || h.contentLength() != plan.objectSize()) {
            problem = String.format("it holds %s bytes, %d were sent", h.contentLength(), plan.objectSize());
        } else {
            Map<String, Object> got = MetadataCodec.decode(h.metadata(), where.toString());
            if (!got.equals(expectedMetadata)) {
                problem = "its metadata differs from the metadata sent";
            }
        }
        if (problem != null) {
            state = State.FAILED_CHECK;
            try {
                AwsStorageProvider.await(client.deleteObject(b -> b.bucket(where.bucket()).key(where.key())),
                        "DeleteObject", where, settings);
            } catch (IOException e) {
                throw new IOException(String.format("%s failed its check after upload (%s) and could not be deleted: %s",
                        where, problem, e.getMessage()), e);
            }
            throw new IOException(String.format("%s failed its check after upload (%s): it was deleted", where, problem));
        }
    }

    /** Aborts the upload, waits for parts in flight, aborts again if needed and confirms it is gone. */
    @Override
    public void abort() {
        synchronized (lock) {
            if (state != State.OPEN) {
                return;
            }
            state = State.ABORTED;
        }
        if (uploadId == null) {
            return;
        }
        try {
            abortUpload();
            settle();
            for (int round = 0; round < 3; round++) {
                if (!listed()) {
                    leftOpen = null;
                    return;
                }
                abortUpload();
            }
            leftOpen = "upload " + uploadId + " of " + where + " is still listed after three aborts";
        } catch (IOException | RuntimeException e) {
            leftOpen = "upload " + uploadId + " of " + where + " may be left open: " + e.getMessage();
        }
        LOG.error("{}", leftOpen);
    }

    private void abortUpload() throws IOException {
        try {
            AwsStorageProvider.await(client.abortMultipartUpload(b -> b.bucket(where.bucket()).key(where.key())
                    .uploadId(uploadId)), "AbortMultipartUpload", where, settings);
        } catch (IOException e) {
            if (!AwsErrors.notFound(e.getCause())) {
                throw e;
            }
        }
    }

    /** Waits (bounded) for the parts still in flight to finish, whatever their outcome. */
    private void settle() {
        CompletableFuture<?>[] pending = sending.toArray(CompletableFuture[]::new);
        if (pending.length == 0) {
            return;
        }
        try {
            CompletableFuture.allOf(pending).exceptionally(e -> null).get(SETTLE_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warn("{} parts of {} still in flight after {} s", sending.size(), where, SETTLE_SECONDS);
        }
    }

    /** Whether ListMultipartUploads (prefix: the key) still shows this upload of exactly this key. */
    private boolean listed() throws IOException {
        String keyMarker = null;
        String idMarker = null;
        for (int page = 0; page < 100; page++) {
            String km = keyMarker;
            String im = idMarker;
            ListMultipartUploadsResponse r = AwsStorageProvider.await(client.listMultipartUploads(b -> b
                    .bucket(where.bucket()).prefix(where.key()).keyMarker(km).uploadIdMarker(im)),
                    "ListMultipartUploads", where, settings);
            if (r.uploads().stream().anyMatch(u -> where.key().equals(u.key()) && uploadId.equals(u.uploadId()))) {
                return true;
            }
            if (!Boolean.TRUE.equals(r.isTruncated())) {
                return false;
            }
            keyMarker = r.nextKeyMarker();
            idMarker = r.nextUploadIdMarker();
        }
        return false;
    }

    @Override
    public String state() {
        return switch (state) {
            case COMMITTED -> "the new object is in place at " + where;
            case FAILED_CHECK -> "the new object failed its check and was deleted: nothing is left at " + where;
            case OPEN, ABORTED -> leftOpen != null ? leftOpen + "; the previous object, if any, is intact"
                    : "nothing was stored: the previous object at " + where + ", if any, is intact";
        };
    }

    @Override
    public boolean directIo() {
        return false;
    }

    @Override
    public String description() {
        return String.format("aws %s at %s (%s)", where, settings.endpointDescription(), plan.parts() == 0
                ? "one PUT" : String.format("%d parts of %d bytes, %d in flight", plan.parts(), plan.partSize(),
                        inFlight));
    }

    @Override
    public void close() {
        abort();
    }
}
