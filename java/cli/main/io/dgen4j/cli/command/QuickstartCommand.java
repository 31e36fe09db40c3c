package io.dgen4j.cli.command;

import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.Phase;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.cli.ExitCodes;
import io.dgen4j.cli.Environment;
import io.dgen4j.cli.option.ByteSizeConverter;
import io.dgen4j.cli.option.CheckpointOptions;
import io.dgen4j.cli.option.EndpointOptions;
import io.dgen4j.cli.option.FilePath;
import io.dgen4j.cli.option.ProgressOptions;
import io.dgen4j.cli.report.PlotFile;
import io.dgen4j.cli.report.PlotTitles;
import io.dgen4j.cli.report.Progress;
import io.dgen4j.cli.report.Reports;
import io.dgen4j.cli.s3.AzureEndpoint;
import io.dgen4j.cli.s3.S3Backends;
import io.dgen4j.cli.s3.S3Endpoint;
import io.dgen4j.gen.SystemInfo;
import io.dgen4j.json.JsonWriter;
import io.dgen4j.s3.internal.PartPlan;
import io.dgen4j.storage.StorageTarget;
import io.dgen4j.unit.ByteSize;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
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
import picocli.CommandLine.Spec;

/** {@code dgen4j quickstart}: the main job for a newcomer, on one screen. */
@Command(name = "quickstart", mixinStandardHelpOptions = true,
        description = {"The main job: save, verify and compare checkpoints on local disk, then on every S3 backend.",
                "A streaming checkpoint save, a verified load and the old-vs-new comparison run"
                + " in a temporary directory on local disk (TEST_CHECKPOINT_DIR, else the temp dir); then part 2, object"
                + " storage: a save and a verified load through every installed S3 backend, against the configured"
                + " endpoint (AWS_ENDPOINT_URL etc., or .env) or else a local s3proxy it starts, and through the"
                + " azure backend (az://) on the configured Azure account or else a local Azurite when installed, in "
                + QuickstartCommand.S3_ROUNDS + " interleaved rounds; then a summary."})
public final class QuickstartCommand implements Callable<Integer> {
    private final Environment env;

    /** A quickstart whose defaults (directory, size, S3 endpoint, generator) come from {@code env}. */
    public QuickstartCommand(Environment env) {
        this.env = env;
    }

    @Spec
    CommandSpec command;

    @Option(names = "--dir", description = "Parent directory for the run (default: TEST_CHECKPOINT_DIR or the temp dir).")
    Path dir;

    @Option(names = "--size", converter = ByteSizeConverter.class,
            description = "Checkpoint size (default 1GiB, or TEST_SIZE_GB gigabytes).")
    Long size;

    @Option(names = "--plot", paramLabel = "PNG", converter = FilePath.class, description = "Also draw the comparison into this PNG.")
    Path plot;

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    boolean json;

    @Option(names = "--no-s3", description = "Skip part 2 (object storage).")
    boolean noS3;

    @Option(names = "--s3", paramLabel = "TARGET", description = "s3://bucket/prefix for part 2 on a configured "
            + "endpoint (default: s3://$" + S3Endpoint.BUCKET_VAR + "/dgen4j-quickstart).")
    String s3Target;

    /** Part 2's size: the quickstart's, at most this, so that it stays short on a small machine. */
    static final long S3_SIZE_CAP = 256L << 20;

    /** Part 2's rounds per backend: one run of a few hundred MiB is too short to rank backends by. */
    static final int S3_ROUNDS = 3;

    @Mixin
    CheckpointOptions options;

    @Mixin
    ProgressOptions progress;

    @Mixin
    EndpointOptions endpoints;

    @Override
    public Integer call() throws IOException, InterruptedException {
        long bytes = size != null ? size : defaultSize();
        if (endpoints.given()) {
            if (noS3) {
                throw new IllegalArgumentException(endpoints.givenNames() + " applies to part 2, which --no-s3 skips");
            }
            endpoints.settings(env.variables(), Path.of("")); // a bad entry is a usage error before part 1
        }
        Path parent = Comparison.dir(dir, env);
        // Steps 1 to 3 are checked before step 1 writes anything (step 3 holds --size in memory).
        Comparison.preflight(parent, bytes, options);
        PlotFile.check(plot);
        Path work = Files.createTempDirectory(parent, "dgen4j-quickstart-");
        Path file = work.resolve("checkpoint.bin");
        PrintWriter out = command.commandLine().getOut();
        try {
            // Text: each step's lines as soon as it finished (flushed, so a pipe shows them too)
            String note = Comparison.memoryNote(parent);
            if (!json) {
                header(out, work, note);
            } else if (note != null) {
                command.commandLine().getErr().println(note);
                command.commandLine().getErr().flush();
            }
            boolean bars = progress.wanted();
            SaveResult saved;
            try (Progress bar = new Progress(System.err, "1/3 save       ", bytes, bars)) {
                saved = options.build(bar::update, env).save(StorageTarget.parse(file.toString()), bytes);
            }
            if (!json) {
                step1(out, saved);
            }
            LoadResult loaded;
            try (Progress bar = new Progress(System.err, "2/3 load+verify", bytes, bars)) {
                loaded = options.build(bar::update, env).load(StorageTarget.parse(file.toString()), true);
            }
            if (!json) {
                step2(out, saved, loaded);
            }
            Comparison.deleteCheckpoint(file);
            Comparison.Outcome cmp = Comparison.run(work, bytes, options, env, bars, false, 1);
            String plotError = plot == null ? null : Comparison.drawPlot(plot, cmp, PlotTitles.of(bytes,
                    parent.toString(), PlotTitles.fileSystem(parent), env));
            if (!json) {
                step3(out, saved, cmp, plotError == null);
            }
            S3Part s3 = noS3 ? null : s3Part(Math.min(bytes, S3_SIZE_CAP), bars);
            if (json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("save", saved.toMap());
                m.put("load", loaded.toMap());
                m.put("compareStreaming", cmp.streaming().toMap());
                m.put("comparePreallocated", cmp.old().toMap());
                if (plot != null) {
                    m.put("plot", plotError != null ? null : plot.toString());
                }
                if (plotError != null) {
                    m.put("plotError", plotError);
                }
                m.put("s3", s3 == null ? null : s3.toMap());
                out.println(JsonWriter.ASCII_LINE.write(m));
            } else {
                part2(out, s3);
            }
            out.flush();
            PlotFile.reportError(command.commandLine().getErr(), plotError);
            if (s3 != null) {
                for (S3Backends.Backend r : s3.runs()) {
                    if (r.error() != null) {
                        command.commandLine().getErr().println("dgen4j: part 2, backend " + r.backend() + ": "
                                + r.error());
                    }
                }
                command.commandLine().getErr().flush();
                return s3.runs().stream().filter(r -> r.error() != null).map(S3Backends.Backend::exitCode).findFirst()
                        .orElse(ExitCodes.OK);
            }
            return 0;
        } finally {
            Comparison.deleteCheckpoint(file);
            Files.deleteIfExists(work);
        }
    }

    /** Part 2's outcome: where it ran and each backend's run, or why it was skipped. */
    record S3Part(String endpoint, boolean local, String prefix, long size, long chunk, List<S3Backends.Backend> runs,
                  String skipped, String azure) {
        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            if (skipped != null) {
                m.put("skipped", skipped);
                return m;
            }
            m.put("endpoint", endpoint);
            m.put("localS3proxy", local);
            m.put("prefix", prefix);
            m.put("sizeBytes", size);
            m.put("chunkBytes", chunk);
            m.put("rounds", S3_ROUNDS);
            if (azure != null) {
                m.put("azure", azure);
            }
            S3Backends.Backend best = S3Backends.best(runs);
            double bestCpu = S3Backends.bestCpu(runs);
            List<Object> rows = new ArrayList<>();
            for (S3Backends.Backend r : runs) {
                rows.add(S3Backends.toMap(r, best, bestCpu));
            }
            m.put("backends", rows);
            return m;
        }
    }

    /**
     * Part 2: every installed S3 backend against the configured endpoint or a local s3proxy. Skipped,
     * with one line on stderr, when there is no s3proxy jar to start or no bucket on a configured endpoint.
     */
    private S3Part s3Part(long bytes, boolean bars) throws IOException, InterruptedException {
        PrintWriter err = command.commandLine().getErr();
        List<io.dgen4j.storage.StorageProvider> providers = S3Backends.providers(env, List.of());
        if (providers.isEmpty()) {
            return skipped(err, "no S3 backend is installed");
        }
        io.dgen4j.storage.StorageProvider azureProvider = S3Backends.azureProvider(env, List.of()).orElse(null);
        try (S3Endpoint endpoint = S3Endpoint.open(s3Target, "dgen4j-quickstart",
                endpoints.settings(env.variables(), Path.of("")), env, err);
             AzureEndpoint azure = azureProvider == null ? null : AzureEndpoint.open("dgen4j-quickstart", env, err)) {
            // S3 parts are 5 MiB at least and the chunks must fill whole parts: a smaller --chunk grows here
            long chunk = Math.max(options.chunk, PartPlan.MIN_PART_SIZE);
            List<S3Backends.Backend> runs = S3Backends.run(endpoint, azure, azureProvider, providers, bytes, options,
                    env, chunk, bars, false, true, S3_ROUNDS, err);
            return new S3Part(endpoint.endpoint(), endpoint.isLocal(), endpoint.prefix(), bytes, chunk, runs, null,
                    azure == null ? null : azure.skipped() != null ? "not run (" + azure.skipped() + ")"
                            : azure.endpoint() + (azure.isLocal() ? " (a local Azurite started for this run)"
                                    : " (the configured account)") + ", " + azure.prefix() + "azure.bin");
        } catch (S3Endpoint.NoS3ProxyJar | S3Endpoint.NoBucket e) {
            return skipped(err, e.getMessage());
        }
    }

    private static S3Part skipped(PrintWriter err, String why) {
        err.println("dgen4j: quickstart part 2 (object storage) skipped: " + why);
        err.flush();
        return new S3Part(null, false, null, 0, 0, List.of(), why, null);
    }

    private void header(PrintWriter out, Path work, String note) {
        SystemInfo info = SystemInfo.current(env.variables());
        out.printf(Locale.ROOT, "dgen4j quickstart in %s (%s generator, %d CPUs)%n", work, info.implementation(),
                info.usableCpus());
        if (note != null) {
            out.println(note);
        }
        out.println();
        out.flush();
    }

    private static void step1(PrintWriter out, SaveResult s) {
        out.printf(Locale.ROOT, "1. streaming save   %s in %.2f s = %.2f GB/s  [%s]%n", ByteSize.approx(s.totalBytes()),
                s.totalSeconds(), s.totalGBps(), s.backend());
        out.printf(Locale.ROOT, "   generation %.2f GB/s, I/O %.2f GB/s, fsync %.3f s, bottleneck %s, peak RSS %s%n",
                s.generationGBps(), s.ioGBps(), s.closeSeconds(), s.bottleneck(), Reports.mib(s.peakRssBytes()));
        out.println("   phases: " + Reports.phaseLine(s.phases(), s.totalSeconds()));
        out.flush();
    }

    private static void step2(PrintWriter out, SaveResult s, LoadResult l) {
        out.printf(Locale.ROOT, "2. verified load    %s in %.2f s = %.2f GB/s, every byte matched the seed %s stream%n",
                ByteSize.approx(l.totalBytes()), l.totalSeconds(), l.totalGBps(), s.seed());
        out.println("   phases: " + Reports.phaseLine(l.phases(), l.totalSeconds()));
        out.flush();
    }

    private void step3(PrintWriter out, SaveResult first, Comparison.Outcome c, boolean plotDrawn) {
        out.println("3. old vs new");
        Reports.compare(out, c.streaming(), c.old());
        out.println(sameSave(first, c.streaming()));
        if (plot != null && plotDrawn) {
            out.println("plot: " + plot);
        }
        out.flush();
    }

    /**
     * Why step 1 and step 3's new save, the same save, took different times: the phases that differ
     * most, each with its cause (step 1 is the process's first save; the disk's own speed varies).
     */
    static String sameSave(SaveResult step1, SaveResult step3) {
        double gap = step1.totalSeconds() - step3.totalSeconds();
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                "step 1 and step 3's new save are the same save: %.3f vs %.3f s", step1.totalSeconds(),
                step3.totalSeconds()));
        record Diff(Phase phase, double seconds) {}
        List<Diff> diffs = new ArrayList<>();
        for (Phase p : step1.phases()) {
            double other = step3.phases().stream().filter(q -> q.key().equals(p.key())).mapToDouble(Phase::seconds)
                    .findFirst().orElse(0);
            diffs.add(new Diff(p, p.seconds() - other));
        }
        diffs.sort((a, b) -> Double.compare(Math.abs(b.seconds()), Math.abs(a.seconds())));
        List<String> parts = new ArrayList<>();
        for (Diff d : diffs.subList(0, Math.min(3, diffs.size()))) {
            if (Math.abs(d.seconds()) < 0.0005 || Math.abs(d.seconds()) < Math.abs(gap) * 0.1) {
                break;
            }
            parts.add(String.format(Locale.ROOT, "%s %+.3f s (%s)", d.phase().label(), d.seconds(),
                    cause(d.phase().key())));
        }
        return sb.append(parts.isEmpty() ? "" : "; step 1 - step 3: " + String.join(", ", parts)).toString();
    }

    /** Why a phase of the same save may take longer in step 1 than in step 3, or the other way round. */
    private static String cause(String key) {
        return switch (key) {
            case "startUp", "open", "clientStart", "firstRequests", "firstChunk" -> "step 1 is the process's first save: code loaded and compiled";
            case "io", "commit" -> "the disk: its speed and flushes vary from save to save";
            case "generationStall" -> "generation: CPU time taken by other processes";
            default -> "varies from save to save";
        };
    }

    private static void part2(PrintWriter out, S3Part s3) {
        if (s3 != null) {
            out.println();
            if (s3.skipped() != null) {
                out.println("Part 2, object storage: skipped (" + s3.skipped() + ")");
            } else {
                out.printf(Locale.ROOT, "Part 2, object storage: %s per backend to %s (%s), %s<backend>.bin, "
                        + "chunk %s, %d rounds%n", ByteSize.approx(s3.size()), s3.endpoint(), s3.local()
                                ? "a local s3proxy started for this run" : "the configured endpoint", s3.prefix(),
                        ByteSize.format(s3.chunk()), S3_ROUNDS);
                if (s3.azure() != null) {
                    out.println("azure: " + s3.azure());
                }
                Reports.backends(out, s3.runs());
            }
        }
        out.println();
        out.println("Next: ./dgen4j save /your/disk/ckpt.bin --size 24GiB   |   ./dgen4j compare --dir /your/disk --size 8GiB --plot compare.png");
        out.println("      ./dgen4j backends s3://bucket/prefix --size 1GiB   (every S3 backend side by side)");
    }

    private long defaultSize() {
        String gb = env.get("TEST_SIZE_GB");
        if (gb != null && !gb.isBlank()) {
            try {
                return ByteSizeConverter.parse(gb.trim() + "GiB");
            } catch (picocli.CommandLine.TypeConversionException e) {
                throw new IllegalArgumentException("TEST_SIZE_GB=" + gb + " is not a size in GiB: " + e.getMessage());
            }
        }
        return 1L << 30;
    }
}
