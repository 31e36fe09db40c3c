package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code dgen4j dlio plan|run}, run in-process: outputs, exit statuses and the messages of bad configs. */
class DlioCliTest {

    private static CliTest.Result run(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true), env);
        return new CliTest.Result(code, out.toString(), err.toString());
    }

    private static CliTest.Result run(String... args) {
        return run(Map.of(), args);
    }

    /** Pins the raw format (framework pytorch's default is torch): the tensors' bytes alone, DLIO's arithmetic. */
    private static final String RAW = "++workload.checkpoint.streaming.format=raw";

    private static String config(String name) {
        return Path.of(System.getProperty("dgen4j.test.root", ".")).resolve("configs/dlio/" + name).toString();
    }

    @Test
    void plan_prints_each_rank_and_the_total() {
        CliTest.Result r = run("dlio", "plan", "--config", config("llama3_8b.yaml"), "--ranks", "8", RAW);
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("raw files, the tensors' bytes alone (checkpoint.streaming.format raw)"), r.out());
        // 8 x (2007565312 + 12045637632) bytes, worked out in CheckpointPlanTest
        assertTrue(r.out().contains("total per checkpoint: 16 files, 112425623552 bytes = 104.70 GiB"), r.out());
        assertTrue(r.out().contains("zero_pp_rank_7_mp_rank_0_optim_states.pt"), r.out());
        assertTrue(r.out().contains("12045637632"), r.out());

        CliTest.Result json = run("dlio", "plan", "--config", config("llama3_405b.yaml"), "--ranks", "512", "--json", RAW);
        assertEquals(0, json.code(), json.err());
        Map<String, Object> j = JsonRead.object(json.out());
        assertEquals(5_682_508_791_808L, ((Number) j.get("totalBytes")).longValue());
        assertEquals(512, ((List<?>) j.get("rankPlans")).size());

        CliTest.Result brief = run("dlio", "plan", "--config", config("llama3_405b.yaml"), "--ranks", "512",
                "--brief");
        assertEquals(0, brief.code(), brief.err());
        assertTrue(brief.out().lines().count() < 20, brief.out());
    }

    @Test
    void plan_shows_the_torch_files_sizes_framework_pytorchs_default() {
        CliTest.Result r = run("dlio", "plan", "--config", config("llama3_8b.yaml"), "--ranks", "8");
        assertEquals(0, r.code(), r.err());
        assertEquals("", r.err());
        // docs/DLIO.md "Torch files": 2,007,619,961 and 12,045,640,409 bytes per rank, worked out by hand there
        assertTrue(r.out().contains("zero_pp_rank_0_mp_rank_0_model_states.pt                   2007619961"), r.out());
        assertTrue(r.out().contains("12045640409"), r.out());
        assertTrue(r.out().contains("total per checkpoint: 16 files, 112426082960 bytes"), r.out());
        // DLIO logs its tensors' bytes, not the framing
        assertTrue(r.out().contains("DLIO logs 104.704521 \"GB\""), r.out());
        assertTrue(r.out().contains("torch.save files of DLIO's state dicts (checkpoint.streaming.format torch, "
                + "framework pytorch's default): 112425623552 bytes of tensors and 459408 of zip and pickle"), r.out());
        CliTest.Result json = run("dlio", "plan", "--config", config("llama3_8b.yaml"), "--ranks", "8", "--json",
                "++workload.checkpoint.streaming.format=torch");
        Map<String, Object> j = JsonRead.object(json.out());
        assertEquals("torch", j.get("format"));
        assertEquals(112_426_082_960L, ((Number) j.get("totalBytes")).longValue());
        assertEquals(112_425_623_552L, ((Number) j.get("tensorBytes")).longValue());
    }

    @Test
    void a_default_torch_format_that_cannot_be_falls_back_to_raw_saying_why_and_a_named_one_is_refused() {
        // 8 x 8 dims under ZeRO 3 over 128 data ranks: layer 0 has no element on a rank, an empty dict in torch
        String[] thin = {"dlio", "plan", "--config", config("tiny.yaml"), "--ranks", "256", "--json",
                "++workload.model.parallelism.zero_stage=3", "++workload.model.parallelism.pipeline=1",
                "++workload.model.transformer.hidden_size=8", "++workload.model.transformer.ffn_hidden_size=8",
                "++workload.model.transformer.vocab_size=8"};
        CliTest.Result r = run(thin);
        assertEquals(0, r.code(), r.err());
        assertEquals("dgen4j: warning: " + config("tiny.yaml") + ": checkpoint.streaming.format: writing raw files, "
                + "not torch (the default for framework pytorch): layer 0 has no tensor with elements at this split (a "
                + "torch file would hold an empty dict)\n", r.err());
        assertEquals("raw", JsonRead.object(r.out()).get("format"));
        List<String> named = new java.util.ArrayList<>(List.of(thin));
        named.add("++workload.checkpoint.streaming.format=torch");
        CliTest.Result refused = run(named.toArray(String[]::new));
        assertEquals(ExitCodes.USAGE, refused.code(), refused.err());
        assertEquals("dgen4j: checkpoint.streaming.format: layer 0 has no tensor with elements at this split (a torch "
                + "file would hold an empty dict): use raw\n", refused.err());
    }

    @Test
    void the_launchers_size_is_the_default_rank_count_and_must_agree_with_ranks() {
        Map<String, String> mpirun = Map.of("OMPI_COMM_WORLD_RANK", "3", "OMPI_COMM_WORLD_SIZE", "64");
        CliTest.Result r = run(mpirun, "dlio", "plan", "--config", config("llama3_70b.yaml"), "--json", RAW);
        assertEquals(0, r.code(), r.err());
        assertEquals(978_406_572_032L, ((Number) JsonRead.object(r.out()).get("totalBytes")).longValue());
        CliTest.Result clash = run(mpirun, "dlio", "plan", "--config", config("llama3_70b.yaml"), "--ranks", "8");
        assertEquals(ExitCodes.USAGE, clash.code());
        assertTrue(clash.err().contains("--ranks 8 disagrees with the launcher's 64 ranks"), clash.err());
    }

    @Test
    void overrides_apply_and_unknown_keys_are_warned(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("w.yaml");
        Files.writeString(yaml, Files.readString(Path.of(config("tiny.yaml"))) + "extra_section: 1\n");
        CliTest.Result r = run("dlio", "plan", "--config", yaml.toString(), "--ranks", "4", "--json",
                "++workload.model.parallelism.zero_stage=3", "workload.model.parallelism.pipeline=1", RAW);
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("warning: " + yaml + ": unknown key 'extra_section' (ignored)"), r.err());
        Map<String, Object> j = JsonRead.object(r.out());
        assertEquals(3, ((Number) j.get("zeroStage")).intValue());
        // 4 x (1771776 + 10639104), worked out in CheckpointPlanTest
        assertEquals(4 * (1_771_776L + 10_639_104L), ((Number) j.get("totalBytes")).longValue());
    }

    @Test
    void bad_configs_exit_2_naming_the_key(@TempDir Path dir) throws Exception {
        Path noModel = dir.resolve("no-model.yaml");
        Files.writeString(noModel, "framework: pytorch\nworkflow:\n  checkpoint: True\n");
        String tiny = config("tiny.yaml");
        List<List<String>> cases = List.of(
                List.of("--config", noModel.toString()),
                List.of("--config", tiny, "++workload.model.num_layers=-1"),
                List.of("--config", tiny, "--ranks", "0"),
                List.of("--config", tiny, "--ranks", "6"),
                List.of("--config", tiny, "++workload.model.parallelism.zero_stage=3"),
                List.of("--config", tiny, "++workload.checkpoint.num_checkpoints_read=5"));
        List<String> keys = List.of("model: missing", "model.num_layers: must be 0 to 100000, got -1",
                "--ranks must be at least 1", "model.parallelism: 6 ranks are not a multiple of tensor x pipeline",
                "model.parallelism.zero_stage: ZeRO stage 3 is not compatible with pipeline parallelism",
                "checkpoint.num_checkpoints_read: 5 reads cannot exceed 2 writes");
        for (int i = 0; i < cases.size(); i++) {
            List<String> args = new java.util.ArrayList<>(List.of("dlio", "plan"));
            args.addAll(cases.get(i));
            CliTest.Result r = run(args.toArray(String[]::new));
            assertEquals(ExitCodes.USAGE, r.code(), r.err());
            assertTrue(r.err().contains(keys.get(i)), keys.get(i) + " in " + r.err());
        }
    }

    @Test
    void run_refuses_checkpoints_that_do_not_fit_and_force_runs_into_enospc(@TempDir Path dir) throws Exception {
        assertEquals("0", MisuseTest.uid(), "this test mounts a 64 MiB tmpfs and must run as root, as CI does");
        Path mnt = Files.createDirectories(dir.resolve("small"));
        MisuseTest.exec("mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", mnt.toString());
        try {
            // tiny at 4 ranks: 49,683,186 bytes per checkpoint in torch files (47.38 MiB); 2 kept need 94.76 MiB of the 64
            String[] args = {"dlio", "run", "--config", config("tiny.yaml"), "--ranks", "4",
                    "--output", dir.resolve("out").toString(), "++workload.checkpoint.checkpoint_folder=" + mnt.resolve("ckpt"),
                    "++workload.checkpoint.num_checkpoints_write=2", "++workload.checkpoint.num_checkpoints_read=0"};
            long perCheckpoint = io.dgen4j.dlio.CheckpointPlan.of(io.dgen4j.dlio.DlioConfigReader.read(
                    Path.of(config("tiny.yaml")), List.of()), 4).totalBytes();
            CliTest.Result refused = run(args);
            assertEquals(ExitCodes.USAGE, refused.code(), refused.err());
            assertEquals(String.format(java.util.Locale.ROOT, "dgen4j: dlio run needs %s on %s (2 checkpoints of %s kept"
                    + " at once) but 64.00 MiB is free: free space, lower num_checkpoints_write, or --force to run anyway%n",
                    io.dgen4j.unit.ByteSize.roundedUp(2 * perCheckpoint), mnt.resolve("ckpt"),
                    io.dgen4j.unit.ByteSize.approx(perCheckpoint)), refused.err());
            assertEquals(List.of(), listing(mnt), "nothing written before the refusal");

            List<String> forced = new java.util.ArrayList<>(List.of(args));
            forced.add("--force");
            CliTest.Result r = run(forced.toArray(String[]::new));
            assertEquals(ExitCodes.IO, r.code(), r.out() + r.err());
            assertTrue(r.out().contains("Finished saving checkpoint 1"), "the first checkpoint fits: " + r.out());
            assertTrue(r.err().contains("No space left on device"), r.err());
            assertEquals(1, r.err().lines().count(), r.err());

            // again without --force: the files already there count (each replace frees its old copy)
            long there;
            try (var files = Files.walk(mnt.resolve("ckpt"))) {
                there = files.filter(p -> p.toString().endsWith(".pt")).mapToLong(p -> p.toFile().length()).sum();
            }
            assertTrue(there >= perCheckpoint && there < 2 * perCheckpoint, "checkpoint 1 and part of 2: " + there);
            long free = Files.getFileStore(mnt).getUsableSpace();
            CliTest.Result again = run(args);
            assertEquals(ExitCodes.USAGE, again.code(), again.err());
            assertEquals(String.format(java.util.Locale.ROOT, "dgen4j: dlio run needs %s on %s (2 checkpoints of %s kept"
                    + " at once, less %s already there) but %s is free: free space, lower num_checkpoints_write, or"
                    + " --force to run anyway%n", io.dgen4j.unit.ByteSize.roundedUp(2 * perCheckpoint - there),
                    mnt.resolve("ckpt"), io.dgen4j.unit.ByteSize.approx(perCheckpoint), io.dgen4j.unit.ByteSize.approx(there),
                    io.dgen4j.unit.ByteSize.approx(free)), again.err());
        } finally {
            MisuseTest.exec("umount", mnt.toString());
        }
    }

    private static List<String> listing(Path dir) throws java.io.IOException {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).toList();
        }
    }

    @Test
    void run_writes_dlios_outputs(@TempDir Path dir) throws Exception {
        CliTest.Result r = run("dlio", "run", "--config", config("tiny.yaml"), "--ranks", "4", "--verify",
                "--output", dir.resolve("out").toString(),
                "++workload.checkpoint.checkpoint_folder=" + dir.resolve("ckpt"),
                "++workload.checkpoint.num_checkpoints_write=1", "++workload.checkpoint.num_checkpoints_read=1");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("[METRIC] Checkpoint save I/O Throughput (GB/second): "), r.out());
        assertTrue(r.out().contains("[METRIC] Number of Simulated Accelerators: 4"), r.out());
        assertTrue(r.out().contains("(verified)"), r.out());
        // DLIO's "GB" (GiB) explained once; ours in both units, GiB/s = GB/s x 10^9 / 2^30
        List<String> lines = r.out().lines().toList();
        assertEquals(1, lines.stream().filter(l -> l.startsWith("dgen4j: units: DLIO's \"GB\" above")).count(), r.out());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("saved at ([0-9.]+) GB/s = ([0-9.]+) GiB/s, .*"
                + "loaded at ([0-9.]+) GB/s = ([0-9.]+) GiB/s").matcher(lines.get(lines.size() - 1));
        assertTrue(m.find(), r.out());
        for (int g = 1; g <= 3; g += 2) {
            assertEquals(Double.parseDouble(m.group(g)) * 1e9 / (1L << 30), Double.parseDouble(m.group(g + 1)), 0.0011,
                    lines.get(lines.size() - 1));
        }
        Map<String, Object> summary = JsonRead.object(Files.readString(dir.resolve("out/summary.json")));
        @SuppressWarnings("unchecked")
        Map<String, Object> metric = (Map<String, Object>) summary.get("metric");
        assertTrue(metric.containsKey("load_checkpoint_duration_stdev_seconds"), metric.toString());
        for (int rank = 0; rank < 4; rank++) {
            assertTrue(Files.isRegularFile(dir.resolve("out/" + rank + "_per_epoch_stats.json")));
            assertTrue(Files.isRegularFile(dir.resolve("out/" + rank + "_output.json")));
        }
    }
}
