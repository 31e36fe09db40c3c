package io.dgen4j.nativelib;

import io.dgen4j.ffi.dgen4j_h;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

/**
 * A file opened by the native core: O_DIRECT where the filesystem allows it, positional reads
 * and writes straight from native segments (no copy), short writes retried, errors with path and
 * offset. Reads and writes may run from several threads at once.
 *
 * {@snippet :
 * try (NativeFile f = NativeFile.open(path, NativeFile.WRITE | NativeFile.DIRECT, 0)) {
 *     f.write(0, segment);   // 4096-aligned address and offset when f.isDirect()
 *     f.sync();
 * }
 * }
 */
public final class NativeFile implements AutoCloseable {
    /** Open for reading. */
    public static final int READ = 1;
    /** Open for writing (create or truncate). */
    public static final int WRITE = 2;
    /** With WRITE: fail if the file exists. */
    public static final int CREATE_NEW = 4;
    /** O_DIRECT when the filesystem allows it. */
    public static final int DIRECT = 8;
    /** O_DIRECT or fail. */
    public static final int REQUIRE_DIRECT = 16;
    /** Alignment of addresses and offsets for O_DIRECT. */
    public static final int ALIGN = 4096;

    private final Path path;
    private final NativeHandle handle;
    private final boolean direct;

    private NativeFile(Path path, MemorySegment pointer) {
        this.path = path;
        this.handle = new NativeHandle(pointer, "file " + path, dgen4j_h::dgen4j_file_close);
        this.direct = dgen4j_h.dgen4j_file_is_direct(pointer) == 1;
    }

    /**
     * Opens {@code path}.
     *
     * @param flags       {@link #READ} or {@link #WRITE}, with {@link #CREATE_NEW}, {@link #DIRECT}
     *                    or {@link #REQUIRE_DIRECT}
     * @param preallocate bytes to reserve with fallocate (0: none), so a full disk fails here
     * @throws IOException with the operating system's reason and the path
     */
    public static NativeFile open(Path path, int flags, long preallocate) throws IOException {
        NativeLibrary.ensureLoaded();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            int rc = dgen4j_h.dgen4j_file_open(arena.allocateFrom(path.toString()), flags, preallocate, out);
            NativeCallException.checkIo(rc, "dgen4j_file_open");
            return new NativeFile(path, out.get(ValueLayout.ADDRESS, 0));
        }
    }

    /** The path this file was opened with. */
    public Path path() {
        return path;
    }

    /** Whether the data path uses O_DIRECT. */
    public boolean isDirect() {
        return direct;
    }

    /** Writes all of {@code data} at {@code offset}. */
    public void write(long offset, MemorySegment data) throws IOException {
        requireNative(data);
        handle.call(h -> io(dgen4j_h.dgen4j_file_pwrite(h, offset, data, data.byteSize()), "dgen4j_file_pwrite"));
    }

    /** Reads up to {@code dst.byteSize()} bytes at {@code offset}; returns the count (short only at EOF). */
    public long read(long offset, MemorySegment dst) throws IOException {
        requireNative(dst);
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("cannot read " + path + " into a read-only segment");
        }
        return handle.call(h -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment done = arena.allocate(ValueLayout.JAVA_LONG);
                io(dgen4j_h.dgen4j_file_pread(h, offset, dst, dst.byteSize(), done), "dgen4j_file_pread");
                return done.get(ValueLayout.JAVA_LONG, 0);
            }
        });
    }

    /** posix_fadvise for a range: 0 normal, 1 random, 2 sequential, 3 willneed, 4 dontneed, 5 noreuse. */
    public void fadvise(long offset, long length, int advice) throws IOException {
        handle.call(h -> io(dgen4j_h.dgen4j_file_fadvise(h, offset, length, advice), "dgen4j_file_fadvise"));
    }

    /** Makes the written data durable (fsync). */
    public void sync() throws IOException {
        handle.call(h -> io(dgen4j_h.dgen4j_file_sync(h), "dgen4j_file_sync"));
    }

    /** Closes the descriptors (without fsync); idempotent. */
    @Override
    public void close() {
        handle.close();
    }

    /** {@link NativeCallException#checkIo}, as a value for {@link NativeHandle#call}. */
    private static Void io(int rc, String function) throws IOException {
        NativeCallException.checkIo(rc, function);
        return null;
    }

    /**
     * Checks what the downcall would otherwise report wrapped in the bindings' AssertionError: a
     * heap, closed or other thread's confined segment.
     */
    private static void requireNative(MemorySegment seg) {
        if (seg == null) {
            throw new IllegalArgumentException("segment must not be null");
        }
        if (!seg.isNative()) {
            throw new IllegalArgumentException("native file I/O needs a native segment, not a heap array");
        }
        if (!seg.scope().isAlive()) {
            throw new IllegalStateException("the segment's arena is closed");
        }
        if (!seg.isAccessibleBy(Thread.currentThread())) {
            throw new WrongThreadException("the segment is confined to another thread: use it from its owner "
                    + "thread, or allocate it in a shared arena");
        }
    }
}
