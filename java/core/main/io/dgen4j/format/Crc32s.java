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

    /**
     * The CRC-32 of A followed by B from the CRC of A, the CRC of B and B's length (zlib's
     * crc32_combine: B's length of zero bits applied to A's CRC by squaring the shift operator).
     */
    static long combine(long crcA, long crcB, long lengthB) {
        if (lengthB <= 0) {
            return crcA;
        }
        long[] even = new long[32];
        long[] odd = new long[32];
        odd[0] = 0xedb88320L; // the CRC-32 polynomial, reflected
        long row = 1;
        for (int n = 1; n < 32; n++) {
            odd[n] = row;
            row <<= 1;
        }
        square(even, odd); // two zero bits
        square(odd, even); // four
        long crc = crcA;
        long len = lengthB;
        do {
            square(even, odd); // one zero byte first, then doubling
            if ((len & 1) != 0) {
                crc = times(even, crc);
            }
            len >>>= 1;
            if (len == 0) {
                break;
            }
            square(odd, even);
            if ((len & 1) != 0) {
                crc = times(odd, crc);
            }
            len >>>= 1;
        } while (len != 0);
        return (crc ^ crcB) & 0xffffffffL;
    }

    private static long times(long[] mat, long vec) {
        long sum = 0;
        for (int i = 0; vec != 0; i++, vec >>>= 1) {
            if ((vec & 1) != 0) {
                sum ^= mat[i];
            }
        }
        return sum;
    }

    private static void square(long[] square, long[] mat) {
        for (int n = 0; n < 32; n++) {
            square[n] = times(mat, mat[n]);
        }
    }
}
