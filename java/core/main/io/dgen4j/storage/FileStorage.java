package io.dgen4j.storage;

import io.dgen4j.nativelib.NativeFile;
import io.dgen4j.nativelib.NativeLibrary;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local-file backend. A checkpoint is a data file and its sidecar ({@code <name>.manifest.json},
 * the caller's metadata). Writes go to a temporary name in the target's directory; {@link
 * StorageWriter#commit()} replaces the pair atomically: at every instant a reader sees the complete
 * previous pair or the complete new one (docs/CHECKPOINTS.md, "Atomic replacement"). One save at
 * a time may write a target ({@link TargetBusyException} for the second), and the leftovers of a
 * killed save are removed by the next save or load of that target. A reader reads the file it
 * opened, through its one descriptor, to the end: a save that renames a new checkpoint over it
 * meanwhile is noted (a warning), not mixed in; a write into the very file it reads (its size or
 * modification time changes) fails the read as "changed during the load". With the native core, I/O is
 * O_DIRECT where the filesystem allows it, straight from the caller's segments; without it
 * (pure-Java mode), a FileChannel writes the segments' ByteBuffer views, buffered. Callers reach
 * it through {@link FileStorageProvider}, the storage SPI.
 *
 * {@snippet :
 * try (StorageWriter w = FileStorage.openWriter(Path.of("/nvme/ckpt.bin"), FileOptions.defaults(), size,
 *         Map.of("seed", "42"))) {
 *     w.write(0, chunk);     // from any thread
 *     w.commit();            // fsync, then the two renames of the commit protocol
 * }
 * }
 */
final class FileStorage {
    private static final Logger LOG = LoggerFactory.getLogger(FileStorage.class);
    /** Suffix of a checkpoint's sidecar. */
    public static final String SIDECAR_SUFFIX = Sidecar.SUFFIX;
    private static final String TEMP_MARK = ".dgen4j-";
    private static final String TEMP_SUFFIX = ".tmp";
    private static final int OPEN_ATTEMPTS = 5;
    private static volatile StepHook stepHook = (step, target) -> { };

    private FileStorage() {}

    /** The steps of a commit, in order; each is one system call (docs/CHECKPOINTS.md). */
    public enum CommitStep {
        /** fsync of the temporary data file. */
        DATA_FSYNC,
        /** Creation and write of the pending sidecar under a temporary name. */
        SIDECAR_WRITE,
        /** fsync of the pending sidecar. */
        SIDECAR_FSYNC,
        /** Rename of the pending sidecar into place (it describes the old and the new data). */
        SIDECAR_RENAME,
        /** fsync of the directory: the pending sidecar is durable before the data moves. */
        SIDECAR_DIR_FSYNC,
        /** Rename of the data into place: the new checkpoint is visible. */
        DATA_RENAME,
        /** fsync of the directory: the new checkpoint is durable. */
        DATA_DIR_FSYNC,
        /** Write of the final sidecar (the new entry alone) under a temporary name. */
        FINAL_WRITE,
        /** fsync of the final sidecar. */
        FINAL_FSYNC,
        /** Rename of the final sidecar into place. */
        FINAL_RENAME,
        /** fsync of the directory. */
        FINAL_DIR_FSYNC
    }

    /** Called before each commit step: a place for fault injection in tests and for tracing. */
    @FunctionalInterface
    public interface StepHook {
        /** Runs before {@code step} of the commit of {@code target}; an exception fails the step. */
        void before(CommitStep step, Path target) throws IOException;
    }

    /**
     * Installs the hook called before each commit step of every writer (default: none): a seam for
     * the commit-protocol tests in this package, not for production code.
     */
    static void stepHook(StepHook hook) {
        stepHook = hook == null ? (step, target) -> { } : hook;
    }

    /** The sidecar of the checkpoint file {@code target}. */
    public static Path sidecarPath(Path target) {
        return Sidecar.of(target);
    }

    /**
     * Opens a writer whose data and {@code metadata} appear together at {@code target} on commit.
     *
     * @param metadata scalar fields (String, Long, Integer, Double, Boolean) stored in the sidecar
     * @throws TargetBusyException when another save is writing {@code target}
     * @throws IOException         when the directory is missing or the target cannot be a checkpoint
     */
    public static StorageWriter openWriter(Path target, FileOptions options, long expectedSize,
                                           Map<String, Object> metadata) throws IOException {
        target = target.toAbsolutePath();
        Path dir = target.getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            throw new NoSuchFileException(String.valueOf(dir), null, "target directory does not exist");
        }
        refuseSpecialTarget(target);
        refuseReservedName(target);
        Path sidecar = Sidecar.of(target);
        if (Files.exists(sidecar, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(sidecar, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(String.format("%s is in the way of the checkpoint's manifest: it is not a regular file",
                    sidecar));
        }
        TargetLock lock;
        try {
            lock = TargetLock.acquire(target);
        } catch (FileSystemException e) {
            if (e instanceof NoSuchFileException) {
                throw e;
            }
            throw new IOException(String.format("cannot create files in %s: %s", dir,
                    e.getReason() != null ? e.getReason() : e instanceof AccessDeniedException ? "permission denied"
                            : e.getMessage()), e);
        }
        try {
            removeStaleTemps(target);
            boolean existed = Files.exists(target, LinkOption.NOFOLLOW_LINKS);
            Path temp = tempName(target);
            IoFile io = IoFile.create(temp, options, expectedSize);
            return new FileWriter(target, temp, io, options,
                    Collections.unmodifiableMap(new LinkedHashMap<>(metadata)), lock, existed);
        } catch (IOException | RuntimeException | Error e) {
            lock.close();
            throw e;
        }
    }

    /**
     * Opens a reader of the checkpoint file {@code path} and of the sidecar entry that describes it.
     * Stale leftovers of a killed save of {@code path} are removed first when no save is running.
     * A symbolic link is followed (a load only reads): the checkpoint is the file it points to, with
     * that file's manifest ({@code latest.bin -> ckpt-100.bin} loads {@code ckpt-100.bin}).
     */
    public static StorageReader openReader(Path checkpoint, FileOptions options) throws IOException {
        Path path = followLink(checkpoint.toAbsolutePath());
        refuseSpecialTarget(path);
        cleanUpIfIdle(path);
        Path sidecar = Sidecar.of(path);
        // A save may replace the pair while we look: retry until the sidecar and the file we
        // opened did not change around the open.
        for (int attempt = 1; ; attempt++) {
            Optional<Sidecar.Doc> before = Sidecar.read(sidecar);
            OptionalLong inode;
            try {
                inode = inodeOf(path);
            } catch (NoSuchFileException e) {
                if (before.isPresent() && before.get().pending()) {
                    throw new NoSuchFileException(path.toString(), null,
                            "a save to it was interrupted before its data was in place");
                }
                throw new NoSuchFileException(path.toString(), null, "no such checkpoint file");
            }
            IoFile io = IoFile.open(path, options);
            try {
                long size = Files.size(path);
                FileIdentity opened = FileIdentity.of(path);
                if (inodeOf(path).equals(inode) && Sidecar.read(sidecar).equals(before)) {
                    Map<String, Object> metadata = Map.of();
                    if (before.isPresent()) {
                        metadata = before.get().describing(inode, size).orElseThrow(() -> new IOException(
                                String.format("%s is not the file its manifest %s describes: %s", path, sidecar,
                                        before.get().pending() ? "a save to it was interrupted and the file "
                                                + "under that name is neither its old nor its new data"
                                                : "it was replaced or changed by something other than dgen4j")))
                                .metadata();
                    }
                    return new FileReader(path, io, size, metadata, opened, new AtomicBoolean());
                }
                if (attempt == OPEN_ATTEMPTS) {
                    throw new IOException(path + " kept being replaced while it was opened (" + OPEN_ATTEMPTS
                            + " attempts): is a save running in a loop?");
                }
            } catch (IOException | RuntimeException e) {
                io.close();
                throw e;
            }
            io.close();
        }
    }

    /**
     * Removes the checkpoint file {@code target} and its manifest; returns whether there was either.
     *
     * @throws TargetBusyException when a save is writing it
     */
    public static boolean delete(Path target) throws IOException {
        Path path = target.toAbsolutePath();
        refuseSpecialTarget(path);
        try (TargetLock lock = TargetLock.acquire(path)) {
            removeStaleTemps(path);
            boolean data = Files.deleteIfExists(path);
            return Files.deleteIfExists(Sidecar.of(path)) || data;
        }
    }

    /**
     * Removes what killed saves of {@code target} left (hidden temporary data and sidecar files),
     * if no save of it is running now; returns the files removed.
     */
    public static List<Path> cleanUpIfIdle(Path target) {
        target = target.toAbsolutePath();
        Optional<TargetLock> lock;
        try {
            lock = TargetLock.tryAcquire(target);
        } catch (IOException | RuntimeException e) {
            // A read-only directory, or one we may not write: nothing we could remove anyway.
            LOG.debug("no clean-up of {}: {}", target, e.toString());
            return List.of();
        }
        if (lock.isEmpty()) {
            return List.of();
        }
        try (TargetLock held = lock.get()) {
            return removeStaleTemps(target);
        }
    }

    /** Removes the temporary files of {@code target}; the caller holds its lock, so their owners are gone. */
    private static List<Path> removeStaleTemps(Path target) {
        String name = target.getFileName().toString();
        String dataPrefix = "." + name + TEMP_MARK;
        String sidecarPrefix = "." + name + Sidecar.SUFFIX + TEMP_MARK;
        List<Path> removed = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(target.getParent(),
                p -> p.getFileName().toString().startsWith("." + name))) {
            for (Path p : entries) {
                String n = p.getFileName().toString();
                if (!n.endsWith(TEMP_SUFFIX) || !(n.startsWith(dataPrefix) || n.startsWith(sidecarPrefix))) {
                    continue;
                }
                try {
                    long size = Files.size(p);
                    if (Files.deleteIfExists(p)) {
                        removed.add(p);
                        LOG.warn("removed {} ({} bytes), left by a save of {} that did not finish (pid {})",
                                p, size, target, ownerPid(n));
                    }
                } catch (IOException e) {
                    LOG.warn("could not remove the stale temporary file {}: {}", p, e.toString());
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("could not look for stale temporary files of {}: {}", target, e.toString());
        }
        return removed;
    }

    private static String ownerPid(String tempName) {
        int at = tempName.lastIndexOf(TEMP_MARK) + TEMP_MARK.length();
        int dash = tempName.indexOf('-', at);
        return dash > at ? tempName.substring(at, dash) : "unknown";
    }

    /**
     * Refuses a target that exists and is not a regular file: a directory, device, FIFO or socket
     * would be replaced by the save's rename (as root, {@code /dev/null} would become a regular file)
     * or block a load's open. A symbolic link under a save's or delete's name is refused too, not
     * followed: the commit renames over the name it is given, which would replace the link itself,
     * and the manifest lies beside that name, not beside the file the link points to; a load follows
     * links before this check ({@link #followLink}; docs/CHECKPOINTS.md, "Targets").
     *
     * @throws IllegalArgumentException naming the path and what it is
     */
    private static void refuseSpecialTarget(Path target) throws IOException {
        java.nio.file.attribute.BasicFileAttributes a;
        try {
            a = Files.readAttributes(target, java.nio.file.attribute.BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return;
        }
        if (a.isRegularFile()) {
            return;
        }
        if (a.isSymbolicLink()) {
            throw new IllegalArgumentException(String.format("%s is a symbolic link (to %s): a save or delete does not "
                    + "follow links, since it replaces the file under the name it is given (the link) and the manifest "
                    + "lies beside that name; name the file itself (a load follows links)", target,
                    Files.readSymbolicLink(target)));
        }
        throw new IllegalArgumentException(String.format("%s is %s, not a regular file: a checkpoint is a regular "
                + "file (or, for a save, a name not yet taken)", target, ConfigFiles.kind(target,
                LinkOption.NOFOLLOW_LINKS)));
    }

    /**
     * The file a load of {@code target} reads: {@code target}, or what it names when it is a
     * symbolic link (links of links too).
     *
     * @throws NoSuchFileException naming the link and where it points when that does not exist
     */
    private static Path followLink(Path target) throws IOException {
        if (!Files.isSymbolicLink(target)) {
            return target;
        }
        try {
            return target.toRealPath();
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(target.toString(), null, String.format(
                    "a symbolic link to %s, which does not exist", Files.readSymbolicLink(target)));
        }
    }

    /** Refuses targets that would clobber a checkpoint's sidecar, a lock or a temporary file. */
    private static void refuseReservedName(Path target) {
        StorageTarget.checkNameLength(target, StorageTarget.DERIVED_NAME_OVERHEAD);
        String name = target.getFileName().toString();
        if (name.endsWith(Sidecar.SUFFIX)) {
            throw new IllegalArgumentException(String.format("%s names a checkpoint's manifest (*%s): choose another target name",
                    target, Sidecar.SUFFIX));
        }
        if (TargetLock.isLockName(name) || (name.startsWith(".") && name.contains(TEMP_MARK) && name.endsWith(TEMP_SUFFIX))) {
            throw new IllegalArgumentException(target + " names one of dgen4j's lock or temporary files: choose another target name");
        }
    }

    private static Path tempName(Path target) {
        return target.resolveSibling(String.format(".%s%s%d-%08x%s", target.getFileName(), TEMP_MARK,
                ProcessHandle.current().pid(), ThreadLocalRandom.current().nextInt(), TEMP_SUFFIX));
    }

    /** The inode of {@code p}, where the filesystem has them. */
    static OptionalLong inodeOf(Path p) throws IOException {
        try {
            Object ino = Files.getAttribute(p, "unix:ino", LinkOption.NOFOLLOW_LINKS);
            return ino instanceof Long l ? OptionalLong.of(l) : OptionalLong.empty();
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            return OptionalLong.empty();
        }
    }

    /** The data path of one open file: native (O_DIRECT capable) or a FileChannel. */
    private sealed interface IoFile permits NativeIo, ChannelIo {
        static IoFile create(Path path, FileOptions o, long expectedSize) throws IOException {
            if (NativeLibrary.isAvailable()) {
                int flags = NativeFile.WRITE | NativeFile.CREATE_NEW | directFlags(o);
                return new NativeIo(NativeFile.open(path, flags, o.preallocate() ? expectedSize : 0));
            }
            requireNoDirect(o, path);
            return new ChannelIo(FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                    StandardOpenOption.READ));
        }

        static IoFile open(Path path, FileOptions o) throws IOException {
            if (NativeLibrary.isAvailable()) {
                return new NativeIo(NativeFile.open(path, NativeFile.READ | directFlags(o), 0));
            }
            requireNoDirect(o, path);
            return new ChannelIo(FileChannel.open(path, StandardOpenOption.READ));
        }

        private static int directFlags(FileOptions o) {
            return switch (o.direct()) {
                case AUTO -> NativeFile.DIRECT;
                case REQUIRE -> NativeFile.REQUIRE_DIRECT;
                case OFF -> 0;
            };
        }

        private static void requireNoDirect(FileOptions o, Path path) throws IOException {
            if (o.direct() == FileOptions.Direct.REQUIRE) {
                throw new IOException("O_DIRECT for " + path + " needs the native core, which is not loaded: "
                        + NativeLibrary.failure().map(Throwable::getMessage).orElse("unknown reason"));
            }
        }

        boolean direct();

        void write(long offset, MemorySegment data) throws IOException;

        long read(long offset, MemorySegment dst) throws IOException;

        void advise(long offset, long length, int advice) throws IOException;

        void sync() throws IOException;

        void close() throws IOException;
    }

    private record NativeIo(NativeFile file) implements IoFile {
        @Override
        public boolean direct() {
            return file.isDirect();
        }

        @Override
        public void write(long offset, MemorySegment data) throws IOException {
            file.write(offset, data);
        }

        @Override
        public long read(long offset, MemorySegment dst) throws IOException {
            return file.read(offset, dst);
        }

        @Override
        public void advise(long offset, long length, int advice) throws IOException {
            file.fadvise(offset, length, advice);
        }

        @Override
        public void sync() throws IOException {
            file.sync();
        }

        @Override
        public void close() {
            file.close();
        }
    }

    private record ChannelIo(FileChannel ch) implements IoFile {
        @Override
        public boolean direct() {
            return false;
        }

        @Override
        public void write(long offset, MemorySegment data) throws IOException {
            var bb = data.asByteBuffer();
            long pos = offset;
            while (bb.hasRemaining()) {
                pos += ch.write(bb, pos);
            }
        }

        @Override
        public long read(long offset, MemorySegment dst) throws IOException {
            var bb = dst.asByteBuffer();
            long pos = offset;
            while (bb.hasRemaining()) {
                int n = ch.read(bb, pos);
                if (n < 0) {
                    break;
                }
                pos += n;
            }
            return pos - offset;
        }

        @Override
        public void advise(long offset, long length, int advice) {
            // FileChannel has no fadvise; pure-Java mode runs without it.
        }

        @Override
        public void sync() throws IOException {
            ch.force(true);
        }

        @Override
        public void close() throws IOException {
            ch.close();
        }
    }

    /** Writes to a temporary file; commit() runs the commit protocol of docs/CHECKPOINTS.md. */
    private static final class FileWriter implements StorageWriter {
        private final Path target;
        private final Path temp;
        private final IoFile io;
        private final FileOptions options;
        private final Map<String, Object> metadata;
        private final TargetLock lock;
        /** The sidecar entry describing the checkpoint now at the target, if there is one. */
        private final Optional<Sidecar.Entry> previous;
        private volatile boolean done;
        private boolean sidecarPlaced;
        /** What is under the target's name now, for a failure's message. */
        private volatile String state;

        FileWriter(Path target, Path temp, IoFile io, FileOptions options, Map<String, Object> metadata,
                   TargetLock lock, boolean targetExisted) throws IOException {
            this.target = target;
            this.temp = temp;
            this.io = io;
            this.options = options;
            this.metadata = metadata;
            this.lock = lock;
            this.previous = describedEntry(target, Sidecar.of(target));
            this.state = previous.isPresent() ? "the previous checkpoint at " + target + " is intact"
                    : targetExisted ? target + " is as it was before the save" : "nothing was left at " + target;
            if (!io.direct() && options.fadvise() == FileOptions.Fadvise.SEQUENTIAL) {
                io.advise(0, 0, FileOptions.Fadvise.SEQUENTIAL.advice);
            }
        }

        @Override
        public void write(long offset, MemorySegment data) throws IOException {
            if (done) {
                throw new IllegalStateException("writer for " + target + " is already committed or aborted");
            }
            io.write(offset, data);
            if (!io.direct() && options.fadvise() == FileOptions.Fadvise.DONTNEED) {
                io.advise(offset, data.byteSize(), FileOptions.Fadvise.DONTNEED.advice);
            }
        }

        @Override
        public void commit() throws IOException {
            if (done) {
                throw new IllegalStateException("writer for " + target + " is already committed or aborted");
            }
            try {
                commitSteps();
            } finally {
                lock.close();
            }
        }

        private void commitSteps() throws IOException {
            Path dir = target.getParent();
            Path sidecar = Sidecar.of(target);
            boolean dataPlaced = false;
            try {
                if (options.fsync()) {
                    step(CommitStep.DATA_FSYNC);
                    io.sync();
                }
                io.close();
                Sidecar.Entry next = new Sidecar.Entry(metadata, inodeOf(temp), Files.size(temp));
                // 1. A pending sidecar that describes both the old data (still in place) and the new.
                writeSidecar(sidecar, Sidecar.write(next, true, previous), CommitStep.SIDECAR_WRITE,
                        CommitStep.SIDECAR_FSYNC, CommitStep.SIDECAR_RENAME, CommitStep.SIDECAR_DIR_FSYNC);
                // 2. The data: from here on the new checkpoint is what readers see.
                step(CommitStep.DATA_RENAME);
                // a device, FIFO or link put under the name during the save is not replaced either
                refuseSpecialTarget(target);
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
                dataPlaced = true;
                state = "the new checkpoint is in place at " + target + ", but it may not survive a power loss "
                        + "(the directory was not synced)";
                if (options.fsync()) {
                    step(CommitStep.DATA_DIR_FSYNC);
                    syncDirectory(dir);
                }
                state = "the new checkpoint is in place at " + target;
                done = true;
            } catch (IOException | RuntimeException | Error e) {
                if (!dataPlaced) {
                    if (sidecarPlaced && previous.isEmpty()) {
                        // It describes only data that will never arrive: without it, the target
                        // is as it was (no checkpoint, or a file that was not one).
                        removeQuietly(sidecar);
                    }
                    abort();
                }
                throw e;
            }
            // 3. The sidecar without the old entry. The pair is already complete and durable; a
            // failure here leaves the pending sidecar, which readers resolve by inode.
            try {
                writeSidecar(sidecar, Sidecar.write(new Sidecar.Entry(metadata, inodeOf(target), Files.size(target)),
                        false, Optional.empty()), CommitStep.FINAL_WRITE, CommitStep.FINAL_FSYNC,
                        CommitStep.FINAL_RENAME, CommitStep.FINAL_DIR_FSYNC);
            } catch (IOException | RuntimeException e) {
                // Harmless (readers pick the entry by inode), and expected when an interrupt (Ctrl-C of
                // a dlio run) closes the channel: said at debug level then, not on the console.
                boolean interrupted = e instanceof java.nio.channels.ClosedByInterruptException
                        || e instanceof java.io.InterruptedIOException || Thread.currentThread().isInterrupted();
                if (interrupted) {
                    LOG.debug("{} is complete, but its manifest still lists the previous checkpoint too (interrupted)",
                            target);
                } else {
                    LOG.warn("{} is complete, but its manifest still lists the previous checkpoint too: {}",
                            target, e.toString());
                }
            }
        }

        /** The entry of the current sidecar that describes the file now at {@code target}, with its identity. */
        private static Optional<Sidecar.Entry> describedEntry(Path target, Path sidecar) {
            try {
                OptionalLong inode = inodeOf(target);
                long size = Files.size(target);
                return Sidecar.read(sidecar).flatMap(d -> d.describing(inode, size))
                        .map(e -> new Sidecar.Entry(e.metadata(), inode, size));
            } catch (IOException | RuntimeException e) {
                // No file, or no readable sidecar: there is no previous checkpoint to keep describing.
                return Optional.empty();
            }
        }

        /** Writes, fsyncs and renames a sidecar into place, then fsyncs the directory. */
        private void writeSidecar(Path sidecar, byte[] json, CommitStep write, CommitStep sync, CommitStep rename,
                                  CommitStep dirSync) throws IOException {
            Path tmp = tempName(sidecar);
            try {
                step(write);
                try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                    ByteBuffer bb = ByteBuffer.wrap(json);
                    while (bb.hasRemaining()) {
                        ch.write(bb);
                    }
                    if (options.fsync()) {
                        step(sync);
                        ch.force(true);
                    }
                }
                step(rename);
                Files.move(tmp, sidecar, StandardCopyOption.ATOMIC_MOVE);
                sidecarPlaced = true;
            } catch (IOException | RuntimeException | Error e) {
                removeQuietly(tmp);
                throw e;
            }
            if (options.fsync()) {
                step(dirSync);
                syncDirectory(sidecar.getParent());
            }
        }

        private void step(CommitStep step) throws IOException {
            stepHook.before(step, target);
        }

        @Override
        public void abort() {
            if (!done) {
                done = true;
                try {
                    io.close();
                } catch (IOException | RuntimeException e) {
                    LOG.debug("closing {} after a failure: {}", temp, e.toString());
                }
                removeQuietly(temp);
            }
            lock.close();
        }

        @Override
        public String state() {
            return state;
        }

        @Override
        public boolean directIo() {
            return io.direct();
        }

        @Override
        public String description() {
            return String.format("file %s (%s%s%s)", target, io.direct() ? "O_DIRECT" : "buffered",
                    !io.direct() && options.fadvise() != FileOptions.Fadvise.NONE
                            ? ", fadvise " + options.fadvise().name().toLowerCase() : "",
                    options.fsync() ? ", fsync" : ", no fsync");
        }

        @Override
        public void close() {
            abort();
        }
    }

    private static void removeQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            LOG.warn("could not remove {}: {}", p, e.toString());
        }
    }

    private static void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /** What tells one file from another under a path: its file key (device and inode), size and modification time. */
    private record FileIdentity(Object key, long size, FileTime modified) {
        static FileIdentity of(Path p) throws IOException {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
            return new FileIdentity(a.fileKey(), a.size(), a.lastModifiedTime());
        }
    }

    /**
     * Reads through the descriptor it opened; after each read, looks at what the path names now: the
     * file opened, unchanged (the common case), or written in place (the read fails: the bytes may mix
     * two versions), or another file (a save renamed its checkpoint over it: the descriptor still reads
     * the complete old one, and a warning says so once).
     */
    private record FileReader(Path path, IoFile io, long size, Map<String, Object> metadata, FileIdentity opened,
                              AtomicBoolean replaced) implements StorageReader {
        @Override
        public long read(long offset, MemorySegment dst) throws IOException {
            long n = io.read(offset, dst);
            checkSameFile();
            return n;
        }

        private void checkSameFile() throws IOException {
            FileIdentity now;
            try {
                now = FileIdentity.of(path);
            } catch (NoSuchFileException e) {
                now = null;
            }
            if (now == null || opened.key() == null || !opened.key().equals(now.key())) {
                if (opened.key() != null && replaced.compareAndSet(false, true)) {
                    LOG.warn("{} was {} during this load: the load goes on reading the checkpoint it opened, whole and "
                            + "unmixed", path, now == null ? "removed" : "replaced");
                }
                return;
            }
            if (now.size() != opened.size() || !now.modified().equals(opened.modified())) {
                throw new IOException(String.format("%s changed during the load: it was written in place while being "
                        + "read (size %d, modified %s when opened; size %d, modified %s now): the bytes read may mix "
                        + "two versions", path, opened.size(), opened.modified(), now.size(), now.modified()));
            }
        }

        @Override
        public boolean directIo() {
            return io.direct();
        }

        @Override
        public boolean deviceDma() {
            return io.direct() && !inMemory(path);
        }

        @Override
        public boolean memoryCopy() {
            return !deviceDma();
        }

        /** Whether {@code path} lies on a memory filesystem (tmpfs, ramfs), whose reads are CPU copies. */
        private static boolean inMemory(Path path) {
            try {
                String type = Files.getFileStore(path).type();
                return type.equals("tmpfs") || type.equals("ramfs");
            } catch (IOException | RuntimeException e) {
                return false; // unknown: whole chunks, as a plain load reads
            }
        }

        @Override
        public String description() {
            return String.format("file %s (%s)", path, io.direct() ? "O_DIRECT" : "buffered");
        }

        @Override
        public void close() {
            try {
                io.close();
            } catch (IOException e) {
                LOG.debug("closing {}: {}", path, e.toString());
            }
        }
    }
}
