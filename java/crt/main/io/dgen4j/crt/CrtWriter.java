package io.dgen4j.crt;

import io.dgen4j.s3.MetadataCodec;
import io.dgen4j.s3.PartPlan;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.storage.StorageWriter;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * Writes one S3 object as a multipart upload driven here, not by the CRT's automatic multipart
 * (which fails on some S3-compatible stores): the upload is created with the checkpoint's metadata
 * when the writer opens, each write is sent as one or more UploadPart requests whose bodies are the
 * caller's segment itself ({@link AsyncRequestBody#fromRemainingByteBufferUnsafe}), and
 * {@link #commit()} completes it with the ETags sorted by part number, then checks with a HEAD that
 * the object that arrived has the size and metadata sent. An empty object is one PutObject at
 * commit.
 *
 * <p>Copies: the SDK hands the segment's {@link ByteBuffer} view to the CRT as it is; the CRT's
 * JNI body stream then copies the part into a native buffer of the part's size (its UploadPart,
 * a "default" meta request, reads the whole body before sending, so that it can retry it), and
 * sends that. So one copy per byte on this path, and one part-sized native buffer per part in
 * flight beside the caller's pool.
 *
 * <p>On any failure, or {@link #abort()}: the upload is aborted, the parts in flight are waited
 * for, the upload is aborted again if a part landed after the first abort, and ListMultipartUploads
 * on the exact key confirms that nothing is left; the first cause is what callers see.
 */
final class CrtWriter implements StorageWriter {
    private static final Logger LOG = LoggerFactory.getLogger(CrtWriter.class);
    /** Longest wait for parts in flight to settle during an abort. */
    private static final long SETTLE_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(120);
    /** Rounds of abort and list before giving up on an upload that stays open. */
    private static final int ABORT_ROUNDS = 3;

    /** Stands for the CRT's threads (never started): a segment it may access is not thread-confined. */
    private static final Thread ELSEWHERE = Thread.ofPlatform().unstarted(() -> { });

    private enum State { OPEN, COMMITTING, COMMITTED, ABORTED }

    private final S3AsyncClient client;
    private final S3Location location;
    private final String object;
    private final S3Settings settings;
    private final long size;
    private final long partSizeSet;
    private final String manifest;
    private final PartFault fault;
    private final boolean fullChecksums;

    private final Object lock = new Object();
    // guarded by lock
    private PartPlan plan;
    private String[] etags;
    private String[] crc32s;
    private boolean[] sent;
    private String uploadId;
    private int inFlight;
    private Throwable failure;
    private State state = State.OPEN;
    private String stateText;
    private boolean closed;
    private volatile boolean warnedConfined;

    private CrtWriter(S3AsyncClient client, S3Location location, S3Settings settings, long size, long partSizeSet,
                      Map<String, Object> metadata, PartFault fault) {
        this.client = client;
        this.location = location;
        this.object = "s3://" + location.bucket() + "/" + location.key();
        this.settings = settings;
        this.size = size;
        this.partSizeSet = partSizeSet;
        this.manifest = MetadataCodec.encode(metadata);
        this.fault = fault;
        this.fullChecksums = CrtClients.fullChecksums(settings);
    }

    /**
     * Checks the bucket, plans the parts when their size is known, and creates the upload with
     * the metadata. Takes ownership of {@code client} (closed with the writer, or here on failure).
     *
     * @param partSize the part size, or 0 to take the size of the first write that is not the last
     * @throws IOException with the object, endpoint and what to check when the bucket is missing,
     *                     the credentials are refused or the endpoint cannot be reached
     */
    static CrtWriter open(S3AsyncClient client, S3Location location, S3Settings settings, long size, long partSize,
                          Map<String, Object> metadata, PartFault fault) throws IOException {
        CrtWriter w = null;
        try {
            w = new CrtWriter(client, location, settings, size, partSize, metadata, fault);
            w.start();
            return w;
        } catch (IOException | RuntimeException | Error e) {
            if (w != null) {
                w.close();
            } else {
                client.close();
            }
            throw e;
        }
    }

    private void start() throws IOException {
        CrtStorageProvider.checkBucket(client, location, settings, object);
        if (partSizeSet > 0 && size > 0) {
            plan(PartPlan.of(size, partSizeSet));
        }
        if (size > 0) {
            String id = call("CreateMultipartUpload", client.createMultipartUpload(r -> {
                r.bucket(location.bucket()).key(location.key()).metadata(Map.of(MetadataCodec.KEY, manifest));
                if (fullChecksums) {
                    r.checksumAlgorithm(ChecksumAlgorithm.CRC32);
                }
            })).uploadId();
            synchronized (lock) {
                uploadId = id;
                stateText = "the upload was not completed; the previous object at " + object + ", if any, is intact";
            }
        } else {
            stateText = "nothing was written to " + object + "; the previous object, if any, is intact";
        }
    }

    private void plan(PartPlan p) {
        plan = p;
        etags = new String[p.parts()];
        crc32s = new String[p.parts()];
        sent = new boolean[p.parts()];
    }

    @Override
    public void write(long offset, MemorySegment data) throws IOException {
        long len = data.byteSize();
        int first;
        int last;
        String id;
        synchronized (lock) {
            checkWritable();
            if (offset < 0 || len <= 0 || offset > size - len) {
                throw new IllegalArgumentException(String.format("write of %d bytes at offset %d is outside the %d "
                        + "bytes of %s", len, offset, size, object));
            }
            if (plan == null) {
                // The part size is the chunk size: the length of any write but the last, or of the
                // first write when it is the whole object.
                if (offset + len < size || offset == 0) {
                    plan(PartPlan.of(size, PartPlan.defaultPartSize(len)));
                } else {
                    throw new IllegalStateException(String.format("the last write of %s (offset %d) came first: set "
                            + "the part size in the S3 settings so that parts can be numbered", object, offset));
                }
            }
            long end = offset + len;
            if (offset % plan.partSize() != 0 || (end != size && end % plan.partSize() != 0)) {
                throw new IllegalArgumentException(String.format("write of %d bytes at offset %d of %s does not cover "
                        + "whole parts of %d bytes: chunks must be a multiple of the part size", len, offset, object,
                        plan.partSize()));
            }
            first = plan.partNumber(offset);
            last = end == size ? plan.parts() : plan.partNumber(end) - 1;
            for (int n = first; n <= last; n++) {
                if (sent[n - 1]) {
                    throw new IllegalArgumentException(String.format("part %d of %s (offset %d) is written twice", n,
                            object, plan.partOffset(n)));
                }
            }
            for (int n = first; n <= last; n++) {
                sent[n - 1] = true;
            }
            inFlight += last - first + 1;
            id = uploadId;
        }
        MemorySegment body = data;
        if (!data.isAccessibleBy(ELSEWHERE)) {
            // Confined to the caller's thread: the CRT's threads cannot read it, so it is copied
            // once into memory they can (the checkpoint's pool is shared and never takes this path).
            body = Arena.ofAuto().allocate(len, 4096);
            MemorySegment.copy(data, 0, body, 0, len);
            if (!warnedConfined) {
                warnedConfined = true;
                LOG.debug("{}: writes come from thread-confined segments: each is copied once for the CRT", object);
            }
        }
        List<CompletableFuture<UploadPartResponse>> parts = new ArrayList<>(last - first + 1);
        for (int n = first; n <= last; n++) {
            long at = plan.partOffset(n);
            parts.add(sendPart(id, n, body.asSlice(at - offset, plan.partLength(n))));
        }
        // Wait for every part of this write, even after one failed: the caller reuses the
        // segment once write returns, and the CRT may still be reading it until its part settles.
        boolean interrupted = false;
        Throwable first0 = null;
        for (int i = 0; i < parts.size(); i++) {
            int n = first + i;
            Throwable error = null;
            UploadPartResponse r = null;
            while (true) {
                try {
                    r = parts.get(i).get();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException | RuntimeException e) {
                    error = CrtErrors.unwrap(e);
                    break;
                }
            }
            synchronized (lock) {
                inFlight--;
                if (error == null) {
                    etags[n - 1] = r.eTag();
                    crc32s[n - 1] = r.checksumCRC32();
                } else {
                    IOException io = CrtErrors.describe(String.format("UploadPart %d (bytes %d..%d)", n,
                            plan.partOffset(n), plan.partOffset(n) + plan.partLength(n)), object, settings, error);
                    if (failure == null) {
                        failure = io;
                    }
                    if (first0 == null) {
                        first0 = io;
                    }
                }
                lock.notifyAll();
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (first0 != null) {
            throw first0 instanceof IOException io ? io : new IOException(first0);
        }
    }

    private CompletableFuture<UploadPartResponse> sendPart(String id, int number, MemorySegment part) {
        UploadPartRequest.Builder r = UploadPartRequest.builder().bucket(location.bucket()).key(location.key())
                .uploadId(id).partNumber(number).contentLength(part.byteSize());
        if (fullChecksums) {
            r.checksumAlgorithm(ChecksumAlgorithm.CRC32);
        }
        if (fault != null && fault.part() == number) {
            r.contentMD5(PartFault.WRONG_MD5);
        }
        try {
            // The segment's own memory, no copy on the Java side; the CRT copies it once (see above).
            ByteBuffer body = part.asByteBuffer();
            return client.uploadPart(r.build(), AsyncRequestBody.fromRemainingByteBufferUnsafe(body));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private void checkWritable() throws IOException {
        if (failure != null) {
            throw new IOException("an earlier part of " + object + " failed: " + failure.getMessage(), failure);
        }
        if (state != State.OPEN) {
            throw new IllegalStateException(object + " is " + state.name().toLowerCase(java.util.Locale.ROOT)
                    + ": no more writes");
        }
    }

    @Override
    public void commit() throws IOException {
        List<CompletedPart> done = new ArrayList<>();
        String id;
        synchronized (lock) {
            checkWritable();
            if (inFlight > 0) {
                throw new IllegalStateException(inFlight + " part(s) of " + object + " are still in flight: commit "
                        + "after every write has returned");
            }
            if (size > 0) {
                if (plan == null) {
                    throw new IOException("nothing was written to " + object + " (" + size + " bytes expected): "
                            + "refusing to complete the upload");
                }
                for (int n = 1; n <= plan.parts(); n++) {
                    if (etags[n - 1] == null) {
                        // Completing without it would make a short object behind a success.
                        throw new IOException(String.format("part %d of %d of %s (bytes %d..%d) was never written: "
                                + "refusing to complete the upload", n, plan.parts(), object, plan.partOffset(n),
                                plan.partOffset(n) + plan.partLength(n)));
                    }
                    CompletedPart.Builder p = CompletedPart.builder().partNumber(n).eTag(etags[n - 1]);
                    if (fullChecksums) {
                        p.checksumCRC32(crc32s[n - 1]);
                    }
                    done.add(p.build()); // ascending part numbers, as S3 requires
                }
            }
            state = State.COMMITTING;
            id = uploadId;
        }
        try {
            if (size == 0) {
                call("PutObject", client.putObject(r -> r.bucket(location.bucket()).key(location.key())
                        .contentLength(0L).metadata(Map.of(MetadataCodec.KEY, manifest)), AsyncRequestBody.empty()));
            } else {
                call("CompleteMultipartUpload", client.completeMultipartUpload(r -> r.bucket(location.bucket())
                        .key(location.key()).uploadId(id).multipartUpload(m -> m.parts(done))));
            }
        } catch (IOException e) {
            synchronized (lock) {
                failure = failure == null ? e : failure;
            }
            cleanUp();
            throw e;
        }
        verify();
        synchronized (lock) {
            state = State.COMMITTED;
            stateText = "the new object is in place at " + object;
        }
    }

    /** The HEAD after completion: size and metadata as sent, else the object is removed. */
    private void verify() throws IOException {
        HeadObjectResponse head;
        try {
            head = call("HeadObject", client.headObject(r -> r.bucket(location.bucket()).key(location.key())));
        } catch (IOException e) {
            synchronized (lock) {
                state = State.ABORTED;
                stateText = "the upload was completed but " + object + " could not be checked: it may hold the new "
                        + "object";
            }
            throw new IOException("the upload of " + object + " was completed, but the HEAD that checks it failed: "
                    + e.getMessage(), e);
        }
        long got = head.contentLength() == null ? -1 : head.contentLength();
        String meta = null;
        for (Map.Entry<String, String> e : head.metadata().entrySet()) {
            if (e.getKey().equalsIgnoreCase(MetadataCodec.KEY)) {
                meta = e.getValue();
            }
        }
        if (got == size && manifest.equals(meta)) {
            return;
        }
        String why = got != size ? String.format("%d bytes arrived instead of %d", got, size)
                : "its " + MetadataCodec.KEY + " metadata differs from the one sent";
        String removed;
        try {
            call("DeleteObject", client.deleteObject(r -> r.bucket(location.bucket()).key(location.key())));
            removed = "it was deleted: no object is left at " + object;
        } catch (IOException e) {
            removed = "deleting it failed too (" + e.getMessage() + "): the wrong object is still there";
        }
        synchronized (lock) {
            state = State.ABORTED;
            stateText = removed;
        }
        throw new IOException(String.format("the object stored at %s is not the one sent: %s; %s", object, why,
                removed));
    }

    @Override
    public void abort() {
        synchronized (lock) {
            if (state == State.COMMITTED || state == State.ABORTED) {
                return;
            }
            state = State.ABORTED;
        }
        cleanUp();
    }

    /**
     * Aborts the upload, waits for the parts in flight, aborts again, and confirms with
     * ListMultipartUploads on the exact key that it is gone; records what is left in {@link #state()}.
     */
    private void cleanUp() {
        String id;
        synchronized (lock) {
            state = State.ABORTED;
            id = uploadId;
        }
        if (id == null) {
            return;
        }
        IOException last = abortUpload(id);
        awaitPartsSettled();
        boolean gone = false;
        for (int round = 0; round < ABORT_ROUNDS && !gone; round++) {
            if (last != null && CrtErrors.unreachable(last.getCause())) {
                break; // the server is gone: more rounds would only wait for the same answer
            }
            // A part that was in flight during the first abort may have landed after it.
            IOException again = abortUpload(id);
            last = again != null ? again : last;
            try {
                gone = !isOpen(id);
            } catch (IOException e) {
                last = e;
            }
        }
        synchronized (lock) {
            if (gone) {
                stateText = "the upload was aborted and none is open for " + object + "; the previous object, if "
                        + "any, is intact";
            } else {
                stateText = String.format("the incomplete upload %s of %s may be left (%s): remove it with "
                        + "AbortMultipartUpload or a bucket lifecycle rule; the previous object, if any, is intact", id,
                        object, last == null ? "ListMultipartUploads still shows it"
                                : last.getCause() != null && CrtErrors.unreachable(last.getCause())
                                ? "the server could not be reached to abort it" : last.getMessage());
                LOG.warn("{}", stateText);
            }
        }
    }

    /** Aborts the upload; returns the error, or null when it is gone (404 NoSuchUpload counts as gone). */
    private IOException abortUpload(String id) {
        try {
            call("AbortMultipartUpload", client.abortMultipartUpload(r -> r.bucket(location.bucket())
                    .key(location.key()).uploadId(id)));
            return null;
        } catch (IOException e) {
            return CrtErrors.notFound(e.getCause()) ? null : e;
        }
    }

    private void awaitPartsSettled() {
        long deadline = System.nanoTime() + SETTLE_LIMIT_NANOS;
        boolean interrupted = false;
        synchronized (lock) {
            while (inFlight > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    LOG.warn("{} part(s) of {} still in flight after {} s; aborting anyway", inFlight, object,
                            TimeUnit.NANOSECONDS.toSeconds(SETTLE_LIMIT_NANOS));
                    break;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether ListMultipartUploads on the exact key still shows upload {@code id}. */
    private boolean isOpen(String id) throws IOException {
        String keyMarker = null;
        String idMarker = null;
        while (true) {
            String km = keyMarker;
            String im = idMarker;
            ListMultipartUploadsResponse page = call("ListMultipartUploads", client.listMultipartUploads(r -> {
                r.bucket(location.bucket()).prefix(location.key());
                if (km != null) {
                    r.keyMarker(km).uploadIdMarker(im);
                }
            }));
            for (MultipartUpload u : page.uploads()) {
                if (u.key().equals(location.key()) && u.uploadId().equals(id)) {
                    return true;
                }
            }
            if (!Boolean.TRUE.equals(page.isTruncated()) || page.nextKeyMarker() == null) {
                return false;
            }
            keyMarker = page.nextKeyMarker();
            idMarker = page.nextUploadIdMarker();
        }
    }

    /** Waits for a control request (never a part: those are waited for in write), mapping its failure. */
    private <T> T call(String operation, CompletableFuture<T> f) throws IOException {
        try {
            return f.get();
        } catch (InterruptedException e) {
            f.cancel(true);
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(operation + " of " + object + " interrupted");
        } catch (ExecutionException | RuntimeException e) {
            throw CrtErrors.describe(operation, object, settings, e);
        }
    }

    @Override
    public String state() {
        synchronized (lock) {
            return stateText;
        }
    }

    @Override
    public boolean directIo() {
        return false;
    }

    @Override
    public String description() {
        synchronized (lock) {
            return String.format("crt %s at %s (%s, checksums %s)", object, settings.endpointDescription(),
                    plan == null ? (size == 0 ? "one PUT" : "multipart") : plan.parts() + " parts of "
                            + plan.partSize() + " bytes", CrtClients.checksums(settings));
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            abort();
        } finally {
            client.close();
        }
    }

    /** For tests: the upload id, or null for an empty object. */
    String uploadId() {
        synchronized (lock) {
            return uploadId;
        }
    }
}
