package io.dgen4j.checkpoint;

import io.dgen4j.format.DType;
import io.dgen4j.format.Finite;
import io.dgen4j.format.LayoutChecker;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.gen.Generator;
import io.dgen4j.gen.NativeGenerator;
import io.dgen4j.gen.Numa;
import io.dgen4j.storage.StorageReader;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;

/**
 * Parallel reads of one checkpoint, with optional verification of every byte read.
 *
 * <p>Each reader takes a free buffer and reads the next chunk into it. Who compares the bytes
 * with the fused {@link Generator#firstMismatch} is a {@link VerifyMode}, chosen by
 * {@value #VERIFIER_PROPERTY} ({@code auto}, the default, {@code thread} or {@code inline}):
 * <ul>
 * <li>{@link VerifyMode#ARRIVAL} ({@code auto} for a raw load from storage that copies each piece of a
 *     read into the buffer, {@link StorageReader#checksAsRead}: S3): the reader's storage compares
 *     each piece right after copying it, still in cache, on the thread that copied it; whole chunks
 *     per read, no verifier thread, no buffer for one. A load of a format (torch, safetensors), whose
 *     compare keeps state per region, is verified by one of the others.</li>
 * <li>{@link VerifyMode#THREAD} ({@code auto} while the readers leave a CPU idle, and for reads
 *     that are no CPU copy out of memory: a device's DMA, a network that cannot compare as it
 *     copies): readers hand what they read
 *     to one verifier thread and go on with their next read at once, so the compare runs on a core
 *     the readers leave idle (or while the device or network leaves the CPU idle). A device's DMA
 *     (O_DIRECT from a disk) lands in the two halves of the reader's one buffer in turn (a
 *     {@link Ring} of two slots): one half is verified while the other is read, in the memory of a
 *     plain load, and a fresh buffer's first touch (huge-page faults, from nothing to tenths of a
 *     second on this VM) is paid once per reader, not twice. A network keeps whole chunks (a
 *     request each); the verifier frees a buffer when it is checked, and with
 *     {@code buffers >= readers + 1} one chunk is verified while every reader reads. Bytes the CPU
 *     copies (buffered reads, or a memory filesystem such as tmpfs, where O_DIRECT is a copy too)
 *     are read in slices of {@value #RING_SLICE} bytes into a {@link Ring} of {@value #RING_SLOTS}
 *     slots at the start of the reader's one buffer: the copy lands in lines still in cache and
 *     the verifier reads them from there, instead of both going to memory.</li>
 * <li>{@link VerifyMode#INLINE} ({@code auto} when every CPU has a reader, bytes the CPU copies):
 *     each reader compares what it read itself, as soon as the read returns, in slices of
 *     {@value #INLINE_SLICE} bytes read into the first bytes of its buffer, which stay in its
 *     core's cache: no hand-off and no thread taking a core from a reader.</li>
 * </ul>
 * Measured with scripts/bench-load.sh on 2 CPUs (docs/PERFORMANCE.md): the cache-resident
 * slices lifted a verified page-cache load from 0.68-0.82 of a plain one to 1.08-1.15 with 1
 * reader, and from 0.60-0.75 to 0.95-0.99 with 2.
 * Memory stays bounded by the pool either way. The first mismatch is the smallest offset over all
 * chunks (chunks and slices past a known mismatch are skipped); any failure stops readers and
 * verifier promptly, and every buffer is returned before the pool closes.
 *
 * <p>A reader that finds no free buffer or ring slot while bytes await the verifier thread
 * compares their pieces itself ({@link #helpVerify}): one verifier thread cannot hold back many
 * readers of a fast device, and a verifier kept off its CPU by other processes cannot stall the
 * load. Helpers finish slices out of order, so each ring slot is freed on its own.
 */
final class LoadPipeline {
    /**
     * Bytes per read of a load verified by its readers from bytes the CPU copies: small enough
     * that a slice is compared while still in the reading core's cache, large enough that the
     * extra reads cost nothing measurable.
     */
    static final long INLINE_SLICE = 1L << 20;

    /**
     * Bytes per read of a load verified on its own thread from bytes the CPU copies: each read
     * lands in one of {@value #RING_SLOTS} slots of this size at the start of its reader's buffer
     * (a {@link Ring}), whose lines are still in cache from the last round.
     */
    static final long RING_SLICE = 2L << 20;

    /**
     * How long the verifier thread and a reader waiting for a ring slot spin before they park: a
     * slice arrives, or a slot frees, every few tens of microseconds, and each park and wake-up
     * costs that much again (512 hand-offs per GiB). They only spin for bytes copied from memory
     * while the readers leave a CPU idle (the verifier thread runs with a ring only then).
     */
    static final long SPIN_NANOS = 200_000;

    /**
     * Bytes per compare call of handed-over bytes: small enough that readers waiting for a
     * buffer share a chunk's compare with the verifier thread (at most one piece is left to
     * wait for), large enough that a call's overhead is nothing (about 70 us of compare each).
     */
    static final long VERIFY_PIECE = 2L << 20;

    /** Slots of a reader's {@link Ring}: enough that the reader rarely waits on the verifier. */
    static final int RING_SLOTS = 8;

    /**
     * System property choosing the verifier for measurements: {@code thread}, or {@code auto} (the
     * default, the same), or {@code inline}.
     */
    static final String VERIFIER_PROPERTY = "dgen4j.load.verifier";

    /** Who compares the bytes read. */
    enum VerifyMode {
        /** Not verified. */
        NONE,
        /** Each reader, right after each slice's read. */
        INLINE,
        /** One verifier thread, overlapped with the readers' next reads. */
        THREAD,
        /**
         * The reader's storage, as it copies each piece of a read into the buffer (a network's
         * response body, {@link StorageReader#checksAsRead}): compared in cache, whole chunks per
         * read, no verifier thread and no buffer for one.
         */
        ARRIVAL
    }

    /** A pool buffer and the references to it: its reader's, and one per slice awaiting verification. */
    private static final class Held {
        final MemorySegment buf;
        final AtomicInteger refs = new AtomicInteger(1);

        Held(MemorySegment buf) {
            this.buf = buf;
        }
    }

    /**
     * A reader's slots for slices awaiting verification: the first {@code slots} slices of its
     * buffer, reused in turn (bytes the CPU copies then land in lines still in cache, and the
     * verifier reads them from there). A slot is reused only once its slice is verified; each
     * slot is freed on its own, since readers that help may finish a later slice first.
     */
    private final class Ring {
        final Semaphore[] free;
        final BufferPool pool;
        long next;
        /** The free-flag of the slot {@link #next} returned last. */
        Semaphore current;

        Ring(int slots, BufferPool pool) {
            this.pool = pool;
            this.free = new Semaphore[slots];
            for (int i = 0; i < slots; i++) {
                free[i] = new Semaphore(1);
            }
        }

        /**
         * The next slot of {@code buf} once free, {@code len} bytes, for the bytes at stream
         * offset {@code at}; {@code null} after a failure or once a mismatch before {@code at} is found.
         */
        MemorySegment next(MemorySegment buf, long len, long at) throws InterruptedException {
            int k = (int) (next % free.length);
            Semaphore slot = free[k];
            // The verifier frees a copied slice's slot within microseconds: spin for it before parking.
            long spinUntil = System.nanoTime() + (spin ? SPIN_NANOS : 0);
            boolean got;
            while (!(got = slot.tryAcquire()) && System.nanoTime() < spinUntil) {
                Thread.onSpinWait();
            }
            // Then compare what awaits the verifier (this reader's slices among it) instead of sleeping.
            while (!got) {
                if (failure.get() != null || at >= firstMismatch.get()) {
                    return null;
                }
                got = helpVerify(pool) ? slot.tryAcquire() : slot.tryAcquire(50, TimeUnit.MILLISECONDS);
            }
            next++;
            current = slot;
            return buf.asSlice(k * slice, len);
        }
    }

    /**
     * Read bytes waiting for verification; {@code held == null} ends the verifier thread. Their
     * compare is split into pieces of at most {@value #VERIFY_PIECE} bytes that the verifier
     * thread and readers waiting for a buffer claim in turn; whoever finishes the last piece
     * frees the bytes.
     */
    private static final class Pending {
        final Held held;
        final MemorySegment bytes;
        final long offset;
        /** The ring slot the bytes are in, released once they are verified; {@code null} outside a ring. */
        final Semaphore slot;
        final int pieces;
        final AtomicInteger nextPiece = new AtomicInteger();
        final AtomicInteger piecesLeft;

        Pending(Held held, MemorySegment bytes, long offset, Semaphore slot) {
            this.held = held;
            this.bytes = bytes;
            this.offset = offset;
            this.slot = slot;
            this.pieces = bytes == null ? 0 : (int) ((bytes.byteSize() + VERIFY_PIECE - 1) / VERIFY_PIECE);
            this.piecesLeft = new AtomicInteger(pieces);
        }
    }

    private static final Pending END = new Pending(null, null, -1, null);

    private final StorageReader reader;
    private final DataSpec spec;
    /** What the file holds when it is laid out in a format (torch), or null: then the file is the stream. */
    private final LayoutChecker layout;
    private final VerifyMode mode;
    private final String target;
    private final long chunkSize;
    private final int readers;
    /** Generator threads asked for (0: the CPUs the readers leave idle, or one per inline reader). */
    private final int threads;
    private final LongConsumer progress;
    /** Bytes per read: the chunk, or a slice of it when verifying bytes the CPU copies. */
    private final long slice;
    /**
     * Whether readers verifying inline read every slice into the same first bytes of their
     * buffer, which stay in their core's cache (bytes the CPU copies).
     */
    private final boolean hotSlice;
    /**
     * Whether readers handing slices to the verifier thread cycle through a {@link Ring}: of
     * {@value #RING_SLICE}-byte slots for bytes the CPU copies, of the two halves of the buffer
     * for a device's DMA.
     */
    private final boolean ringed;
    /**
     * Whether the verifier thread and readers waiting for a ring slot spin before they park:
     * only for bytes the CPU copies, whose next slice is microseconds away.
     */
    private final boolean spin;
    /** The verifier thread's generator once open: readers waiting for a buffer use it too. */
    private volatile Generator threadGen;
    /** What the verifier thread is comparing, whose unclaimed pieces readers may take. */
    private volatile Pending active;
    private final IoClock io = new IoClock();
    private final AtomicLong nextChunk = new AtomicLong();
    private final AtomicLong firstMismatch = new AtomicLong(Long.MAX_VALUE);
    private final AtomicLong verifyNanos = new AtomicLong();
    private final AtomicLong done = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final BlockingQueue<Pending> pending = new LinkedBlockingQueue<>();
    private volatile byte[] mismatchBytes;
    private int peakInUse;
    private long runStart;
    /** What verified: the generator's implementation, or {@code none}. */
    private volatile String verifier = "none";

    /**
     * A load of {@code spec.size()} bytes from {@code reader}, {@code chunkSize} bytes per read by
     * {@code readers} threads; with {@code verify}, every byte is compared with the stream of
     * {@code spec}. {@code target} names it in messages.
     */
    LoadPipeline(StorageReader reader, DataSpec spec, boolean verify, String target, long chunkSize, int readers,
                 int threads, LongConsumer progress) {
        this(reader, spec, verify, target, chunkSize, readers, threads, progress, null);
    }

    /** As above, of a file laid out as {@code layout} says (its payloads the stream of {@code spec}), or raw when null. */
    LoadPipeline(StorageReader reader, DataSpec spec, boolean verify, String target, long chunkSize, int readers,
                 int threads, LongConsumer progress, LayoutChecker layout) {
        this.reader = reader;
        this.spec = spec;
        this.layout = layout;
        this.target = target;
        this.chunkSize = chunkSize;
        this.readers = readers;
        this.threads = threads;
        this.progress = progress;
        boolean copied = reader.memoryCopy();
        this.mode = verify ? verifyMode(readers, copied, layout == null && reader.checksAsRead()) : VerifyMode.NONE;
        // Bytes the CPU copies out of memory are read in slices compared while still in cache; a
        // device's DMA lands in the two halves of the reader's buffer in turn (both O_DIRECT-aligned);
        // a network (a request per read) takes whole chunks.
        boolean halves = mode == VerifyMode.THREAD && !copied && reader.deviceDma() && chunkSize % (2 * 4096) == 0;
        this.slice = switch (mode) {
            case NONE -> chunkSize;
            case INLINE -> copied ? Math.min(INLINE_SLICE, chunkSize) : chunkSize;
            case THREAD -> copied ? Math.min(RING_SLICE, chunkSize) : halves ? chunkSize / 2 : chunkSize;
            case ARRIVAL -> chunkSize;
        };
        this.hotSlice = mode == VerifyMode.INLINE && copied;
        this.ringed = mode == VerifyMode.THREAD && (copied || halves);
        this.spin = mode == VerifyMode.THREAD && copied;
    }

    /**
     * The verifier: {@value #VERIFIER_PROPERTY} when set; else the reader's storage as the bytes
     * arrive where it can ({@code arrival}: a raw load from a network that copies each piece), else
     * a thread of its own while the readers leave a CPU idle, and the readers themselves when they
     * do not (no hand-off, and no thread taking a core from a reader).
     */
    private static VerifyMode verifyMode(int readers, boolean copied, boolean arrival) {
        String asked = System.getProperty(VERIFIER_PROPERTY, "auto").trim().toLowerCase(java.util.Locale.ROOT);
        return switch (asked) {
            case "inline" -> VerifyMode.INLINE;
            case "thread" -> VerifyMode.THREAD;
            case "auto", "", "arrival" -> arrival ? VerifyMode.ARRIVAL
                    : !copied || readers < Numa.defaultThreads() ? VerifyMode.THREAD : VerifyMode.INLINE;
            default -> throw new IllegalArgumentException(String.format(
                    "system property %s must be auto, arrival, inline or thread, got '%s'", VERIFIER_PROPERTY, asked));
        };
    }

    /**
     * The buffers this load takes from a pool of {@code asked}: at least one per reader, and with a
     * verifier thread on whole chunks one more, which lets a chunk be verified while every reader
     * reads (a ring keeps its slices in its reader's buffer).
     */
    int buffersFor(int asked) {
        return Math.max(asked, readers + (mode == VerifyMode.THREAD && !ringed ? 1 : 0));
    }

    /** What verified: the generator's implementation, or {@code none}. */
    String verifier() {
        return verifier;
    }

    /** Time at least one read was in flight. */
    double readSeconds() {
        return io.seconds();
    }

    /** Time spent regenerating and comparing. */
    double verifySeconds() {
        return verifyNanos.get() / 1e9;
    }

    /**
     * The {@link #run} that took {@code runSeconds} (measured around it) cut into phases adding up
     * to it: before the first read (threads started, buffers mapped, the verifier opened), reads in
     * flight, no read in flight between the first and the last (readers comparing, or waiting for a
     * buffer the verifier still held), and after the last read (the last compares, threads stopping).
     */
    List<Phase> phases(double runSeconds) {
        double[] s = io.split(runStart, runSeconds);
        boolean verifying = mode != VerifyMode.NONE;
        return List.of(new Phase("startUp", "start-up", s[0], "threads started, first buffer taken, before the first read"),
                new Phase("io", "I/O", s[1], "reads in flight"),
                new Phase("readStall", "read stall", s[2], verifying
                        ? "no read in flight: readers comparing, or waiting for buffers being verified"
                        : "no read in flight: readers between reads"),
                new Phase("drain", "drain", s[3], verifying ? "after the last read: the last compares, threads stopping"
                        : "after the last read: threads stopping"));
    }

    /** Most buffers of the pool taken at once. */
    int peakInUse() {
        return peakInUse;
    }

    /**
     * Reads every byte through {@code pool} (of at least {@link #buffersFor} buffers), verifying as
     * asked; every buffer is back in the pool when it returns or throws.
     *
     * @throws VerifyException at the first byte that differs from the stream
     */
    void run(BufferPool pool) throws IOException {
        runStart = System.nanoTime();
        long size = layout == null ? spec.size() : layout.layout().size();
        // Readers verifying inline need the generator first; the verifier thread opens its own
        // while the first slices are read.
        try (Generator gen = mode == VerifyMode.INLINE || mode == VerifyMode.ARRIVAL ? openVerifier() : null) {
            if (gen != null) {
                verifier = gen.implementation();
            }
            List<Thread> threadsRunning = new ArrayList<>();
            for (int i = 0; i < readers; i++) {
                threadsRunning.add(Thread.ofPlatform().name("dgen4j-reader-" + i).daemon()
                        .start(() -> readLoop(pool, size, gen)));
            }
            Thread verifierThread = mode == VerifyMode.THREAD
                    ? Thread.ofPlatform().name("dgen4j-verifier").daemon().start(() -> verifierMain(pool))
                    : null;
            boolean interrupted = joinAll(threadsRunning);
            if (verifierThread != null) {
                pending.add(END);
                interrupted |= joinAll(List.of(verifierThread));
            }
            peakInUse = pool.peakInUse();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        CheckpointException.rethrow(failure.get());
        long at = firstMismatch.get();
        if (at == Long.MAX_VALUE && layout != null && mode != VerifyMode.NONE) {
            LayoutChecker.Mismatch crc = layout.crcMismatch(); // every byte compared equal: now the CRCs
            if (crc != null) {
                at = crc.offset();
                mismatchBytes = new byte[] {crc.expected(), crc.found()};
            }
        }
        if (at != Long.MAX_VALUE) {
            byte[] b = mismatchBytes;
            throw layout == null ? new VerifyException(target, at, b[0], b[1])
                    : new VerifyException(target, at, b[0], b[1], layout.layout().describe(at));
        }
    }

    /**
     * The generator that compares, or {@code null} when not verifying. Readers verifying inline
     * share one generator that runs each compare on its caller (one thread, never pinned: the
     * native core and the twin then compare concurrently, each caller on its own core), unless
     * threads were asked for.
     */
    private Generator openVerifier() {
        return switch (mode) {
            case NONE -> null;
            case INLINE, ARRIVAL -> threads > 0 ? Generator.open(spec, Generator.Kind.AUTO, threads)
                    : Generator.open(spec, Generator.Kind.AUTO, 1, Numa.Mode.OFF, -1);
            // One thread compares on the verifier thread itself: no hand-off to a worker per slice.
            case THREAD -> verifyThreads() == 1
                    ? Generator.open(spec, Generator.Kind.AUTO, 1, Numa.Mode.OFF, -1)
                    : Generator.open(spec, Generator.Kind.AUTO, verifyThreads());
        };
    }

    /**
     * Threads of the verifier thread's generator: those asked for, else the CPUs the readers leave
     * idle (at least one). Measured on 2 cores with 1 reader from tmpfs: a 2-thread verify took CPU
     * from the reader (0.6-0.8 x a plain load), a 1-thread verify did not (0.9-1.0 x).
     */
    private int verifyThreads() {
        return threads > 0 ? threads : Math.max(1, Numa.defaultThreads() - readers);
    }

    /**
     * Joins the threads; an interrupt stops the run (the threads watch {@code failure}) and is
     * passed on to them, so that one waiting on its storage (a ranged GET) stops now.
     */
    private boolean joinAll(List<Thread> threadsRunning) {
        boolean interrupted = false;
        for (Thread t : threadsRunning) {
            while (t.isAlive()) {
                try {
                    t.join(50);
                } catch (InterruptedException e) {
                    interrupted = true;
                    failure.compareAndSet(null, new InterruptedIOException("load of " + target + " interrupted"));
                    threadsRunning.forEach(Thread::interrupt);
                }
            }
        }
        return interrupted;
    }

    private void fail(Throwable t) {
        failure.compareAndSet(null, t instanceof InterruptedException
                ? new InterruptedIOException("load of " + target + " interrupted") : t);
    }

    private void readLoop(BufferPool pool, long size, Generator gen) {
        if (ringed) {
            ringLoop(pool, size);
            return;
        }
        try {
            while (failure.get() == null) {
                long offset = nextChunk.getAndIncrement() * chunkSize;
                // Chunks past a known mismatch cannot change the first one: skip them.
                if (offset >= size || offset >= firstMismatch.get()) {
                    return;
                }
                long len = Math.min(chunkSize, size - offset);
                // Waits while every buffer is being read or verified, comparing pieces of handed-over
                // chunks meanwhile; the poll watches for failures.
                MemorySegment buf = null;
                while (buf == null && failure.get() == null && offset < firstMismatch.get()) {
                    buf = pool.acquire(0, TimeUnit.MILLISECONDS).orElse(null);
                    if (buf == null && !helpVerify(pool)) {
                        buf = pool.acquire(50, TimeUnit.MILLISECONDS).orElse(null);
                    }
                }
                if (buf == null) {
                    return;
                }
                Held held = new Held(buf);
                try {
                    readChunk(held, null, offset, len, size, gen);
                } finally {
                    unref(pool, held);
                }
            }
        } catch (Throwable t) {
            fail(t);
        }
    }

    /** A reader handing slices to the verifier through a ring in the one buffer it holds throughout. */
    private void ringLoop(BufferPool pool, long size) {
        Held held = null;
        try {
            MemorySegment buf = null;
            while (buf == null && failure.get() == null) {
                buf = pool.acquire(50, TimeUnit.MILLISECONDS).orElse(null);
            }
            if (buf == null) {
                return;
            }
            held = new Held(buf);
            Ring ring = new Ring((int) Math.max(1, Math.min(RING_SLOTS, chunkSize / slice)), pool);
            while (failure.get() == null) {
                long offset = nextChunk.getAndIncrement() * chunkSize;
                if (offset >= size || offset >= firstMismatch.get()) {
                    return;
                }
                readChunk(held, ring, offset, Math.min(chunkSize, size - offset), size, null);
            }
        } catch (Throwable t) {
            fail(t);
        } finally {
            if (held != null) {
                unref(pool, held);
            }
        }
    }

    /** Reads one chunk slice by slice, verifying or handing over each slice as the mode says. */
    private void readChunk(Held held, Ring ring, long offset, long len, long size, Generator gen)
            throws IOException, InterruptedException {
        long step = Math.min(slice, len);
        // Slices past a known mismatch (found here or by another reader) are not read either.
        for (long at = 0; at < len && failure.get() == null && offset + at < firstMismatch.get(); at += step) {
            long want = Math.min(step, len - at);
            MemorySegment part = ring != null ? ring.next(held.buf, want, offset + at)
                    : held.buf.asSlice(hotSlice ? 0 : at, want);
            if (part == null) {
                return; // a failure, or a mismatch before these bytes, found while waiting for a ring slot
            }
            io.begin();
            long n;
            long bad = -1;
            try {
                if (mode == VerifyMode.ARRIVAL) {
                    StorageReader.Checked c = reader.read(offset + at, part, (bytes, from) -> compared(gen, bytes, from));
                    n = c.bytes();
                    bad = c.firstMismatch();
                } else {
                    n = reader.read(offset + at, part);
                }
            } finally {
                io.end();
            }
            if (n != want) {
                throw new CheckpointException(String.format("%s ended at byte %d, inside the chunk at "
                        + "offset %d (expected %d bytes)", target, offset + at + n, offset, size),
                        offset + at + n, null);
            }
            switch (mode) {
                case INLINE -> {
                    compare(gen, part, offset + at);
                    progress.accept(done.addAndGet(want));
                }
                case THREAD -> {
                    held.refs.incrementAndGet();
                    pending.add(new Pending(held, part, offset + at, ring != null ? ring.current : null));
                }
                case ARRIVAL -> {
                    if (bad >= 0) {
                        mismatched(gen, part, offset + at, bad);
                    }
                    progress.accept(done.addAndGet(want));
                }
                case NONE -> { }
            }
        }
        if (mode == VerifyMode.NONE) {
            progress.accept(done.addAndGet(len));
        }
    }

    private void unref(BufferPool pool, Held held) {
        if (held.refs.decrementAndGet() == 0) {
            pool.release(held.buf);
        }
    }

    /** The verifier thread: opens its generator, then verifies until {@link #END}. */
    private void verifierMain(BufferPool pool) {
        Generator gen = null;
        try {
            gen = openVerifier();
            verifier = gen.implementation();
            threadGen = gen;
        } catch (Throwable t) {
            fail(t); // the loop below then only gives the slices' buffers back
        }
        try {
            verifyLoop(pool, gen);
        } finally {
            if (gen != null) {
                gen.close();
            }
        }
    }

    /** Verifies handed-over slices until {@link #END}; after a failure only frees their buffers. */
    private void verifyLoop(BufferPool pool, Generator gen) {
        while (true) {
            Pending p = pending.poll();
            try {
                // The next slice is usually microseconds away when readers copy from memory (a
                // device's or a network's chunk is milliseconds away): spin for it before parking.
                long spinUntil = System.nanoTime() + (spin ? SPIN_NANOS : 0);
                while (p == null && System.nanoTime() < spinUntil) {
                    Thread.onSpinWait();
                    p = pending.poll();
                }
                if (p == null) {
                    p = pending.take();
                }
            } catch (InterruptedException e) {
                fail(e);
                continue; // keep draining: every buffer must go back before the pool closes
            }
            if (p.held == null) {
                return;
            }
            active = p;
            verifyPieces(pool, gen, p);
            active = null;
        }
    }

    /**
     * A reader with no free buffer compares unclaimed pieces: of what the verifier thread is on,
     * else of the next handed-over chunk. {@code false} when there was nothing to take.
     */
    private boolean helpVerify(BufferPool pool) {
        Generator gen = threadGen;
        if (gen == null) {
            return false;
        }
        Pending p = active;
        if (p != null && verifyPieces(pool, gen, p)) {
            return true;
        }
        p = pending.poll();
        if (p == null) {
            return false;
        }
        verifyPieces(pool, gen, p); // never END: that is queued after every reader ended
        return true;
    }

    /**
     * Compares the pieces of {@code p} this thread claims until none is left; whoever finishes
     * the last one frees its bytes. After a failure pieces are only counted. {@code false} when
     * no piece was left to claim.
     */
    private boolean verifyPieces(BufferPool pool, Generator gen, Pending p) {
        boolean claimed = false;
        for (int i; (i = p.nextPiece.getAndIncrement()) < p.pieces; ) {
            claimed = true;
            long at = i * VERIFY_PIECE;
            long len = Math.min(VERIFY_PIECE, p.bytes.byteSize() - at);
            try {
                if (gen != null && failure.get() == null && p.offset + at < firstMismatch.get()) {
                    compare(gen, p.bytes.asSlice(at, len), p.offset + at);
                    progress.accept(done.addAndGet(len));
                }
            } catch (Throwable t) {
                fail(t);
            } finally {
                if (p.piecesLeft.decrementAndGet() == 0) {
                    if (p.slot != null) {
                        p.slot.release();
                    }
                    unref(pool, p.held);
                }
            }
        }
        return claimed;
    }

    /** Compares {@code part} with the stream at {@code offset}, keeping the smallest mismatch found by any thread. */
    private void compare(Generator gen, MemorySegment part, long offset) {
        if (layout != null) {
            compareLaidOut(gen, part, offset);
            return;
        }
        long t0 = System.nanoTime();
        long abs = gen.firstMismatch(part, offset);
        if (abs >= 0) {
            mismatched(gen, part, offset, abs);
        }
        verifyNanos.addAndGet(System.nanoTime() - t0);
    }

    /** The first mismatch of {@code bytes} (at {@code offset}) compared as they arrived, timed as verification. */
    private long compared(Generator gen, MemorySegment bytes, long offset) {
        long t0 = System.nanoTime();
        try {
            return gen.firstMismatch(bytes, offset);
        } finally {
            verifyNanos.addAndGet(System.nanoTime() - t0);
        }
    }

    /** Keeps {@code abs}, a byte of {@code part} (at {@code offset}) that differs, when it is the smallest found. */
    private void mismatched(Generator gen, MemorySegment part, long offset, long abs) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment one = arena.allocate(1);
            gen.fill(one, abs, 1);
            byte expected = one.get(ValueLayout.JAVA_BYTE, 0);
            byte found = part.get(ValueLayout.JAVA_BYTE, abs - offset);
            synchronized (this) {
                if (abs < firstMismatch.get()) {
                    mismatchBytes = new byte[] {expected, found};
                    firstMismatch.set(abs);
                }
            }
        }
    }

    /** {@link #compare} of a file in a format: framing byte for byte, payloads against the stream. */
    private void compareLaidOut(Generator gen, MemorySegment part, long offset) {
        long t0 = System.nanoTime();
        LayoutChecker.Mismatch m = layout.compare(part, offset, new LayoutChecker.Stream() {
            @Override
            public long firstMismatch(MemorySegment data, long streamOffset) {
                return gen.firstMismatch(data, streamOffset);
            }

            @Override
            public long firstMismatchCrc(MemorySegment data, long streamOffset, long[] crc) {
                return gen.firstMismatchCrc(data, streamOffset, crc);
            }

            @Override
            public byte at(long streamOffset) {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment one = arena.allocate(1);
                    gen.fill(one, streamOffset, 1);
                    return one.get(ValueLayout.JAVA_BYTE, 0);
                }
            }

            @Override
            public void fill(MemorySegment dst, long streamOffset) {
                gen.fill(dst, streamOffset);
            }

            @Override
            public long firstMismatchFinite(MemorySegment data, long streamOffset, DType dtype, int phase, long[] crc) {
                if (gen instanceof NativeGenerator nat && data.isNative()) { // masked in the fused compare
                    return nat.firstMismatchPayload(data, streamOffset, Finite.code(dtype), phase, crc);
                }
                return LayoutChecker.Stream.super.firstMismatchFinite(data, streamOffset, dtype, phase, crc);
            }
        });
        if (m != null) {
            synchronized (this) {
                if (m.offset() < firstMismatch.get()) {
                    mismatchBytes = new byte[] {m.expected(), m.found()};
                    firstMismatch.set(m.offset());
                }
            }
        }
        verifyNanos.addAndGet(System.nanoTime() - t0);
    }
}
