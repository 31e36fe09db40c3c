package io.dgen4j.s3;

import io.dgen4j.storage.EndpointStatistics;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * Counters of the requests sent to one endpoint: by one writer or reader (its
 * {@code endpointStatistics()}), or by the whole process ({@link EndpointHealth#figures()}).
 * Thread-safe; latencies go into an HdrHistogram in microseconds (3 significant digits).
 */
final class EndpointFigures {
    private final LongAdder requests = new LongAdder();
    private final LongAdder bytes = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder markedDown = new LongAdder();
    private final AtomicInteger active = new AtomicInteger();
    private final ConcurrentHistogram latencyMicros = new ConcurrentHistogram(3);
    private volatile String lastFailure = "";

    /** A request was sent. */
    void started() {
        requests.increment();
        active.incrementAndGet();
    }

    /** A request finished after {@code nanos}: moved {@code payload} bytes, or failed ({@code failed}). */
    void finished(long nanos, long payload, boolean failed) {
        active.decrementAndGet();
        latencyMicros.recordValue(Math.max(0, nanos / 1000));
        if (failed) {
            errors.increment();
        } else {
            bytes.add(payload);
        }
    }

    void markedDown() {
        markedDown.increment();
    }

    void lastFailure(String cause) {
        lastFailure = cause;
    }

    String lastFailure() {
        return lastFailure;
    }

    int active() {
        return active.get();
    }

    long requests() {
        return requests.sum();
    }

    /** The figures now, under these names. */
    EndpointStatistics snapshot(String endpoint, String state) {
        boolean any = latencyMicros.getTotalCount() > 0;
        return new EndpointStatistics(endpoint, requests.sum(), bytes.sum(), errors.sum(), active.get(),
                any ? latencyMicros.getValueAtPercentile(50) / 1000.0 : 0,
                any ? latencyMicros.getValueAtPercentile(99) / 1000.0 : 0, markedDown.sum(), state, lastFailure);
    }
}
