package io.dgen4j.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.dgen4j.ffi.dgen4j_h;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.gen.Generator;
import io.dgen4j.gen.JavaGenerator;
import io.dgen4j.gen.NativeGenerator;
import io.dgen4j.nativelib.NativeLibrary;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The native core's CRC-32 (computed as it fills) and its finite masking equal the Java twin's
 * ({@link CRC32}, {@link Finite}) byte for byte, over odd sizes, offsets and alignments, alone and
 * through a whole torch layout.
 */
class NativeCrcFiniteTest {
    private static final List<Tensor> TENSORS = TensorList.parse("""
            a/h float16 [1001,3]
            a/b bfloat16 [77,13]
            a/f float32 [4099,5]
            a/d float64 [333]
            a/i int32 [17]
            a/u uint8 [4097]
            big float16 [700001]
            """, "test");

    @BeforeAll
    static void nativeCore() {
        NativeLibrary.ensureLoaded(); // these tests compare the native core with the twin: they need it
    }

    private static long javaCrc(MemorySegment s) {
        CRC32 c = new CRC32();
        c.update(s.asByteBuffer());
        return c.getValue();
    }

    @Test
    void crc32MatchesJavaUtilZipOverOddSizesAndOffsets() {
        Random r = new Random(3);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocate(300_000, 4096);
            for (long i = 0; i < data.byteSize(); i++) {
                data.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
            }
            for (int n = 0; n < 400; n++) {
                long start = r.nextInt(64);
                long len = n < 150 ? n : r.nextInt(299_000 - 64);
                MemorySegment piece = data.asSlice(start, len);
                assertEquals(javaCrc(piece), Integer.toUnsignedLong(dgen4j_h.dgen4j_crc32(0, piece, len)),
                        "start " + start + " len " + len);
                long cut = len / 3;
                int a = dgen4j_h.dgen4j_crc32(0, piece, cut);
                int both = dgen4j_h.dgen4j_crc32(a, piece.asSlice(cut), len - cut);
                assertEquals(javaCrc(piece), Integer.toUnsignedLong(both));
                int b = dgen4j_h.dgen4j_crc32(0, piece.asSlice(cut), len - cut);
                assertEquals(Integer.toUnsignedLong(dgen4j_h.dgen4j_crc32_combine(a, b, len - cut)),
                        Crc32s.combine(Integer.toUnsignedLong(a), Integer.toUnsignedLong(b), len - cut));
            }
            assertEquals(0xCBF43926L, Integer.toUnsignedLong(dgen4j_h.dgen4j_crc32(0,
                    arena.allocateFrom("123456789"), 9)));
        }
    }

    @Test
    void nativeFillPayloadEqualsJavaFillMaskAndCrc() {
        DataSpec spec = DataSpec.builder().seed(5).compressRatio(1.7).size(3L << 20).build();
        Random r = new Random(4);
        try (Arena arena = Arena.ofConfined(); NativeGenerator nat = new NativeGenerator(spec, 3);
             JavaGenerator twin = new JavaGenerator(spec, 1)) {
            MemorySegment got = arena.allocate(spec.size() + 64, 64);
            MemorySegment want = arena.allocate(spec.size() + 64, 64);
            DType[] types = {null, DType.FLOAT16, DType.BFLOAT16, DType.FLOAT32, DType.FLOAT64, DType.INT32};
            for (int n = 0; n < 60; n++) {
                long len = n % 3 == 0 ? r.nextInt(1 << 21) : r.nextInt(5000);
                long offset = r.nextLong(spec.size() - len + 1);
                long align = r.nextInt(64); // buffers at odd addresses, too
                DType dtype = types[n % types.length];
                int code = dtype == null ? 0 : Finite.code(dtype); // 0 for int32: nothing to mask
                int phase = code == 0 ? 0 : (int) (offset % dtype.itemSize());
                MemorySegment g = got.asSlice(align, len);
                MemorySegment w = want.asSlice(align, len);
                long before = r.nextInt() & 0xffffffffL;
                long crc = nat.fillPayload(g, offset, code, phase, true, before);
                twin.fill(w, offset);
                if (code != 0) {
                    Finite.apply(dtype, w, phase);
                }
                String what = dtype + " at " + offset + " len " + len + " align " + align;
                assertEquals(-1, w.mismatch(g), what);
                assertEquals(Crc32s.combine(before, javaCrc(w), len), crc, what);
                assertEquals(0, nat.fillPayload(g, offset, 0, 0, false, 123), what);
            }
            assertThrows(IllegalArgumentException.class, () -> nat.fillPayload(got.asSlice(0, 8), 0, 3, 4, true, 0));
            assertThrows(IllegalArgumentException.class,
                    () -> nat.fillPayload(MemorySegment.ofArray(new byte[8]), 0, 0, 0, true, 0));
        }
    }

    /**
     * The native masked compare (the kernels mask as they regenerate) agrees with the Java default of
     * {@link LayoutChecker.Stream#firstMismatchFinite}: equal payloads and their CRC-32, and the first
     * flipped byte, for every float type, odd offsets, phases and addresses.
     */
    @Test
    void nativeMaskedCompareEqualsTheJavaOne() {
        DataSpec spec = DataSpec.builder().seed(6).compressRatio(1.3).size(3L << 20).build();
        Random r = new Random(5);
        try (Arena arena = Arena.ofConfined(); NativeGenerator nat = new NativeGenerator(spec, 3);
             JavaGenerator twin = new JavaGenerator(spec, 1)) {
            LayoutChecker.Stream java = streamOf(twin);
            MemorySegment buf = arena.allocate(spec.size() + 64, 64);
            DType[] types = {DType.FLOAT16, DType.BFLOAT16, DType.FLOAT32, DType.FLOAT64};
            for (int n = 0; n < 40; n++) {
                long len = n % 4 == 0 ? 1 + r.nextInt(3 << 20) : 1 + r.nextInt(9000);
                long offset = r.nextLong(spec.size() - len + 1);
                DType dtype = types[n % types.length];
                int phase = r.nextInt(dtype.itemSize());
                MemorySegment data = buf.asSlice(r.nextInt(64), len);
                nat.fillPayload(data, offset, Finite.code(dtype), phase, false, 0);
                String what = dtype + " at " + offset + " len " + len + " phase " + phase;
                long[] a = {1};
                long[] b = {2};
                assertEquals(-1, nat.firstMismatchPayload(data, offset, Finite.code(dtype), phase, a), what);
                assertEquals(-1, java.firstMismatchFinite(data, offset, dtype, phase, b), what);
                assertEquals(b[0], a[0], what);
                assertEquals(javaCrc(data), a[0], what);
                long flip = r.nextLong(len);
                data.set(ValueLayout.JAVA_BYTE, flip, (byte) (data.get(ValueLayout.JAVA_BYTE, flip) ^ 0x40));
                assertEquals(offset + flip, nat.firstMismatchPayload(data, offset, Finite.code(dtype), phase, null), what);
                assertEquals(offset + flip, java.firstMismatchFinite(data, offset, dtype, phase, null), what);
            }
            assertThrows(IllegalArgumentException.class,
                    () -> nat.firstMismatchPayload(buf.asSlice(0, 8), 0, 3, 4, null));
        }
    }

    /** A torch file with --finite through the native source and through the twin: the same bytes, every CRC right. */
    @Test
    void finiteTorchLayoutIsTheSameFromNativeAndTwin() throws Exception {
        Layout layout = Layout.of(Layout.Format.TORCH, TENSORS, true, 64).withFinite(true);
        DataSpec spec = DataSpec.builder().seed(9).size(layout.payloadBytes()).build();
        try (Arena arena = Arena.ofConfined(); NativeGenerator nat = new NativeGenerator(spec, 2);
             JavaGenerator twin = new JavaGenerator(spec, 1)) {
            MemorySegment a = arena.allocate(layout.size(), 4096);
            MemorySegment b = arena.allocate(layout.size(), 4096);
            LayoutWriter.Source natSource = new LayoutWriter.Source() {
                @Override
                public void fill(MemorySegment dst, long streamOffset) {
                    nat.fill(dst, streamOffset);
                }

                @Override
                public long fillPayload(MemorySegment dst, long streamOffset, DType finite, int phase, boolean withCrc,
                                        long crc) {
                    return nat.fillPayload(dst, streamOffset, finite == null ? 0 : Finite.code(finite), phase, withCrc,
                            crc);
                }
            };
            fillInChunks(layout, a, natSource, 100_003);
            fillInChunks(layout, b, twin::fill, 65_536);
            assertEquals(-1, a.mismatch(b), "native vs twin");

            // every float value finite; the stream's bytes elsewhere
            for (int i = 0; i < layout.fileOrder().size(); i++) {
                Tensor t = layout.fileOrder().get(i);
                MemorySegment p = a.asSlice(layout.offsetOf(i), t.bytes());
                int nonFinite = 0;
                for (long e = 0; e < t.bytes(); e += t.dtype().itemSize()) {
                    nonFinite += switch (t.dtype()) {
                        case FLOAT16 -> (p.get(ValueLayout.JAVA_SHORT_UNALIGNED, e) & 0x7C00) == 0x7C00 ? 1 : 0;
                        case BFLOAT16 -> (p.get(ValueLayout.JAVA_SHORT_UNALIGNED, e) & 0x7F80) == 0x7F80 ? 1 : 0;
                        case FLOAT32 -> Float.isFinite(p.get(ValueLayout.JAVA_FLOAT_UNALIGNED, e)) ? 0 : 1;
                        case FLOAT64 -> Double.isFinite(p.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, e)) ? 0 : 1;
                        default -> 0;
                    };
                }
                assertEquals(0, nonFinite, t.name());
            }
            java.nio.file.Path f = java.nio.file.Files.createTempFile("finite", ".pt");
            try {
                java.nio.file.Files.write(f, a.toArray(ValueLayout.JAVA_BYTE));
                try (ZipFile z = new ZipFile(f.toFile())) { // java.util.zip checks each member's CRC-32 as it reads
                    for (ZipEntry e : java.util.Collections.list(z.entries())) {
                        byte[] bytes = z.getInputStream(e).readAllBytes();
                        CRC32 c = new CRC32();
                        c.update(bytes);
                        assertEquals(c.getValue(), e.getCrc(), e.getName());
                    }
                }
            } finally {
                java.nio.file.Files.delete(f);
            }

            // the checker accepts the file and finds a flipped payload byte, with the masked byte expected
            LayoutChecker.Stream stream = streamOf(nat);
            LayoutChecker ok = layout.checker();
            assertNull(ok.compare(a, 0, stream));
            assertNull(ok.crcMismatch());
            int big = layout.fileOrder().indexOf(TENSORS.get(6));
            long at = layout.offsetOf(big) + 1001; // a float16's high byte
            byte was = a.get(ValueLayout.JAVA_BYTE, at);
            a.set(ValueLayout.JAVA_BYTE, at, (byte) (was ^ 0x40));
            LayoutChecker.Mismatch m = layout.checker().compare(a, 0, stream);
            assertNotNull(m);
            assertEquals(at, m.offset());
            assertEquals(was, m.expected());
            assertEquals(was, layout.checker().expected(at, stream));
            // a file saved without --finite is not what a --finite manifest describes (fp16 Inf/NaN cleared)
            fillInChunks(layout.withFinite(false), b, twin::fill, 65_536);
            assertNotNull(layout.checker().compare(b, 0, stream));
            assertNull(layout.withFinite(false).checker().compare(b, 0, stream));
        }
    }

    private static void fillInChunks(Layout layout, MemorySegment file, LayoutWriter.Source source, long chunk) {
        LayoutWriter w = layout.writer();
        for (long at = 0; at < layout.size(); at += chunk) {
            long n = Math.min(chunk, layout.size() - at);
            w.fill(file.asSlice(at, n), at, source);
        }
    }

    @Test
    void finiteMasksOnlyTheTopExponentBitOfFloats() {
        byte[] ones = new byte[16];
        java.util.Arrays.fill(ones, (byte) 0xFF);
        byte[] h = ones.clone();
        Finite.apply(DType.FLOAT16, MemorySegment.ofArray(h), 1); // h[0] is an element's high byte
        assertArrayEquals(new byte[] {(byte) 0xBF, -1, (byte) 0xBF, -1, (byte) 0xBF, -1, (byte) 0xBF, -1,
            (byte) 0xBF, -1, (byte) 0xBF, -1, (byte) 0xBF, -1, (byte) 0xBF, -1}, h);
        byte[] f = ones.clone();
        Finite.apply(DType.FLOAT32, MemorySegment.ofArray(f), 0);
        assertEquals(Float.intBitsToFloat(0xBFFFFFFF), MemorySegment.ofArray(f).get(ValueLayout.JAVA_FLOAT_UNALIGNED, 0));
        byte[] i = ones.clone();
        Finite.apply(DType.INT32, MemorySegment.ofArray(i), 0);
        assertArrayEquals(ones, i);
        assertThrows(IllegalArgumentException.class, () -> Finite.apply(DType.FLOAT64, MemorySegment.ofArray(ones), 8));
    }

    /** The checker's view of {@code gen}: it compares, fills and gives single bytes. */
    private static LayoutChecker.Stream streamOf(Generator gen) {
        return new LayoutChecker.Stream() {
            @Override
            public long firstMismatch(MemorySegment data, long streamOffset) {
                return gen.firstMismatch(data, streamOffset);
            }

            @Override
            public byte at(long streamOffset) {
                MemorySegment one = MemorySegment.ofArray(new byte[1]);
                gen.fill(one, streamOffset);
                return one.get(ValueLayout.JAVA_BYTE, 0);
            }

            @Override
            public void fill(MemorySegment dst, long streamOffset) {
                gen.fill(dst, streamOffset);
            }
        };
    }
}
