package io.dgen4j.dlio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Reading DLIO workload YAML: DLIO's defaults, overrides, warnings and the errors naming the key. */
class DlioConfigReaderTest {

    private static final String MINIMAL = "model:\n  name: m\n  type: transformer\n  num_layers: 4\n";

    private static DlioConfig parse(String yaml, String... overrides) {
        return DlioConfigReader.parse(yaml, "test.yaml", List.of(overrides));
    }

    private static DlioConfigException refused(String yaml, String... overrides) {
        return assertThrows(DlioConfigException.class, () -> parse(yaml, overrides));
    }

    @Test
    void defaults_are_dlios() {
        DlioConfig c = parse(MINIMAL);
        assertEquals("tensorflow", c.framework()); // DLIO's default framework
        assertEquals("pb", c.extension());
        assertEquals(Datatype.FP16, c.model().modelDatatype());
        assertEquals(Datatype.FP32, c.model().optimizerDatatype());
        assertEquals(10240, c.model().modelSizeBytes());
        assertEquals(new DlioConfig.Parallelism(1, 1, -1, 0), c.model().parallelism());
        assertEquals(new DlioConfig.Transformer(32000, 2048, 8192, 32, 8), c.model().transformer());
        assertEquals(new DlioConfig.Checkpoint("./checkpoints", DlioConfig.Mode.DEFAULT, false, -1, -1, -1, false,
                false), c.checkpoint());
        assertEquals(new DlioConfig.Workflow(false, true, false), c.workflow());
        assertEquals(new DlioConfig.Streaming(32L << 20, 2, 1, Optional.empty(), 1, 1), c.streaming());
        assertEquals(new DlioConfig.Storage("local_fs", "./"), c.storage());
        assertTrue(c.warnings().isEmpty(), c.warnings().toString());
    }

    @Test
    void shipped_configs_read_without_warnings() throws IOException {
        for (String name : List.of("llama_7b", "llama3_8b", "llama3_70b", "llama3_405b", "llama3_1t", "tiny")) {
            DlioConfig c = DlioConfigReader.read(CheckpointPlanTest.root().resolve("configs/dlio/" + name + ".yaml"),
                    List.of());
            assertTrue(c.warnings().isEmpty(), name + ": " + c.warnings());
            assertTrue(c.checkpoint().fsync(), name + " asks for fsync: True");
            assertTrue(c.workflow().checkpoint(), name);
            assertEquals("pytorch", c.framework());
        }
    }

    @Test
    void hydra_overrides_in_every_form() {
        DlioConfig c = parse(MINIMAL + "checkpoint:\n  checkpoint_folder: a/\n",
                "++workload.checkpoint.checkpoint_folder=/mnt/ckpt/",
                "workload.model.parallelism.zero_stage=3",
                "+workload.checkpoint.fsync=True",
                "checkpoint.num_checkpoints_write=4",
                "++workload.checkpoint.streaming.chunk_size=4MiB",
                "++workload.model.model_datatype=bf16");
        assertEquals("/mnt/ckpt", c.checkpoint().folder()); // trailing slash removed, as DLIO does
        assertEquals(3, c.model().parallelism().zeroStage());
        assertTrue(c.checkpoint().fsync());
        assertEquals(4, c.checkpoint().numCheckpointsWrite());
        assertEquals(4L << 20, c.streaming().chunkSize());
        assertEquals(Datatype.BF16, c.model().modelDatatype());
        DlioConfig removed = parse(MINIMAL + "checkpoint:\n  fsync: True\n", "~workload.checkpoint.fsync");
        assertFalse(removed.checkpoint().fsync());
        assertEquals("bogus", refused(MINIMAL, "bogus").key());
    }

    @Test
    void unknown_keys_are_warned_with_their_path() {
        DlioConfig c = parse(MINIMAL + "  parallelism:\n    tensr: 2\ncheckpoint:\n  fsycn: True\n"
                + "  streaming:\n    chunk: 1\nmystery: 1\ndataset:\n  num_files_train: 4\n");
        assertEquals(List.of("unknown key 'mystery' (ignored)",
                "unknown key 'model.parallelism.tensr' (ignored)",
                "unknown key 'checkpoint.fsycn' (ignored)",
                "unknown key 'checkpoint.streaming.chunk' (ignored)"), c.warnings());
    }

    @Test
    void wrong_types_name_the_key() {
        assertEquals("model.num_layers", refused(MINIMAL.replace("4", "four")).key());
        assertEquals("checkpoint.fsync", refused(MINIMAL + "checkpoint:\n  fsync: sometimes\n").key());
        assertEquals("model.parallelism", refused(MINIMAL + "  parallelism: 8\n").key());
        assertEquals("model.model_datatype", refused(MINIMAL + "  model_datatype: fp8\n").key());
        assertEquals("checkpoint.time_between_checkpoints",
                refused(MINIMAL + "checkpoint:\n  time_between_checkpoints: soon\n").key());
        assertEquals("model.layer_parameters[1]", refused(MINIMAL + "  layer_parameters: [1, x]\n").key());
        assertEquals("checkpoint.streaming.chunk_size",
                refused(MINIMAL, "++workload.checkpoint.streaming.chunk_size=1000").key());
        assertEquals("checkpoint.streaming.num_buffers", refused(MINIMAL,
                "++workload.checkpoint.streaming.writers=2", "++workload.checkpoint.streaming.num_buffers=2").key());
        assertEquals("checkpoint.streaming.dedup_ratio",
                refused(MINIMAL, "++workload.checkpoint.streaming.dedup_ratio=0.5").key());
        assertEquals("storage.storage_type", refused(MINIMAL + "storage:\n  storage_type: tape\n").key());
        assertEquals("(yaml)", refused("model: [unclosed\n").key());
    }

    @Test
    void dlios_rules_name_the_key() {
        DlioConfigException missing = refused("framework: pytorch\n");
        assertEquals("model", missing.key());
        assertTrue(missing.getMessage().startsWith("model: missing"), missing.getMessage());

        DlioConfigException negative = refused(MINIMAL.replace("num_layers: 4", "num_layers: -2"));
        assertEquals("model.num_layers", negative.key());
        assertTrue(negative.getMessage().contains("-2"), negative.getMessage());

        assertEquals("model.num_layers", refused(MINIMAL, "++workload.model.parallelism.pipeline=8").key());
        DlioConfigException zero3 = refused(MINIMAL, "++workload.model.parallelism.pipeline=2",
                "++workload.model.parallelism.zero_stage=3");
        assertEquals("model.parallelism.zero_stage", zero3.key());
        assertTrue(zero3.getMessage().contains("not compatible with pipeline parallelism"), zero3.getMessage());
        assertEquals("model.parallelism.zero_stage", refused(MINIMAL, "++workload.model.parallelism.zero_stage=4").key());
        assertEquals("model.parallelism.tensor", refused(MINIMAL, "++workload.model.parallelism.tensor=0").key());
        assertEquals("model.parallelism.data", refused(MINIMAL, "++workload.model.parallelism.data=2").key());
        assertEquals("model.parallelism.data", refused(MINIMAL, "++workload.checkpoint.mode=subset").key());
        assertEquals("checkpoint.mode", refused(MINIMAL, "++workload.checkpoint.mode=some").key());
        DlioConfigException reads = refused(MINIMAL, "++workload.checkpoint.num_checkpoints_write=2",
                "++workload.checkpoint.num_checkpoints_read=3");
        assertEquals("checkpoint.num_checkpoints_read", reads.key());
        assertTrue(reads.getMessage().contains("3 reads cannot exceed 2 writes"), reads.getMessage());
    }

    @Test
    void rank_rules_name_the_key() {
        DlioConfig c = parse(MINIMAL, "++workload.model.parallelism.tensor=2", "++workload.model.parallelism.pipeline=2");
        DlioConfigException zero = assertThrows(DlioConfigException.class, () -> DlioConfigReader.checkRanks(c, 0));
        assertEquals("ranks", zero.key());
        DlioConfigException odd = assertThrows(DlioConfigException.class, () -> DlioConfigReader.checkRanks(c, 6));
        assertEquals("model.parallelism", odd.key());
        DlioConfigReader.checkRanks(c, 8);
        DlioConfig subset = parse(MINIMAL, "++workload.checkpoint.mode=subset", "++workload.model.parallelism.data=2");
        DlioConfigReader.checkRanks(subset, 2);
        assertEquals("model.parallelism.data",
                assertThrows(DlioConfigException.class, () -> DlioConfigReader.checkRanks(subset, 3)).key());
    }

    @Test
    void a_hydra_run_config_nests_the_workload() {
        DlioConfig c = parse("workload:\n  model:\n    name: nested\n    num_layers: 2\n");
        assertEquals("nested", c.model().name());
        assertEquals(2, c.model().numLayers());
    }
}
