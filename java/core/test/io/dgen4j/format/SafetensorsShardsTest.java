package io.dgen4j.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Shards cut as transformers cuts them, and the index's exact text. */
class SafetensorsShardsTest {
    @Test
    void llama3EightBIsFourShardsOfAtMostFiveGB() {
        List<Tensor> all = TensorList.model("llama3-8b");
        List<List<Tensor>> shards = SafetensorsShards.plan(all, SafetensorsShards.DEFAULT_MAX_SHARD);
        assertEquals(4, shards.size());
        long sum = 0;
        for (List<Tensor> s : shards) {
            assertTrue(TensorList.bytes(s) <= SafetensorsShards.DEFAULT_MAX_SHARD);
            sum += TensorList.bytes(s);
        }
        assertEquals(16_060_522_496L, sum);
        assertEquals(all, shards.stream().flatMap(List::stream).toList()); // cut in tensor order
        String index = SafetensorsShards.indexJson(shards);
        assertTrue(index.startsWith("{\n  \"metadata\": {\n    \"total_size\": 16060522496\n  },\n  \"weight_map\": {\n"
                + "    \"lm_head.weight\": \"model-00004-of-00004.safetensors\",\n"
                + "    \"model.embed_tokens.weight\": \"model-00001-of-00004.safetensors\",\n"), index);
        assertTrue(index.endsWith("\"model.norm.weight\": \"model-00004-of-00004.safetensors\"\n  }\n}\n"), index);
    }

    @Test
    void aTensorLargerThanAShardHasItsOwn() {
        List<Tensor> t = TensorList.parse("""
                a uint8 [10]
                big uint8 [100]
                b uint8 [10]
                c uint8 [25]
                """, "t");
        List<List<Tensor>> s = SafetensorsShards.plan(t, 30);
        assertEquals(List.of(List.of(t.get(0)), List.of(t.get(1)), List.of(t.get(2)), List.of(t.get(3))), s);
        assertEquals(List.of(List.of(t.get(0), t.get(1), t.get(2), t.get(3))), SafetensorsShards.plan(t, 145));
        assertEquals("model-00002-of-00017.safetensors", SafetensorsShards.fileName(2, 17));
    }
}
