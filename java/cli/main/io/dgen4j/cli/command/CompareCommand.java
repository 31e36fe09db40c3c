package io.dgen4j.cli.command;

import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.cli.option.ByteSize;
import io.dgen4j.cli.option.CheckpointOptions;
import io.dgen4j.cli.option.FilePath;
import io.dgen4j.cli.option.Limits;
import io.dgen4j.cli.option.ProgressOptions;
import io.dgen4j.cli.report.ComparePlot;
import io.dgen4j.cli.report.Json;
import io.dgen4j.cli.report.Progress;
import io.dgen4j.cli.report.Reports;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageProviders;
import io.dgen4j.storage.StorageTarget;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code dgen4j compare}: the old (preallocate) and new (streaming) methods on the same size and disk. */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = {"Save the same checkpoint with the old method (allocate everything, generate, write) and the new",
                "(streaming), on the same disk, and compare time, throughput and measured peak resident memory."})
public final class CompareCommand implements Callable<Integer> {
    @Spec
    CommandSpec command;

    @Option(names = "--dir", description = "Directory on the disk under test (default: TEST_CHECKPOINT_DIR or the temp dir).")
    Path dir;

    @Option(names = "--size", defaultValue = "1GiB", converter = ByteSize.class, description = "Checkpoint size (default ${DEFAULT-VALUE}).")
    long size;

    @Option(names = "--plot", paramLabel = "PNG", converter = FilePath.class, description = {
            "Draw memory and throughput over time into this PNG.",
            "Where it cannot be drawn (no fonts) the results still print, then one line on stderr says why."})
    Path plot;

    @Option(names = "--keep", description = "Keep the two checkpoint files (default: remove them).")
    boolean keep;

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    boolean json;

    @Mixin
    CheckpointOptions options;

    @Mixin
    ProgressOptions progress;

    record Outcome(SaveResult streaming, SaveResult old) {}

    @Override
    public Integer call() throws IOException {
        Path where = resolveDir(dir);
        checkPlot(plot);
        Outcome o = run(command.commandLine().getErr(), where, size, options, progress.wanted(), keep);
        PrintWriter out = command.commandLine().getOut();
        String plotError = plot == null ? null : drawPlot(plot, o);
        if (json) {
            Map<String, Object> m = Json.object();
            m.put("streaming", o.streaming().toMap());
            m.put("preallocated", o.old().toMap());
            m.put("memoryReduction", (double) o.old().peakRssBytes() / Math.max(1, o.streaming().peakRssBytes()));
            m.put("plot", plot == null || plotError != null ? null : plot.toString());
            if (plotError != null) {
                m.put("plotError", plotError);
            }
            out.println(Json.write(m));
        } else {
            Reports.compare(out, o.streaming(), o.old());
            if (plot != null && plotError == null) {
                out.println("plot: " + plot);
            }
        }
        out.flush();
        reportPlotError(command.commandLine().getErr(), plotError);
        return 0;
    }

    /**
     * Draws the plot; returns null, or the reason it was not drawn. A plot that cannot be drawn
     * (no fonts) does not fail the command: the measurements it would show are printed anyway.
     */
    static String drawPlot(Path plot, Outcome o) {
        try {
            ComparePlot.write(plot, o.streaming(), o.old());
            return null;
        } catch (IOException e) {
            return e.getMessage(); // ComparePlot says what failed and where, in one line
        }
    }

    /** One line on stderr, after the results, when the plot was asked for and not drawn. */
    static void reportPlotError(PrintWriter err, String plotError) {
        if (plotError != null) {
            err.println("dgen4j: " + plotError);
            err.flush();
        }
    }

    static Path resolveDir(Path dir) throws IOException {
        if (dir != null) {
            return dir;
        }
        String env = System.getenv("TEST_CHECKPOINT_DIR");
        return Path.of(env != null && !env.isBlank() ? env : System.getProperty("java.io.tmpdir"));
    }

    /** Runs new, then old (so the old method's memory cannot inflate the new one's peak). */
    static Outcome run(PrintWriter err, Path dir, long size, CheckpointOptions options, boolean bars, boolean keep)
            throws IOException {
        preflight(dir, size, options);
        Path newFile = dir.resolve("dgen4j-compare-new.bin");
        Path oldFile = dir.resolve("dgen4j-compare-old.bin");
        try {
            SaveResult streaming;
            try (Progress bar = new Progress(System.err, "new: streaming ", size, bars)) {
                streaming = options.build(bar::update).save(StorageTarget.parse(newFile.toString()), size);
            }
            deleteUnlessKept(newFile, keep);
            SaveResult old;
            try (Progress bar = new Progress(System.err, "old: preallocate", size, bars)) {
                old = options.build(bar::update).savePreallocated(StorageTarget.parse(oldFile.toString()), size);
            }
            return new Outcome(streaming, old);
        } finally {
            deleteUnlessKept(newFile, keep);
            deleteUnlessKept(oldFile, keep);
        }
    }

    private static void deleteUnlessKept(Path f, boolean keep) throws IOException {
        if (!keep) {
            deleteCheckpoint(f);
        }
    }

    /** Removes the checkpoint file {@code f} and its manifest through the file backend, if there is one. */
    static void deleteCheckpoint(Path f) throws IOException {
        StorageTarget target = StorageTarget.parse(f.toString());
        StorageProviders.forTarget(target, Optional.empty()).delete(target, StorageOptions.empty());
    }

    /** Everything a comparison needs, checked before its first byte is written. */
    static void preflight(Path dir, long size, CheckpointOptions options) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new java.nio.file.NoSuchFileException(dir.toString(), null, "directory does not exist");
        }
        if (!Files.isWritable(dir)) {
            throw new java.nio.file.AccessDeniedException(dir.toString(), null, "directory is not writable");
        }
        options.check();
        Limits.memory(size, "the old method (allocate everything, then write) of --size " + ByteSize.format(size),
                "use a smaller --size");
    }

    /** The plot's PNG can be written: its directory exists and is writable, and it is not a directory. */
    static void checkPlot(Path plot) throws IOException {
        if (plot == null) {
            return;
        }
        // The plot library appends ".png" to a name without it.
        String name = plot.getFileName() == null ? "" : plot.getFileName().toString();
        Path png = name.toLowerCase(java.util.Locale.ROOT).endsWith(".png") ? plot : plot.resolveSibling(name + ".png");
        Path parent = png.toAbsolutePath().getParent();
        if (name.isEmpty() || Files.isDirectory(plot) || Files.isDirectory(png)) {
            throw new java.nio.file.FileSystemException(plot.toString(), null, "--plot is a directory: it must name a PNG file");
        }
        io.dgen4j.storage.StorageTarget.checkNameLength(png, 0);
        if (parent == null || !Files.isDirectory(parent)) {
            throw new java.nio.file.NoSuchFileException(String.valueOf(parent), null, "--plot directory does not exist");
        }
        if (!Files.isWritable(parent) || (Files.exists(png) && !Files.isWritable(png))) {
            throw new java.nio.file.AccessDeniedException(png.toString(), null, "--plot file is not writable");
        }
    }
}
