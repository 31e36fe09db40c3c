package io.dgen4j.s3.internal;

import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.spi.S3Transport;
import io.dgen4j.s3.spi.S3TransportFactory;
import java.io.IOException;

/**
 * One endpoint of a pool: its place in the set, its storage session's health of it, and its transport,
 * made from the pool's {@link S3TransportFactory.Group} on the endpoint's first request and reused
 * by every later one (an endpoint never used costs no client).
 */
final class Endpoint {
    private final int index;
    private final String name;
    private final S3Settings settings;
    private final EndpointHealth health;
    private final S3TransportFactory.Group group;
    private volatile S3Transport transport;

    /**
     * @param index    its place in the set (0-based)
     * @param name     the endpoint as configured, e.g. {@code http://127.0.0.1:9000}
     * @param settings the settings with this endpoint alone
     * @param group    what makes its transport
     * @param health   its session's health of it
     */
    Endpoint(int index, String name, S3Settings settings, S3TransportFactory.Group group, EndpointHealth health) {
        this.index = index;
        this.name = name;
        this.settings = settings;
        this.group = group;
        this.health = health;
    }

    int index() {
        return index;
    }

    String name() {
        return name;
    }

    S3Settings settings() {
        return settings;
    }

    EndpointHealth health() {
        return health;
    }

    /**
     * The backend's calls to this endpoint, made now if this is the first use.
     *
     * @throws IOException when the transport cannot be made (the next call tries again)
     */
    S3Transport transport() throws IOException {
        S3Transport t = transport;
        if (t == null) {
            synchronized (this) {
                t = transport;
                if (t == null) {
                    transport = t = java.util.Objects.requireNonNull(group.open(settings), "transport");
                }
            }
        }
        return t;
    }

    /** The transport if it was made, else null. */
    S3Transport opened() {
        return transport;
    }

    @Override
    public String toString() {
        return name;
    }
}
