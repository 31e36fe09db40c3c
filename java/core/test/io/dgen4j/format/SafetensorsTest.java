package io.dgen4j.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.gen.DataSpec;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The safetensors layout's bytes, its order and padding, and the reader's rules (check-safetensors.py checks them too). */
class SafetensorsTest {
    private static final List<Tensor> TENSORS = TensorList.parse("""
            b.w float32 [3,5]
            a.w float32 [2]
            i int32 [3]
            h float16 [4]
            g bfloat16 [1]
            s int64 []
            d float64 [2]
            u uint8 [5]
            q bool [1]
            e float32 [0,4]
            """, "test");

    private static void stream(MemorySegment dst, long offset) {
        for (long i = 0; i < dst.byteSize(); i++) {
            dst.set(ValueLayout.JAVA_BYTE, i, (byte) ((offset + i) * 31 + 7));
        }
    }

    private static byte[] file(Layout layout) {
        byte[] out = new byte[(int) layout.size()];
        LayoutWriter w = layout.writer();
        long half = layout.size() / 2;
        w.fill(MemorySegment.ofArray(out).asSlice(0, half), 0, SafetensorsTest::stream);
        w.fill(MemorySegment.ofArray(out).asSlice(half), half, SafetensorsTest::stream);
        return out;
    }

    private static Safetensors.Header read(byte[] f) throws IOException {
        return Safetensors.read((offset, dst) -> {
            if (offset + dst.length > f.length) {
                throw new java.io.EOFException("short");
            }
            System.arraycopy(f, (int) offset, dst, 0, dst.length);
        }, f.length, "f");
    }

    private static long headerLength(byte[] f) {
        long n = 0;
        for (int i = 0; i < 8; i++) {
            n |= (long) (f[i] & 0xff) << (8 * i);
        }
        return n;
    }

    @Test
    void headerIsTheReferenceWritersCompactJsonInItsOrder() {
        Layout l = Layout.of(Layout.Format.SAFETENSORS, TENSORS, true, 8);
        // the reference writer's dtype enum, highest first (I64 before F64, F32 before I32), then names
        assertEquals(List.of("s", "d", "a.w", "b.w", "e", "i", "g", "h", "u", "q"),
                l.fileOrder().stream().map(Tensor::name).toList());
        byte[] f = file(l);
        long n = headerLength(f);
        assertEquals(0, (8 + n) % 8);
        String json = new String(f, 8, (int) n, StandardCharsets.UTF_8);
        assertTrue(json.startsWith("{\"__metadata__\":{\"format\":\"pt\"},\"s\":{\"dtype\":\"I64\",\"shape\":[],"
                + "\"data_offsets\":[0,8]},\"d\":{\"dtype\":\"F64\",\"shape\":[2],\"data_offsets\":[8,24]},"
                + "\"a.w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[24,32]}"), json);
        assertTrue(json.strip().endsWith("\"q\":{\"dtype\":\"BOOL\",\"shape\":[1],\"data_offsets\":[119,120]}}"), json);
        assertTrue(json.substring(json.strip().length()).isBlank() && json.length() - json.strip().length() < 8);
        assertEquals(8 + n + TensorList.bytes(TENSORS), l.size());
        assertEquals(TensorList.bytes(TENSORS), l.payloadBytes());
        // the data region is the stream, in file order
        byte[] data = new byte[(int) l.payloadBytes()];
        stream(MemorySegment.ofArray(data), 0);
        assertArrayEquals(data, java.util.Arrays.copyOfRange(f, (int) (8 + n), f.length));
    }

    @Test
    void pageAlignmentAndSpecMetadata() throws IOException {
        DataSpec spec = DataSpec.builder().seed(42).compressRatio(2).size(TensorList.bytes(TENSORS)).build();
        Layout l = Layout.of(Layout.Format.SAFETENSORS, TENSORS, false, 4096).describing(spec);
        byte[] f = file(l);
        assertEquals(0, (8 + headerLength(f)) % 4096);
        Safetensors.Header h = read(f);
        assertEquals(Map.of("format", "pt", "dgen4j", "checkpoint", "formatVersion", "1", "seed", "42",
                "size", Long.toString(spec.size()), "blockSize", Integer.toString(spec.blockSize()), "dedup", "1.0",
                "compress", "2.0"), h.metadata());
        assertEquals(l.fileOrder().stream().map(Tensor::name).toList(),
                h.entries().stream().map(Safetensors.Entry::name).toList());
        for (int i = 0; i < h.entries().size(); i++) {
            assertEquals(l.offsetOf(i), h.dataStart() + h.entries().get(i).begin());
            assertEquals(l.fileOrder().get(i).dtype(), h.entries().get(i).dtype());
        }
        assertThrows(IllegalArgumentException.class, () -> Layout.of(Layout.Format.SAFETENSORS, TENSORS, false, 64));
    }

    @Test
    void checkerNamesTheTensorOrTheHeader() {
        Layout l = Layout.of(Layout.Format.SAFETENSORS, TENSORS, false, 8);
        byte[] f = file(l);
        LayoutChecker.Stream s = new LayoutChecker.Stream() {
            @Override
            public long firstMismatch(MemorySegment data, long streamOffset) {
                byte[] want = new byte[(int) data.byteSize()];
                stream(MemorySegment.ofArray(want), streamOffset);
                long m = MemorySegment.ofArray(want).mismatch(data);
                return m < 0 ? -1 : streamOffset + m;
            }

            @Override
            public byte at(long streamOffset) {
                byte[] one = new byte[1];
                stream(MemorySegment.ofArray(one), streamOffset);
                return one[0];
            }
        };
        assertNull(l.checker().compare(MemorySegment.ofArray(f), 0, s));
        long d = l.offsetOf(3); // b.w
        f[(int) d + 5] ^= 1;
        LayoutChecker.Mismatch m = l.checker().compare(MemorySegment.ofArray(f), 0, s);
        assertEquals(d + 5, m.offset());
        assertTrue(l.describe(m.offset()).startsWith("tensor b.w (data_offsets [32,92]) byte 5 of 60"),
                l.describe(m.offset()));
        f[(int) d + 5] ^= 1;
        f[20] ^= 1;
        assertTrue(l.describe(l.checker().compare(MemorySegment.ofArray(f), 0, s).offset())
                .startsWith("the JSON header byte 12"));
    }

    @Test
    void readerRefusesEachBrokenRule() throws IOException {
        byte[] good = file(Layout.of(Layout.Format.SAFETENSORS, TENSORS, false, 8));
        assertEquals(10, read(good).entries().size());
        String header = new String(good, 8, (int) headerLength(good), StandardCharsets.UTF_8);

        assertRefused(edit(good, header, "\"data_offsets\":[8,24]", "\"data_offsets\":[9,25]"), "a gap in the data");
        assertRefused(edit(good, header, "\"data_offsets\":[24,32]", "\"data_offsets\":[23,31]"), "overlaps");
        assertRefused(edit(good, header, "\"a.w\":", "\"b.w\":"), "appears twice");
        assertRefused(edit(good, header, "\"shape\":[2],\"data_offsets\":[8,24]", "\"shape\":[3],\"data_offsets\":[8,24]"),
                "hold 16 bytes, but F64 [3] needs 24");
        assertRefused(edit(good, header, "\"dtype\":\"I64\"", "\"dtype\":\"X64\""), "dtype X64");
        byte[] trailing = java.util.Arrays.copyOf(good, good.length + 1);
        assertRefused(trailing, "1 trailing bytes after the data region");
        assertRefused(java.util.Arrays.copyOf(good, good.length - 1), "is truncated");
        byte[] big = good.clone();
        long tooBig = Safetensors.MAX_HEADER + 1;
        for (int i = 0; i < 8; i++) {
            big[i] = (byte) (tooBig >>> (8 * i));
        }
        assertRefused(big, "exceeds 100000000");
        byte[] past = good.clone();
        past[0] = (byte) 0xf0;
        past[1] = (byte) 0xff;
        past[2] = (byte) 0x0f; // about 1 MB: within the bound, past the end of the file
        assertRefused(past, "runs past the end of the file");
        byte[] meta = edit(good, header, "{\"format\":\"pt\"}", "{\"format\":1234}");
        assertRefused(meta, "is not a string");
    }

    /** {@code good} with {@code from} replaced by {@code to} (the same length) in its header. */
    private static byte[] edit(byte[] good, String header, String from, String to) {
        assertEquals(from.length(), to.length());
        assertTrue(header.contains(from), from);
        byte[] f = good.clone();
        byte[] h = header.replaceFirst(java.util.regex.Pattern.quote(from), to).getBytes(StandardCharsets.UTF_8);
        System.arraycopy(h, 0, f, 8, h.length);
        return f;
    }

    private static void assertRefused(byte[] f, String why) {
        IOException e = assertThrows(IOException.class, () -> read(f));
        assertTrue(e.getMessage().contains(why) && !e.getMessage().contains("\n"), e.getMessage());
    }
}
