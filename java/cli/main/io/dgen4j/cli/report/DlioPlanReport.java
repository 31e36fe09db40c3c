package io.dgen4j.cli.report;

import io.dgen4j.dlio.CheckpointPlan;
import io.dgen4j.dlio.DlioConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** {@code dgen4j dlio plan}'s text: per-rank files and sizes, then the total. */
public final class DlioPlanReport {
    private DlioPlanReport() {}

    /** Prints a plan as text: per-rank files and sizes (or one line per kind of rank with {@code brief}), then the total. */
    public static void print(PrintWriter out, CheckpointPlan plan, Path source, boolean brief) {
        DlioConfig c = plan.config();
        DlioConfig.Parallelism p = c.model().parallelism();
        out.printf(Locale.ROOT, "DLIO checkpoint plan: %s (%s) at %s%n", c.model().name(), source,
                Reports.count(plan.ranks(), "rank"));
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
                CheckpointPlan.gib(plan.tensorBytes())); // DLIO counts its tensors, not torch.save's framing
        out.printf(Locale.ROOT, "  model state %d bytes (%.2f GiB), optimizer state %d bytes (%.2f GiB)%n",
                plan.modelBytes(), CheckpointPlan.gib(plan.modelBytes()), plan.optimizerBytes(),
                CheckpointPlan.gib(plan.optimizerBytes()));
        if (plan.format() == io.dgen4j.format.Layout.Format.TORCH) {
            out.printf(Locale.ROOT, "  torch.save files of DLIO's state dicts (checkpoint.streaming.format torch%s): %d "
                    + "bytes of tensors and %d of zip and pickle%n", c.streaming().formatSet() ? ""
                    : ", framework pytorch's default", plan.tensorBytes(), plan.totalBytes() - plan.tensorBytes());
        } else {
            out.printf(Locale.ROOT, "  raw files, the tensors' bytes alone (checkpoint.streaming.format raw)%n");
        }
        if (plan.dlioLoggedBytes() != plan.tensorBytes()) {
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
