package io.dgen4j.gen;

import io.dgen4j.ffi.dgen4j_h;
import io.dgen4j.nativelib.NativeCallException;
import io.dgen4j.nativelib.NativeHandle;
import io.dgen4j.nativelib.NativeLibrary;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Optional;

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
    /** Fills run under its read lock, close takes its write lock: the generator is never freed under a fill. */
    private final NativeHandle handle;
    private final int threads;
    private final Numa.Plan plan;

    /**
     * Creates the native generator and its workers.
     *
     * @param threads workers (0 = the CPUs in this process's affinity mask, 1 = the calling thread)
     * @throws LinkageError when the native core cannot be loaded
     */
    public NativeGenerator(DataSpec spec, int threads) {
        this(spec, threads, Numa.Mode.AUTO, -1);
    }

    /**
     * Creates the native generator with its workers placed by a NUMA mode, optionally bound to
     * one node: the workers then run on that node's CPUs, and buffers from
     * {@link NodeBuffers#allocate(Arena, long, int)} for that node are filled by them.
     *
     * @param threads workers (0 = the CPUs this process may use, divided by the MPI ranks on this host)
     * @param mode    when to pin workers ({@link Numa.Mode#AUTO}: with several nodes or a node given)
     * @param node    the node to bind to, or -1 for none
     * @throws IllegalArgumentException when the node does not exist or has no CPU this process may use
     * @throws LinkageError when the native core cannot be loaded
     */
    public NativeGenerator(DataSpec spec, int threads, Numa.Mode mode, int node) {
        if (spec == null || mode == null) {
            throw new IllegalArgumentException("spec must not be null");
        }
        if (threads < 0) {
            throw new IllegalArgumentException("threads must be >= 0 (0 = all CPUs), got " + threads);
        }
        if (node < -1) {
            throw new IllegalArgumentException("node must be -1 (none) or a node id, got " + node);
        }
        NativeLibrary.ensureLoaded();
        this.spec = spec;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            int rc = dgen4j_h.dgen4j_generator_new_numa(spec.seed(), spec.size(), spec.blockSize(),
                    spec.dedupRatio(), spec.compressRatio(), threads, mode.code(), node, out);
            NativeCallException.check(rc, "dgen4j_generator_new_numa");
            MemorySegment pointer = out.get(ValueLayout.ADDRESS, 0);
            this.handle = new NativeHandle(pointer, "generator", dgen4j_h::dgen4j_generator_free);
            this.threads = dgen4j_h.dgen4j_generator_threads(pointer);
            this.plan = Numa.parsePlan(Numa.text((buf, cap) -> dgen4j_h.dgen4j_generator_plan(pointer, buf, cap)));
        }
    }

    /** Where this generator's threads run. */
    public Numa.Plan plan() {
        return plan;
    }

    @Override
    public Optional<Numa.Plan> placement() {
        return Optional.of(plan);
    }

    /**
     * Fills {@code dst[0, length)} with stream bytes at {@code streamOffset} {@code iterations} times
     * inside the native core and returns the nanoseconds it took there: the reference against
     * which the FFM call overhead is measured. {@code dst} must be a native segment.
     */
    public long timeFillInNative(MemorySegment dst, long streamOffset, long length, long iterations) {
        FillRange.check(spec, dst, streamOffset, length);
        if (!dst.isNative()) {
            throw new IllegalArgumentException("timeFillInNative needs a native segment");
        }
        return handle.call(h -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment nanos = arena.allocate(ValueLayout.JAVA_LONG);
                int rc = dgen4j_h.dgen4j_bench_fill(h, streamOffset, dst, length, iterations, nanos);
                NativeCallException.check(rc, "dgen4j_bench_fill");
                return nanos.get(ValueLayout.JAVA_LONG, 0);
            }
        });
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
        return handle.call(dgen4j_h::dgen4j_generator_distinct_blocks);
    }

    @Override
    public void fill(MemorySegment dst, long streamOffset, long length) {
        FillRange.check(spec, dst, streamOffset, length);
        handle.call(h -> {
            if (length == 0) {
                return null;
            }
            if (dst.isNative()) {
                NativeCallException.check(dgen4j_h.dgen4j_generator_fill(h, streamOffset, dst, length),
                        "dgen4j_generator_fill");
                return null;
            }
            // A downcall cannot take a heap address: fill a bounded native scratch and copy.
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment scratch = arena.allocate(Math.min(length, HEAP_SCRATCH), 4096);
                for (long done = 0; done < length; ) {
                    long n = Math.min(scratch.byteSize(), length - done);
                    NativeCallException.check(dgen4j_h.dgen4j_generator_fill(h, streamOffset + done, scratch, n),
                            "dgen4j_generator_fill");
                    MemorySegment.copy(scratch, 0, dst, done, n);
                    done += n;
                }
            }
            return null;
        });
    }

    /**
     * Fills {@code dst} (a native segment) with stream bytes at {@code streamOffset} like
     * {@link #fill}, makes the values of a floating-point type finite ({@code finite}: the native
     * core's DGEN4J_FINITE_* code, 0 for none; {@code phase}: the byte of its element that
     * {@code dst[0]} is) and returns {@code crc} (the CRC-32 of what came before, 0 to start)
     * continued over the bytes written, or 0 when {@code withCrc} is false: one pass on the
     * workers, each block summed while still in cache.
     *
     * @throws IllegalArgumentException for a heap segment, a range outside the stream, or a bad code or phase
     */
    public long fillPayload(MemorySegment dst, long streamOffset, int finite, int phase, boolean withCrc, long crc) {
        FillRange.check(spec, dst, streamOffset, dst.byteSize());
        if (!dst.isNative()) {
            throw new IllegalArgumentException("fillPayload needs a native segment");
        }
        return handle.call(h -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment sum = withCrc ? arena.allocate(ValueLayout.JAVA_INT) : MemorySegment.NULL;
                if (withCrc) {
                    sum.set(ValueLayout.JAVA_INT, 0, (int) crc);
                }
                int rc = dgen4j_h.dgen4j_generator_fill_payload(h, streamOffset, dst, dst.byteSize(), finite, phase, sum);
                NativeCallException.check(rc, "dgen4j_generator_fill_payload");
                return withCrc ? Integer.toUnsignedLong(sum.get(ValueLayout.JAVA_INT, 0)) : 0L;
            }
        });
    }

    /** {@inheritDoc} Native segments are filled and summed in one pass; heap ones as the default does. */
    @Override
    public int fillCrc32c(MemorySegment dst, long streamOffset) {
        if (!dst.isNative()) {
            return Generator.super.fillCrc32c(dst, streamOffset);
        }
        FillRange.check(spec, dst, streamOffset, dst.byteSize());
        return handle.call(h -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment sum = arena.allocate(ValueLayout.JAVA_INT);
                int rc = dgen4j_h.dgen4j_generator_fill_crc32c(h, streamOffset, dst, dst.byteSize(), sum);
                NativeCallException.check(rc, "dgen4j_generator_fill_crc32c");
                return sum.get(ValueLayout.JAVA_INT, 0);
            }
        });
    }

    @Override
    public long firstMismatch(MemorySegment data, long streamOffset, long length) {
        FillRange.checkSource(spec, data, streamOffset, length);
        return handle.call(h -> {
            if (length == 0) {
                return -1L;
            }
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment at = arena.allocate(ValueLayout.JAVA_LONG);
                if (data.isNative()) {
                    return verify(h, data, streamOffset, length, at);
                }
                // A downcall cannot take a heap address: compare through a bounded native copy.
                MemorySegment scratch = arena.allocate(Math.min(length, HEAP_SCRATCH), 4096);
                for (long done = 0; done < length; ) {
                    long n = Math.min(scratch.byteSize(), length - done);
                    MemorySegment.copy(data, done, scratch, 0, n);
                    long m = verify(h, scratch, streamOffset + done, n, at);
                    if (m >= 0) {
                        return m;
                    }
                    done += n;
                }
                return -1L;
            }
        });
    }

    @Override
    public long firstMismatchCrc(MemorySegment data, long streamOffset, long[] crc) {
        if (!data.isNative()) {
            return Generator.super.firstMismatchCrc(data, streamOffset, crc);
        }
        long length = data.byteSize();
        FillRange.checkSource(spec, data, streamOffset, length);
        return handle.call(h -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment at = arena.allocate(ValueLayout.JAVA_LONG);
                MemorySegment sum = arena.allocate(ValueLayout.JAVA_INT); // zeroed: the CRC from nothing
                int rc = dgen4j_h.dgen4j_generator_verify_payload(h, streamOffset, data, length, 0, 0, at, sum);
                NativeCallException.check(rc, "dgen4j_generator_verify_payload");
                long m = at.get(ValueLayout.JAVA_LONG, 0);
                if (m != streamOffset + length) {
                    return m;
                }
                crc[0] = Integer.toUnsignedLong(sum.get(ValueLayout.JAVA_INT, 0));
                return -1L;
            }
        });
    }

    /**
     * The stream offset of the first byte of {@code data} (a native segment) that differs from the stream
     * with the values of a floating-point type made finite ({@code finite}: the native core's
     * DGEN4J_FINITE_* code; {@code phase}: the byte of its element that {@code data[0]} is), or -1, and
     * then, with {@code crc}, the CRC-32 of {@code data} in {@code crc[0]}: the fused compare's one pass
     * on the workers, the kernels masking as they regenerate (what {@link #fillPayload} wrote).
     *
     * @throws IllegalArgumentException for a heap segment, a range outside the stream, or a bad code or phase
     */
    public long firstMismatchPayload(MemorySegment data, long streamOffset, int finite, int phase, long[] crc) {
        long length = data.byteSize();
        FillRange.checkSource(spec, data, streamOffset, length);
        if (!data.isNative()) {
            throw new IllegalArgumentException("firstMismatchPayload needs a native segment");
        }
        return handle.call(h -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment at = arena.allocate(ValueLayout.JAVA_LONG);
                MemorySegment sum = crc != null ? arena.allocate(ValueLayout.JAVA_INT) : MemorySegment.NULL;
                int rc = dgen4j_h.dgen4j_generator_verify_payload(h, streamOffset, data, length, finite, phase, at, sum);
                NativeCallException.check(rc, "dgen4j_generator_verify_payload");
                long m = at.get(ValueLayout.JAVA_LONG, 0);
                if (m != streamOffset + length) {
                    return m;
                }
                if (crc != null) {
                    crc[0] = Integer.toUnsignedLong(sum.get(ValueLayout.JAVA_INT, 0));
                }
                return -1L;
            }
        });
    }

    /** One native verify of {@code data[0, length)}; -1 when equal. */
    private static long verify(MemorySegment h, MemorySegment data, long streamOffset, long length, MemorySegment at) {
        int rc = dgen4j_h.dgen4j_generator_verify(h, streamOffset, data, length, at);
        NativeCallException.check(rc, "dgen4j_generator_verify");
        long m = at.get(ValueLayout.JAVA_LONG, 0);
        return m == streamOffset + length ? -1 : m;
    }

    @Override
    public void close() {
        handle.close();
    }
}
