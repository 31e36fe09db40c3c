package io.dgen4j.cli;

import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.gen.SystemInfo;
import io.dgen4j.storage.StorageTarget;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code dgen4j quickstart}: the main job for a newcomer, on one screen. */
@Command(name = "quickstart", mixinStandardHelpOptions = true,
        description = {"The main job: a streaming checkpoint save, a verified load, and the old-vs-new comparison,",
                "in a temporary directory on local disk (TEST_CHECKPOINT_DIR, else the temp dir), then a summary."})
final class QuickstartCommand implements Callable<Integer> {
    @Spec
    CommandSpec command;

    @Option(names = "--dir", description = "Parent directory for the run (default: TEST_CHECKPOINT_DIR or the temp dir).")
    Path dir;

    @Option(names = "--size", converter = ByteSize.class,
            description = "Checkpoint size (default 1GiB, or TEST_SIZE_GB gigabytes).")
    Long size;

    @Option(names = "--plot", paramLabel = "PNG", converter = FilePath.class, description = "Also draw the comparison into this PNG.")
    Path plot;

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    boolean json;

    @Mixin
    CheckpointOptions options;

    @Mixin
    ProgressOptions progress;

    @Override
    public Integer call() throws IOException {
        long bytes = size != null ? size : defaultSize();
        Path parent = CompareCommand.resolveDir(dir);
        // Steps 1 to 3 are checked before step 1 writes anything (step 3 holds --size in memory).
        CompareCommand.preflight(parent, bytes, options);
        CompareCommand.checkPlot(plot);
        Path work = Files.createTempDirectory(parent, "dgen4j-quickstart-");
        Path file = work.resolve("checkpoint.bin");
        try {
            boolean bars = progress.wanted();
            SaveResult saved;
            try (Progress bar = new Progress(System.err, "1/3 save       ", bytes, bars)) {
                saved = options.build(bar::update).save(StorageTarget.parse(file.toString()), bytes);
            }
            LoadResult loaded;
            try (Progress bar = new Progress(System.err, "2/3 load+verify", bytes, bars)) {
                loaded = options.build(bar::update).load(StorageTarget.parse(file.toString()), true);
            }
            Files.deleteIfExists(file);
            Files.deleteIfExists(io.dgen4j.storage.FileStorage.sidecarPath(file));
            CompareCommand.Outcome cmp = CompareCommand.run(command.commandLine().getErr(), work, bytes, options, bars, false);
            String plotError = plot == null ? null : CompareCommand.drawPlot(plot, cmp);
            PrintWriter out = command.commandLine().getOut();
            if (json) {
                Map<String, Object> m = Json.object();
                m.put("save", saved.toMap());
                m.put("load", loaded.toMap());
                m.put("compareStreaming", cmp.streaming().toMap());
                m.put("comparePreallocated", cmp.old().toMap());
                if (plot != null) {
                    m.put("plot", plotError != null ? null : plot.toString());
                }
                if (plotError != null) {
                    m.put("plotError", plotError);
                }
                out.println(Json.write(m));
            } else {
                summary(out, work, saved, loaded, cmp, plotError == null);
            }
            out.flush();
            CompareCommand.reportPlotError(command.commandLine().getErr(), plotError);
            return 0;
        } finally {
            Files.deleteIfExists(file);
            Files.deleteIfExists(io.dgen4j.storage.FileStorage.sidecarPath(file));
            Files.deleteIfExists(work);
        }
    }

    private void summary(PrintWriter out, Path work, SaveResult s, LoadResult l, CompareCommand.Outcome c,
            boolean plotDrawn) {
        SystemInfo info = SystemInfo.current();
        out.printf(Locale.ROOT, "dgen4j quickstart in %s (%s generator, %d CPUs)%n", work, info.implementation(),
                info.usableCpus());
        out.println();
        out.printf(Locale.ROOT, "1. streaming save   %s in %.2f s = %.2f GB/s  [%s]%n", ByteSize.format(s.totalBytes()),
                s.totalSeconds(), s.totalGBps(), s.backend());
        out.printf(Locale.ROOT, "   generation %.2f GB/s, I/O %.2f GB/s, fsync %.3f s, bottleneck %s, peak RSS %s%n",
                s.generationGBps(), s.ioGBps(), s.closeSeconds(), s.bottleneck(), Reports.mib(s.peakRssBytes()));
        out.printf(Locale.ROOT, "2. verified load    %s in %.2f s = %.2f GB/s, every byte matched the seed %s stream%n",
                ByteSize.format(l.totalBytes()), l.totalSeconds(), l.totalGBps(), s.seed());
        out.println("3. old vs new");
        Reports.compare(out, c.streaming(), c.old());
        if (plot != null && plotDrawn) {
            out.println("plot: " + plot);
        }
        out.println();
        out.println("Next: ./dgen4j save /your/disk/ckpt.bin --size 24GiB   |   ./dgen4j compare --dir /your/disk --size 8GiB --plot compare.png");
    }

    private static long defaultSize() {
        String gb = System.getenv("TEST_SIZE_GB");
        if (gb != null && !gb.isBlank()) {
            try {
                return ByteSize.parse(gb.trim() + "GiB");
            } catch (picocli.CommandLine.TypeConversionException e) {
                throw new IllegalArgumentException("TEST_SIZE_GB=" + gb + " is not a size in GiB: " + e.getMessage());
            }
        }
        return 1L << 30;
    }
}
