package io.dgen4j.gen;

import io.dgen4j.ffi.dgen4j_h;
import io.dgen4j.nativelib.NativeCallException;
import io.dgen4j.nativelib.NativeLibrary;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The Rust core's generator: a native handle holding the spec and a pool of worker threads,
 * created once here and reused by every fill.
 *
 * <p>Native segments are filled in place by Rust, with no copy. A heap segment (an array) is
 * filled through a bounded native scratch buffer and copied, because a downcall cannot take a
 * heap address; use native segments on the data path.
 *
 * {@snippet :
 * try (Arena arena = Arena.ofConfined();
 *      NativeGenerator gen = new NativeGenerator(DataSpec.ofSize(1L << 30), 0)) {
 *     MemorySegment buf = arena.allocate(32 << 20, 4096);
 *     gen.fill(buf, 0);                    // stream bytes [0, 32 MiB)
 * }
 * }
 */
public final class NativeGenerator implements Generator {
    private static final long HEAP_SCRATCH = 1 << 20;

    private final DataSpec spec;
    private final MemorySegment handle;
    private final int threads;
    // Fills hold the read lock, close the write lock: a handle is never freed under a fill.
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private boolean closed;

    /**
     * Creates the native generator and its workers.
     *
     * @param threads workers (0 = the CPUs in this process's affinity mask, 1 = the calling thread)
     * @throws LinkageError when the native core cannot be loaded
     */
    public NativeGenerator(DataSpec spec, int threads) {
        if (spec == null) {
            throw new IllegalArgumentException("spec must not be null");
        }
        if (threads < 0) {
            throw new IllegalArgumentException("threads must be >= 0 (0 = all CPUs), got " + threads);
        }
        NativeLibrary.ensureLoaded();
        this.spec = spec;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            int rc = dgen4j_h.dgen4j_generator_new(spec.seed(), spec.size(), spec.blockSize(),
                    spec.dedupRatio(), spec.compressRatio(), threads, out);
            NativeCallException.check(rc, "dgen4j_generator_new");
            this.handle = out.get(ValueLayout.ADDRESS, 0);
        }
        this.threads = dgen4j_h.dgen4j_generator_threads(handle);
    }

    @Override
    public DataSpec spec() {
        return spec;
    }

    @Override
    public String implementation() {
        return "native";
    }

    @Override
    public int threads() {
        return threads;
    }

    /** Distinct whole blocks as the native core counts them (equals {@link DataSpec#distinctBlocks()}). */
    public long distinctBlocks() {
        lock.readLock().lock();
        try {
            ensureOpen();
            return dgen4j_h.dgen4j_generator_distinct_blocks(handle);
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public void fill(MemorySegment dst, long streamOffset, long length) {
        FillRange.check(spec, dst, streamOffset, length);
        lock.readLock().lock();
        try {
            ensureOpen();
            if (length == 0) {
                return;
            }
            if (dst.isNative()) {
                int rc = dgen4j_h.dgen4j_generator_fill(handle, streamOffset, dst, length);
                NativeCallException.check(rc, "dgen4j_generator_fill");
                return;
            }
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment scratch = arena.allocate(Math.min(length, HEAP_SCRATCH), 4096);
                for (long done = 0; done < length; ) {
                    long n = Math.min(scratch.byteSize(), length - done);
                    int rc = dgen4j_h.dgen4j_generator_fill(handle, streamOffset + done, scratch, n);
                    NativeCallException.check(rc, "dgen4j_generator_fill");
                    MemorySegment.copy(scratch, 0, dst, done, n);
                    done += n;
                }
            }
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public void close() {
        lock.writeLock().lock();
        try {
            if (!closed) {
                closed = true;
                dgen4j_h.dgen4j_generator_free(handle);
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("generator is closed");
        }
    }
}
