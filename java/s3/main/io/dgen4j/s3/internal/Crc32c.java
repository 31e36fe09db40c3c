package io.dgen4j.s3.internal;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.zip.CRC32C;

/**
 * CRC32C (Castagnoli) as S3 carries it: the checksum of a segment (the JDK's {@link CRC32C}, a CPU
 * instruction), the CRC of two ranges joined from theirs ({@link #combine}: how a multipart upload's
 * full-object checksum follows from its parts' without reading them again), and the wire form of
 * {@code x-amz-checksum-crc32c} (4 bytes, big-endian, in base 64).
 */
public final class Crc32c {
    /** CRC32C's polynomial, bit-reflected. */
    private static final int POLY = 0x82F63B78;
    /** {@code x^(2^k)} modulo the polynomial (reflected), for every k a length in bits of up to 2^66 needs. */
    private static final int[] X2N = new int[67];

    static {
        int p = 1 << 30; // x^1
        X2N[0] = p;
        for (int k = 1; k < X2N.length; k++) {
            p = multiply(p, p);
            X2N[k] = p;
        }
    }

    private Crc32c() {}

    /** The CRC32C of all of {@code data}, as an unsigned 32-bit value in an int. */
    public static int of(MemorySegment data) {
        CRC32C crc = new CRC32C();
        if (data.byteSize() <= Integer.MAX_VALUE) {
            crc.update(data.asByteBuffer());
        } else {
            for (long at = 0; at < data.byteSize(); at += 1 << 30) {
                crc.update(data.asSlice(at, Math.min(1L << 30, data.byteSize() - at)).asByteBuffer());
            }
        }
        return (int) crc.getValue();
    }

    /**
     * The CRC32C of {@code a || b} from {@code crcA}, {@code crcB} and the length of {@code b} in
     * bytes (zlib's {@code crc32_combine}, for CRC32C's polynomial): a few dozen multiplications in
     * GF(2), whatever the lengths.
     */
    public static int combine(int crcA, int crcB, long lengthB) {
        if (lengthB < 0) {
            throw new IllegalArgumentException("negative length " + lengthB);
        }
        return multiply(powerOfX(lengthB), crcA) ^ crcB;
    }

    /** {@code crc} in the form of {@code x-amz-checksum-crc32c}: its 4 bytes, big-endian, in base 64. */
    public static String base64(int crc) {
        return Base64.getEncoder().encodeToString(ByteBuffer.allocate(4).putInt(crc).array());
    }

    /**
     * The CRC in {@code value}, the form of {@code x-amz-checksum-crc32c}.
     *
     * @throws IllegalArgumentException when it is not 4 bytes in base 64
     */
    public static int parse(String value) {
        byte[] b = Base64.getDecoder().decode(value);
        if (b.length != 4) {
            throw new IllegalArgumentException("a CRC32C is 4 bytes, got " + b.length + " in '" + value + "'");
        }
        return ByteBuffer.wrap(b).getInt();
    }

    /**
     * A multipart object's composite checksum as S3 reports it for an upload of type COMPOSITE:
     * the CRC32C of the parts' CRCs (4 bytes each, big-endian, in part order), in base 64, then
     * {@code -} and the count of parts.
     */
    public static String composite(int[] partCrcs) {
        ByteBuffer all = ByteBuffer.allocate(4 * partCrcs.length);
        for (int c : partCrcs) {
            all.putInt(c);
        }
        CRC32C crc = new CRC32C();
        crc.update(all.flip());
        return base64((int) crc.getValue()) + "-" + partCrcs.length;
    }

    /** {@code x^(8 * bytes)} modulo the polynomial: the factor that shifts a CRC over {@code bytes} zero bytes. */
    private static int powerOfX(long bytes) {
        int p = 1 << 31; // x^0
        int k = 3; // 8 bits a byte: start at x^(2^3)
        for (long n = bytes; n != 0; n >>>= 1, k++) {
            if ((n & 1) != 0) {
                p = multiply(X2N[k], p);
            }
        }
        return p;
    }

    /** {@code a * b} modulo the polynomial (both reflected). */
    private static int multiply(int a, int b) {
        int product = 0;
        for (int m = 1 << 31; m != 0; m >>>= 1) {
            if ((a & m) != 0) {
                product ^= b;
            }
            b = (b & 1) != 0 ? (b >>> 1) ^ POLY : b >>> 1;
        }
        return product;
    }
}
