package io.dgen4j.cli.command;

import io.dgen4j.cli.ExitCodes;
import io.dgen4j.cli.Environment;
import io.dgen4j.cli.option.EndpointOptions;
import io.dgen4j.cli.option.Limits;
import io.dgen4j.cli.option.StorageBackendOptions;
import io.dgen4j.cli.s3.EndpointProbes;
import io.dgen4j.cli.s3.S3Endpoint;
import io.dgen4j.cli.s3.TransportFactories;
import io.dgen4j.json.JsonWriter;
import io.dgen4j.s3.EndpointSet;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.spi.S3TransportFactory;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code dgen4j endpoints}: the S3 endpoint set as configured, each endpoint probed. */
@Command(name = "endpoints", mixinStandardHelpOptions = true,
        description = {"Resolve the S3 endpoint set and probe each endpoint.",
                "The set comes from " + EndpointSet.URIS_VAR + ", " + EndpointSet.TEMPLATE_VAR
                + ", " + EndpointSet.FILE_VAR + ", or AWS_ENDPOINT_URL alone; the options below override them); each endpoint is probed"
                + " through the backend's own client: one unmeasured HEAD of the bucket opens the connection, then --probes measured ones give the latency p50/p99; up, or down with the cause. "
                + "Up to --parallel endpoints are probed at once, an endpoint's requests one after the other, stopping "
                + "at its first failure; by --deadline it prints what it found, endpoints not answered by then as "
                + "unknown."},
        footerHeading = "%nExit status:%n", footer = {
                "  0    every endpoint is up",
                "  2    bad arguments (an offending endpoint entry, no bucket, no backend to probe with)",
                "  3    at least one endpoint is down, or did not answer within the deadline"})
public final class EndpointsCommand implements Callable<Integer> {
    private final Environment env;

    /** Probes of the endpoints, bucket and backend that {@code env} and the options name. */
    public EndpointsCommand(Environment env) {
        this.env = env;
    }

    /** The key named in messages about the bucket's probe when the target names none. */
    static final String PROBE_KEY = "dgen4j-endpoints-probe";
    /** Endpoints probed at once by default: a threads' worth that keeps a set of thousands within a minute. */
    static final int PARALLEL = 64;

    @Spec
    CommandSpec command;

    @Parameters(arity = "0..1", paramLabel = "TARGET", description = "s3://bucket[/key] whose bucket is probed "
            + "(default: s3://$" + S3Endpoint.BUCKET_VAR + ").")
    String target;

    @Option(names = "--probes", defaultValue = "5", paramLabel = "N",
            description = "Measured HEAD-bucket requests per endpoint, 1 to 1000 (default ${DEFAULT-VALUE}).")
    int probes;

    @Option(names = "--timeout", defaultValue = "10", paramLabel = "SECONDS",
            description = "Longest wait for one probe's answer, 1 to 3600 seconds (default ${DEFAULT-VALUE}).")
    int timeoutSeconds;

    @Option(names = "--deadline", defaultValue = "60", paramLabel = "SECONDS",
            description = "Longest wait for the whole run, 1 to 86400 seconds (default ${DEFAULT-VALUE}): endpoints "
                    + "not answered by then are reported as such.")
    int deadlineSeconds;

    @Option(names = "--parallel", defaultValue = "" + PARALLEL, paramLabel = "N",
            description = "Endpoints probed at once, 1 to " + EndpointSet.MAX_ENDPOINTS + " (default ${DEFAULT-VALUE}).")
    int parallel;

    @Option(names = "--backend", paramLabel = "NAME",
            description = "The S3 backend whose client probes: aws, crt or minio (default: the best installed; or "
                    + StorageBackendOptions.BACKEND_VAR + ").")
    String backend;

    @Option(names = "--json", description = "Print one JSON object instead of the table.")
    boolean json;

    @Mixin
    EndpointOptions endpoints;

    @Override
    public Integer call() throws InterruptedException {
        Limits.count("--probes", probes, 1, 1000);
        Limits.count("--timeout", timeoutSeconds, 1, 3600);
        Limits.count("--deadline", deadlineSeconds, 1, 86400);
        Limits.count("--parallel", parallel, 1, EndpointSet.MAX_ENDPOINTS);
        S3Location where = location();
        S3Settings settings = endpoints.settings(env.variables(), Path.of(""));
        String name = backend;
        if (name == null || name.isBlank()) {
            name = env.get(StorageBackendOptions.BACKEND_VAR);
        }
        S3TransportFactory factory = TransportFactories.choose(name);
        List<EndpointProbes.Probe> found = EndpointProbes.run(factory, settings, where, probes,
                Duration.ofSeconds(timeoutSeconds), Duration.ofSeconds(deadlineSeconds), parallel);
        long late = found.stream().filter(EndpointProbes.Probe::late).count();
        long down = found.stream().filter(p -> !p.up()).count() - late;
        PrintWriter out = command.commandLine().getOut();
        Optional<EndpointSet> set = settings.endpointSet();
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("bucket", where.bucket());
            m.put("backend", factory.backend());
            m.put("strategy", set.map(s -> s.strategy().label()).orElse(null));
            m.put("pinUpload", set.map(EndpointSet::pinUpload).orElse(false));
            m.put("rank", set.map(EndpointSet::rank).orElse(0));
            m.put("probesPerEndpoint", probes);
            m.put("timeoutSeconds", timeoutSeconds);
            m.put("deadlineSeconds", deadlineSeconds);
            m.put("up", found.size() - down - late);
            m.put("down", down);
            m.put("unknown", late);
            m.put("endpoints", found.stream().map(EndpointProbes.Probe::toMap).toList());
            out.println(JsonWriter.ASCII_LINE.write(m));
        } else {
            out.printf(Locale.ROOT, "dgen4j endpoints: %s, bucket %s, backend %s, %d HEAD-bucket probe%s each%n",
                    describe(set, found.size()), where.bucket(), factory.backend(), probes, probes == 1 ? "" : "s");
            table(out, found);
            out.printf(Locale.ROOT, "%d of %d endpoint%s up%s%n", found.size() - down - late, found.size(),
                    found.size() == 1 ? "" : "s", late == 0 ? "" : String.format(Locale.ROOT,
                            ", %d not answered within the deadline of %d s", late, deadlineSeconds));
        }
        out.flush();
        if (down > 0 || late > 0) {
            PrintWriter err = command.commandLine().getErr();
            if (down > 0) {
                err.printf(Locale.ROOT, "dgen4j: %d of %d S3 endpoint%s down%n", down, found.size(),
                        found.size() == 1 ? " is" : "s are");
            }
            if (late > 0) {
                err.printf(Locale.ROOT, "dgen4j: %d of %d S3 endpoint%s not answer within the deadline of %d s "
                        + "(--deadline)%n", late, found.size(), late == 1 ? " did" : "s did", deadlineSeconds);
            }
            err.flush();
            return ExitCodes.IO;
        }
        return ExitCodes.OK;
    }

    /** The bucket (and key, for messages) to probe: the target's, else {@value S3Endpoint#BUCKET_VAR}'s. */
    private S3Location location() {
        String[] at;
        if (target != null) {
            at = S3Endpoint.split(target);
        } else {
            String bucket = env.get(S3Endpoint.BUCKET_VAR);
            if (bucket == null || bucket.isBlank()) {
                throw new IllegalArgumentException("no bucket to probe: give s3://bucket or set "
                        + S3Endpoint.BUCKET_VAR);
            }
            at = S3Endpoint.split("s3://" + bucket.strip());
        }
        return new S3Location(at[0], at[1].isEmpty() ? PROBE_KEY : at[1]);
    }

    private static String describe(Optional<EndpointSet> set, int count) {
        if (set.isEmpty()) {
            return count + " endpoint";
        }
        EndpointSet s = set.get();
        String text = String.format(Locale.ROOT, "%d endpoint%s (%s%s", s.size(), s.size() == 1 ? "" : "s",
                s.strategy().label(), s.pinUpload() ? ", pinned uploads" : "");
        if (s.strategy() == EndpointSet.Strategy.RANK) {
            text += String.format(Locale.ROOT, ", rank %d uses %s", s.rank(), s.endpoints().get(s.rank() % s.size()));
        }
        return text + ")";
    }

    /** The table for people: one row per endpoint. */
    static void table(PrintWriter out, List<EndpointProbes.Probe> found) {
        int width = Math.max("endpoint".length(), found.stream().mapToInt(p -> p.endpoint().length()).max().orElse(0));
        String row = "%-" + width + "s %7s %9s %9s  %-5s %s%n";
        out.printf(Locale.ROOT, row, "endpoint", "probes", "p50 ms", "p99 ms", "state", "cause");
        for (EndpointProbes.Probe p : found) {
            boolean timed = !p.millis().isEmpty();
            out.printf(Locale.ROOT, row, p.endpoint(), p.ok() + "/" + p.attempted(),
                    timed ? String.format(Locale.ROOT, "%.2f", p.percentile(0.50)) : "-",
                    timed ? String.format(Locale.ROOT, "%.2f", p.percentile(0.99)) : "-", p.state(),
                    p.up() ? "-" : p.cause());
        }
    }
}
