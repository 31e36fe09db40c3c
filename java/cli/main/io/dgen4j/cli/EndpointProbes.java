package io.dgen4j.cli;

import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.S3Transport;
import io.dgen4j.s3.S3TransportFactory;
import io.dgen4j.storage.EndpointStatistics;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
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
 * HEAD-bucket probes of each endpoint, each through its own transport: what {@code dgen4j endpoints}
 * measures. Endpoints are probed at once (one thread each), an endpoint's probes one after the
 * other, so that each latency is one request's alone; a first, unmeasured request opens the
 * connection, so that the figures are those of a client in use.
 */
final class EndpointProbes {
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
     * @param kind      whose fault the failure is, null when none
     */
    record Probe(String endpoint, int attempted, int ok, List<Double> millis, String cause,
                 S3Transport.FailureKind kind) {
        boolean up() {
            return cause == null;
        }

        String state() {
            return up() ? "up" : "down";
        }

        /** The latency at quantile {@code q} (nearest rank), 0 when no probe succeeded. */
        double percentile(double q) {
            if (millis.isEmpty()) {
                return 0;
            }
            List<Double> sorted = millis.stream().sorted().toList();
            int rank = (int) Math.ceil(q * sorted.size());
            return sorted.get(Math.clamp(rank - 1, 0, sorted.size() - 1));
        }

        /** The figures as save and load report theirs. */
        EndpointStatistics statistics() {
            return new EndpointStatistics(endpoint, attempted, 0, attempted - ok, 0, percentile(0.50),
                    percentile(0.99), up() ? 0 : 1, state(), up() ? "" : cause);
        }

        /** One JSON object: the statistics' fields, then the probe's own. */
        Map<String, Object> toMap() {
            Map<String, Object> m = Json.object();
            m.putAll(statistics().toMap());
            m.put("probesOk", ok);
            m.put("failureKind", kind == null ? null : kind.name().toLowerCase(Locale.ROOT));
            return m;
        }
    }

    /** Probes each of {@code endpoints} (settings with one endpoint each) {@code probes} times, all at once. */
    static List<Probe> run(S3TransportFactory factory, List<S3Settings> endpoints, S3Location where, int probes,
            Duration timeout) throws InterruptedException {
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Probe>> futures = new ArrayList<>();
            for (S3Settings one : endpoints) {
                futures.add(pool.submit(() -> probe(factory, one, where, probes, timeout)));
            }
            List<Probe> out = new ArrayList<>();
            try {
                for (Future<Probe> f : futures) {
                    out.add(f.get());
                }
            } catch (InterruptedException e) {
                pool.shutdownNow();
                throw e;
            } catch (ExecutionException e) {
                pool.shutdownNow();
                throw new IllegalStateException("an endpoint probe failed unexpectedly: " + e.getCause(), e.getCause());
            }
            return out;
        }
    }

    /** The name of the settings' one endpoint, as configured. */
    static String name(S3Settings one) {
        return one.endpoint().map(URI::toString).orElse(one.endpointDescription());
    }

    private static Probe probe(S3TransportFactory factory, S3Settings one, S3Location where, int probes,
            Duration timeout) throws InterruptedException {
        String name = name(one);
        S3Transport t;
        try {
            t = factory.open(one);
        } catch (IOException | RuntimeException e) {
            return new Probe(name, 0, 0, List.of(), String.format("cannot create the %s client for %s: %s",
                    factory.backend(), name, Errors.describe(e)), S3Transport.FailureKind.ENDPOINT);
        }
        List<Double> millis = new ArrayList<>();
        try (t) {
            // request 0 opens the connection (and warms the client): its latency is not a probe's
            for (int i = 0; i <= probes; i++) {
                long start = System.nanoTime();
                CompletableFuture<Void> head;
                try {
                    head = t.headBucket(where.bucket());
                } catch (RuntimeException e) { // a transport that throws instead of failing its future
                    head = CompletableFuture.failedFuture(e);
                }
                try {
                    head.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                    if (i > 0) {
                        millis.add((System.nanoTime() - start) / 1e6);
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
