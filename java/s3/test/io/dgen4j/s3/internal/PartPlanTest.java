package io.dgen4j.s3.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class PartPlanTest {
    private static final long MIB = 1 << 20;

    @Test
    void cutsAnObjectIntoPartsWithAShortLastOne() {
        PartPlan p = PartPlan.of(17 * MIB + 3, 5 * MIB);
        assertEquals(4, p.parts());
        assertEquals(1, p.partNumber(0));
        assertEquals(4, p.partNumber(15 * MIB));
        assertEquals(15 * MIB, p.partOffset(4));
        assertEquals(5 * MIB, p.partLength(3));
        assertEquals(2 * MIB + 3, p.partLength(4));
        assertEquals(1, PartPlan.of(5 * MIB, 5 * MIB).parts());
        assertEquals(1, PartPlan.of(1, 5 * MIB).parts());
        assertEquals(1, PartPlan.of(1, 5 * MIB).partLength(1));
    }

    @Test
    void anEmptyObjectHasNoParts() {
        assertEquals(0, PartPlan.of(0, 5 * MIB).parts());
    }

    @Test
    void refusesTooManyPartsUpFrontWithTheArithmetic() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PartPlan.of(100L << 30, 5 * MIB));
        // 100 GiB / 10000 = 10737418.24 bytes: the smallest whole part size that fits is 10737419
        assertEquals("a 100 GiB object in 5 MiB parts needs 20480 parts; S3 allows 10000: use a part size of at "
                + "least 10.25 MiB (10737419 bytes)", e.getMessage());
        assertEquals(10_000, PartPlan.of(10_000 * 5 * MIB, 5 * MIB).parts());
        assertThrows(IllegalArgumentException.class, () -> PartPlan.of(10_000 * 5 * MIB + 1, 5 * MIB));
        // the suggested size is enough
        assertEquals(10_000, PartPlan.of(100L << 30, 10_737_419).parts());
    }

    @Test
    void sizesNearLongMaxValueDoNotOverflow() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PartPlan.of(Long.MAX_VALUE, 32 * MIB));
        assertEquals("a 8 EiB object in 32 MiB parts needs 274877906944 parts; S3 allows 10000 parts of at most "
                + "5 GiB, so one object holds at most 48.83 TiB (53687091200000 bytes)", e.getMessage());
        assertEquals(10_000, PartPlan.of(10_000 * PartPlan.MAX_PART_SIZE, PartPlan.MAX_PART_SIZE).parts());
        assertThrows(IllegalArgumentException.class,
                () -> PartPlan.of(10_000 * PartPlan.MAX_PART_SIZE + 1, PartPlan.MAX_PART_SIZE));
    }

    @Test
    void refusesPartSizesOutsideS3sLimits() {
        assertEquals("part size must be between 5 MiB and 5 GiB (S3's limits), got 4 MiB",
                assertThrows(IllegalArgumentException.class, () -> PartPlan.of(10, 4 * MIB)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> PartPlan.of(10, (5L << 30) + 1));
        assertEquals(5L << 30, PartPlan.of(10, 5L << 30).partSize());
    }

    @Test
    void theDefaultPartSizeIsTheChunkSizeWithinS3sLimits() {
        assertEquals(32 * MIB, PartPlan.defaultPartSize(32 * MIB));
        assertEquals(5 * MIB, PartPlan.defaultPartSize(MIB));
        assertEquals(5L << 30, PartPlan.defaultPartSize(8L << 30));
    }

    @Test
    void chunksMustFillWholeParts() {
        PartPlan p = PartPlan.of(100 * MIB, 8 * MIB);
        p.checkChunk(16 * MIB); // two parts per chunk
        p.checkChunk(8 * MIB);
        assertEquals("chunks of 12 MiB do not fill whole parts of 8 MiB: the chunk size must be a multiple of the "
                + "part size (S3 parts are 5 MiB at least; use chunks of 8 MiB or a multiple)",
                assertThrows(IllegalArgumentException.class, () -> p.checkChunk(12 * MIB)).getMessage());
        PartPlan.of(3 * MIB, 5 * MIB).checkChunk(4 * MIB); // one chunk holds the whole (short) object
        assertThrows(IllegalArgumentException.class, () -> p.partNumber(MIB));
        assertThrows(IllegalArgumentException.class, () -> p.partNumber(100 * MIB));
    }

    @Test
    void sizesAreWrittenInBinaryUnits() {
        assertEquals("12 B", PartPlan.size(12));
        assertEquals("1.5 KiB", PartPlan.size(1536));
        assertEquals("5 GiB", PartPlan.size(5L << 30));
        assertEquals("8 EiB", PartPlan.size(Long.MAX_VALUE), "units up to EiB, rounded up");
    }

    @Test
    void aClientsLargestEfficientPartHalvesTheChunkIntoWholePartsWithinS3sLimits() {
        long mib = 1L << 20;
        assertEquals(32 * mib, PartPlan.defaultPartSize(32 * mib, 1L << 30, PartPlan.MAX_PART_SIZE), "no ceiling");
        assertEquals(16 * mib, PartPlan.defaultPartSize(32 * mib, 1L << 30, 16 * mib), "the crt's 16 MiB");
        assertEquals(12 * mib, PartPlan.defaultPartSize(48 * mib, 1L << 30, 16 * mib), "halved twice");
        assertEquals(6 * mib, PartPlan.defaultPartSize(6 * mib, 1L << 30, 4 * mib), "never below 5 MiB");
        long big = 20_000 * 16 * mib; // 10,000 parts of 32 MiB; 20,000 of 16 MiB would be too many
        assertEquals(32 * mib, PartPlan.defaultPartSize(32 * mib, big, 16 * mib), "never past 10,000 parts");
        assertEquals(21 * mib / 2, PartPlan.defaultPartSize(21 * mib, 1L << 30, 16 * mib), "parts need no power of 2");
        long odd = 32 * mib + 1;
        assertEquals(odd, PartPlan.defaultPartSize(odd, 1L << 30, 16 * mib), "an odd chunk stays whole");
    }
}
