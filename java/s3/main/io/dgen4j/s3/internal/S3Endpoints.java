package io.dgen4j.s3.internal;

import io.dgen4j.s3.EndpointSet;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.spi.S3Transport;
import io.dgen4j.s3.spi.S3TransportFactory;
import io.dgen4j.storage.EndpointBackoff;
import io.dgen4j.storage.EndpointStatistics;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The endpoints one backend spreads its requests over, with one {@link S3Transport} per endpoint,
 * made on the endpoint's first request from one {@link S3TransportFactory.Group} (the HTTP client,
 * event loops and connections the backend's transports share) and reused, and the choice of
 * endpoint for each request: the
 * {@link EndpointSet}'s strategy ({@link S3Settings#endpointSet()}; without a set, the one
 * endpoint), skipping endpoints that are down (see {@link #choose}). The endpoints are assumed to be
 * gateways of one cluster: an upload created through one takes parts and is completed through
 * another ({@link EndpointSet#pinUpload()} keeps each object on one endpoint where they are not).
 *
 * <p>A storage session's S3 provider keeps its pools in {@link S3Pools}, one per backend, settings
 * (all but the part size and requests in flight, which do not touch the clients) and variant, so that
 * repeated saves reuse the clients, and closes them when the session closes. Endpoint health and the
 * counts of requests in flight are per endpoint URI, shared by every pool of that {@link S3Pools}
 * (a pool {@linkplain #open(S3TransportFactory, S3Settings) opened alone} has its own).
 *
 * {@snippet :
 * try (S3Pools pools = new S3Pools()) {
 *     S3Endpoints pool = pools.pool(factory, settings, null);
 *     try (MultipartWriter w = MultipartWriter.open(pool, where, settings, request, 8)) { ... }
 * }
 * }
 */
public final class S3Endpoints implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(S3Endpoints.class);
    private final String backend;
    private final S3Settings settings;
    private final List<Endpoint> endpoints;
    private final EndpointSet.Strategy strategy;
    private final boolean pinUpload;
    private final int rank;
    private final AtomicInteger next = new AtomicInteger();
    private final LeftOpenUploads leftOpen;
    /** Writers and readers of this pool open now (a writer until it is committed or aborted and closed). */
    private final AtomicInteger objects = new AtomicInteger();
    private final S3TransportFactory.Group group;
    /** Time spent making the shared client and the transports (see {@link #clientStartNanos()}). */
    private final java.util.concurrent.atomic.AtomicLong clientStartNanos;
    private volatile boolean closed;

    private S3Endpoints(String backend, S3Settings settings, List<Endpoint> endpoints, S3TransportFactory.Group group,
                        java.util.concurrent.atomic.AtomicLong clientStartNanos) {
        this.backend = backend;
        this.clientStartNanos = clientStartNanos;
        this.group = group;
        this.settings = settings;
        this.endpoints = List.copyOf(endpoints);
        EndpointSet set = settings.endpointSet().orElse(null);
        this.strategy = set == null ? EndpointSet.Strategy.ROUND_ROBIN : set.strategy();
        this.pinUpload = set != null && set.pinUpload();
        this.rank = set == null ? 0 : set.rank();
        this.leftOpen = new LeftOpenUploads(this);
    }

    /**
     * A new pool, not shared, over every endpoint of {@code settings} ({@link S3Settings#perEndpoint()}):
     * what their transports share is made now ({@link S3TransportFactory#group}), each endpoint's
     * transport on its first request; the caller closes the pool.
     *
     * @throws IOException when the backend's shared client cannot be created
     */
    public static S3Endpoints open(S3TransportFactory factory, S3Settings settings) throws IOException {
        Map<String, EndpointHealth> health = new java.util.HashMap<>();
        return open(factory, settings, name -> health.computeIfAbsent(name, EndpointHealth::new));
    }

    /** {@link #open(S3TransportFactory, S3Settings)} with each endpoint's health from {@code health}. */
    static S3Endpoints open(S3TransportFactory factory, S3Settings settings,
                            java.util.function.Function<String, EndpointHealth> health) throws IOException {
        List<S3Settings> each = settings.perEndpoint();
        long started = System.nanoTime();
        S3TransportFactory.Group made = Objects.requireNonNull(factory.group(settings), "group");
        java.util.concurrent.atomic.AtomicLong startNanos = new java.util.concurrent.atomic.AtomicLong(
                System.nanoTime() - started);
        S3TransportFactory.Group group = new TimedGroup(made, startNanos);
        List<Endpoint> list = new ArrayList<>(each.size());
        for (int i = 0; i < each.size(); i++) {
            S3Settings one = each.get(i);
            String name = one.endpointDescription();
            list.add(new Endpoint(i, name, one, group, health.apply(name)));
        }
        return new S3Endpoints(factory.backend(), settings, list, group, startNanos);
    }

    /** A group that adds the time it spends making transports to {@code nanos}. */
    private record TimedGroup(S3TransportFactory.Group made, java.util.concurrent.atomic.AtomicLong nanos)
            implements S3TransportFactory.Group {
        @Override
        public S3Transport open(S3Settings one) throws IOException {
            long started = System.nanoTime();
            try {
                return made.open(one);
            } finally {
                nanos.addAndGet(System.nanoTime() - started);
            }
        }

        @Override
        public void close() {
            made.close();
        }
    }

    /**
     * Nanoseconds this pool has spent starting clients so far: its shared client, then each
     * endpoint's transport as its first request made it (a report's "client start").
     */
    public long clientStartNanos() {
        return clientStartNanos.get();
    }

    /** A writer or reader of this pool was opened. */
    void objectOpened() {
        objects.incrementAndGet();
    }

    /** A writer or reader of this pool was closed. */
    void objectClosed() {
        objects.decrementAndGet();
    }

    /** Whether {@link #close()} was called. */
    boolean isClosed() {
        return closed;
    }

    /** How many endpoints have their transport made. */
    int transportsMade() {
        int made = 0;
        for (Endpoint ep : endpoints) {
            made += ep.opened() == null ? 0 : 1;
        }
        return made;
    }

    /** The backend's name ({@code aws}, {@code crt}, {@code minio}). */
    public String backend() {
        return backend;
    }

    /** The settings the transports were made from. */
    public S3Settings settings() {
        return settings;
    }

    /** The endpoints, in the set's order. */
    public List<String> endpoints() {
        return endpoints.stream().map(Endpoint::name).toList();
    }

    /** The number of endpoints. */
    public int size() {
        return endpoints.size();
    }

    /** How requests pick their endpoint. */
    public EndpointSet.Strategy strategy() {
        return strategy;
    }

    /** Whether every request of one object goes to the endpoint of its first request. */
    public boolean pinUpload() {
        return pinUpload;
    }

    /** The endpoints for messages: the one, or {@code n endpoints (strategy): [...]}. */
    public String description() {
        return settings.endpointDescription();
    }

    /**
     * The figures of every request to each endpoint (of every pool that shares its health), with
     * its state now.
     */
    public List<EndpointStatistics> statistics() {
        return endpoints.stream().map(ep -> ep.health().figures().snapshot(ep.name(), stateLabel(ep.health())))
                .toList();
    }

    /** Uploads that no endpoint let this process abort yet, as {@code upload <id> of s3://b/k}. */
    public List<String> uploadsLeftOpen() {
        return leftOpen.list();
    }

    /** For each upload left open, the AWS CLI command that aborts it: its real bucket, key, upload id and endpoint. */
    public List<String> abortCommands() {
        return leftOpen.abortCommands();
    }

    List<Endpoint> all() {
        return endpoints;
    }

    LeftOpenUploads leftOpen() {
        return leftOpen;
    }

    static String stateLabel(EndpointHealth h) {
        return h.state().label();
    }

    /** An endpoint chosen for one request, and how it was let through. */
    record Choice(Endpoint endpoint, EndpointBackoff.Admission admission) {}

    /**
     * The endpoint for the next request, by the strategy, among those not in {@code excluded} that
     * take requests now (up, or down with the back-off over: then this request is the half-open
     * probe); null when there is none.
     */
    Choice choose(java.util.Set<Endpoint> excluded) {
        int n = endpoints.size();
        for (int attempt = 0; attempt < 2 * n + 2; attempt++) {
            long now = System.nanoTime();
            Endpoint pick = switch (strategy) {
                case ROUND_ROBIN -> roundRobin(excluded, now);
                case LEAST_CONNECTIONS -> leastConnections(excluded, now);
                case RANK -> {
                    Endpoint mine = endpoints.get(rank % n);
                    yield !excluded.contains(mine) && mine.health().usable(now) ? mine : roundRobin(excluded, now);
                }
            };
            if (pick == null) {
                return null;
            }
            EndpointBackoff.Admission a = pick.health().admit(now);
            if (a != null) {
                return new Choice(pick, a);
            }
            // another request took the probe meanwhile: choose again
        }
        return null;
    }

    private Endpoint roundRobin(java.util.Set<Endpoint> excluded, long now) {
        int n = endpoints.size();
        int start = Math.floorMod(next.getAndIncrement(), n);
        for (int i = 0; i < n; i++) {
            Endpoint e = endpoints.get((start + i) % n);
            if (!excluded.contains(e) && e.health().usable(now)) {
                return e;
            }
        }
        return null;
    }

    /** Fewest requests in flight (over the session's pools); among equals, the first from a rotating start. */
    private Endpoint leastConnections(java.util.Set<Endpoint> excluded, long now) {
        int n = endpoints.size();
        int start = Math.floorMod(next.getAndIncrement(), n);
        Endpoint best = null;
        int fewest = Integer.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            Endpoint e = endpoints.get((start + i) % n);
            int active = e.health().active();
            if (active < fewest && !excluded.contains(e) && e.health().usable(now)) {
                best = e;
                fewest = active;
            }
        }
        return best;
    }

    /** Closes the transports made so far, then what they share; requests still in flight fail. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        leftOpen.close();
        for (Endpoint ep : endpoints) {
            S3Transport t = ep.opened();
            if (t != null) {
                try {
                    t.close();
                } catch (RuntimeException e) {
                    LOG.warn("closing the S3 transport of {} failed: {}", ep.name(), e.toString());
                }
            }
        }
        try {
            group.close();
        } catch (RuntimeException e) {
            LOG.warn("closing the {} client shared by {} failed: {}", backend, description(), e.toString());
        }
    }

    @Override
    public String toString() {
        return backend + " " + description();
    }
}
