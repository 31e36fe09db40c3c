package io.dgen4j.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/** The torch layout's bytes, CRCs, reading back and checking, without torch (TorchFormatCliTest has it). */
class LayoutTest {
    private static final List<Tensor> TENSORS = TensorList.parse("""
            a/w float32 [33,7]
            a/b bfloat16 [5]
            s int64 []
            z float16 [0]
            c/d/e uint8 [4097]
            """, "test");

    /** The stream: byte i is a function of i, so a payload's bytes say where in the stream they came from. */
    private static void stream(MemorySegment dst, long offset) {
        for (long i = 0; i < dst.byteSize(); i++) {
            dst.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) ((offset + i) * 31 + ((offset + i) >>> 8)));
        }
    }

    private static byte[] file(Layout layout, long[] cuts) {
        byte[] out = new byte[(int) layout.size()];
        LayoutWriter w = layout.writer();
        long at = 0;
        for (long cut : cuts) {
            w.fill(MemorySegment.ofArray(out).asSlice(at, cut - at), at, LayoutTest::stream);
            at = cut;
        }
        w.fill(MemorySegment.ofArray(out).asSlice(at, layout.size() - at), at, LayoutTest::stream);
        return out;
    }

    @Test
    void crcCombineMatchesOnePass() {
        Random r = new Random(1);
        for (int n = 0; n < 50; n++) {
            byte[] a = new byte[r.nextInt(3000)];
            byte[] b = new byte[r.nextInt(3000)];
            r.nextBytes(a);
            r.nextBytes(b);
            CRC32 whole = new CRC32();
            whole.update(a);
            whole.update(b);
            assertEquals(whole.getValue(), Crc32s.combine(Crc32s.of(a), Crc32s.of(b), b.length));
        }
    }

    @Test
    void anyCutsGiveTheSameBytesAndZipReadsEveryMemberWithItsCrc() throws Exception {
        Layout layout = Layout.of(Layout.Format.TORCH, TENSORS, true, 64);
        byte[] once = file(layout, new long[0]);
        Random r = new Random(2);
        for (int n = 0; n < 20; n++) {
            long[] cuts = r.longs(5, 1, layout.size()).sorted().distinct().toArray();
            assertArrayEquals(once, file(layout, cuts));
        }
        // java.util.zip.ZipFile reads the central directory (ZipInputStream refuses STORED entries with
        // descriptors); each member's bytes must have the CRC the directory gives
        List<String> names = new ArrayList<>();
        java.nio.file.Path tmp = java.nio.file.Files.createTempFile("layout", ".pt");
        try {
            java.nio.file.Files.write(tmp, once);
            try (ZipFile z = new ZipFile(tmp.toFile())) {
                for (ZipEntry e : java.util.Collections.list(z.entries())) {
                    names.add(e.getName());
                    CRC32 crc = new CRC32();
                    try (var in = z.getInputStream(e)) {
                        crc.update(in.readAllBytes());
                    }
                    assertEquals(e.getCrc(), crc.getValue(), e.getName());
                    assertEquals(ZipEntry.STORED, e.getMethod());
                }
            }
        } finally {
            java.nio.file.Files.delete(tmp);
        }
        assertEquals(List.of("archive/data.pkl", "archive/.format_version", "archive/.storage_alignment",
                "archive/byteorder", "archive/data/0", "archive/data/1", "archive/data/2", "archive/data/3",
                "archive/data/4", "archive/version", "archive/.data/serialization_id"), names);
        for (int i = 0; i < layout.fileOrder().size(); i++) {
            assertEquals(0, layout.offsetOf(i) % 64, "data of " + layout.memberOf(i) + " aligned");
        }
        assertEquals(TensorList.bytes(TENSORS), layout.payloadBytes());
    }

    @Test
    void readerFindsWhatTheLayoutPlaced() throws Exception {
        Layout layout = Layout.of(Layout.Format.TORCH, TENSORS, true, 4096);
        byte[] f = file(layout, new long[0]);
        TorchReader.ReadAt in = (offset, dst) -> System.arraycopy(f, (int) offset, dst, 0, dst.length);
        List<TorchReader.Entry> got = TorchReader.tensors(in, f.length, "f");
        assertEquals(TENSORS.size(), got.size());
        for (int i = 0; i < TENSORS.size(); i++) {
            Tensor t = TENSORS.get(i);
            TorchReader.Entry e = got.get(i);
            assertEquals(t.name(), e.name());
            assertEquals(t.dtype(), e.dtype());
            assertArrayEquals(t.shape(), e.shape());
            int j = layout.fileOrder().indexOf(t);
            assertEquals(layout.offsetOf(j), e.offset());
            assertEquals(0, e.offset() % 4096);
        }
        byte[] cut = java.util.Arrays.copyOf(f, f.length - 1);
        TorchReader.ReadAt shorter = (offset, dst) -> System.arraycopy(cut, (int) offset, dst, 0, dst.length);
        java.io.IOException e = assertThrows(java.io.IOException.class,
                () -> TorchReader.tensors(shorter, cut.length, "cut.pt"));
        assertTrue(e.getMessage().startsWith("cut.pt has no end of central directory record"), e.getMessage());
    }

    @Test
    void checkerFindsFramingPayloadAndCrcDamageInAnyOrder() {
        Layout layout = Layout.of(Layout.Format.TORCH, TENSORS, true, 64);
        byte[] f = file(layout, new long[0]);
        LayoutChecker.Stream stream = new LayoutChecker.Stream() {
            @Override
            public long firstMismatch(MemorySegment data, long streamOffset) {
                byte[] want = new byte[(int) data.byteSize()];
                stream(MemorySegment.ofArray(want), streamOffset);
                long m = data.mismatch(MemorySegment.ofArray(want));
                return m < 0 ? -1 : streamOffset + m;
            }

            @Override
            public byte at(long streamOffset) {
                byte[] one = new byte[1];
                stream(MemorySegment.ofArray(one), streamOffset);
                return one[0];
            }
        };
        LayoutChecker ok = layout.checker();
        long half = layout.size() / 2; // the second half first
        assertNull(ok.compare(MemorySegment.ofArray(f).asSlice(half), half, stream));
        assertNull(ok.compare(MemorySegment.ofArray(f).asSlice(0, half), 0, stream));
        assertNull(ok.crcMismatch());

        long crcAt = layout.crcFields()[0].at();
        f[(int) crcAt] ^= 1;
        LayoutChecker bad = layout.checker();
        assertNull(bad.compare(MemorySegment.ofArray(f), 0, stream));
        assertEquals(crcAt, bad.crcMismatch().offset());
        assertTrue(layout.describe(crcAt).startsWith("the CRC-32 of archive/data/0 in the data descriptor"),
                layout.describe(crcAt));
        f[(int) crcAt] ^= 1;

        long data = layout.offsetOf(1) + 3;
        f[(int) data] ^= 1;
        assertEquals(data, layout.checker().compare(MemorySegment.ofArray(f), 0, stream).offset());
        f[(int) data] ^= 1;
        f[3] ^= 1;
        LayoutChecker.Mismatch m = layout.checker().compare(MemorySegment.ofArray(f), 0, stream);
        assertEquals(3, m.offset());
        assertEquals("the local header of archive/data.pkl byte 3", layout.describe(3));
    }

    @Test
    void writerRefusesOutOfOrderFills() {
        Layout layout = Layout.of(Layout.Format.TORCH, TENSORS, true, 64);
        LayoutWriter w = layout.writer();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> w.fill(MemorySegment.ofArray(new byte[10]), 10, LayoutTest::stream));
        assertEquals("a torch file is filled in order: byte 0 is next, not 10", e.getMessage());
    }

    @Test
    void tensorListsRefuseWhatTorchCouldNotHold() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TensorList.parse("a float32 [1]\na float32 [2]", "l"))
                .getMessage().contains("tensor a is listed twice"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TensorList.parse("a float32 [1]\na/b float32 [2]", "l"))
                .getMessage().contains("a is both a tensor and a dict of tensors"));
        assertEquals("l line 2: shape '4,4' must be written [d0,d1,...] ([] for a scalar)",
                assertThrows(IllegalArgumentException.class, () -> TensorList.parse("a float32 [1]\nb float32 4,4", "l"))
                        .getMessage());
    }
}
