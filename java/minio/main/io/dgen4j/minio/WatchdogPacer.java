package io.dgen4j.minio;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import okio.AsyncTimeout;

/**
 * A timeout that keeps itself at the front of okio's timeout queue, so that OkHttp's socket writes
 * stop waking okio's watchdog thread.
 *
 * <p>OkHttp guards every socket write with an {@link AsyncTimeout} (the write timeout): the write
 * enters okio's queue and leaves it when done, and okio signals its watchdog thread whenever an entry
 * lands at the front of the queue. An upload's writes come one at a time, so each one lands at the
 * front of an empty queue: MinIO's part bodies reach the socket in okio's 8 KiB segments, and a
 * 3 GiB minio save woke the watchdog ~400,000 times (async-profiler: 1 of its 6 CPU s in thread
 * hand-offs, {@code AsyncTimeout.enter}'s signal and the watchdog's wake-up). This entry's deadline
 * is nearer than any write's ({@code period}, under the write timeout), so a write enters behind it
 * and wakes nobody; the watchdog wakes once per period to put it back, and still times out a stuck
 * write at that write's own deadline. Closing it takes it out of the queue.
 */
final class WatchdogPacer extends AsyncTimeout implements AutoCloseable {
    private boolean open = true;
    private long periods;

    /** Enters the queue at once, and again each {@code period} until closed. */
    WatchdogPacer(Duration period) {
        timeout(period.toNanos(), TimeUnit.NANOSECONDS);
        enter();
    }

    /** Called by okio's watchdog when the period is up: back into the queue, unless closed. */
    @Override
    protected synchronized void timedOut() {
        if (open) {
            periods++;
            exit();
            enter();
        }
    }

    /** How many times the period ran out while open. */
    synchronized long periods() {
        return periods;
    }

    @Override
    public synchronized void close() {
        open = false;
        exit();
    }
}
