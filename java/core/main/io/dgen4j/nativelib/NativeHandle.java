package io.dgen4j.nativelib;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;

/**
 * A pointer to an object the native core owns (a generator, an open file), shared by the calls
 * that use it and freed once: calls run under a read lock, so any number run at once from any
 * threads, and {@link #close()} frees the object under the write lock, so it is never freed
 * while a call is using it. A call after {@code close()} fails with {@link IllegalStateException}
 * instead of reaching native code with a dangling pointer.
 *
 * {@snippet :
 * NativeHandle h = new NativeHandle(ptr, "generator", dgen4j_h::dgen4j_generator_free);
 * int threads = h.call(p -> dgen4j_h.dgen4j_generator_threads(p));
 * h.close();
 * }
 */
public final class NativeHandle implements AutoCloseable {
    /** A native call on the handle's pointer, which may throw a checked exception. */
    @FunctionalInterface
    public interface Call<T, X extends Exception> {
        /** Calls native code with {@code handle}, valid for the duration of the call. */
        T apply(MemorySegment handle) throws X;
    }

    private final MemorySegment pointer;
    private final String what;
    private final Consumer<MemorySegment> free;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private boolean closed;

    /**
     * Takes ownership of {@code pointer}.
     *
     * @param what what it points to, for the message of a call after close ("generator", "file /x")
     * @param free the native function that frees it, called once by {@link #close()}
     */
    public NativeHandle(MemorySegment pointer, String what, Consumer<MemorySegment> free) {
        this.pointer = pointer;
        this.what = what;
        this.free = free;
    }

    /**
     * Runs {@code call} with the pointer, under the read lock.
     *
     * @throws IllegalStateException when the handle is closed
     */
    public <T, X extends Exception> T call(Call<T, X> call) throws X {
        lock.readLock().lock();
        try {
            if (closed) {
                throw new IllegalStateException(what + " is closed");
            }
            return call.apply(pointer);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Frees the native object once calls in progress have returned; idempotent. */
    @Override
    public void close() {
        lock.writeLock().lock();
        try {
            if (!closed) {
                closed = true;
                free.accept(pointer);
            }
        } finally {
            lock.writeLock().unlock();
        }
    }
}
