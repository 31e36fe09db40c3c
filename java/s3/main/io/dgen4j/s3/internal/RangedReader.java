package io.dgen4j.s3.internal;

import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.spi.S3Transport;
import io.dgen4j.storage.EndpointStatistics;
import io.dgen4j.storage.OpenTimes;
import io.dgen4j.storage.ReadCheck;
import io.dgen4j.storage.StorageReader;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one object over the endpoints of an {@link S3Endpoints} pool: a HEAD for its size, ETag and
 * metadata, then ranged GETs conditional on that ETag ({@code If-Match}, so that a replaced object
 * fails instead of mixing versions), each sent to the endpoint the strategy picks and sent again to
 * another when its endpoint fails; per-endpoint figures in {@link #endpointStatistics()}. A GET
 * refused because the object was replaced (HTTP 412, or an answer with another ETag) fails the read
 * at once: "changed during the load", never retried nor failed over.
 *
 * <p>In {@link S3Settings.ChecksumMode#CRC32C} mode the HEAD asks for the object's checksum; when the
 * store reports a full-object CRC32C, each read's bytes are checksummed as they arrive and, once the
 * reads have covered the object, their CRCs are combined in order and compared with it: the read
 * that completes the object fails when they differ. (A composite checksum, {@code <crc>-<parts>},
 * describes parts whose boundaries a load does not know: it is not checked.)
 *
 * <p>The transport fills the caller's segment from the client's threads; a segment confined to the
 * reading thread is filled through a shared buffer of the read's size and copied.
 */
public final class RangedReader implements StorageReader {
    private static final Logger LOG = LoggerFactory.getLogger(RangedReader.class);
    /** An unstarted thread: a segment accessible by it is accessible by the client's threads. */
    private static final Thread OTHER_THREAD = Thread.ofPlatform().unstarted(() -> { });

    private volatile OpenTimes openTimes = OpenTimes.NONE;
    private final S3Endpoints pool;
    private final Requests requests;
    private final S3Location where;
    private final long size;
    private final String etag;
    private final Map<String, Object> metadata;
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
    /** The object's full-object CRC32C as the store reported it; null when it reported none (nothing to check). */
    private final Integer objectCrc;
    /** Each read's CRC32C and length, by offset, until they cover the object. */
    private final ConcurrentSkipListMap<Long, long[]> readCrcs = new ConcurrentSkipListMap<>();
    private final AtomicLong covered = new AtomicLong();

    private RangedReader(S3Endpoints pool, Requests requests, S3Location where, S3Transport.ObjectHead head)
            throws IOException {
        this.pool = pool;
        this.requests = requests;
        this.where = where;
        this.size = head.size();
        this.etag = head.etag();
        this.metadata = MetadataCodec.decode(head.metadata(), where.toString());
        this.objectCrc = pool.settings().checksumMode() == S3Settings.ChecksumMode.CRC32C
                ? fullObjectCrc(head.crc32c(), where) : null;
        pool.objectOpened();
    }

    /** The full-object CRC in a HEAD's checksum; null for none, a composite one or one that cannot be read. */
    private static Integer fullObjectCrc(String reported, S3Location where) {
        if (reported == null || reported.isEmpty() || reported.indexOf('-') >= 0) {
            return null;
        }
        try {
            return Crc32c.parse(reported);
        } catch (IllegalArgumentException e) {
            LOG.warn("{}: the store reports a CRC32C that is not one ({}): the bytes read are not checked against it",
                    where, reported);
            return null;
        }
    }

    /**
     * HEADs the object.
     *
     * @throws NoSuchFileException when there is no object at the key
     * @throws IOException         when the bucket is missing or no endpoint can be reached
     */
    public static RangedReader open(S3Endpoints pool, S3Location where) throws IOException {
        Requests r = new Requests(pool, where);
        return new RangedReader(pool, r, where, head(pool, r, where)
                .orElseThrow(() -> new NoSuchFileException(where.toString(), null, "no such object at "
                        + pool.description())));
    }

    /** Whether there is an object at the key (a missing bucket is an error). */
    public static boolean exists(S3Endpoints pool, S3Location where) throws IOException {
        return head(pool, new Requests(pool, where), where).isPresent();
    }

    /** HEADs the object, then deletes it if it exists; returns whether it existed. */
    public static boolean delete(S3Endpoints pool, S3Location where) throws IOException {
        Requests r = new Requests(pool, where);
        if (head(pool, r, where).isEmpty()) {
            return false;
        }
        r.call("DeleteObject", x -> 0, t -> t.deleteObject(where));
        return true;
    }

    private static Optional<S3Transport.ObjectHead> head(S3Endpoints pool, Requests r, S3Location where)
            throws IOException {
        Optional<S3Transport.ObjectHead> h = r.call("HeadObject", x -> 0, t -> t.headObject(where));
        if (h.isEmpty()) {
            // A HEAD's 404 has no body: ask the bucket whether it is the bucket or the key that is missing.
            r.call("HeadBucket", x -> 0, t -> t.headBucket(where.bucket()));
        }
        return h;
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public long read(long offset, MemorySegment dst) throws IOException {
        return read(offset, dst, (ReadCheck) null).bytes();
    }

    /** Each piece a GET stores is compared as the transport copies it (see {@link Arrivals}). */
    @Override
    public boolean checksAsRead() {
        return true;
    }

    @Override
    public Checked read(long offset, MemorySegment dst, ReadCheck check) throws IOException {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0, got " + offset);
        }
        long len = Math.min(dst.byteSize(), size - offset);
        if (len <= 0) {
            return new Checked(0, -1);
        }
        if (len > Integer.MAX_VALUE) {
            len = Integer.MAX_VALUE & ~4095L;
        }
        String op = "GetObject bytes=" + offset + "-" + (offset + len - 1);
        MemorySegment target = dst.asSlice(0, len);
        // summed by the transport as it stores each piece (in cache), when there is a CRC to check
        boolean summed = objectCrc != null;
        Got got;
        if (target.isAccessibleBy(OTHER_THREAD)) {
            got = get(op, offset, target, summed, check);
        } else {
            try (Arena shared = Arena.ofShared()) {
                MemorySegment bounce = shared.allocate(len, 4096);
                got = get(op, offset, bounce, summed, check);
                MemorySegment.copy(bounce, 0, target, 0, got.bytes());
            }
        }
        long n = got.bytes();
        if (n != len) {
            throw new IOException(String.format("%s of %s returned %d bytes, %d expected", op, where, n, len));
        }
        if (got.arrivals() != null) {
            got.arrivals().finish(n); // what the transport stored after the last whole batch
        }
        if (summed) {
            checked(offset, n, (int) got.arrivals().getValue());
        }
        return new Checked(n, check == null ? -1 : got.arrivals().firstMismatch());
    }

    /** What one GET attempt stored, and what its own {@link Arrivals} found in those bytes (null when neither summed nor checked). */
    private record Got(long bytes, Arrivals arrivals) {}

    private Got get(String op, long offset, MemorySegment into, boolean summed, ReadCheck check) throws IOException {
        try {
            // each attempt (perhaps at another endpoint) sums and compares in an Arrivals of its own:
            // one that was given up on may still be storing while the next one runs
            return requests.call(op, Got::bytes, t -> {
                Arrivals arrivals = summed || check != null ? new Arrivals(into, offset, summed, check) : null;
                CompletableFuture<Long> raw = arrivals != null ? t.getRange(where, offset, into, etag, arrivals)
                        : t.getRange(where, offset, into, etag);
                // the driver cancels what it waits on (an interrupt): the transport's GET stops too
                return S3Transport.cancelling(raw, raw.thenApply(n -> new Got(n, arrivals)));
            });
        } catch (Requests.Changed e) {
            throw new IOException(String.format("%s changed during the load: it is no longer the object of ETag %s "
                    + "that the load started reading (%s)", where, etag, e.getMessage()), e);
        }
    }

    /**
     * Notes the CRC of the bytes read at {@code offset}; the read that completes the object compares
     * the combination of all with the object's CRC32C.
     */
    private void checked(long offset, long length, int crc) throws IOException {
        if (readCrcs.put(offset, new long[] {length, crc & 0xFFFFFFFFL}) != null) {
            return; // read again: the same bytes, already counted
        }
        if (covered.addAndGet(length) != size) {
            return;
        }
        long end = 0;
        int all = 0;
        for (Map.Entry<Long, long[]> e : readCrcs.entrySet()) {
            if (e.getKey() != end) {
                LOG.debug("{}: reads that do not tile the object; its CRC32C is not checked", where);
                return;
            }
            long len = e.getValue()[0];
            int c = (int) e.getValue()[1];
            all = end == 0 ? c : Crc32c.combine(all, c, len);
            end += len;
        }
        if (all != objectCrc) {
            throw new IOException(String.format("%s: the bytes read have CRC32C %s, the store's checksum of the object "
                    + "is %s: they were damaged on their way or at rest (read again; load --verify names the first "
                    + "byte that differs)", where, Crc32c.base64(all), Crc32c.base64(objectCrc)));
        }
        LOG.debug("{}: the bytes read match the store's CRC32C {}", where, Crc32c.base64(objectCrc));
    }

    /** Whether the object's CRC32C, as the store reported it, is checked against the bytes read. */
    public boolean checksumChecked() {
        return objectCrc != null;
    }

    @Override
    public Map<String, Object> metadata() {
        return metadata;
    }

    @Override
    public boolean directIo() {
        return false;
    }

    /** Notes what its open took (the backend times it around {@code open}); returns this. */
    public RangedReader timed(OpenTimes times) {
        this.openTimes = java.util.Objects.requireNonNull(times, "times");
        return this;
    }

    @Override
    public OpenTimes openTimes() {
        return openTimes;
    }

    @Override
    public String description() {
        return String.format("%s %s at %s (ranged GETs)", pool.backend(), where, pool.description());
    }

    /**
     * This reader's figures per endpoint of the set: requests, bytes, errors, latency, times marked
     * down; none for an endpoint given alone.
     */
    @Override
    public List<EndpointStatistics> endpointStatistics() {
        // an endpoint given alone is no set: no figures, as for files (the pool keeps them all the same)
        return pool.settings().endpointSet().isPresent() ? requests.statistics() : List.of();
    }

    @Override
    public void close() {
        // the transports are the pool's
        if (closed.compareAndSet(false, true)) {
            pool.objectClosed();
        }
    }
}
