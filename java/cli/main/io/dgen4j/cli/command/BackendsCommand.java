package io.dgen4j.cli.command;

import io.dgen4j.cli.ExitCodes;
import io.dgen4j.cli.Environment;
import io.dgen4j.cli.option.ByteSizeConverter;
import io.dgen4j.cli.option.CheckpointOptions;
import io.dgen4j.cli.option.EndpointOptions;
import io.dgen4j.cli.option.FilePath;
import io.dgen4j.cli.option.ProgressOptions;
import io.dgen4j.cli.report.BackendsPlot;
import io.dgen4j.cli.report.PlotFile;
import io.dgen4j.cli.report.PlotTitles;
import io.dgen4j.cli.report.Reports;
import io.dgen4j.cli.s3.AzureEndpoint;
import io.dgen4j.cli.s3.S3Backends;
import io.dgen4j.cli.s3.S3Endpoint;
import io.dgen4j.json.JsonWriter;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.storage.StorageProvider;
import io.dgen4j.unit.ByteSize;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code dgen4j backends}: the same checkpoint through every S3 backend to one endpoint, side by side. */
@Command(name = "backends", mixinStandardHelpOptions = true,
        description = {"Save and load the same checkpoint through each installed S3 backend, and compare them.",
                "Each backend (aws, crt, minio) saves the same generated checkpoint to one endpoint and loads it back"
                + " with --verify; the table gives elapsed, MB/s, client CPU seconds per GiB, copies"
                + " per byte, peak RSS, ratio to the best. The endpoint is the configured one (AWS_ENDPOINT_URL etc., or"
                + " .env), else a local s3proxy started for the run. The azure backend (az://) runs beside them on the"
                + " configured Azure account (AZURE_STORAGE_CONNECTION_STRING etc., container in "
                + AzureEndpoint.CONTAINER_VAR + "), else on a local Azurite when it is installed."
                + " Objects are deleted afterwards unless --keep."})
public final class BackendsCommand implements Callable<Integer> {
    private final Environment env;

    /** A comparison of the S3 backends on the endpoint and settings of {@code env} and the options. */
    public BackendsCommand(Environment env) {
        this.env = env;
    }

    @Spec
    CommandSpec command;

    @Parameters(arity = "0..1", paramLabel = "TARGET", description = "s3://bucket/prefix the objects go under "
            + "(<prefix>/<backend>.bin; default: s3://$" + S3Endpoint.BUCKET_VAR + "/dgen4j-backends, or on a local "
            + "s3proxy s3://" + S3Endpoint.LOCAL_BUCKET + "/dgen4j-backends).")
    String target;

    @Option(names = "--size", defaultValue = "256MiB", converter = ByteSizeConverter.class,
            description = "Checkpoint size per backend (default ${DEFAULT-VALUE}).")
    long size;

    @Option(names = "--backends", split = ",", paramLabel = "NAME",
            description = "Only these backends, comma-separated (default: every installed S3 backend, and azure).")
    List<String> backends;

    @Option(names = "--no-warmup", description = "Measure each backend's first save (by default each saves the "
            + "same size twice and measures the second, the steady state; the first save's CPU per GiB, its client "
            + "starting, is the 1st save column).")
    boolean noWarmup;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "1", description = "Save and load with each backend N "
            + "times, interleaved (round 1 of every backend, then round 2, ...); the table gives each figure's "
            + "median and min-max, and calls a difference within the spread a tie (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--keep", description = "Keep the objects written (default: delete them afterwards).")
    boolean keep;

    @Option(names = "--plot", paramLabel = "PNG", converter = FilePath.class,
            description = "Also draw a bar chart (MB/s and CPU seconds per GiB per backend) into this PNG.")
    Path plot;

    @Option(names = "--json", description = "Print one JSON object instead of the table.")
    boolean json;

    @Mixin
    CheckpointOptions options;

    @Mixin
    ProgressOptions progress;

    @Mixin
    EndpointOptions endpoints;

    @Override
    public Integer call() throws IOException, InterruptedException {
        options.check();
        Reports.checkRounds(rounds);
        PlotFile.check(plot);
        List<StorageProvider> providers = S3Backends.providers(env, backends);
        StorageProvider azureProvider = S3Backends.azureProvider(env, backends).orElse(null);
        if (providers.isEmpty() && !(azureProvider != null && S3Backends.azureOnly(backends))) {
            throw new IllegalArgumentException("no S3 backend is installed");
        }
        PrintWriter err = command.commandLine().getErr();
        List<S3Backends.Backend> runs;
        String endpointText;
        boolean local;
        String prefix;
        S3Settings configured = endpoints.settings(env.variables(), Path.of(""));
        String azureEndpoint = null;
        boolean azureLocal = false;
        String azurePrefix = null;
        String azureSkipped = null;
        try (S3Endpoint endpoint = S3Endpoint.open(target, "dgen4j-backends", configured, env, err);
             AzureEndpoint azure = azureProvider == null ? null : AzureEndpoint.open("dgen4j-backends", env, err)) {
            if (azure != null && azure.skipped() != null) {
                azureSkipped = azure.skipped();
                if (providers.isEmpty()) {
                    throw new IllegalArgumentException("--backends azure: az:// cannot run: " + azureSkipped);
                }
            } else if (azure != null) {
                azureEndpoint = azure.endpoint();
                azureLocal = azure.isLocal();
                azurePrefix = azure.prefix();
            }
            runs = S3Backends.run(endpoint, azure, azureProvider, providers, size, options, env, options.chunk,
                    progress.wanted(), keep, !noWarmup, rounds, err);
            endpointText = endpoint.endpoint();
            local = endpoint.isLocal();
            prefix = endpoint.prefix();
        }
        String plotError = plot == null ? null : BackendsPlot.draw(plot, runs,
                PlotTitles.of(size, endpointText, local ? "local s3proxy" : "configured endpoint", env));
        PrintWriter out = command.commandLine().getOut();
        S3Backends.Backend best = S3Backends.best(runs);
        double bestCpu = S3Backends.bestCpu(runs);
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("endpoint", endpointText);
            m.put("localS3proxy", local);
            m.put("prefix", prefix);
            m.put("sizeBytes", size);
            m.put("chunkBytes", options.chunk);
            m.put("writers", options.writers);
            m.put("rounds", rounds);
            if (azureEndpoint != null) {
                m.put("azureEndpoint", azureEndpoint);
                m.put("localAzurite", azureLocal);
            }
            if (azureSkipped != null) {
                m.put("azureSkipped", azureSkipped);
            }
            List<Object> rows = new ArrayList<>();
            for (S3Backends.Backend r : runs) {
                rows.add(S3Backends.toMap(r, best, bestCpu));
            }
            m.put("backends", rows);
            m.put("best", best == null ? null : best.backend());
            m.put("tiedWithBest", runs.stream().filter(r -> S3Backends.tiesBest(r, best))
                    .map(S3Backends.Backend::backend).toList());
            m.put("kept", keep);
            if (plot != null) {
                m.put("plot", plotError != null ? null : plot.toString());
            }
            if (plotError != null) {
                m.put("plotError", plotError);
            }
            out.println(JsonWriter.ASCII_LINE.write(m));
        } else {
            out.printf(Locale.ROOT, "dgen4j backends: %s per backend to %s (%s), %s<backend>.bin, chunk %s, %s%s%n",
                    ByteSize.approx(size), endpointText, local ? "local s3proxy" : "configured endpoint", prefix,
                    ByteSize.format(options.chunk), Reports.count(options.writers, "writer"),
                    rounds > 1 ? ", " + Reports.count(rounds, "round") : "");
            if (azureEndpoint != null) {
                out.printf("azure: %s (%s), %sazure.bin%n", azureEndpoint, azureLocal ? "local Azurite"
                        : "configured account", azurePrefix);
            }
            if (azureSkipped != null) {
                out.println("azure: not run (" + azureSkipped + ")");
            }
            Reports.backends(out, runs);
            if (plot != null && plotError == null) {
                out.println("plot: " + plot);
            }
            out.println(keep ? "objects kept under " + prefix : "objects deleted");
        }
        out.flush();
        PlotFile.reportError(err, plotError);
        for (S3Backends.Backend r : runs) {
            if (r.error() != null) {
                err.println("dgen4j: backend " + r.backend() + ": " + r.error());
            }
        }
        err.flush();
        return runs.stream().filter(r -> r.error() != null).map(S3Backends.Backend::exitCode).findFirst()
                .orElse(ExitCodes.OK);
    }
}
