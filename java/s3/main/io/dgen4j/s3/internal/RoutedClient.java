package io.dgen4j.s3.internal;

import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.services.s3.DelegatingS3AsyncClient;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.endpoints.S3EndpointProvider;
import software.amazon.awssdk.services.s3.model.S3Request;

/**
 * One endpoint's view of a client shared by a whole endpoint set: every request carries an endpoint
 * provider that resolves as the client's own would, with this endpoint in place of the client's
 * ({@code RequestOverrideConfiguration.endpointProvider}, which the SDK honours per request), so
 * that a thousand endpoints share one client, its HTTP connection pools (one per host), threads and
 * TLS context instead of each holding a client of its own. Closing it leaves the shared client open.
 *
 * <p>The aws and crt backends both use it (each over its own SDK client: Netty-based, CRT-based); for
 * the CRT-based client the endpoint reaches the native S3 client with each request, so one native
 * client, its connections per host and its buffer pool serve the whole set. The AWS SDK is an
 * optional dependency of this module (read only when a client module brings it): nothing else here
 * touches it.
 */
public final class RoutedClient extends DelegatingS3AsyncClient {
    private final S3EndpointProvider provider;

    /**
     * Requests of {@code shared} sent to {@code endpoint} ({@code http(s)://host[:port]}), or where
     * the client sends them when it is null (the endpoint the client was built for).
     */
    public RoutedClient(S3AsyncClient shared, URI endpoint) {
        super(shared);
        if (endpoint == null) {
            this.provider = null;
            return;
        }
        S3EndpointProvider base = shared.serviceClientConfiguration().endpointProvider()
                .filter(S3EndpointProvider.class::isInstance).map(S3EndpointProvider.class::cast)
                .orElseGet(S3EndpointProvider::defaultProvider);
        String url = endpoint.toString();
        this.provider = params -> base.resolveEndpoint(params.toBuilder().endpoint(url).build());
    }

    @Override
    protected <T extends S3Request, R> CompletableFuture<R> invokeOperation(T request,
            Function<T, CompletableFuture<R>> operation) {
        if (provider == null) {
            return operation.apply(request);
        }
        AwsRequestOverrideConfiguration o = request.overrideConfiguration()
                .map(AwsRequestOverrideConfiguration::toBuilder)
                .orElseGet(AwsRequestOverrideConfiguration::builder)
                .endpointProvider(provider).build();
        @SuppressWarnings("unchecked") // toBuilder().build() gives the request's own class
        T routed = (T) request.toBuilder().overrideConfiguration(o).build();
        return operation.apply(routed);
    }

    /** Leaves the shared client open: its group closes it. */
    @Override
    public void close() {
        // the group's
    }
}
