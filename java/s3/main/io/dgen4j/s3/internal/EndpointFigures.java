package io.dgen4j.s3.internal;

import io.dgen4j.storage.EndpointStatistics;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of the requests sent to one endpoint: by one writer or reader (its
 * {@code endpointStatistics()}), or by a whole storage session ({@link EndpointHealth#figures()}).
 * Thread-safe; latencies go into a {@link LatencyHistogram} in microseconds, made on the first
 * request: with 2 significant digits (p50 and p99 within 1 %) and int counts it holds ~9 KiB for
 * latencies up to minutes, where HdrHistogram's {@code ConcurrentHistogram} of 3 digits took ~170 KiB,
 * which a set of a thousand endpoints, counted per session and per object, could not afford.
 */
final class EndpointFigures {
    private final LongAdder requests = new LongAdder();
    private final LongAdder bytes = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder markedDown = new LongAdder();
    private final AtomicInteger active = new AtomicInteger();
    /** Latencies in microseconds; null until the first request finished. Guarded by {@code this}. */
    private LatencyHistogram latencyMicros;
    private volatile String lastFailure = "";

    /** A request was sent. */
    void started() {
        requests.increment();
        active.incrementAndGet();
    }

    /** A request finished after {@code nanos}: moved {@code payload} bytes, or failed ({@code failed}). */
    void finished(long nanos, long payload, boolean failed) {
        active.decrementAndGet();
        synchronized (this) {
            if (latencyMicros == null) {
                latencyMicros = new LatencyHistogram();
            }
            latencyMicros.record(nanos / 1000);
        }
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
        double p50 = 0;
        double p99 = 0;
        synchronized (this) {
            if (latencyMicros != null && latencyMicros.count() > 0) {
                p50 = latencyMicros.valueAtPercentile(50) / 1000.0;
                p99 = latencyMicros.valueAtPercentile(99) / 1000.0;
            }
        }
        return new EndpointStatistics(endpoint, requests.sum(), bytes.sum(), errors.sum(), active.get(), p50, p99,
                markedDown.sum(), state, lastFailure);
    }
}
