package io.dgen4j.storage;

import io.dgen4j.nativelib.NativeFile;
import io.dgen4j.nativelib.NativeLibrary;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local-file backend. Writes go to a temporary name in the target's directory and are renamed
 * into place by {@link StorageWriter#commit()} after fsync, so a failed or interrupted save never
 * leaves a file that looks complete. With the native core, I/O is O_DIRECT where the filesystem
 * allows it, straight from the caller's segments; without it (pure-Java mode), a FileChannel
 * writes the segments' ByteBuffer views, buffered.
 *
 * {@snippet :
 * try (StorageWriter w = FileStorage.openWriter(Path.of("/nvme/ckpt.bin"), FileOptions.defaults(), size)) {
 *     w.write(0, chunk);     // from any thread
 *     w.commit();            // fsync, rename into place
 * }
 * }
 */
public final class FileStorage {
    private static final Logger LOG = LoggerFactory.getLogger(FileStorage.class);

    private FileStorage() {}

    /** Opens a writer whose data appears at {@code target} on commit. */
    public static StorageWriter openWriter(Path target, FileOptions options, long expectedSize) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            throw new NoSuchFileException(String.valueOf(dir), null, "target directory does not exist");
        }
        if (Files.isDirectory(target)) {
            throw new IOException("target " + target + " is a directory");
        }
        Path temp = dir.resolve(String.format(".%s.dgen4j-%d-%08x.tmp", target.getFileName(),
                ProcessHandle.current().pid(), ThreadLocalRandom.current().nextInt()));
        IoFile io = IoFile.create(temp, options, expectedSize);
        return new FileWriter(target, temp, io, options);
    }

    /** Opens a reader of {@code path}. */
    public static StorageReader openReader(Path path, FileOptions options) throws IOException {
        if (!Files.isRegularFile(path)) {
            throw new NoSuchFileException(path.toString(), null, "no such checkpoint file");
        }
        long size = Files.size(path);
        return new FileReader(path, IoFile.open(path, options), size);
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

    private static final class FileWriter implements StorageWriter {
        private final Path target;
        private final Path temp;
        private final IoFile io;
        private final FileOptions options;
        private volatile boolean done;

        FileWriter(Path target, Path temp, IoFile io, FileOptions options) throws IOException {
            this.target = target;
            this.temp = temp;
            this.io = io;
            this.options = options;
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
                if (options.fsync()) {
                    io.sync();
                }
                io.close();
                try {
                    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
                }
                if (options.fsync()) {
                    syncDirectory(target.toAbsolutePath().getParent());
                }
                done = true;
            } catch (IOException | RuntimeException e) {
                abort();
                throw e;
            }
        }

        @Override
        public void abort() {
            done = true;
            try {
                io.close();
            } catch (IOException | RuntimeException e) {
                LOG.debug("closing {} after a failure: {}", temp, e.toString());
            }
            try {
                Files.deleteIfExists(temp);
            } catch (IOException e) {
                LOG.warn("could not remove the partial file {}: {}", temp, e.toString());
            }
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
            if (!done) {
                abort();
            }
        }
    }

    private static void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    private record FileReader(Path path, IoFile io, long size) implements StorageReader {
        @Override
        public long read(long offset, MemorySegment dst) throws IOException {
            return io.read(offset, dst);
        }

        @Override
        public boolean directIo() {
            return io.direct();
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
