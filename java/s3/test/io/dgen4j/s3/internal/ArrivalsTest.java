package io.dgen4j.s3.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.storage.ReadCheck;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class ArrivalsTest {
    /** Where the object's bytes come from: byte i of the object is {@code (byte) (i * 31 + 7)}. */
    private static byte expected(long i) {
        return (byte) (i * 31 + 7);
    }

    /** Compares as a load's generator would, and records each call's object offset and length. */
    private static final class Recording implements ReadCheck {
        final List<long[]> calls = new ArrayList<>();

        @Override
        public long firstMismatch(MemorySegment bytes, long offset) {
            calls.add(new long[] {offset, bytes.byteSize()});
            for (long i = 0; i < bytes.byteSize(); i++) {
                if (bytes.get(ValueLayout.JAVA_BYTE, i) != expected(offset + i)) {
                    return offset + i;
                }
            }
            return -1;
        }
    }

    /** Stores {@code len} bytes of the object from {@code at} into {@code dst} in pieces, as a transport does. */
    private static void arrive(Arrivals a, MemorySegment dst, long offset, long len, int flipAt, Random pieces) {
        a.reset();
        long pos = 0;
        while (pos < len) {
            int n = (int) Math.min(len - pos, 1 + pieces.nextInt(40_000));
            byte[] piece = new byte[n];
            for (int i = 0; i < n; i++) {
                piece[i] = pos + i == flipAt ? (byte) ~expected(offset + pos + i) : expected(offset + pos + i);
            }
            MemorySegment.copy(piece, 0, dst, ValueLayout.JAVA_BYTE, pos, n);
            a.update(piece, 0, n); // after the copy, as S3Transport#getRange's contract says
            pos += n;
        }
    }

    @Test
    void comparesWholeBatchesAsTheyArriveAndTheRestAtTheEnd() {
        long offset = 5L << 20;
        long len = 3 * Arrivals.BATCH + 100_000; // three whole batches, however the pieces overshoot them
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment dst = arena.allocate(len);
            Recording check = new Recording();
            Arrivals a = new Arrivals(dst, offset, true, check);
            arrive(a, dst, offset, len, -1, new Random(1));
            int whileArriving = check.calls.size();
            a.finish(len);
            assertEquals(-1, a.firstMismatch());
            assertEquals(3, whileArriving, "a compare per whole batch while the pieces arrive");
            long next = offset;
            for (long[] c : check.calls) {
                assertEquals(next, c[0], "batches in order, each starting where the last ended");
                next += c[1];
            }
            assertEquals(offset + len, next, "every byte compared once");
            assertTrue(check.calls.subList(0, 3).stream().allMatch(c -> c[1] >= Arrivals.BATCH
                    && c[1] < Arrivals.BATCH + 40_000), "batches of at least BATCH bytes, at most a piece more");
            CRC32C want = new CRC32C();
            want.update(dst.asByteBuffer());
            assertEquals(want.getValue(), a.getValue());
        }
    }

    @Test
    void reportsTheFirstByteThatDiffersAsAnObjectOffsetAndStopsComparing() {
        long offset = 1L << 30;
        long len = 4 * Arrivals.BATCH;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment dst = arena.allocate(len);
            Recording check = new Recording();
            Arrivals a = new Arrivals(dst, offset, false, check);
            int flip = (int) Arrivals.BATCH + 50_777; // past the first batch, whatever its pieces
            arrive(a, dst, offset, len, flip, new Random(2));
            a.finish(len);
            assertEquals(offset + flip, a.firstMismatch());
            long[] last = check.calls.get(check.calls.size() - 1);
            assertTrue(last[0] <= offset + flip && offset + flip < last[0] + last[1],
                    "nothing compared past the batch with the mismatch");
            assertTrue(last[0] + last[1] < offset + len, "the batches after it were not compared");
            assertEquals(0, a.getValue(), "not summed");

            // the client starts over (its own retry): the same bytes, right this time
            check.calls.clear();
            arrive(a, dst, offset, len, -1, new Random(3));
            a.finish(len);
            assertEquals(-1, a.firstMismatch(), "a reset forgets what the abandoned attempt found");
            assertEquals(len, check.calls.stream().mapToLong(c -> c[1]).sum());
        }
    }

    @Test
    void whatTheCheckThrowsIsThrownByFinishNotToTheTransport() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment dst = arena.allocate(2 * Arrivals.BATCH);
            IllegalStateException boom = new IllegalStateException("the generator is closed");
            int[] calls = {0};
            Arrivals a = new Arrivals(dst, 0, true, (bytes, at) -> {
                calls[0]++;
                throw boom;
            });
            arrive(a, dst, 0, dst.byteSize(), -1, new Random(4)); // the transport is not disturbed
            assertEquals(1, calls[0], "not called again once it failed");
            assertSame(boom, assertThrows(IllegalStateException.class, () -> a.finish(dst.byteSize())));
        }
    }
}
