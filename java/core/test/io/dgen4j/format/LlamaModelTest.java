package io.dgen4j.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.json.JsonReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** LLaMA models with Hugging Face names and shapes: the built-in sizes' bytes and a config.json's tensors. */
class LlamaModelTest {
    @TempDir
    Path dir;

    @Test
    void builtInSizesHaveMetasParameterCounts() {
        List<Tensor> t8 = TensorList.model("llama3-8b");
        assertEquals(16_060_522_496L, TensorList.bytes(t8)); // 8,030,261,248 bfloat16 parameters
        assertEquals(2 + 32 * 9 + 1, t8.size());
        assertEquals(Tensor.of("model.layers.0.self_attn.k_proj.weight", DType.BFLOAT16, 1024, 4096), t8.get(2));
        assertEquals(Tensor.of("model.layers.31.mlp.down_proj.weight", DType.BFLOAT16, 4096, 14336),
                t8.get(1 + 31 * 9 + 6));
        assertEquals(Tensor.of("lm_head.weight", DType.BFLOAT16, 128256, 4096), t8.getLast());
        assertEquals(70_553_706_496L * 2, TensorList.bytes(TensorList.model("llama3-70b")));
        assertEquals(405_853_388_800L * 2, TensorList.bytes(TensorList.model("llama3-405b")));
        assertTrue(TensorList.MODELS.containsAll(LlamaModel.NAMES));
    }

    @Test
    void aConfigJsonGivesGroupedQueryShapesAndTiedEmbeddings() throws Exception {
        Path c = Files.writeString(dir.resolve("config.json"), """
                {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64,
                 "intermediate_size": 160, "num_hidden_layers": 2, "num_attention_heads": 8,
                 "num_key_value_heads": 2, "vocab_size": 100, "tie_word_embeddings": true,
                 "torch_dtype": "float16", "rms_norm_eps": 1e-06}
                """);
        LlamaModel m = LlamaModel.read(c);
        List<Tensor> t = m.tensors();
        assertEquals(1 + 2 * 9 + 1, t.size()); // tied: no lm_head
        assertFalse(t.stream().anyMatch(x -> x.name().equals("lm_head.weight")));
        assertEquals(Tensor.of("model.layers.1.self_attn.v_proj.weight", DType.FLOAT16, 16, 64), t.get(1 + 9 + 2));
        assertEquals(Tensor.of("model.layers.1.post_attention_layernorm.weight", DType.FLOAT16, 64), t.get(1 + 9 + 8));
        assertEquals(Tensor.of("model.norm.weight", DType.FLOAT16, 64), t.getLast());
        // config.json as written beside the weights: sorted keys, 2-space indent, Python's numbers
        String written = m.configJson();
        assertTrue(written.startsWith("{\n  \"architectures\": [\n    \"LlamaForCausalLM\"\n  ],\n"), written);
        assertTrue(written.contains("\n  \"rms_norm_eps\": 1e-06,\n") && written.endsWith("}\n"), written);
        assertEquals(m.config(), JsonReader.parse(written.getBytes(StandardCharsets.UTF_8)));

        Files.writeString(c, "{\"hidden_size\": 64, \"num_hidden_layers\": 2}");
        IOException e = assertThrows(IOException.class, () -> LlamaModel.read(c));
        assertTrue(e.getMessage().contains("intermediate_size must be a positive integer"), e.getMessage());
    }

    @Test
    void builtInConfigReadsBack() throws Exception {
        LlamaModel m = LlamaModel.builtIn("llama3-405b");
        Object back = JsonReader.parse(m.configJson().getBytes(StandardCharsets.UTF_8));
        assertEquals(8L, ((Map<?, ?>) back).get("num_key_value_heads"));
        assertEquals("llama3", ((Map<?, ?>) ((Map<?, ?>) back).get("rope_scaling")).get("rope_type"));
        assertEquals(500000.0, ((Map<?, ?>) back).get("rope_theta"));
    }
}
