package io.dgen4j.cli.command;

import io.dgen4j.cli.Environment;
import io.dgen4j.cli.option.ByteSizeConverter;
import io.dgen4j.cli.option.CheckpointOptions;
import io.dgen4j.cli.option.FilePath;
import io.dgen4j.cli.option.ProgressOptions;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.cli.report.PlotFile;
import io.dgen4j.cli.report.PlotTitles;
import io.dgen4j.cli.report.Reports;
import io.dgen4j.cli.report.Spread;
import io.dgen4j.json.JsonWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code dgen4j compare}: the old (preallocate) and new (streaming) methods on the same size and disk. */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = {"Save the same checkpoint with the old method and with the streaming one, and compare them.",
                "The old method allocates everything, generates, then writes; both run on the same disk, and the"
                + " table compares time, throughput and measured peak resident memory."})
public final class CompareCommand implements Callable<Integer> {
    private final Environment env;

    /** A comparison whose directory defaults to {@code env}'s {@code TEST_CHECKPOINT_DIR}. */
    public CompareCommand(Environment env) {
        this.env = env;
    }

    @Spec
    CommandSpec command;

    @Option(names = "--dir", description = "Directory on the disk under test (default: TEST_CHECKPOINT_DIR or the temp dir).")
    Path dir;

    @Option(names = "--size", defaultValue = "1GiB", converter = ByteSizeConverter.class, description = "Checkpoint size (default ${DEFAULT-VALUE}).")
    long size;

    @Option(names = "--plot", paramLabel = "PNG", converter = FilePath.class, description = {
            "Draw memory and throughput over time into this PNG.",
            "Where it cannot be drawn (no fonts) the results still print, then one line on stderr says why."})
    Path plot;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "1", description = "Save with each method N times, "
            + "interleaved (new, old, new, old, ...); the table gives each figure's median and min-max, and calls a "
            + "difference within the spread a tie (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--keep", description = "Keep the two checkpoint files (default: remove them).")
    boolean keep;

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    boolean json;

    @Mixin
    CheckpointOptions options;

    @Mixin
    ProgressOptions progress;

    @Override
    public Integer call() throws IOException {
        Path where = Comparison.dir(dir, env);
        Reports.checkRounds(rounds);
        PlotFile.check(plot);
        // said first, before the run: a piped report shows it at once
        String note = Comparison.memoryNote(where);
        PrintWriter out = command.commandLine().getOut();
        if (note != null) {
            PrintWriter to = json ? command.commandLine().getErr() : out;
            to.println(note);
            to.flush();
        }
        Comparison.Outcome o = Comparison.run(where, size, options, env, progress.wanted(), keep, rounds);
        String plotError = plot == null ? null : Comparison.drawPlot(plot, o, PlotTitles.of(size, where.toString(),
                PlotTitles.fileSystem(where), env));
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("streaming", Comparison.medianMap(o.streamingRounds()));
            m.put("preallocated", Comparison.medianMap(o.oldRounds()));
            Spread oldRss = Reports.spread(o.oldRounds(), SaveResult::peakRssBytes);
            Spread newRss = Reports.spread(o.streamingRounds(), SaveResult::peakRssBytes);
            m.put("memoryReduction", oldRss.median() / Math.max(1, newRss.median()));
            m.put("rounds", rounds);
            m.put("streamingSpread", Comparison.spreadMap(o.streamingRounds()));
            m.put("preallocatedSpread", Comparison.spreadMap(o.oldRounds()));
            Map<String, Object> ties = new LinkedHashMap<>();
            ties.put("ioGBps", Reports.spread(o.streamingRounds(), SaveResult::ioGBps)
                    .ties(Reports.spread(o.oldRounds(), SaveResult::ioGBps)));
            ties.put("totalGBps", Reports.spread(o.streamingRounds(), SaveResult::totalGBps)
                    .ties(Reports.spread(o.oldRounds(), SaveResult::totalGBps)));
            m.put("ties", ties);
            m.put("plot", plot == null || plotError != null ? null : plot.toString());
            if (plotError != null) {
                m.put("plotError", plotError);
            }
            out.println(JsonWriter.ASCII_LINE.write(m));
        } else {
            Reports.compare(out, o.streamingRounds(), o.oldRounds());
            if (plot != null && plotError == null) {
                out.println("plot: " + plot);
            }
        }
        out.flush();
        PlotFile.reportError(command.commandLine().getErr(), plotError);
        return 0;
    }
}
