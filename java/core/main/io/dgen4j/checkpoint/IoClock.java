package io.dgen4j.checkpoint;

/**
 * Measures the wall time during which at least one I/O was in flight, and when the first I/O
 * began and the last one ended, which cut a run into phases ({@link #split}).
 */
final class IoClock {
    private int inFlight;
    private long busyStart;
    private long busyNanos;
    private long firstBegin = -1;
    private long lastEnd;

    synchronized void begin() {
        if (inFlight++ == 0) {
            busyStart = System.nanoTime();
            if (firstBegin < 0) {
                firstBegin = busyStart;
            }
        }
    }

    synchronized void end() {
        if (--inFlight == 0) {
            lastEnd = System.nanoTime();
            busyNanos += lastEnd - busyStart;
        }
    }

    synchronized double seconds() {
        long open = inFlight > 0 ? System.nanoTime() - busyStart : 0;
        return (busyNanos + open) / 1e9;
    }

    /**
     * A run that started at {@code runStart} (nanoTime) and took {@code runSeconds}, cut at its
     * I/O: {@code {before the first I/O began, I/O in flight, no I/O in flight between the first and
     * the last, after the last I/O ended}}, in seconds, adding up to {@code runSeconds} (the last
     * takes the rounding). Without any I/O, the whole run is "before".
     */
    synchronized double[] split(long runStart, double runSeconds) {
        if (firstBegin < 0 || inFlight > 0) {
            return new double[] {runSeconds, 0, 0, 0};
        }
        double before = Math.max(0, (firstBegin - runStart) / 1e9);
        double busy = busyNanos / 1e9;
        double gaps = Math.max(0, (lastEnd - firstBegin - busyNanos) / 1e9);
        return new double[] {before, busy, gaps, Math.max(0, runSeconds - before - busy - gaps)};
    }
}
