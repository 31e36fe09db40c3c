package io.dgen4j.cli.command;

import io.dgen4j.checkpoint.BufferPool;
import io.dgen4j.checkpoint.CheckpointException;
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
import io.dgen4j.json.JsonReader;
import io.dgen4j.json.JsonWriter;
import io.dgen4j.s3.S3Location;
import io.dgen4j.storage.StorageTarget;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code save DIR --format safetensors}: a model as transformers saves it, one safetensors file per
 * shard (each a streaming save through one buffer pool, its payloads the stream of seed + K - 1), then
 * {@code model.safetensors.index.json} and, for a LLaMA model, {@code config.json}; to a local
 * directory or an {@code s3://bucket/prefix/} (each shard an object of its own, written in parts).
 */
final class ShardedSave {
    /** The most bytes an index or config.json object may hold when read back (they are kilobytes). */
    private static final int MAX_SMALL_OBJECT = 64 << 20;

    private ShardedSave() {}

    /**
     * Where a model's files are: a local directory or an object prefix ({@code s3://bucket/prefix/}); the
     * {@link #shown} name is the directory or the prefix as given, with one final '/' for a prefix.
     */
    record Place(Path dir, String prefix) {
        /** The place {@code target} names: an {@code s3://} target is a prefix, anything else a local directory. */
        static Place of(String target) {
            String trimmed = target.replaceAll("/+$", "");
            StorageTarget t = StorageTarget.parse(trimmed.isEmpty() || trimmed.endsWith(":/") ? target : trimmed);
            if (S3Location.SCHEME.equals(t.scheme())) {
                String p = target.endsWith("/") ? target : target + "/";
                S3Location.of(StorageTarget.parse(p + SafetensorsShards.INDEX)); // a bad bucket: a usage error now
                return new Place(null, p);
            }
            if (!t.isFile()) {
                throw new IllegalArgumentException("sharded safetensors go to a local directory or an s3:// prefix, "
                        + "not " + target);
            }
            return new Place(t.path(), null);
        }

        boolean local() {
            return dir != null;
        }

        /** The file or object called {@code name} here. */
        StorageTarget resolve(String name) {
            return StorageTarget.parse(local() ? dir.resolve(name).toString() : prefix + name);
        }

        String shown() {
            return local() ? dir.toString() : prefix;
        }

        /** Writes a small file or object (the index, config.json) through {@code ckpt}'s backend. */
        void write(String name, String text, StreamingCheckpoint ckpt) throws IOException {
            if (local()) {
                Files.writeString(dir.resolve(name), text);
            } else {
                ckpt.write(resolve(name), text.getBytes(StandardCharsets.UTF_8));
            }
        }

        /** Reads a small file or object whole; a missing one is a {@link NoSuchFileException} naming it. */
        byte[] read(String name, StreamingCheckpoint ckpt) throws IOException {
            if (local()) {
                return Files.readAllBytes(dir.resolve(name));
            }
            StorageTarget t = resolve(name);
            try {
                return ckpt.read(t, reader -> {
                    if (reader.size() > MAX_SMALL_OBJECT) {
                        throw new IOException(t + " holds " + reader.size() + " bytes: an index is at most "
                                + MAX_SMALL_OBJECT);
                    }
                    int n = (int) reader.size();
                    try (Arena arena = Arena.ofShared()) {
                        MemorySegment buf = arena.allocate(Math.max(4096, (n + 4095) & ~4095L), 4096);
                        long got = 0;
                        while (got < n) {
                            long r = reader.read(got, buf.asSlice(got, Math.max(4096, (n - got + 4095) & ~4095L)));
                            if (r <= 0) {
                                throw new EOFException(t + " ends at byte " + got + ", before " + n);
                            }
                            got += r;
                        }
                        return buf.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
                    }
                });
            } catch (CheckpointException e) {
                if (e.getCause() instanceof NoSuchFileException) {
                    throw new NoSuchFileException(t.toString());
                }
                throw e;
            }
        }

        /** The index's weight map ({@code name -> file}), read from here. */
        Map<?, ?> weightMap(StreamingCheckpoint ckpt) throws IOException {
            String where = local() ? dir.resolve(SafetensorsShards.INDEX).toString() : prefix + SafetensorsShards.INDEX;
            Object doc;
            try {
                doc = JsonReader.parse(read(SafetensorsShards.INDEX, ckpt));
            } catch (JsonReader.SyntaxException e) {
                throw new IOException(where + " is not valid JSON: " + e.getMessage(), e);
            } catch (NoSuchFileException e) {
                throw new IOException((local() ? dir + " is a directory without " : prefix + " holds no ")
                        + SafetensorsShards.INDEX, e);
            }
            if (!(doc instanceof Map<?, ?> top) || !(top.get("weight_map") instanceof Map<?, ?> map)) {
                throw new IOException(where + " has no weight_map object");
            }
            return map;
        }
    }

    /**
     * Whether {@code target} names a model to load or inspect: a local directory holding the index, or an
     * {@code s3://} prefix (a target ending in '/').
     */
    static boolean isModel(String target) {
        if (target.startsWith(S3Location.SCHEME + "://")) {
            return target.endsWith("/");
        }
        return Files.isDirectory(Path.of(target)) && Files.exists(Path.of(target, SafetensorsShards.INDEX));
    }

    /** fsync of a file or directory; a failure names it. */
    private static void force(Path p) throws IOException {
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            throw new IOException("fsync of " + p + " failed: " + e.getMessage(), e);
        }
    }

    /** Whether {@code target} asks for shards: a directory (existing, or a path ending in '/'). */
    static boolean wanted(String target, Long maxShard) {
        return maxShard != null || target.endsWith("/") || Files.isDirectory(Path.of(target));
    }

    static void save(String target, Layout whole, long maxShard, Optional<LlamaModel> llama, CheckpointOptions options,
                     StorageBackendOptions backend, Progress bar, Environment env, boolean json, PrintWriter out)
            throws IOException {
        Place place = Place.of(target);
        List<List<Tensor>> shards = SafetensorsShards.plan(whole.tensors(), maxShard);
        List<Layout> layouts = new ArrayList<>();
        for (List<Tensor> shard : shards) {
            layouts.add(Layout.of(Layout.Format.SAFETENSORS, shard, false, whole.alignment())
                    .withFinite(whole.finite()));
        }
        if (place.local()) {
            Files.createDirectories(place.dir());
        } else {
            for (int k = 0; k < shards.size(); k++) { // S3 parts: every shard's plan before any data
                backend.checkSave(place.resolve(SafetensorsShards.fileName(k + 1, shards.size())),
                        layouts.get(k).size(), options.chunk, env);
            }
        }
        long base = options.data.seed != null ? options.data.seed : ThreadLocalRandom.current().nextLong();
        List<Map<String, Object>> rows = new ArrayList<>();
        long fileBytes = 0;
        long done = 0;
        long start = System.nanoTime();
        // A local shard's fsync runs beside the next shard's writes (it took most of a shard's commit here), and
        // every one is done, with the directory's, before the index names them. It starts once the next shard's
        // first write is done: when both ran at once, its journal commit was seen to hold the next shard's open
        // (temp file, preallocation: ext4 journal handles) for 0.7 and 1.4 s.
        boolean deferSync = place.local() && options.fileOptions().fsync();
        ExecutorService syncer = deferSync ? Executors.newSingleThreadExecutor(
                Thread.ofPlatform().daemon().name("dgen4j-shard-fsync").factory()) : null;
        List<Future<?>> syncs = new ArrayList<>();
        List<CountDownLatch> firstWrite = new ArrayList<>();
        for (int k = 0; k < shards.size(); k++) {
            firstWrite.add(new CountDownLatch(1));
        }
        // One pool for every shard: mapped and first-touched once, as a run of many saves uses it.
        try (BufferPool pool = new BufferPool(options.buffers, options.chunk);
             Closeable stop = syncer == null ? () -> { } : syncer::shutdown; // queued fsyncs still run
             Closeable open = () -> firstWrite.forEach(CountDownLatch::countDown)) { // none waits on a failure
            for (int k = 0; k < shards.size(); k++) {
                String name = SafetensorsShards.fileName(k + 1, shards.size());
                StorageTarget where = place.resolve(name);
                options.data.seed = base + k; // each shard its own stream: seed + K - 1
                long before = done;
                CountDownLatch written = firstWrite.get(k);
                StreamingCheckpoint.Builder b = backend.apply(options.builder(n -> {
                    written.countDown();
                    bar.update(before + n);
                }, env), where, env).bufferPool(pool);
                if (deferSync) {
                    b.backendOptions(options.fileOptions().withFsync(false));
                }
                SaveResult r;
                try {
                    r = b.build().save(where, layouts.get(k));
                } finally {
                    written.countDown();
                }
                if (deferSync) {
                    Path file = where.path();
                    CountDownLatch next = k + 1 < shards.size() ? firstWrite.get(k + 1) : new CountDownLatch(0);
                    syncs.add(syncer.submit(() -> {
                        next.await();
                        force(file);
                        force(file.resolveSibling(file.getFileName() + ".manifest.json"));
                        return null;
                    }));
                }
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
                row.put("phases", r.toMap().get("phases")); // a single save's: where a shard's time went
                rows.add(row);
            }
        }
        if (deferSync) {
            try {
                for (Future<?> f : syncs) {
                    f.get();
                }
            } catch (ExecutionException e) {
                throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("save to " + place.shown() + " interrupted during its fsyncs");
            } finally {
                syncer.shutdownNow();
            }
            force(place.dir()); // the shards' renames
        }
        StreamingCheckpoint small = backend.apply(options.builder(n -> { }, env),
                place.resolve(SafetensorsShards.INDEX), env).build();
        place.write(SafetensorsShards.INDEX, SafetensorsShards.indexJson(shards), small);
        if (llama.isPresent()) {
            place.write("config.json", llama.get().configJson(), small);
        }
        if (deferSync) { // the index and config.json durable too
            force(place.dir().resolve(SafetensorsShards.INDEX));
            if (llama.isPresent()) {
                force(place.dir().resolve("config.json"));
            }
            force(place.dir());
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long tensorBytes = TensorList.bytes(whole.tensors());
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("target", place.shown());
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
                    + " %.2f GB/s%n", place.shown(), shards.size(), shards.size() == 1 ? "" : "s", tensorBytes,
                    fileBytes, seconds, fileBytes / seconds / 1e9);
            for (Map<String, Object> r : rows) {
                out.printf(Locale.ROOT, "  %s  %5d tensors  %15d bytes  %8.3f s  seed %s%n", r.get("file"),
                        r.get("tensors"), r.get("bytes"), r.get("seconds"), r.get("seed"));
            }
            out.printf("  %s%s%n", SafetensorsShards.INDEX, llama.isPresent() ? ", config.json" : "");
        }
    }
}
