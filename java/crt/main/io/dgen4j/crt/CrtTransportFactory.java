package io.dgen4j.crt;

import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.S3Transport;
import io.dgen4j.s3.S3TransportFactory;
import java.io.IOException;
import java.util.Objects;

/**
 * Makes the {@code crt} backend's {@link CrtTransport}s: one CRT-based client per endpoint set (see
 * {@link #group}), sized for this many requests in flight. Registered with {@code ServiceLoader} (sized for the settings'
 * requests in flight, else {@value CrtTransport#DEFAULT_IN_FLIGHT}); the provider makes its own per
 * request, equal by value, so that equal ones share the driver's pool of clients.
 */
public final class CrtTransportFactory implements S3TransportFactory {
    private final int inFlight;
    private final PartFault fault;

    /** The service loader's constructor. */
    public CrtTransportFactory() {
        this(0, null);
    }

    /**
     * @param inFlight requests in flight per client (endpoint); 0 for the settings', else the default
     * @param fault    a part to spoil in every upload (tests), or null
     */
    CrtTransportFactory(int inFlight, PartFault fault) {
        if (inFlight < 0) {
            throw new IllegalArgumentException("requests in flight must be >= 0, got " + inFlight);
        }
        this.inFlight = inFlight;
        this.fault = fault;
    }

    @Override
    public String backend() {
        return CrtStorageProvider.NAME;
    }

    /**
     * A transport for the one endpoint of {@code settings}.
     *
     * @throws IOException when the CRT does not load here, there are no credentials, or the CA
     *                     bundle cannot be used by this client
     */
    @Override
    public S3Transport open(S3Settings settings) throws IOException {
        int n = inFlight > 0 ? inFlight : settings.maxInFlight().orElse(CrtTransport.DEFAULT_IN_FLIGHT);
        return CrtTransport.open(settings, n, fault);
    }

    /**
     * One CRT-based client for every endpoint of {@code settings}, built now for the first and sized
     * for the requests in flight of the whole set (they are the writer's or reader's, wherever they
     * go), and each endpoint's transport a view of it that sends its requests to that endpoint
     * ({@link RoutedClient}): one native S3 client, event loop group, host resolver and TLS context
     * instead of one each per endpoint (~1.3 MiB of native memory and 2 threads each, measured).
     *
     * @throws IOException when the CRT does not load here, there are no credentials, or the CA
     *                     bundle cannot be used by this client
     */
    @Override
    public Group group(S3Settings settings) throws IOException {
        java.util.List<S3Settings> each = settings.perEndpoint();
        S3Settings first = each.getFirst();
        for (S3Settings one : each) {
            CrtClients.checkCaBundle(one); // an https endpoint anywhere in the set needs a usable bundle
        }
        int n = inFlight > 0 ? inFlight : settings.maxInFlight().orElse(CrtTransport.DEFAULT_IN_FLIGHT);
        software.amazon.awssdk.services.s3.S3AsyncClient shared = CrtTransport.client(first, n);
        return new Group() {
            @Override
            public S3Transport open(S3Settings one) {
                boolean own = one.endpoint().equals(first.endpoint()); // the client's own: no routing
                return new CrtTransport(new RoutedClient(shared, own ? null : one.endpoint().orElseThrow()), one,
                        fault);
            }

            @Override
            public void close() {
                shared.close();
            }
        };
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CrtTransportFactory f && inFlight == f.inFlight && Objects.equals(fault, f.fault);
    }

    @Override
    public int hashCode() {
        return Objects.hash(inFlight, fault);
    }

    @Override
    public String toString() {
        return "crt transports (the AWS CRT-based S3 client, one per endpoint set" + (inFlight > 0 ? ", " + inFlight
                + " requests in flight" : "") + (fault == null ? "" : ", spoiling part " + fault.part()) + ")";
    }
}
