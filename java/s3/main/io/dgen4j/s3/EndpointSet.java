package io.dgen4j.s3;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The S3 endpoints one run spreads its requests over, and how: several gateways of one storage
 * cluster (they share state, so an upload created through one may take parts and be completed
 * through another; {@link #pinUpload()} keeps each object on one endpoint for stores whose
 * gateways do not).
 *
 * {@snippet :
 * EndpointSet set = EndpointSet.builder()
 *         .endpoints(List.of(URI.create("http://127.0.0.1:9000"), URI.create("http://127.0.0.1:9001")))
 *         .strategy(EndpointSet.Strategy.LEAST_CONNECTIONS)
 *         .build();
 * }
 */
public final class EndpointSet {

    /** How each request picks its endpoint. */
    public enum Strategy {
        /** Each request goes to the next endpoint in turn. */
        ROUND_ROBIN,
        /** Each request goes to the endpoint with the fewest requests in flight; ties go round-robin. */
        LEAST_CONNECTIONS,
        /** Every request of this process goes to endpoint {@code rank % n} (one endpoint per MPI rank). */
        RANK;

        /** The strategy named as in {@code S3_LOAD_BALANCE_STRATEGY}: {@code round_robin}, {@code least_connections} or {@code rank}. */
        public static Strategy parse(String name) {
            String n = name.strip().toLowerCase(Locale.ROOT).replace('-', '_');
            for (Strategy s : values()) {
                if (s.name().toLowerCase(Locale.ROOT).equals(n)) {
                    return s;
                }
            }
            throw new IllegalArgumentException(String.format("unknown load-balancing strategy '%s': use round_robin, "
                    + "least_connections or rank", name));
        }

        /** The name as users write it ({@code round_robin}). */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final List<URI> endpoints;
    private final Strategy strategy;
    private final boolean pinUpload;
    private final int rank;

    private EndpointSet(Builder b) {
        if (b.endpoints.isEmpty()) {
            throw new IllegalArgumentException("an endpoint set needs at least one endpoint");
        }
        this.endpoints = List.copyOf(b.endpoints);
        this.strategy = b.strategy;
        this.pinUpload = b.pinUpload;
        this.rank = b.rank;
    }

    /** A set of one endpoint (round-robin over one). */
    public static EndpointSet of(URI endpoint) {
        return builder().endpoint(endpoint).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The endpoints, in the order given (duplicates kept: a duplicate weighs twice). */
    public List<URI> endpoints() {
        return endpoints;
    }

    public Strategy strategy() {
        return strategy;
    }

    /** Whether each object's requests all go to the endpoint its upload (or first read) was given. */
    public boolean pinUpload() {
        return pinUpload;
    }

    /** This process's rank, for {@link Strategy#RANK} (0 outside a launcher). */
    public int rank() {
        return rank;
    }

    /** The number of endpoints. */
    public int size() {
        return endpoints.size();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EndpointSet s && endpoints.equals(s.endpoints) && strategy == s.strategy
                && pinUpload == s.pinUpload && rank == s.rank;
    }

    @Override
    public int hashCode() {
        return Objects.hash(endpoints, strategy, pinUpload, rank);
    }

    @Override
    public String toString() {
        return endpoints.size() == 1 ? endpoints.getFirst().toString()
                : String.format("%d endpoints (%s%s): %s", endpoints.size(), strategy.label(),
                        pinUpload ? ", pinned uploads" : "", endpoints);
    }

    /** Builds an {@link EndpointSet}. */
    public static final class Builder {
        private final List<URI> endpoints = new ArrayList<>();
        private Strategy strategy = Strategy.ROUND_ROBIN;
        private boolean pinUpload;
        private int rank;

        private Builder() {}

        /** Adds one endpoint ({@code http(s)://host[:port]}). */
        public Builder endpoint(URI endpoint) {
            endpoints.add(S3Settings.parseEndpoint(Objects.requireNonNull(endpoint, "endpoint").toString(),
                    "endpoint " + (endpoints.size() + 1)));
            return this;
        }

        /** Adds these endpoints, in order. */
        public Builder endpoints(List<URI> list) {
            list.forEach(this::endpoint);
            return this;
        }

        public Builder strategy(Strategy s) {
            this.strategy = Objects.requireNonNull(s, "strategy");
            return this;
        }

        public Builder pinUpload(boolean on) {
            this.pinUpload = on;
            return this;
        }

        /** This process's rank (≥ 0), for {@link Strategy#RANK}. */
        public Builder rank(int r) {
            if (r < 0) {
                throw new IllegalArgumentException("rank must be >= 0, not " + r);
            }
            this.rank = r;
            return this;
        }

        public EndpointSet build() {
            return new EndpointSet(this);
        }
    }
}
