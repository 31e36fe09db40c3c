package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.format.Layout;
import io.dgen4j.format.TensorList;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.json.JsonReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code save --format safetensors} judged by an independent reader: scripts/check-safetensors.py
 * (Python's standard library, written from the format's rules, not from our code) checks every rule
 * and compares the tensors' bytes with {@code dgen4j generate}'s stream; the safetensors package
 * loads them too where it is installed. Damage is refused by our own load, naming the rule or tensor.
 */
class SafetensorsCliTest {
    private static final Path CHECKER = Path.of("scripts/check-safetensors.py").toAbsolutePath();

    @TempDir
    Path dir;

    /** Mixed dtypes of one size (F32 before I32 whatever the names), a scalar, an empty tensor, nested names. */
    private static final String TENSORS = """
            model.embed_tokens.weight bfloat16 [300,64]
            model.layers.0.self_attn.q_proj.weight bfloat16 [64,64]
            model.layers.0.input_layernorm.weight float32 [64]
            a.counts int32 [7]
            z.counts float32 [3]
            model.layers.0.mlp.gate_proj.weight float16 [96,64]
            step int64 []
            d float64 [2,3]
            mask bool [5]
            optimizer/exp_avg float32 [4099]
            empty float32 [0,4]
            """;

    private static String python(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("python3", CHECKER.toString()));
        cmd.addAll(List.of(args));
        Process pr;
        try {
            pr = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        } catch (java.io.IOException e) {
            throw new AssertionError("SafetensorsCliTest needs python3 (.ci/run installs it): " + e.getMessage(), e);
        }
        String out = new String(pr.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(pr.waitFor(120, TimeUnit.SECONDS), "python timed out");
        return pr.exitValue() + "\n" + out;
    }

    private Path save(String name, String... extra) throws Exception {
        Path list = dir.resolve("tensors.txt");
        Files.writeString(list, TENSORS);
        Path f = dir.resolve(name);
        List<String> args = new ArrayList<>(List.of("save", f.toString(), "--format", "safetensors", "--tensors",
                list.toString(), "--chunk", "64KiB", "--seed", "11", "--compress", "2"));
        args.addAll(List.of(extra));
        CliTest.Result s = CliTest.run(args.toArray(String[]::new));
        assertEquals(0, s.code(), s.err());
        return f;
    }

    private Path stream() throws Exception {
        Path stream = dir.resolve("stream.bin");
        long bytes = TensorList.bytes(TensorList.parse(TENSORS, "test"));
        CliTest.Result g = CliTest.run("generate", "--size", Long.toString(bytes), "--seed", "11", "--compress", "2",
                "--out", stream.toString());
        assertEquals(0, g.code(), g.err());
        assertEquals(bytes, Files.size(stream));
        return stream;
    }

    @Test
    void anIndependentParserFindsEveryRuleKeptAndTheGeneratorsBytes() throws Exception {
        Path f = save("m.safetensors");
        DataSpec spec = DataSpec.builder().seed(11).compressRatio(2)
                .size(TensorList.bytes(TensorList.parse(TENSORS, "test"))).build();
        Layout layout = Layout.of(Layout.Format.SAFETENSORS, TensorList.parse(TENSORS, "test"), false, 8)
                .describing(spec);
        assertEquals(layout.size(), Files.size(f));
        Path stream = stream();
        String out = python(f.toString(), "--stream", stream.toString(), "--packages", "--finite");
        assertTrue(out.startsWith("0\n") && out.contains("rules hold: 1 file(s), 11 tensors")
                && out.contains("11 tensors equal the stream") && out.contains("\"seed\": \"11\""), out);
        assertTrue(out.contains("safetensors package: 1 file(s) opened") || out.contains("skipped: the safetensors"
                + " package is not importable"), out);

        CliTest.Result v = CliTest.run("load", f.toString(), "--verify");
        assertEquals(0, v.code(), v.err());
        CliTest.Result i = CliTest.run("inspect", f.toString(), "--json");
        assertEquals(0, i.code(), i.err());
        assertTrue(i.out().contains("\"format\":\"safetensors\"") && i.out().contains("{\"name\":\"step\",\"dtype\":"
                + "\"int64\",\"shape\":[],\"offset\":" + layout.offsetOf(0) + ",\"bytes\":8,\"member\":\"I64\"}"),
                i.out());
        // the reference order: I64, F64, then F32 and I32 apart, whatever their names
        String text = CliTest.run("inspect", f.toString()).out();
        List<String> names = text.lines().skip(2).map(l -> l.strip().split("\\s+")[0]).toList();
        assertEquals(List.of("step", "d", "empty", "model.layers.0.input_layernorm.weight", "optimizer/exp_avg",
                "z.counts", "a.counts", "model.embed_tokens.weight", "model.layers.0.self_attn.q_proj.weight",
                "model.layers.0.mlp.gate_proj.weight", "mask"), names);

        // the checker can fail: a flipped data byte is found by it and by our verify, which names the tensor
        Path bad = copy(f, "bad.safetensors");
        long at = layout.offsetOf(4) + 100; // optimizer/exp_avg
        flip(bad, at);
        String c = python(bad.toString(), "--stream", stream.toString(), "--finite");
        assertTrue(c.startsWith("1\n") && c.contains("FAIL: ") && c.contains("optimizer/exp_avg differs"), c);
        CliTest.Result r = CliTest.run("load", bad.toString(), "--verify");
        assertNotEquals(0, r.code());
        assertTrue(r.err().contains("first mismatch at byte offset " + at) && r.err().contains(
                "tensor optimizer/exp_avg (data_offsets [") && r.err().strip().lines().count() == 1, r.err());
    }

    /** --finite is the default for safetensors: every float value finite; --no-finite leaves the stream's bytes. */
    @Test
    void valuesAreFiniteUnlessAskedOtherwise() throws Exception {
        Path raw = save("raw.safetensors", "--no-finite");
        Path stream = stream();
        String out = python(raw.toString(), "--stream", stream.toString());
        assertTrue(out.startsWith("0\n") && out.contains("11 tensors equal the stream"), out);
        String masked = python(raw.toString(), "--stream", stream.toString(), "--finite");
        assertTrue(masked.startsWith("1\n") && masked.contains("differs from the stream"), masked);
        assertTrue(python(save("fin.safetensors").toString(), "--finite").startsWith("0\n"));
        assertEquals(0, CliTest.run("load", raw.toString(), "--verify").code());
    }

    @Test
    void pageAlignedDataRegion() throws Exception {
        Path f = save("p.safetensors", "--alignment", "4096");
        byte[] len = new byte[8];
        try (var in = Files.newInputStream(f)) {
            assertEquals(8, in.read(len));
        }
        long n = java.nio.ByteBuffer.wrap(len).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
        assertEquals(0, (8 + n) % 4096);
        String out = python(f.toString(), "--alignment", "4096", "--stream", stream().toString(), "--finite");
        assertTrue(out.startsWith("0\n") && out.contains("11 tensors equal the stream"), out);
        assertEquals(0, CliTest.run("load", f.toString(), "--verify").code());
        assertTrue(python(f.toString(), "--alignment", "8").startsWith("0\n")); // 4096 is a multiple of 8
    }

    @Test
    void ourLoadRefusesAHeaderThatBreaksARule() throws Exception {
        Path f = save("h.safetensors");
        String header = header(f);
        assertRefused(f, edit(f, "gap", header, "\"data_offsets\":[0,8]", "\"data_offsets\":[1,9]"),
                "a gap in the data region: bytes 0 to 1 belong to no tensor");
        assertRefused(f, edit(f, "overlap", header, "\"data_offsets\":[8,56]", "\"data_offsets\":[7,55]"),
                "overlaps the tensor before it");
        assertRefused(f, edit(f, "dup", header, "\"a.counts\":", "\"z.counts\":"), "a tensor name appears twice");
        Path big = copy(f, "big.safetensors");
        try (var ch = java.nio.channels.FileChannel.open(big, java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(new byte[] {0, (byte) 0xe2, (byte) 0xf5, 5, 0, 0, 0, 0}), 0);
        } // 100,000,256
        assertRefused(f, big, "exceeds 100000000 bytes");
        Path trailing = copy(f, "trailing.safetensors");
        Files.write(trailing, new byte[] {0}, java.nio.file.StandardOpenOption.APPEND);
        CliTest.Result r = CliTest.run("load", trailing.toString());
        assertEquals(3, r.code(), r.err());
        assertTrue(r.err().strip().lines().count() == 1, r.err());
        String c = python(trailing.toString());
        assertTrue(c.startsWith("1\n") && c.contains("data region ends at byte"), c);
    }

    /** A config.json model of 100 small layers: 903 tensors, a tensor list of tens of KiB in the manifest. */
    @Test
    void aHuggingFaceConfigGivesLlamaNamesAndShapes() throws Exception {
        Path config = Files.writeString(dir.resolve("config.json"), """
                {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 32,
                 "intermediate_size": 48, "num_hidden_layers": 100, "num_attention_heads": 4,
                 "num_key_value_heads": 2, "vocab_size": 50, "tie_word_embeddings": false, "torch_dtype": "bfloat16"}
                """);
        Path f = dir.resolve("llama.safetensors");
        CliTest.Result s = CliTest.run("save", f.toString(), "--format", "safetensors", "--model", config.toString(),
                "--seed", "3");
        assertEquals(0, s.code(), s.err());
        String out = python(f.toString());
        assertTrue(out.startsWith("0\n") && out.contains("903 tensors"), out);
        CliTest.Result i = CliTest.run("inspect", f.toString());
        assertTrue(i.out().matches("(?s).*model\\.layers\\.99\\.self_attn\\.k_proj\\.weight +bfloat16 +\\[16,32\\].*")
                && i.out().contains("lm_head.weight") && i.out().contains("model.layers.0.post_attention_layernorm"
                + ".weight"), i.out());
        assertEquals(0, CliTest.run("load", f.toString(), "--verify").code());
        CliTest.Result bad = CliTest.run("save", dir.resolve("x.safetensors").toString(), "--format", "safetensors",
                "--model", dir.resolve("none.json").toString());
        assertEquals(2, bad.code(), bad.err());
        assertTrue(bad.err().contains("none.json: no such file") && bad.err().strip().lines().count() == 1, bad.err());
    }

    /** Shards to a directory: the index and config.json beside them, every rule and the index checked by the parser. */
    @Test
    void shardsIndexAndConfigInADirectory() throws Exception {
        Path config = Files.writeString(dir.resolve("config.json"), """
                {"hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 4, "num_attention_heads": 4,
                 "num_key_value_heads": 2, "vocab_size": 100, "torch_dtype": "bfloat16", "model_type": "llama"}
                """);
        Path out = dir.resolve("model");
        CliTest.Result s = CliTest.run("save", out + "/", "--format", "safetensors", "--model", config.toString(),
                "--max-shard-size", "6000B", "--seed", "21", "--json");
        assertEquals(0, s.code(), s.err());
        // each shard's row: the phases of its save, from start-up to commit, adding up to its seconds
        Map<?, ?> saved = (Map<?, ?>) JsonReader.parse(s.out().getBytes(StandardCharsets.UTF_8));
        for (Object o : (List<?>) saved.get("shards")) {
            Map<?, ?> row = (Map<?, ?>) o;
            Map<?, ?> phases = (Map<?, ?>) row.get("phases");
            assertEquals(List.of("startUp", "open", "firstChunk", "io", "generationStall", "drain", "commit"),
                    List.copyOf(phases.keySet()), row.toString());
            double sum = phases.values().stream().mapToDouble(v -> ((Number) v).doubleValue()).sum();
            assertEquals(((Number) row.get("seconds")).doubleValue(), sum, 0.001 * phases.size(), row.toString());
        }
        // the embedding (6400 bytes) is larger than a shard: it has one of its own; lm_head too
        String idx = Files.readString(out.resolve("model.safetensors.index.json"));
        assertTrue(idx.startsWith("{\n  \"metadata\": {\n    \"total_size\": ") && idx.endsWith("}\n")
                && idx.contains("\"model.embed_tokens.weight\": \"model-00001-of-") && idx.contains(
                "\"model.layers.0.self_attn.q_proj.weight\": \"model-00002-of-"), idx);
        String c = python(out.toString(), "--packages");
        assertTrue(c.startsWith("0\n") && c.contains("rules hold: ") && c.contains(" 39 tensors"), c);
        assertTrue(c.contains("transformers: LlamaConfig read") || c.contains("skipped: the transformers package"), c);
        CliTest.Result i = CliTest.run("inspect", out.toString(), "--json");
        assertEquals(0, i.code(), i.err());
        assertTrue(i.out().contains("\"member\":\"model-00001-of-") && i.out().contains("\"name\":\"lm_head.weight\""),
                i.out());
        assertTrue(i.out().contains("\"shards\":[{\"file\":\"model-00001-of-"), i.out());
        // text: each shard's line (its tensors and bytes), then its tensors
        String listed = CliTest.run("inspect", out.toString()).out();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                "\n  model-00001-of-\\d{5}\\.safetensors: 1 tensor, 6400 bytes of tensors in \\d+ bytes\n"
                + "  +model\\.embed_tokens\\.weight +bfloat16 ").matcher(listed);
        assertTrue(m.find(), listed);
        CliTest.Result v = CliTest.run("load", out.toString(), "--verify", "--json");
        assertEquals(0, v.code(), v.err());
        assertTrue(v.out().contains("\"verified\":true"), v.out());
        assertTrue(Files.readString(out.resolve("config.json")).contains("\"num_key_value_heads\": 2,"));
        CliTest.Result torch = CliTest.run("save", dir.resolve("t.pt").toString(), "--format", "torch", "--model",
                "tiny", "--max-shard-size", "1MB");
        assertEquals(2, torch.code(), torch.err());
        assertTrue(torch.err().contains("--max-shard-size cuts safetensors shards"), torch.err());
        CliTest.Result az = CliTest.run("save", "az://container/model/", "--format", "safetensors", "--model", "tiny");
        assertEquals(2, az.code(), az.err()); // s3:// prefixes: SafetensorsS3CliTest
        assertTrue(az.err().contains("a local directory or an s3:// prefix, not az://container/model/")
                && az.err().strip().lines().count() == 1, az.err());
    }

    /**
     * A DLIO workload's model section as a LLaMA model: configs/dlio/tiny.yaml's dimensions with Hugging Face
     * names, its parameter count DLIO's own (embedding, per layer norm, QKV, dense, norm, gated MLP, final norm,
     * output), its config.json beside the shards.
     */
    @Test
    void aDlioModelSectionIsALlamaModel() throws Exception {
        Path out = dir.resolve("dlio-tiny");
        CliTest.Result s = CliTest.run("save", out + "/", "--format", "safetensors", "--model",
                Path.of("configs/dlio/tiny.yaml").toAbsolutePath().toString(), "--seed", "3", "--json");
        assertEquals(0, s.code(), s.err());
        // 1024 x 256 embedding and lm_head, 4 layers of 754,176 parameters, a final norm: 3,541,248 in fp16
        String idx = Files.readString(out.resolve("model.safetensors.index.json"));
        assertTrue(idx.contains("\"total_size\": 7082496\n") && idx.contains("\"model.layers.3.mlp.down_proj.weight\"")
                && idx.contains("\"lm_head.weight\""), idx);
        String config = Files.readString(out.resolve("config.json"));
        assertTrue(config.contains("\"num_key_value_heads\": 2,") && config.contains("\"torch_dtype\": \"float16\",")
                && config.contains("\"intermediate_size\": 768,") && config.contains("\"vocab_size\": 1024\n"), config);
        String listed = CliTest.run("inspect", out.toString()).out();
        assertTrue(listed.matches("(?s).*model\\.layers\\.0\\.self_attn\\.k_proj\\.weight +float16 +\\[64,256\\] .*"),
                listed);
        String c = python(out.toString());
        assertTrue(c.startsWith("0\n") && c.contains(" 39 tensors"), c);

        Path legacy = Files.writeString(dir.resolve("legacy.yaml"), "model:\n  name: old\n  model_size_bytes: 4096\n"
                + "workflow:\n  checkpoint: True\n");
        CliTest.Result bad = CliTest.run("save", dir.resolve("x") + "/", "--format", "safetensors", "--model",
                legacy.toString());
        assertEquals(2, bad.code(), bad.err());
        assertTrue(bad.err().contains("legacy.yaml: its model section is no transformer")
                && bad.err().strip().lines().count() == 1, bad.err());
    }

    private static String header(Path f) throws Exception {
        byte[] b = Files.readAllBytes(f);
        long n = java.nio.ByteBuffer.wrap(b, 0, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
        return new String(b, 8, (int) n, StandardCharsets.UTF_8);
    }

    private Path copy(Path f, String name) throws Exception {
        Path to = dir.resolve(name);
        Files.copy(f, to, StandardCopyOption.REPLACE_EXISTING);
        Files.copy(Path.of(f + ".manifest.json"), Path.of(to + ".manifest.json"), StandardCopyOption.REPLACE_EXISTING);
        return to;
    }

    /** A copy of {@code f} with {@code from} replaced by {@code to} (the same length) in its header. */
    private Path edit(Path f, String name, String header, String from, String to) throws Exception {
        assertEquals(from.length(), to.length());
        assertTrue(header.contains(from), from + " in " + header);
        Path out = copy(f, name + ".safetensors");
        byte[] b = Files.readAllBytes(out);
        byte[] h = header.replaceFirst(java.util.regex.Pattern.quote(from), to).getBytes(StandardCharsets.UTF_8);
        System.arraycopy(h, 0, b, 8, h.length);
        Files.write(out, b);
        return out;
    }

    private void assertRefused(Path original, Path f, String why) throws Exception {
        CliTest.Result r = CliTest.run("load", f.toString());
        assertEquals(3, r.code(), r.err());
        assertTrue(r.err().contains(why) && r.err().strip().lines().count() == 1, r.err());
        String c = python(f.toString());
        assertTrue(c.startsWith("1\n") && c.contains("FAIL: "), c);
        assertTrue(python(original.toString()).startsWith("0\n"));
    }

    private static void flip(Path f, long at) throws Exception {
        try (var ch = java.nio.channels.FileChannel.open(f, java.nio.file.StandardOpenOption.READ,
                java.nio.file.StandardOpenOption.WRITE)) {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1);
            ch.read(b, at);
            b.put(0, (byte) (b.get(0) ^ 0x40));
            ch.write(b.rewind(), at);
        }
    }
}
