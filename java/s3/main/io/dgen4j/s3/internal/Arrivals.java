package io.dgen4j.s3.internal;

import io.dgen4j.storage.ReadCheck;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;

/**
 * What one ranged GET attempt finds in the bytes it stores: their CRC32C, and where they first differ
 * from what a verified load expects. It is the {@link Checksum} that the transport feeds every byte it
 * stores in the segment, in order, right after storing it ({@link io.dgen4j.s3.spi.S3Transport#getRange(
 * io.dgen4j.s3.S3Location, long, MemorySegment, String, Checksum) getRange}'s contract): the stored
 * bytes are then compared in batches of {@value #BATCH} bytes, still in the CPU's cache, instead of in
 * a second pass over the whole range once it has arrived. A reset (the client starting over) starts
 * both again.
 *
 * <p>The transport feeds it from one thread at a time, under its own lock; the reader reads it once
 * the GET's future has completed. What {@link ReadCheck} throws is kept, and thrown by
 * {@link #finish}, on the reader's thread: never as the GET's failure, which would be retried.
 */
final class Arrivals implements Checksum {
    /**
     * Bytes compared per call: well inside a core's L2 cache (where the copy just put them), and
     * enough that a call's overhead is nothing beside the compare (16,384 calls per GiB).
     */
    static final long BATCH = 256 << 10;

    private final MemorySegment dst;
    private final long offset;
    private final CRC32C crc;
    private final ReadCheck check;
    /** Bytes fed since the last reset, and of those, bytes compared. */
    private long stored;
    private long compared;
    private long firstMismatch = -1;
    private Throwable failure;

    /**
     * For a GET storing {@code dst} from object offset {@code offset}: summing when {@code summed},
     * comparing with {@code check} unless it is null.
     */
    Arrivals(MemorySegment dst, long offset, boolean summed, ReadCheck check) {
        this.dst = dst;
        this.offset = offset;
        this.crc = summed ? new CRC32C() : null;
        this.check = check;
    }

    @Override
    public void update(int b) {
        if (crc != null) {
            crc.update(b);
        }
        stored(1);
    }

    @Override
    public void update(byte[] b, int off, int len) {
        if (crc != null) {
            crc.update(b, off, len);
        }
        stored(len);
    }

    @Override
    public void update(ByteBuffer buffer) {
        int len = buffer.remaining();
        if (crc != null) {
            crc.update(buffer);
        } else {
            buffer.position(buffer.limit());
        }
        stored(len);
    }

    @Override
    public long getValue() {
        return crc == null ? 0 : crc.getValue();
    }

    @Override
    public void reset() {
        if (crc != null) {
            crc.reset();
        }
        stored = 0;
        compared = 0;
        firstMismatch = -1;
        failure = null;
    }

    private void stored(long n) {
        stored += n;
        if (stored - compared >= BATCH) {
            compareTo(stored);
        }
    }

    /** Compares the bytes stored from {@link #compared} up to {@code end}, unless a mismatch is already known. */
    private void compareTo(long end) {
        if (check != null && firstMismatch < 0 && failure == null && end > compared) {
            try {
                firstMismatch = check.firstMismatch(dst.asSlice(compared, end - compared), offset + compared);
            } catch (RuntimeException | Error e) {
                failure = e;
            }
        }
        compared = Math.max(compared, end);
    }

    /**
     * Once the GET completed with {@code n} bytes: compares what is left of them (the last batch,
     * or all when the transport summed only at the end).
     *
     * @throws RuntimeException what the check threw
     */
    void finish(long n) {
        compareTo(n);
        if (failure instanceof RuntimeException e) {
            throw e;
        }
        if (failure instanceof Error e) {
            throw e;
        }
    }

    /** The object offset of the first byte that differs from what the check expects, or -1. */
    long firstMismatch() {
        return firstMismatch;
    }
}
