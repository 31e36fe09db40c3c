package io.dgen4j.aws;

import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.S3Transport;
import io.dgen4j.s3.S3TransportFactory;
import java.io.IOException;

/**
 * Makes the {@code aws} backend's {@link S3Transport}s: one SDK async client per endpoint, built
 * with these {@link AwsOptions} and this many connections. Registered with {@code ServiceLoader}
 * (defaults: no options, 64 connections); the provider makes its own per request, equal by value, so
 * that equal ones share a pool of clients.
 *
 * @param options        hooks applied to each client
 * @param maxConnections connections per client (per endpoint)
 */
public record AwsTransportFactory(AwsOptions options, int maxConnections) implements S3TransportFactory {
    /** Checks the fields. */
    public AwsTransportFactory {
        java.util.Objects.requireNonNull(options, "options");
        if (maxConnections < 1) {
            throw new IllegalArgumentException("connections must be >= 1, got " + maxConnections);
        }
    }

    /** The service loader's constructor: no options, 64 connections per endpoint. */
    public AwsTransportFactory() {
        this(AwsOptions.defaults(), 64);
    }

    @Override
    public String backend() {
        return AwsStorageProvider.NAME;
    }

    /**
     * A transport for the one endpoint of {@code settings}.
     *
     * @throws IOException when the CA bundle cannot be read
     */
    @Override
    public S3Transport open(S3Settings settings) throws IOException {
        return new AwsTransport(AwsClients.build(settings, options, maxConnections), settings);
    }
}
