package io.dgen4j.minio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import okio.AsyncTimeout;
import org.junit.jupiter.api.Test;

/** {@link WatchdogPacer}: writes behind it still time out at their own deadlines, and it stops when closed. */
class WatchdogPacerTest {
    /** A write that OkHttp guards (an AsyncTimeout), with a flag for its time-out. */
    private static final class Write extends AsyncTimeout {
        final CountDownLatch fired = new CountDownLatch(1);

        Write(Duration timeout) {
            timeout(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }

        @Override
        protected void timedOut() {
            fired.countDown();
        }
    }

    @Test
    void aStuckWriteBehindThePacerTimesOutAtItsOwnDeadline() throws Exception {
        try (WatchdogPacer pacer = new WatchdogPacer(Duration.ofMillis(150))) {
            Write w = new Write(Duration.ofMillis(700));
            long t0 = System.nanoTime();
            w.enter();
            assertTrue(w.fired.await(10, TimeUnit.SECONDS), "the write never timed out");
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(w.exit(), "exit() says whether it timed out");
            assertTrue(ms >= 690 && ms < 3000, "timed out after " + ms + " ms, not ~700");
            assertTrue(pacer.periods() >= 2, "the pacer kept its place: " + pacer.periods() + " periods");
        }
    }

    @Test
    void aWriteDoneInTimeDoesNotTimeOut() throws Exception {
        try (WatchdogPacer pacer = new WatchdogPacer(Duration.ofMillis(100))) {
            Write w = new Write(Duration.ofMillis(400));
            w.enter();
            Thread.sleep(50);
            assertFalse(w.exit(), "a write done in time is not timed out");
            assertFalse(w.fired.await(800, TimeUnit.MILLISECONDS), "fired after exit");
        }
    }

    @Test
    void aClosedPacerLeavesTheQueue() throws Exception {
        WatchdogPacer pacer = new WatchdogPacer(Duration.ofMillis(50));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (pacer.periods() < 3 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(pacer.periods() >= 3, "the period never ran out: " + pacer.periods());
        pacer.close();
        long after = pacer.periods();
        Thread.sleep(300);
        assertEquals(after, pacer.periods(), "periods ran on after close()");
    }
}
