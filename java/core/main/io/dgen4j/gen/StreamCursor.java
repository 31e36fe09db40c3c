package io.dgen4j.gen;

import java.lang.foreign.MemorySegment;

/**
 * Fills consecutive chunks of a generator's stream: each {@link #next(MemorySegment)} continues
 * where the previous one stopped. Not thread-safe; use one cursor per thread, or
 * {@link Generator#fill(MemorySegment, long, long)} with explicit offsets.
 */
public final class StreamCursor {
    private final Generator generator;
    private long position;

    StreamCursor(Generator generator, long position) {
        this.generator = generator;
        this.position = position;
    }

    /** Stream offset of the next byte {@link #next(MemorySegment)} writes. */
    public long position() {
        return position;
    }

    /** Bytes left in the stream. */
    public long remaining() {
        return generator.spec().size() - position;
    }

    /** Whether bytes are left. */
    public boolean hasRemaining() {
        return remaining() > 0;
    }

    /**
     * Fills {@code dst} from the start with the next {@code min(dst.byteSize(), remaining())} stream
     * bytes and returns that count (0 at the end of the stream).
     *
     * @throws IllegalArgumentException when {@code dst} is null, or empty while bytes remain (a loop
     *         on {@link #hasRemaining()} would never end)
     */
    public long next(MemorySegment dst) {
        if (dst == null) {
            throw new IllegalArgumentException("destination segment must not be null");
        }
        if (dst.byteSize() == 0 && hasRemaining()) {
            throw new IllegalArgumentException(String.format("the destination segment is empty: the cursor at "
                    + "offset %d of %d cannot advance", position, generator.spec().size()));
        }
        long n = Math.min(dst.byteSize(), remaining());
        if (n > 0) {
            generator.fill(dst, position, n);
            position += n;
        }
        return n;
    }
}
