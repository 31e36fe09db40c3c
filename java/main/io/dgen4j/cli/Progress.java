package io.dgen4j.cli;

import java.io.PrintStream;
import java.util.Locale;

/** A one-line progress bar on stderr, drawn only when stderr is a terminal and the work is long. */
final class Progress implements AutoCloseable {
    private final PrintStream err;
    private final String label;
    private final long total;
    private final boolean enabled;
    private final long start = System.nanoTime();
    private long lastDraw;

    Progress(PrintStream err, String label, long total, boolean enabled) {
        this.err = err;
        this.label = label;
        this.total = total;
        // Since JDK 22 System.console() exists even when redirected: ask whether it is a terminal.
        this.enabled = enabled && System.console() != null && System.console().isTerminal() && total > 0;
    }

    synchronized void update(long done) {
        if (!enabled) {
            return;
        }
        long now = System.nanoTime();
        if (now - lastDraw < 200_000_000L && done < total) {
            return;
        }
        lastDraw = now;
        int width = 30;
        int filled = (int) (width * done / total);
        double secs = (now - start) / 1e9;
        double gbps = secs > 0 ? done / secs / 1e9 : 0;
        err.printf(Locale.ROOT, "\r%s [%s%s] %5.1f%% %s %.2f GB/s ", label, "#".repeat(filled),
                " ".repeat(width - filled), 100.0 * done / total, ByteSize.format(done), gbps);
        err.flush();
    }

    @Override
    public synchronized void close() {
        if (enabled) {
            err.print("\r" + " ".repeat(90) + "\r");
            err.flush();
        }
    }
}
