package io.dgen4j.cli;

import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.storage.StorageTarget;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
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
final class CompareCommand implements Callable<Integer> {
    @Spec
    CommandSpec command;

    @Option(names = "--dir", description = "Directory on the disk under test (default: TEST_CHECKPOINT_DIR or the temp dir).")
    Path dir;

    @Option(names = "--size", defaultValue = "1GiB", converter = ByteSize.class, description = "Checkpoint size (default ${DEFAULT-VALUE}).")
    long size;

    @Option(names = "--plot", paramLabel = "PNG", description = {"Draw memory and throughput over time into this PNG.",
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
        Outcome o = run(command.commandLine().getErr(), resolveDir(dir), size, options, progress.wanted(), keep);
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
        if (!Files.isDirectory(dir)) {
            throw new IOException("directory " + dir + " does not exist");
        }
        long available = memAvailable();
        if (available > 0 && size > available * 0.8) {
            throw new IllegalArgumentException(String.format("the old method needs %s of memory for --size but only %s "
                    + "is available: use a smaller --size", ByteSize.format(size), ByteSize.format(available)));
        }
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
            Files.deleteIfExists(f);
            Files.deleteIfExists(StreamingCheckpoint.manifestPath(f));
        }
    }

    private static long memAvailable() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemAvailable:")) {
                    return Long.parseLong(line.replaceAll("\\D+", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }

}
