package io.dgen4j.checkpoint;

/** Measures the wall time during which at least one I/O was in flight. */
final class IoClock {
    private int inFlight;
    private long busyStart;
    private long busyNanos;

    synchronized void begin() {
        if (inFlight++ == 0) {
            busyStart = System.nanoTime();
        }
    }

    synchronized void end() {
        if (--inFlight == 0) {
            busyNanos += System.nanoTime() - busyStart;
        }
    }

    synchronized double seconds() {
        long open = inFlight > 0 ? System.nanoTime() - busyStart : 0;
        return (busyNanos + open) / 1e9;
    }
}
