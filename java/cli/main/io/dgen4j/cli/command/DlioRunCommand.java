package io.dgen4j.cli.command;

import io.dgen4j.cli.Environment;
import io.dgen4j.cli.option.DlioConfigOptions;
import io.dgen4j.cli.option.Limits;
import io.dgen4j.cli.option.StorageBackendOptions;
import io.dgen4j.cli.report.Reports;
import io.dgen4j.dlio.CheckpointPlan;
import io.dgen4j.dlio.DlioConfig;
import io.dgen4j.dlio.DlioResult;
import io.dgen4j.dlio.DlioRun;
import io.dgen4j.dlio.RankGroup;
import io.dgen4j.json.JsonWriter;
import io.dgen4j.launch.LaunchInfo;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.storage.StorageTarget;
import io.dgen4j.unit.ByteSize;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code dgen4j dlio run}: a DLIO workload's checkpoint-only workflow with streaming checkpoints. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Run a DLIO workload's checkpoint phase: its saves, then its loads.",
                "num_checkpoints_write saves, then num_checkpoints_read loads, each file one streaming checkpoint of"
                + " its exact size; checkpoint.fsync is honoured. Under a launcher (mpirun, srun) each rank writes its"
                + " own files; without one, --ranks N runs the N ranks' files in this process (--parallel at a time)."
                + " Writes summary.json, {rank}_output.json and {rank}_per_epoch_stats.json to --output, as DLIO does."})
public final class DlioRunCommand implements Callable<Integer> {
    private final Environment env;

    /** A DLIO run whose ranks and storage settings come from {@code env} and the options. */
    public DlioRunCommand(Environment env) {
        this.env = env;
    }

    @Spec
    CommandSpec command;

    @Mixin
    DlioConfigOptions config;

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

    @Option(names = "--force", description = "Run even when the checkpoint folder's filesystem has less free space than"
            + " the run's checkpoints need (num_checkpoints_write of them are kept at once).")
    boolean force;

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
        LaunchInfo launch = config.launch(env);
        int ranks = config.ranks(launch);
        CheckpointPlan plan = config.plan(c, ranks, command.commandLine().getErr());
        StorageTarget folder = StorageTarget.parse(DlioRun.folderTarget(c));
        // resolved once, here, and used on the ranks' threads
        UnaryOperator<StreamingCheckpoint.Builder> storage = backend.resolve(folder, env);
        // Everything that can be checked before the first byte is: the outputs' folder, every setting (read
        // above), the backend's limits for every file size, the memory of the ranks saving at once.
        Path dir = output != null ? output : Path.of(c.outputFolder().orElse("output"));
        DlioResult.checkOutput(dir, output != null ? "--output" : "output.folder",
                launch.launched() ? java.util.List.of(launch.rank()) : java.util.stream.IntStream.range(0, ranks)
                        .boxed().toList());
        DlioRun.check(plan, DlioRun.Options.defaults().withCustomize(storage));
        if (!force && folder.isFile()) {
            checkRoom(plan, folder.path(), launch.launched() ? java.util.List.of(launch.rank())
                    : java.util.stream.IntStream.range(0, ranks).boxed().toList());
        }
        long atOnce = launch.launched() ? 1 : Math.min(parallel, ranks);
        Limits.memory(Math.multiplyExact(atOnce, (long) c.streaming().numBuffers() * c.streaming().chunkSize()),
                String.format(Locale.ROOT, "%s at once (--parallel), each with checkpoint.streaming.num_buffers "
                        + "%d x chunk_size %s", Reports.count(atOnce, "rank"), c.streaming().numBuffers(),
                        ByteSize.format(c.streaming().chunkSize())), "use a smaller --parallel, chunk_size or num_buffers");
        // under mpirun/srun: one Cluster (MPI where libmpi loads) for the whole command; rank 0 reports
        // the workload as read (a --config path may name different files on different hosts), not
        // its output folder: each rank's own files may go to its own
        String workload = String.join("\n", c.framework(), c.model().toString(), c.workflow().toString(),
                c.checkpoint().toString(), c.streaming().toString(), c.storage().toString());
        try (Ranks launched = Ranks.open(command, env, Map.of("workload", workload))) {
            RankGroup group = launch.launched() ? RankGroup.of(launched.cluster()) : RankGroup.inProcess(ranks);
            DlioRun.Options options = DlioRun.Options.defaults().withVerify(verify).withParallel(parallel)
                    .withThreads(launched.threads(threads)).withEnvironment(env.variables())
                    .withCustomize(b -> storage.apply(b).resetPeakRss(true)) // each file's peak RSS from its start
                    .withLog(json ? line -> { } : line -> {
                        out.println(line);
                        out.flush();
                    });
            Long seed = launched.baseSeed(null); // rank 0's seed on every rank: a rank may read another's files
            if (seed != null) {
                options = options.withSeed(seed);
            }
            DlioResult r = DlioRun.run(plan, group, options);
            r.write(dir);
            if (group.hostsRankZero()) {
                print(out, r, dir, group);
            }
        }
        out.flush();
        return 0;
    }

    /**
     * Refuses a run whose checkpoints do not fit in the free space of {@code dir}'s filesystem: every checkpoint
     * written stays (the loads read them back), so the run needs num_checkpoints_write times the files of
     * {@code ranks}, less what those files already hold there (a save replaces a file, then frees the old copy).
     */
    private static void checkRoom(CheckpointPlan plan, Path dir, java.util.List<Integer> ranks) {
        int kept = plan.config().checkpoint().numCheckpointsWrite();
        if (kept <= 0) {
            return;
        }
        long perCheckpoint = 0;
        for (int r : ranks) {
            perCheckpoint += plan.rank(r).bytes();
        }
        long there = 0;
        for (int step = 1; step <= kept; step++) {
            Path stepDir = dir.resolve(CheckpointPlan.stepFolder(1, step));
            if (!java.nio.file.Files.isDirectory(stepDir)) {
                continue;
            }
            for (int r : ranks) {
                for (CheckpointPlan.PlannedFile f : plan.rank(r).files()) {
                    try {
                        Path file = stepDir.resolve(f.name());
                        there += java.nio.file.Files.isRegularFile(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                                ? Math.min(java.nio.file.Files.size(file), f.bytes()) : 0;
                    } catch (IOException e) {
                        // unreadable: counted as absent, the need only grows
                    }
                }
            }
        }
        long need = Math.multiplyExact(perCheckpoint, (long) kept) - there;
        java.util.OptionalLong free = Limits.freeSpace(dir);
        if (free.isEmpty() || need <= free.getAsLong()) {
            return;
        }
        throw new IllegalArgumentException(String.format(Locale.ROOT, "dlio run needs %s on %s (%s of %s kept at once%s%s)"
                        + " but %s is free: free space, lower num_checkpoints_write, or --force to run anyway",
                ByteSize.roundedUp(need), dir.toAbsolutePath().normalize(), Reports.count(kept, "checkpoint"),
                ByteSize.approx(perCheckpoint), ranks.size() == 1 && plan.ranks() > 1 ? ", rank " + ranks.get(0) + "'s files" : "",
                there > 0 ? ", less " + ByteSize.approx(there) + " already there" : "", ByteSize.approx(free.getAsLong())));
    }

    /** Rank 0's closing lines: DLIO's [METRIC] block, then ours (or summary.json's object with --json). */
    private void print(PrintWriter out, DlioResult r, Path dir, RankGroup group) {
        if (json) {
            out.println(JsonWriter.ASCII_LINE.write(r.summary()));
            return;
        }
        out.println(DlioResultLines.timestamped("Averaged metric over all steps/epochs"));
        r.metricLines().forEach(out::println);
        long saves = r.files().stream().filter(f -> f.operation().equals("save")).count();
        long loads = r.files().stream().filter(f -> f.operation().equals("load")).count();
        String scope;
        if (group.alone().isPresent()) {
            scope = "rank " + group.localRanks().get(0) + " alone";
        } else if (group.localRanks().size() == group.size()) {
            scope = Reports.count(group.size(), "rank") + " in this process";
        } else {
            // every rank's files: the plan's, as many times as the checkpoints
            scope = group.size() + " ranks (all ranks' bytes / the slowest rank's time)";
            saves = (long) r.plan().fileCount() * Math.max(0, r.plan().config().checkpoint().numCheckpointsWrite());
            loads = (long) r.plan().fileCount() * Math.max(0, r.plan().config().checkpoint().numCheckpointsRead());
        }
        // DLIO's lines keep DLIO's words ("GB" for GiB), so that they read and parse as DLIO's; ours say both
        out.println(UNITS);
        out.printf(Locale.ROOT, "dgen4j: %s: %s, %d bytes saved at %.3f GB/s = %.3f GiB/s, %s, %d bytes loaded at "
                        + "%.3f GB/s = %.3f GiB/s%s; peak RSS %.1f MiB; outputs in %s%n", scope, Reports.count(saves, "file"),
                r.savedBytes(), r.saveGBps(), r.saveGBps() * GIB_PER_GB, Reports.count(loads, "file"), r.loadedBytes(),
                r.loadGBps(), r.loadGBps() * GIB_PER_GB, verify ? " (verified)" : "", r.peakRssBytes() / 1048576.0, dir);
    }

    /** The one line that says what "GB" means above (DLIO's) and below (ours). */
    static final String UNITS = "dgen4j: units: DLIO's \"GB\" above (each checkpoint's Throughput, the [METRIC] lines,"
            + " summary.json) are GiB, 2^30 bytes, as DLIO computes them; below, GB/s is 10^9 bytes/s and GiB/s 2^30";

    /** GB (10^9 bytes) in GiB (2^30 bytes). */
    private static final double GIB_PER_GB = 1e9 / (1L << 30);

    /** DLIO's line prefix. */
    static final class DlioResultLines {
        private DlioResultLines() {}

        static String timestamped(String line) {
            return java.time.LocalDateTime.now().format(java.time.format.DateTimeFormatter.ofPattern(
                    "yyyy-MM-dd'T'HH:mm:ss.SSSSSS", Locale.ROOT)) + " " + line;
        }
    }
}
