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
        assertEquals(new DlioConfig.Streaming(32L << 20, 2, 1, Optional.empty(), 1, 1, io.dgen4j.format.Layout.Format.RAW, false),
                c.streaming());
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
    void settings_outside_their_ranges_name_the_key_and_the_range() {
        for (String bad : List.of("-5", "-0.5", ".nan", ".inf", "-.inf", "1e300", "86401")) {
            DlioConfigException e = refused(MINIMAL, "++workload.checkpoint.time_between_checkpoints=" + bad);
            assertEquals("checkpoint.time_between_checkpoints", e.key(), bad);
            assertTrue(e.getMessage().contains("must be -1 (no pause) or 0 to 86400 seconds"), e.getMessage());
        }
        for (String ok : List.of("-1", "0", "2.5", "86400")) {
            parse(MINIMAL, "++workload.checkpoint.time_between_checkpoints=" + ok);
        }
        for (String key : List.of("num_checkpoints_write", "num_checkpoints_read")) {
            for (String bad : List.of("-3", "10001")) {
                DlioConfigException e = refused(MINIMAL, "++workload.checkpoint." + key + "=" + bad);
                assertEquals("checkpoint." + key, e.key());
                assertEquals("checkpoint." + key + ": must be -1 (none) or 0 to 10000, got " + bad, e.getMessage());
            }
        }
        assertEquals("model.num_layers: must be 0 to 100000, got 1000000000",
                refused(MINIMAL, "++workload.model.num_layers=1000000000").getMessage());
        assertEquals("model.parallelism.tensor: must be 1 to 65536, got 65537",
                refused(MINIMAL, "++workload.model.parallelism.tensor=65537").getMessage());
        DlioConfigException replica = refused(MINIMAL, "++workload.model.num_layers=4096",
                "++workload.model.parallelism.tensor=4096", "++workload.model.parallelism.pipeline=4096");
        assertEquals("model.parallelism", replica.key());
        assertTrue(replica.getMessage().contains("16777216 ranks per model replica: the most a plan takes is 65536"),
                replica.getMessage());
        assertEquals("checkpoint.streaming.writers", refused(MINIMAL, "++workload.checkpoint.streaming.writers=257",
                "++workload.checkpoint.streaming.num_buffers=300").key());
        assertEquals("checkpoint.streaming.num_buffers: must be 2 to 1024, got 100000",
                refused(MINIMAL, "++workload.checkpoint.streaming.num_buffers=100000").getMessage());
        DlioConfigException compress = refused(MINIMAL, "++workload.checkpoint.streaming.compress_ratio=200");
        assertEquals("checkpoint.streaming.compress_ratio", compress.key());
        assertTrue(compress.getMessage().contains("is above the maximum the format can produce, 146.2857"),
                compress.getMessage());
        assertEquals("checkpoint.streaming.dedup_ratio",
                refused(MINIMAL, "++workload.checkpoint.streaming.dedup_ratio=.nan").key());
    }

    @Test
    void hostile_yaml_is_one_line_naming_the_limit_not_a_stack_overflow() {
        DlioConfigException deep = refused("model:\n  name: " + "[".repeat(5000) + "]".repeat(5000) + "\n");
        assertEquals("(yaml): test.yaml nests mappings and sequences more than 64 deep (at line 2)", deep.getMessage());
        DlioConfigException deepMap = refused("model:\n  name: x\n" + "hydra: " + "{a: ".repeat(200) + "1"
                + "}".repeat(200) + "\n");
        assertTrue(deepMap.getMessage().contains("more than 64 deep"), deepMap.getMessage());
        assertEquals("(yaml): test.yaml: the alias *m at line 3 is inside the collection &m it names: recursive "
                + "structures are not taken", refused("model: &m\n  name: x\n  parallelism: *m\n").getMessage());
        assertTrue(refused("model:\n  name: x\nhydra: &h\n  a: [1, *h]\n").getMessage()
                .contains("the alias *h at line 4 is inside the collection &h"));
        StringBuilder laughs = new StringBuilder("a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for (char c = 'b'; c <= 'i'; c++) {
            laughs.append(c).append(": &").append(c).append(" [").append(String.join(", ",
                    java.util.Collections.nCopies(9, "*" + (char) (c - 1)))).append("]\n");
        }
        assertTrue(refused(laughs + "model: {name: x}\n").getMessage()
                .contains("Number of aliases for non-scalar nodes exceeds the specified max=50"));
        DlioConfigException big = refused("model:\n  name: x\n# " + "x".repeat(1 << 20) + "\n");
        assertTrue(big.getMessage().contains("characters: the limit is 1048576 (1 MiB)"), big.getMessage());
        // an alias of a collection that is closed is fine: DLIO configs share sections so
        parse(MINIMAL + "hydra: &h {a: 1}\nreader: *h\n");
        // overrides go through the same limits
        DlioConfigException value = refused(MINIMAL, "++workload.model.name=" + "[".repeat(3000) + "]".repeat(3000));
        assertTrue(value.getMessage().contains("the value nests mappings and sequences more than 64 deep"),
                value.getMessage());
        DlioConfigException path = refused(MINIMAL, "++workload." + "a.".repeat(100) + "b=1");
        assertTrue(path.getMessage().endsWith("the key path is 101 keys deep: the limit is 64"), path.getMessage());
    }

    @Test
    void the_yaml_file_is_a_regular_file_of_text(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path fifo = dir.resolve("fifo.yaml");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        for (var c : java.util.Map.of(fifo, "DLIO workload " + fifo + " is a FIFO (named pipe), not a regular file",
                java.nio.file.Path.of("/dev/zero"), "DLIO workload /dev/zero is a character device, not a regular file",
                dir, "DLIO workload " + dir + " is a directory, not a regular file",
                java.nio.file.Files.write(dir.resolve("bin.yaml"), new byte[] {'m', ':', ' ', (byte) 0xff}),
                "DLIO workload " + dir.resolve("bin.yaml") + " is not UTF-8 text (a binary byte at offset 3)")
                .entrySet()) {
            var e = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(20),
                    () -> assertThrows(IllegalArgumentException.class, () -> DlioConfigReader.read(c.getKey(),
                            List.of())));
            assertEquals(c.getValue(), e.getMessage());
        }
    }

    @Test
    void a_hydra_run_config_nests_the_workload() {
        DlioConfig c = parse("workload:\n  model:\n    name: nested\n    num_layers: 2\n");
        assertEquals("nested", c.model().name());
        assertEquals(2, c.model().numLayers());
    }
}
