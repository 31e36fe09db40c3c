package io.dgen4j.cli.command;

import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.cli.Environment;
import io.dgen4j.cli.option.ByteSizeConverter;
import io.dgen4j.cli.option.CheckpointOptions;
import io.dgen4j.cli.option.FormatOptions;
import io.dgen4j.cli.option.Limits;
import io.dgen4j.cli.option.ProgressOptions;
import io.dgen4j.cli.option.StorageBackendOptions;
import io.dgen4j.cli.report.Reports;
import io.dgen4j.format.Layout;
import io.dgen4j.format.SafetensorsShards;
import io.dgen4j.storage.StorageTarget;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code dgen4j save}: a streaming checkpoint with bounded memory. */
@Command(name = "save", mixinStandardHelpOptions = true,
        description = {"Save a streaming checkpoint of generated data with a fixed memory footprint.",
                "TARGET is a path or file:// (O_DIRECT where the filesystem allows it), direct:// (O_DIRECT"
                        + " demanded), s3://bucket/key (credentials and endpoint from AWS_* variables or .env;"
                        + " see docs/S3.md), or az://container/blob (Azure Blob Storage: AZURE_STORAGE_* variables"
                        + " or .env; see docs/AZURE.md).",
                "The report cuts the wall time into phases that add up to the total. Throughput ratio = (I/O +"
                        + " fsync+rename) / total (1 when nothing but the storage took time); overhead = %% of the"
                        + " total outside the slower stage, generation or I/O + fsync+rename (docs/CHECKPOINTS.md)."})
public final class SaveCommand implements Callable<Integer> {
    private final Environment env;

    /** A save that reads {@code env}'s variables (S3 settings, the backend, the generator, a launcher's ranks). */
    public SaveCommand(Environment env) {
        this.env = env;
    }

    @Spec
    CommandSpec command;

    @Parameters(paramLabel = "TARGET", description = "Path, file://, direct://, s3://bucket/key or az://container/blob URI of the checkpoint.")
    String target;

    @Option(names = "--size", paramLabel = "<size>", converter = ByteSizeConverter.class,
            description = "Checkpoint size, e.g. 24GiB (with --tensors or --model, the tensors give it).")
    Long sizeAsked;

    @Mixin
    FormatOptions format;

    @Option(names = "--old-method", description = "Allocate the whole checkpoint, generate it, then write it (for comparison).")
    boolean oldMethod;

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    boolean json;

    @Mixin
    CheckpointOptions options;

    @Mixin
    ProgressOptions progress;

    @Mixin
    StorageBackendOptions backend;

    @Option(names = "--same-seed", description = "Under mpirun/srun: every rank uses the same seed (--seed, else rank 0's),"
            + " so all shards hold the same stream. Default: the seed mixed with the rank, so every shard differs.")
    boolean sameSeed;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = command.commandLine().getOut();
        if (format.safetensors() && ShardedSave.wanted(target, format.maxShardSize())) {
            options.check();
            Layout layout = format.layout(sizeAsked).orElseThrow();
            long max = format.maxShardSize() != null ? format.maxShardSize() : SafetensorsShards.DEFAULT_MAX_SHARD;
            try (io.dgen4j.cli.report.Progress bar = progress.bar("save", layout.size())) {
                ShardedSave.save(target, layout, max, format.llama(), options, backend, bar, env, json, out);
            }
            out.flush();
            return 0;
        }
        StorageTarget.parse(target); // a malformed target is a usage error before anything starts
        options.check();
        Layout layout = format.layout(sizeAsked).orElse(null);
        long size = layout == null ? sizeAsked : layout.size();
        if (oldMethod && layout != null) {
            throw new IllegalArgumentException("--old-method writes the stream alone: it takes --size, not --format, "
                    + "--tensors or --model");
        }
        if (oldMethod) {
            Limits.memory(size, "--old-method holds the whole checkpoint in memory: it",
                    "use a smaller --size, or the streaming save (without --old-method)");
        }
        // Under mpirun/srun each rank saves its own shard with its own seed; rank 0 reports for all (Ranks).
        try (Ranks ranks = Ranks.open(command, env)) {
            StorageTarget where = StorageTarget.parse(ranks.target(target));
            if (where.isFile()) { // a replace needs room for both copies until its rename: say so before writing
                Limits.saveRoom(where.path(), size).ifPresent(command.commandLine().getErr()::println);
            }
            options.data.seed = ranks.rankSeed(ranks.baseSeed(options.data.seed), sameSeed);
            options.data.threads = ranks.threads(options.data.threads);
            Ranks.Done<SaveResult> done = ranks.together(() -> progress.bar(oldMethod ? "save (old)" : "save", size),
                    bar -> {
                        StreamingCheckpoint ckpt = backend.apply(options.builder(bar::update, env), where, env).build();
                        backend.checkSave(where, size, ckpt.chunkSize(), env); // S3 parts: before any data
                        return ckpt;
                    },
                    ckpt -> oldMethod ? ckpt.savePreallocated(where, size)
                            : layout != null ? ckpt.save(where, layout) : ckpt.save(where, size),
                    options.data.threads, true,
                    r -> new Ranks.Figures(r.totalBytes(), Long.parseUnsignedLong(r.seed()), r.endpoints()));
            SaveResult r = done.result();
            ranks.report(out, json, "saved", r.toMap(), () -> Reports.save(out, r), target, done.all());
        }
        out.flush();
        return 0;
    }
}
