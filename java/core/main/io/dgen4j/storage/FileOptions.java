package io.dgen4j.storage;

/**
 * How the file backend does its I/O.
 *
 * @param direct      O_DIRECT policy
 * @param fadvise     page-cache advice when I/O is buffered
 * @param fsync       fsync before the file is renamed into place (durability)
 * @param preallocate reserve the whole size with fallocate first, so a full disk fails at once
 */
public record FileOptions(Direct direct, Fadvise fadvise, boolean fsync, boolean preallocate) {
    /** O_DIRECT policy. */
    public enum Direct {
        /** O_DIRECT where the filesystem allows it, buffered I/O elsewhere (reported). */
        AUTO,
        /** O_DIRECT or fail ({@code direct://} URIs). */
        REQUIRE,
        /** Always buffered. */
        OFF
    }

    /** Page-cache advice for buffered I/O. */
    public enum Fadvise {
        /** No advice. */
        NONE(0),
        /** POSIX_FADV_SEQUENTIAL on the whole file. */
        SEQUENTIAL(2),
        /** POSIX_FADV_DONTNEED after each chunk, so the cache does not fill with checkpoint pages. */
        DONTNEED(4);

        final int advice;

        Fadvise(int advice) {
            this.advice = advice;
        }
    }

    /** O_DIRECT where possible, no advice, fsync, preallocation. */
    public static FileOptions defaults() {
        return new FileOptions(Direct.AUTO, Fadvise.NONE, true, true);
    }

    public FileOptions {
        if (direct == null || fadvise == null) {
            throw new IllegalArgumentException("direct and fadvise must not be null");
        }
    }

    /** A copy with another O_DIRECT policy. */
    public FileOptions withDirect(Direct d) {
        return new FileOptions(d, fadvise, fsync, preallocate);
    }

    /** A copy with another fadvise mode. */
    public FileOptions withFadvise(Fadvise f) {
        return new FileOptions(direct, f, fsync, preallocate);
    }

    /** A copy with fsync on or off. */
    public FileOptions withFsync(boolean on) {
        return new FileOptions(direct, fadvise, on, preallocate);
    }

    /** A copy with preallocation on or off. */
    public FileOptions withPreallocate(boolean on) {
        return new FileOptions(direct, fadvise, fsync, on);
    }
}
