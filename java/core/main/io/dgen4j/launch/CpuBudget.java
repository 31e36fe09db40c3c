package io.dgen4j.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;

/**
 * How many generator threads one rank should run: the CPUs this process may use, shared with the other
 * ranks on this host unless the launcher already gave each rank its own CPUs.
 *
 * <p>The rule ({@link #threads(int, int, int)}): when this process's affinity mask is smaller than the
 * CPUs of its machine (or container), a launcher bound it ({@code mpirun --bind-to core}, {@code srun
 * --cpu-bind}) and the mask is its share as is; when the mask covers them all, the ranks on this host
 * share it and each takes {@code mask / localSize}, at least 1. Dividing a bound mask again would leave
 * CPUs idle.
 */
public final class CpuBudget {
    private CpuBudget() {}

    /**
     * Generator threads for a rank.
     *
     * @param usable    CPUs in this process's affinity mask
     * @param available CPUs of the machine or container (its cpuset), at least {@code usable}
     * @param localSize ranks on this host
     * @throws IllegalArgumentException when a count is below 1
     */
    public static int threads(int usable, int available, int localSize) {
        if (usable < 1 || available < 1 || localSize < 1) {
            throw new IllegalArgumentException(String.format("CPU counts must be >= 1: %d usable, %d available, "
                    + "%d local ranks", usable, available, localSize));
        }
        return bound(usable, available) ? usable : Math.max(1, usable / localSize);
    }

    /** Whether a mask of {@code usable} CPUs out of {@code available} means the launcher bound this rank. */
    public static boolean bound(int usable, int available) {
        return usable < available;
    }

    /** {@link #threads(int, int, int)} for this process under {@code launch}. */
    public static int threadsFor(LaunchInfo launch) {
        int usable = usableCpus();
        return threads(usable, Math.max(usable, availableCpus()), launch.localSize());
    }

    /** One line saying how {@link #threadsFor} decided, e.g. {@code "2 of 8 CPUs (bound by the launcher)"}. */
    public static String explain(LaunchInfo launch) {
        int usable = usableCpus();
        int available = Math.max(usable, availableCpus());
        int t = threads(usable, available, launch.localSize());
        return bound(usable, available)
                ? String.format("%d thread(s): this rank's %d of %d CPUs (bound by the launcher)", t, usable, available)
                : String.format("%d thread(s): %d CPUs shared by %d local rank(s)", t, usable, launch.localSize());
    }

    /** CPUs in this process's affinity mask ({@code Cpus_allowed_list} of {@code /proc/self/status}). */
    public static int usableCpus() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    return count(line.substring(line.indexOf(':') + 1));
                }
            }
        } catch (IOException | IllegalArgumentException e) {
            // not Linux, or an unreadable /proc: the JVM's figure (which honours the mask where it can)
        }
        return Runtime.getRuntime().availableProcessors();
    }

    /**
     * CPUs of this machine or container: the cgroup's effective cpuset (v2, then v1), else the online
     * CPUs, else {@link #usableCpus()}.
     */
    public static int availableCpus() {
        for (String f : List.of("/sys/fs/cgroup/cpuset.cpus.effective", "/sys/fs/cgroup/cpuset/cpuset.effective_cpus",
                "/sys/devices/system/cpu/online")) {
            OptionalInt n = countFile(Path.of(f));
            if (n.isPresent()) {
                return n.getAsInt();
            }
        }
        return usableCpus();
    }

    private static OptionalInt countFile(Path p) {
        try {
            String s = Files.readString(p).strip();
            return s.isEmpty() ? OptionalInt.empty() : OptionalInt.of(count(s));
        } catch (IOException | IllegalArgumentException e) {
            return OptionalInt.empty();
        }
    }

    /**
     * The CPUs in a Linux CPU list such as {@code "0-3,8,10-11"}.
     *
     * @throws IllegalArgumentException when the list is malformed or empty
     */
    public static int count(String list) {
        String s = list.strip();
        if (s.isEmpty()) {
            throw new IllegalArgumentException("an empty CPU list");
        }
        int n = 0;
        for (String part : s.split(",")) {
            String p = part.strip();
            try {
                int dash = p.indexOf('-');
                if (dash < 0) {
                    Integer.parseInt(p);
                    n++;
                } else {
                    int lo = Integer.parseInt(p.substring(0, dash));
                    int hi = Integer.parseInt(p.substring(dash + 1));
                    if (hi < lo || lo < 0) {
                        throw new IllegalArgumentException(String.format("CPU range '%s' in '%s' runs backwards", p, s));
                    }
                    n += hi - lo + 1;
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(String.format("'%s' in the CPU list '%s' is not a CPU or range", p, s), e);
            }
        }
        return n;
    }
}
