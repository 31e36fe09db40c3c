package io.dgen4j.storage;

import java.lang.foreign.MemorySegment;

/**
 * Compares bytes read with the bytes the object should hold: a verified load's generator, lent to a
 * {@link StorageReader} that can compare each piece of a read as it arrives, while the piece is
 * still in the CPU's cache, instead of in a second pass over the whole read.
 *
 * <p>Called from the reader's or its client's threads, several at once.
 */
@FunctionalInterface
public interface ReadCheck {
    /**
     * The object offset of the first byte of {@code bytes} that differs from the object's bytes at
     * {@code offset} onward, or -1 when every byte is equal.
     */
    long firstMismatch(MemorySegment bytes, long offset);
}
