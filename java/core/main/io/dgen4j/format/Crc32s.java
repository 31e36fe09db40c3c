package io.dgen4j.format;

import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32;

/** CRC-32 (IEEE, zip's) helpers: updates over native memory and zlib's combine rule. */
final class Crc32s {
    private static final long PIECE = 1L << 30;

    private Crc32s() {}

    /** Adds {@code bytes} to {@code crc}, in pieces a ByteBuffer view can hold. */
    static void update(CRC32 crc, MemorySegment bytes) {
        for (long at = 0; at < bytes.byteSize(); at += PIECE) {
            crc.update(bytes.asSlice(at, Math.min(PIECE, bytes.byteSize() - at)).asByteBuffer());
        }
    }

    /** The CRC-32 of {@code bytes}. */
    static long of(MemorySegment bytes) {
        CRC32 c = new CRC32();
        update(c, bytes);
        return c.getValue();
    }

    /** The CRC-32 of {@code bytes}. */
    static long of(byte[] bytes) {
        CRC32 c = new CRC32();
        c.update(bytes);
        return c.getValue();
    }

    /** x^(2^k) modulo the polynomial, k in [0, 32): a constant table. */
    private static final int[] X2N = new int[32];

    static {
        int p = 1 << 30; // x^1
        X2N[0] = p;
        for (int n = 1; n < 32; n++) {
            p = multModP(p, p);
            X2N[n] = p;
        }
    }

    /**
     * The CRC-32 of A followed by B from the CRC of A, the CRC of B and B's length (zlib's
     * crc32_combine: A's CRC times x^(8 len(B)) modulo the polynomial, then B's CRC added).
     */
    static long combine(long crcA, long crcB, long lengthB) {
        if (lengthB <= 0) {
            return crcA;
        }
        int p = 1 << 31; // x^0
        int k = 3; // bytes: x^(8n) = x^(n 2^3)
        for (long n = lengthB; n != 0; n >>>= 1, k++) {
            if ((n & 1) != 0) {
                p = multModP(X2N[k & 31], p);
            }
        }
        return (multModP(p, (int) crcA) ^ crcB) & 0xffffffffL;
    }

    /** a times b modulo the polynomial, both reflected (bit 31 is x^0). */
    private static int multModP(int a, int b) {
        int m = 1 << 31;
        int p = 0;
        while (true) {
            if ((a & m) != 0) {
                p ^= b;
                if ((a & (m - 1)) == 0) {
                    return p;
                }
            }
            m >>>= 1;
            b = (b & 1) != 0 ? (b >>> 1) ^ 0xedb88320 : b >>> 1;
        }
    }
}
