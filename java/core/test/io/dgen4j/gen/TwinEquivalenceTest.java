package io.dgen4j.gen;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Rust and Java produce the same bytes, at every thread count. */
class TwinEquivalenceTest {

    static Stream<Arguments> specs() {
        return Stream.of(
                Arguments.of(DataSpec.builder().seed(1).size(8L << 20).build()),
                Arguments.of(DataSpec.builder().seed(2).size((8L << 20) + 777).dedupRatio(2).compressRatio(3).build()),
                Arguments.of(DataSpec.builder().seed(3).size(5_000_000).blockSize(512).dedupRatio(1.5).compressRatio(8).build()),
                Arguments.of(DataSpec.builder().seed(4).size(9_000_000).blockSize(1 << 20).dedupRatio(3).compressRatio(1.5).build()),
                Arguments.of(DataSpec.builder().seed(-7).size(3_333_333).blockSize(2048).dedupRatio(100).compressRatio(100).build()));
    }

    @ParameterizedTest
    @MethodSource("specs")
    void nativeEqualsJavaAtThreadsOneToFour(DataSpec spec) {
        byte[] reference = Streams.bytes(spec, Generator.Kind.JAVA, 1);
        for (int threads = 1; threads <= 4; threads++) {
            assertArrayEquals(reference, Streams.bytes(spec, Generator.Kind.NATIVE, threads), "native, threads " + threads);
            assertArrayEquals(reference, Streams.bytes(spec, Generator.Kind.JAVA, threads), "java, threads " + threads);
            for (JavaGenerator.Kernel k : new JavaGenerator.Kernel[] {JavaGenerator.Kernel.VECTOR, JavaGenerator.Kernel.SCALAR}) {
                try (Generator gen = new JavaGenerator(spec, threads, k)) {
                    assertArrayEquals(reference, Streams.bytes(gen, 0, spec.size()), gen.implementation() + ", threads " + threads);
                }
            }
        }
    }

    @Test
    void bothTwinKernelsRunInThisJvm() {
        // Surefire runs with --add-modules jdk.incubator.vector (VectorTwinTest covers the JVM without it).
        assertTrue(JavaGenerator.vectorAvailable(), "the Vector API twin is not available here: " + JavaGenerator.vectorStatus());
        DataSpec spec = DataSpec.ofSize(4096);
        try (Generator v = new JavaGenerator(spec, 1, JavaGenerator.Kernel.VECTOR);
             Generator s = new JavaGenerator(spec, 1, JavaGenerator.Kernel.SCALAR);
             Generator a = Generator.open(spec, Generator.Kind.JAVA, 1)) {
            assertEquals("java-vector", v.implementation());
            assertEquals("java-scalar", s.implementation());
            assertEquals("java-vector", a.implementation());
        }
    }

    @Test
    void heapSegmentsGetTheSameBytes() {
        DataSpec spec = DataSpec.builder().seed(9).size(3 << 20).dedupRatio(2).build();
        byte[] reference = Streams.bytes(spec, Generator.Kind.JAVA, 1);
        for (Generator.Kind kind : new Generator.Kind[] {Generator.Kind.NATIVE, Generator.Kind.JAVA}) {
            byte[] heap = new byte[(int) spec.size()];
            try (Generator gen = Generator.open(spec, kind, 2)) {
                gen.fill(MemorySegment.ofArray(heap), 0);
            }
            assertArrayEquals(reference, heap, kind.toString());
        }
        byte[] heap = new byte[(int) spec.size()];
        try (Generator gen = new JavaGenerator(spec, 2, JavaGenerator.Kernel.SCALAR)) {
            gen.fill(MemorySegment.ofArray(heap), 0);
        }
        assertArrayEquals(reference, heap, "java-scalar");
    }

    @Test
    void oneShotGenerateAndCursorAgree() {
        DataSpec spec = DataSpec.builder().seed(5).size(10_000_019).compressRatio(2).build();
        byte[] reference = Streams.bytes(spec, Generator.Kind.JAVA, 1);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment all = Generator.generate(spec, arena);
            assertEquals(spec.size(), all.byteSize());
            assertArrayEquals(reference, all.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            try (Generator gen = Generator.open(spec)) {
                MemorySegment chunk = arena.allocate(1_000_003);
                StreamCursor cursor = gen.cursor();
                long pos = 0;
                while (cursor.hasRemaining()) {
                    long n = cursor.next(chunk);
                    assertArrayEquals(java.util.Arrays.copyOfRange(reference, (int) pos, (int) (pos + n)),
                            chunk.asSlice(0, n).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
                    pos += n;
                }
                assertEquals(spec.size(), pos);
                assertEquals(0, cursor.next(chunk));
            }
        }
    }

    @Test
    void nativeCountsTheSameDistinctBlocks() {
        for (double dedup : new double[] {1, 1.5, 2, 3.7, 1e9}) {
            DataSpec spec = DataSpec.builder().size(1000L * 4096 + 5).dedupRatio(dedup).build();
            try (NativeGenerator gen = new NativeGenerator(spec, 1)) {
                assertEquals(spec.distinctBlocks(), gen.distinctBlocks(), "dedup " + dedup);
            }
        }
    }
}
