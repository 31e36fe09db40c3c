package io.dgen4j.cli.command;

import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.cli.Environment;
import io.dgen4j.cli.option.CheckpointOptions;
import io.dgen4j.cli.option.Limits;
import io.dgen4j.cli.report.ComparePlot;
import io.dgen4j.cli.report.PlotTitles;
import io.dgen4j.cli.report.Progress;
import io.dgen4j.cli.report.Reports;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageProviders;
import io.dgen4j.storage.StorageTarget;
import io.dgen4j.unit.ByteSize;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * The old (preallocate) and new (streaming) methods saving the same size on the same disk: what
 * {@code compare} runs, and quickstart's third step.
 */
final class Comparison {
    private Comparison() {}

    /** Both methods' saves, one per round, in the order they ran. */
    record Outcome(List<SaveResult> streamingRounds, List<SaveResult> oldRounds) {
        Outcome {
            streamingRounds = List.copyOf(streamingRounds);
            oldRounds = List.copyOf(oldRounds);
        }

        /** The new method's median round (by total time; of an even count, the faster middle one). */
        SaveResult streaming() {
            return Reports.medianRound(streamingRounds);
        }

        /** The old method's median round. */
        SaveResult old() {
            return Reports.medianRound(oldRounds);
        }
    }

    /** The directory of the run: {@code dir}, else {@code TEST_CHECKPOINT_DIR}, else the temp dir. */
    static Path dir(Path dir, Environment env) {
        if (dir != null) {
            return dir;
        }
        String given = env.get("TEST_CHECKPOINT_DIR");
        return Path.of(given != null && !given.isBlank() ? given : System.getProperty("java.io.tmpdir"));
    }

    /**
     * One line saying that {@code dir} is not on a disk, or null: on tmpfs or ramfs (the system temp
     * dir on several distributions) the saves copy into RAM, and a container's overlay may never reach
     * the disk either, while the report reads like disk I/O.
     */
    static String memoryNote(Path dir) {
        String type;
        try {
            type = Files.getFileStore(dir).type();
        } catch (IOException e) {
            return null; // the run itself reports a directory it cannot use
        }
        String where = "note: " + dir + " is on " + type;
        return switch (type) {
            case "tmpfs", "ramfs" -> where + ", in memory: these figures measure memory, not a disk; point"
                    + " TEST_CHECKPOINT_DIR (or --dir) at a disk";
            case "overlay" -> where + " (a container's filesystem): these figures may measure memory, not a disk;"
                    + " point TEST_CHECKPOINT_DIR (or --dir) at a disk mounted into the container";
            default -> null;
        };
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

    /**
     * Runs new, then old (so the old method's memory cannot inflate the new one's peak), {@code rounds}
     * times, interleaved: new, old, new, old, ... (a drift of the disk over time spreads over both).
     */
    static Outcome run(Path dir, long size, CheckpointOptions options, Environment env, boolean bars, boolean keep,
            int rounds) throws IOException {
        preflight(dir, size, options);
        Path newFile = dir.resolve("dgen4j-compare-new.bin");
        Path oldFile = dir.resolve("dgen4j-compare-old.bin");
        try {
            List<SaveResult> streaming = new ArrayList<>();
            List<SaveResult> old = new ArrayList<>();
            for (int round = 1; round <= rounds; round++) {
                String of = rounds > 1 ? " " + round + "/" + rounds : "";
                if (round > 1) {
                    // the previous round's files (kept ones too) go first: each round writes new files, as the first
                    deleteCheckpoint(newFile);
                    deleteCheckpoint(oldFile);
                }
                try (Progress bar = new Progress(System.err, "new: streaming " + of, size, bars)) {
                    streaming.add(options.build(bar::update, env).save(StorageTarget.parse(newFile.toString()), size));
                }
                deleteUnlessKept(newFile, keep);
                try (Progress bar = new Progress(System.err, "old: preallocate" + of, size, bars)) {
                    old.add(options.build(bar::update, env).savePreallocated(StorageTarget.parse(oldFile.toString()),
                            size));
                }
            }
            return new Outcome(streaming, old);
        } finally {
            deleteUnlessKept(newFile, keep);
            deleteUnlessKept(oldFile, keep);
        }
    }

    /** The figures each round's JSON gives and the table summarizes, by their JSON key. */
    private static final Map<String, ToDoubleFunction<SaveResult>> FIGURES = figures();

    private static Map<String, ToDoubleFunction<SaveResult>> figures() {
        Map<String, ToDoubleFunction<SaveResult>> m = new LinkedHashMap<>();
        m.put("generationSeconds", SaveResult::generationSeconds);
        m.put("ioSeconds", SaveResult::ioSeconds);
        m.put("ioGBps", SaveResult::ioGBps);
        m.put("closeSeconds", SaveResult::closeSeconds);
        m.put("totalSeconds", SaveResult::totalSeconds);
        m.put("totalGBps", SaveResult::totalGBps);
        m.put("peakRssBytes", SaveResult::peakRssBytes);
        return java.util.Collections.unmodifiableMap(m);
    }

    /**
     * The median round's JSON object (see {@link Reports#medianRound}), its figures replaced by
     * their medians over every round: one round's keys, with the medians as their values.
     */
    static Map<String, Object> medianMap(List<SaveResult> rounds) {
        Map<String, Object> m = new LinkedHashMap<>(Reports.medianRound(rounds).toMap());
        if (rounds.size() > 1) {
            FIGURES.forEach((key, f) -> {
                double median = Reports.spread(rounds, f).median();
                m.put(key, key.equals("peakRssBytes") ? (Object) Math.round(median) : (Object) median);
            });
        }
        return m;
    }

    /** Each figure's median, min and max over the rounds, by its JSON key. */
    static Map<String, Object> spreadMap(List<SaveResult> rounds) {
        Map<String, Object> m = new LinkedHashMap<>();
        FIGURES.forEach((key, f) -> m.put(key, Reports.spread(rounds, f).toMap()));
        return m;
    }

    /**
     * Draws the plot; returns null, or the reason it was not drawn. A plot that cannot be drawn
     * (no fonts) does not fail the command: the measurements it would show are printed anyway.
     */
    static String drawPlot(Path plot, Outcome o, PlotTitles title) {
        try {
            ComparePlot.write(plot, o.streaming(), o.old(), title);
            return null;
        } catch (IOException e) {
            return e.getMessage(); // ComparePlot says what failed and where, in one line
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
}
