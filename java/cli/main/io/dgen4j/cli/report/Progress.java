package io.dgen4j.cli.report;

import io.dgen4j.unit.ByteSize;
import java.io.PrintStream;
import java.util.Locale;

/**
 * A one-line progress bar on stderr, drawn only when stderr is a terminal ({@link Terminal}): with
 * stderr redirected to a file or a pipe nothing is drawn, whatever stdin and stdout are. The bar
 * never touches stdout, so it does not depend on {@code --json} or on where stdout goes.
 */
public final class Progress implements AutoCloseable {
    private final PrintStream err;
    private final String label;
    private final long total;
    private final boolean enabled;
    private final long start = System.nanoTime();
    private long lastDraw = start;
    private boolean drawn;

    /** A bar that draws if {@code wanted} (no {@code --no-progress}) and stderr is a terminal. */
    public Progress(PrintStream err, String label, long total, boolean wanted) {
        this(err, label, total, wanted, wanted && Terminal.stderrIsTerminal());
    }

    public Progress(PrintStream err, String label, long total, boolean wanted, boolean stderrIsTerminal) {
        this.err = err;
        this.label = label;
        this.total = total;
        this.enabled = shouldDraw(wanted, stderrIsTerminal, total);
    }

    /** The policy: asked for (no --no-progress), stderr a terminal, and something to count. */
    static boolean shouldDraw(boolean wanted, boolean stderrIsTerminal, long total) {
        return wanted && stderrIsTerminal && total > 0;
    }

    boolean enabled() {
        return enabled;
    }

    public synchronized void update(long done) {
        if (!enabled) {
            return;
        }
        long now = System.nanoTime();
        if (now - lastDraw < 200_000_000L && done < total) {
            return;
        }
        lastDraw = now;
        drawn = true;
        int width = 30;
        int filled = (int) (width * Math.min(done, total) / total);
        double secs = (now - start) / 1e9;
        double gbps = secs > 0 ? done / secs / 1e9 : 0;
        err.printf(Locale.ROOT, "\r%s [%s%s] %5.1f%% %s %.2f GB/s ", label, "#".repeat(filled),
                " ".repeat(width - filled), 100.0 * done / total, ByteSize.format(done), gbps);
        err.flush();
    }

    /** Erases the bar; safe to call more than once (a command closes it before printing its report). */
    @Override
    public synchronized void close() {
        if (drawn) {
            err.print("\r" + " ".repeat(90) + "\r");
            err.flush();
            drawn = false;
        }
    }
}
