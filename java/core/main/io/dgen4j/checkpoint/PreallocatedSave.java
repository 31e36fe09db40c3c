package io.dgen4j.checkpoint;

import io.dgen4j.storage.StorageWriter;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * The old method, for comparison: allocates the whole checkpoint in memory, generates it, then
 * writes it chunk by chunk from one thread (what preallocating tools do). Memory grows with the
 * checkpoint size; the memory is freed when {@link #run} returns or throws.
 */
final class PreallocatedSave implements SaveRun {
    private final String target;
    private final long total;
    private final long chunk;
    private final LongConsumer progress;
    private final AtomicLong written = new AtomicLong();
    private final IoClock io = new IoClock();
    private double generationSeconds;
    private double allocationSeconds;
    private double writeLoopSeconds;

    /** A save of {@code total} bytes in writes of {@code chunk}; {@code target} names it in messages. */
    PreallocatedSave(String target, long total, long chunk, LongConsumer progress) {
        this.target = target;
        this.total = total;
        this.chunk = chunk;
        this.progress = progress;
    }

    @Override
    public void run(DataSource.Filler filler, StorageWriter writer) throws IOException {
        long start = System.nanoTime();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment all = arena.allocate(total, 4096); // zeroed: every page is touched here
            long t0 = System.nanoTime();
            allocationSeconds = (t0 - start) / 1e9;
            filler.fill(all, 0);
            long t1 = System.nanoTime();
            generationSeconds = (t1 - t0) / 1e9;
            for (long off = 0; off < total; off += chunk) {
                if (Thread.interrupted()) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("save to " + target + " interrupted after " + off + " bytes");
                }
                long len = Math.min(chunk, total - off);
                io.begin();
                try {
                    writer.write(off, all.asSlice(off, len));
                } finally {
                    io.end();
                }
                progress.accept(written.addAndGet(len));
            }
            writeLoopSeconds = (System.nanoTime() - t1) / 1e9;
        }
    }

    /**
     * Allocating (and zeroing) the whole checkpoint, generating it, writing it one chunk after the
     * other, and freeing it (the rest of the run).
     */
    @Override
    public List<Phase> phases(double runSeconds) {
        return List.of(new Phase("allocation", "allocation", allocationSeconds,
                        "the whole checkpoint allocated and zeroed"),
                new Phase("generation", "generation", generationSeconds, "the whole checkpoint generated"),
                new Phase("io", "I/O", writeLoopSeconds, "writes, one at a time"),
                new Phase("release", "release", Math.max(0, runSeconds - allocationSeconds - generationSeconds
                        - writeLoopSeconds), "the checkpoint's memory freed"));
    }

    @Override
    public String method() {
        return "preallocated";
    }

    /** One write at a time. */
    @Override
    public int inFlight() {
        return 1;
    }

    /** No pool: the whole checkpoint is one allocation. */
    @Override
    public int buffers() {
        return 0;
    }

    @Override
    public int peakBuffersInUse() {
        return 0;
    }

    /** The whole checkpoint. */
    @Override
    public long poolBytes() {
        return total;
    }

    @Override
    public long written() {
        return written.get();
    }

    @Override
    public double generationSeconds() {
        return generationSeconds;
    }

    @Override
    public double ioSeconds() {
        return io.seconds();
    }
}
