package io.dgen4j.storage;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Whether one endpoint of a network backend takes requests: the circuit breaker that every backend with
 * endpoint sets (the S3 backends, Azure Blob) keeps per endpoint and storage session.
 *
 * <p>An endpoint is up; a failure of the endpoint's (connection refused or reset, timeout, 5xx) puts it
 * down for a back-off of 200 ms that doubles up to 2 s while it keeps failing; then one request is let
 * through as a half-open probe: its answer brings the endpoint up, its failure puts it down again for
 * twice as long. An endpoint that timed out (it accepts connections and does not answer, or stalls) is
 * down for 30 s, doubling up to 5 min: each probe of it costs a request the whole timeout, where a
 * refused connection costs milliseconds. Thread-safe; times are {@link System#nanoTime()} values.
 *
 * {@snippet :
 * EndpointBackoff health = new EndpointBackoff();
 * EndpointBackoff.Admission how = health.admit(System.nanoTime());
 * if (how != null) {
 *     // send the request; then health.answered(how), or health.failed(how, System.nanoTime(), timedOut)
 * }
 * }
 */
public final class EndpointBackoff {
    /** The first back-off after an endpoint fails. */
    public static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /**
     * The longest back-off: short against a retry budget of seconds, so that a request waiting for a lone
     * gateway's restart tries it every 2 s at most.
     */
    public static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** The first back-off after a timeout. */
    public static final long TIMEOUT_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** The longest back-off after timeouts. */
    public static final long MAX_TIMEOUT_BACKOFF_NANOS = TimeUnit.MINUTES.toNanos(5);

    /** The state an endpoint is in, as {@link EndpointStatistics#state()} writes it ({@link #label()}). */
    public enum State {
        /** It takes requests. */
        UP,
        /** It failed and waits out its back-off. */
        DOWN,
        /** Its back-off is over and one request, the probe, is out. */
        PROBING;

        /** {@code up}, {@code down} or {@code probing}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** How a request was let through. */
    public enum Admission {
        /** The endpoint is up. */
        NORMAL,
        /** The endpoint was down and its back-off is over: this request is the half-open probe. */
        PROBE
    }

    private State state = State.UP;
    private long downUntil;
    private long backoff = FIRST_BACKOFF_NANOS;
    /** When the endpoint last answered a request (a refusal is an answer); meaningful once {@link #answeredOnce}. */
    private long lastAnswer;
    private boolean answeredOnce;

    /** The state now. */
    public synchronized State state() {
        return state;
    }

    /** Whether a request could be let through at {@code now} (up, or down with its back-off over). */
    public synchronized boolean usable(long now) {
        return state == State.UP || state == State.DOWN && now - downUntil >= 0;
    }

    /**
     * Lets one request through at {@code now}, or refuses it.
     *
     * @return how it was let through; null when the endpoint is down within its back-off, or its probe is out
     */
    public synchronized Admission admit(long now) {
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
    public synchronized Admission admitPinned(long now) {
        Admission a = admit(now);
        return a != null || state == State.DOWN ? a : Admission.NORMAL;
    }

    /**
     * Lets a request through at {@code now} whatever the state, for a request with nowhere else to go (a
     * lone endpoint, or a set whose endpoints are all down): a down endpoint's request probes it at once.
     */
    public synchronized Admission force(long now) {
        Admission a = admit(now);
        if (a != null) {
            return a;
        }
        if (state == State.DOWN) {
            state = State.PROBING;
            return Admission.PROBE;
        }
        return Admission.NORMAL; // another request's probe is out: this one's answer does not decide
    }

    /** The endpoint answered a request let through as {@code how} (a 4xx is an answer too): a probe's answer brings it up. */
    public synchronized void answered(Admission how) {
        lastAnswer = System.nanoTime();
        answeredOnce = true;
        if (how == Admission.PROBE && state == State.PROBING) {
            state = State.UP;
            backoff = FIRST_BACKOFF_NANOS;
        }
    }

    /**
     * A request let through as {@code how} failed by the endpoint's fault at {@code now} (by a timeout when
     * {@code timeout}: the longer back-off): an up endpoint goes down for the first back-off, a failed probe
     * for twice the last one.
     *
     * @return whether this failure marked the endpoint down (false when it already was)
     */
    public synchronized boolean failed(Admission how, long now, boolean timeout) {
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
        return true;
    }

    /**
     * A request let through as {@code how} ended with no verdict on the endpoint (interrupted, cancelled, or
     * an {@link Error} in the client's thread): a probe's turn goes back, so that the next request may probe
     * at once.
     */
    public synchronized void released(Admission how, long now) {
        if (how == Admission.PROBE && state == State.PROBING) {
            state = State.DOWN;
            downUntil = now;
        }
    }

    /** Nanoseconds since the endpoint last answered a request; {@link Long#MAX_VALUE} if it never did. */
    public synchronized long sinceAnswer(long now) {
        return answeredOnce ? now - lastAnswer : Long.MAX_VALUE;
    }

    /** Nanoseconds until a down endpoint may be probed (0 when it may be now, or it is up or probing). */
    public synchronized long backoffLeft(long now) {
        return state == State.DOWN ? Math.max(0, downUntil - now) : 0;
    }
}
