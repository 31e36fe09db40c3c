package io.dgen4j.cli.s3;

import io.dgen4j.cli.Errors;
import io.dgen4j.cli.report.Progress;
import io.dgen4j.json.JsonWriter;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.S3Timeouts;
import io.dgen4j.s3.spi.S3Transport;
import io.dgen4j.s3.spi.S3TransportFactory;
import io.dgen4j.storage.EndpointStatistics;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * HEAD-bucket probes of each endpoint of a set, each through its own transport (the transports of
 * the set share one client, {@link S3TransportFactory#group}): what {@code dgen4j endpoints}
 * measures. At most {@code parallel} endpoints are probed at once, on threads of their own (a
 * lookup of a host that does not resolve blocks its thread, not the others), an endpoint's probes
 * one after the other, so that each latency is one request's alone; a first, unmeasured request
 * opens the connection, so that the figures are those of a client in use. Whatever the endpoints
 * do, the run ends by its deadline with what it found: an endpoint still being probed then, or not
 * yet reached, is reported as not answered within the deadline.
 */
public final class EndpointProbes {
    /** {@link Probe#state()} of an endpoint the deadline cut short. */
    static final String LATE = "unknown";

    private EndpointProbes() {}

    /**
     * What the probes of one endpoint found.
     *
     * @param endpoint  as configured
     * @param attempted probes sent (they stop at the first failure: the next would fail alike; a
     *                  failure of the unmeasured first request counts as one probe sent)
     * @param ok        probes answered with success
     * @param millis    each successful probe's latency, in order
     * @param cause     the failure's one-line cause, null when every probe succeeded
     * @param kind      whose fault the failure is, null when none (or when the deadline cut it short)
     * @param late      whether the deadline came before the endpoint's probes ended (then {@code cause} says so)
     */
    public record Probe(String endpoint, int attempted, int ok, List<Double> millis, String cause,
                 S3Transport.FailureKind kind, boolean late) {
        /** A probe that ended before the deadline. */
        public Probe(String endpoint, int attempted, int ok, List<Double> millis, String cause, S3Transport.FailureKind kind) {
            this(endpoint, attempted, ok, millis, cause, kind, false);
        }

        public boolean up() {
            return cause == null;
        }

        public String state() {
            return late ? LATE : up() ? "up" : "down";
        }

        /** The latency at quantile {@code q} (nearest rank), 0 when no probe succeeded. */
        public double percentile(double q) {
            if (millis.isEmpty()) {
                return 0;
            }
            List<Double> sorted = millis.stream().sorted().toList();
            int rank = (int) Math.ceil(q * sorted.size());
            return sorted.get(Math.clamp(rank - 1, 0, sorted.size() - 1));
        }

        /** The figures as save and load report theirs. */
        EndpointStatistics statistics() {
            return new EndpointStatistics(endpoint, attempted, 0, late ? 0 : attempted - ok, 0, percentile(0.50),
                    percentile(0.99), up() || late ? 0 : 1, state(), up() ? "" : cause);
        }

        /** One JSON object: the statistics' fields, then the probe's own. */
        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.putAll(statistics().toMap());
            m.put("probesOk", ok);
            m.put("failureKind", kind == null ? null : kind.name().toLowerCase(Locale.ROOT));
            return m;
        }
    }

    /** What one endpoint's probes did so far, read at the deadline while they may still run. */
    private static final class Progress {
        private final String name;
        private final List<Double> millis = new ArrayList<>();
        private int attempted;
        private boolean started;
        private CompletableFuture<?> inFlight;

        Progress(String name) {
            this.name = name;
        }

        synchronized void started() {
            started = true;
        }

        synchronized void sent(CompletableFuture<?> f) {
            attempted++;
            inFlight = f;
        }

        synchronized void answered(double ms) {
            millis.add(ms);
        }

        /** The probe as the deadline finds it; cancels its request in flight. */
        synchronized Probe late(Duration deadline, int parallel) {
            if (inFlight != null) {
                inFlight.cancel(true);
            }
            String why = started
                    ? String.format(Locale.ROOT, "not answered within the deadline of %d s (--deadline)", deadline.toSeconds())
                    : String.format(Locale.ROOT, "not probed within the deadline of %d s (--deadline; %d endpoints are "
                            + "probed at once, --parallel)", deadline.toSeconds(), parallel);
            // the first request is not a measured probe: what was measured is all but it
            return new Probe(name, Math.max(attempted - 1, 0), millis.size(), List.copyOf(millis), why, null, true);
        }
    }

    /**
     * Probes each endpoint of {@code settings} ({@link S3Settings#perEndpoint()}) {@code probes}
     * times, {@code parallel} endpoints at once, and returns by {@code deadline} with a probe per
     * endpoint, in the set's order.
     */
    public static List<Probe> run(S3TransportFactory factory, S3Settings settings, S3Location where, int probes,
            Duration timeout, Duration deadline, int parallel) throws InterruptedException {
        long end = System.nanoTime() + deadline.toNanos();
        // A probe waits --timeout for its answer: the client's own read timers (first byte, idle) get
        // the same bound, or their defaults would fail a slow endpoint as down before --timeout.
        S3Timeouts t = settings.timeouts();
        settings = settings.toBuilder().timeouts(new S3Timeouts(t.connect(), timeout, timeout, t.retry())).build();
        List<S3Settings> each = settings.perEndpoint();
        S3TransportFactory.Group group;
        try {
            group = factory.group(settings);
        } catch (IOException | RuntimeException e) {
            String why = Errors.describe(e);
            return each.stream().map(one -> new Probe(name(one), 0, 0, List.of(), String.format(
                    "cannot create the %s client for %s: %s", factory.backend(), name(one), why),
                    S3Transport.FailureKind.ENDPOINT)).toList();
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(parallel, each.size()),
                Thread.ofPlatform().daemon().name("dgen4j-probe-", 0).factory());
        // set at the deadline: a probe not started by then does not start (a thread freed as the
        // deadline cancels its request would otherwise take the next)
        java.util.concurrent.atomic.AtomicBoolean over = new java.util.concurrent.atomic.AtomicBoolean();
        try {
            List<Progress> progress = new ArrayList<>(each.size());
            List<Future<Probe>> futures = new ArrayList<>(each.size());
            for (S3Settings one : each) {
                Progress p = new Progress(name(one));
                progress.add(p);
                futures.add(pool.submit(() -> over.get() ? null
                        : probe(group, factory.backend(), one, where, probes, timeout, p)));
            }
            pool.shutdown();
            pool.awaitTermination(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
            over.set(true);
            List<Probe> out = new ArrayList<>(each.size());
            for (int i = 0; i < futures.size(); i++) {
                Future<Probe> f = futures.get(i);
                Probe done = null;
                if (f.isDone()) {
                    try {
                        done = f.get();
                    } catch (ExecutionException e) {
                        if (!(e.getCause() instanceof java.util.concurrent.CancellationException)) {
                            throw new IllegalStateException("an endpoint probe failed unexpectedly: " + e.getCause(),
                                    e.getCause());
                        }
                    }
                }
                out.add(done != null ? done : progress.get(i).late(deadline, parallel));
            }
            return out;
        } finally {
            // the probes still running (a lookup that never returns) are left behind: they are
            // daemons, and their requests fail once the shared client is closed
            pool.shutdownNow();
            try {
                group.close();
            } catch (RuntimeException e) {
                // the probes' results are what matters here
            }
        }
    }

    /** The name of the settings' one endpoint, as configured. */
    static String name(S3Settings one) {
        return one.endpoint().map(URI::toString).orElse(one.endpointDescription());
    }

    private static Probe probe(S3TransportFactory.Group group, String backend, S3Settings one, S3Location where,
            int probes, Duration timeout, Progress progress) throws InterruptedException {
        String name = name(one);
        progress.started();
        S3Transport t;
        try {
            t = group.open(one);
        } catch (IOException | RuntimeException e) {
            return new Probe(name, 0, 0, List.of(), String.format("cannot create the %s client for %s: %s",
                    backend, name, Errors.describe(e)), S3Transport.FailureKind.ENDPOINT);
        }
        List<Double> millis = new ArrayList<>();
        try (t) {
            // request 0 opens the connection (and warms the client): its latency is not a probe's
            for (int i = 0; i <= probes; i++) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("the deadline passed");
                }
                long start = System.nanoTime();
                CompletableFuture<Void> head;
                try {
                    head = t.headBucket(where.bucket());
                } catch (RuntimeException e) { // a transport that throws instead of failing its future
                    head = CompletableFuture.failedFuture(e);
                }
                progress.sent(head);
                try {
                    head.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                    if (i > 0) {
                        double ms = (System.nanoTime() - start) / 1e6;
                        millis.add(ms);
                        progress.answered(ms);
                    }
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause() == null ? e : e.getCause();
                    return new Probe(name, Math.max(i, 1), Math.max(i - 1, 0), millis,
                            oneLine(t.describe("HeadBucket", where, cause)), t.classify(cause));
                } catch (TimeoutException e) {
                    head.cancel(true);
                    return new Probe(name, Math.max(i, 1), Math.max(i - 1, 0), millis,
                            String.format("HeadBucket of s3://%s at %s: no answer "
                            + "within %d s", where.bucket(), name, timeout.toSeconds()), S3Transport.FailureKind.ENDPOINT);
                } catch (InterruptedException e) {
                    head.cancel(true);
                    throw e;
                }
            }
        }
        return new Probe(name, probes, probes, millis, null, null);
    }

    private static String oneLine(IOException e) {
        String m = e.getMessage() == null || e.getMessage().isBlank() ? Errors.describe(e) : e.getMessage();
        return m.replaceAll("\\s*\\R\\s*", " ").strip();
    }
}
