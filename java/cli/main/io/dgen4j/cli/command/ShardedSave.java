package io.dgen4j.cli.command;

import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.cli.Environment;
import io.dgen4j.cli.option.CheckpointOptions;
import io.dgen4j.cli.option.StorageBackendOptions;
import io.dgen4j.cli.report.Progress;
import io.dgen4j.format.Layout;
import io.dgen4j.format.LlamaModel;
import io.dgen4j.format.SafetensorsShards;
import io.dgen4j.format.Tensor;
import io.dgen4j.format.TensorList;
import io.dgen4j.json.JsonWriter;
import io.dgen4j.storage.StorageTarget;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code save DIR --format safetensors}: a model as transformers saves it, one safetensors file per
 * shard (each a streaming save in the pool's memory, its payloads the stream of seed + K - 1), then
 * {@code model.safetensors.index.json} and, for a LLaMA model, {@code config.json}.
 */
final class ShardedSave {
    private ShardedSave() {}

    /** Whether {@code target} asks for shards: a directory (existing, or a path ending in '/'). */
    static boolean wanted(String target, Long maxShard) {
        return maxShard != null || target.endsWith("/") || Files.isDirectory(Path.of(target));
    }

    static void save(String target, Layout whole, long maxShard, Optional<LlamaModel> llama, CheckpointOptions options,
                     StorageBackendOptions backend, Progress bar, Environment env, boolean json, PrintWriter out)
            throws IOException {
        StorageTarget root = StorageTarget.parse(target.replaceAll("/+$", "").isEmpty() ? target
                : target.replaceAll("/+$", ""));
        if (!root.isFile()) {
            throw new IllegalArgumentException("sharded safetensors saves go to a local directory for now, not "
                    + target);
        }
        Path dir = root.path();
        Files.createDirectories(dir);
        List<List<Tensor>> shards = SafetensorsShards.plan(whole.tensors(), maxShard);
        long base = options.data.seed != null ? options.data.seed : ThreadLocalRandom.current().nextLong();
        List<Map<String, Object>> rows = new ArrayList<>();
        long fileBytes = 0;
        long done = 0;
        long start = System.nanoTime();
        for (int k = 0; k < shards.size(); k++) {
            String name = SafetensorsShards.fileName(k + 1, shards.size());
            StorageTarget where = StorageTarget.parse(dir.resolve(name).toString());
            options.data.seed = base + k; // each shard its own stream: seed + K - 1
            long before = done;
            StreamingCheckpoint ckpt = backend.apply(options.builder(n -> bar.update(before + n), env), where, env)
                    .build();
            SaveResult r = ckpt.save(where, Layout.of(Layout.Format.SAFETENSORS, shards.get(k), false,
                    whole.alignment()).withFinite(whole.finite()));
            done += r.totalBytes();
            fileBytes += r.totalBytes();
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("file", name);
            row.put("tensors", (long) shards.get(k).size());
            row.put("tensorBytes", TensorList.bytes(shards.get(k)));
            row.put("bytes", r.totalBytes());
            row.put("seed", r.seed());
            row.put("seconds", r.totalSeconds());
            row.put("peakRssBytes", r.memory().peakRssBytes());
            rows.add(row);
        }
        Files.writeString(dir.resolve(SafetensorsShards.INDEX), SafetensorsShards.indexJson(shards));
        if (llama.isPresent()) {
            Files.writeString(dir.resolve("config.json"), llama.get().configJson());
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long tensorBytes = TensorList.bytes(whole.tensors());
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("target", dir.toString());
            doc.put("format", "safetensors");
            doc.put("shards", rows);
            doc.put("tensorBytes", tensorBytes);
            doc.put("fileBytes", fileBytes);
            doc.put("seconds", seconds);
            doc.put("index", SafetensorsShards.INDEX);
            doc.put("config", llama.isPresent() ? "config.json" : null);
            out.println(JsonWriter.ASCII_LINE.write(doc));
        } else {
            out.printf(Locale.ROOT, "saved %s: %d safetensors shard%s, %d tensor bytes in %d file bytes, %.3f s,"
                    + " %.2f GB/s%n", dir, shards.size(), shards.size() == 1 ? "" : "s", tensorBytes, fileBytes,
                    seconds, fileBytes / seconds / 1e9);
            for (Map<String, Object> r : rows) {
                out.printf(Locale.ROOT, "  %s  %5d tensors  %15d bytes  %8.3f s  seed %s%n", r.get("file"),
                        r.get("tensors"), r.get("bytes"), r.get("seconds"), r.get("seed"));
            }
            out.printf("  %s%s%n", SafetensorsShards.INDEX, llama.isPresent() ? ", config.json" : "");
        }
    }
}
