package io.dgen4j.minio;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The heap arrays that part bodies are copied into (MinIO takes only heap bodies), reused from part
 * to part and shared by the transports of every endpoint of a run, so the arrays held are bounded by
 * the parts in flight at once, not by endpoints × parts in flight. Released when the last transport
 * using it closes.
 */
final class PartBuffers {
    /** The longest array a part body may use (the JDK's array limit, with its header room). */
    static final long MAX_ARRAY = Integer.MAX_VALUE - 8;

    private final ConcurrentLinkedQueue<byte[]> free = new ConcurrentLinkedQueue<>();
    private final AtomicInteger lent = new AtomicInteger();
    private final AtomicInteger users = new AtomicInteger();
    private final LongAdder copied = new LongAdder();
    private final LongAdder copyNanos = new LongAdder();
    private final LongAdder crcNanos = new LongAdder();

    /**
     * Refuses up front what this JVM cannot hold, rather than failing with {@code OutOfMemoryError}
     * halfway through an upload.
     *
     * @throws IllegalArgumentException when a part does not fit an array, or {@code inFlight} arrays of
     *         {@code partBytes} need more than half the maximum heap
     */
    static void checkHeap(int inFlight, long partBytes) {
        if (partBytes > MAX_ARRAY) {
            throw new IllegalArgumentException(String.format("parts of %d bytes do not fit the byte[] bodies that the "
                    + "MinIO client takes (at most %d bytes): use a smaller part size", partBytes, MAX_ARRAY));
        }
        long arrays = (long) Math.max(1, inFlight) * partBytes;
        long heap = Runtime.getRuntime().maxMemory();
        if (arrays > heap / 2) {
            throw new IllegalArgumentException(String.format("the minio backend copies each part into a heap array: "
                    + "%d parts of %d MiB in flight need %d MiB of heap, more than half of this JVM's %d MiB (-Xmx): "
                    + "use fewer writers or smaller chunks, another backend, or more heap (DGEN4J_JAVA_OPTS=-Xmx...)",
                    Math.max(1, inFlight), partBytes >> 20, arrays >> 20, heap >> 20));
        }
    }

    /** One more transport uses the pool. */
    void retain() {
        users.incrementAndGet();
    }

    /** A transport no longer uses the pool; the last one frees the arrays. */
    void release() {
        if (users.decrementAndGet() <= 0) {
            free.clear();
        }
    }

    /**
     * An array of at least {@code len} bytes, after checking that it and those already lent (at
     * least {@code expectedInFlight} in all) fit the heap.
     *
     * @throws IllegalArgumentException see {@link #checkHeap}
     */
    byte[] take(int len, int expectedInFlight) {
        checkHeap(Math.max(lent.get() + 1, expectedInFlight), len);
        lent.incrementAndGet();
        byte[] b = free.poll();
        return b != null && b.length >= len ? b : new byte[len]; // a too-short one is dropped for the GC
    }

    /** Gives back an array from {@link #take}. */
    void give(byte[] b) {
        lent.decrementAndGet();
        if (users.get() > 0) {
            free.add(b);
        }
    }

    /** Arrays lent and not yet given back. */
    int lent() {
        return lent.get();
    }

    /** Records one copy of {@code bytes} into an array and the time it took (and the CRC32C's, 0 when none). */
    void copied(long bytes, long nanos, long crcNanos) {
        copied.add(bytes);
        copyNanos.add(nanos);
        this.crcNanos.add(crcNanos);
    }

    /** Bytes copied into arrays so far. */
    long copiedBytes() {
        return copied.sum();
    }

    /** Time spent copying, in nanoseconds. */
    long copyNanos() {
        return copyNanos.sum();
    }

    /** Time spent computing CRC32Cs, in nanoseconds. */
    long crcNanos() {
        return crcNanos.sum();
    }
}
