package io.dgen4j.format;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * {@code --finite}: random bytes read as float16, bfloat16, float32 or float64 include Inf and NaN
 * (every value whose exponent bits are all ones). This clears the top exponent bit of every value
 * (bit 6 of its last byte, little-endian), so that no value is Inf or NaN and every one is below 2
 * in magnitude (a forward pass through such weights stays finite); every other bit is the stream's.
 * A pure function of each byte and its place in its element, applied alike by the native core (in
 * the same pass as the fill and the CRC-32) and here for the pure-Java twin and for verification
 * (docs/FORMATS.md).
 */
public final class Finite {
    private static final byte TOP_EXPONENT_BIT = 0x40;
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Finite() {}

    /** Whether {@code dtype} has values that are not finite (the floating-point types). */
    public static boolean applies(DType dtype) {
        return code(dtype) != 0;
    }

    /** The native core's code for {@code dtype} (the header's DGEN4J_FINITE_*); 0 for types without Inf or NaN. */
    public static int code(DType dtype) {
        return switch (dtype) {
            case FLOAT16 -> 1;
            case BFLOAT16 -> 2;
            case FLOAT32 -> 3;
            case FLOAT64 -> 4;
            default -> 0;
        };
    }

    /**
     * Makes finite the {@code dtype} values in {@code bytes}, {@code bytes[0]} being byte
     * {@code phase} of its element (elements cut by either end need nothing more: the rule is per
     * byte). Types without Inf or NaN are left as they are.
     *
     * @throws IllegalArgumentException when {@code phase} is not inside an element
     */
    public static void apply(DType dtype, MemorySegment bytes, int phase) {
        if (!applies(dtype)) {
            return;
        }
        int size = dtype.itemSize();
        if (phase < 0 || phase >= size) {
            throw new IllegalArgumentException("phase " + phase + " is not inside a " + dtype + " element");
        }
        long n = bytes.byteSize();
        // a word at a time: the element size divides 8, so every 8-byte word from byte 0 has its top
        // exponent bytes at the same places, those where (phase + j) % size == size - 1
        long mask = 0;
        for (int j = 0; j < 8; j++) {
            if ((phase + j) % size == size - 1) {
                mask |= (long) TOP_EXPONENT_BIT << (8 * j);
            }
        }
        long words = n & ~7L;
        for (long at = 0; at < words; at += 8) {
            bytes.set(WORD, at, bytes.get(WORD, at) & ~mask);
        }
        for (long at = words; at < n; at++) {
            if ((phase + at) % size == size - 1) {
                bytes.set(ValueLayout.JAVA_BYTE, at, (byte) (bytes.get(ValueLayout.JAVA_BYTE, at) & ~TOP_EXPONENT_BIT));
            }
        }
    }
}
