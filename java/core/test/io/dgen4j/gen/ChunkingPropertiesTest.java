package io.dgen4j.gen;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** Any chunking, at any offsets and alignments, yields the bytes of one whole fill. */
class ChunkingPropertiesTest {
    private static final DataSpec SPEC = DataSpec.builder().seed(0xC0FFEE).size(3_000_017)
            .blockSize(2048).dedupRatio(1.7).compressRatio(2.5).build();
    private static final byte[] WHOLE = Streams.bytes(SPEC, Generator.Kind.JAVA, 1);

    @Property(tries = 60)
    void randomChunkingsMatch(@ForAll("cuts") List<Integer> cuts, @ForAll boolean nativeCore,
                              @ForAll @IntRange(min = 1, max = 4) int threads) {
        int[] points = cuts.stream().mapToInt(Integer::intValue).map(c -> c % (int) SPEC.size())
                .sorted().distinct().toArray();
        try (Generator gen = Generator.open(SPEC, nativeCore ? Generator.Kind.NATIVE : Generator.Kind.JAVA, threads)) {
            int prev = 0;
            for (int i = 0; i <= points.length; i++) {
                int next = i < points.length ? points[i] : (int) SPEC.size();
                assertArrayEquals(Arrays.copyOfRange(WHOLE, prev, next), Streams.bytes(gen, prev, next - prev),
                        () -> "chunk at " + Arrays.toString(points));
                prev = next;
            }
        }
    }

    @Property(tries = 200)
    void anyOffsetAndLength(@ForAll @IntRange(min = 0, max = 3_000_017) int offset,
                            @ForAll @IntRange(min = 0, max = 70_000) int length, @ForAll boolean nativeCore) {
        int len = (int) Math.min(length, SPEC.size() - offset);
        try (Generator gen = Generator.open(SPEC, nativeCore ? Generator.Kind.NATIVE : Generator.Kind.JAVA, 1)) {
            assertArrayEquals(Arrays.copyOfRange(WHOLE, offset, offset + len), Streams.bytes(gen, offset, len));
        }
    }

    @Provide
    Arbitrary<List<Integer>> cuts() {
        return Arbitraries.integers().between(0, Integer.MAX_VALUE).list().ofMinSize(0).ofMaxSize(12);
    }

    @Property(tries = 20)
    void oddTargetAlignments(@ForAll @IntRange(min = 1, max = 4095) int misalign) {
        // The destination address itself is misaligned, not only the stream offset.
        try (var arena = java.lang.foreign.Arena.ofConfined();
             Generator gen = Generator.open(SPEC, Generator.Kind.NATIVE, 2)) {
            int len = 1_000_000;
            var seg = arena.allocate(len + 8192L, 4096).asSlice(misalign, len);
            gen.fill(seg, 12345, len);
            assertArrayEquals(Arrays.copyOfRange(WHOLE, 12345, 12345 + len),
                    seg.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        }
    }
}
