package io.dgen4j.bench;

import io.dgen4j.gen.DataSpec;
import io.dgen4j.gen.NativeGenerator;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The FFM call overhead: one 64 KiB fill (in cache, one thread) called from Java through the
 * bindings, against the same fill repeated inside Rust ({@code dgen4j_bench_fill}, one downcall
 * per {@value #BATCH} fills). Both report fills per second.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class FfmOverheadBenchmark {
    static final int BATCH = 1000;
    static final long SIZE = 64 << 10;

    Arena arena;
    MemorySegment seg;
    NativeGenerator gen;

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofConfined();
        seg = arena.allocate(SIZE, 4096);
        gen = new NativeGenerator(DataSpec.builder().size(1L << 30).seed(7).build(), 1);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        gen.close();
        arena.close();
    }

    /** One fill per Java call. */
    @Benchmark
    public void throughJava() {
        gen.fill(seg, 0, SIZE);
    }

    /** {@value #BATCH} fills per downcall, timed by the loop in Rust. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long insideRust() {
        return gen.timeFillInNative(seg, 0, SIZE, BATCH);
    }
}
