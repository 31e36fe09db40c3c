package io.dgen4j.checkpoint;

import io.dgen4j.gen.NodeBuffers;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A fixed set of page-aligned native buffers shared by a producer and its writers: a buffer is
 * taken from the free set, filled, written, and only then released back. Buffers are allocated
 * on first use (an idle pool costs no memory) and all freed together by {@link #close()}. Each
 * is the memory of a file of its own where the system has memory files ({@link
 * NodeBuffers#allocateShared}), so that an S3 client can hand its pages to a socket uncopied.
 *
 * <p>A {@link StreamingCheckpoint} allocates a pool per save or load unless it is given one
 * ({@link StreamingCheckpoint.Builder#bufferPool}): a process that saves many checkpoints (a
 * training run, a DLIO workload) then maps and first-touches its buffers once, not once per file.
 *
 * {@snippet :
 * try (BufferPool pool = new BufferPool(4, 32 << 20)) {
 *     MemorySegment buf = pool.acquire(1, TimeUnit.SECONDS).orElseThrow();
 *     // ... fill, write ...
 *     pool.release(buf);
 * }
 * }
 */
public final class BufferPool implements AutoCloseable {
    private static final AtomicLong LIVE_BYTES = new AtomicLong();

    private final Arena arena = Arena.ofShared();
    private final int capacity;
    private final long bufferSize;
    private final ArrayDeque<MemorySegment> free = new ArrayDeque<>();
    /** Addresses of the buffers taken and not yet released. */
    private final java.util.Set<Long> taken = new java.util.HashSet<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition released = lock.newCondition();
    private int allocated;
    private int inUse;
    private int peakInUse;
    private boolean closed;
    /** What is using a pool shared by saves and loads ({@link #claim}), or {@code null}. */
    private String claimedBy;

    /** A pool of up to {@code count} buffers of {@code bufferSize} bytes, 4096-aligned. */
    public BufferPool(int count, long bufferSize) {
        if (count < 1) {
            throw new IllegalArgumentException("a buffer pool needs at least 1 buffer, got " + count);
        }
        if (bufferSize < 1) {
            throw new IllegalArgumentException("buffer size must be > 0, got " + bufferSize);
        }
        this.capacity = count;
        this.bufferSize = bufferSize;
    }

    /** Bytes held by live pools in this JVM (buffers allocated and not yet freed): 0 when nothing leaks. */
    public static long liveBytes() {
        return LIVE_BYTES.get();
    }

    /**
     * Takes a free buffer, allocating one if fewer than the capacity exist, waiting at most
     * {@code timeout} for a release otherwise.
     */
    public Optional<MemorySegment> acquire(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        lock.lockInterruptibly();
        try {
            while (true) {
                if (closed) {
                    throw new IllegalStateException("buffer pool is closed");
                }
                MemorySegment seg = free.poll();
                if (seg == null && allocated < capacity) {
                    // Page-aligned, mapped by the native core and untouched until filled; the
                    // memory of a file, so that an S3 client can send it with sendfile, no copy.
                    seg = NodeBuffers.allocateShared(arena, bufferSize, -1);
                    allocated++;
                    LIVE_BYTES.addAndGet(bufferSize);
                }
                if (seg != null) {
                    taken.add(seg.address());
                    inUse++;
                    peakInUse = Math.max(peakInUse, inUse);
                    return Optional.of(seg);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return Optional.empty();
                }
                released.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Returns a buffer taken by {@link #acquire}.
     *
     * @throws IllegalArgumentException when {@code buffer} is not one of this pool's buffers as
     *         {@link #acquire} returned it (another pool's, a slice, a heap or foreign segment)
     * @throws IllegalStateException when it is not taken (released twice)
     */
    public void release(MemorySegment buffer) {
        if (buffer == null) {
            throw new IllegalArgumentException("cannot release a null buffer");
        }
        lock.lock();
        try {
            if (closed) {
                return;
            }
            if (!buffer.isNative() || !buffer.scope().equals(arena.scope()) || buffer.byteSize() != bufferSize) {
                throw new IllegalArgumentException(String.format("released segment (%d bytes at 0x%x) is not a buffer "
                        + "of this pool: release what acquire returned, not a slice or another pool's buffer",
                        buffer.byteSize(), buffer.address()));
            }
            if (!taken.remove(buffer.address())) {
                throw new IllegalStateException(String.format(
                        "buffer at 0x%x is not taken: released twice, or never acquired", buffer.address()));
            }
            inUse--;
            free.push(buffer);
            released.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Reserves the pool for one save or load of a checkpoint that shares it, and starts a new
     * {@link #peakInUse} count.
     *
     * @throws IllegalStateException when it is closed, reserved by another, or a buffer is still taken
     */
    void claim(String who) {
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("the shared buffer pool is closed: " + who + " cannot use it");
            }
            if (claimedBy != null) {
                throw new IllegalStateException(String.format("the shared buffer pool is in use by %s: %s needs a "
                        + "pool of its own, or has to wait until that one ends", claimedBy, who));
            }
            if (inUse > 0) {
                throw new IllegalStateException(String.format("%d buffer(s) of the shared buffer pool are still "
                        + "taken (a writer of an earlier save did not stop): %s cannot use it", inUse, who));
            }
            claimedBy = who;
            peakInUse = 0;
        } finally {
            lock.unlock();
        }
    }

    /** Ends a {@link #claim}. */
    void unclaim() {
        lock.lock();
        try {
            claimedBy = null;
        } finally {
            lock.unlock();
        }
    }

    /** Buffers currently taken. */
    public int inUse() {
        lock.lock();
        try {
            return inUse;
        } finally {
            lock.unlock();
        }
    }

    /** Most buffers taken at once. */
    public int peakInUse() {
        lock.lock();
        try {
            return peakInUse;
        } finally {
            lock.unlock();
        }
    }

    /** Capacity in buffers. */
    public int capacity() {
        return capacity;
    }

    /** Size of each buffer. */
    public long bufferSize() {
        return bufferSize;
    }

    /** Bytes the pool may hold: capacity times buffer size. */
    public long poolBytes() {
        return capacity * bufferSize;
    }

    /**
     * Frees every buffer. Callers stop all users first: a buffer still in use at close is a bug in
     * the caller, reported as {@link IllegalStateException} after freeing.
     */
    @Override
    public void close() {
        int leaked;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            leaked = inUse;
            LIVE_BYTES.addAndGet(-allocated * bufferSize);
            free.clear();
        } finally {
            lock.unlock();
        }
        arena.close();
        if (leaked > 0) {
            throw new IllegalStateException(leaked + " buffer(s) were still in use when the pool closed");
        }
    }
}
