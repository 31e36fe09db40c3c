package io.dgen4j.cli.command;

import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.cli.Environment;
import io.dgen4j.cli.option.LoadOptions;
import io.dgen4j.cli.option.ProgressOptions;
import io.dgen4j.cli.option.StorageBackendOptions;
import io.dgen4j.cli.report.Reports;
import io.dgen4j.format.SafetensorsShards;
import io.dgen4j.storage.StorageTarget;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code dgen4j load}: parallel reads of a checkpoint, optionally verifying every byte. */
@Command(name = "load", mixinStandardHelpOptions = true,
        description = "Load a checkpoint with parallel positional reads; --verify compares every byte with the regenerated stream.")
public final class LoadCommand implements Callable<Integer> {
    private final Environment env;

    /** A load that reads {@code env}'s variables (S3 settings, the backend, a launcher's ranks). */
    public LoadCommand(Environment env) {
        this.env = env;
    }

    @Spec
    CommandSpec command;

    @Parameters(paramLabel = "TARGET", description = "Path, file://, direct://, s3://bucket/key or az://container/blob URI of the checkpoint.")
    String target;

    @Option(names = "--verify", description = "Compare every byte with the stream named by the manifest.")
    boolean verify;

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    boolean json;

    @Mixin
    LoadOptions options;

    @Mixin
    ProgressOptions progress;

    @Mixin
    StorageBackendOptions backend;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = command.commandLine().getOut();
        options.check(verify);
        backend.checkLoad();
        if (ShardedSave.isModel(target)) {
            return shards(out);
        }
        StorageTarget.parse(target); // a malformed target is a usage error before anything starts
        // Under mpirun/srun each rank loads its own shard (named as save names it); rank 0 reports for all.
        try (Ranks ranks = Ranks.open(command, env)) {
            StorageTarget where = StorageTarget.parse(ranks.target(target));
            options.threads = ranks.threads(options.threads);
            long size = sizeOf(where);
            Ranks.Done<LoadResult> done = ranks.together(() -> progress.bar(verify ? "load+verify" : "load", size),
                    bar -> backend.apply(options.builder(bar::update), where, env).build(),
                    ckpt -> ckpt.load(where, verify),
                    options.threads, false, r -> new Ranks.Figures(r.totalBytes(), null, r.endpoints()));
            LoadResult r = done.result();
            ranks.report(out, json, verify ? "loaded and verified" : "loaded", r.toMap(), () -> Reports.load(out, r),
                    target, done.all());
        }
        out.flush();
        return 0;
    }

    /** Loads every shard {@code model.safetensors.index.json} names, one after another, each with its own manifest. */
    private int shards(PrintWriter out) throws IOException {
        ShardedSave.Place place = ShardedSave.Place.of(target);
        java.util.Map<?, ?> map = place.weightMap(backend.apply(options.builder(n -> { }),
                place.resolve(SafetensorsShards.INDEX), env).build());
        java.util.List<java.util.Map<String, Object>> rows = new java.util.ArrayList<>();
        long bytes = 0;
        long start = System.nanoTime();
        for (String name : new java.util.TreeSet<>(map.values().stream().map(String::valueOf).toList())) {
            StorageTarget where = place.resolve(name);
            LoadResult r = backend.apply(options.builder(n -> { }), where, env).build().load(where, verify);
            bytes += r.totalBytes();
            java.util.Map<String, Object> row = new java.util.LinkedHashMap<>();
            row.put("file", name);
            row.put("bytes", r.totalBytes());
            row.put("seconds", r.times().totalSeconds());
            row.put("verified", verify);
            rows.add(row);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (json) {
            java.util.Map<String, Object> d = new java.util.LinkedHashMap<>();
            d.put("target", place.shown());
            d.put("shards", rows);
            d.put("bytes", bytes);
            d.put("seconds", seconds);
            d.put("verified", verify);
            out.println(io.dgen4j.json.JsonWriter.ASCII_LINE.write(d));
        } else {
            out.printf(java.util.Locale.ROOT, "%s %s: %d safetensors shard%s, %d bytes, %.3f s, %.2f GB/s%n",
                    verify ? "loaded and verified" : "loaded", place.shown(), rows.size(), rows.size() == 1 ? "" : "s", bytes,
                    seconds, bytes / seconds / 1e9);
        }
        out.flush();
        return 0;
    }

    private static long sizeOf(StorageTarget where) {
        if (!where.isFile()) {
            return 0; // an object's size comes with its HEAD, inside the load
        }
        try {
            return Files.size(where.path());
        } catch (IOException e) {
            return 0; // the load itself reports a missing file precisely
        }
    }
}
