package io.dgen4j.checkpoint;

import io.dgen4j.gen.DataSpec;
import io.dgen4j.gen.Generator;
import io.dgen4j.gen.Numa;
import io.dgen4j.storage.ReadRequest;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageProvider;
import io.dgen4j.storage.StorageProviders;
import io.dgen4j.storage.StorageReader;
import io.dgen4j.storage.StorageTarget;
import io.dgen4j.storage.StorageWriter;
import io.dgen4j.storage.TargetBusyException;
import io.dgen4j.storage.WriteRequest;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Saves and loads checkpoints of generated data with a small, fixed memory footprint.
 *
 * <p>{@link #save} runs a producer and {@code writersInFlight} writers over a pool of
 * {@code buffers} chunks: memory stays at {@code buffers × chunkSize} whatever the checkpoint
 * size. The data goes to a temporary name, is made durable (fsync) and renamed into place next
 * to a small manifest holding the stream's spec, so {@link #load} can verify every byte against
 * the regenerated stream. Any failure stops the pipeline, removes the partial file, frees every
 * buffer and throws the first cause.
 *
 * {@snippet :
 * StreamingCheckpoint ckpt = StreamingCheckpoint.builder()
 *         .chunkSize(32L << 20)
 *         .spec(DataSpec.builder().seed(42).compressRatio(2).build())
 *         .build();
 * SaveResult saved = ckpt.save("/nvme/ckpt.bin", 24L << 30);
 * LoadResult loaded = ckpt.load("/nvme/ckpt.bin", true);   // verify every byte
 * }
 */
public final class StreamingCheckpoint {
    private static final Logger LOG = LoggerFactory.getLogger(StreamingCheckpoint.class);
    /** Default bytes per chunk: 32 MiB. */
    public static final long DEFAULT_CHUNK_SIZE = 32L << 20;
    /**
     * Default buffers: one being filled while one is written. A third buffer gained nothing
     * measurable with one writer here and costs a chunk of resident memory (docs/CHECKPOINTS.md).
     */
    public static final int DEFAULT_BUFFERS = 2;
    /** Default concurrent writes (and reads). */
    public static final int DEFAULT_WRITERS = 1;

    private final long chunkSize;
    private final int buffers;
    private final int writersInFlight;
    private final DataSpec template;
    private final DataSource source;
    private final int threads;
    private final StorageOptions storageOptions;
    private final Optional<String> backend;
    private final LongConsumer progress;
    /** The caller's pool, used by every save and load instead of one of their own, or {@code null}. */
    private final BufferPool sharedPool;

    private StreamingCheckpoint(Builder b) {
        this.chunkSize = b.chunkSize;
        this.buffers = b.buffers;
        this.writersInFlight = b.writersInFlight;
        this.template = b.spec;
        this.source = b.source;
        this.threads = b.threads;
        this.storageOptions = b.storageOptions;
        this.backend = b.backend;
        this.progress = b.progress;
        this.sharedPool = b.pool;
    }

    /** A pool for one save or load: the shared one, reserved for it, or a new one of {@code count} buffers. */
    private BufferPool poolFor(int count, String who) {
        if (sharedPool == null) {
            return new BufferPool(count, chunkSize);
        }
        sharedPool.claim(who);
        return sharedPool;
    }

    /** Gives back what {@link #poolFor} returned: frees a pool of its own, ends the claim on the shared one. */
    private void done(BufferPool pool) {
        if (pool == sharedPool) {
            pool.unclaim();
        } else {
            pool.close();
        }
    }

    /** A builder with the defaults: 32 MiB chunks, 2 buffers, 1 writer, incompressible random-seed data. */
    public static Builder builder() {
        return new Builder();
    }

    /** Bytes per chunk. */
    public long chunkSize() {
        return chunkSize;
    }

    /** Buffers in the pool. */
    public int buffers() {
        return buffers;
    }

    /** Concurrent writes or reads. */
    public int writersInFlight() {
        return writersInFlight;
    }

    /** Removes the checkpoint at {@code target} (for files, the file and its manifest); returns whether there was one. */
    public boolean delete(StorageTarget target) throws IOException {
        return StorageProviders.forTarget(target, backend).delete(target, storageOptions);
    }

    /** Saves {@code totalBytes} of the stream to {@code target} (a path, {@code file://} or {@code direct://}). */
    public SaveResult save(String target, long totalBytes) throws IOException {
        return save(StorageTarget.parse(target), totalBytes);
    }

    /**
     * Saves {@code totalBytes} of the stream to {@code target}, streaming through the buffer pool.
     * The target is replaced atomically (docs/CHECKPOINTS.md): a failure leaves the previous
     * checkpoint, or nothing, and its message says which.
     *
     * @throws io.dgen4j.storage.TargetBusyException when another save is writing {@code target}
     */
    public SaveResult save(StorageTarget target, long totalBytes) throws IOException {
        DataSpec spec = specFor(totalBytes);
        StorageProvider provider = StorageProviders.forTarget(target, backend);
        ProcessMemory.resetPeak();
        long start = System.nanoTime();
        BufferPool pool = poolFor(buffers, "the save to " + target);
        boolean poolIdle = true;
        SavePipeline pipeline = null;
        StorageWriter data = null;
        AtomicReference<SavePipeline> running = new AtomicReference<>();
        try (ProcessMemory.Sampler sampler = new ProcessMemory.Sampler(100,
                     () -> running.get() == null ? 0 : running.get().written());
             DataSource.Filler filler = source.open(spec, threads)) {
            Manifest manifest = new Manifest(DataSpec.FORMAT_VERSION, spec, filler.implementation(), chunkSize);
            data = provider.openWriter(new WriteRequest(target, totalBytes, manifest.toMetadata(), writersInFlight,
                    storageOptions));
            pipeline = new SavePipeline(filler, pool, data, totalBytes, chunkSize, writersInFlight, progress);
            running.set(pipeline);
            pipeline.run();
            poolIdle = pipeline.writersStopped();
            long closeStart = System.nanoTime();
            data.commit();
            double closeSeconds = (System.nanoTime() - closeStart) / 1e9;
            double totalSeconds = (System.nanoTime() - start) / 1e9;
            return new SaveResult("streaming", target.toString(), data.description(), data.directIo(),
                    totalBytes, chunkSize, chunks(totalBytes), pool.capacity(), writersInFlight,
                    filler.implementation(), spec.seedString(), pipeline.generationSeconds(),
                    pipeline.ioSeconds(), closeSeconds, totalSeconds, pool.peakInUse(), pool.poolBytes(),
                    Math.max(sampler.peakSampled(), ProcessMemory.peakRss()), sampler.samples(),
                    data.endpointStatistics());
        } catch (IOException | RuntimeException | Error e) {
            if (pipeline != null) {
                poolIdle = pipeline.writersStopped();
            }
            if (data != null) {
                data.abort();
            }
            throw annotate(e, target, data);
        } finally {
            if (data != null) {
                data.close();
            }
            if (poolIdle) {
                done(pool);
            } else {
                LOG.error("a writer of {} did not stop after the failure; its buffers are left allocated", target);
                if (pool == sharedPool) {
                    pool.unclaim(); // the next user is told that buffers are still taken
                }
            }
        }
    }

    /**
     * The old method, for comparison: allocates the whole checkpoint in memory, generates it, then
     * writes it (what preallocating tools do). Memory grows with the checkpoint size.
     */
    public SaveResult savePreallocated(StorageTarget target, long totalBytes) throws IOException {
        DataSpec spec = specFor(totalBytes);
        StorageProvider provider = StorageProviders.forTarget(target, backend);
        ProcessMemory.resetPeak();
        long start = System.nanoTime();
        AtomicLong written = new AtomicLong();
        StorageWriter data = null;
        try (ProcessMemory.Sampler sampler = new ProcessMemory.Sampler(100, written::get);
             Arena arena = Arena.ofShared();
             DataSource.Filler filler = source.open(spec, threads)) {
            Manifest manifest = new Manifest(DataSpec.FORMAT_VERSION, spec, filler.implementation(), chunkSize);
            data = provider.openWriter(new WriteRequest(target, totalBytes, manifest.toMetadata(), 1, storageOptions));
            MemorySegment all = arena.allocate(totalBytes, 4096);
            long t0 = System.nanoTime();
            filler.fill(all, 0);
            double gen = (System.nanoTime() - t0) / 1e9;
            IoClock io = new IoClock();
            for (long off = 0; off < totalBytes; off += chunkSize) {
                if (Thread.interrupted()) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("save to " + target + " interrupted after " + off + " bytes");
                }
                long len = Math.min(chunkSize, totalBytes - off);
                io.begin();
                try {
                    data.write(off, all.asSlice(off, len));
                } finally {
                    io.end();
                }
                progress.accept(written.addAndGet(len));
            }
            long closeStart = System.nanoTime();
            data.commit();
            double closeSeconds = (System.nanoTime() - closeStart) / 1e9;
            double total = (System.nanoTime() - start) / 1e9;
            return new SaveResult("preallocated", target.toString(), data.description(), data.directIo(), totalBytes,
                    chunkSize, chunks(totalBytes), 0, 1, filler.implementation(), spec.seedString(), gen,
                    io.seconds(), closeSeconds, total, 0, totalBytes,
                    Math.max(sampler.peakSampled(), ProcessMemory.peakRss()), sampler.samples(),
                    data.endpointStatistics());
        } catch (IOException | RuntimeException | Error e) {
            if (data != null) {
                data.abort();
            }
            throw annotate(e, target, data);
        } finally {
            if (data != null) {
                data.close();
            }
        }
    }

    /** Loads {@code target}, reading every byte; with {@code verify}, compares them with the stream. */
    public LoadResult load(String target, boolean verify) throws IOException {
        return load(StorageTarget.parse(target), verify);
    }

    /**
     * Checks, before anything is generated, opened or written, what {@link #save} of {@code totalBytes}
     * to {@code target} checks first: the size, the backend for the target, and the backend's own
     * limits on such a write ({@link StorageProvider#checkWrite}: for S3, the part plan of this size in
     * chunks of {@link #chunkSize()}). A run of many saves (a DLIO workload) calls it for each distinct
     * size before its first save, so a limit is met before the first byte, not halfway.
     *
     * @throws IllegalArgumentException naming the limit
     */
    public void checkSave(StorageTarget target, long totalBytes) {
        DataSpec spec = specFor(totalBytes);
        StorageProvider provider = StorageProviders.forTarget(target, backend);
        Manifest manifest = new Manifest(DataSpec.FORMAT_VERSION, spec, source.label(), chunkSize);
        provider.checkWrite(new WriteRequest(target, totalBytes, manifest.toMetadata(), writersInFlight,
                storageOptions));
    }

    /**
     * Loads {@code target} with parallel positional reads into pooled buffers. The spec comes from
     * the manifest that describes the file found under the target's name (the previous one, while
     * a save is replacing it).
     */
    public LoadResult load(StorageTarget target, boolean verify) throws IOException {
        String path = target.toString();
        StorageProvider provider = StorageProviders.forTarget(target, backend);
        ProcessMemory.resetPeak();
        long start = System.nanoTime();
        try (StorageReader reader = provider.openReader(new ReadRequest(target, writersInFlight, storageOptions));
             ProcessMemory.Sampler sampler = new ProcessMemory.Sampler(100, () -> 0)) {
            if (reader.metadata().isEmpty()) {
                throw new CheckpointException(String.format("no manifest for %s: not a dgen4j checkpoint, or its "
                        + "save did not finish", path), -1, null);
            }
            Manifest manifest = Manifest.fromMetadata(reader.metadata(), "the manifest of " + path);
            if (verify && !manifest.verifiable()) {
                throw new CheckpointException(path + " was written with " + manifest.generator()
                        + " data, which cannot be regenerated: load it without --verify", -1, null);
            }
            long size = manifest.spec().size();
            if (reader.size() != size) {
                throw new CheckpointException(String.format("%s holds %d bytes but its manifest says %d: the checkpoint "
                        + "is truncated or was overwritten", path, reader.size(), size), Math.min(reader.size(), size), null);
            }
            LoadRun run = new LoadRun(reader, manifest, verify, target.toString());
            run.run();
            double total = (System.nanoTime() - start) / 1e9;
            return new LoadResult(target.toString(), reader.description(), reader.directIo(), size, chunkSize,
                    writersInFlight, verify, run.verifier, run.io.seconds(), run.verifyNanos.get() / 1e9, total,
                    run.peakInUse, Math.max(sampler.peakSampled(), ProcessMemory.peakRss()),
                    reader.endpointStatistics());
        } catch (NoSuchFileException e) {
            throw new CheckpointException(String.format("checkpoint %s does not exist%s", path,
                    e.getReason() == null || e.getReason().startsWith("no such") ? "" : ": " + e.getReason()), -1, e);
        } catch (CheckpointException e) {
            throw e;
        } catch (IOException e) {
            throw new CheckpointException("load of " + target + " failed: " + e.getMessage(), -1, e);
        }
    }

    /**
     * Parallel reads of one checkpoint, with optional verification of every byte read.
     *
     * <p>Each reader takes a free buffer and reads the next chunk into it. Who compares the bytes
     * with the fused {@link Generator#firstMismatch} is a {@link VerifyMode}, chosen by
     * {@value #VERIFIER_PROPERTY} ({@code auto}, the default, {@code thread} or {@code inline}):
     * <ul>
     * <li>{@link VerifyMode#THREAD} ({@code auto} while the readers leave a CPU idle, and for reads
     *     that are no CPU copy out of memory: a device's DMA, a network): readers hand what they read
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
    private final class LoadRun {
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
            THREAD
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
        private final Manifest manifest;
        private final VerifyMode mode;
        private final String target;
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
        /** What verified: the generator's implementation, or {@code none}. */
        private volatile String verifier = "none";

        LoadRun(StorageReader reader, Manifest manifest, boolean verify, String target) {
            this.reader = reader;
            this.manifest = manifest;
            this.target = target;
            boolean copied = reader.memoryCopy();
            this.mode = verify ? verifyMode(writersInFlight, copied) : VerifyMode.NONE;
            // Bytes the CPU copies out of memory are read in slices compared while still in cache; a
            // device's DMA lands in the two halves of the reader's buffer in turn (both O_DIRECT-aligned);
            // a network (a request per read) takes whole chunks.
            boolean halves = mode == VerifyMode.THREAD && !copied && reader.deviceDma() && chunkSize % (2 * 4096) == 0;
            this.slice = switch (mode) {
                case NONE -> chunkSize;
                case INLINE -> copied ? Math.min(INLINE_SLICE, chunkSize) : chunkSize;
                case THREAD -> copied ? Math.min(RING_SLICE, chunkSize) : halves ? chunkSize / 2 : chunkSize;
            };
            this.hotSlice = mode == VerifyMode.INLINE && copied;
            this.ringed = mode == VerifyMode.THREAD && (copied || halves);
            this.spin = mode == VerifyMode.THREAD && copied;
        }

        /**
         * The verifier: {@value #VERIFIER_PROPERTY} when set; else a thread of its own while the
         * readers leave a CPU idle, and the readers themselves when they do not (no hand-off, and no
         * thread taking a core from a reader).
         */
        private static VerifyMode verifyMode(int readers, boolean copied) {
            String asked = System.getProperty(VERIFIER_PROPERTY, "auto").trim().toLowerCase(java.util.Locale.ROOT);
            return switch (asked) {
                case "inline" -> VerifyMode.INLINE;
                case "thread" -> VerifyMode.THREAD;
                case "auto", "" -> !copied || readers < Numa.defaultThreads() ? VerifyMode.THREAD : VerifyMode.INLINE;
                default -> throw new IllegalArgumentException(String.format(
                        "system property %s must be auto, inline or thread, got '%s'", VERIFIER_PROPERTY, asked));
            };
        }

        void run() throws IOException {
            long size = manifest.spec().size();
            // With a verifier thread and whole chunks, one buffer beyond the readers' lets a chunk be
            // verified while every reader reads; a ring keeps its slices in its reader's buffer.
            int count = Math.max(buffers, writersInFlight + (mode == VerifyMode.THREAD && !ringed ? 1 : 0));
            BufferPool pool = poolFor(count, "the load of " + target);
            // Readers verifying inline need the generator first; the verifier thread opens its own
            // while the first slices are read.
            try (Generator gen = mode == VerifyMode.INLINE ? openVerifier() : null) {
                if (gen != null) {
                    verifier = gen.implementation();
                }
                List<Thread> threadsRunning = new ArrayList<>();
                for (int i = 0; i < writersInFlight; i++) {
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
            } finally {
                done(pool);
            }
            CheckpointException.rethrow(failure.get());
            long at = firstMismatch.get();
            if (at != Long.MAX_VALUE) {
                byte[] b = mismatchBytes;
                throw new VerifyException(target, at, b[0], b[1]);
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
                case INLINE -> threads > 0 ? Generator.open(manifest.spec(), Generator.Kind.AUTO, threads)
                        : Generator.open(manifest.spec(), Generator.Kind.AUTO, 1, Numa.Mode.OFF, -1);
                // One thread compares on the verifier thread itself: no hand-off to a worker per slice.
                case THREAD -> verifyThreads() == 1
                        ? Generator.open(manifest.spec(), Generator.Kind.AUTO, 1, Numa.Mode.OFF, -1)
                        : Generator.open(manifest.spec(), Generator.Kind.AUTO, verifyThreads());
            };
        }

        /**
         * Threads of the verifier thread's generator: those asked for, else the CPUs the readers leave
         * idle (at least one). Measured on 2 cores with 1 reader from tmpfs: a 2-thread verify took CPU
         * from the reader (0.6-0.8 x a plain load), a 1-thread verify did not (0.9-1.0 x).
         */
        private int verifyThreads() {
            return threads > 0 ? threads : Math.max(1, Numa.defaultThreads() - writersInFlight);
        }

        /** Joins the threads; an interrupt stops the run (the threads watch {@code failure}). */
        private boolean joinAll(List<Thread> threadsRunning) {
            boolean interrupted = false;
            for (Thread t : threadsRunning) {
                while (t.isAlive()) {
                    try {
                        t.join(50);
                    } catch (InterruptedException e) {
                        interrupted = true;
                        failure.compareAndSet(null, new InterruptedIOException("load of " + target + " interrupted"));
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
                try {
                    n = reader.read(offset + at, part);
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
            long t0 = System.nanoTime();
            long abs = gen.firstMismatch(part, offset);
            if (abs >= 0) {
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
            verifyNanos.addAndGet(System.nanoTime() - t0);
        }
    }

    private DataSpec specFor(long totalBytes) {
        if (totalBytes <= 0) {
            throw new IllegalArgumentException("checkpoint size must be > 0 bytes, got " + totalBytes);
        }
        return template.toBuilder().size(totalBytes).build();
    }

    private long chunks(long totalBytes) {
        return totalBytes / chunkSize + (totalBytes % chunkSize == 0 ? 0 : 1); // no overflow near Long.MAX_VALUE
    }

    /** The failure of a save, saying what it left under the target's name. */
    private static IOException annotate(Throwable e, StorageTarget target, StorageWriter data) {
        String left = data == null ? "" : " (" + data.state() + ")";
        if (e instanceof TargetBusyException busy) {
            return busy;
        }
        if (e instanceof CheckpointException ce) {
            CheckpointException annotated = new CheckpointException(ce.getMessage() + left,
                    ce.offset().orElse(-1), ce.getCause());
            annotated.setStackTrace(ce.getStackTrace());
            return annotated;
        }
        if (e instanceof InterruptedIOException ie) {
            InterruptedIOException annotated = new InterruptedIOException(ie.getMessage() + left);
            annotated.initCause(ie);
            return annotated;
        }
        if (e instanceof IOException io) {
            return new CheckpointException("save to " + target + " failed: " + io.getMessage() + left, -1, io);
        }
        if (e instanceof RuntimeException re) {
            throw re;
        }
        throw (Error) e;
    }

    /** Builder of {@link StreamingCheckpoint}; setters validate at once. */
    public static final class Builder {
        private long chunkSize = DEFAULT_CHUNK_SIZE;
        private int buffers = DEFAULT_BUFFERS;
        private int writersInFlight = DEFAULT_WRITERS;
        private DataSpec spec = DataSpec.builder().build();
        private DataSource source = DataSource.AUTO;
        private int threads;
        private StorageOptions storageOptions = StorageOptions.empty();
        private Optional<String> backend = Optional.empty();
        private LongConsumer progress = done -> { };
        private boolean forLoad;
        private BufferPool pool;

        private Builder() {}

        /** Bytes per chunk: a positive multiple of 4 KiB (O_DIRECT alignment). */
        public Builder chunkSize(long bytes) {
            if (bytes <= 0 || bytes % 4096 != 0) {
                throw new IllegalArgumentException("chunk size must be a positive multiple of 4096 bytes, got " + bytes);
            }
            if (bytes > (1L << 31)) {
                throw new IllegalArgumentException("chunk size must be at most 2 GiB, got " + bytes);
            }
            this.chunkSize = bytes;
            return this;
        }

        /** Buffers in the pool, at least 1 (memory is buffers × chunk size). */
        public Builder buffers(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("buffers must be >= 1, got " + n);
            }
            this.buffers = n;
            return this;
        }

        /** Concurrent writes (and reads on load), at least 1. */
        public Builder writersInFlight(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("writers in flight must be >= 1, got " + n);
            }
            this.writersInFlight = n;
            this.forLoad = false;
            return this;
        }

        /** Seed, dedup, compression and block size of the data; its size is replaced by the save's. */
        public Builder spec(DataSpec spec) {
            if (spec == null) {
                throw new IllegalArgumentException("spec must not be null");
            }
            this.spec = spec;
            return this;
        }

        /** What fills the chunks (default: the stream, native when available). */
        public Builder source(DataSource source) {
            if (source == null) {
                throw new IllegalArgumentException("source must not be null");
            }
            this.source = source;
            return this;
        }

        /** Generator threads (0 = all CPUs of this process). */
        public Builder threads(int n) {
            if (n < 0) {
                throw new IllegalArgumentException("threads must be >= 0, got " + n);
            }
            this.threads = n;
            return this;
        }

        /**
         * Options of a storage backend (e.g. {@link io.dgen4j.storage.FileOptions}); call once per
         * backend type, each backend reads its own.
         */
        public Builder backendOptions(Object options) {
            this.storageOptions = storageOptions.with(options);
            return this;
        }

        /** The storage backend to use, by name ({@code file}, {@code aws}, ...); default: the best available for the target's scheme. */
        public Builder backend(String name) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("backend name must not be empty");
            }
            this.backend = Optional.of(name.trim());
            return this;
        }

        /** Called with the bytes written (or read) so far, from the I/O threads. */
        public Builder progress(LongConsumer listener) {
            this.progress = listener == null ? done -> { } : listener;
            return this;
        }

        /**
         * Concurrent reads of a load, at least 1: the checkpoint is built for {@link #load} only,
         * so the save's rule that buffers exceed writers does not apply.
         */
        public Builder readersInFlight(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("readers in flight must be >= 1, got " + n);
            }
            this.writersInFlight = n;
            this.forLoad = true;
            return this;
        }

        /**
         * Saves and loads through {@code pool} instead of a pool of {@link #buffers} chunks of their
         * own: its buffers are mapped and first touched once for all of them, which a process saving
         * many checkpoints (a training run, a DLIO workload) does not want to pay per file. Its
         * buffers must hold a chunk; a save uses all of them (its buffers are the pool's capacity), a
         * load as many as it needs. One save or load uses the pool at a time (another one meanwhile
         * fails with {@link IllegalStateException}); the caller closes the pool after the last.
         *
         * {@snippet :
         * try (BufferPool pool = new BufferPool(2, 32L << 20)) {
         *     StreamingCheckpoint ckpt = StreamingCheckpoint.builder().bufferPool(pool).build();
         *     for (int step = 0; step < 10; step++) {
         *         ckpt.save("/nvme/ckpt-" + step + ".bin", 24L << 30);
         *     }
         * }
         * }
         */
        public Builder bufferPool(BufferPool pool) {
            this.pool = java.util.Objects.requireNonNull(pool, "pool");
            return this;
        }

        /**
         * The checkpoint.
         *
         * @throws IllegalArgumentException when buffers do not exceed writers, when a shared
         *         pool's buffers are smaller than a chunk, or when the source is
         *         {@link DataSource#JDK_RANDOM} with a dedup or compression ratio other than 1 (its
         *         bytes cannot have them, and the manifest must not claim them)
         */
        public StreamingCheckpoint build() {
            if (pool != null && pool.bufferSize() < chunkSize) {
                throw new IllegalArgumentException(String.format("the shared buffer pool's buffers (%d bytes) are "
                        + "smaller than a chunk (%d bytes)", pool.bufferSize(), chunkSize));
            }
            if (pool != null && !forLoad && pool.capacity() < writersInFlight + 1) {
                throw new IllegalArgumentException(String.format("the shared buffer pool's %d buffer(s) must exceed "
                        + "writers in flight (%d): one buffer is always being filled", pool.capacity(), writersInFlight));
            }
            if (source == DataSource.JDK_RANDOM && (spec.dedupRatio() != 1.0 || spec.compressRatio() != 1.0)) {
                throw new IllegalArgumentException(String.format(java.util.Locale.ROOT,
                        "the jdk-random generator cannot produce dedup %s or compress %s (its bytes are "
                                + "incompressible and all distinct): use dedup 1 and compress 1, or another generator",
                        spec.dedupRatio(), spec.compressRatio()));
            }
            if (pool == null && !forLoad && buffers < writersInFlight + 1) {
                throw new IllegalArgumentException(String.format(
                        "buffers (%d) must exceed writers in flight (%d): one buffer is always being filled",
                        buffers, writersInFlight));
            }
            return new StreamingCheckpoint(this);
        }
    }
}
