package io.dgen4j.cli.option;

import io.dgen4j.cli.report.Progress;
import picocli.CommandLine.Option;

/** {@code --no-progress}, on every command that draws a progress bar. */
public final class ProgressOptions {
    @Option(names = "--no-progress",
            description = "Draw no progress bar (one is drawn on stderr only when stderr is a terminal).")
    boolean noProgress;

    /** A bar for {@code total} bytes, drawn only if wanted and stderr is a terminal. */
    public Progress bar(String label, long total) {
        return new Progress(System.err, label, total, wanted());
    }

    public boolean wanted() {
        return !noProgress;
    }
}
