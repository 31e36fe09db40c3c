package io.dgen4j.s3;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

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
 *
 * <p>From the environment ({@link #fromEnvironment}), with the variables and meanings of the tools
 * our users already run: {@value #URIS_VAR} (comma-separated), else {@value #TEMPLATE_VAR}
 * ({@code http://10.0.0.{1...8}:9000}: every {@code {a...b}} range expanded, zero padding kept),
 * else {@value #FILE_VAR} (one URI a line); {@value #STRATEGY_VAR} and {@value #PIN_VAR} say how
 * requests are spread.
 */
public final class EndpointSet {
    /** The variable listing the endpoints, comma-separated (first in precedence). */
    public static final String URIS_VAR = "S3_ENDPOINT_URIS";
    /** The variable holding a template with {@code {a...b}} ranges (used when {@value #URIS_VAR} is not set). */
    public static final String TEMPLATE_VAR = "S3_ENDPOINT_TEMPLATE";
    /** The variable naming a file of one endpoint a line (used when neither of the others is set). */
    public static final String FILE_VAR = "S3_ENDPOINT_FILE";
    /** The variable naming the strategy: {@code round_robin} (default), {@code least_connections} or {@code rank}. */
    public static final String STRATEGY_VAR = "S3_LOAD_BALANCE_STRATEGY";
    /** The variable that pins each object's requests to one endpoint: {@code 1}/{@code true} on, {@code 0}/{@code false} off (default). */
    public static final String PIN_VAR = "S3_PIN_UPLOAD";
    /** The most endpoints one set may hold (a template or file naming more is refused as a mistake). */
    public static final int MAX_ENDPOINTS = 4096;
    /** The most endpoints a message lists one by one. */
    private static final int LISTED = 8;

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
        if (b.endpoints.size() > MAX_ENDPOINTS) {
            throw new IllegalArgumentException(String.format("an endpoint set holds at most %d endpoints, not %d",
                    MAX_ENDPOINTS, b.endpoints.size()));
        }
        Map<String, Integer> seen = new java.util.HashMap<>();
        for (int i = 0; i < b.endpoints.size(); i++) {
            Integer first = seen.putIfAbsent(EndpointSources.identity(b.endpoints.get(i)), i + 1);
            if (first != null) {
                throw EndpointSources.duplicate("endpoint " + (i + 1), "endpoint " + first, b.endpoints.get(i));
            }
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

    /**
     * The set the variables name, relative paths resolved against the working directory; see
     * {@link #fromEnvironment(Map, Path)}.
     */
    public static Optional<EndpointSet> fromEnvironment(Map<String, String> env) {
        return fromEnvironment(env, Path.of(""));
    }

    /**
     * The set the variables in {@code env} name (pass the process environment merged with the
     * {@code .env} file's, as {@link S3Settings#fromEnvironment} does), or empty when none of
     * {@value #URIS_VAR}, {@value #TEMPLATE_VAR}, {@value #FILE_VAR} is set (non-blank). The first
     * of the three that is set wins and the others are ignored (a debug log line says which was
     * used). The strategy is {@value #STRATEGY_VAR} (default {@code round_robin}), uploads are
     * pinned when {@value #PIN_VAR} is {@code 1}, {@code true}, {@code yes} or {@code on}, and the
     * rank is {@link io.dgen4j.launch.LaunchInfo#fromEnvironment}'s. Those two are read only when
     * a set is named. A relative {@value #FILE_VAR} is resolved against {@code workingDir}.
     *
     * @throws IllegalArgumentException naming the variable and the offending entry (for the file,
     *         its path and line) when an endpoint is not an {@code http(s)://host[:port]} URL, a
     *         template range is malformed or reversed, the file is missing, unreadable or lists no
     *         endpoint, the strategy or pin value is unknown, or the launcher's variables disagree
     */
    public static Optional<EndpointSet> fromEnvironment(Map<String, String> env, Path workingDir) {
        return EndpointSources.fromEnvironment(Objects.requireNonNull(env, "env"),
                Objects.requireNonNull(workingDir, "workingDir"));
    }

    /**
     * The endpoints of a comma-separated list (blank entries skipped), each checked.
     *
     * @param source how to name the list in messages ({@code S3_ENDPOINT_URIS}, {@code --endpoints})
     * @throws IllegalArgumentException "{source} entry {n} must be ..." for a bad entry, or when none is listed
     */
    public static List<URI> parseList(String commaSeparated, String source) {
        return EndpointSources.list(Objects.requireNonNull(commaSeparated, "list"), source);
    }

    /**
     * The strings a template names: every {@code {a...b}} range (decimal, {@code a <= b}) replaced by
     * each number from a to b; a bound written with a leading zero pads every number to the wider
     * bound's width ({@code {01...16}} gives {@code 01} ... {@code 16}); several ranges give every
     * combination in order, the leftmost range varying slowest
     * ({@code h{1...2}-{1...2}} gives {@code h1-1, h1-2, h2-1, h2-2}).
     *
     * @throws IllegalArgumentException naming the range when one is reversed, a brace does not
     *         hold a {@code {a...b}} range, or the template names more than {@value #MAX_ENDPOINTS}
     */
    public static List<String> expandTemplate(String template) {
        return EndpointSources.expand(Objects.requireNonNull(template, "template"), "endpoint template");
    }

    /**
     * {@link #expandTemplate(String)}, each string checked as an endpoint URL.
     *
     * @param source how to name the template in messages ({@code S3_ENDPOINT_TEMPLATE}, {@code --endpoint-template})
     */
    public static List<URI> parseTemplate(String template, String source) {
        return EndpointSources.template(Objects.requireNonNull(template, "template"), source);
    }

    /** {@link #readFile(Path, String)} naming the file alone in messages. */
    public static List<URI> readFile(Path file) {
        return readFile(file, "endpoint file " + file);
    }

    /**
     * The endpoints a file lists: one URI a line; blank lines, lines starting with {@code #} and
     * a {@code #} comment after whitespace are skipped.
     *
     * @param source how to name the file in messages ({@code S3_ENDPOINT_FILE /etc/s3-endpoints}); a bad
     *               entry's message adds its line ({@code ...:3})
     * @throws IllegalArgumentException naming the file when it is missing, unreadable or lists no
     *         endpoint, and its line when an entry is not an endpoint URL
     */
    public static List<URI> readFile(Path file, String source) {
        return EndpointSources.file(Objects.requireNonNull(file, "file"), source);
    }

    /** The endpoints, in the order given (each once: a set with a duplicate is refused). */
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
                        pinUpload ? ", pinned uploads" : "", listed());
    }

    /** The endpoints for messages: all of a small set; of a large one, the first few, a count and the last. */
    private String listed() {
        int n = endpoints.size();
        if (n <= LISTED) {
            return endpoints.toString();
        }
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < LISTED - 2; i++) {
            b.append(endpoints.get(i)).append(", ");
        }
        return b.append("... ").append(n - LISTED + 1).append(" more ..., ").append(endpoints.getLast()).append(']')
                .toString();
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
