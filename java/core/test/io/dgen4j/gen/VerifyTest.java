package io.dgen4j.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import java.util.zip.CRC32;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Generator#firstMismatch}: the native fused verify and both twin kernels agree with fill, and
 * report the first flipped byte wherever it is (first, last, middle, unaligned ends, later flips
 * ignored), on native, heap and read-only segments, on one thread and several.
 */
class VerifyTest {
    record Impl(String name, Supplier<Generator> open) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final DataSpec SPEC = DataSpec.builder().seed(21).size((6L << 20) + 333).blockSize(2048)
            .dedupRatio(1.7).compressRatio(2.5).build();

    static List<Impl> impls() {
        return List.of(
                new Impl("native-1", () -> new NativeGenerator(SPEC, 1)),
                new Impl("native-3", () -> new NativeGenerator(SPEC, 3)),
                // What a load verified by its readers shares: each compare on its caller's thread.
                new Impl("native-1-unpinned", () -> new NativeGenerator(SPEC, 1, Numa.Mode.OFF, -1)),
                new Impl("vector-1", () -> new JavaGenerator(SPEC, 1, JavaGenerator.Kernel.VECTOR)),
                new Impl("vector-3", () -> new JavaGenerator(SPEC, 3, JavaGenerator.Kernel.VECTOR)),
                new Impl("scalar-2", () -> new JavaGenerator(SPEC, 2, JavaGenerator.Kernel.SCALAR)));
    }

    static void flip(MemorySegment seg, long at) {
        seg.set(ValueLayout.JAVA_BYTE, at, (byte) (seg.get(ValueLayout.JAVA_BYTE, at) ^ 0x20));
    }

    @ParameterizedTest
    @MethodSource("impls")
    void findsTheFirstFlippedByte(Impl impl) {
        byte[] reference = Streams.bytes(SPEC, Generator.Kind.NATIVE, 1);
        Random rnd = new Random(5);
        try (Generator gen = impl.open.get(); Arena arena = Arena.ofShared()) {
            MemorySegment all = arena.allocate(SPEC.size() + 64, 64);
            for (int round = 0; round < 12; round++) {
                long offset = round == 0 ? 0 : rnd.nextLong(SPEC.size());
                long length = round == 0 ? SPEC.size() : 1 + rnd.nextLong(SPEC.size() - offset);
                int shift = rnd.nextInt(64);
                MemorySegment seg = all.asSlice(shift, length);
                MemorySegment.copy(MemorySegment.ofArray(reference), offset, seg, 0, length);
                String what = impl + " [" + offset + ", +" + length + ") shift " + shift;
                assertEquals(-1, gen.firstMismatch(seg, offset), what);
                assertEquals(-1, gen.firstMismatch(seg.asReadOnly(), offset), what + " read-only");
                for (long at : new long[] {0, length - 1, length / 2, rnd.nextLong(length)}) {
                    flip(seg, at);
                    assertEquals(offset + at, gen.firstMismatch(seg, offset), what + " flip " + at);
                    if (at + 5000 < length) {
                        flip(seg, at + 5000);
                        assertEquals(offset + at, gen.firstMismatch(seg, offset), what + " two flips at " + at);
                        flip(seg, at + 5000);
                    }
                    flip(seg, at);
                }
            }
            // Heap segments (the native core compares through a native copy).
            byte[] heap = reference.clone();
            heap[4_000_000] ^= 1;
            assertEquals(4_000_000, gen.firstMismatch(MemorySegment.ofArray(heap), 0), impl + " heap");
            assertEquals(-1, gen.firstMismatch(MemorySegment.ofArray(heap), 0, 4_000_000), impl + " heap prefix");
            assertEquals(-1, gen.firstMismatch(MemorySegment.ofArray(new byte[0]), SPEC.size()));
            assertThrows(IllegalArgumentException.class, () -> gen.firstMismatch(all, 1, SPEC.size()));
            assertThrows(IllegalArgumentException.class, () -> gen.firstMismatch(all, 0, -1));
            assertThrows(IllegalArgumentException.class, () -> gen.firstMismatch(MemorySegment.ofArray(new byte[4]), 0, 5));
        }
        Generator closed = impl.open.get();
        closed.close();
        assertThrows(IllegalStateException.class, () -> closed.firstMismatch(MemorySegment.ofArray(new byte[4]), 0));
    }

    /**
     * {@link Generator#firstMismatchCrc}: the CRC-32 of equal bytes is {@link CRC32}'s, on native and
     * heap segments and across the native core's parallel pieces; a flipped byte anywhere (in the first
     * 64 KiB block, on a block edge, in the last) is reported and leaves the CRC as it was.
     */
    @ParameterizedTest
    @MethodSource("impls")
    void comparesAndSumsInOnePass(Impl impl) {
        byte[] reference = Streams.bytes(SPEC, Generator.Kind.NATIVE, 1);
        try (Generator gen = impl.open.get(); Arena arena = Arena.ofShared()) {
            for (long[] range : new long[][] {{0, SPEC.size()}, {12_345, (3L << 20) + 7}, {SPEC.size() - 100, 100}}) {
                long offset = range[0];
                int length = (int) range[1];
                MemorySegment seg = arena.allocate(length, 64);
                MemorySegment.copy(MemorySegment.ofArray(reference), offset, seg, 0, length);
                CRC32 want = new CRC32();
                want.update(reference, (int) offset, length);
                String what = impl + " [" + offset + ", +" + length + ")";
                long[] crc = {-1};
                assertEquals(-1, gen.firstMismatchCrc(seg, offset, crc), what);
                assertEquals(want.getValue(), crc[0], what);
                crc[0] = -1;
                byte[] heap = java.util.Arrays.copyOfRange(reference, (int) offset, (int) offset + length);
                assertEquals(-1, gen.firstMismatchCrc(MemorySegment.ofArray(heap), offset, crc), what + " heap");
                assertEquals(want.getValue(), crc[0], what + " heap");
                for (long at : new long[] {0, 65_535, 65_536, length - 1}) {
                    if (at >= length) {
                        continue;
                    }
                    flip(seg, at);
                    crc[0] = 42;
                    assertEquals(offset + at, gen.firstMismatchCrc(seg, offset, crc), what + " flip " + at);
                    assertEquals(42, crc[0], what + " flip " + at + ": the CRC is left as it was");
                    flip(seg, at);
                }
            }
        }
    }

    /**
     * One generator shared by several threads comparing at once (a load's readers verifying their own
     * slices): each caller gets the exact result for its own range, equal or with its own flipped byte.
     */
    @ParameterizedTest
    @MethodSource("impls")
    void concurrentCallersEachGetTheirOwnFirstMismatch(Impl impl) throws Exception {
        byte[] reference = Streams.bytes(SPEC, Generator.Kind.NATIVE, 1);
        int callers = 4;
        long slice = SPEC.size() / callers;
        try (Generator gen = impl.open.get(); Arena arena = Arena.ofShared()) {
            MemorySegment all = arena.allocate(SPEC.size(), 4096);
            MemorySegment.copy(MemorySegment.ofArray(reference), 0, all, 0, SPEC.size());
            // Caller k's slice has a flipped byte at 1000 * k + 77 (caller 0's is left equal).
            for (int k = 1; k < callers; k++) {
                flip(all, k * slice + 1000L * k + 77);
            }
            java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(callers);
            java.util.concurrent.atomic.AtomicReferenceArray<String> errors =
                    new java.util.concurrent.atomic.AtomicReferenceArray<>(callers);
            List<Thread> threads = new java.util.ArrayList<>();
            for (int k = 0; k < callers; k++) {
                int id = k;
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        start.await();
                        long from = id * slice;
                        long want = id == 0 ? -1 : from + 1000L * id + 77;
                        for (int round = 0; round < 20; round++) {
                            long got = gen.firstMismatch(all.asSlice(from, slice), from);
                            if (got != want) {
                                errors.set(id, "caller " + id + " round " + round + ": got " + got + ", want " + want);
                                return;
                            }
                        }
                    } catch (Exception | Error e) {
                        errors.set(id, "caller " + id + ": " + e);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            for (int k = 0; k < callers; k++) {
                assertEquals(null, errors.get(k), impl.toString());
            }
        }
    }
}
