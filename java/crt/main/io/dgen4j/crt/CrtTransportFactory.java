package io.dgen4j.crt;

import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.internal.RoutedClient;
import io.dgen4j.s3.spi.S3Transport;
import io.dgen4j.s3.spi.S3TransportFactory;
import java.io.IOException;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * Makes the {@code crt} backend's {@link CrtTransport}s: one CRT-based client per endpoint set (see
 * {@link #group}), sized for this many requests in flight. {@link CrtClient} makes one per request, equal by value,
 * so that equal ones share the driver's pool of clients.
 */
public final class CrtTransportFactory implements S3TransportFactory {
    private final int inFlight;

    /** @param inFlight requests in flight per client (endpoint); 0 for the settings', else the default */
    CrtTransportFactory(int inFlight) {
        if (inFlight < 0) {
            throw new IllegalArgumentException("requests in flight must be >= 0, got " + inFlight);
        }
        this.inFlight = inFlight;
    }

    @Override
    public String backend() {
        return CrtClient.NAME;
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
        return CrtTransport.open(settings, n);
    }

    /**
     * The CRT-based clients of the endpoints of {@code settings}, each a view of a shared client
     * that sends its requests to its endpoint ({@link RoutedClient}): one native S3 client, TLS
     * context and buffer pool serve endpoints of distinct hosts, instead of one each per endpoint
     * (~1.2 MiB of native memory, ~35 KiB of heap and a thread each, measured). The CRT's native
     * client keeps one connection pool per host name, whatever the port (aws-c-s3 keys its endpoints
     * by host name alone), so endpoints that share a host on several ports cannot share a client:
     * the k-th endpoint of a host goes to client k, made on its first use (client 0 now, for the
     * first endpoint, so that a setting the CRT refuses fails here). A set of distinct hosts has one
     * client; 1,000 ports of one host have 1,000.
     *
     * @throws IOException when the CRT does not load here, there are no credentials, or the CA
     *                     bundle cannot be used by this client
     */
    @Override
    public Group group(S3Settings settings) throws IOException {
        java.util.List<S3Settings> each = settings.perEndpoint();
        for (S3Settings one : each) {
            CrtClients.checkCaBundle(one); // an https endpoint anywhere in the set needs a usable bundle
        }
        // each endpoint's client: how many endpoints before it share its host
        java.util.Map<String, Integer> slot = new java.util.HashMap<>();
        java.util.Map<String, Integer> perHost = new java.util.HashMap<>();
        java.util.List<S3Settings> firsts = new java.util.ArrayList<>();
        for (S3Settings one : each) {
            String host = one.endpoint().map(u -> u.getHost().toLowerCase(java.util.Locale.ROOT)).orElse("");
            int k = perHost.merge(host, 1, Integer::sum) - 1;
            slot.put(one.endpointDescription(), k);
            if (k == firsts.size()) {
                firsts.add(one);
            }
        }
        int n = inFlight > 0 ? inFlight : settings.maxInFlight().orElse(CrtTransport.DEFAULT_IN_FLIGHT);
        java.util.concurrent.atomic.AtomicReferenceArray<S3AsyncClient> clients =
                new java.util.concurrent.atomic.AtomicReferenceArray<>(firsts.size());
        clients.set(0, CrtTransport.client(firsts.getFirst(), n));
        java.util.Map<String, java.util.Map<Integer, String>> partChecksums = new java.util.concurrent.ConcurrentHashMap<>();
        Runnable releaseShutdown = CrtClients.holdShutdown(); // until this group closes (see holdShutdown)
        PooledGets gets = new PooledGets();
        return new Group() {
            private boolean closed;

            @Override
            public S3Transport open(S3Settings one) throws IOException {
                int k = slot.getOrDefault(one.endpointDescription(), 0);
                S3AsyncClient shared = clients.get(k);
                if (shared == null) {
                    synchronized (this) {
                        if (closed) {
                            throw new IOException("the crt clients of " + settings.endpointDescription() + " are closed");
                        }
                        shared = clients.get(k);
                        if (shared == null) {
                            shared = CrtTransport.client(firsts.get(k), n);
                            clients.set(k, shared);
                        }
                    }
                }
                // the client's own endpoint needs no routing
                boolean own = one.endpoint().equals(firsts.get(k).endpoint());
                return new CrtTransport(new RoutedClient(shared, own ? null : one.endpoint().orElseThrow()),
                        shared instanceof LendingClient ? gets : null, one, partChecksums);
            }

            @Override
            public synchronized void close() {
                closed = true;
                for (int i = 0; i < clients.length(); i++) {
                    S3AsyncClient c = clients.getAndSet(i, null);
                    if (c != null) {
                        c.close();
                    }
                }
                gets.close();
                releaseShutdown.run();
            }
        };
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CrtTransportFactory f && inFlight == f.inFlight;
    }

    @Override
    public int hashCode() {
        return Integer.hashCode(inFlight);
    }

    @Override
    public String toString() {
        return "crt transports (the AWS CRT-based S3 client, one per endpoint set" + (inFlight > 0 ? ", " + inFlight
                + " requests in flight" : "") + ")";
    }
}
