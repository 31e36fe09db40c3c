package io.dgen4j.aws;

import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.internal.RoutedClient;
import io.dgen4j.s3.spi.S3Transport;
import io.dgen4j.s3.spi.S3TransportFactory;
import java.io.IOException;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * Makes the {@code aws} backend's {@link S3Transport}s: one SDK async client per endpoint set
 * (each endpoint's transport a view of it, see {@link #group}), built with these {@link AwsOptions}
 * and this many connections per endpoint. {@link AwsClient} makes one per request, equal by value, so
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

    @Override
    public String backend() {
        return AwsClient.NAME;
    }

    /**
     * A transport for the one endpoint of {@code settings}.
     *
     * @throws IOException when the CA bundle cannot be read
     */
    @Override
    public S3Transport open(S3Settings settings) throws IOException {
        S3AsyncClient client = AwsClients.build(settings, options, maxConnections);
        AwsRangedGets.Shared gets = rangedGets(settings);
        return new AwsTransport(client, settings, gets == null ? null : gets.own(), gets);
    }

    /**
     * The sync client of the ranged GETs (made on the first GET), unless the options customize the
     * async client: then it serves them.
     */
    private AwsRangedGets.Shared rangedGets(S3Settings settings) {
        return options.customizesBuilder() ? null
                : new AwsRangedGets.Shared(() -> AwsClients.buildSync(settings, options, maxConnections));
    }

    /**
     * One SDK client for every endpoint of {@code settings}, built now for the first (its Netty HTTP
     * client keeps {@code maxConnections} per endpoint), and each endpoint's transport a view of it
     * that sends its requests to that endpoint ({@link RoutedClient}).
     *
     * @throws IOException when the CA bundle cannot be read
     */
    @Override
    public Group group(S3Settings settings) throws IOException {
        S3Settings first = settings.perEndpoint().getFirst();
        S3AsyncClient shared = AwsClients.build(first, options, maxConnections);
        AwsRangedGets.Shared gets = rangedGets(first);
        return new Group() {
            @Override
            public S3Transport open(S3Settings one) {
                // the first endpoint is the client's own: its requests need no routing
                boolean own = one.endpoint().equals(first.endpoint());
                return new AwsTransport(new RoutedClient(shared, own ? null : one.endpoint().orElseThrow()), one,
                        gets == null ? null : own ? gets.own() : gets.to(one.endpoint().orElseThrow()), null);
            }

            @Override
            public void close() {
                shared.close();
                if (gets != null) {
                    gets.close();
                }
            }
        };
    }
}
