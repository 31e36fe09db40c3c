package io.dgen4j.cli.option;

import io.dgen4j.cli.report.Reports;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Upper bounds of the CLI's counts and of the memory a command may plan to use, checked before
 * anything is allocated or written (docs/CHECKPOINTS.md, "Targets and limits"). The library takes larger values; these
 * are the sane ones for a command line, where a typo ({@code --buffers 100000}) must fail at once
 * with one line rather than after minutes of swapping.
 */
public final class Limits {
    /** Most writes (save) or reads (load) in flight. */
    static final int MAX_IN_FLIGHT = 256;
    /** Most buffers in a pool. */
    static final int MAX_BUFFERS = 1024;
    /** Most generator threads. */
    static final int MAX_THREADS = 1024;
    /** Largest chunk: 2 GiB (one positional write or read). */
    static final long MAX_CHUNK = 1L << 31;
    /** Share of MemAvailable a command may plan to hold: the rest stays for the page cache and the JVM. */
    static final double MEMORY_SHARE = 0.8;

    private Limits() {}

    /** {@code value} of option {@code name} in [{@code min}, {@code max}]. */
    public static int count(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(String.format("%s must be in [%d, %d], got %d", name, min, max, value));
        }
        return value;
    }

    /** Generator threads: 0 (= the CPUs this process may use) to {@link #MAX_THREADS}. */
    public static int threads(int value) {
        return count("--threads", value, 0, MAX_THREADS);
    }

    /** A chunk of (0, 2 GiB]; multiples of 4 KiB are checked where O_DIRECT needs them. */
    public static long chunk(long value) {
        if (value <= 0 || value > MAX_CHUNK) {
            throw new IllegalArgumentException("--chunk must be in (0, 2GiB], got " + value);
        }
        return value;
    }

    /**
     * Refuses a plan that needs more than {@link #MEMORY_SHARE} of the memory available now
     * ({@code MemAvailable} of /proc/meminfo; not checked where that cannot be read).
     *
     * @param what what needs it and why, e.g. "the pool (--buffers 4 x --chunk 1GiB)"
     * @param hint what to change, e.g. "use a smaller --chunk or fewer --buffers"
     */
    public static void memory(long bytes, String what, String hint) {
        OptionalLong available = memAvailable();
        if (available.isPresent() && bytes > available.getAsLong() * MEMORY_SHARE) {
            throw new IllegalArgumentException(String.format("%s needs %s of memory but only %s is available "
                    + "(MemAvailable; at most %.0f %% of it is used): %s", what, Reports.mib(bytes),
                    Reports.mib(available.getAsLong()), MEMORY_SHARE * 100, hint));
        }
    }

    /**
     * Bytes an unprivileged writer may still write on the filesystem of {@code path}, or of its nearest
     * existing parent (a folder a run will create); empty where that cannot be read.
     */
    public static OptionalLong freeSpace(Path path) {
        Path p = path.toAbsolutePath().normalize();
        while (p != null && !Files.exists(p)) {
            p = p.getParent();
        }
        try {
            return p == null ? OptionalLong.empty() : OptionalLong.of(Files.getFileStore(p).getUsableSpace());
        } catch (IOException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * A one-line note when a save of {@code bytes} to the local file {@code target} does not fit in its filesystem's
     * free space: a save over an existing file writes the new one beside it and renames it over the old one at the
     * end, so both copies are there until then. Empty when it fits, or when the free space cannot be read. A note,
     * not a refusal: where the filesystem reserves space (fallocate: ext4, xfs, tmpfs) the save fails at once anyway,
     * and where it does not (ZFS, NFS) compression or deduplication may make the data fit.
     */
    public static java.util.Optional<String> saveRoom(Path target, long bytes) {
        OptionalLong free = freeSpace(target.toAbsolutePath().normalize().getParent());
        if (free.isEmpty() || bytes <= free.getAsLong()) {
            return java.util.Optional.empty();
        }
        long old;
        try {
            old = Files.isRegularFile(target) ? Files.size(target) : 0;
        } catch (IOException e) {
            old = 0;
        }
        String f = io.dgen4j.unit.ByteSize.approx(free.getAsLong());
        return java.util.Optional.of(old > 0
                ? String.format("note: this save writes %s beside the %s of %s it replaces (renamed over it at the end),"
                        + " but %s is free there: delete the old file first or free space", io.dgen4j.unit.ByteSize.approx(bytes),
                        io.dgen4j.unit.ByteSize.approx(old), target, f)
                : String.format("note: this save writes %s to %s but %s is free there: free space first",
                        io.dgen4j.unit.ByteSize.approx(bytes), target, f));
    }

    /** MemAvailable of /proc/meminfo, in bytes, when readable. */
    static OptionalLong memAvailable() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemAvailable:")) {
                    return OptionalLong.of(Long.parseLong(line.replaceAll("\\D+", "")) * 1024);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return OptionalLong.empty();
        }
        return OptionalLong.empty();
    }
}
