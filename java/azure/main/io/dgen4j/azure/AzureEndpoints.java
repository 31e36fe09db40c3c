package io.dgen4j.azure;

import com.azure.core.exception.HttpResponseException;
import com.azure.storage.blob.specialized.BlockBlobAsyncClient;
import io.dgen4j.storage.EndpointBackoff;
import io.dgen4j.storage.EndpointStatistics;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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
 * URI in the provider, around an {@link EndpointBackoff}, the circuit breaker the S3 backends keep too); the
 * figures are this operation's ({@link #statistics()}).
 */
final class AzureEndpoints {
    private static final Logger LOG = LoggerFactory.getLogger(AzureEndpoints.class);
    /**
     * One endpoint as a storage session sees it, shared by every save and load of the session: whether it
     * takes requests (the circuit breaker the S3 backends keep too) and the cause of its last failure.
     */
    static final class Health {
        final EndpointBackoff backoff = new EndpointBackoff();
        private volatile String lastFailure = "";

        String state() {
            return backoff.state().label();
        }

        String lastFailure() {
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
            Picked p = pick(write, tried);
            if (p == null) {
                throw everyEndpointFailed(what, write, failures);
            }
            Target t = p.target();
            tried.add(t);
            t.requests.incrementAndGet();
            t.active.incrementAndGet();
            long started = System.nanoTime();
            boolean judged = false;
            try {
                T out = op.apply(t.blob);
                t.latency(System.nanoTime() - started);
                t.bytes.addAndGet(bytes);
                t.health.backoff.answered(p.how());
                judged = true;
                return out;
            } catch (RuntimeException e) {
                t.errors.incrementAndGet();
                Throwable c = Exceptions.unwrap(e);
                if (!endpointFault(c)) {
                    t.health.backoff.answered(p.how());
                    judged = true;
                    throw AzureErrors.io(what, where, t.settings, e);
                }
                String cause = AzureErrors.describe(c, t.settings);
                if (!cause.contains(t.uri.toString())) {
                    cause = cause + " (endpoint " + t.uri + ")";
                }
                t.health.lastFailure = cause;
                judged = true;
                if (t.health.backoff.failed(p.how(), System.nanoTime(), timedOut(c))) {
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
                if (!judged) { // an Error or an interrupt: no verdict on the endpoint, a probe's turn goes back
                    t.health.backoff.released(p.how(), System.nanoTime());
                }
            }
        }
    }

    /** An endpoint chosen for one request, and how its back-off let the request through. */
    private record Picked(Target target, EndpointBackoff.Admission how) {}

    /**
     * The next endpoint round robin among those not tried that take the request and are up (or due a probe);
     * when none is and this request has tried none, the one whose back-off ends first (so that a set that is
     * all down fails each request after one try, not at once, and a lone endpoint is always tried).
     */
    private Picked pick(boolean write, Set<Target> tried) {
        int n = targets.size();
        int start = Math.floorMod(next.getAndIncrement(), n);
        long now = System.nanoTime();
        Target soonest = null;
        for (int i = 0; i < n; i++) {
            Target t = targets.get((start + i) % n);
            if (tried.contains(t) || write && t.readOnly) {
                continue;
            }
            EndpointBackoff.Admission how = t.health.backoff.admit(now);
            if (how != null) {
                return new Picked(t, how);
            }
            if (soonest == null || t.health.backoff.backoffLeft(now) < soonest.health.backoff.backoffLeft(now)) {
                soonest = t;
            }
        }
        return tried.isEmpty() && soonest != null ? new Picked(soonest, soonest.health.backoff.force(now)) : null;
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
