package io.dgen4j.dlio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.dgen4j.checkpoint.BufferPool;
import io.dgen4j.checkpoint.VerifyException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real run of the tiny config: files written with their exact sizes, read back and verified, DLIO's outputs. */
class DlioRunTest {

    @TempDir
    Path dir;

    /** A run maps its ranks' buffer pools once and frees them at its end, after a failure too. */
    @AfterEach
    void noBufferLeaks() {
        assertEquals(0, BufferPool.liveBytes(), "buffer memory left allocated after the run");
    }

    private DlioConfig tiny(String... more) throws IOException {
        // raw, pinned: these tests check the run's mechanics on the tensors' bytes (DlioTorchTest runs torch files)
        List<String> o = new ArrayList<>(List.of("++workload.checkpoint.checkpoint_folder=" + dir.resolve("ckpt"),
                CheckpointPlanTest.RAW));
        o.addAll(List.of(more));
        return DlioConfigReader.read(CheckpointPlanTest.root().resolve("configs/dlio/tiny.yaml"), o);
    }

    /** Every key path of a JSON document ({@code metric.checkpoint_size_GB}, ...), parsed with a real parser. */
    static Set<String> keys(Path json) throws IOException {
        Set<String> keys = new HashSet<>();
        try (JsonParser p = new JsonFactory().createParser(json.toFile())) {
            List<String> path = new ArrayList<>();
            String field = null;
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                switch (t) {
                    case FIELD_NAME -> {
                        field = p.currentName();
                        keys.add(String.join(".", path) + (path.isEmpty() ? "" : ".") + field);
                    }
                    case START_OBJECT -> {
                        if (field != null) {
                            path.add(field);
                        }
                        field = null;
                    }
                    case END_OBJECT -> {
                        if (!path.isEmpty()) {
                            path.removeLast();
                        }
                    }
                    default -> { }
                }
            }
        }
        return keys;
    }

    @Test
    void tiny_config_writes_reads_and_verifies_with_dlios_outputs() throws Exception {
        DlioConfig c = tiny();
        CheckpointPlan plan = CheckpointPlan.of(c, 8);
        List<String> lines = new ArrayList<>();
        DlioResult r = DlioRun.run(plan, RankGroup.inProcess(8),
                DlioRun.Options.defaults().withVerify(true).withParallel(3).withLog(lines::add));

        // every planned file of both checkpoints, exact size, nothing else but the manifests
        for (int step = 1; step <= 2; step++) {
            Path stepDir = dir.resolve("ckpt").resolve(CheckpointPlan.stepFolder(1, step));
            Set<String> expected = new HashSet<>();
            for (CheckpointPlan.RankPlan rp : plan.rankPlans()) {
                for (CheckpointPlan.PlannedFile f : rp.files()) {
                    assertEquals(f.bytes(), Files.size(stepDir.resolve(f.name())), f.name());
                    expected.add(f.name());
                }
            }
            try (var s = Files.list(stepDir)) {
                Set<String> data = new HashSet<>(s.map(p -> p.getFileName().toString())
                        .filter(n -> !n.endsWith(".manifest.json")).toList());
                assertEquals(expected, data);
            }
        }
        assertEquals(22, plan.fileCount());
        assertEquals(88, r.files().size()); // 22 files x (2 saves + 2 loads)
        assertTrue(r.files().stream().filter(f -> f.operation().equals("load"))
                .allMatch(f -> Boolean.TRUE.equals(f.details().get("verified"))));
        assertEquals(2 * plan.totalBytes(), r.files().stream().filter(f -> f.operation().equals("save"))
                .mapToLong(DlioRun.FileResult::bytes).sum());

        Path out = dir.resolve("output");
        r.write(out);
        Set<String> summary = keys(out.resolve("summary.json"));
        for (String k : List.of("metric.save_checkpoint_io_mean_GB_per_second",
                "metric.save_checkpoint_io_stdev_GB_per_second", "metric.save_checkpoint_duration_mean_seconds",
                "metric.save_checkpoint_duration_stdev_seconds", "metric.load_checkpoint_io_mean_GB_per_second",
                "metric.load_checkpoint_io_stdev_GB_per_second", "metric.load_checkpoint_duration_mean_seconds",
                "metric.load_checkpoint_duration_stdev_seconds", "metric.checkpoint_size_GB", "start", "end",
                "num_hosts", "hostname", "host_cpu_count", "host_memory_GB", "dgen4j.peakRssBytes",
                "dgen4j.saveFsyncSeconds", "dgen4j.saveBottleneck", "dgen4j.fsync")) {
            assertTrue(summary.contains(k), k + " in " + summary);
        }
        // checkpoint_size_GB is GiB, as DLIO's
        assertEquals(plan.totalBytes() / 1073741824.0,
                ((java.util.Map<?, ?>) r.summary().get("metric")).get("checkpoint_size_GB"));
        for (int rank = 0; rank < 8; rank++) {
            Set<String> stats = keys(out.resolve(rank + "_per_epoch_stats.json"));
            for (String k : List.of("1.save_ckpt1.start", "1.save_ckpt1.end", "1.save_ckpt1.duration",
                    "1.save_ckpt1.throughput", "1.save_ckpt2.throughput", "1.load_ckpt1.duration",
                    "1.load_ckpt2.throughput")) {
                assertTrue(stats.contains(k), rank + ": " + k + " in " + stats);
            }
            assertTrue(keys(out.resolve(rank + "_output.json")).contains("dgen4j.files"));
        }
        assertTrue(lines.stream().anyMatch(l -> l.endsWith("Total checkpoint size: 0.046291 GB (49704960 bytes in "
                + "22 files per checkpoint)")), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.contains("fsync: on")), lines.toString());
        List<String> metric = r.metricLines();
        assertTrue(metric.get(1).equals("[METRIC] Number of Simulated Accelerators: 8"), metric.toString());
        assertTrue(metric.stream().anyMatch(l -> l.startsWith("[METRIC] Checkpoint save I/O Throughput (GB/second): ")));
        assertTrue(metric.stream().anyMatch(l -> l.startsWith("[METRIC] Checkpoint load duration (seconds): ")));
    }

    @Test
    void a_changed_byte_fails_verification_on_a_read_only_run() throws Exception {
        CheckpointPlan write = CheckpointPlan.of(tiny("++workload.checkpoint.num_checkpoints_write=1",
                "++workload.checkpoint.num_checkpoints_read=0", "++workload.checkpoint.fsync=False"), 4);
        DlioResult w = DlioRun.run(write, RankGroup.inProcess(4), DlioRun.Options.defaults());
        assertEquals(false, w.extras().get("fsync"));
        Path victim = dir.resolve("ckpt/global_epoch1_step1/zero_pp_rank_0_mp_rank_3_optim_states.pt");
        try (RandomAccessFile f = new RandomAccessFile(victim.toFile(), "rw")) {
            f.seek(12345);
            int b = f.read();
            f.seek(12345);
            f.write(b ^ 0x40);
        }
        CheckpointPlan read = CheckpointPlan.of(tiny("++workload.checkpoint.num_checkpoints_write=0",
                "++workload.checkpoint.num_checkpoints_read=1"), 4);
        VerifyException e = assertThrows(VerifyException.class, () -> DlioRun.run(read, RankGroup.inProcess(4),
                DlioRun.Options.defaults().withVerify(true)));
        assertTrue(e.getMessage().contains("zero_pp_rank_0_mp_rank_3_optim_states.pt"), e.getMessage());
    }

    @Test
    void reading_more_checkpoints_than_the_folder_holds_is_refused() throws Exception {
        CheckpointPlan read = CheckpointPlan.of(tiny("++workload.checkpoint.num_checkpoints_write=0",
                "++workload.checkpoint.num_checkpoints_read=2"), 4);
        IOException e = assertThrows(IOException.class, () -> DlioRun.run(read, RankGroup.inProcess(4),
                DlioRun.Options.defaults()));
        assertTrue(e.getMessage().contains("2 checkpoints to read (checkpoint.num_checkpoints_read) but"),
                e.getMessage());
        assertFalse(Files.exists(dir.resolve("ckpt/global_epoch1_step1")));
    }

    @Test
    void the_summary_is_every_ranks_bytes_over_the_slowest_ranks_time() throws Exception {
        CheckpointPlan plan = CheckpointPlan.of(tiny("++workload.checkpoint.rank_sync=False"), 4);
        DlioResult r = DlioRun.run(plan, RankGroup.inProcess(4), DlioRun.Options.defaults().withParallel(2));
        assertTrue(r.aggregated());
        java.util.Map<?, ?> metric = (java.util.Map<?, ?>) r.summary().get("metric");
        for (String op : List.of("save", "load")) {
            // per checkpoint: the slowest of the 4 ranks' durations (their per-epoch stats), and the whole
            // checkpoint's GiB over it; then DLIO's mean and population standard deviation over checkpoints
            List<Double> slowest = new ArrayList<>();
            for (int i = 1; i <= 2; i++) {
                double max = 0;
                for (int rank = 0; rank < 4; rank++) {
                    java.util.Map<?, ?> e = (java.util.Map<?, ?>) ((java.util.Map<?, ?>) r.perEpochStats(rank).get("1"))
                            .get(op + "_ckpt" + i);
                    max = Math.max(max, (Double) e.get("duration"));
                }
                slowest.add(max);
            }
            double gib = plan.totalBytes() / 1073741824.0;
            double meanDuration = (slowest.get(0) + slowest.get(1)) / 2;
            double meanIo = (gib / slowest.get(0) + gib / slowest.get(1)) / 2;
            double stdevIo = Math.abs(gib / slowest.get(0) - gib / slowest.get(1)) / 2;
            assertEquals(meanDuration, (Double) metric.get(op + "_checkpoint_duration_mean_seconds"), 1e-6, op);
            assertEquals(meanIo, (Double) metric.get(op + "_checkpoint_io_mean_GB_per_second"), 1e-6 * meanIo, op);
            assertEquals(stdevIo, (Double) metric.get(op + "_checkpoint_io_stdev_GB_per_second"), 1e-6 * meanIo + 1e-12, op);
        }
        assertEquals(2 * plan.totalBytes(), r.savedBytes());
        assertEquals(2 * plan.totalBytes(), r.loadedBytes());
        assertEquals(2 * plan.totalBytes(), r.extras().get("allRanksSavedBytes"));
    }

    @Test
    void a_launched_rank_without_mpi_summarizes_itself_alone() throws Exception {
        CheckpointPlan plan = CheckpointPlan.of(tiny("++workload.checkpoint.num_checkpoints_read=0"), 8);
        RankGroup rank0 = RankGroup.launched(new io.dgen4j.launch.LaunchInfo(0, 8, 0, 8, "openmpi"));
        DlioResult r = DlioRun.run(plan, rank0, DlioRun.Options.defaults());
        assertFalse(r.aggregated());
        assertTrue(String.valueOf(r.extras().get("aggregate")).startsWith("this rank alone: no MPI"),
                r.extras().toString());
        // DLIO's per-rank figure: the whole checkpoint's GiB over rank 0's own time
        java.util.Map<?, ?> e = (java.util.Map<?, ?>) ((java.util.Map<?, ?>) r.perEpochStats(0).get("1")).get("save_ckpt1");
        java.util.Map<?, ?> e2 = (java.util.Map<?, ?>) ((java.util.Map<?, ?>) r.perEpochStats(0).get("1")).get("save_ckpt2");
        double mean = ((Double) e.get("throughput") + (Double) e2.get("throughput")) / 2;
        assertEquals(mean, (Double) ((java.util.Map<?, ?>) r.summary().get("metric"))
                .get("save_checkpoint_io_mean_GB_per_second"), 1e-9 * mean);
        assertEquals(2 * plan.rank(0).bytes(), r.savedBytes());
    }

    @Test
    void a_launched_rank_writes_only_its_own_files() throws Exception {
        CheckpointPlan plan = CheckpointPlan.of(tiny("++workload.checkpoint.num_checkpoints_write=1",
                "++workload.checkpoint.num_checkpoints_read=0"), 8);
        RankGroup rank2 = RankGroup.launched(new io.dgen4j.launch.LaunchInfo(2, 8, 2, 8, "openmpi"));
        DlioResult r = DlioRun.run(plan, rank2, DlioRun.Options.defaults());
        try (var s = Files.list(dir.resolve("ckpt/global_epoch1_step1"))) {
            assertEquals(plan.rank(2).files().stream().map(CheckpointPlan.PlannedFile::name).sorted().toList(),
                    s.map(p -> p.getFileName().toString()).filter(n -> !n.endsWith(".manifest.json")).sorted()
                            .toList());
        }
        List<Path> written = r.write(dir.resolve("out"));
        assertEquals(List.of(dir.resolve("out/2_per_epoch_stats.json"), dir.resolve("out/2_output.json")), written);
    }

    @Test
    void empty_states_are_empty_files() throws Exception {
        DlioConfig c = DlioConfigReader.parse(CheckpointPlanTest.PREDEFINED, "inline",
                List.of("++workload.checkpoint.checkpoint_folder=" + dir.resolve("ckpt"),
                        "++workload.checkpoint.num_checkpoints_write=1", "++workload.checkpoint.num_checkpoints_read=1",
                        "++workload.checkpoint.fsync=True"));
        DlioResult r = DlioRun.run(CheckpointPlan.of(c, 2), RankGroup.inProcess(2),
                DlioRun.Options.defaults().withVerify(true));
        assertEquals(0, Files.size(dir.resolve("ckpt/global_epoch1_step1/zero_pp_rank_0_mp_rank_1_optim_states.pt")));
        assertEquals(10_240, Files.size(dir.resolve("ckpt/global_epoch1_step1/model_states-1.pt")));
        assertEquals(12, r.files().size());
    }

    @Test
    void a_workload_without_a_checkpoint_phase_is_refused() throws Exception {
        CheckpointPlan plan = CheckpointPlan.of(tiny("++workload.workflow.checkpoint=False"), 4);
        DlioConfigException e = assertThrows(DlioConfigException.class, () -> DlioRun.run(plan,
                RankGroup.inProcess(4), DlioRun.Options.defaults()));
        assertEquals("workflow.checkpoint", e.key());
    }
    @Test
    void what_a_run_would_meet_halfway_is_refused_before_its_first_byte() throws Exception {
        // a checkpoint folder that is a file
        Path file = Files.writeString(dir.resolve("not-a-folder"), "x");
        CheckpointPlan plan = CheckpointPlan.of(tiny("++workload.checkpoint.checkpoint_folder=" + file), 4);
        DlioConfigException folder = assertThrows(DlioConfigException.class, () -> DlioRun.run(plan,
                RankGroup.inProcess(4), DlioRun.Options.defaults()));
        assertEquals("checkpoint.checkpoint_folder: " + file + " is not a folder", folder.getMessage());
        // a file of 0 bytes to an object store: refused up front, not after the other files were written
        DlioConfig empty = DlioConfigReader.parse(CheckpointPlanTest.PREDEFINED, "inline",
                List.of("++workload.storage.storage_type=s3", "++workload.storage.storage_root=bucket",
                        "++workload.checkpoint.num_checkpoints_write=1"));
        DlioConfigException zero = assertThrows(DlioConfigException.class, () -> DlioRun.check(
                CheckpointPlan.of(empty, 2), DlioRun.Options.defaults()));
        assertEquals("storage.storage_root", zero.key());
        assertTrue(zero.getMessage().contains("zero_pp_rank_0_mp_rank_0_optim_states.pt of 0 bytes is planned; "
                + "streaming checkpoints to s3://bucket/checkpoints need at least one byte"), zero.getMessage());
        assertFalse(Files.exists(dir.resolve("ckpt")), "nothing written");
    }

    @Test
    void the_output_folder_is_checked_before_the_run() throws Exception {
        Path file = Files.writeString(dir.resolve("out-file"), "x");
        IllegalArgumentException notAFolder = assertThrows(IllegalArgumentException.class,
                () -> DlioResult.checkOutput(file, "--output", List.of(0)));
        assertEquals("--output " + file + " is a regular file, not a folder", notAFolder.getMessage());
        Path out = Files.createDirectories(dir.resolve("out/summary.json"));
        IllegalArgumentException taken = assertThrows(IllegalArgumentException.class,
                () -> DlioResult.checkOutput(out.getParent(), "--output", List.of(0, 1)));
        assertEquals("--output " + out.getParent() + ": summary.json is a directory, where DLIO's output file goes",
                taken.getMessage());
        DlioResult.checkOutput(out.getParent(), "--output", List.of(1)); // rank 1 alone writes no summary.json
        Path fresh = dir.resolve("new/deeper");
        DlioResult.checkOutput(fresh, "--output", List.of(0));
        assertTrue(Files.isDirectory(fresh));
        try (Stream<Path> s = Files.list(fresh)) {
            assertEquals(0, s.count(), "the probe file is removed");
        }
    }

    @Test
    void theHostNameFallsBackToTheCallersHostnameVariableNotTheProcesss() {
        assertEquals("resolved", DlioResult.hostname(() -> "resolved", java.util.Map.of("HOSTNAME", "from-env")));
        java.util.concurrent.Callable<String> unresolvable = () -> {
            throw new java.net.UnknownHostException("no such host");
        };
        assertEquals("from-env", DlioResult.hostname(unresolvable, java.util.Map.of("HOSTNAME", "from-env")));
        assertEquals("localhost", DlioResult.hostname(unresolvable, java.util.Map.of()));
        DlioRun.Options o = DlioRun.Options.defaults();
        assertEquals(java.util.Map.of(), o.environment(), "an embedder's run reads no process variable");
        o = o.withEnvironment(java.util.Map.of("HOSTNAME", "h")).withVerify(true).withParallel(2).withThreads(1)
                .withSeed(3).withLog(line -> { }).withCustomize(b -> b);
        assertEquals(java.util.Map.of("HOSTNAME", "h"), o.environment(), "kept by every with*");
    }
}
