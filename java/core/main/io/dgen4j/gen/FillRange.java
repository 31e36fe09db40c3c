package io.dgen4j.gen;

import java.lang.foreign.MemorySegment;

/** The argument checks every fill makes before touching memory or native code. */
final class FillRange {
    private FillRange() {}

    static void check(DataSpec spec, MemorySegment dst, long offset, long length) {
        if (dst == null) {
            throw new IllegalArgumentException("destination segment must not be null");
        }
        if (!dst.scope().isAlive()) {
            throw new IllegalStateException("the destination segment's arena is closed");
        }
        if (!dst.isAccessibleBy(Thread.currentThread())) {
            throw new WrongThreadException("the destination segment is confined to another thread: fill it from its "
                    + "owner thread, or allocate it in a shared arena");
        }
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("the destination segment is read-only");
        }
        if (length < 0) {
            throw new IllegalArgumentException("length must be >= 0, got " + length);
        }
        if (length > dst.byteSize()) {
            throw new IllegalArgumentException(String.format(
                    "destination segment of %d bytes is too small for %d bytes", dst.byteSize(), length));
        }
        checkStream(spec, offset, length);
    }

    /** The checks of a verify: the segment may be read-only; it is only read. */
    static void checkSource(DataSpec spec, MemorySegment data, long offset, long length) {
        if (data == null) {
            throw new IllegalArgumentException("data segment must not be null");
        }
        if (!data.scope().isAlive()) {
            throw new IllegalStateException("the data segment's arena is closed");
        }
        if (length < 0) {
            throw new IllegalArgumentException("length must be >= 0, got " + length);
        }
        if (length > data.byteSize()) {
            throw new IllegalArgumentException(String.format(
                    "data segment of %d bytes is too small for %d bytes", data.byteSize(), length));
        }
        checkStream(spec, offset, length);
    }

    private static void checkStream(DataSpec spec, long offset, long length) {
        if (offset < 0 || offset > spec.size() || length > spec.size() - offset) {
            throw new IllegalArgumentException(String.format(
                    "range [%d, %d) is outside the stream of %d bytes", offset, offset + length, spec.size()));
        }
    }
}
