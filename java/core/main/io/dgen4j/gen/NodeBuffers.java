package io.dgen4j.gen;

import io.dgen4j.ffi.dgen4j_h;
import io.dgen4j.nativelib.NativeCallException;
import io.dgen4j.nativelib.NativeLibrary;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Node-local buffers: page-aligned native memory, bound to a NUMA node (with {@code mbind}) when
 * the machine has several nodes, and not touched until it is filled, so that an unused pool of
 * buffers costs no resident memory. Each buffer is a {@link MemorySegment} of the arena given:
 * closing the arena unmaps it.
 *
 * <p>A pinned {@link NativeGenerator} fills a node-local buffer on the workers of the buffer's
 * node, so every page is first touched by a CPU of that node.
 *
 * {@snippet :
 * DataSpec spec = DataSpec.builder().size(1L << 30).seed(7).build();
 * try (Arena arena = Arena.ofShared();
 *      Generator gen = Generator.open(spec, Generator.Kind.AUTO, 0, Numa.Mode.AUTO, 0)) {
 *     MemorySegment buf = NodeBuffers.allocate(arena, 64 << 20, 0);   // on node 0, not yet resident
 *     gen.fill(buf, 0);                                                // filled by node 0's workers
 * }                                                                    // closing the arena unmaps it
 * }
 *
 * <p>A {@linkplain #allocateShared shared} buffer is the memory of a file of its own (a Linux
 * memory file), so that a socket can be given its pages without a copy: {@link #fileRegion} names
 * the file and offset of any segment inside it, for {@link FileChannel#transferTo} ({@code
 * sendfile}).
 *
 * <p>Without the native core (the pure-Java twin) the buffers are ordinary page-aligned
 * allocations of the arena.
 */
public final class NodeBuffers {
    /** Buffers are aligned to at least this many bytes. */
    public static final long ALIGNMENT = 4096;

    private static final Logger LOG = LoggerFactory.getLogger(NodeBuffers.class);

    /** The live shared buffers by address: their size and the file their pages are. */
    private static final ConcurrentSkipListMap<Long, MemoryFile> SHARED = new ConcurrentSkipListMap<>();

    /** A shared buffer's size and file (a channel reading the buffer's memory file). */
    private record MemoryFile(long size, FileChannel file) {}

    /**
     * Where a segment's bytes lie in a file: {@code position} is the offset of its first byte in
     * {@code file}. {@code file.transferTo(position, n, socket)} sends its first {@code n} bytes.
     */
    public record FileRegion(FileChannel file, long position) {}

    private NodeBuffers() {}

    /**
     * A buffer of {@code size} bytes on NUMA node {@code node} ({@code -1}: no node), freed when
     * {@code arena} closes.
     *
     * @throws IllegalArgumentException when {@code size} is not positive or the node does not exist
     */
    public static MemorySegment allocate(Arena arena, long size, int node) {
        if (arena == null) {
            throw new IllegalArgumentException("arena must not be null");
        }
        if (size <= 0) {
            throw new IllegalArgumentException("size must be > 0, got " + size);
        }
        if (node < -1) {
            throw new IllegalArgumentException("node must be -1 (none) or a node id, got " + node);
        }
        if (!NativeLibrary.isAvailable()) {
            return arena.allocate(size, ALIGNMENT);
        }
        MemorySegment address;
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment out = tmp.allocate(ValueLayout.ADDRESS);
            int rc = dgen4j_h.dgen4j_numa_alloc(size, node, out);
            NativeCallException.check(rc, "dgen4j_numa_alloc");
            address = out.get(ValueLayout.ADDRESS, 0);
        }
        // The cleanup runs once, when the arena closes (or, for an automatic arena, when the
        // segment becomes unreachable).
        return address.reinterpret(size, arena, seg -> dgen4j_h.dgen4j_numa_free(seg, size));
    }

    /**
     * {@link #allocate(Arena, long, int)} as the memory of a file of its own: the buffer's pages
     * can be sent to a socket by {@code sendfile} ({@link #fileRegion}) where a {@code write}
     * would copy them. They count as the process's resident memory as an ordinary buffer's do,
     * and are not limited by /dev/shm's size. Where the system has no memory files (or no
     * /proc/self/fd, or no native core) this is an ordinary buffer, without a file region.
     *
     * @throws IllegalArgumentException when {@code size} is not positive or the node does not exist
     */
    public static MemorySegment allocateShared(Arena arena, long size, int node) {
        if (arena == null || size <= 0 || node < -1 || !NativeLibrary.isAvailable()) {
            return allocate(arena, size, node); // its checks, or an ordinary buffer
        }
        MemorySegment address;
        int fd;
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment out = tmp.allocate(ValueLayout.ADDRESS);
            MemorySegment fdOut = tmp.allocate(ValueLayout.JAVA_INT);
            int rc = dgen4j_h.dgen4j_numa_alloc_shared(size, node, out, fdOut);
            if (rc == dgen4j_h.DGEN4J_ERR_RESOURCE()) {
                LOG.debug("no memory file for a buffer of {} bytes ({}): an ordinary buffer instead", size,
                        NativeCallException.lastError());
                return allocate(arena, size, node);
            }
            NativeCallException.check(rc, "dgen4j_numa_alloc_shared");
            address = out.get(ValueLayout.ADDRESS, 0);
            fd = fdOut.get(ValueLayout.JAVA_INT, 0);
        }
        FileChannel file = null;
        try {
            // a descriptor of the native core's: a channel of our own on the same file
            file = FileChannel.open(Path.of("/proc/self/fd/" + fd), StandardOpenOption.READ);
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            LOG.debug("cannot open memory file /proc/self/fd/{} ({}): the buffer is sent by copying", fd, e.toString());
        }
        long at = address.address();
        FileChannel f = file;
        if (f != null) {
            SHARED.put(at, new MemoryFile(size, f));
        }
        return address.reinterpret(size, arena, seg -> {
            if (f != null) {
                SHARED.remove(at);
                try {
                    f.close();
                } catch (IOException e) {
                    // a read-only channel: nothing was written that a failed close could lose
                }
            }
            dgen4j_h.dgen4j_numa_free(seg, size);
        });
    }

    /**
     * The file and offset of {@code segment}'s bytes when they lie inside one live {@linkplain
     * #allocateShared shared} buffer (the whole buffer or a slice of it); empty otherwise.
     */
    public static Optional<FileRegion> fileRegion(MemorySegment segment) {
        if (!segment.isNative()) {
            return Optional.empty();
        }
        Map.Entry<Long, MemoryFile> e = SHARED.floorEntry(segment.address());
        if (e == null) {
            return Optional.empty();
        }
        long offset = segment.address() - e.getKey();
        if (offset + segment.byteSize() > e.getValue().size()) {
            return Optional.empty();
        }
        return Optional.of(new FileRegion(e.getValue().file(), offset));
    }

    /** A buffer of {@code size} bytes not bound to any node, freed when {@code arena} closes. */
    public static MemorySegment allocate(Arena arena, long size) {
        return allocate(arena, size, -1);
    }
}
