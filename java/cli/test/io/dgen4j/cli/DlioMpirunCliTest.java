package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.dlio.CheckpointPlan;
import io.dgen4j.dlio.DlioConfigReader;
import io.dgen4j.launch.Mpirun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dgen4j dlio run} under a real {@code mpirun -np 2} (Open MPI, libmpi through FFM): each rank
 * saves and loads its own files of the plan, rank 0 alone lists the folder, writes summary.json with
 * every rank's figures and prints DLIO's [METRIC] block; a rank that fails makes both exit non-zero,
 * and neither hangs. The tiny workload with pipeline 1 is TP 2 x PP 1: a plan of exactly 2 ranks.
 */
class DlioMpirunCliTest {
    private static final Pattern TAG = Pattern.compile("^\\[\\d+,(\\d+)\\]<(stdout|stderr)>:(.*)$");
    private static final List<String> SUMMARY_KEYS = List.of("metric.save_checkpoint_io_mean_GB_per_second",
            "metric.save_checkpoint_io_stdev_GB_per_second", "metric.save_checkpoint_duration_mean_seconds",
            "metric.save_checkpoint_duration_stdev_seconds", "metric.load_checkpoint_io_mean_GB_per_second",
            "metric.load_checkpoint_io_stdev_GB_per_second", "metric.load_checkpoint_duration_mean_seconds",
            "metric.load_checkpoint_duration_stdev_seconds", "metric.checkpoint_size_GB", "start", "end",
            "num_accelerators", "num_hosts", "hostname", "host_cpu_count", "host_memory_GB");

    @TempDir
    Path dir;

    private static String tiny() {
        return Path.of(System.getProperty("dgen4j.test.root", ".")).resolve("configs/dlio/tiny.yaml")
                .toAbsolutePath().toString();
    }

    /** The run's arguments: the tiny workload on 2 ranks, its folder under this test's. */
    private List<String> args(String output, String... extra) {
        List<String> a = new ArrayList<>(List.of("dlio", "run", "--config", tiny(), "--output", output,
                "++workload.model.parallelism.pipeline=1",
                "++workload.checkpoint.checkpoint_folder=" + dir.resolve("ckpt")));
        a.addAll(List.of(extra));
        return a;
    }

    private CheckpointPlan plan() throws Exception {
        return CheckpointPlan.of(DlioConfigReader.read(Path.of(tiny()), List.of("++workload.model.parallelism.pipeline=1",
                "++workload.checkpoint.checkpoint_folder=" + dir.resolve("ckpt"))), 2);
    }

    private Mpirun.Result mpirun(List<String> command) throws Exception {
        return Mpirun.run(dir, Map.of(), command, 120);
    }

    private static List<String> java(List<String> args) {
        return Mpirun.java(Main.class.getName(), args.toArray(String[]::new));
    }

    /** Each rank's lines of {@code stream} (stdout or stderr) under --tag-output, by rank. */
    private static Map<Integer, List<String>> byRank(String text, String stream) {
        Map<Integer, List<String>> by = new TreeMap<>();
        for (String line : text.lines().toList()) {
            Matcher m = TAG.matcher(line);
            if (m.matches() && m.group(2).equals(stream)) {
                by.computeIfAbsent(Integer.parseInt(m.group(1)), k -> new ArrayList<>()).add(m.group(3));
            }
        }
        return by;
    }

    private static Object at(Map<String, Object> json, String dotted) {
        Object v = json;
        for (String k : dotted.split("\\.")) {
            assertTrue(v instanceof Map<?, ?>, dotted + " in " + json);
            Map<?, ?> m = (Map<?, ?>) v;
            assertTrue(m.containsKey(k), dotted + " in " + json);
            v = m.get(k);
        }
        return v;
    }

    @Test
    void twoRanksWriteTheirOwnFilesAndRankZeroAloneSummarizesEveryRank() throws Exception {
        CheckpointPlan plan = plan();
        assertEquals(2, plan.ranks());
        // MPMD: one rank per command line, each with its own --output, so that who wrote what shows
        List<String> cmd = new ArrayList<>(Mpirun.prefix(1, "--tag-output"));
        cmd.addAll(java(args(dir.resolve("out0").toString(), "--verify")));
        cmd.addAll(List.of(":", "-np", "1"));
        cmd.addAll(java(args(dir.resolve("out1").toString(), "--verify")));
        Mpirun.Result r = mpirun(cmd);
        assertEquals(0, r.code(), "stdout:\n" + r.out() + "\nstderr:\n" + r.err());
        assertFalse((r.out() + r.err()).contains("without MPI"), r.out() + r.err());

        // each rank's files of both checkpoints, of the plan's exact sizes, and nothing else
        for (int step = 1; step <= 2; step++) {
            Path stepDir = dir.resolve("ckpt").resolve(CheckpointPlan.stepFolder(1, step));
            List<String> expected = new ArrayList<>();
            for (int rank = 0; rank < 2; rank++) {
                for (CheckpointPlan.PlannedFile f : plan.rank(rank).files()) {
                    assertEquals(f.bytes(), Files.size(stepDir.resolve(f.name())), stepDir + "/" + f.name());
                    expected.add(f.name());
                }
            }
            try (var s = Files.list(stepDir)) {
                assertEquals(expected.stream().sorted().toList(), s.map(p -> p.getFileName().toString())
                        .filter(n -> !n.endsWith(".manifest.json")).sorted().toList());
            }
        }

        // rank 0 alone prints, once: DLIO's lines and the [METRIC] block over both ranks
        Map<Integer, List<String>> out = byRank(r.out(), "stdout");
        assertEquals(List.of(0), List.copyOf(out.keySet()), r.out());
        List<String> lines = out.get(0);
        assertEquals(1, lines.stream().filter(l -> l.equals("[METRIC] Number of Simulated Accelerators: 2")).count(),
                r.out());
        assertEquals(4, lines.stream().filter(l -> l.matches(".* Finished (saving|loading) checkpoint [12] for epoch 1 "
                + "in \\d+\\.\\d{4} s; Throughput: \\d+\\.\\d{4} GB/s \\(2 ranks, " + plan.totalBytes()
                + " bytes, slowest rank [01]\\)")).count(), r.out());
        String last = lines.get(lines.size() - 1);
        assertTrue(last.startsWith("dgen4j: 2 ranks (all ranks' bytes / the slowest rank's time): "
                + 2 * plan.fileCount() + " files, " + 2 * plan.totalBytes() + " bytes saved at "), last);
        assertTrue(last.contains(2 * plan.totalBytes() + " bytes loaded at ") && last.contains("(verified)"), last);
        System.out.println("mpirun -np 2 dlio run:\n" + String.join("\n", lines));

        // summary.json by rank 0 alone, with every rank's figures
        assertFalse(Files.exists(dir.resolve("out1/summary.json")), "rank 1 writes no summary.json");
        Map<String, Object> summary = JsonRead.object(Files.readString(dir.resolve("out0/summary.json")));
        for (String k : SUMMARY_KEYS) {
            at(summary, k);
        }
        assertEquals(2L, ((Number) at(summary, "num_accelerators")).longValue());
        assertEquals(plan.totalBytes() / 1073741824.0, ((Number) at(summary, "metric.checkpoint_size_GB")).doubleValue());
        assertTrue(((Number) at(summary, "metric.save_checkpoint_io_mean_GB_per_second")).doubleValue() > 0, summary.toString());
        assertTrue(String.valueOf(at(summary, "dgen4j.aggregate")).startsWith("every rank"), summary.toString());
        assertEquals(2 * plan.totalBytes(), ((Number) at(summary, "dgen4j.allRanksSavedBytes")).longValue());
        assertEquals(2 * plan.totalBytes(), ((Number) at(summary, "dgen4j.allRanksLoadedBytes")).longValue());
        assertEquals(Boolean.TRUE, at(summary, "dgen4j.verified"));

        // every rank's own files, in its own output folder, each load verified
        for (int rank = 0; rank < 2; rank++) {
            Path o = dir.resolve("out" + rank);
            Map<String, Object> stats = JsonRead.object(Files.readString(o.resolve(rank + "_per_epoch_stats.json")));
            for (String k : List.of("save_ckpt1", "save_ckpt2", "load_ckpt1", "load_ckpt2")) {
                assertTrue(((Number) at(stats, "1." + k + ".duration")).doubleValue() > 0, stats.toString());
            }
            Map<String, Object> own = JsonRead.object(Files.readString(o.resolve(rank + "_output.json")));
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> files = (List<Map<String, Object>>) at(own, "dgen4j.files");
            assertEquals(4 * plan.rank(rank).files().size(), files.size(), files.toString());
            for (Map<String, Object> f : files) {
                if (f.get("operation").equals("load")) {
                    assertEquals(Boolean.TRUE, f.get("verified"), f.toString());
                }
            }
            int other = 1 - rank;
            assertFalse(Files.exists(o.resolve(other + "_output.json")), "rank " + rank + " writes its own files only");
        }
    }

    @Test
    void aRankMissingAFileMakesBothRanksFailWithoutHanging() throws Exception {
        CheckpointPlan plan = plan();
        // the checkpoint, written by both ranks in one process
        CliTest.Result write = CliTest.run(args(dir.resolve("w").toString(), "--ranks", "2",
                "++workload.checkpoint.num_checkpoints_write=1", "++workload.checkpoint.num_checkpoints_read=0")
                .toArray(String[]::new));
        assertEquals(0, write.code(), write.err());
        String gone = plan.rank(1).files().get(0).name();
        Files.delete(dir.resolve("ckpt").resolve(CheckpointPlan.stepFolder(1, 1)).resolve(gone));

        List<String> cmd = new ArrayList<>(Mpirun.prefix(2, "--tag-output"));
        cmd.addAll(java(args(dir.resolve("out").toString(), "--verify", "++workload.checkpoint.num_checkpoints_write=0",
                "++workload.checkpoint.num_checkpoints_read=1")));
        Mpirun.Result r = mpirun(cmd);
        assertNotEquals(0, r.code(), r.out() + r.err());
        Map<Integer, List<String>> err = byRank(r.out() + "\n" + r.err(), "stderr");
        String rank1 = String.join("\n", err.getOrDefault(1, List.of()));
        String rank0 = String.join("\n", err.getOrDefault(0, List.of()));
        assertTrue(rank1.contains(gone), "rank 1 names its missing file:\n" + r.out() + r.err());
        assertTrue(rank0.contains("load_ckpt1: rank [1] failed"), "rank 0 names the rank that failed:\n" + r.out()
                + r.err());
        assertFalse(Files.exists(dir.resolve("out/summary.json")), "no summary of a failed run");
    }

    @Test
    void rankZeroListsTheFolderForEveryRank() throws Exception {
        // nothing was written: rank 0's listing finds no checkpoint, and both ranks refuse to read
        List<String> cmd = new ArrayList<>(Mpirun.prefix(2, "--tag-output"));
        cmd.addAll(java(args(dir.resolve("out").toString(), "++workload.checkpoint.num_checkpoints_write=0",
                "++workload.checkpoint.num_checkpoints_read=2")));
        Mpirun.Result r = mpirun(cmd);
        assertNotEquals(0, r.code(), r.out() + r.err());
        Map<Integer, List<String>> err = byRank(r.out() + "\n" + r.err(), "stderr");
        for (int rank = 0; rank < 2; rank++) {
            assertTrue(String.join("\n", err.getOrDefault(rank, List.of())).contains("2 checkpoints to read "
                    + "(checkpoint.num_checkpoints_read) but " + dir.resolve("ckpt") + " holds 0 (missing: "
                    + "global_epoch1_step1, global_epoch1_step2)"), rank + ":\n" + r.out() + r.err());
        }
    }

    @Test
    void withoutMpiEachRankWorksAloneAndSaysSoOnce() throws Exception {
        List<String> cmd = new ArrayList<>(Mpirun.prefix(2, "--tag-output"));
        List<String> java = new ArrayList<>(java(args(dir.resolve("out").toString(),
                "++workload.checkpoint.num_checkpoints_read=0", "++workload.checkpoint.num_checkpoints_write=1")));
        java.add(1, "-Ddgen4j.mpi.disable=true");
        cmd.addAll(java);
        Mpirun.Result r = mpirun(cmd);
        assertEquals(0, r.code(), r.out() + r.err());
        Map<Integer, List<String>> err = byRank(r.out() + "\n" + r.err(), "stderr");
        for (int rank = 0; rank < 2; rank++) {
            assertEquals(1, err.getOrDefault(rank, List.of()).stream().filter(l -> l.contains("without MPI")).count(),
                    rank + ":\n" + r.out() + r.err());
        }
        assertEquals(List.of(0), List.copyOf(byRank(r.out(), "stdout").keySet()), r.out());
        Map<String, Object> summary = JsonRead.object(Files.readString(dir.resolve("out/summary.json")));
        assertTrue(String.valueOf(at(summary, "dgen4j.aggregate")).startsWith("this rank alone"), summary.toString());
        for (int rank = 0; rank < 2; rank++) {
            assertTrue(Files.exists(dir.resolve("out/" + rank + "_output.json")));
        }
    }
}
