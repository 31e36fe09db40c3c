package io.dgen4j.format;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A model saved as safetensors shards, the way transformers' {@code save_pretrained} cuts them: in
 * tensor order, a new shard when the next tensor would take the current one past the maximum (a
 * tensor larger than the maximum gets a shard of its own), files
 * {@code model-0000K-of-0000N.safetensors}, and {@code model.safetensors.index.json}.
 */
public final class SafetensorsShards {
    /** transformers' default {@code max_shard_size}: 5GB. */
    public static final long DEFAULT_MAX_SHARD = 5_000_000_000L;
    /** The index's name. */
    public static final String INDEX = "model.safetensors.index.json";

    private SafetensorsShards() {}

    /** The shards' tensors, cut in {@code tensors}' order at {@code maxShard} bytes of tensors. */
    public static List<List<Tensor>> plan(List<Tensor> tensors, long maxShard) {
        if (maxShard <= 0) {
            throw new IllegalArgumentException("--max-shard-size must be positive, got " + maxShard);
        }
        List<List<Tensor>> out = new ArrayList<>();
        List<Tensor> current = new ArrayList<>();
        long bytes = 0;
        for (Tensor t : tensors) {
            if (!current.isEmpty() && bytes + t.bytes() > maxShard) {
                out.add(List.copyOf(current));
                current.clear();
                bytes = 0;
            }
            current.add(t);
            bytes += t.bytes();
        }
        if (!current.isEmpty()) {
            out.add(List.copyOf(current));
        }
        return List.copyOf(out);
    }

    /** The file of shard {@code k} (from 1) of {@code n}: {@code model-00001-of-00004.safetensors}. */
    public static String fileName(int k, int n) {
        return String.format("model-%05d-of-%05d.safetensors", k, n);
    }

    /**
     * {@code model.safetensors.index.json}: {@code {"metadata": {"total_size": ...}, "weight_map":
     * {name: file}}} with 2-space indent, sorted keys and a final newline (Python's
     * {@code json.dumps(indent=2, sort_keys=True) + "\n"}, as transformers writes it).
     */
    public static String indexJson(List<List<Tensor>> shards) {
        Map<String, Object> map = new TreeMap<>();
        long total = 0;
        for (int k = 0; k < shards.size(); k++) {
            for (Tensor t : shards.get(k)) {
                map.put(t.name(), fileName(k + 1, shards.size()));
                total += t.bytes();
            }
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("metadata", Map.of("total_size", total));
        doc.put("weight_map", map);
        return LlamaModel.indented(doc, "") + "\n";
    }
}
