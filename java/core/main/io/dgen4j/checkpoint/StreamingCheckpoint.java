package io.dgen4j.checkpoint;

import io.dgen4j.format.Layout;
import io.dgen4j.format.LayoutChecker;
import io.dgen4j.format.LayoutWriter;
import io.dgen4j.format.Safetensors;
import io.dgen4j.format.Tensor;
import io.dgen4j.format.TorchReader;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.storage.OpenTimes;
import io.dgen4j.storage.ReadRequest;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageProvider;
import io.dgen4j.storage.Storage;
import io.dgen4j.storage.StorageReader;
import io.dgen4j.storage.StorageTarget;
import io.dgen4j.storage.StorageWriter;
import io.dgen4j.storage.TargetBusyException;
import io.dgen4j.storage.WriteRequest;
import io.dgen4j.unit.ByteSize;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * the regenerated stream with {@code readersInFlight} readers. Any failure stops the pipeline,
 * removes the partial file, frees every buffer and throws the first cause.
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
    /** Default bytes per chunk as options and help texts write it: {@value}, {@link #DEFAULT_CHUNK_SIZE} bytes. */
    public static final String DEFAULT_CHUNK = "32MiB";
    /** Default bytes per chunk: {@value #DEFAULT_CHUNK}. */
    public static final long DEFAULT_CHUNK_SIZE = ByteSize.parseBytes(DEFAULT_CHUNK);
    /**
     * Default buffers: one being filled while one is written. A third buffer gained nothing
     * measurable with one writer here and costs a chunk of resident memory (docs/CHECKPOINTS.md).
     */
    public static final int DEFAULT_BUFFERS = 2;
    /** Default concurrent writes of a save. */
    public static final int DEFAULT_WRITERS = 1;
    /** Default concurrent reads of a load. */
    public static final int DEFAULT_READERS = 1;

    private final long chunkSize;
    private final int buffers;
    private final int writersInFlight;
    private final int readersInFlight;
    private final DataSpec template;
    private final DataSource source;
    private final int threads;
    private final StorageOptions storageOptions;
    private final Optional<String> backend;
    private final LongConsumer progress;
    private final Runnable sent;
    private final boolean resetPeakRss;
    /** The caller's pool, used by every save and load instead of one of their own, or {@code null}. */
    private final BufferPool sharedPool;
    /** The caller's storage session, or {@code null}: then each save or load opens (and closes) its own. */
    private final Storage storage;

    private StreamingCheckpoint(Builder b) {
        this.chunkSize = b.chunkSize;
        this.buffers = b.buffers;
        this.writersInFlight = b.writersInFlight;
        this.readersInFlight = b.readersInFlight;
        this.template = b.spec;
        this.source = b.source;
        this.threads = b.threads;
        this.storageOptions = b.storageOptions;
        this.backend = b.backend;
        this.progress = b.progress;
        this.sent = b.sent;
        this.resetPeakRss = b.resetPeakRss;
        this.sharedPool = b.pool;
        this.storage = b.storage;
    }

    /** The session a save or load uses: the caller's, or one of its own that {@link Session#close} closes. */
    private record Session(Storage storage, boolean own) implements AutoCloseable {
        StorageProvider forTarget(StorageTarget target, Optional<String> backend) {
            return storage.forTarget(target, backend);
        }

        /** Closes a session of its own; one with an upload left open keeps aborting it in the background (bounded). */
        @Override
        public void close() {
            if (own) {
                storage.closeInBackground();
            }
        }
    }

    private Session session() {
        return storage != null ? new Session(storage, false) : new Session(Storage.open(), true);
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

    /** Concurrent writes of a save. */
    public int writersInFlight() {
        return writersInFlight;
    }

    /** Concurrent reads of a load. */
    public int readersInFlight() {
        return readersInFlight;
    }

    /** Removes the checkpoint at {@code target} (for files, the file and its manifest); returns whether there was one. */
    public boolean delete(StorageTarget target) throws IOException {
        try (Session session = session()) {
            return session.forTarget(target, backend).delete(target, storageOptions);
        }
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
     * @throws IllegalArgumentException when the buffers (or the shared pool's) do not exceed the
     *         writers, before anything is written
     * @throws io.dgen4j.storage.TargetBusyException when another save is writing {@code target}
     */
    public SaveResult save(StorageTarget target, long totalBytes) throws IOException {
        requireABufferBeyondTheWriters();
        DataSpec spec = specFor(totalBytes);
        try (Session session = session()) {
            return save(target, spec, session.forTarget(target, backend));
        }
    }

    /**
     * Saves a checkpoint laid out by {@code layout} (a {@code torch} file: docs/FORMATS.md) to
     * {@code target}: its payloads are the stream of {@link Layout#payloadBytes()} bytes, filled in
     * place, its framing computed, in the memory of a raw save. A raw layout saves the stream alone
     * (with its floating-point values made finite, and its tensors in the manifest, when it says so).
     */
    public SaveResult save(StorageTarget target, Layout layout) throws IOException {
        if (layout.format() == Layout.Format.RAW && !layout.finite()) {
            return save(target, layout.payloadBytes());
        }
        requireABufferBeyondTheWriters();
        DataSpec spec = specFor(layout.payloadBytes());
        try (Session session = session()) {
            return save(target, spec, session.forTarget(target, backend), layout.describing(spec));
        }
    }

    private SaveResult save(StorageTarget target, DataSpec spec, StorageProvider provider) throws IOException {
        return save(target, spec, provider, (Layout) null);
    }

    private SaveResult save(StorageTarget target, DataSpec spec, StorageProvider provider, Layout layout)
            throws IOException {
        BufferPool pool = poolFor(buffers, "the save to " + target);
        long fileSize = layout == null ? spec.size() : layout.size();
        SavePipeline pipeline = new SavePipeline(pool, fileSize, chunkSize, writersInFlight, progress);
        boolean[] unclaimed = {false};
        try {
            return save(target, spec, provider, pipeline, layout, () -> {
                if (pool == sharedPool) { // the commit needs no buffer: the next save may have the pool meanwhile
                    pool.unclaim();
                    unclaimed[0] = true;
                }
                sent.run();
            });
        } finally {
            if (unclaimed[0]) { // given back already, its writers stopped
                assert pipeline.writersStopped();
            } else if (pipeline.writersStopped()) {
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
        try (Session session = session()) {
            return save(target, spec, session.forTarget(target, backend),
                    new PreallocatedSave(target.toString(), totalBytes, chunkSize, progress), null, sent);
        }
    }

    /**
     * Opens the writer of {@code target}, runs {@code run} into it, calls {@code sent} and commits; a
     * failure aborts the write and says what it left under the target's name.
     */
    private SaveResult save(StorageTarget target, DataSpec spec, StorageProvider provider, SaveRun run,
                            Layout layout, Runnable sent) throws IOException {
        StorageWriter data = null;
        try (Measurement measured = new Measurement(resetPeakRss, run::written);
             DataSource.Filler filler = laidOut(source.open(spec, threads), layout)) {
            // Phases are cut at readings of one clock, so they add up to the total exactly.
            double started = measured.seconds();
            Manifest manifest = new Manifest(DataSpec.FORMAT_VERSION, spec, filler.implementation(), chunkSize,
                    layout);
            data = provider.openWriter(new WriteRequest(target, manifest.fileSize(), chunkSize, target.isFile()
                    ? manifest.toMetadata() : manifest.toObjectMetadata(),
                    run.inFlight(), storageOptions));
            double opened = measured.seconds();
            run.run(filler, data);
            double ran = measured.seconds();
            sent.run();
            data.commit();
            double total = measured.seconds();
            double closeSeconds = total - ran;
            List<Phase> phases = new ArrayList<>();
            phases.add(new Phase("startUp", "start-up", started, "generator started (threads, pinning; a process's first also loads and compiles code)"));
            phases.addAll(openPhases(opened - started, data.openTimes(), "target opened: lock, temp file, preallocation"));
            phases.addAll(run.phases(ran - opened));
            phases.add(new Phase("commit", data.commitLabel(), closeSeconds, data.commitWhat()));
            return new SaveResult(run.method(), new Where(target.toString(), data.description(), data.directIo()),
                    new SaveResult.Plan(manifest.fileSize(), chunkSize, chunks(manifest.fileSize()), run.buffers(),
                            run.inFlight()),
                    new SaveResult.Data(filler.implementation(), spec.seedString()),
                    new SaveResult.Times(run.generationSeconds(), run.ioSeconds(), closeSeconds, total, phases),
                    new SaveResult.Memory(run.peakBuffersInUse(), run.poolBytes(), measured.peakRss()),
                    measured.samples(), data.endpointStatistics());
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

    /** {@code filler}'s stream in {@code layout}'s file: framing between the payloads, CRCs as they are made. */
    private static DataSource.Filler laidOut(DataSource.Filler filler, Layout layout) {
        if (layout == null) {
            return filler;
        }
        LayoutWriter writer = layout.writer();
        LayoutWriter.Source payloads = filler.payloads();
        return new DataSource.Filler() {
            @Override
            public void fill(MemorySegment dst, long offset) {
                writer.fill(dst, offset, payloads);
            }

            @Override
            public String implementation() {
                return filler.implementation();
            }

            @Override
            public void close() {
                filler.close();
            }
        };
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
        try (Session session = session()) {
            check(session.forTarget(target, backend), target, spec);
        }
    }

    private void check(StorageProvider provider, StorageTarget target, DataSpec spec) {
        long totalBytes = spec.size();
        Manifest manifest = new Manifest(DataSpec.FORMAT_VERSION, spec, source.label(), chunkSize);
        provider.checkWrite(new WriteRequest(target, totalBytes, chunkSize, manifest.toMetadata(), writersInFlight,
                storageOptions));
    }

    /** What {@link #read} runs on an open reader. */
    @FunctionalInterface
    public interface ReaderTask<T> {
        /** Reads what it needs from {@code reader} (offsets and buffers as {@link StorageReader#read} asks). */
        T run(StorageReader reader) throws IOException;
    }

    /**
     * Opens {@code target} with this checkpoint's backend, session and options and runs {@code task} on its
     * reader, closed after: for a caller that reads parts of an object itself (inspect reads a torch file's end
     * records, central directory and pickle with a few ranged GETs) rather than loading it whole.
     *
     * @throws CheckpointException when {@code target} does not exist
     */
    public <T> T read(StorageTarget target, ReaderTask<T> task) throws IOException {
        try (Session session = session();
             StorageReader reader = session.forTarget(target, backend)
                     .openReader(new ReadRequest(target, 1, storageOptions))) {
            return task.run(reader);
        } catch (NoSuchFileException e) {
            throw new CheckpointException(String.format("checkpoint %s does not exist%s", target,
                    e.getReason() == null || e.getReason().startsWith("no such") ? "" : ": " + e.getReason()), -1, e);
        }
    }

    /**
     * Writes {@code bytes} to {@code target} as one small object with no manifest (a model directory's index
     * or config.json beside its shards), through this checkpoint's backend, session and options; visible
     * whole on return.
     */
    public void write(StorageTarget target, byte[] bytes) throws IOException {
        try (Session session = session();
             java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared()) { // S3 clients send from their threads
            MemorySegment data = arena.allocate(Math.max(1, bytes.length), 4096).asSlice(0, bytes.length);
            MemorySegment.copy(bytes, 0, data, ValueLayout.JAVA_BYTE, 0, bytes.length);
            StorageWriter w = session.forTarget(target, backend).openWriter(new WriteRequest(target, bytes.length,
                    java.util.Map.of(), 1, storageOptions));
            try (w) {
                if (bytes.length > 0) {
                    w.write(0, data);
                }
                w.commit();
            } catch (IOException | RuntimeException e) {
                w.abort();
                throw e;
            }
        }
    }

    /**
     * Loads {@code target} with parallel positional reads into pooled buffers. The spec comes from
     * the manifest that describes the file found under the target's name (the previous one, while
     * a save is replacing it).
     */
    public LoadResult load(StorageTarget target, boolean verify) throws IOException {
        try (Session session = session()) {
            return load(target, verify, session.forTarget(target, backend));
        }
    }

    private LoadResult load(StorageTarget target, boolean verify, StorageProvider provider) throws IOException {
        String path = target.toString();
        try (Measurement measured = new Measurement(resetPeakRss, () -> 0);
             StorageReader reader = provider.openReader(new ReadRequest(target, readersInFlight, storageOptions))) {
            Manifest manifest = manifestOf(reader, path, verify);
            if (manifest.layout() != null && manifest.layout().format() == Layout.Format.SAFETENSORS) {
                checkHeader(reader, manifest.layout(), path);
            } else if (manifest.layout() != null) {
                checkDirectory(reader, manifest.layout(), path);
            }
            DataSpec spec = manifest.spec();
            double opened = measured.seconds();
            LoadPipeline run = new LoadPipeline(reader, spec, verify, path, chunkSize, readersInFlight, threads,
                    progress, manifest.layout() == null ? null : manifest.layout().checker());
            BufferPool pool = poolFor(run.buffersFor(buffers), "the load of " + target);
            double ran;
            try {
                run.run(pool);
            } finally {
                ran = measured.seconds();
                done(pool);
            }
            double total = measured.seconds();
            List<Phase> phases = new ArrayList<>();
            phases.addAll(openPhases(opened, reader.openTimes(),
                    "target opened, manifest read; a process's first also loads and compiles code"));
            phases.addAll(run.phases(ran - opened));
            phases.add(new Phase("release", "release", total - ran, "buffers freed"));
            return new LoadResult(new Where(path, reader.description(), reader.directIo()),
                    new LoadResult.Plan(manifest.fileSize(), chunkSize, readersInFlight),
                    new LoadResult.Verification(verify, run.verifier()),
                    new LoadResult.Times(run.readSeconds(), run.verifySeconds(), total, phases),
                    new LoadResult.Memory(run.peakInUse(), measured.peakRss()), reader.endpointStatistics());
        } catch (NoSuchFileException e) {
            throw new CheckpointException(String.format("checkpoint %s does not exist%s", path,
                    e.getReason() == null || e.getReason().startsWith("no such") ? "" : ": " + e.getReason()), -1, e);
        } catch (CheckpointException e) {
            throw e;
        } catch (IOException e) {
            // the pipeline's own lines (an interrupt) already name the load
            String m = e.getMessage();
            throw new CheckpointException(m != null && m.startsWith("load of " + target + " ") ? m
                    : "load of " + target + " failed: " + m, -1, e);
        }
    }

    /**
     * The open's phases: one "open" of {@code seconds} doing {@code what}, or, where the backend timed
     * its client's start and its first requests, those two and what is left of the open (settings,
     * credentials, the manifest), so that they still add up to {@code seconds}.
     */
    static List<Phase> openPhases(double seconds, OpenTimes times, String what) {
        if (!times.timed()) {
            return List.of(new Phase("open", "open", seconds, what));
        }
        double client = Math.min(times.clientStartSeconds(), seconds);
        double requests = Math.min(times.requestSeconds(), seconds - client);
        List<Phase> phases = new ArrayList<>();
        phases.add(new Phase("open", "open", seconds - client - requests,
                "settings and credentials read, the backend chosen, the manifest decoded"));
        phases.add(new Phase("clientStart", "client start", client,
                "the client started: threads, connection pool; a process's first also loads its classes"));
        phases.add(new Phase("firstRequests", "requests", requests,
                times.requests() + ", before the first byte moved"));
        return phases;
    }

    /**
     * The manifest saved with what {@code reader} reads, checked against it: present, of a size
     * that matches, and verifiable when {@code verify} asks for it.
     */
    private static Manifest manifestOf(StorageReader reader, String path, boolean verify) throws IOException {
        if (reader.metadata().isEmpty()) {
            throw new CheckpointException(String.format("no manifest for %s: not a dgen4j checkpoint, or its "
                    + "save did not finish", path), -1, null);
        }
        Manifest manifest = Manifest.fromMetadata(tensorsRead(reader, path), "the manifest of " + path);
        if (verify && !manifest.verifiable()) {
            throw new CheckpointException(path + " was written with " + manifest.generator()
                    + " data, which cannot be regenerated: load it without --verify", -1, null);
        }
        long size = manifest.fileSize();
        if (reader.size() != size && manifest.layout() != null
                && manifest.layout().format() == Layout.Format.SAFETENSORS) {
            checkHeader(reader, manifest.layout(), path); // names the rule a safetensors reader refuses it by
        }
        if (reader.size() != size) {
            throw new CheckpointException(String.format("%s holds %d bytes but its manifest says %d: the checkpoint "
                    + "is truncated or was overwritten", path, reader.size(), size), Math.min(reader.size(), size), null);
        }
        return manifest;
    }

    /**
     * The metadata of what {@code reader} reads, with the tensor list read from its safetensors header where the
     * metadata says it is there ({@link Manifest#tensorsInHeader}: an object's).
     */
    private static Map<String, Object> tensorsRead(StorageReader reader, String path) throws IOException {
        Map<String, Object> meta = reader.metadata();
        if (!Manifest.tensorsInHeader(meta)) {
            return meta;
        }
        try {
            Safetensors.Header h = Safetensors.read((offset, dst) -> readAligned(reader, offset, dst, path),
                    reader.size(), path);
            List<Tensor> tensors = new ArrayList<>();
            for (Safetensors.Entry e : h.entries()) {
                tensors.add(Tensor.of(e.name(), e.dtype(), e.shape()));
            }
            return Manifest.withTensors(meta, tensors);
        } catch (IOException e) {
            throw new CheckpointException(e.getMessage(), -1, e); // one line naming the object and the rule
        }
    }

    /**
     * Reads a laid-out file's end first, as torch.load does: its central directory and end records
     * must be what its manifest's layout says (CRC fields aside: {@code --verify} checks those), or
     * the load stops before reading the rest, naming the record that differs.
     */
    private static void checkDirectory(StorageReader reader, Layout layout, String path) throws IOException {
        long from = layout.directoryOffset() / 4096 * 4096; // readers bypassing the page cache need alignment
        long n = layout.size() - from;
        if (n > 64L << 20) {
            return; // a directory of millions of records: --verify compares it with the rest
        }
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(n, 4096);
            long got = 0;
            while (got < n) {
                long r = reader.read(from + got, buf.asSlice(got));
                if (r <= 0) {
                    break;
                }
                got += r;
            }
            if (got != n) {
                throw new CheckpointException(String.format("%s ends at byte %d, before its end of central directory "
                        + "record (the file is truncated)", path, from + got), from + got, null);
            }
            long dir = layout.directoryOffset();
            LayoutChecker.Mismatch m = layout.checker().compare(buf.asSlice(dir - from), dir, NO_PAYLOAD);
            if (m != null) {
                throw new CheckpointException(String.format("%s: %s differs from its manifest's layout at byte %d "
                        + "(expected 0x%02x, found 0x%02x): the file is damaged or is not the one saved", path,
                        layout.describe(m.offset()), m.offset(), m.expected() & 0xff, m.found() & 0xff),
                        -1, null); // the message says the offset already
            }
        }
    }

    /**
     * Reads a safetensors file's header first, as its readers do: it must keep every rule of the
     * format (a reader refuses a gap, an overlap, a trailing byte) and be the header of the manifest's
     * layout, or the load stops before reading the rest, naming the rule or the byte that differs.
     */
    private static void checkHeader(StorageReader reader, Layout layout, String path) throws IOException {
        try {
            TorchReader.ReadAt in = (offset, dst) -> readAligned(reader, offset, dst, path);
            Safetensors.Header header = Safetensors.read(in, reader.size(), path);
            byte[] head = new byte[Math.toIntExact(header.dataStart())];
            in.readFully(0, head);
            LayoutChecker.Mismatch m = layout.checker().compare(MemorySegment.ofArray(head), 0, NO_PAYLOAD);
            if (m != null) {
                throw new CheckpointException(String.format("%s: %s differs from its manifest's layout at byte %d "
                        + "(expected 0x%02x, found 0x%02x): the file is damaged or is not the one saved", path,
                        layout.describe(m.offset()), m.offset(), m.expected() & 0xff, m.found() & 0xff), -1, null);
            }
        } catch (CheckpointException e) {
            throw e;
        } catch (IOException e) {
            throw new CheckpointException(e.getMessage(), -1, e); // one line naming the file and the rule
        }
    }

    /** Reads {@code dst.length} bytes at {@code offset} in 4096-aligned pieces (readers may bypass the page cache). */
    private static void readAligned(StorageReader reader, long offset, byte[] dst, String path) throws IOException {
        long from = offset / 4096 * 4096;
        long n = Math.min((offset + dst.length - from + 4095) / 4096 * 4096, reader.size() - from);
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(Math.max(n, 1), 4096);
            long got = 0;
            while (got < n) {
                long r = reader.read(from + got, buf.asSlice(got, n - got));
                if (r <= 0) {
                    break;
                }
                got += r;
            }
            if (got < offset - from + dst.length) {
                throw new java.io.EOFException(path + " ends at byte " + (from + got));
            }
            MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, offset - from, dst, 0, dst.length);
        }
    }

    /** The directory and end records hold no payload bytes: nothing of the stream is compared there. */
    private static final LayoutChecker.Stream NO_PAYLOAD = new LayoutChecker.Stream() {
        @Override
        public long firstMismatch(MemorySegment data, long streamOffset) {
            return -1;
        }

        @Override
        public byte at(long streamOffset) {
            throw new IllegalStateException("no payload in a zip's directory");
        }
    };

    /**
     * A streaming save fills one buffer while its writers write the others: its pool must hold more
     * buffers than writers (a load takes what it needs, so the builder cannot refuse this).
     */
    private void requireABufferBeyondTheWriters() {
        if (sharedPool != null && sharedPool.capacity() < writersInFlight + 1) {
            throw new IllegalArgumentException(String.format("the shared buffer pool's %d buffer(s) must exceed "
                    + "writers in flight (%d): one buffer is always being filled", sharedPool.capacity(),
                    writersInFlight));
        }
        if (sharedPool == null && buffers < writersInFlight + 1) {
            throw new IllegalArgumentException(String.format(
                    "buffers (%d) must exceed writers in flight (%d): one buffer is always being filled",
                    buffers, writersInFlight));
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
        private int readersInFlight = DEFAULT_READERS;
        private DataSpec spec = DataSpec.builder().build();
        private DataSource source = DataSource.AUTO;
        private int threads;
        private StorageOptions storageOptions = StorageOptions.empty();
        private Optional<String> backend = Optional.empty();
        private LongConsumer progress = done -> { };
        private Runnable sent = () -> { };
        private boolean resetPeakRss;
        private BufferPool pool;
        private Storage storage;

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

        /** Concurrent writes of a save, at least 1; a save's buffers must exceed them. */
        public Builder writersInFlight(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("writers in flight must be >= 1, got " + n);
            }
            this.writersInFlight = n;
            return this;
        }

        /** Concurrent reads of a load, at least 1; a load takes at least one buffer per reader. */
        public Builder readersInFlight(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("readers in flight must be >= 1, got " + n);
            }
            this.readersInFlight = n;
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
         * Called by a save once its last byte is written, before its commit, on the saving thread: a shared
         * {@link #bufferPool} is free by then, so that another save may start beside the commit (a model's
         * next shard beside this one's CompleteMultipartUpload).
         */
        public Builder partsSent(Runnable listener) {
            this.sent = listener == null ? () -> { } : listener;
            return this;
        }

        /**
         * Whether each save and load resets the kernel's peak RSS of this process when it starts
         * (writes {@code /proc/self/clear_refs}), so that {@code peakRssBytes} is the kernel's exact
         * peak during it: for a process that measures checkpoints, like the CLI. Off by default,
         * since the reset changes what any other reader of that peak in the process sees;
         * {@code peakRssBytes} is then the highest RSS sampled every 100 ms.
         */
        public Builder resetPeakRss(boolean on) {
            this.resetPeakRss = on;
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
         * The storage session every save and load goes through (default: each opens and closes its
         * own): what it keeps (S3 clients and connections, endpoint health) serves them all, and the
         * caller closes it after the last.
         *
         * {@snippet :
         * try (Storage storage = Storage.open()) {
         *     StreamingCheckpoint ckpt = StreamingCheckpoint.builder().storage(storage).build();
         *     for (int step = 0; step < 10; step++) {
         *         ckpt.save("s3://bucket/ckpt-" + step + ".bin", 24L << 30);
         *     }
         * }
         * }
         */
        public Builder storage(Storage storage) {
            this.storage = java.util.Objects.requireNonNull(storage, "storage");
            return this;
        }

        /**
         * The checkpoint.
         *
         * @throws IllegalArgumentException when a shared pool's buffers are smaller than a chunk, or
         *         when the source is {@link DataSource#JDK_RANDOM} with a dedup or compression ratio
         *         other than 1 (its bytes cannot have them, and the manifest must not claim them)
         */
        public StreamingCheckpoint build() {
            if (pool != null && pool.bufferSize() < chunkSize) {
                throw new IllegalArgumentException(String.format("the shared buffer pool's buffers (%d bytes) are "
                        + "smaller than a chunk (%d bytes)", pool.bufferSize(), chunkSize));
            }
            if (source == DataSource.JDK_RANDOM && (spec.dedupRatio() != 1.0 || spec.compressRatio() != 1.0)) {
                throw new IllegalArgumentException(jdkRandomRefusal(spec.dedupRatio(), spec.compressRatio()));
            }
            return new StreamingCheckpoint(this);
        }

        /** Names only the ratios that are not 1, and why each cannot be had, e.g. compress alone. */
        private static String jdkRandomRefusal(double dedup, double compress) {
            java.util.List<String> asked = new java.util.ArrayList<>();
            java.util.List<String> why = new java.util.ArrayList<>();
            java.util.List<String> use = new java.util.ArrayList<>();
            if (dedup != 1.0) {
                asked.add("dedup " + dedup);
                why.add("all distinct");
                use.add("dedup 1");
            }
            if (compress != 1.0) {
                asked.add("compress " + compress);
                why.add("incompressible");
                use.add("compress 1");
            }
            return String.format(java.util.Locale.ROOT, "the jdk-random generator cannot produce %s (its bytes are %s): "
                    + "use %s, or another generator", String.join(" and ", asked), String.join(" and ", why),
                    String.join(" and ", use));
        }
    }
}
