package io.dgen4j.bench;

import io.dgen4j.gen.DataSpec;
import io.dgen4j.gen.Generator;
import io.dgen4j.gen.JavaGenerator;
import io.dgen4j.gen.NativeGenerator;
import io.dgen4j.gen.NodeBuffers;
import io.dgen4j.gen.Numa;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Filling {@code bytes} bytes of memory with {@code threads} threads, one fill per operation: the
 * native core against the pure-Java twin, {@code MemorySegment.fill} (ordinary stores) and the
 * JDK's and our best pure-Java random generators. Throughput in ops/s; {@link BenchMain} turns it
 * into GB/s. The buffers are touched once in setup, so page faults are not measured.
 *
 * <p>Multi-threaded Java baselines split the buffer into {@code threads} contiguous pieces on a
 * fixed pool, as the native core does; below 256 KiB every case runs on one thread (as the
 * native pool does), so in-cache sizes measure call costs, not thread hand-offs.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class FillBenchmark {
    /** System property with a NUMA node to bind the native generator and the buffers to. */
    public static final String PROP_NODE = "dgen4j.bench.numaNode";
    static final long PARALLEL_MIN = 256 << 10;
    static final ValueLayout.OfLong LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    @Param({"65536", "33554432", "1073741824"})
    public long bytes;

    @Param({"1", "2"})
    public int threads;

    Arena arena;
    MemorySegment seg;
    ExecutorService pool;
    int node;

    /** Buffers, the thread pool. */
    @Setup(Level.Trial)
    public void setUp() {
        node = Integer.getInteger(PROP_NODE, -1);
        arena = Arena.ofShared();
        seg = NodeBuffers.allocate(arena, bytes, node);
        seg.fill((byte) 1);
        pool = threads > 1 ? Executors.newFixedThreadPool(threads) : null;
    }

    /** Frees everything. */
    @TearDown(Level.Trial)
    public void tearDown() {
        if (pool != null) {
            pool.shutdownNow();
        }
        arena.close();
    }

    /** Runs {@code body(piece, index)} on each of the pieces of {@code seg}. */
    void split(PieceBody body) throws Exception {
        if (pool == null || bytes < PARALLEL_MIN) {
            body.run(seg, 0);
            return;
        }
        List<Future<?>> fs = new ArrayList<>(threads);
        long per = (bytes / threads + 63) & ~63L;
        for (int k = 0; k < threads; k++) {
            long from = Math.min(bytes, k * per);
            long n = Math.min(per, bytes - from);
            MemorySegment piece = seg.asSlice(from, n);
            int index = k;
            fs.add(pool.submit(() -> {
                body.run(piece, index);
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get();
        }
    }

    /** Work on one piece. */
    interface PieceBody {
        void run(MemorySegment piece, int index) throws Exception;
    }

    /** The native generators. */
    @State(Scope.Benchmark)
    public static class NativeGen {
        NativeGenerator plain;
        NativeGenerator d2c3;

        @Setup(Level.Trial)
        public void setUp(FillBenchmark b) {
            int node = Integer.getInteger(PROP_NODE, -1);
            plain = new NativeGenerator(DataSpec.builder().size(b.bytes).seed(7).build(), b.threads, Numa.Mode.AUTO, node);
            d2c3 = new NativeGenerator(DataSpec.builder().size(b.bytes).seed(7).dedupRatio(2).compressRatio(3).build(),
                    b.threads, Numa.Mode.AUTO, node);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            plain.close();
            d2c3.close();
        }
    }

    /** The pure-Java twin, on the Vector API and in plain Java. */
    @State(Scope.Benchmark)
    public static class Twin {
        Generator vector;
        Generator scalar;

        @Setup(Level.Trial)
        public void setUp(FillBenchmark b) {
            DataSpec spec = DataSpec.builder().size(b.bytes).seed(7).build();
            vector = new JavaGenerator(spec, b.threads, JavaGenerator.Kernel.VECTOR);
            scalar = new JavaGenerator(spec, b.threads, JavaGenerator.Kernel.SCALAR);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            vector.close();
            scalar.close();
        }
    }

    /**
     * A buffer holding the stream (dedup 1, compress 1) for the verify case, filled once; its own
     * buffer, since the fill cases overwrite {@code seg}.
     */
    @State(Scope.Benchmark)
    public static class VerifyData {
        Arena arena;
        MemorySegment data;
        NativeGenerator gen;

        @Setup(Level.Trial)
        public void setUp(FillBenchmark b) {
            int node = Integer.getInteger(PROP_NODE, -1);
            arena = Arena.ofShared();
            data = NodeBuffers.allocate(arena, b.bytes, node);
            gen = new NativeGenerator(DataSpec.builder().size(b.bytes).seed(7).build(), b.threads, Numa.Mode.AUTO, node);
            gen.fill(data, 0);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            gen.close();
            arena.close();
        }
    }

    /** Heap arrays for {@code Random.nextBytes}, one per thread. */
    @State(Scope.Benchmark)
    public static class Arrays {
        byte[][] arrays;
        Random[] randoms;

        @Setup(Level.Trial)
        public void setUp(FillBenchmark b) {
            int t = b.bytes < PARALLEL_MIN ? 1 : b.threads;
            arrays = new byte[t][];
            randoms = new Random[t];
            for (int k = 0; k < t; k++) {
                arrays[k] = new byte[(int) (b.bytes / t)];
                randoms[k] = new Random(k + 1);
            }
        }
    }

    /** The native core (dedup 1, compress 1). */
    @Benchmark
    public void nativeFill(NativeGen g) {
        g.plain.fill(seg, 0);
    }

    /** The native core with dedup 2, compress 3. */
    @Benchmark
    public void nativeDedup2Compress3(NativeGen g) {
        g.d2c3.fill(seg, 0);
    }

    /** The fused native verify of a buffer holding the stream: regenerate and compare, no store. */
    @Benchmark
    public long nativeVerify(VerifyData v) {
        long m = v.gen.firstMismatch(v.data, 0);
        if (m != -1) {
            throw new IllegalStateException("the verify buffer differs from the stream at " + m);
        }
        return m;
    }

    /** The pure-Java twin on the Vector API (same bytes as native). */
    @Benchmark
    public void twinVector(Twin t) {
        t.vector.fill(seg, 0);
    }

    /** The pure-Java twin in plain Java, lane by lane (same bytes). */
    @Benchmark
    public void twinScalar(Twin t) {
        t.scalar.fill(seg, 0);
    }

    /**
     * {@code MemorySegment.fill}: the JDK's ordinary stores, a baseline ("fill" in the summary); not
     * the memory's bandwidth limit, which the native core's non-temporal stores come closer to.
     */
    @Benchmark
    public void memset() throws Exception {
        split((piece, k) -> piece.fill((byte) 0x5A));
    }

    /** {@code java.util.Random.nextBytes} into heap arrays. */
    @Benchmark
    public Object jdkRandom(Arrays a) throws Exception {
        if (a.arrays.length == 1) {
            a.randoms[0].nextBytes(a.arrays[0]);
        } else {
            List<Future<?>> fs = new ArrayList<>();
            for (int k = 0; k < a.arrays.length; k++) {
                int i = k;
                fs.add(pool.submit(() -> a.randoms[i].nextBytes(a.arrays[i])));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        }
        return a.arrays;
    }

    /** {@code SplittableRandom.nextLong} into the segment. */
    @Benchmark
    public void splittable() throws Exception {
        split((piece, k) -> {
            SplittableRandom r = new SplittableRandom(k + 1);
            long n = piece.byteSize() & ~7L;
            for (long p = 0; p < n; p += 8) {
                piece.set(LE, p, r.nextLong());
            }
        });
    }

    /** The JDK's {@code Xoshiro256PlusPlus} ({@code RandomGenerator.of}) into the segment. */
    @Benchmark
    public void jdkXoshiro() throws Exception {
        split((piece, k) -> {
            RandomGenerator r = RandomGenerator.of("Xoshiro256PlusPlus");
            long n = piece.byteSize() & ~7L;
            for (long p = 0; p < n; p += 8) {
                piece.set(LE, p, r.nextLong());
            }
        });
    }

    /** Eight xoshiro256++ lanes with the Vector API (the best pure Java we know of). */
    @Benchmark
    public void vectorXoshiro() throws Exception {
        split((piece, k) -> VectorXoshiro.fill(piece, k + 1));
    }

    /** An 8-lane xoshiro256++ on {@code LongVector}s (two 256-bit vectors per state word). */
    static final class VectorXoshiro {
        static final VectorSpecies<Long> S = LongVector.SPECIES_256;

        private VectorXoshiro() {}

        /** Chunks per call of {@link #block}: the hot loop is a normal (not OSR) compilation. */
        static final long CHUNK = 1 << 20;

        static void fill(MemorySegment seg, long seed) {
            long[] st = new long[32];
            SplittableRandom sm = new SplittableRandom(seed);
            for (int i = 0; i < st.length; i++) {
                st[i] = sm.nextLong();
            }
            long n = seg.byteSize() & ~63L;
            for (long p = 0; p < n; p += CHUNK) {
                block(st, seg, p, Math.min(CHUNK, n - p));
            }
        }

        /** Writes {@code len} bytes (a multiple of 64) at {@code off}, advancing the state {@code st}. */
        static void block(long[] st, MemorySegment seg, long off, long len) {
            LongVector s0a = LongVector.fromArray(S, st, 0);
            LongVector s0b = LongVector.fromArray(S, st, 4);
            LongVector s1a = LongVector.fromArray(S, st, 8);
            LongVector s1b = LongVector.fromArray(S, st, 12);
            LongVector s2a = LongVector.fromArray(S, st, 16);
            LongVector s2b = LongVector.fromArray(S, st, 20);
            LongVector s3a = LongVector.fromArray(S, st, 24);
            LongVector s3b = LongVector.fromArray(S, st, 28);
            for (long p = off, end = off + len; p < end; p += 64) {
                LongVector ra = s0a.add(s3a).lanewise(VectorOperators.ROL, 23).add(s0a);
                LongVector rb = s0b.add(s3b).lanewise(VectorOperators.ROL, 23).add(s0b);
                LongVector ta = s1a.lanewise(VectorOperators.LSHL, 17);
                LongVector tb = s1b.lanewise(VectorOperators.LSHL, 17);
                s2a = s2a.lanewise(VectorOperators.XOR, s0a);
                s2b = s2b.lanewise(VectorOperators.XOR, s0b);
                s3a = s3a.lanewise(VectorOperators.XOR, s1a);
                s3b = s3b.lanewise(VectorOperators.XOR, s1b);
                s1a = s1a.lanewise(VectorOperators.XOR, s2a);
                s1b = s1b.lanewise(VectorOperators.XOR, s2b);
                s0a = s0a.lanewise(VectorOperators.XOR, s3a);
                s0b = s0b.lanewise(VectorOperators.XOR, s3b);
                s2a = s2a.lanewise(VectorOperators.XOR, ta);
                s2b = s2b.lanewise(VectorOperators.XOR, tb);
                s3a = s3a.lanewise(VectorOperators.ROL, 45);
                s3b = s3b.lanewise(VectorOperators.ROL, 45);
                ra.intoMemorySegment(seg, p, ByteOrder.LITTLE_ENDIAN);
                rb.intoMemorySegment(seg, p + 32, ByteOrder.LITTLE_ENDIAN);
            }
            s0a.intoArray(st, 0);
            s0b.intoArray(st, 4);
            s1a.intoArray(st, 8);
            s1b.intoArray(st, 12);
            s2a.intoArray(st, 16);
            s2b.intoArray(st, 20);
            s3a.intoArray(st, 24);
            s3b.intoArray(st, 28);
        }
    }
}
