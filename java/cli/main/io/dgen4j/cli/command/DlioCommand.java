package io.dgen4j.cli.command;

import io.dgen4j.cli.Main;
import io.dgen4j.cli.Ranks;
import io.dgen4j.dlio.CheckpointPlan;
import io.dgen4j.dlio.DlioConfig;
import io.dgen4j.dlio.DlioConfigReader;
import io.dgen4j.launch.LaunchInfo;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code dgen4j dlio}: DLIO benchmark workloads (plan, run). */
@Command(name = "dlio", mixinStandardHelpOptions = true,
        description = {"DLIO benchmark workloads: the checkpoint phase of a DLIO workload YAML, sized, named and",
                "reported as DLIO does, written with streaming checkpoints. DLIO's \"GB\" are GiB (2^30 bytes)."},
        subcommands = {DlioPlanCommand.class, DlioRunCommand.class})
public final class DlioCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing a command: plan or run");
    }

    /** The options plan and run share: the config, its overrides and the number of ranks. */
    static final class ConfigOptions {
        @Option(names = "--config", required = true, paramLabel = "FILE",
                description = "DLIO workload YAML (e.g. configs/dlio/llama3_8b.yaml).")
        Path config;

        @Option(names = "--ranks", paramLabel = "N",
                description = "Ranks (DLIO's processes). Default: the launcher's (mpirun, srun), else 1.")
        Integer ranks;

        @Parameters(paramLabel = "OVERRIDE", arity = "0..*",
                description = "Hydra-style overrides: ++workload.checkpoint.checkpoint_folder=/mnt/ckpt, "
                        + "workload.model.parallelism.zero_stage=3, ...")
        List<String> overrides = new ArrayList<>();

        /** The config with its overrides; warnings go to {@code err}. */
        DlioConfig read(PrintWriter err) throws IOException {
            if (!Files.exists(config)) {
                throw new IllegalArgumentException("--config: no such file: " + config);
            }
            DlioConfig c = DlioConfigReader.read(config, overrides);
            for (String w : c.warnings()) {
                err.println("dgen4j: warning: " + config + ": " + w);
            }
            err.flush();
            return c;
        }

        /** The launch this process is part of. */
        LaunchInfo launch() {
            return LaunchInfo.fromEnvironment(Main.environment());
        }

        /** The number of ranks: --ranks, else the launcher's size. */
        int ranks(LaunchInfo launch) {
            if (ranks != null) {
                if (ranks < 1) {
                    throw new IllegalArgumentException("--ranks must be at least 1, got " + ranks);
                }
                if (launch.launched() && ranks != launch.size()) {
                    throw new IllegalArgumentException(String.format(Locale.ROOT,
                            "--ranks %d disagrees with the launcher's %d ranks (%s): leave --ranks out under a launcher",
                            ranks, launch.size(), launch.launcher()));
                }
                return ranks;
            }
            return launch.size();
        }
    }

    /** Prints a plan as text: per-rank files and sizes (or one line per kind of rank with {@code brief}), then the total. */
    static void print(PrintWriter out, CheckpointPlan plan, Path source, boolean brief) {
        DlioConfig c = plan.config();
        DlioConfig.Parallelism p = c.model().parallelism();
        out.printf(Locale.ROOT, "DLIO checkpoint plan: %s (%s) at %d ranks%n", c.model().name(), source, plan.ranks());
        out.printf(Locale.ROOT, "  parameters %d; tensor %d x pipeline %d x data %d; ZeRO stage %d; model %s, optimizer %s%n",
                plan.parameters(), p.tensor(), p.pipeline(), plan.dataParallelism(), p.zeroStage(),
                c.model().modelDatatype().yamlName(), c.model().optimizerDatatype().yamlName());
        out.printf(Locale.ROOT, "  files under %s/%s/ (one folder per checkpoint)%n", c.checkpoint().folder(),
                "global_epoch1_step<N>");
        if (brief) {
            printBrief(out, plan);
        } else {
            out.printf(Locale.ROOT, "%6s %4s %4s %4s %9s %6s %16s %12s%n", "rank", "tp", "pp", "dp", "layers", "files",
                    "bytes", "GiB");
            for (CheckpointPlan.RankPlan r : plan.rankPlans()) {
                out.printf(Locale.ROOT, "%6d %4d %4d %4d %9s %6d %16d %12.4f%n", r.rank(), r.tensorRank(),
                        r.pipelineRank(), r.dataRank(), layers(r), r.files().size(), r.bytes(),
                        CheckpointPlan.gib(r.bytes()));
                for (CheckpointPlan.PlannedFile f : r.files()) {
                    out.printf(Locale.ROOT, "         %-52s %16d %12.4f%n", f.name(), f.bytes(),
                            CheckpointPlan.gib(f.bytes()));
                }
            }
        }
        out.printf(Locale.ROOT, "total per checkpoint: %d files, %d bytes = %.2f GiB (DLIO logs %.6f \"GB\", which are GiB)%n",
                plan.fileCount(), plan.totalBytes(), CheckpointPlan.gib(plan.totalBytes()),
                CheckpointPlan.gib(plan.totalBytes()));
        out.printf(Locale.ROOT, "  model state %d bytes (%.2f GiB), optimizer state %d bytes (%.2f GiB)%n",
                plan.modelBytes(), CheckpointPlan.gib(plan.modelBytes()), plan.optimizerBytes(),
                CheckpointPlan.gib(plan.optimizerBytes()));
        if (plan.dlioLoggedBytes() != plan.totalBytes()) {
            out.printf(Locale.ROOT, "  note: DLIO's log would say %.6f GB: it counts state it does not write (see docs/DLIO.md)%n",
                    CheckpointPlan.gib(plan.dlioLoggedBytes()));
        }
        int w = c.checkpoint().numCheckpointsWrite();
        if (w > 0) {
            out.printf(Locale.ROOT, "  %d checkpoints written: %d bytes (%.2f GiB)%n", w, plan.totalBytes() * w,
                    CheckpointPlan.gib(plan.totalBytes() * w));
        }
    }

    private static void printBrief(PrintWriter out, CheckpointPlan plan) {
        // ranks whose files have the same sizes, in order of first appearance
        java.util.Map<List<Long>, List<Integer>> kinds = new java.util.LinkedHashMap<>();
        for (CheckpointPlan.RankPlan r : plan.rankPlans()) {
            kinds.computeIfAbsent(r.files().stream().map(CheckpointPlan.PlannedFile::bytes).toList(),
                    k -> new ArrayList<>()).add(r.rank());
        }
        out.printf(Locale.ROOT, "%8s %-22s %6s %16s %12s%n", "ranks", "e.g. ranks", "files", "bytes/rank", "GiB/rank");
        kinds.forEach((sizes, ranks) -> {
            long bytes = sizes.stream().mapToLong(Long::longValue).sum();
            String eg = ranks.size() <= 3 ? ranks.toString()
                    : "[" + ranks.get(0) + ", " + ranks.get(1) + ", ..., " + ranks.get(ranks.size() - 1) + "]";
            out.printf(Locale.ROOT, "%8d %-22s %6d %16d %12.4f%n", ranks.size(), eg, sizes.size(), bytes,
                    CheckpointPlan.gib(bytes));
        });
    }

    private static String layers(CheckpointPlan.RankPlan r) {
        return r.firstLayer() < 0 || r.files().isEmpty() ? "-" : r.firstLayer() + "-" + r.lastLayer();
    }
}
