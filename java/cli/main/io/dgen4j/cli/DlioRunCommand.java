package io.dgen4j.cli;

import io.dgen4j.dlio.CheckpointPlan;
import io.dgen4j.dlio.DlioConfig;
import io.dgen4j.dlio.DlioResult;
import io.dgen4j.dlio.DlioRun;
import io.dgen4j.dlio.RankGroup;
import io.dgen4j.launch.LaunchInfo;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.storage.StorageTarget;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code dgen4j dlio run}: a DLIO workload's checkpoint-only workflow with streaming checkpoints. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Run a DLIO workload's checkpoint phase: num_checkpoints_write saves, then num_checkpoints_read loads,",
                "each file one streaming checkpoint of its exact size; checkpoint.fsync is honoured.",
                "Under a launcher (mpirun, srun) each rank writes its own files; without one, --ranks N runs",
                "the N ranks' files in this process (--parallel at a time). Writes summary.json,",
                "{rank}_output.json and {rank}_per_epoch_stats.json to --output, as DLIO does."})
final class DlioRunCommand implements Callable<Integer> {
    @Spec
    CommandSpec command;

    @Mixin
    DlioCommand.ConfigOptions config;

    @Option(names = "--verify", description = "Compare every byte read with the regenerated stream.")
    boolean verify;

    @Option(names = "--output", paramLabel = "DIR",
            description = "Folder of DLIO's output files (default: output.folder of the config, else ./output).")
    Path output;

    @Option(names = "--parallel", paramLabel = "N", defaultValue = "4",
            description = "Ranks of this process saving or loading at once, 1 to 64 (default ${DEFAULT-VALUE}).")
    int parallel;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "0",
            description = "Generator threads per file (default 0: the CPUs shared among the parallel ranks).")
    int threads;

    @Option(names = "--json", description = "Print summary.json's object instead of DLIO's lines.")
    boolean json;

    @Mixin
    StorageBackendOptions backend;

    @Override
    public Integer call() throws IOException, InterruptedException {
        PrintWriter out = command.commandLine().getOut();
        Limits.count("--parallel", parallel, 1, 64);
        if (threads < 0) {
            throw new IllegalArgumentException("--threads must be >= 0, got " + threads);
        }
        DlioConfig c = config.read(command.commandLine().getErr());
        LaunchInfo launch = config.launch();
        int ranks = config.ranks(launch);
        CheckpointPlan plan = CheckpointPlan.of(c, ranks);
        RankGroup group = launch.launched() ? RankGroup.launched(launch) : RankGroup.inProcess(ranks);
        StorageTarget folder = StorageTarget.parse(DlioRun.folderTarget(c));
        DlioRun.Options options = DlioRun.Options.defaults().withVerify(verify).withParallel(parallel)
                .withThreads(threads).withCustomize(storage(folder))
                .withLog(json ? line -> { } : line -> {
                    out.println(line);
                    out.flush();
                });
        DlioResult r = DlioRun.run(plan, group, options);
        Path dir = output != null ? output : Path.of(c.outputFolder().orElse("output"));
        r.write(dir);
        if (json) {
            if (group.hostsRankZero()) {
                out.println(Json.write(r.summary()));
            }
        } else if (group.hostsRankZero()) {
            out.println(DlioResultLines.timestamped("Averaged metric over all steps/epochs"));
            r.metricLines().forEach(out::println);
            out.printf(Locale.ROOT, "dgen4j: %d files, %d bytes saved at %.3f GB/s, %d bytes loaded at %.3f GB/s%s; "
                            + "peak RSS %s; outputs in %s%n",
                    r.files().stream().filter(f -> f.operation().equals("save")).count(),
                    r.files().stream().filter(f -> f.operation().equals("save")).mapToLong(DlioRun.FileResult::bytes)
                            .sum(), r.saveGBps(),
                    r.files().stream().filter(f -> f.operation().equals("load")).mapToLong(DlioRun.FileResult::bytes)
                            .sum(), r.loadGBps(), verify ? " (verified)" : "", String.format(Locale.ROOT, "%.1f MiB", r.peakRssBytes() / 1048576.0), dir);
        }
        out.flush();
        return 0;
    }

    /**
     * What {@link StorageBackendOptions#apply} sets, resolved here on the command's thread (the
     * environment a test or embedding passed to {@link Main#run} is this thread's) and applied to
     * each file's builder on the ranks' threads.
     */
    private UnaryOperator<StreamingCheckpoint.Builder> storage(StorageTarget folder) {
        boolean s3 = S3Location.SCHEME.equals(folder.scheme());
        String name = backend.backend;
        if ((name == null || name.isBlank()) && s3) {
            name = Main.environment().get(StorageBackendOptions.BACKEND_VAR);
        }
        String chosen = name == null || name.isBlank() ? null : name;
        S3Settings settings = null;
        if (s3) {
            S3Location.of(folder); // a bad bucket or key is a usage error, before anything else
            settings = S3Settings.fromEnvironment(Main.environment(), Path.of(""));
        }
        S3Settings s3Settings = settings;
        return b -> {
            if (chosen != null) {
                b.backend(chosen);
            }
            if (s3Settings != null) {
                b.backendOptions(s3Settings);
            }
            return b;
        };
    }

    /** DLIO's line prefix. */
    static final class DlioResultLines {
        private DlioResultLines() {}

        static String timestamped(String line) {
            return java.time.LocalDateTime.now().format(java.time.format.DateTimeFormatter.ofPattern(
                    "yyyy-MM-dd'T'HH:mm:ss.SSSSSS", Locale.ROOT)) + " " + line;
        }
    }
}
