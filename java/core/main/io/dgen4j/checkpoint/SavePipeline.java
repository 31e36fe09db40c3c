package io.dgen4j.checkpoint;

import io.dgen4j.storage.StorageWriter;
import java.io.InterruptedIOException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;

/**
 * Producer → writers over a {@link BufferPool}: the calling thread fills free buffers and queues
 * them as ready; writer threads write ready buffers at their offsets and only then release them.
 * Every wait is a short poll that also watches for the first failure, so a failing writer, a
 * failing generator or an interrupt stops the whole pipeline promptly, and every buffer is
 * back in the pool when {@link #run()} returns or throws.
 */
final class SavePipeline implements SaveRun {
    private static final long POLL_MS = 50;
    /** How long to wait for a writer stuck in a system call after a failure before giving up on it. */
    private static final long WRITER_EXIT_MS = 120_000;

    /** A filled buffer; {@code crc32cs}: its pieces' CRC-32C for the writer, or null. */
    private record Chunk(MemorySegment buffer, long offset, long length, int[] crc32cs) {}

    /**
     * Queued once per writer after the producer's last chunk: a writer waiting in its poll stops at
     * once instead of at the end of the poll (which cost up to {@value #POLL_MS} ms per save).
     */
    private static final Chunk END = new Chunk(null, -1, 0, null);

    private final BufferPool pool;
    private final long total;
    private final long chunk;
    private final int writers;
    private final LongConsumer progress;
    private final ArrayBlockingQueue<Chunk> ready;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicLong written = new AtomicLong();
    private final IoClock io = new IoClock();
    private long generationNanos;
    private long runStart;
    private volatile boolean producerDone;
    private boolean writersStopped = true;

    /** A save of {@code total} bytes in writes of {@code chunk}, {@code writers} at once, through {@code pool}. */
    SavePipeline(BufferPool pool, long total, long chunk, int writers, LongConsumer progress) {
        this.pool = pool;
        this.total = total;
        this.chunk = chunk;
        this.writers = writers;
        this.progress = progress;
        this.ready = new ArrayBlockingQueue<>(pool.capacity() + writers);
    }

    @Override
    public long written() {
        return written.get();
    }

    @Override
    public double generationSeconds() {
        return generationNanos / 1e9;
    }

    @Override
    public double ioSeconds() {
        return io.seconds();
    }

    @Override
    public String method() {
        return "streaming";
    }

    @Override
    public int inFlight() {
        return writers;
    }

    @Override
    public int buffers() {
        return pool.capacity();
    }

    @Override
    public int peakBuffersInUse() {
        return pool.peakInUse();
    }

    @Override
    public long poolBytes() {
        return pool.poolBytes();
    }

    /**
     * Before the first write (the first buffer mapped, first-touched and filled, the writers
     * started), writes in flight, no write in flight between the first and the last (the writers
     * waited for the generator), and after the last write (the writers stopping).
     */
    @Override
    public List<Phase> phases(double runSeconds) {
        double[] s = io.split(runStart, runSeconds);
        return List.of(new Phase("firstChunk", "first chunk", s[0],
                        "first buffer mapped, touched and filled, before the first write"),
                new Phase("io", "I/O", s[1], "writes in flight"),
                new Phase("generationStall", "gen. stall", s[2],
                        "no write in flight: the writers waited for the generator"),
                new Phase("drain", "drain", s[3], "after the last write: the writers stopping"));
    }

    /** False when a writer thread did not exit in time (its buffer must then not be freed). */
    boolean writersStopped() {
        return writersStopped;
    }

    /** Runs the pipeline to the end; throws the first failure. */
    @Override
    public void run(DataSource.Filler filler, StorageWriter writer) throws IOException {
        runStart = System.nanoTime();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < writers; i++) {
            threads.add(Thread.ofPlatform().name("dgen4j-writer-" + i).daemon().start(() -> writeLoop(writer)));
        }
        boolean interrupted = false;
        try {
            produce(filler, writer.crc32cPiece());
        } catch (InterruptedException e) {
            interrupted = true;
            fail(new InterruptedIOException(String.format("save to %s interrupted after %d bytes", writer.description(),
                    written.get())));
            // Passed on: a writer waiting on its storage (a part in flight) stops now instead of at its end.
            threads.forEach(Thread::interrupt);
        } catch (Throwable t) {
            fail(t);
        } finally {
            producerDone = true;
            // The queue holds a buffer's chunks at most plus one slot per writer: these always fit.
            for (int i = 0; i < writers; i++) {
                ready.offer(END);
            }
        }
        interrupted |= finish(threads);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        CheckpointException.rethrow(failure.get());
    }

    /** Fills the chunks in order; with {@code crc32cPiece} > 0, summed per piece for the writer as they are filled. */
    private void produce(DataSource.Filler filler, long crc32cPiece) throws InterruptedException {
        for (long offset = 0; offset < total; offset += chunk) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            MemorySegment buf = null;
            while (buf == null) {
                if (failure.get() != null) {
                    return;
                }
                buf = pool.acquire(POLL_MS, TimeUnit.MILLISECONDS).orElse(null);
            }
            boolean queued = false;
            try {
                long len = Math.min(chunk, total - offset);
                long t0 = System.nanoTime();
                int[] crcs = null;
                if (crc32cPiece > 0 && offset % crc32cPiece == 0) {
                    // the writer's part checksums, summed as the bytes are generated
                    crcs = filler.fillCrc32c(buf.asSlice(0, len), offset, crc32cPiece);
                }
                if (crcs == null) {
                    filler.fill(buf.asSlice(0, len), offset);
                }
                generationNanos += System.nanoTime() - t0;
                Chunk c = new Chunk(buf, offset, len, crcs);
                while (!queued) {
                    if (failure.get() != null) {
                        return;
                    }
                    queued = ready.offer(c, POLL_MS, TimeUnit.MILLISECONDS);
                }
            } finally {
                if (!queued) {
                    pool.release(buf);
                }
            }
        }
    }

    private void writeLoop(StorageWriter writer) {
        while (true) {
            Chunk c;
            try {
                c = ready.poll(POLL_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                fail(new InterruptedIOException("writer interrupted"));
                continue; // keep draining so every buffer returns to the pool
            }
            if (c == END) {
                return; // queued after every chunk: none is left for this writer
            }
            if (c == null) {
                // The producer queues before it says it is done, so one more look cannot miss a chunk.
                if (!producerDone || (c = ready.poll()) == null || c == END) {
                    if (producerDone) {
                        return;
                    }
                    continue;
                }
            }
            try {
                if (failure.get() == null) {
                    io.begin();
                    try {
                        if (c.crc32cs() != null) {
                            writer.write(c.offset(), c.buffer().asSlice(0, c.length()), c.crc32cs());
                        } else {
                            writer.write(c.offset(), c.buffer().asSlice(0, c.length()));
                        }
                    } finally {
                        io.end();
                    }
                    progress.accept(written.addAndGet(c.length()));
                }
            } catch (Throwable t) {
                fail(new CheckpointException(String.format("save to %s failed: %s", writer.description(),
                        t.getMessage()), c.offset(), t));
            } finally {
                pool.release(c.buffer());
            }
        }
    }

    /** Waits for every writer to drain the queue and exit; returns whether it was interrupted. */
    private boolean finish(List<Thread> threads) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WRITER_EXIT_MS);
        for (Thread t : threads) {
            while (t.isAlive()) {
                // Healthy writers finish their queued chunks; after a failure they only drain, and
                // one stuck in a system call is given up on after WRITER_EXIT_MS.
                if (failure.get() != null && System.nanoTime() > deadline) {
                    writersStopped = false;
                    return interrupted;
                }
                try {
                    t.join(POLL_MS);
                } catch (InterruptedException e) {
                    interrupted = true;
                    fail(new InterruptedIOException("save interrupted while finishing"));
                    threads.forEach(Thread::interrupt);
                }
            }
        }
        return interrupted;
    }

    private void fail(Throwable t) {
        failure.compareAndSet(null, t);
    }
}
