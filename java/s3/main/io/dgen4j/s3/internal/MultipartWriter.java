package io.dgen4j.s3.internal;

import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.spi.S3Transport;
import io.dgen4j.storage.EndpointStatistics;
import io.dgen4j.storage.OpenTimes;
import io.dgen4j.storage.StorageWriter;
import io.dgen4j.storage.WriteRequest;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One object written as a multipart upload that this writer drives, over the endpoints of an
 * {@link S3Endpoints} pool: created when opened (with the metadata, so data and spec become visible
 * together), each part sent straight from the caller's segment to the endpoint the strategy picks,
 * completed with the ETags in part order, then checked with a HEAD (size and metadata) every time.
 *
 * <p>In {@link S3Settings.ChecksumMode#CRC32C} mode (the default) each part's CRC32C is computed
 * from its segment once, before its first attempt, and sent with every attempt for the store to
 * check; a part the store finds damaged ({@link S3Transport.FailureKind#CORRUPTED}) is sent again, the
 * same bytes, to the endpoint the strategy picks, {@value #CORRUPTED_ATTEMPTS} times at most, then
 * fails the write. The completion carries every part's CRC and the object's (combined from the
 * parts'), and the CRC32C the store reports for the object, in the completion's answer and in the
 * HEAD after it, must be dgen4j's; a mismatch deletes the object and fails the commit.
 *
 * <p>{@link #write} returns only once its parts are acknowledged (or failed), so the caller may
 * reuse the segment as soon as it returns; the pipeline's writer threads give the parallelism.
 * A part whose endpoint fails (connect refused or reset, timeout, 5xx) is sent again, from the
 * same segment, to another endpoint that is up; so are the create, complete, HEAD and abort. The
 * write fails only when no endpoint is left (the message names each one and its last cause), or at
 * once on a failure of the request's own (4xx). On failure or {@link #abort()}: the upload is aborted
 * through any endpoint that answers, parts still in flight are waited for, the upload is aborted again
 * if any landed meanwhile, and ListMultipartUploads confirms that it is gone; when no endpoint answers,
 * {@link #state()} names the upload left open, and the pool keeps trying to abort it in the
 * background. A 0-byte object is one plain PUT at commit.
 */
public final class MultipartWriter implements StorageWriter {
    private static final Logger LOG = LoggerFactory.getLogger(MultipartWriter.class);
    /** An unstarted thread: a segment accessible by it is accessible by the client's threads. */
    private static final Thread OTHER_THREAD = Thread.ofPlatform().unstarted(() -> { });
    private static final long SETTLE_SECONDS = 60;
    /** Attempts of a part that the store finds damaged, before the write fails. */
    public static final int CORRUPTED_ATTEMPTS = 3;

    private enum State { OPEN, COMMITTED, ABORTED, FAILED_CHECK }

    private volatile OpenTimes openTimes = OpenTimes.NONE;
    private final S3Endpoints pool;
    private final Requests requests;
    private final S3Location where;
    private final PartPlan plan;
    private final Map<String, String> userMetadata;
    private final Map<String, Object> expectedMetadata;
    private final int inFlight;
    private final Semaphore permits;
    /** Whether parts carry their CRC32C ({@link S3Settings.ChecksumMode#CRC32C}). */
    private final boolean crc32c;
    /** Each part's CRC32C, computed before its first attempt, by number. */
    private final Map<Integer, Integer> partCrcs = new ConcurrentHashMap<>();
    /** Each acknowledged part as its transport returned it (ETag and, where sent, checksum), by number. */
    private final ConcurrentSkipListMap<Integer, S3Transport.UploadedPart> etags = new ConcurrentSkipListMap<>();
    private final Set<CompletableFuture<?>> sending = ConcurrentHashMap.newKeySet();
    private final AtomicReference<IOException> failure = new AtomicReference<>();
    private final Object lock = new Object();
    private volatile String uploadId;
    private volatile State state = State.OPEN;
    private volatile String leftOpen;
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    private MultipartWriter(S3Endpoints pool, S3Location where, PartPlan plan, String manifest,
                            Map<String, Object> expectedMetadata, int inFlight) {
        this.pool = pool;
        this.requests = new Requests(pool, where);
        this.where = where;
        this.plan = plan;
        this.userMetadata = Map.of(MetadataCodec.KEY, manifest);
        this.expectedMetadata = expectedMetadata;
        this.inFlight = inFlight;
        this.permits = new Semaphore(inFlight);
        this.crc32c = pool.settings().checksumMode() == S3Settings.ChecksumMode.CRC32C;
    }

    /**
     * Plans the parts (refusing too many up front), checks the bucket with a HEAD and creates the
     * multipart upload.
     *
     * @param settings the part size ({@link S3Settings#partSizeFor}); the pool's settings otherwise
     * @param inFlight parts in flight at most, for this writer
     * @throws IllegalArgumentException when the size needs more than 10,000 parts, or chunks do not fill whole parts
     * @throws IOException              when the bucket cannot be reached (endpoints, credentials, TLS, missing bucket)
     */
    public static MultipartWriter open(S3Endpoints pool, S3Location where, S3Settings settings, WriteRequest r,
                                       int inFlight) throws IOException {
        if (inFlight < 1) {
            throw new IllegalArgumentException("parts in flight must be >= 1, got " + inFlight);
        }
        // The pipeline writes whole chunks at their offsets: parts hold whole chunks.
        PartPlan plan = PartPlan.forWrite(r, settings);
        String manifest = MetadataCodec.encode(r.metadata());
        Map<String, Object> expected = MetadataCodec.decode(Map.of(MetadataCodec.KEY, manifest), where.toString());
        MultipartWriter w = new MultipartWriter(pool, where, plan, manifest, expected, inFlight);
        w.requests.call("HeadBucket", x -> 0, t -> t.headBucket(where.bucket()));
        if (plan.parts() > 0) {
            w.uploadId = w.requests.call("CreateMultipartUpload", x -> 0,
                    t -> t.createMultipartUpload(where, w.userMetadata, w.crc32c));
        }
        pool.objectOpened();
        return w;
    }

    /**
     * Sends the parts that {@code data} holds (one, or several when a chunk spans whole parts) and
     * returns when they are all acknowledged, each by some endpoint.
     *
     * @throws IllegalArgumentException when the write does not cover whole parts, or the segment is
     *         confined to one thread (the client sends it from its own)
     * @throws IOException when a part fails on every endpoint, fails by its own fault, or an earlier one failed
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
                    + "S3 client sends it from its own threads (use a shared, global or automatic arena)");
        }
        Deque<Integer> todo = new ArrayDeque<>();
        for (int n = first; n <= plan.parts() && plan.partOffset(n) < end; n++) {
            todo.add(n);
        }
        IOException failed = new PartSender(offset, data, todo).run();
        if (failed != null) {
            failure.compareAndSet(null, failed);
            throw failed;
        }
    }

    /** The part size when parts carry a CRC32C (the default checksum mode), else 0. */
    @Override
    public long crc32cPiece() {
        return crc32c && plan.parts() > 0 ? plan.partSize() : 0;
    }

    /**
     * {@link #write(long, MemorySegment)} with the parts' CRC32C summed by the caller as it generated
     * them ({@code crc32cs[k]}: the part at {@code offset + k * partSize}), sent as they are instead
     * of a second pass over the part.
     *
     * @throws IllegalArgumentException when {@code offset} is not a part's start or the sums do not
     *         number the parts of {@code data}
     */
    @Override
    public void write(long offset, MemorySegment data, int[] crc32cs) throws IOException {
        long piece = crc32cPiece();
        long parts = piece == 0 ? 0 : (data.byteSize() + piece - 1) / piece;
        if (piece == 0 || offset % piece != 0 || crc32cs.length != parts) {
            throw new IllegalArgumentException(String.format("%d part CRCs for a write of %d bytes at %d to %s (parts of "
                    + "%d bytes%s)", crc32cs.length, data.byteSize(), offset, where, plan.partSize(),
                    crc32c ? "" : ", no part checksums"));
        }
        int first = plan.partNumber(offset);
        for (int k = 0; k < crc32cs.length; k++) {
            partCrcs.put(first + k, crc32cs[k]);
        }
        write(offset, data);
    }

    /** One write's parts: sent, each failure of an endpoint's sent again elsewhere, all waited for. */
    private final class PartSender {
        private record Done(int number, Requests.Sent<S3Transport.UploadedPart> sent, S3Transport.UploadedPart part,
                            Throwable failure) {}

        private final long offset;
        private final MemorySegment data;
        private final Deque<Integer> todo;
        private final BlockingQueue<Done> done = new LinkedBlockingQueue<>();
        /** This write's parts in flight, cancelled when its thread is interrupted. */
        private final Set<CompletableFuture<?>> mine = new java.util.HashSet<>();
        private final Map<Integer, Requests.Attempts> attempts = new HashMap<>();
        /** Attempts the store found damaged, by part number. */
        private final Map<Integer, Integer> corrupted = new HashMap<>();
        private int outstanding;
        private IOException failed;
        private boolean interrupted;

        PartSender(long offset, MemorySegment data, Deque<Integer> todo) {
            this.offset = offset;
            this.data = data;
            this.todo = todo;
        }

        IOException run() {
            // Every part sent is waited for, failed or not: the segment must outlive its requests.
            while (outstanding > 0 || failed == null && !todo.isEmpty()) {
                if (failed == null && !todo.isEmpty() && permit()) {
                    send(todo.poll());
                    continue;
                }
                if (outstanding == 0) {
                    continue; // no permit yet: permit() waited its slice and checked the writer
                }
                try {
                    Done d = done.poll(100, TimeUnit.MILLISECONDS);
                    if (d != null) {
                        handle(d);
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                    if (failed == null) {
                        failed = new InterruptedIOException("write to " + where + " interrupted");
                    }
                    // Ctrl-C: stop the parts in flight now (their clients stop sending; each ends
                    // here at once, cancelled) rather than wait for them to finish
                    List.copyOf(mine).forEach(f -> f.cancel(true));
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return failed;
        }

        /** A permit for one more part: at once when parts of this write are out, else waiting a slice. */
        private boolean permit() {
            try {
                if (outstanding > 0 ? permits.tryAcquire() : permits.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    return true;
                }
                checkOpen();
                return false;
            } catch (InterruptedException e) {
                interrupted = true;
                failed = new InterruptedIOException("write to " + where + " interrupted");
                return false;
            } catch (IOException e) {
                failed = e;
                return false;
            }
        }

        private void send(int n) {
            MemorySegment body = data.asSlice(plan.partOffset(n) - offset, plan.partLength(n));
            // Computed once: a retry sends the same bytes with the same CRC, so a buffer that changed
            // under the upload fails every attempt instead of storing the change.
            String crc = crc32c ? Crc32c.base64(partCrcs.computeIfAbsent(n, k -> Crc32c.of(body))) : null;
            Requests.Sent<S3Transport.UploadedPart> s;
            try {
                s = requests.send("UploadPart " + n, attempts.computeIfAbsent(n, k -> new Requests.Attempts()),
                        t -> t.uploadPart(where, uploadId, n, body, crc));
            } catch (IOException e) {
                permits.release();
                failed = e;
                return;
            }
            outstanding++;
            mine.add(s.future());
            sending.add(s.future());
            s.future().whenComplete((p, e) -> {
                sending.remove(s.future());
                done.add(new Done(n, s, p, e));
            });
        }

        private void handle(Done d) {
            outstanding--;
            mine.remove(d.sent().future());
            permits.release();
            int n = d.number();
            Requests.Failure f = requests.finish(d.sent(), d.failure(), plan.partLength(n));
            if (f == null) {
                Integer crc = partCrcs.get(n);
                if (d.part() == null || d.part().etag() == null || d.part().etag().isEmpty()) {
                    fail(new IOException(String.format("UploadPart %d of %s at %s returned no ETag", n, where,
                            d.sent().endpoint().name())));
                } else if (crc != null && d.part().checksum() != null
                        && !d.part().checksum().equals(Crc32c.base64(crc))) {
                    // the store kept a CRC of other bytes than were sent: as damaged as a refusal
                    corrupted(n, d, new IOException(String.format("UploadPart %d of %s at %s: the store reports "
                            + "CRC32C %s for the part, %s was sent", n, where, d.sent().endpoint().name(),
                            d.part().checksum(), Crc32c.base64(crc))));
                } else {
                    etags.put(n, new S3Transport.UploadedPart(n, d.part().etag(),
                            crc != null ? Crc32c.base64(crc) : d.part().checksum()));
                }
            } else if (f.kind() == S3Transport.FailureKind.CORRUPTED) {
                corrupted(n, d, f.exception());
            } else if (f.endpointFault() && failed == null) {
                attempts.get(n).failed(d.sent().endpoint(), f.exception());
                todo.addFirst(n); // the same bytes, to another endpoint
            } else {
                fail(f.exception());
            }
        }

        /**
         * The store found part {@code n} damaged: sent again, the same bytes, while attempts are
         * left (to the endpoint the strategy picks, this one included: the damage may be the way's,
         * not the endpoint's), else the write fails.
         */
        private void corrupted(int n, Done d, IOException cause) {
            int times = corrupted.merge(n, 1, Integer::sum);
            LOG.warn("UploadPart {} of {}: the store found the bytes damaged on their way (attempt {} of {}): {}", n,
                    where, times, CORRUPTED_ATTEMPTS, cause.getMessage());
            if (failed != null) {
                return;
            }
            if (times < CORRUPTED_ATTEMPTS) {
                todo.addFirst(n);
                return;
            }
            fail(new IOException(String.format("%s (%d attempts, the store found the bytes damaged each time: they "
                    + "change between this process and the store)", cause.getMessage(), times), cause));
        }

        private void fail(IOException e) {
            if (failed == null) {
                failed = e;
            }
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

    /**
     * Completes the upload with every part in order (an empty object: one PUT), then checks with a
     * HEAD that the object has the size and metadata sent; a mismatch deletes it and fails.
     */
    @Override
    public void commit() throws IOException {
        synchronized (lock) {
            checkOpen();
            boolean checked = false;
            if (plan.parts() == 0) {
                requests.call("PutObject", x -> 0, t -> t.putObject(where, userMetadata, MemorySegment.NULL));
            } else {
                if (etags.size() != plan.parts()) {
                    // Completing now would store an object missing parts.
                    throw new IOException(String.format("commit of %s with %d of %d parts written", where,
                            etags.size(), plan.parts()));
                }
                List<S3Transport.UploadedPart> parts = List.copyOf(etags.values());
                checked = complete(parts);
            }
            state = State.COMMITTED;
            if (!checked) {
                check();
            }
        }
    }

    /**
     * CompleteMultipartUpload, failing over like any request. A failure after which the upload is no
     * longer listed is a success when the object now in place has the size and manifest sent (the
     * manifest fixes every byte): an attempt completed the upload and its answer was lost, and the
     * retry (ours on another endpoint, or the client library's own) met NoSuchUpload or InvalidPart.
     * Any other object there is not ours: the save fails saying so and leaves it alone. After a
     * timeout the upload is given time to leave the list first ({@link #uploadGone}), and the
     * object is checked through any endpoint that answers (the one that timed out is marked down).
     *
     * @return whether the object in place was checked already (the completion's answer was lost)
     */
    private boolean complete(List<S3Transport.UploadedPart> parts) throws IOException {
        String objectCrc = crc32c ? Crc32c.base64(objectCrc()) : null;
        String reported = null;
        try {
            reported = requests.call("CompleteMultipartUpload", x -> 0,
                    t -> t.completeMultipartUpload(where, uploadId, parts, objectCrc));
        } catch (InterruptedIOException e) {
            throw e;
        } catch (IOException e) {
            String problem;
            try {
                if (!uploadGone(e)) {
                    throw e;
                }
                problem = mismatch(requests.callAny("HeadObject after CompleteMultipartUpload",
                        t -> t.headObject(where)));
            } catch (IOException x) {
                if (x != e) {
                    e.addSuppressed(x);
                }
                throw e;
            }
            if (problem != null) {
                throw new IOException(String.format("%s; the upload is gone and the object now at %s is not the one "
                        + "sent (%s)", e.getMessage(), where, problem), e);
            }
            LOG.info("CompleteMultipartUpload of {} failed, but the upload is gone and the object in place is the one "
                    + "sent: completed ({})", where, e.getMessage());
            return true;
        }
        String problem = crc32c ? crcProblem(reported, "the completion's answer") : null;
        if (problem != null) {
            deleteFailed(problem);
        }
        return false;
    }

    /**
     * Whether the upload left the store's list after its CompleteMultipartUpload failed with
     * {@code e}. When that was a timeout the store may still be assembling the object (copying the
     * parts, answering nothing meanwhile): the list is read every second, and a busy store's
     * failure to answer tolerated, for {@link io.dgen4j.s3.S3Timeouts#assembly} of the object.
     */
    private boolean uploadGone(IOException e) throws IOException {
        if (!io.dgen4j.s3.spi.S3Errors.isTimeout(e)) {
            return !listed();
        }
        java.time.Duration wait = pool.settings().timeouts().assembly(plan.objectSize());
        long deadline = System.nanoTime() + wait.toNanos();
        LOG.info("CompleteMultipartUpload of {} got no answer ({}): waiting up to {} s for the store to assemble "
                + "{} bytes", where, e.getMessage(), wait.toSeconds(), plan.objectSize());
        while (true) {
            try {
                if (!listed()) {
                    return true;
                }
            } catch (InterruptedIOException x) {
                throw x;
            } catch (IOException x) {
                if (System.nanoTime() >= deadline) {
                    throw x;
                }
                LOG.debug("ListMultipartUploads of {} while the store assembles it: {}", where, x.getMessage());
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.SECONDS.toNanos(1)));
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while " + where + " was being assembled");
            }
        }
    }

    /** The object's CRC32C, combined from its parts' in order (no pass over the data). */
    private int objectCrc() {
        int crc = 0;
        for (int n = 1; n <= plan.parts(); n++) {
            int part = partCrcs.get(n);
            crc = n == 1 ? part : Crc32c.combine(crc, part, plan.partLength(n));
        }
        return crc;
    }

    /**
     * What is wrong with the object's CRC32C as the store reported it ({@code where}): null when it
     * matches dgen4j's (full-object, or composite {@code <crc of the parts' crcs>-<parts>}) or the
     * store reported none.
     */
    private String crcProblem(String reported, String where) {
        if (reported == null || reported.isEmpty()) {
            return null;
        }
        int[] parts = new int[plan.parts()];
        for (int n = 1; n <= parts.length; n++) {
            parts[n - 1] = partCrcs.get(n);
        }
        String expected = reported.indexOf('-') >= 0 ? Crc32c.composite(parts) : Crc32c.base64(objectCrc());
        return reported.equals(expected) ? null : String.format("its CRC32C in %s is %s, the bytes sent have %s", where,
                reported, expected);
    }

    /**
     * What differs between the object {@code h} found and the one sent (size, manifest and, in
     * {@link S3Settings.ChecksumMode#CRC32C} mode, the CRC32C the store reports), or null when nothing does.
     */
    private String mismatch(Optional<S3Transport.ObjectHead> h) throws IOException {
        if (h.isEmpty()) {
            return "it is missing";
        } else if (h.get().size() != plan.objectSize()) {
            return String.format("it holds %d bytes, %d were sent", h.get().size(), plan.objectSize());
        } else if (!MetadataCodec.decode(h.get().metadata(), where.toString()).equals(expectedMetadata)) {
            return "its metadata differs from the metadata sent";
        } else if (crc32c && plan.parts() > 0) {
            return crcProblem(h.get().crc32c(), "the HEAD's answer");
        }
        return null;
    }

    /** The HEAD after commit: the object must have the size, metadata (and CRC32C) sent, else it is deleted. */
    private void check() throws IOException {
        String problem = mismatch(requests.call("HeadObject after commit", x -> 0, t -> t.headObject(where)));
        if (problem != null) {
            deleteFailed(problem);
        }
    }

    /** The object in place fails its check ({@code problem}): it is deleted, and the commit fails. */
    private void deleteFailed(String problem) throws IOException {
        state = State.FAILED_CHECK;
        try {
            requests.call("DeleteObject", x -> 0, t -> t.deleteObject(where));
        } catch (IOException e) {
            throw new IOException(String.format("%s failed its check after upload (%s) and could not be deleted: %s",
                    where, problem, e.getMessage()), e);
        }
        throw new IOException(String.format("%s failed its check after upload (%s): it was deleted", where, problem));
    }

    /**
     * Aborts the upload through any endpoint that answers, waits for parts in flight, aborts again if
     * needed and confirms it is gone; when no endpoint answers, names the upload left open.
     */
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
        // An interrupt (Ctrl-C) asked for this cleanup: it must not stop it (the AWS SDK refuses to
        // start a request on an interrupted thread). The flag is set again after.
        boolean interrupted = Thread.interrupted();
        try {
            abortQuietly();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void abortQuietly() {
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
            settle();
            pool.leftOpen().add(where, uploadId, requests.pinned());
            leftOpen = "upload " + uploadId + " of " + where + " is left open (aborted in the background once an "
                    + "endpoint answers): " + e.getMessage();
        }
        LOG.error("{}", leftOpen);
    }

    private void abortUpload() throws IOException {
        requests.callAny("AbortMultipartUpload", t -> t.abortMultipartUpload(where, uploadId));
    }

    /** Whether ListMultipartUploads still shows this upload. */
    private boolean listed() throws IOException {
        return requests.callAny("ListMultipartUploads", t -> t.uploadListed(where, uploadId));
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

    /** The upload's id (null for an empty object, which is one PUT). */
    public String uploadId() {
        return uploadId;
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

    /** {@code aws s3://b/k at <endpoints> (5 parts of 5242880 bytes, 4 in flight)}. */
    @Override
    public String commitLabel() {
        return "complete";
    }

    @Override
    public String commitWhat() {
        return "CompleteMultipartUpload, then a HEAD that checks the object's size and manifest";
    }

    /** Notes what its open took (the backend times it around {@code open}); returns this. */
    public MultipartWriter timed(OpenTimes times) {
        this.openTimes = java.util.Objects.requireNonNull(times, "times");
        return this;
    }

    @Override
    public OpenTimes openTimes() {
        return openTimes;
    }

    @Override
    public String description() {
        Endpoint p = requests.pinned();
        String at = p != null && pool.size() > 1 ? pool.description() + ", pinned to " + p.name() : pool.description();
        return String.format("%s %s at %s (%s)", pool.backend(), where, at, plan.parts() == 0 ? "one PUT"
                : String.format("%d parts of %d bytes, %d in flight", plan.parts(), plan.partSize(), inFlight));
    }

    /**
     * This writer's figures per endpoint of the set: requests, bytes, errors, latency, times marked
     * down; none for an endpoint given alone.
     */
    @Override
    public List<EndpointStatistics> endpointStatistics() {
        // an endpoint given alone is no set: no figures, as for files (the pool keeps them all the same)
        return pool.settings().endpointSet().isPresent() ? requests.statistics() : List.of();
    }

    @Override
    public void close() {
        abort();
        if (closed.compareAndSet(false, true)) {
            pool.objectClosed();
        }
    }
}
