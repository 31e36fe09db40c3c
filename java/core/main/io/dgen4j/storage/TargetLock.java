package io.dgen4j.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one-writer-per-target lock: {@code .<name>.dgen4j.lock} beside the target, held with an
 * fcntl lock for the whole save (so the kernel releases it when the owner dies, kill -9
 * included) and removed by its owner on release. The file holds the owner's pid.
 *
 * <p>Two traps of fcntl locks are avoided: closing <em>any</em> descriptor of the file releases
 * the process's lock, so the owner never opens it again and other threads of this process learn
 * that it is held from a process-wide table instead of opening it; and a file locked just after
 * its previous owner removed it is detected by comparing inodes (a file we hold open keeps its
 * inode number, so a new file under the name cannot have it).
 */
final class TargetLock implements AutoCloseable {
    private static final String SUFFIX = ".dgen4j.lock";
    private static final int ATTEMPTS = 8;
    /** The locks this process holds, by lock-file path. */
    private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

    private final Path path;
    private final FileChannel channel;
    private final FileLock lock;
    private boolean closed;

    private TargetLock(Path path, FileChannel channel, FileLock lock) {
        this.path = path;
        this.channel = channel;
        this.lock = lock;
    }

    /** The lock file of {@code target}. */
    static Path pathOf(Path target) {
        return target.resolveSibling("." + target.getFileName() + SUFFIX);
    }

    /** Whether {@code name} is a lock file's name. */
    static boolean isLockName(String name) {
        return name.startsWith(".") && name.endsWith(SUFFIX);
    }

    /**
     * Takes the lock of {@code target} or fails at once, naming the save that holds it.
     *
     * @throws TargetBusyException when another save (process or thread) holds it
     */
    static TargetLock acquire(Path target) throws IOException {
        Optional<TargetLock> lock = tryAcquire(target);
        if (lock.isPresent()) {
            return lock.get();
        }
        Path path = pathOf(target);
        throw new TargetBusyException(target, HELD.contains(path) ? Optional.of(ProcessHandle.current().pid())
                : owner(path));
    }

    /** Takes the lock of {@code target} if no save holds it. */
    static Optional<TargetLock> tryAcquire(Path target) throws IOException {
        Path path = pathOf(target);
        if (!HELD.add(path)) {
            return Optional.empty(); // a save in this process holds it
        }
        try {
            for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
                OptionalLong before = inode(path);
                FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                        StandardOpenOption.WRITE);
                try {
                    OptionalLong opened = inode(path);
                    if (before.isPresent() && before.equals(opened)) {
                        // The name held this inode before and after our open: it is the file we opened.
                        FileLock lock = ch.tryLock();
                        if (lock == null) {
                            ch.close();
                            HELD.remove(path);
                            return Optional.empty();
                        }
                        if (inode(path).equals(opened)) {
                            ch.truncate(0);
                            ch.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n")
                                    .getBytes(StandardCharsets.US_ASCII)), 0);
                            return Optional.of(new TargetLock(path, ch, lock));
                        }
                        // Its previous owner removed it between our open and our lock: start over.
                    }
                } catch (IOException | RuntimeException e) {
                    ch.close();
                    throw e;
                }
                ch.close();
            }
            throw new IOException("could not take the lock " + path + ": it was replaced " + ATTEMPTS + " times in a row");
        } catch (IOException | RuntimeException e) {
            HELD.remove(path);
            throw e;
        }
    }

    private static OptionalLong inode(Path p) throws IOException {
        try {
            return FileStorage.inodeOf(p);
        } catch (NoSuchFileException e) {
            return OptionalLong.empty();
        }
    }

    /** The pid recorded in a lock file held by another process, if any. */
    private static Optional<Long> owner(Path lockFile) {
        String text = read(lockFile).trim();
        try {
            return text.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(text));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static String read(Path path) {
        try {
            byte[] b = Files.readAllBytes(path);
            return b.length > 256 ? "" : new String(b, StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
            return "";
        } catch (IOException e) {
            return "";
        }
    }

    /** Removes the lock file and releases the lock; idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return; // a second removal could delete the next owner's lock file
        }
        closed = true;
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            // Left behind, the file is harmless: the next owner locks it again.
        }
        try {
            lock.release();
            channel.close();
        } catch (IOException e) {
            // Closing the descriptor releases the lock anyway.
        } finally {
            HELD.remove(path);
        }
    }
}
