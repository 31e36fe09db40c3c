package io.dgen4j.gen;

import static io.dgen4j.gen.StreamLayout.GOLDEN;
import static io.dgen4j.gen.StreamLayout.LANES;
import static io.dgen4j.gen.StreamLayout.SECTOR;
import static io.dgen4j.gen.StreamLayout.mix64;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The stripe kernel on the Vector API: the eight xoshiro256++ lanes of a stripe advance together,
 * one {@code LongVector} of 512 bits per state word (or two of 256 bits where the CPU's vectors are
 * narrower), and every step stores (or compares) 64 bytes: the native kernels' shape, in Java.
 *
 * <p>Loaded only by {@link VectorSupport}, by name, when {@code jdk.incubator.vector} is in the boot
 * layer: nothing else refers to this class.
 */
final class VectorStripes implements StripeKernel {
    private static final VectorSpecies<Long> S512 = LongVector.SPECIES_512;
    private static final VectorSpecies<Long> S256 = LongVector.SPECIES_256;
    private static final boolean WIDE = LongVector.SPECIES_PREFERRED.vectorBitSize() >= 512;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final int STEPS_PER_SECTOR = SECTOR / (8 * LANES);

    /** The initial state: {@code state[8 w + l]} is word {@code w} of lane {@code l}. */
    private final long[] state = new long[4 * LANES];
    /** {@code masks[8 t + l]} keeps the bytes of step {@code t} of a sector below {@code r}. */
    private final long[] masks = new long[STEPS_PER_SECTOR * LANES];
    /** Leading steps of a sector with any random byte; later ones are all zeros. */
    private final int randomSteps;
    private final boolean all;

    VectorStripes(int randomBytes) {
        for (int t = 0; t < STEPS_PER_SECTOR; t++) {
            for (int l = 0; l < LANES; l++) {
                long w = 0;
                for (int b = 0; b < 8; b++) {
                    if (t * 64 + l * 8 + b < randomBytes) {
                        w |= 0xFFL << (8 * b);
                    }
                }
                masks[t * LANES + l] = w;
            }
        }
        this.randomSteps = (randomBytes + 63) / 64;
        this.all = randomBytes == SECTOR;
    }

    /** Bits of the CPU's preferred vectors as the Vector API sees them. */
    static int preferredBits() {
        return LongVector.SPECIES_PREFERRED.vectorBitSize();
    }

    @Override
    public String name() {
        return "java-vector";
    }

    private void init(long sk) {
        long[] s = state;
        for (int l = 0; l < LANES; l++) {
            long base = sk + GOLDEN * (4L * l + 1);
            s[l] = mix64(base);
            s[LANES + l] = mix64(base + GOLDEN);
            s[2 * LANES + l] = mix64(base + 2 * GOLDEN);
            s[3 * LANES + l] = mix64(base + 3 * GOLDEN);
        }
    }

    @Override
    public void fill(long sk, MemorySegment dst, long at, int len) {
        init(sk);
        if (WIDE) {
            fill512(dst, at, len);
        } else {
            fill256(dst, at, len);
        }
    }

    @Override
    public boolean matches(long sk, MemorySegment data, long at, int len) {
        init(sk);
        return WIDE ? match512(data, at, len) : match256(data, at, len);
    }

    private void fill512(MemorySegment dst, long at, int len) {
        final long[] s = state;
        LongVector s0 = LongVector.fromArray(S512, s, 0);
        LongVector s1 = LongVector.fromArray(S512, s, 8);
        LongVector s2 = LongVector.fromArray(S512, s, 16);
        LongVector s3 = LongVector.fromArray(S512, s, 24);
        final LongVector zero = LongVector.zero(S512);
        final int rs = randomSteps;
        long p = at;
        for (int sec = 0; sec < len; sec += SECTOR) {
            for (int t = 0; t < STEPS_PER_SECTOR; t++) {
                if (t < rs) {
                    LongVector r = s0.add(s3).lanewise(VectorOperators.ROL, 23).add(s0);
                    if (!all) {
                        r = r.and(LongVector.fromArray(S512, masks, t * LANES));
                    }
                    r.intoMemorySegment(dst, p, LE);
                } else {
                    zero.intoMemorySegment(dst, p, LE);
                }
                LongVector tt = s1.lanewise(VectorOperators.LSHL, 17);
                s2 = s2.lanewise(VectorOperators.XOR, s0);
                s3 = s3.lanewise(VectorOperators.XOR, s1);
                s1 = s1.lanewise(VectorOperators.XOR, s2);
                s0 = s0.lanewise(VectorOperators.XOR, s3);
                s2 = s2.lanewise(VectorOperators.XOR, tt);
                s3 = s3.lanewise(VectorOperators.ROL, 45);
                p += 64;
            }
        }
    }

    private boolean match512(MemorySegment data, long at, int len) {
        final long[] s = state;
        LongVector s0 = LongVector.fromArray(S512, s, 0);
        LongVector s1 = LongVector.fromArray(S512, s, 8);
        LongVector s2 = LongVector.fromArray(S512, s, 16);
        LongVector s3 = LongVector.fromArray(S512, s, 24);
        LongVector acc = LongVector.zero(S512);
        final int rs = randomSteps;
        long p = at;
        for (int sec = 0; sec < len; sec += SECTOR) {
            for (int t = 0; t < STEPS_PER_SECTOR; t++) {
                LongVector got = LongVector.fromMemorySegment(S512, data, p, LE);
                if (t < rs) {
                    LongVector r = s0.add(s3).lanewise(VectorOperators.ROL, 23).add(s0);
                    if (!all) {
                        r = r.and(LongVector.fromArray(S512, masks, t * LANES));
                    }
                    got = got.lanewise(VectorOperators.XOR, r);
                }
                acc = acc.or(got);
                LongVector tt = s1.lanewise(VectorOperators.LSHL, 17);
                s2 = s2.lanewise(VectorOperators.XOR, s0);
                s3 = s3.lanewise(VectorOperators.XOR, s1);
                s1 = s1.lanewise(VectorOperators.XOR, s2);
                s0 = s0.lanewise(VectorOperators.XOR, s3);
                s2 = s2.lanewise(VectorOperators.XOR, tt);
                s3 = s3.lanewise(VectorOperators.ROL, 45);
                p += 64;
            }
        }
        return !acc.compare(VectorOperators.NE, 0).anyTrue();
    }

    private void fill256(MemorySegment dst, long at, int len) {
        final long[] s = state;
        LongVector s0a = LongVector.fromArray(S256, s, 0);
        LongVector s0b = LongVector.fromArray(S256, s, 4);
        LongVector s1a = LongVector.fromArray(S256, s, 8);
        LongVector s1b = LongVector.fromArray(S256, s, 12);
        LongVector s2a = LongVector.fromArray(S256, s, 16);
        LongVector s2b = LongVector.fromArray(S256, s, 20);
        LongVector s3a = LongVector.fromArray(S256, s, 24);
        LongVector s3b = LongVector.fromArray(S256, s, 28);
        final LongVector zero = LongVector.zero(S256);
        final int rs = randomSteps;
        long p = at;
        for (int sec = 0; sec < len; sec += SECTOR) {
            for (int t = 0; t < STEPS_PER_SECTOR; t++) {
                if (t < rs) {
                    LongVector ra = s0a.add(s3a).lanewise(VectorOperators.ROL, 23).add(s0a);
                    LongVector rb = s0b.add(s3b).lanewise(VectorOperators.ROL, 23).add(s0b);
                    if (!all) {
                        ra = ra.and(LongVector.fromArray(S256, masks, t * LANES));
                        rb = rb.and(LongVector.fromArray(S256, masks, t * LANES + 4));
                    }
                    ra.intoMemorySegment(dst, p, LE);
                    rb.intoMemorySegment(dst, p + 32, LE);
                } else {
                    zero.intoMemorySegment(dst, p, LE);
                    zero.intoMemorySegment(dst, p + 32, LE);
                }
                LongVector ta = s1a.lanewise(VectorOperators.LSHL, 17);
                LongVector tb = s1b.lanewise(VectorOperators.LSHL, 17);
                s2a = s2a.lanewise(VectorOperators.XOR, s0a);
                s2b = s2b.lanewise(VectorOperators.XOR, s0b);
                s3a = s3a.lanewise(VectorOperators.XOR, s1a);
                s3b = s3b.lanewise(VectorOperators.XOR, s1b);
                s1a = s1a.lanewise(VectorOperators.XOR, s2a);
                s1b = s1b.lanewise(VectorOperators.XOR, s2b);
                s0a = s0a.lanewise(VectorOperators.XOR, s3a);
                s0b = s0b.lanewise(VectorOperators.XOR, s3b);
                s2a = s2a.lanewise(VectorOperators.XOR, ta);
                s2b = s2b.lanewise(VectorOperators.XOR, tb);
                s3a = s3a.lanewise(VectorOperators.ROL, 45);
                s3b = s3b.lanewise(VectorOperators.ROL, 45);
                p += 64;
            }
        }
    }

    private boolean match256(MemorySegment data, long at, int len) {
        final long[] s = state;
        LongVector s0a = LongVector.fromArray(S256, s, 0);
        LongVector s0b = LongVector.fromArray(S256, s, 4);
        LongVector s1a = LongVector.fromArray(S256, s, 8);
        LongVector s1b = LongVector.fromArray(S256, s, 12);
        LongVector s2a = LongVector.fromArray(S256, s, 16);
        LongVector s2b = LongVector.fromArray(S256, s, 20);
        LongVector s3a = LongVector.fromArray(S256, s, 24);
        LongVector s3b = LongVector.fromArray(S256, s, 28);
        LongVector acc = LongVector.zero(S256);
        final int rs = randomSteps;
        long p = at;
        for (int sec = 0; sec < len; sec += SECTOR) {
            for (int t = 0; t < STEPS_PER_SECTOR; t++) {
                LongVector ga = LongVector.fromMemorySegment(S256, data, p, LE);
                LongVector gb = LongVector.fromMemorySegment(S256, data, p + 32, LE);
                if (t < rs) {
                    LongVector ra = s0a.add(s3a).lanewise(VectorOperators.ROL, 23).add(s0a);
                    LongVector rb = s0b.add(s3b).lanewise(VectorOperators.ROL, 23).add(s0b);
                    if (!all) {
                        ra = ra.and(LongVector.fromArray(S256, masks, t * LANES));
                        rb = rb.and(LongVector.fromArray(S256, masks, t * LANES + 4));
                    }
                    ga = ga.lanewise(VectorOperators.XOR, ra);
                    gb = gb.lanewise(VectorOperators.XOR, rb);
                }
                acc = acc.or(ga).or(gb);
                LongVector ta = s1a.lanewise(VectorOperators.LSHL, 17);
                LongVector tb = s1b.lanewise(VectorOperators.LSHL, 17);
                s2a = s2a.lanewise(VectorOperators.XOR, s0a);
                s2b = s2b.lanewise(VectorOperators.XOR, s0b);
                s3a = s3a.lanewise(VectorOperators.XOR, s1a);
                s3b = s3b.lanewise(VectorOperators.XOR, s1b);
                s1a = s1a.lanewise(VectorOperators.XOR, s2a);
                s1b = s1b.lanewise(VectorOperators.XOR, s2b);
                s0a = s0a.lanewise(VectorOperators.XOR, s3a);
                s0b = s0b.lanewise(VectorOperators.XOR, s3b);
                s2a = s2a.lanewise(VectorOperators.XOR, ta);
                s2b = s2b.lanewise(VectorOperators.XOR, tb);
                s3a = s3a.lanewise(VectorOperators.ROL, 45);
                s3b = s3b.lanewise(VectorOperators.ROL, 45);
                p += 64;
            }
        }
        return !acc.compare(VectorOperators.NE, 0).anyTrue();
    }
}
