package io.dgen4j.gen;

import io.dgen4j.ffi.dgen4j_h;
import io.dgen4j.nativelib.NativeCallException;
import io.dgen4j.nativelib.NativeLibrary;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.BiFunction;

/**
 * NUMA placement, as the native core sees it: the topology (from {@code /sys/devices/system/node}),
 * the pinning plan of a generator's workers, the MPI-aware default thread count and the
 * generation kernel chosen for this CPU.
 *
 * <p>A generator in mode {@link Mode#AUTO} (the default) pins its workers to their nodes' CPUs
 * when the run spans several nodes or is bound to one node; a fill of a buffer from
 * {@link NodeBuffers} then runs on the workers of the buffer's node.
 *
 * {@snippet :
 * for (Numa.Node n : Numa.topology()) {
 *     System.out.println("node " + n.id() + " cpus " + n.cpus());
 * }
 * Numa.Plan plan = Numa.plan(0, Numa.Mode.AUTO, OptionalInt.empty());
 * System.out.println(plan.pinned() ? "pinned" : "not pinned");   // one node: not pinned
 * }
 *
 * <p>Without the native core (the pure-Java twin), the topology is read by {@link SystemInfo}
 * and nothing is pinned.
 */
public final class Numa {
    private Numa() {}

    /** When a generator pins its workers. */
    public enum Mode {
        /** Pin when the run spans several nodes or is bound to one (default). */
        AUTO(0),
        /** Pin even on a single-node machine. */
        FORCE(1),
        /** Never pin. */
        OFF(2);

        private final int code;

        Mode(int code) {
            this.code = code;
        }

        /** The {@code DGEN4J_NUMA_*} code. */
        public int code() {
            return code;
        }
    }

    /**
     * A NUMA node.
     *
     * @param id        the node id
     * @param cpus      its online CPUs
     * @param distances distances to the nodes of the topology, in their order (empty when unknown)
     * @param memoryKib its memory in KiB, when known
     */
    public record Node(int id, List<Integer> cpus, List<Integer> distances, OptionalLong memoryKib) {}

    /**
     * The workers of one node in a plan.
     *
     * @param node    the node ({@code empty} for unpinned workers)
     * @param threads how many threads
     * @param cpus    the CPUs they are pinned to (empty when unpinned)
     */
    public record Group(OptionalInt node, int threads, List<Integer> cpus) {}

    /**
     * Where a generator's threads run.
     *
     * @param pinned  whether workers are pinned to their nodes
     * @param mode    the mode asked for
     * @param threads total threads
     * @param groups  per node (one unpinned group when not pinned)
     */
    public record Plan(boolean pinned, Mode mode, int threads, List<Group> groups) {}

    /** The topology of this machine. */
    public static List<Node> topology() {
        return topology(null);
    }

    /**
     * The topology read from a sysfs tree ({@code null}: this machine's {@code /sys}); a tree
     * without a {@code devices/system/node} directory is one node 0 of the online CPUs.
     */
    public static List<Node> topology(Path sysfsRoot) {
        NativeLibrary.ensureLoaded();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment root = sysfsRoot == null ? MemorySegment.NULL : arena.allocateFrom(sysfsRoot.toString());
            return parseTopology(text((buf, cap) -> dgen4j_h.dgen4j_numa_topology(root, buf, cap)));
        }
    }

    /** The plan of a generator with {@code threads} threads (0 = default) on this machine. */
    public static Plan plan(int threads, Mode mode, OptionalInt node) {
        return plan(null, null, threads, mode, node);
    }

    /**
     * The plan on the topology of {@code sysfsRoot} ({@code null}: this machine) within the CPUs
     * of {@code affinity} (a list such as {@code "0-3,8"}; {@code null}: this process's mask).
     *
     * @throws IllegalArgumentException when the node does not exist or has no usable CPU
     */
    public static Plan plan(Path sysfsRoot, String affinity, int threads, Mode mode, OptionalInt node) {
        NativeLibrary.ensureLoaded();
        if (threads < 0) {
            throw new IllegalArgumentException("threads must be >= 0 (0 = default), got " + threads);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment root = sysfsRoot == null ? MemorySegment.NULL : arena.allocateFrom(sysfsRoot.toString());
            MemorySegment aff = affinity == null ? MemorySegment.NULL : arena.allocateFrom(affinity);
            MemorySegment len = arena.allocate(ValueLayout.JAVA_LONG);
            int n = node.orElse(-1);
            int rc = dgen4j_h.dgen4j_numa_plan(root, aff, threads, mode.code(), n, MemorySegment.NULL, 0, len);
            NativeCallException.check(rc, "dgen4j_numa_plan");
            MemorySegment buf = arena.allocate(len.get(ValueLayout.JAVA_LONG, 0) + 1);
            rc = dgen4j_h.dgen4j_numa_plan(root, aff, threads, mode.code(), n, buf, buf.byteSize(), len);
            NativeCallException.check(rc, "dgen4j_numa_plan");
            return parsePlan(buf.getString(0));
        }
    }

    /** The launchers' variables of the ranks on one host, in the order they are read. */
    private static final List<String> LOCAL_RANK_VARIABLES =
            List.of("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "MV2_COMM_WORLD_LOCAL_SIZE");

    /**
     * MPI ranks on this host as the variables of {@code env} say: the first of
     * {@code OMPI_COMM_WORLD_LOCAL_SIZE}, {@code MPI_LOCALNRANKS}, {@code MV2_COMM_WORLD_LOCAL_SIZE} that is
     * a positive count, else 1 (the native core's rule).
     */
    public static int localRanks(Map<String, String> env) {
        for (String v : LOCAL_RANK_VARIABLES) {
            String s = env.get(v);
            if (s != null) {
                try {
                    int n = Integer.parseInt(s.trim());
                    if (n > 0) {
                        return n;
                    }
                } catch (NumberFormatException e) {
                    // not a count: try the next variable
                }
            }
        }
        return 1;
    }

    /** The default thread count {@code env} gives: CPUs this process may use / {@link #localRanks(Map)}, at least 1. */
    public static int defaultThreads(Map<String, String> env) {
        return Math.max(1, usableCpus() / localRanks(env));
    }

    /** CPUs this process may run on: its affinity mask (the twin: the JVM's available processors). */
    static int usableCpus() {
        return NativeLibrary.isAvailable() ? dgen4j_h.dgen4j_affinity_cpus() : Runtime.getRuntime().availableProcessors();
    }

    /**
     * {@link #localRanks(Map)} of this process's own environment, which the native core reads for a
     * generator of default threads: the default of generators and pipelines given no thread count.
     */
    public static int localRanks() {
        return NativeLibrary.isAvailable() ? dgen4j_h.dgen4j_local_ranks() : localRanks(System.getenv());
    }

    /** {@link #defaultThreads(Map)} of this process's own environment (see {@link #localRanks()}). */
    public static int defaultThreads() {
        return NativeLibrary.isAvailable() ? dgen4j_h.dgen4j_default_threads() : defaultThreads(System.getenv());
    }

    /** The native kernel in use and why, e.g. {@code "avx2 (cpu supports avx2)"}; {@code "java-vector (...)"} or {@code "java-scalar (...)"} for the twin. */
    public static String dispatch() {
        if (!NativeLibrary.isAvailable()) {
            return JavaGenerator.defaultImplementation() + " (pure-Java twin: " + JavaGenerator.vectorStatus() + ")";
        }
        return text(dgen4j_h::dgen4j_dispatch_level);
    }

    /** Copies a native string with the (buf, cap) -> full length convention. */
    static String text(BiFunction<MemorySegment, Long, Long> f) {
        long len = f.apply(MemorySegment.NULL, 0L);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(len + 1);
            f.apply(buf, len + 1);
            return buf.getString(0);
        }
    }

    static List<Node> parseTopology(String text) {
        List<Node> nodes = new ArrayList<>();
        for (String line : text.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length != 8 || !f[0].equals("node")) {
                continue;
            }
            nodes.add(new Node(Integer.parseInt(f[1]), list(f[3]),
                    f[5].equals("-") ? List.of() : ints(f[5]),
                    f[7].equals("-") ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(f[7]))));
        }
        return List.copyOf(nodes);
    }

    static Plan parsePlan(String text) {
        boolean pinned = false;
        Mode mode = Mode.AUTO;
        int threads = 0;
        List<Group> groups = new ArrayList<>();
        for (String line : text.split("\n")) {
            String[] f = line.trim().split("\\s+");
            switch (f[0]) {
                case "pinned" -> pinned = f[1].equals("yes");
                case "mode" -> mode = Mode.valueOf(f[1].toUpperCase(java.util.Locale.ROOT));
                case "threads" -> threads = Integer.parseInt(f[1]);
                case "group" -> groups.add(new Group(
                        f[2].equals("-") ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(f[2])),
                        Integer.parseInt(f[4]), list(f[6])));
                default -> { }
            }
        }
        return new Plan(pinned, mode, threads, List.copyOf(groups));
    }

    private static List<Integer> list(String s) {
        return s.equals("-") ? List.of() : SystemInfo.parseCpuList(s);
    }

    private static List<Integer> ints(String s) {
        List<Integer> out = new ArrayList<>();
        for (String p : s.split(",")) {
            out.add(Integer.parseInt(p.trim()));
        }
        return List.copyOf(out);
    }
}
