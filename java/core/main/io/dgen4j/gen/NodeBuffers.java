package io.dgen4j.gen;

import io.dgen4j.ffi.dgen4j_h;
import io.dgen4j.nativelib.NativeCallException;
import io.dgen4j.nativelib.NativeLibrary;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

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
 * <p>Without the native core (the pure-Java twin) the buffers are ordinary page-aligned
 * allocations of the arena.
 */
public final class NodeBuffers {
    /** Buffers are aligned to at least this many bytes. */
    public static final long ALIGNMENT = 4096;

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

    /** A buffer of {@code size} bytes not bound to any node, freed when {@code arena} closes. */
    public static MemorySegment allocate(Arena arena, long size) {
        return allocate(arena, size, -1);
    }
}
