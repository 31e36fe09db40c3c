package io.dgen4j.azure;

import com.azure.core.exception.HttpResponseException;
import com.azure.storage.blob.specialized.BlockBlobAsyncClient;
import io.dgen4j.storage.EndpointStatistics;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Exceptions;

/**
 * The blob service endpoints one save or load spreads its requests over ({@link AzureSettings#endpoints()},
 * and for reads {@link AzureSettings#secondaries()} too), round robin, with failover: a request that fails
 * at the transport level (refused, reset, timed out, after the SDK's own tries on that endpoint) or with a
 * 5xx marks its endpoint down and goes to the next endpoint; a request that every endpoint failed fails,
 * naming each endpoint and its cause. An answer (a 4xx) is the store's verdict and is not tried elsewhere.
 *
 * <p>An endpoint down stays out for a back-off of 200 ms that doubles up to 2 s while it keeps failing (after a
 * timeout: 30 s doubling up to 5 min, as a hanging endpoint costs each request the whole timeout), then one
 * request probes it. Whether an endpoint is down is the storage session's ({@link Health}, one per endpoint
 * URI in the provider); the figures are this operation's ({@link #statistics()}). The back-off figures are
 * those of the S3 backends' endpoint health (not shared code: the azure module does not depend on s3).
 */
final class AzureEndpoints {
    private static final Logger LOG = LoggerFactory.getLogger(AzureEndpoints.class);
    static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(2);
    static final long TIMEOUT_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(30);
    static final long MAX_TIMEOUT_BACKOFF_NANOS = TimeUnit.MINUTES.toNanos(5);

    /** Whether one endpoint takes requests, shared by every save and load of a storage session. */
    static final class Health {
        private boolean down;
        private boolean probing;
        private long downUntil;
        private long backoff = FIRST_BACKOFF_NANOS;
        private String lastFailure = "";

        /** Lets a request through: up, or down with the back-off over and no probe out (this one probes). */
        synchronized boolean admit(long now) {
            if (!down) {
                return true;
            }
            if (!probing && now - downUntil >= 0) {
                probing = true;
                return true;
            }
            return false;
        }

        /** The endpoint answered (a 4xx too): it is up. */
        synchronized void answered() {
            down = false;
            probing = false;
            backoff = FIRST_BACKOFF_NANOS;
        }

        /** A request failed by the endpoint's fault; returns whether this marked it down (false: it already was). */
        synchronized boolean failed(String cause, boolean timeout, long now) {
            lastFailure = cause;
            if (down && !probing && now - downUntil < 0) {
                return false;
            }
            if (down) {
                backoff = timeout ? Math.min(MAX_TIMEOUT_BACKOFF_NANOS, Math.max(TIMEOUT_BACKOFF_NANOS, backoff * 2))
                        : Math.min(MAX_BACKOFF_NANOS, backoff * 2);
            } else {
                backoff = timeout ? TIMEOUT_BACKOFF_NANOS : FIRST_BACKOFF_NANOS;
            }
            down = true;
            probing = false;
            downUntil = now + backoff;
            return true;
        }

        /** When a down endpoint may be probed again ({@code now} or earlier when it may be now). */
        synchronized long downUntil() {
            return down ? downUntil : Long.MIN_VALUE;
        }

        synchronized String state() {
            return !down ? "up" : probing ? "probing" : "down";
        }

        synchronized String lastFailure() {
            return lastFailure;
        }
    }

    /** One endpoint as this operation uses it: its blob client and what was sent to it. */
    static final class Target {
        final URI uri;
        final boolean readOnly;
        final Health health;
        /** The settings of this endpoint alone, for messages. */
        final AzureSettings settings;
        final BlockBlobAsyncClient blob;
        final AtomicLong requests = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        final AtomicLong markedDown = new AtomicLong();
        final AtomicInteger active = new AtomicInteger();
        private long[] latencies = new long[16];
        private int latencyCount;

        Target(URI uri, boolean readOnly, Health health, AzureSettings settings, BlockBlobAsyncClient blob) {
            this.uri = uri;
            this.readOnly = readOnly;
            this.health = health;
            this.settings = settings;
            this.blob = blob;
        }

        synchronized void latency(long nanos) {
            if (latencyCount == latencies.length) {
                latencies = Arrays.copyOf(latencies, latencyCount * 2);
            }
            latencies[latencyCount++] = nanos;
        }

        synchronized double percentileMillis(double p) {
            if (latencyCount == 0) {
                return 0;
            }
            long[] sorted = Arrays.copyOf(latencies, latencyCount);
            Arrays.sort(sorted);
            return sorted[(int) Math.min(latencyCount - 1, Math.ceil(p * latencyCount) - 1)] / 1e6;
        }

        EndpointStatistics statistics() {
            return new EndpointStatistics(uri.toString(), requests.get(), bytes.get(), errors.get(), active.get(),
                    percentileMillis(0.50), percentileMillis(0.99), markedDown.get(), health.state(),
                    health.lastFailure());
        }
    }

    private final AzureSettings settings;
    private final AzureLocation where;
    private final List<Target> targets;
    private final AtomicInteger next = new AtomicInteger();

    AzureEndpoints(AzureSettings settings, AzureLocation where, List<Target> targets) {
        this.settings = settings;
        this.where = where;
        this.targets = List.copyOf(targets);
    }

    /** The settings of the whole set. */
    AzureSettings settings() {
        return settings;
    }

    /**
     * Runs {@code op} (a blocking call of the SDK) on the blob client of an endpoint that takes it ({@code write}:
     * not a read-only secondary), on another when that endpoint fails, and counts {@code bytes} to the one
     * that served it.
     *
     * @param what the request for messages ({@code stage block 3 (bytes ...) of})
     * @throws IOException the answer's error ({@link AzureErrors#io}) when an endpoint answered with one; when
     *         every endpoint failed, one line naming each and its cause (of a lone endpoint, its error as is)
     */
    <T> T call(String what, boolean write, long bytes, Function<BlockBlobAsyncClient, T> op) throws IOException {
        Set<Target> tried = new HashSet<>();
        List<String> failures = new ArrayList<>();
        while (true) {
            Target t = pick(write, tried);
            if (t == null) {
                throw everyEndpointFailed(what, write, failures);
            }
            tried.add(t);
            t.requests.incrementAndGet();
            t.active.incrementAndGet();
            long started = System.nanoTime();
            try {
                T out = op.apply(t.blob);
                t.latency(System.nanoTime() - started);
                t.bytes.addAndGet(bytes);
                t.health.answered();
                return out;
            } catch (RuntimeException e) {
                t.errors.incrementAndGet();
                Throwable c = Exceptions.unwrap(e);
                if (!endpointFault(c)) {
                    t.health.answered();
                    throw AzureErrors.io(what, where, t.settings, e);
                }
                String cause = AzureErrors.describe(c, t.settings);
                if (!cause.contains(t.uri.toString())) {
                    cause = cause + " (endpoint " + t.uri + ")";
                }
                if (t.health.failed(cause, timedOut(c), System.nanoTime())) {
                    t.markedDown.incrementAndGet();
                    if (targets.size() > 1) {
                        LOG.warn("endpoint {} marked down: {} {} failed: {}", t.uri, what, where,
                                settings.mask(cause));
                    }
                }
                if (targets.size() == 1) {
                    throw AzureErrors.io(what, where, t.settings, e);
                }
                failures.add(cause);
            } finally {
                t.active.decrementAndGet();
            }
        }
    }

    /**
     * The next endpoint round robin among those not tried that take the request and are up (or due a probe);
     * when none is and this request has tried none, the one whose back-off ends first (so that a set that is
     * all down fails each request after one try, not at once, and a lone endpoint is always tried).
     */
    private Target pick(boolean write, Set<Target> tried) {
        int n = targets.size();
        int start = Math.floorMod(next.getAndIncrement(), n);
        long now = System.nanoTime();
        Target soonest = null;
        for (int i = 0; i < n; i++) {
            Target t = targets.get((start + i) % n);
            if (tried.contains(t) || write && t.readOnly) {
                continue;
            }
            if (t.health.admit(now)) {
                return t;
            }
            if (soonest == null || t.health.downUntil() - soonest.health.downUntil() < 0) {
                soonest = t;
            }
        }
        return tried.isEmpty() ? soonest : null;
    }

    private IOException everyEndpointFailed(String what, boolean write, List<String> failures) {
        List<String> each = new ArrayList<>(failures);
        for (Target t : targets) {
            if (write && t.readOnly) {
                continue;
            }
            boolean named = failures.stream().anyMatch(f -> f.contains(t.uri.toString()));
            if (!named) {
                each.add(String.format("%s down (%s)", t.uri, t.health.lastFailure().isEmpty() ? "no cause noted"
                        : t.health.lastFailure()));
            }
        }
        long n = targets.stream().filter(t -> !write || !t.readOnly).count();
        String which = n == 1 ? "the one endpoint that takes " + (write ? "writes" : "reads")
                : String.format("every one of the %d endpoints that take %s", n, write ? "writes" : "reads");
        return new IOException(settings.mask(String.format("%s %s: %s failed: %s", what, where, which,
                String.join("; ", each))));
    }

    /** Whether {@code t} is the endpoint's fault (no answer, or a 5xx after the SDK's tries), not the store's. */
    static boolean endpointFault(Throwable t) {
        if (t instanceof HttpResponseException h) {
            return h.getResponse() != null && h.getResponse().getStatusCode() >= 500;
        }
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof IOException || c instanceof TimeoutException
                    || c.getClass().getSimpleName().contains("Timeout")) {
                return true;
            }
        }
        return false;
    }

    private static boolean timedOut(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof TimeoutException || c.getClass().getSimpleName().contains("Timeout")) {
                return true;
            }
        }
        return false;
    }

    /** What each endpoint did for this operation; empty for a lone endpoint (as the S3 backends report). */
    List<EndpointStatistics> statistics() {
        return settings.isEndpointSet() ? targets.stream().map(Target::statistics).toList() : List.of();
    }

    /** The endpoints for descriptions: the one, or {@code n endpoints [...] (read-only [...])}. */
    String description() {
        if (!settings.isEndpointSet()) {
            return settings.endpoint().toString();
        }
        return String.format("%d endpoints %s%s", targets.size(), settings.endpoints(), settings.secondaries().isEmpty()
                ? "" : ", read-only " + settings.secondaries());
    }
}
