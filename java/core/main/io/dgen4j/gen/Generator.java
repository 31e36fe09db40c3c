package io.dgen4j.gen;

import io.dgen4j.nativelib.NativeLibrary;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fills memory with the bytes of a {@link DataSpec}'s stream, in place, at any stream offset.
 *
 * <p>Two implementations produce the same bytes: {@link NativeGenerator} (the Rust core, with a
 * persistent worker pool) and {@link JavaGenerator} (the pure-Java twin). {@link #open(DataSpec)}
 * picks the native one when it loads and otherwise falls back to the twin, saying so once in the
 * log (unless {@code -Ddgen4j.native.require=true} demands native code).
 *
 * {@snippet :
 * DataSpec spec = DataSpec.builder().size(64L << 20).seed(7).build();
 * try (Arena arena = Arena.ofConfined(); Generator gen = Generator.open(spec)) {
 *     MemorySegment chunk = arena.allocate(1 << 20, 4096);
 *     StreamCursor cursor = gen.cursor();
 *     while (cursor.hasRemaining()) {
 *         long n = cursor.next(chunk);    // the next n stream bytes are in chunk[0, n)
 *     }
 * }
 * }
 */
public sealed interface Generator extends AutoCloseable permits NativeGenerator, JavaGenerator {

    /** Which implementation {@link #open(DataSpec, Kind, int)} creates. */
    enum Kind {
        /** Native when it loads, else the twin with one logged warning. */
        AUTO,
        /** The Rust core; fails with a {@link LinkageError} when it cannot load. */
        NATIVE,
        /** The pure-Java twin. */
        JAVA;

        /** The name users type ({@code --generator}, {@code DGEN4J_DATA_GEN}): auto, native or java. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /**
         * Parses auto, native or java, in any case and with blanks around.
         *
         * @throws IllegalArgumentException naming the input and the choices
         */
        public static Kind parse(String s) {
            for (Kind k : values()) {
                if (s != null && k.name().equalsIgnoreCase(s.strip())) {
                    return k;
                }
            }
            throw new IllegalArgumentException("'" + s + "' is not a generator (auto, native, java)");
        }
    }

    /** The spec whose stream this generator produces. */
    DataSpec spec();

    /**
     * {@code "native"} (the Rust core), {@code "java-vector"} (the twin on the Vector API) or
     * {@code "java-scalar"} (the twin in plain Java, where {@code jdk.incubator.vector} is not in the
     * boot layer).
     */
    String implementation();

    /** Number of threads a large fill uses. */
    int threads();

    /**
     * Where the workers run (their NUMA nodes and CPUs), for generators that place them (the native
     * core); empty for the twin, which leaves placement to the JVM. A caller that allocates buffers
     * on the generator's node ({@link NodeBuffers}) asks this instead of the implementation's type.
     */
    default Optional<Numa.Plan> placement() {
        return Optional.empty();
    }

    /**
     * Writes stream bytes {@code [streamOffset, streamOffset + length)} into {@code dst[0, length)}.
     *
     * @throws IllegalArgumentException when the segment is read-only or smaller than {@code length},
     *         or the range is not inside the stream
     * @throws IllegalStateException when the segment's arena or this generator is closed
     */
    void fill(MemorySegment dst, long streamOffset, long length);

    /** Fills all of {@code dst} with the stream bytes starting at {@code streamOffset}. */
    default void fill(MemorySegment dst, long streamOffset) {
        fill(dst, streamOffset, dst.byteSize());
    }

    /**
     * Fills all of {@code dst} like {@link #fill(MemorySegment, long)} and returns the CRC-32C
     * (Castagnoli's, {@link java.util.zip.CRC32C}'s value, S3's part checksum) of the bytes
     * written, as an unsigned 32-bit value in an int. The native core sums each cache-sized block
     * right after generating it, on its workers, so the CRC costs no second pass over memory; this
     * default fills, then sums.
     */
    default int fillCrc32c(MemorySegment dst, long streamOffset) {
        fill(dst, streamOffset);
        java.util.zip.CRC32C sum = new java.util.zip.CRC32C();
        for (long at = 0; at < dst.byteSize(); at += Integer.MAX_VALUE) { // a ByteBuffer view's limit
            sum.update(dst.asSlice(at, Math.min(Integer.MAX_VALUE, dst.byteSize() - at)).asByteBuffer());
        }
        return (int) sum.getValue();
    }

    /**
     * Compares {@code data[0, length)} with stream bytes {@code [streamOffset, streamOffset + length)}
     * and returns the stream offset of the first byte that differs, or -1 when all are equal: the
     * verification of a read-back checkpoint without a stored copy. The native core regenerates the
     * stream in registers and compares as it goes (no intermediate buffer), in parallel on its
     * workers for large ranges; the twin compares stripe by stripe. {@code data} is only read (it may
     * be read-only) and must not change during the call.
     *
     * {@snippet :
     * long at = gen.firstMismatch(chunk, offset, n);
     * if (at >= 0) {
     *     throw new IOException("byte " + at + " differs from the stream");
     * }
     * }
     *
     * @return the stream offset (not the index in {@code data}) of the first differing byte, or -1
     * @throws IllegalArgumentException when the segment is smaller than {@code length} or the range is
     *         not inside the stream
     * @throws IllegalStateException when the segment's arena or this generator is closed
     */
    long firstMismatch(MemorySegment data, long streamOffset, long length);

    /** {@link #firstMismatch(MemorySegment, long, long)} over all of {@code data}. */
    default long firstMismatch(MemorySegment data, long streamOffset) {
        return firstMismatch(data, streamOffset, data.byteSize());
    }

    /**
     * {@link #firstMismatch(MemorySegment, long)}, and when every byte is equal, the CRC-32 (zip's,
     * {@link java.util.zip.CRC32}'s value) of {@code data} in {@code crc[0]} (left as it was when a
     * byte differs). The native core sums each cache-sized block right after comparing it, on its
     * workers, so the CRC costs no second pass over memory; this default compares, then sums.
     */
    default long firstMismatchCrc(MemorySegment data, long streamOffset, long[] crc) {
        long m = firstMismatch(data, streamOffset);
        if (m < 0) {
            java.util.zip.CRC32 sum = new java.util.zip.CRC32();
            for (long at = 0; at < data.byteSize(); at += Integer.MAX_VALUE) { // a ByteBuffer view's limit
                sum.update(data.asSlice(at, Math.min(Integer.MAX_VALUE, data.byteSize() - at)).asByteBuffer());
            }
            crc[0] = sum.getValue();
        }
        return m;
    }

    /** A cursor that fills consecutive chunks from stream offset 0. */
    default StreamCursor cursor() {
        return new StreamCursor(this, 0);
    }

    /** Releases the workers and native resources; later fills throw {@link IllegalStateException}. */
    @Override
    void close();

    /** A generator for {@code spec}: native when available, else the twin; default thread count. */
    static Generator open(DataSpec spec) {
        return open(spec, Kind.AUTO, 0);
    }

    /**
     * A generator for {@code spec}.
     *
     * @param threads workers for large fills; 0 = the CPUs this process may run on
     */
    static Generator open(DataSpec spec, Kind kind, int threads) {
        return open(spec, kind, threads, Numa.Mode.AUTO, -1);
    }

    /**
     * A generator for {@code spec} whose native workers are placed by a NUMA mode, optionally bound
     * to one node ({@code -1}: none). The pure-Java twin ignores placement.
     *
     * @param threads workers for large fills; 0 = the CPUs this process may run on, divided by the
     *                MPI ranks on this host ({@link Numa#defaultThreads()})
     * @throws IllegalArgumentException when the node does not exist or has no usable CPU
     */
    static Generator open(DataSpec spec, Kind kind, int threads, Numa.Mode mode, int node) {
        if (spec == null || kind == null || mode == null) {
            throw new IllegalArgumentException("spec, kind and mode must not be null");
        }
        if (threads < 0) {
            throw new IllegalArgumentException("threads must be >= 0 (0 = all CPUs), got " + threads);
        }
        return switch (kind) {
            case JAVA -> new JavaGenerator(spec, threads);
            case NATIVE -> new NativeGenerator(spec, threads, mode, node);
            case AUTO -> {
                if (NativeLibrary.isAvailable()) {
                    yield new NativeGenerator(spec, threads, mode, node);
                }
                if (NativeLibrary.isRequired()) {
                    NativeLibrary.ensureLoaded();
                }
                Fallback.warnOnce();
                yield new JavaGenerator(spec, threads);
            }
        };
    }

    /** Allocates {@code spec.size()} bytes in {@code arena} and fills them with the whole stream. */
    static MemorySegment generate(DataSpec spec, Arena arena) {
        MemorySegment seg = arena.allocate(Math.max(1, spec.size()), 4096).asSlice(0, spec.size());
        try (Generator gen = open(spec)) {
            gen.fill(seg, 0);
        }
        return seg;
    }

    /** The one warning about falling back to the twin. */
    final class Fallback {
        private static final Logger LOG = LoggerFactory.getLogger(Generator.class);
        private static final AtomicBoolean WARNED = new AtomicBoolean();

        private Fallback() {}

        static void warnOnce() {
            if (NativeLibrary.isDisabled()) {
                if (WARNED.compareAndSet(false, true)) {
                    LOG.info("dgen4j: native core disabled ({}=true); using the pure-Java generator",
                            NativeLibrary.PROP_DISABLE);
                }
            } else if (WARNED.compareAndSet(false, true)) {
                LOG.warn("{} Using the pure-Java generator: same bytes, slower.",
                        NativeLibrary.failure().map(Throwable::getMessage).orElse("dgen4j: native core unavailable."));
            }
        }
    }
}
