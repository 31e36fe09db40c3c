package io.dgen4j.gen;

import static io.dgen4j.gen.StreamLayout.GOLDEN;
import static io.dgen4j.gen.StreamLayout.LANES;
import static io.dgen4j.gen.StreamLayout.SECTOR;
import static io.dgen4j.gen.StreamLayout.mix64;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/** The plain-Java stripe kernel: lane by lane into a heap scratch stripe, then copied or compared. */
final class ScalarStripes implements StripeKernel {
    /** Little-endian longs in a byte array. */
    private static final VarHandle LE_ARRAY = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final int randomBytes;
    private final byte[] bytes = new byte[StreamLayout.MAX_STRIPE];
    private final MemorySegment scratch = MemorySegment.ofArray(bytes);

    ScalarStripes(int randomBytes) {
        this.randomBytes = randomBytes;
    }

    @Override
    public String name() {
        return "java-scalar";
    }

    @Override
    public void fill(long sk, MemorySegment dst, long at, int len) {
        stripe(sk, len);
        MemorySegment.copy(scratch, 0, dst, at, len);
    }

    @Override
    public boolean matches(long sk, MemorySegment data, long at, int len) {
        stripe(sk, len);
        return MemorySegment.mismatch(scratch, 0, len, data, at, at + len) < 0;
    }

    /**
     * Writes the first {@code len} bytes of stripe {@code sk} into {@code bytes}. Lane by lane: the
     * four words of one lane's state stay in registers while it writes every eighth word of the
     * stripe (word {@code j} comes from lane {@code j mod 8}, docs/FORMAT.md).
     */
    private void stripe(long sk, int len) {
        long x = sk;
        final byte[] out = bytes;
        final int steps = len / (8 * LANES);
        for (int l = 0; l < LANES; l++) {
            long a = mix64(x += GOLDEN);
            long b = mix64(x += GOLDEN);
            long c = mix64(x += GOLDEN);
            long d = mix64(x += GOLDEN);
            for (int t = 0, p = l * 8; t < steps; t++, p += 8 * LANES) {
                long result = Long.rotateLeft(a + d, 23) + a;
                long tt = b << 17;
                c ^= a;
                d ^= b;
                b ^= c;
                a ^= d;
                c ^= tt;
                d = Long.rotateLeft(d, 45);
                LE_ARRAY.set(out, p, result);
            }
        }
        if (randomBytes < SECTOR) {
            for (int sec = 0; sec < len; sec += SECTOR) {
                Arrays.fill(out, sec + randomBytes, sec + SECTOR, (byte) 0);
            }
        }
    }
}
