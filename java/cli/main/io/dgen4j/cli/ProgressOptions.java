package io.dgen4j.cli;

import picocli.CommandLine.Option;

/** {@code --no-progress}, on every command that draws a progress bar. */
final class ProgressOptions {
    @Option(names = "--no-progress",
            description = "Draw no progress bar (one is drawn on stderr only when stderr is a terminal).")
    boolean noProgress;

    /** A bar for {@code total} bytes, drawn only if wanted and stderr is a terminal. */
    Progress bar(String label, long total) {
        return new Progress(System.err, label, total, wanted());
    }

    boolean wanted() {
        return !noProgress;
    }
}
