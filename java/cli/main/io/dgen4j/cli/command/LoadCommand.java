package io.dgen4j.cli.command;

import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.cli.Ranks;
import io.dgen4j.cli.option.LoadOptions;
import io.dgen4j.cli.option.ProgressOptions;
import io.dgen4j.cli.option.StorageBackendOptions;
import io.dgen4j.cli.report.Progress;
import io.dgen4j.cli.report.Reports;
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
    @Spec
    CommandSpec command;

    @Parameters(paramLabel = "TARGET", description = "Path, file://, direct:// or s3://bucket/key URI of the checkpoint.")
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
        io.dgen4j.storage.StorageTarget.parse(target); // a malformed target is a usage error before anything starts
        // Under mpirun/srun each rank loads its own shard (named as save names it); rank 0 reports for all.
        try (Ranks ranks = Ranks.open(command)) {
            io.dgen4j.storage.StorageTarget where = io.dgen4j.storage.StorageTarget.parse(ranks.target(target));
            options.threads = ranks.threads(options.threads);
            long size = sizeOf(where);
            LoadResult r = null;
            Exception failure = null;
            double seconds = 0;
            try (Progress bar = progress.bar(verify ? "load+verify" : "load", size)) {
                io.dgen4j.checkpoint.StreamingCheckpoint ckpt = null;
                try {
                    ckpt = backend.apply(options.builder(bar::update), where).build();
                } catch (RuntimeException e) {
                    failure = e; // still meet the other ranks below, so that none waits forever
                }
                ranks.startTogether();
                long start = System.nanoTime();
                if (failure == null) {
                    try {
                        r = ckpt.load(where, verify);
                    } catch (IOException | RuntimeException e) {
                        failure = e;
                    }
                }
                seconds = (System.nanoTime() - start) / 1e9;
            }
            Ranks.Gathered all = ranks.gather(r == null ? 0 : r.totalBytes(), seconds, null, options.threads, r != null,
                    r == null ? java.util.List.of() : r.endpoints());
            if (failure instanceof IOException e) {
                throw e;
            } else if (failure instanceof RuntimeException e) {
                throw e;
            }
            LoadResult done = r;
            ranks.report(out, json, verify ? "loaded and verified" : "loaded", done.toMap(), () -> Reports.load(out, done),
                    target, all);
        }
        out.flush();
        return 0;
    }

    private static long sizeOf(io.dgen4j.storage.StorageTarget where) {
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
