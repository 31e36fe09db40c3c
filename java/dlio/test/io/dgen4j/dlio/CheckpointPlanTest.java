package io.dgen4j.dlio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Plan sizes and names against values computed by hand from DLIO's formulas (base_checkpointing.py),
 * written out in the comments; nothing here is computed by the code under test.
 *
 * <p>DLIO's formulas (h hidden, v vocab, f ffn hidden, L layers, kv = (h / heads) * kv_heads):
 * <pre>
 *   P = v*h + L*(h + h*(h + 2*kv) + h*h + h + 2*f*h + f*h) + h + v*h
 *   layer i on a rank, split by TP (t) and, under ZeRO-3, by DP (s; else s = 1), floor divisions in this order:
 *     i = 0 or L+1 (embedding, output):  h*v/t/s
 *     i = L+2 (final norm):              h/s
 *     else: h/s, h*(h+2kv)/t/s, h*h/t/s, h/s, 2*f*h... as h*2*f/t/s, h*f/t/s
 *   optimizer elements per rank: 3*P' + 15*h with P' = P/(dp*mp) (ZeRO >= 1) or P/mp (ZeRO 0)
 *   model bytes = elements * 2 (fp16); optimizer bytes = elements * 4 (fp32)
 * </pre>
 */
class CheckpointPlanTest {

    /**
     * Pins the raw format: these tests check DLIO's tensor arithmetic, the raw files' sizes (DlioTorchTest checks the
     * torch files framework pytorch writes by default).
     */
    static final String RAW = "++workload.checkpoint.streaming.format=raw";

    private static DlioConfig shipped(String name, String... overrides) throws IOException {
        List<String> o = new java.util.ArrayList<>(List.of(overrides));
        o.add(RAW);
        return DlioConfigReader.read(root().resolve("configs/dlio/" + name), o);
    }

    static Path root() {
        return Path.of(System.getProperty("dgen4j.test.root", "."));
    }

    /** A rank's files as "name bytes KIND". */
    static List<String> described(CheckpointPlan.RankPlan r) {
        return r.files().stream().map(f -> f.name() + " " + f.bytes() + " " + f.kind()).toList();
    }

    private static void file(CheckpointPlan.RankPlan r, int index, String name, long bytes) {
        assertEquals(name, r.files().get(index).name(), "rank " + r.rank() + " file " + index);
        assertEquals(bytes, r.files().get(index).bytes(), name);
    }

    @Test
    void llama3_8b_at_8_ranks() throws IOException {
        CheckpointPlan plan = CheckpointPlan.of(shipped("llama3_8b.yaml"), 8);
        // h 4096, v 128256, f 14336, 32 heads, 8 kv heads: kv = 128*8 = 1024
        // per layer: 4096 + 4096*6144 + 4096^2 + 4096 + 2*14336*4096 + 14336*4096 = 218112000
        // P = 2*128256*4096 + 32*218112000 + 4096 = 1050673152 + 6979584000 + 4096 = 8030261248
        assertEquals(8_030_261_248L, plan.parameters());
        // ZeRO 3, TP 1, DP 8: each rank holds layers 0..34, every tensor / 8:
        //   2*(128256*4096/8) + 32*(512 + 25165824/8 + 16777216/8 + 512 + 117440512/8 + 58720256/8) + 4096/8
        //   = 131334144 + 32*27264000 + 512 = 1003782656 elements * 2 B = 2007565312
        // optimizer: P/8 = 1003782656; 3*1003782656 + 15*4096 = 3011409408 elements * 4 B = 12045637632
        for (int r = 0; r < 8; r++) {
            CheckpointPlan.RankPlan rp = plan.rank(r);
            assertEquals(2, rp.files().size());
            file(rp, 0, "zero_pp_rank_" + r + "_mp_rank_0_model_states.pt", 2_007_565_312L);
            file(rp, 1, "zero_pp_rank_" + r + "_mp_rank_0_optim_states.pt", 12_045_637_632L);
            assertEquals(0, rp.firstLayer());
            assertEquals(34, rp.lastLayer());
        }
        // 8 * (2007565312 + 12045637632) = 112425623552 B = 104.704521 GiB, as DLIO logs it
        assertEquals(112_425_623_552L, plan.totalBytes());
        assertEquals(112_425_623_552L, plan.dlioLoggedBytes());
        assertEquals("104.70", String.format(java.util.Locale.ROOT, "%.2f", CheckpointPlan.gib(plan.totalBytes())));
        assertEquals(16, plan.fileCount());
    }

    @Test
    void llama3_70b_at_64_ranks_tp8_zero3() throws IOException {
        CheckpointPlan plan = CheckpointPlan.of(shipped("llama3_70b.yaml"), 64);
        // h 8192, v 128256, f 28672, 128 heads, 8 kv heads: kv = 64*8 = 512
        // per layer: 8192 + 8192*9216 + 8192^2 + 8192 + 2*28672*8192 + 28672*8192 = 847265792
        // P = 2*1050673152 + 80*847265792 + 8192 = 69882617856
        assertEquals(69_882_617_856L, plan.parameters());
        assertEquals(8, plan.dataParallelism());
        // TP 8 x ZeRO-3 over DP 8: tensors / 8 / 8; norms / 8
        //   embedding, output: 1050673152/64 = 16416768 each
        //   layer: 1024 + 75497472/64 + 67108864/64 + 1024 + 469762048/64 + 234881024/64 = 13240320; x 80 = 1059225600
        //   final norm: 1024 -> 2*16416768 + 1059225600 + 1024 = 1092060160 elements * 2 B = 2184120320
        // optimizer: P/64 = 1091915904; 3*1091915904 + 15*8192 = 3275870592 * 4 B = 13103482368
        CheckpointPlan.RankPlan r13 = plan.rank(13); // tp 5, dp 1, mp 5
        assertEquals(5, r13.tensorRank());
        assertEquals(1, r13.dataRank());
        file(r13, 0, "zero_pp_rank_1_mp_rank_5_model_states.pt", 2_184_120_320L);
        file(r13, 1, "zero_pp_rank_1_mp_rank_5_optim_states.pt", 13_103_482_368L);
        // 64 * (2184120320 + 13103482368) = 978406572032
        assertEquals(978_406_572_032L, plan.totalBytes());
        assertEquals(128, plan.fileCount());
    }

    @Test
    void llama3_405b_at_512_ranks_tp8_pp32_zero1() throws IOException {
        CheckpointPlan plan = CheckpointPlan.of(shipped("llama3_405b.yaml"), 512);
        // h 16384, v 128256, f 53248, 128 heads, 8 kv heads: kv = 1024; TP 8, PP 32, DP 512/256 = 2
        // per layer (full): 16384 + 16384*18432 + 16384^2 + 16384 + 2*53248*16384 + 53248*16384 = 3187703808
        // P = 2*128256*16384 + 126*3187867648 + 16384 = 405853388800
        assertEquals(405_853_388_800L, plan.parameters());
        // 126 layers over 32 stages: 3 each, the first 126 % 32 = 30 stages one more:
        // stage 0 holds 1..4 plus the embedding (0); stage 31 holds 124..126 plus 127 (output) and 128 (final norm)
        // a layer on a TP rank: 16384 + 301989888/8 + 268435456/8 + 16384 + 1744830464/8 + 872415232/8
        //   = 398491648 elements * 2 B = 796983296; embedding/output: 16384*128256/8 * 2 B = 525336576;
        //   final norm (not split by TP): 16384 * 2 B = 32768
        // optimizer (ZeRO 1, every rank): P/(2*256) = 792682400; 3*792682400 + 15*16384 = 2378292960 * 4 B = 9513171840
        CheckpointPlan.RankPlan r0 = plan.rank(0);
        assertEquals(6, r0.files().size());
        file(r0, 0, "layer_0-model_0_model_states.pt", 525_336_576L);
        file(r0, 1, "layer_1-model_0_model_states.pt", 796_983_296L);
        file(r0, 4, "layer_4-model_0_model_states.pt", 796_983_296L);
        file(r0, 5, "zero_pp_rank_0_mp_rank_0_optim_states.pt", 9_513_171_840L);
        // rank 255 = tp 7, stage 31, dp 0: mp rank 255
        CheckpointPlan.RankPlan r255 = plan.rank(255);
        assertEquals(31, r255.pipelineRank());
        assertEquals(124, r255.firstLayer());
        assertEquals(128, r255.lastLayer());
        file(r255, 0, "layer_124-model_255_model_states.pt", 796_983_296L);
        file(r255, 3, "layer_127-model_255_model_states.pt", 525_336_576L);
        file(r255, 4, "layer_128-model_255_model_states.pt", 32_768L);
        file(r255, 5, "zero_pp_rank_0_mp_rank_255_optim_states.pt", 9_513_171_840L);
        // ZeRO 1: data-parallel rank 1 writes no model state
        CheckpointPlan.RankPlan r256 = plan.rank(256);
        assertEquals(1, r256.files().size());
        file(r256, 0, "zero_pp_rank_1_mp_rank_0_optim_states.pt", 9_513_171_840L);
        // model: 8 TP ranks x (2*525336576 + 126*796983296 + 32768) = 811764809728
        // optimizer: 512 x 9513171840 = 4870743982080; total 5682508791808 (5292.25 GiB)
        assertEquals(811_764_809_728L, plan.modelBytes());
        assertEquals(4_870_743_982_080L, plan.optimizerBytes());
        assertEquals(5_682_508_791_808L, plan.totalBytes());
    }

    @Test
    void llama3_1t_at_1024_ranks() throws IOException {
        CheckpointPlan plan = CheckpointPlan.of(shipped("llama3_1t.yaml"), 1024);
        // h 25872, v 128256, f 98304, 192 heads (head 134), 32 kv heads: kv = 4288
        // per layer: 25872 + 25872*34448 + 25872^2 + 25872 + 2*98304*25872 + 98304*25872 = 9190614048
        // P = 2*128256*25872 + 128*9240122112 + 25872 = 1183035102480
        assertEquals(1_183_035_102_480L, plan.parameters());
        assertEquals(16_564_174_094_592L, plan.totalBytes());
    }

    @Test
    void llama_7b_zero1_without_pipeline_writes_one_model_file() throws IOException {
        CheckpointPlan plan = CheckpointPlan.of(shipped("llama_7b.yaml"), 8);
        // h 4096, v 32000, f 11008, 32 heads = 32 kv heads: kv = 4096
        // per layer: 4096 + 4096*12288 + 4096^2 + 4096 + 2*11008*4096 + 11008*4096 = 202383360
        // P = 2*32000*4096 + 32*202383360 + 4096 = 6738415616
        assertEquals(6_738_415_616L, plan.parameters());
        // ZeRO 1, PP 1: data rank 0 writes model_0_model_states with every layer: P elements * 2 B
        file(plan.rank(0), 0, "model_0_model_states.pt", 13_476_831_232L);
        // optimizer: P/8 = 842301952; 3*842301952 + 15*4096 = 2526967296 * 4 B = 10107869184
        file(plan.rank(0), 1, "zero_pp_rank_0_mp_rank_0_optim_states.pt", 10_107_869_184L);
        assertEquals(1, plan.rank(1).files().size());
        assertEquals(13_476_831_232L + 8 * 10_107_869_184L, plan.totalBytes());
    }

    /** The tiny config: h 256, v 1024, f 768, 8 heads, 2 kv heads (kv = 64), 4 layers. */
    private static final long TINY_P = 2 * 1024 * 256 + 4 * (256 + 256 * 384 + 256 * 256 + 256 + 2 * 768 * 256
            + 768 * 256) + 256; // = 524288 + 4*754176 + 256 = 3541248

    @Test
    void tiny_tp2_pp2_zero1() throws IOException {
        CheckpointPlan plan = CheckpointPlan.of(shipped("tiny.yaml"), 8);
        assertEquals(3_541_248L, plan.parameters());
        assertEquals(TINY_P, plan.parameters());
        // layers over 2 stages: stage 0 = 0..2, stage 1 = 3..6 (5 output, 6 final norm)
        // embedding on a TP rank: 256*1024/2 * 2 B = 262144
        // layer: (256 + 98304/2 + 65536/2 + 256 + 393216/2 + 196608/2) * 2 B = 377344 * 2 = 754688
        // final norm: 256 * 2 B = 512; optimizer: P/8 = 442656 -> (3*442656 + 3840) * 4 B = 5327232
        CheckpointPlan.RankPlan r3 = plan.rank(3); // tp 1, stage 1, dp 0, mp 3
        assertEquals(List.of("layer_3-model_3_model_states.pt", "layer_4-model_3_model_states.pt",
                        "layer_5-model_3_model_states.pt", "layer_6-model_3_model_states.pt",
                        "zero_pp_rank_0_mp_rank_3_optim_states.pt"),
                r3.files().stream().map(CheckpointPlan.PlannedFile::name).toList());
        file(r3, 0, "layer_3-model_3_model_states.pt", 754_688L);
        file(r3, 2, "layer_5-model_3_model_states.pt", 262_144L);
        file(r3, 3, "layer_6-model_3_model_states.pt", 512L);
        file(r3, 4, "zero_pp_rank_0_mp_rank_3_optim_states.pt", 5_327_232L);
        // model: 2 TP ranks x (262144 + 4*754688 + 262144 + 512) = 7087104; optimizer 8 x 5327232 = 42617856
        assertEquals(7_087_104L, plan.modelBytes());
        assertEquals(42_617_856L, plan.optimizerBytes());
        assertEquals(49_704_960L, plan.totalBytes());
    }

    @Test
    void zero0_only_the_first_replica_writes() throws IOException {
        CheckpointPlan plan = CheckpointPlan.of(shipped("tiny.yaml", "++workload.model.parallelism.zero_stage=0"), 8);
        // ranks 0..3 (mp = 4) write model (whole stage in one file) and optimizer P/4 = 885312:
        //   (3*885312 + 3840) * 4 B = 10639104; ranks 4..7 write nothing
        file(plan.rank(0), 0, "zero_pp_rank_0_mp_rank_0_model_states.pt", 262_144L + 2 * 754_688L);
        file(plan.rank(0), 1, "zero_pp_rank_0_mp_rank_0_optim_states.pt", 10_639_104L);
        file(plan.rank(2), 0, "zero_pp_rank_0_mp_rank_2_model_states.pt", 2 * 754_688L + 262_144L + 512L);
        for (int r = 4; r < 8; r++) {
            assertTrue(plan.rank(r).files().isEmpty(), "rank " + r);
        }
        assertEquals(7_087_104L + 4 * 10_639_104L, plan.totalBytes());
    }

    @Test
    void zero2_writes_as_zero1_but_dlio_logs_every_replicas_model_state() throws IOException {
        CheckpointPlan plan = CheckpointPlan.of(shipped("tiny.yaml", "model.parallelism.zero_stage=2"), 8);
        assertEquals(49_704_960L, plan.totalBytes());
        assertEquals(1, plan.rank(4).files().size());
        // DLIO allocates (and counts) the model state on data rank 1 too, but saves only data rank 0's
        assertEquals(49_704_960L + 7_087_104L, plan.dlioLoggedBytes());
    }

    @Test
    void zero3_with_tensor_parallelism_shards_by_data_rank() throws IOException {
        CheckpointPlan plan = CheckpointPlan.of(shipped("tiny.yaml", "++workload.model.parallelism.pipeline=1",
                "++workload.model.parallelism.zero_stage=3"), 4);
        // TP 2, DP 2: tensors / 2 / 2, norms / 2
        // embedding, output: 262144/4 = 65536; layer: 128 + 98304/4 + 65536/4 + 128 + 393216/4 + 196608/4 = 188672
        // final norm 128: (2*65536 + 4*188672 + 128) * 2 B = 1771776
        // optimizer: P/4 = 885312 -> (3*885312 + 3840) * 4 B = 10639104
        CheckpointPlan.RankPlan r3 = plan.rank(3); // tp 1, dp 1
        file(r3, 0, "zero_pp_rank_1_mp_rank_1_model_states.pt", 1_771_776L);
        file(r3, 1, "zero_pp_rank_1_mp_rank_1_optim_states.pt", 10_639_104L);
        assertEquals(4 * (1_771_776L + 10_639_104L), plan.totalBytes());
    }

    @Test
    void legacy_model_size_bytes_is_one_file_on_rank_zero() {
        DlioConfig c = DlioConfigReader.parse("model:\n  name: unet3d\n  model_size_bytes: 499153191\n"
                + "framework: pytorch\nworkflow:\n  checkpoint: True\n", "inline", List.of(RAW));
        CheckpointPlan plan = CheckpointPlan.of(c, 4);
        // not a transformer: DLIO writes model_states-{rank} of model_size_bytes; ZeRO 0 leaves it to rank 0
        assertEquals(List.of("model_states-0.pt 499153191 LEGACY_MODEL"), described(plan.rank(0)));
        assertTrue(plan.rank(1).files().isEmpty());
        assertEquals(499_153_191L, plan.totalBytes());
    }

    static final String PREDEFINED = "model:\n  name: legacy\n  num_layers: 2\n  layer_parameters: [0, 8192]\n"
            + "  optimization_groups: [0]\n  parallelism:\n    pipeline: 2\n    zero_stage: 1\n"
            + "framework: pytorch\nworkflow:\n  checkpoint: True\n";

    @Test
    void predefined_layer_parameters_and_optimization_groups() {
        CheckpointPlan plan = CheckpointPlan.of(DlioConfigReader.parse(PREDEFINED, "inline", List.of()), 2);
        // no model.type: model_states-{rank} of the default 10240 B on every rank (ZeRO 1);
        // predefined layers: stage s holds layer s+1 only (no embedding/output with predefined layers),
        //   int8 tensors of state / t for each state > 0: 8192 B; groups [0]: 3 * 0 = 0 B, written anyway
        CheckpointPlan.RankPlan r1 = plan.rank(1);
        assertEquals(List.of("model_states-1.pt 10240 LEGACY_MODEL", "layer_2-model_1_model_states.pt 8192 LAYER",
                "zero_pp_rank_0_mp_rank_1_optim_states.pt 0 OPTIMIZER"), described(r1));
        assertEquals(2 * (10_240L + 8_192L), plan.totalBytes());
        // DLIO logs model_size_bytes once and does not count predefined tensors
        assertEquals(10_240L, plan.dlioLoggedBytes());
    }

    @Test
    void subset_mode_uses_the_configured_data_parallelism() throws IOException {
        CheckpointPlan plan = CheckpointPlan.of(shipped("llama3_8b.yaml", "++workload.checkpoint.mode=subset",
                "++workload.model.parallelism.data=8"), 2);
        // two of eight data-parallel ranks: the same per-rank files as at 8 ranks
        file(plan.rank(1), 0, "zero_pp_rank_1_mp_rank_0_model_states.pt", 2_007_565_312L);
        assertEquals(2 * (2_007_565_312L + 12_045_637_632L), plan.totalBytes());
    }

    @Test
    void ranks_that_do_not_fit_the_parallelism_are_refused() throws IOException {
        DlioConfig c = shipped("llama3_70b.yaml");
        DlioConfigException e = assertThrows(DlioConfigException.class, () -> CheckpointPlan.of(c, 12));
        assertEquals("model.parallelism", e.key());
        assertTrue(e.getMessage().contains("12 ranks are not a multiple of tensor x pipeline = 8 x 1 = 8"),
                e.getMessage());
        assertEquals("ranks", assertThrows(DlioConfigException.class, () -> CheckpointPlan.of(c, 0)).key());
    }
    @Test
    void sizes_are_exact_integers_and_an_overflow_names_the_model() throws IOException {
        DlioConfig c = DlioConfigReader.read(root().resolve("configs/dlio/tiny.yaml"),
                List.of("++workload.model.transformer.hidden_size=3037000500", RAW));
        DlioConfigException e = assertThrows(DlioConfigException.class, () -> CheckpointPlan.of(c, 4));
        assertEquals("model", e.key());
        assertTrue(e.getMessage().startsWith("model: the checkpoint's sizes do not fit in 64-bit integers "
                + "(num_layers 4, transformer.hidden_size 3037000500,"), e.getMessage());
        DlioConfig groups = DlioConfigReader.parse("model:\n  name: g\n  optimization_groups: [" + Long.MAX_VALUE
                + ", 1]\n", "inline", List.of());
        assertEquals("model", assertThrows(DlioConfigException.class, () -> CheckpointPlan.of(groups, 1)).key());
    }

    @Test
    void a_plan_is_bounded_in_ranks_and_files() throws IOException {
        DlioConfig c = DlioConfigReader.read(root().resolve("configs/dlio/tiny.yaml"), List.of(RAW));
        assertEquals("ranks: must be 1 to 65536, got 100000",
                assertThrows(DlioConfigException.class, () -> CheckpointPlan.of(c, 100_000)).getMessage());
        // tiny at 65,536 ranks: every rank planned, within the launcher's heap, its JSON made rank by rank
        CheckpointPlan big = CheckpointPlan.of(c, DlioConfigReader.MAX_RANKS);
        assertEquals(DlioConfigReader.MAX_RANKS, big.rankPlans().size());
        assertEquals(DlioConfigReader.MAX_RANKS, ((List<?>) big.toMap().get("rankPlans")).size());
        // 100,000 layers of 4 tensor shards in 2 stages under ZeRO 1: a layer file each, over the file limit
        DlioConfig layers = DlioConfigReader.read(root().resolve("configs/dlio/tiny.yaml"),
                List.of("++workload.model.num_layers=100000", "++workload.model.parallelism.tensor=4", RAW));
        DlioConfigException e = assertThrows(DlioConfigException.class, () -> CheckpointPlan.of(layers, 8));
        assertEquals("ranks", e.key());
        assertTrue(e.getMessage().contains("write more than 262144 files per checkpoint"), e.getMessage());
        // at the limit's side: 2 x 100,003 layer files plus the optimizer files
        DlioConfig fits = DlioConfigReader.read(root().resolve("configs/dlio/tiny.yaml"),
                List.of("++workload.model.num_layers=100000", RAW));
        assertEquals(2 * 100_003 + 4, CheckpointPlan.of(fits, 4).fileCount());
    }
}
