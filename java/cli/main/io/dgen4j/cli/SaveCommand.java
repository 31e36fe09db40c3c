package io.dgen4j.cli;

import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
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
                "TARGET is a path or file:// (O_DIRECT where the filesystem allows it) or direct:// (O_DIRECT demanded),",
                "or s3://bucket/key (credentials and endpoint from AWS_* variables or .env; see the README)."})
final class SaveCommand implements Callable<Integer> {
    @Spec
    CommandSpec command;

    @Parameters(paramLabel = "TARGET", description = "Path, file://, direct:// or s3://bucket/key URI of the checkpoint.")
    String target;

    @Option(names = "--size", required = true, converter = ByteSize.class, description = "Checkpoint size, e.g. 24GiB.")
    long size;

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

    @Override
    public Integer call() throws IOException {
        PrintWriter out = command.commandLine().getOut();
        StorageTarget where = StorageTarget.parse(target);
        options.check();
        if (oldMethod) {
            Limits.memory(size, "--old-method holds the whole checkpoint in memory: it",
                    "use a smaller --size, or the streaming save (without --old-method)");
        }
        SaveResult r;
        try (Progress bar = progress.bar(oldMethod ? "save (old)" : "save", size)) {
            StreamingCheckpoint ckpt = backend.apply(options.builder(bar::update), where).build();
            r = oldMethod ? ckpt.savePreallocated(where, size) : ckpt.save(where, size);
        }
        if (json) {
            out.println(Json.write(r.toMap()));
        } else {
            Reports.save(out, r);
        }
        out.flush();
        return 0;
    }
}
