package io.dgen4j.s3.internal;

import io.dgen4j.s3.S3Timeouts;
import java.util.concurrent.TimeUnit;

/**
 * Whether one endpoint takes requests, shared by every writer and reader of a storage session that
 * uses it (one instance per endpoint URI in its {@link S3Pools}): up; down after a failure of the endpoint's (connect refused
 * or reset, timeout, 5xx) for a back-off of 200 ms that doubles up to 2 s while it keeps failing;
 * then one request is let through as a half-open probe: its success brings the endpoint up, its
 * failure puts it down again for twice as long. An endpoint that timed out (it accepts connections
 * and does not answer, or stalls) is down for 30 s, doubling up to 5 min: each probe of it costs a
 * request the whole timeout, where a refused connection costs milliseconds. Also holds the session's figures and
 * count of requests in flight, which least-connections balancing reads.
 */
final class EndpointHealth {
    /** The first back-off after an endpoint fails. */
    static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /**
     * The longest back-off: short against the retry budget ({@link S3Timeouts#retry()}, 10 s by
     * default), so that a request waiting for a lone gateway's restart tries it every 2 s at most.
     */
    static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** The first back-off after a timeout. */
    static final long TIMEOUT_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** The longest back-off after timeouts. */
    static final long MAX_TIMEOUT_BACKOFF_NANOS = TimeUnit.MINUTES.toNanos(5);

    /** The state an endpoint is in, as {@link io.dgen4j.storage.EndpointStatistics#state()} writes it. */
    enum State { UP, DOWN, PROBING }

    /** How a request was let through. */
    enum Admission {
        /** The endpoint is up. */
        NORMAL,
        /** The endpoint was down and its back-off is over: this request is the half-open probe. */
        PROBE
    }

    private final String endpoint;
    private final EndpointFigures figures = new EndpointFigures();
    private State state = State.UP;
    private long downUntil;
    private long backoff = FIRST_BACKOFF_NANOS;
    /** When the endpoint last answered a request (a refusal is an answer); meaningful once {@link #answeredOnce}. */
    private long lastAnswer;
    private boolean answeredOnce;

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

    synchronized State state() {
        return state;
    }

    /** Whether a request could be let through now (up, or down with its back-off over). */
    synchronized boolean usable(long now) {
        return state == State.UP || state == State.DOWN && now - downUntil >= 0;
    }

    /** Lets one request through, or refuses it (null): down within its back-off, or a probe already out. */
    synchronized Admission admit(long now) {
        if (state == State.UP) {
            return Admission.NORMAL;
        }
        if (state == State.DOWN && now - downUntil >= 0) {
            state = State.PROBING;
            return Admission.PROBE;
        }
        return null;
    }

    /**
     * Lets a request of a pinned object through unless the endpoint is down within its back-off: a
     * pinned object has nowhere else to go, so it does not wait for another request's probe.
     */
    synchronized Admission admitPinned(long now) {
        Admission a = admit(now);
        return a != null || state == State.DOWN ? a : Admission.NORMAL;
    }

    /** The endpoint answered (a 4xx is an answer too): a probe's answer brings it up. */
    synchronized void answered(Admission how) {
        lastAnswer = System.nanoTime();
        answeredOnce = true;
        if (how == Admission.PROBE && state == State.PROBING) {
            state = State.UP;
            backoff = FIRST_BACKOFF_NANOS;
        }
    }

    /**
     * A request failed by the endpoint's fault: an up endpoint goes down for the first back-off, a
     * failed probe for twice the last one.
     *
     * @return whether this failure marked the endpoint down (false when it already was)
     */
    synchronized boolean failed(Admission how, String cause, long now) {
        return failed(how, cause, now, false);
    }

    /** {@link #failed(Admission, String, long)}, by a timeout when {@code timeout}: the longer back-off. */
    synchronized boolean failed(Admission how, String cause, long now, boolean timeout) {
        figures.lastFailure(cause);
        if (how == Admission.PROBE && state == State.PROBING) {
            backoff = timeout ? Math.min(MAX_TIMEOUT_BACKOFF_NANOS, Math.max(TIMEOUT_BACKOFF_NANOS, backoff * 2))
                    : Math.min(MAX_BACKOFF_NANOS, backoff * 2);
        } else if (state == State.UP) {
            backoff = timeout ? TIMEOUT_BACKOFF_NANOS : FIRST_BACKOFF_NANOS;
        } else if (timeout && state == State.DOWN && downUntil - (now + TIMEOUT_BACKOFF_NANOS) < 0) {
            // down for a refusal moments ago, and now a request that was under way timed out: it hangs
            backoff = TIMEOUT_BACKOFF_NANOS;
        } else {
            return false;
        }
        state = State.DOWN;
        downUntil = now + backoff;
        figures.markedDown();
        return true;
    }

    /**
     * A request let through ended with no verdict on the endpoint (interrupted, cancelled, or an
     * {@link Error} in the client's thread): a probe's turn goes back, so that the next request may
     * probe at once.
     */
    synchronized void released(Admission how, long now) {
        if (how == Admission.PROBE && state == State.PROBING) {
            state = State.DOWN;
            downUntil = now;
        }
    }

    /** Nanoseconds since the endpoint last answered a request of this session; {@link Long#MAX_VALUE} if it never did. */
    synchronized long sinceAnswer(long now) {
        return answeredOnce ? now - lastAnswer : Long.MAX_VALUE;
    }

    /** Nanoseconds until a down endpoint may be probed (0 when it may be now, or it is up). */
    synchronized long backoffLeft(long now) {
        return state == State.DOWN ? Math.max(0, downUntil - now) : 0;
    }
}
