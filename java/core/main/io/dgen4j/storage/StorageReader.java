package io.dgen4j.storage;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

/** Reads one stored object into native segments, with several reads in flight. */
public interface StorageReader extends AutoCloseable {
    /** Size of the object in bytes. */
    long size();

    /**
     * Reads up to {@code dst.byteSize()} bytes at {@code offset}; returns the count (short only at
     * the end). Callable from several threads at once. {@code offset} and {@code dst}'s address are
     * multiples of 4096 (backends that bypass the page cache need it).
     */
    long read(long offset, MemorySegment dst) throws IOException;

    /**
     * {@link #read(long, MemorySegment)}, comparing the bytes read with {@code check}: returns the
     * count and the object offset of the first byte that differs (-1 when none does). Backends that
     * copy each piece of a read into {@code dst} (a network's response body) compare the pieces as
     * they copy them, still in cache ({@link #checksAsRead()}); this default compares {@code dst}
     * once the read returns.
     *
     * @throws IOException as {@link #read(long, MemorySegment)} does; what {@code check} throws is
     *                     rethrown here
     */
    default Checked read(long offset, MemorySegment dst, ReadCheck check) throws IOException {
        long n = read(offset, dst);
        return new Checked(n, n == 0 ? -1 : check.firstMismatch(dst.asSlice(0, n), offset));
    }

    /**
     * Whether {@link #read(long, MemorySegment, ReadCheck)} compares each piece as it arrives (in
     * cache) rather than the whole read after it: then a verified load needs no verifier thread.
     */
    default boolean checksAsRead() {
        return false;
    }

    /**
     * What a {@link #read(long, MemorySegment, ReadCheck) checked read} stored.
     *
     * @param bytes         the count of bytes read
     * @param firstMismatch the object offset of the first byte read that differs from what
     *                      {@link ReadCheck} expects, or -1
     */
    record Checked(long bytes, long firstMismatch) {}

    /**
     * The metadata saved with the object (for a file, the sidecar entry that describes this very
     * file); empty when it has none.
     */
    java.util.Map<String, Object> metadata();

    /**
     * Whether reads land by a device's DMA rather than a CPU copy (O_DIRECT from a disk; not from
     * tmpfs or ramfs, not from a network); callers then prefer whole-chunk requests.
     */
    default boolean deviceDma() {
        return false;
    }

    /**
     * Whether a read is the CPU copying bytes out of memory (the page cache, tmpfs, ramfs): small
     * reads then cost nothing extra and leave the bytes in cache, so a verified load reads in
     * cache-sized slices. False for a device's DMA and for networks (a request per read).
     */
    default boolean memoryCopy() {
        return false;
    }

    /** What its open took, where the backend timed it (client start, first requests); {@link OpenTimes#NONE} otherwise. */
    default OpenTimes openTimes() {
        return OpenTimes.NONE;
    }

    /** Whether reads bypass the page cache (O_DIRECT). */
    boolean directIo();

    /** A one-line description for results. */
    String description();

    /** Per-endpoint figures of the reads so far (empty for backends with one endpoint, like files). */
    default java.util.List<EndpointStatistics> endpointStatistics() {
        return java.util.List.of();
    }

    @Override
    void close();
}
