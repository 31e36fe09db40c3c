package io.dgen4j.gen;

import java.lang.foreign.MemorySegment;

/**
 * Writes and compares whole stripes (docs/FORMAT.md section 4) for the twin: {@link ScalarStripes}
 * in plain Java, or {@code VectorStripes} on the Vector API. One instance per thread (kernels keep
 * scratch state); {@link #of(int, JavaGenerator.Kernel)} picks the implementation.
 */
interface StripeKernel {

    /**
     * Writes the first {@code len} bytes (a multiple of 512) of the stripe with key {@code sk} to
     * {@code dst} at {@code at}, with {@code 512 - r} zero bytes at the end of every sector.
     */
    void fill(long sk, MemorySegment dst, long at, int len);

    /** Whether {@code data[at, at + len)} equals the first {@code len} bytes of the stripe {@code sk}. */
    boolean matches(long sk, MemorySegment data, long at, int len);

    /** {@code "java-vector"} or {@code "java-scalar"}. */
    String name();

    /** A kernel for {@code r} random bytes per sector: the vector one when asked for and usable. */
    static StripeKernel of(int r, JavaGenerator.Kernel kind) {
        return switch (kind) {
            case SCALAR -> new ScalarStripes(r);
            case VECTOR -> VectorSupport.newKernel(r).orElseThrow(() -> new IllegalStateException(
                    "the Vector API twin is not available: " + VectorSupport.reason()));
            case AUTO -> VectorSupport.newKernel(r).orElseGet(() -> new ScalarStripes(r));
        };
    }
}
