package io.dgen4j.minio;

import io.dgen4j.s3.MetadataCodec;
import io.dgen4j.s3.PartPlan;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.storage.StorageWriter;
import io.dgen4j.storage.WriteRequest;
import io.minio.AbortMultipartUploadArgs;
import io.minio.CompleteMultipartUploadArgs;
import io.minio.CreateMultipartUploadArgs;
import io.minio.HeadBucketArgs;
import io.minio.Http;
import io.minio.ListMultipartUploadsArgs;
import io.minio.MinioAsyncClient;
import io.minio.PutObjectAPIArgs;
import io.minio.RemoveObjectArgs;
import io.minio.StatObjectArgs;
import io.minio.StatObjectResponse;
import io.minio.UploadPartArgs;
import io.minio.UploadPartResponse;
import io.minio.messages.ListMultipartUploadsResult;
import io.minio.messages.Part;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One object written as a multipart upload that this writer drives through {@code MinioAsyncClient}:
 * created when opened (with the metadata, so data and spec become visible together), parts uploaded
 * with several in flight, completed with the parts sorted by number, then checked with a HEAD (size
 * and metadata) every time.
 *
 * <p><b>The one copy.</b> MinIO takes only heap bodies ({@code byte[]} or its own list of arrays),
 * so each part is copied once from the caller's segment into a part buffer: a pool of at most
 * {@code inFlight} arrays of the part size, reused from part to part. Once copied, the segment is
 * free: {@link #write} returns when its parts are handed to the client (not when acknowledged), so
 * the pipeline generates the next chunk while the parts upload; a part's failure fails the next
 * write or the commit. The copy and checksum times are in {@link #description()}.
 *
 * <p><b>No extra hashing pass.</b> MinIO hashes every part body itself unless the request already
 * carries its hashes: over http it computes a SHA-256 of the payload to sign it; over https (unsigned
 * payload) a CRC32C with a table-driven loop, byte by byte. Both are skipped when the part's headers
 * carry {@code x-amz-content-sha256} and an {@code x-amz-checksum-*} value. With the default
 * checksum mode ({@code WHEN_REQUIRED}) each part is sent with {@code x-amz-content-sha256:
 * UNSIGNED-PAYLOAD} and an {@code x-amz-checksum-crc32c} that this writer computes with the JDK's
 * {@link CRC32C} (a CPU instruction, straight from the segment): the server still checks each part's
 * bytes, at a fraction of a SHA-256's cost. {@code FULL} leaves the hashing to MinIO (a signed
 * SHA-256 payload over http).
 *
 * <p>On failure or {@link #abort()}: the upload is aborted, parts still in flight are waited for,
 * the upload is aborted again if any landed meanwhile, and ListMultipartUploads (the exact key)
 * confirms that it is gone. A 0-byte object is one plain PUT at commit.
 */
final class MinioWriter implements StorageWriter {
    private static final Logger LOG = LoggerFactory.getLogger(MinioWriter.class);
    private static final long SETTLE_SECONDS = 60;
    private static final long MAX_ARRAY = Integer.MAX_VALUE - 8;
    private static final String CONTENT_TYPE = "application/octet-stream";

    private enum State { OPEN, COMMITTED, ABORTED, FAILED_CHECK }

    private final MinioAsyncClient client;
    private final S3Location where;
    private final S3Settings settings;
    private final PartPlan plan;
    private final String manifest;
    private final Map<String, Object> expectedMetadata;
    private final String uploadId;
    private final int inFlight;
    private final boolean unsignedWithCrc;
    private final Semaphore permits;
    private final ConcurrentLinkedQueue<byte[]> buffers = new ConcurrentLinkedQueue<>();
    private final ConcurrentSkipListMap<Integer, String> etags = new ConcurrentSkipListMap<>();
    private final Set<CompletableFuture<?>> sending = ConcurrentHashMap.newKeySet();
    private final AtomicReference<IOException> failure = new AtomicReference<>();
    private final LongAdder copyNanos = new LongAdder();
    private final LongAdder copied = new LongAdder();
    private final LongAdder crcNanos = new LongAdder();
    private final Object lock = new Object();
    private volatile State state = State.OPEN;
    private volatile String leftOpen;

    private MinioWriter(MinioAsyncClient client, S3Location where, S3Settings settings, PartPlan plan, String manifest,
                        Map<String, Object> expectedMetadata, String uploadId, int inFlight) {
        this.client = client;
        this.where = where;
        this.settings = settings;
        this.plan = plan;
        this.manifest = manifest;
        this.expectedMetadata = expectedMetadata;
        this.uploadId = uploadId;
        this.inFlight = inFlight;
        this.unsignedWithCrc = settings.checksumMode() != S3Settings.ChecksumMode.FULL;
        this.permits = new Semaphore(inFlight);
    }

    /**
     * Plans the parts (refusing too many up front), checks the bucket with a HEAD and creates the
     * multipart upload with the metadata.
     *
     * @throws IllegalArgumentException when the size needs more than 10,000 parts, chunks do not fill
     *         whole parts, or a part would not fit a Java array (MinIO's bodies are arrays)
     * @throws IOException              when the bucket cannot be reached (endpoint, credentials, TLS, missing bucket)
     */
    static MinioWriter open(MinioAsyncClient client, S3Location where, S3Settings s, WriteRequest r, int inFlight)
            throws IOException {
        long chunk = r.metadata().get("chunkSize") instanceof Number n ? n.longValue() : 0;
        PartPlan plan = PartPlan.of(r.size(), s.partSizeFor(chunk > 0 ? chunk : PartPlan.MIN_PART_SIZE));
        if (chunk > 0) {
            plan.checkChunk(chunk);
        }
        if (plan.parts() > 0 && plan.partSize() > MAX_ARRAY) {
            throw new IllegalArgumentException(String.format("parts of %d bytes do not fit the byte[] bodies that the "
                    + "MinIO client takes (at most %d bytes): use a smaller part size for %s", plan.partSize(),
                    MAX_ARRAY, where));
        }
        // The part copies live on the heap: refuse up front what this JVM cannot hold, rather than
        // failing with OutOfMemoryError halfway through the upload.
        long arrays = (long) Math.max(1, inFlight) * Math.min(plan.partSize(), Math.max(1, r.size()));
        long heap = Runtime.getRuntime().maxMemory();
        if (plan.parts() > 0 && arrays > heap / 2) {
            throw new IllegalArgumentException(String.format("the minio backend copies each part into a heap array: "
                    + "%d parts of %d MiB in flight need %d MiB of heap, more than half of this JVM's %d MiB (-Xmx): "
                    + "use fewer writers or smaller chunks, another backend, or more heap (DGEN4J_JAVA_OPTS=-Xmx...)",
                    Math.max(1, inFlight), plan.partSize() >> 20, arrays >> 20, heap >> 20));
        }
        String manifest = MetadataCodec.encode(r.metadata());
        Map<String, Object> expected = MetadataCodec.decode(Map.of(MetadataCodec.KEY, manifest), where.toString());
        io.dgen4j.s3.EndpointProbe.check(s, "HeadBucket of " + where);
        MinioStorageProvider.await(client.headBucket(HeadBucketArgs.builder().bucket(where.bucket()).build()),
                "HeadBucket", where, s);
        String uploadId = null;
        if (plan.parts() > 0) {
            uploadId = MinioStorageProvider.await(client.createMultipartUpload(CreateMultipartUploadArgs.builder()
                    .bucket(where.bucket()).object(where.key()).headers(metadataHeaders(manifest)).build()),
                    "CreateMultipartUpload", where, s).result().uploadId();
        }
        return new MinioWriter(client, where, s, plan, manifest, expected, uploadId, Math.max(1, inFlight));
    }

    private static Http.Headers metadataHeaders(String manifest) {
        return new Http.Headers("x-amz-meta-" + MetadataCodec.KEY, manifest, "Content-Type", CONTENT_TYPE);
    }

    /**
     * Copies the parts that {@code data} holds (one, or several when a chunk spans whole parts) into
     * part buffers and hands them to the client; returns once copied (the segment is then free).
     *
     * @throws IllegalArgumentException when the write does not cover whole parts
     * @throws IOException when an earlier part failed
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
        for (int n = first; n <= plan.parts() && plan.partOffset(n) < end; n++) {
            acquire();
            try {
                send(n, data.asSlice(plan.partOffset(n) - offset, plan.partLength(n)));
            } catch (RuntimeException | IOException e) {
                permits.release();
                IOException io = e instanceof IOException x ? x : MinioErrors.io("UploadPart " + n, where, settings, e);
                failure.compareAndSet(null, io);
                throw io;
            }
        }
    }

    /** Copies one part into a pooled buffer and starts its upload; the permit is released when it ends. */
    private void send(int n, MemorySegment part) throws IOException {
        int len = (int) part.byteSize();
        byte[] buf = buffers.poll();
        if (buf == null || buf.length < len) {
            buf = new byte[(int) plan.partSize()]; // at most one per permit: the pool never exceeds inFlight
        }
        Http.Headers headers = new Http.Headers();
        if (unsignedWithCrc) {
            long t0 = System.nanoTime();
            CRC32C crc = new CRC32C();
            crc.update(part.asByteBuffer());
            int v = (int) crc.getValue();
            String b64 = Base64.getEncoder().encodeToString(new byte[] {
                (byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v});
            crcNanos.add(System.nanoTime() - t0);
            headers = new Http.Headers("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD", "x-amz-checksum-crc32c", b64);
        }
        long t0 = System.nanoTime();
        MemorySegment.copy(part, ValueLayout.JAVA_BYTE, 0, buf, 0, len);
        copyNanos.add(System.nanoTime() - t0);
        copied.add(len);
        byte[] body = buf;
        CompletableFuture<UploadPartResponse> call = client.uploadPart(UploadPartArgs.builder().bucket(where.bucket())
                .object(where.key()).uploadId(uploadId).partNumber(n).data(body, len).headers(headers).build());
        sending.add(call);
        call.whenComplete((r, e) -> {
            try {
                if (e != null) {
                    failure.compareAndSet(null, MinioErrors.io("UploadPart " + n, where, settings, e));
                } else if (r.part() == null || r.part().etag() == null || r.part().etag().isEmpty()) {
                    failure.compareAndSet(null, new IOException(String.format("UploadPart %d of %s at %s returned "
                            + "no ETag", n, where, settings.endpointDescription())));
                } else {
                    etags.put(n, r.part().etag());
                }
            } finally {
                buffers.add(body);
                sending.remove(call);
                permits.release();
            }
        });
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
        try {
            checkOpen();
        } catch (IOException e) {
            permits.release();
            throw e;
        }
    }

    private void checkOpen() throws IOException {
        IOException f = failure.get();
        if (f != null) {
            throw new IOException("an earlier part of " + where + " failed: " + f.getMessage(), f);
        }
        if (state != State.OPEN) {
            throw new IOException("the writer of " + where + " is " + state.name().toLowerCase(Locale.ROOT));
        }
    }

    /** Waits (bounded) for the parts still in flight to finish, whatever their outcome (see awaitInFlight). */
    private void settle(long seconds) {
        try {
            if (permits.tryAcquire(inFlight, seconds, TimeUnit.SECONDS)) {
                permits.release(inFlight);
            } else {
                LOG.warn("{} parts of {} still in flight after {} s", sending.size(), where, seconds);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Waits for the parts in flight, completes the upload with every part in order (an empty
     * object: one PUT), then checks with a HEAD that the object has the size and metadata sent; a
     * mismatch deletes it and fails.
     */
    @Override
    public void commit() throws IOException {
        synchronized (lock) {
            checkOpen();
            if (plan.parts() == 0) {
                MinioStorageProvider.await(client.putObject(PutObjectAPIArgs.builder().bucket(where.bucket())
                        .object(where.key()).data(new byte[0], 0).headers(metadataHeaders(manifest))
                        .contentType(CONTENT_TYPE).build()), "PutObject", where, settings);
            } else {
                awaitInFlight();
                checkOpen();
                if (etags.size() != plan.parts()) {
                    // Completing now would store an object missing parts: the failure the minio writer of the Python tools has.
                    throw new IOException(String.format("commit of %s with %d of %d parts written", where,
                            etags.size(), plan.parts()));
                }
                Part[] parts = etags.entrySet().stream().map(e -> new Part(e.getKey(), e.getValue()))
                        .toArray(Part[]::new);
                MinioStorageProvider.await(client.completeMultipartUpload(CompleteMultipartUploadArgs.builder()
                        .bucket(where.bucket()).object(where.key()).uploadId(uploadId).parts(parts).build()),
                        "CompleteMultipartUpload", where, settings);
            }
            state = State.COMMITTED;
            check();
            LOG.debug("{}", description());
        }
    }

    /**
     * Waits for every part in flight; interruption fails the commit. It takes every permit: each
     * part's completion releases its permit last, after recording the ETag (waiting on the upload
     * futures instead could return before those completion actions ran).
     */
    private void awaitInFlight() throws IOException {
        try {
            permits.acquire(inFlight);
            permits.release(inFlight);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("commit of " + where + " interrupted");
        }
    }

    /** The HEAD after commit: the object must have the size and metadata sent, else it is deleted. */
    private void check() throws IOException {
        StatObjectResponse h = MinioStorageProvider.await(client.statObject(StatObjectArgs.builder()
                .bucket(where.bucket()).object(where.key()).build()), "HeadObject after commit", where, settings);
        String problem = null;
        if (h.size() != plan.objectSize()) {
            problem = String.format("it holds %d bytes, %d were sent", h.size(), plan.objectSize());
        } else {
            Map<String, Object> got = MetadataCodec.decode(MinioReader.userMetadata(h), where.toString());
            if (!got.equals(expectedMetadata)) {
                problem = "its metadata differs from the metadata sent";
            }
        }
        if (problem != null) {
            state = State.FAILED_CHECK;
            try {
                MinioStorageProvider.await(client.removeObject(RemoveObjectArgs.builder().bucket(where.bucket())
                        .object(where.key()).build()), "DeleteObject", where, settings);
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
            settle(SETTLE_SECONDS);
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
            MinioStorageProvider.await(client.abortMultipartUpload(AbortMultipartUploadArgs.builder()
                    .bucket(where.bucket()).object(where.key()).uploadId(uploadId).build()), "AbortMultipartUpload",
                    where, settings);
        } catch (IOException e) {
            if (!MinioErrors.notFound(e.getCause())) {
                throw e;
            }
        }
    }

    /** Whether ListMultipartUploads (prefix: the key) still shows this upload of exactly this key. */
    private boolean listed() throws IOException {
        String keyMarker = null;
        String idMarker = null;
        for (int page = 0; page < 100; page++) {
            ListMultipartUploadsResult r = MinioStorageProvider.await(client.listMultipartUploads(
                    ListMultipartUploadsArgs.builder().bucket(where.bucket()).prefix(where.key()).keyMarker(keyMarker)
                            .uploadIdMarker(idMarker).build()), "ListMultipartUploads", where, settings).result();
            if (r.uploads().stream().anyMatch(u -> where.key().equals(u.objectName()) && uploadId.equals(u.uploadId()))) {
                return true;
            }
            if (!r.isTruncated()) {
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
        if (plan.parts() == 0) {
            return String.format("minio %s at %s (one PUT)", where, settings.endpointDescription());
        }
        long bytes = copied.sum();
        String copies = bytes == 0 ? "" : String.format(Locale.ROOT, "; 1 copy into part buffers: %d MiB in %.3f s%s",
                bytes >> 20, copyNanos.sum() / 1e9, unsignedWithCrc
                        ? String.format(Locale.ROOT, ", CRC32C %.3f s", crcNanos.sum() / 1e9) : "");
        return String.format("minio %s at %s (%d parts of %d bytes, %d in flight, %s%s)", where,
                settings.endpointDescription(), plan.parts(), plan.partSize(), inFlight,
                unsignedWithCrc ? "unsigned payload + CRC32C" : "signed SHA-256 payload", copies);
    }

    @Override
    public void close() {
        abort();
    }
}
