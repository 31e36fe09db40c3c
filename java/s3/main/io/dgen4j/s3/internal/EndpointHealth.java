package io.dgen4j.s3.internal;

import io.dgen4j.storage.EndpointBackoff;
import io.dgen4j.storage.EndpointBackoff.Admission;
import io.dgen4j.storage.EndpointBackoff.State;

/**
 * One endpoint as a storage session sees it, shared by every writer and reader of the session that uses
 * it (one instance per endpoint URI in its {@link S3Pools}): whether it takes requests (its
 * {@link EndpointBackoff}, the circuit breaker the Azure backend keeps too), the session's figures of it,
 * and its count of requests in flight, which least-connections balancing reads.
 */
final class EndpointHealth {
    private final String endpoint;
    private final EndpointBackoff backoff = new EndpointBackoff();
    private final EndpointFigures figures = new EndpointFigures();

    /** A new judge of {@code endpoint}, up (its session's {@link S3Pools} keeps one per endpoint URI). */
    EndpointHealth(String endpoint) {
        this.endpoint = endpoint;
    }

    String endpoint() {
        return endpoint;
    }

    /** Figures of every request of the session to this endpoint. */
    EndpointFigures figures() {
        return figures;
    }

    /** Requests of the whole session in flight on this endpoint. */
    int active() {
        return figures.active();
    }

    State state() {
        return backoff.state();
    }

    /** See {@link EndpointBackoff#usable(long)}. */
    boolean usable(long now) {
        return backoff.usable(now);
    }

    /** See {@link EndpointBackoff#admit(long)}. */
    Admission admit(long now) {
        return backoff.admit(now);
    }

    /** See {@link EndpointBackoff#admitPinned(long)}. */
    Admission admitPinned(long now) {
        return backoff.admitPinned(now);
    }

    /** See {@link EndpointBackoff#answered(Admission)}. */
    void answered(Admission how) {
        backoff.answered(how);
    }

    /** {@link #failed(Admission, String, long, boolean)}, not by a timeout. */
    boolean failed(Admission how, String cause, long now) {
        return failed(how, cause, now, false);
    }

    /**
     * A request failed by the endpoint's fault ({@link EndpointBackoff#failed}), for {@code cause}.
     *
     * @return whether this failure marked the endpoint down (false when it already was)
     */
    boolean failed(Admission how, String cause, long now, boolean timeout) {
        figures.lastFailure(cause);
        if (!backoff.failed(how, now, timeout)) {
            return false;
        }
        figures.markedDown();
        return true;
    }

    /** See {@link EndpointBackoff#released(Admission, long)}. */
    void released(Admission how, long now) {
        backoff.released(how, now);
    }

    /** See {@link EndpointBackoff#sinceAnswer(long)}. */
    long sinceAnswer(long now) {
        return backoff.sinceAnswer(now);
    }

    /** See {@link EndpointBackoff#backoffLeft(long)}. */
    long backoffLeft(long now) {
        return backoff.backoffLeft(now);
    }
}
