package io.dgen4j.s3.internal;

import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.spi.S3TransportFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The endpoint pools of one storage session's S3 provider: one {@link S3Endpoints} per backend,
 * client settings and variant, opened on first use and reused by every later save and load of the
 * session, and the health of each endpoint URI, shared by those pools (a request that finds an
 * endpoint down spares the session's other pools the same wait). Nothing is shared with another
 * session's pools; {@link #close()} closes them all.
 */
public final class S3Pools implements AutoCloseable {
    /** What a pool is made from. */
    private record Key(String backend, S3Settings settings, Object variant) {}

    /** Guarded by {@code this}; kept after {@link #close()} so that what is left open can still be listed. */
    private final Map<Key, S3Endpoints> pools = new HashMap<>();
    private final Map<String, EndpointHealth> health = new HashMap<>();
    private boolean closed;

    /**
     * The pool for this backend, these settings and {@code variant} (backend options that change how
     * its transports are built, equal by value; null for none), opened on first use.
     *
     * @throws IllegalStateException when these pools are closed
     * @throws IOException when the backend's shared client cannot be created
     */
    public synchronized S3Endpoints pool(S3TransportFactory factory, S3Settings settings, Object variant)
            throws IOException {
        if (closed) {
            throw new IllegalStateException("the S3 clients of this storage session are closed: open a new session");
        }
        Key key = new Key(factory.backend(), clientSettings(settings), variant);
        S3Endpoints pool = pools.get(key);
        if (pool == null || pool.isClosed()) {
            pool = S3Endpoints.open(factory, key.settings(), this::health);
            pools.put(key, pool);
        }
        return pool;
    }

    private synchronized EndpointHealth health(String endpoint) {
        return health.computeIfAbsent(endpoint, EndpointHealth::new);
    }

    private synchronized List<S3Endpoints> all() {
        return List.copyOf(pools.values());
    }

    /** The uploads that no endpoint let these pools abort yet (as {@code upload <id> of s3://b/k}), still aborted in the background. */
    public List<String> uploadsLeftOpen() {
        List<String> open = new ArrayList<>();
        for (S3Endpoints p : all()) {
            open.addAll(p.uploadsLeftOpen());
        }
        return open;
    }

    /** For each of {@link #uploadsLeftOpen()}, the AWS CLI command that aborts it. */
    public List<String> abortCommands() {
        List<String> commands = new ArrayList<>();
        for (S3Endpoints p : all()) {
            commands.addAll(p.abortCommands());
        }
        return commands;
    }

    /**
     * The endpoints of the open pools, and how many of them have a transport made (for messages
     * about memory: each takes some heap, see {@code docs/ENDPOINTS.md}).
     *
     * @return {endpoints, transports made}
     */
    public int[] endpointsOpen() {
        int endpoints = 0;
        int made = 0;
        for (S3Endpoints p : all()) {
            if (!p.isClosed()) {
                endpoints += p.size();
                made += p.transportsMade();
            }
        }
        return new int[] {endpoints, made};
    }

    /** Closes the pools of {@code backend}; later requests of it open new ones. */
    public void close(String backend) {
        List<S3Endpoints> closing = new ArrayList<>();
        synchronized (this) {
            pools.entrySet().removeIf(e -> {
                if (e.getKey().backend().equals(backend)) {
                    closing.add(e.getValue());
                    return true;
                }
                return false;
            });
        }
        closing.forEach(S3Endpoints::close);
    }

    /** Closes every pool (their clients, and the background aborts of uploads left open); later requests are refused. */
    @Override
    public void close() {
        List<S3Endpoints> closing;
        synchronized (this) {
            closed = true;
            closing = List.copyOf(pools.values());
        }
        closing.forEach(S3Endpoints::close);
    }

    /** Whether {@link #close()} was called. */
    public synchronized boolean isClosed() {
        return closed;
    }

    /** The settings a client depends on: these without the part size and requests in flight. */
    private static S3Settings clientSettings(S3Settings s) {
        return s.toBuilder().partSize(0).maxInFlight(0).build();
    }
}
