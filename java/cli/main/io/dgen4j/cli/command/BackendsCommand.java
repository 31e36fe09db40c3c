package io.dgen4j.cli.command;

import io.dgen4j.cli.ExitCodes;
import io.dgen4j.cli.Main;
import io.dgen4j.cli.option.ByteSize;
import io.dgen4j.cli.option.CheckpointOptions;
import io.dgen4j.cli.option.EndpointOptions;
import io.dgen4j.cli.option.FilePath;
import io.dgen4j.cli.option.ProgressOptions;
import io.dgen4j.cli.report.BackendsPlot;
import io.dgen4j.cli.report.Json;
import io.dgen4j.cli.report.Reports;
import io.dgen4j.cli.s3.S3Backends;
import io.dgen4j.cli.s3.S3Endpoint;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.storage.StorageProvider;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
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
        description = {"Save the same generated checkpoint through each installed S3 backend (aws, crt, minio) to one",
                "endpoint, load it back with --verify, and compare: elapsed, MB/s, client CPU seconds per GiB, copies",
                "per byte, peak RSS, ratio to the best. The endpoint is the configured one (AWS_ENDPOINT_URL etc., or",
                ".env), else a local s3proxy started for the run. Objects are deleted afterwards unless --keep."})
public final class BackendsCommand implements Callable<Integer> {
    @Spec
    CommandSpec command;

    @Parameters(arity = "0..1", paramLabel = "TARGET", description = "s3://bucket/prefix the objects go under "
            + "(<prefix>/<backend>.bin; default: s3://$" + S3Endpoint.BUCKET_VAR + "/dgen4j-backends, or on a local "
            + "s3proxy s3://" + S3Endpoint.LOCAL_BUCKET + "/dgen4j-backends).")
    String target;

    @Option(names = "--size", defaultValue = "256MiB", converter = ByteSize.class,
            description = "Checkpoint size per backend (default ${DEFAULT-VALUE}).")
    long size;

    @Option(names = "--backends", split = ",", paramLabel = "NAME",
            description = "Only these backends, comma-separated (default: every installed S3 backend).")
    List<String> backends;

    @Option(names = "--no-warmup", description = "Measure each backend's first save (by default each saves one "
            + "chunk first, unmeasured, so that its client's start-up does not count).")
    boolean noWarmup;

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
        CompareCommand.checkPlot(plot);
        List<StorageProvider> providers = S3Backends.providers(backends);
        if (providers.isEmpty()) {
            throw new IllegalArgumentException("no S3 backend is installed");
        }
        PrintWriter err = command.commandLine().getErr();
        List<S3Backends.Run> runs;
        String endpointText;
        boolean local;
        String prefix;
        S3Settings configured = endpoints.settings(Main.environment(), Path.of(""));
        try (S3Endpoint endpoint = S3Endpoint.open(target, "dgen4j-backends", configured, err)) {
            runs = S3Backends.run(endpoint, providers, size, options, options.chunk, progress.wanted(), keep,
                    !noWarmup, err);
            endpointText = endpoint.endpoint();
            local = endpoint.isLocal();
            prefix = endpoint.prefix();
        }
        String plotError = plot == null ? null : BackendsPlot.draw(plot, runs);
        PrintWriter out = command.commandLine().getOut();
        double best = S3Backends.bestMBps(runs);
        double bestCpu = S3Backends.bestCpu(runs);
        if (json) {
            Map<String, Object> m = Json.object();
            m.put("endpoint", endpointText);
            m.put("localS3proxy", local);
            m.put("prefix", prefix);
            m.put("sizeBytes", size);
            m.put("chunkBytes", options.chunk);
            m.put("writers", options.writers);
            List<Object> rows = new ArrayList<>();
            for (S3Backends.Run r : runs) {
                rows.add(S3Backends.toMap(r, best, bestCpu));
            }
            m.put("backends", rows);
            m.put("best", runs.stream().filter(S3Backends.Run::ok).filter(r -> r.saveMBps() == best)
                    .map(S3Backends.Run::backend).findFirst().orElse(null));
            m.put("kept", keep);
            if (plot != null) {
                m.put("plot", plotError != null ? null : plot.toString());
            }
            if (plotError != null) {
                m.put("plotError", plotError);
            }
            out.println(Json.write(m));
        } else {
            out.printf(Locale.ROOT, "dgen4j backends: %s per backend to %s (%s), %s<backend>.bin, chunk %s, %d writers%n",
                    ByteSize.format(size), endpointText, local ? "local s3proxy" : "configured endpoint", prefix,
                    ByteSize.format(options.chunk), options.writers);
            table(out, runs, best, bestCpu);
            if (plot != null && plotError == null) {
                out.println("plot: " + plot);
            }
            out.println(keep ? "objects kept under " + prefix : "objects deleted");
        }
        out.flush();
        CompareCommand.reportPlotError(err, plotError);
        for (S3Backends.Run r : runs) {
            if (r.error() != null) {
                err.println("dgen4j: backend " + r.backend() + ": " + r.error());
            }
        }
        err.flush();
        return runs.stream().filter(r -> r.error() != null).map(S3Backends.Run::exitCode).findFirst()
                .orElse(ExitCodes.OK);
    }

    /** The table for people: one row per backend. */
    static void table(PrintWriter out, List<S3Backends.Run> runs, double best, double bestCpu) {
        out.printf(Locale.ROOT, "%-7s %8s %8s %10s %7s %9s %9s %9s %8s%n", "backend", "save s", "MB/s", "CPU s/GiB",
                "copies", "peak RSS", "load MB/s", "verified", "vs best");
        for (S3Backends.Run r : runs) {
            String copies = r.copiesPerByte() == null ? "?" : r.copiesPerByte().toString();
            if (r.unavailable() != null) {
                out.printf(Locale.ROOT, "%-7s unavailable: %s%n", r.backend(), r.unavailable());
            } else if (!r.ok()) {
                out.printf(Locale.ROOT, "%-7s failed: %s%n", r.backend(), r.error());
            } else {
                out.printf(Locale.ROOT, "%-7s %8.2f %8.1f %10.2f %7s %9s %9.1f %9s %8.2f%n", r.backend(),
                        r.save().totalSeconds(), r.saveMBps(), r.cpuSecondsPerGiB(), copies,
                        Reports.mib(r.save().peakRssBytes()), r.loadMBps(), r.load().verified() ? "yes" : "no",
                        r.saveMBps() / best);
            }
        }
        out.println("MB/s: 10^6 bytes/s of the save; CPU s/GiB: this process's CPU time during the save (generation "
                + "included, the same for every backend)" + (Double.isFinite(bestCpu) ? "" : ", not available here"));
        out.println("copies: per byte sent, as the backend's client works; peak RSS: the whole process during the "
                + "save, with what earlier backends left resident (--backends NAME alone for one's own); vs best: "
                + "MB/s over the fastest's");
    }
}
