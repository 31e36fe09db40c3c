package io.dgen4j.gen;

import io.dgen4j.ffi.dgen4j_h;
import io.dgen4j.nativelib.NativeLibrary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * What the generator will run on: native core or twin, CPU features and the kernel chosen,
 * usable CPUs, MPI ranks on this host, NUMA nodes and the pinning plan of a default generator.
 *
 * @param implementation {@code "native"}, or the twin's {@code "java-vector"} or {@code "java-scalar"}
 * @param nativeSource   where the native core was loaded from, when it was
 * @param nativeFailure  why the native core is not used, when it is not
 * @param cpuFeatures    CPU features the native core can use (empty for the twin)
 * @param usableCpus     CPUs this process may run on (its affinity mask)
 * @param numaNodes      NUMA nodes with their CPUs, from sysfs (one node 0 when sysfs has none)
 * @param dispatch       the generation kernel and why ({@link Numa#dispatch()})
 * @param localRanks     MPI ranks on this host ({@link Numa#localRanks(Map)} of the environment given)
 * @param defaultThreads the default thread count ({@link Numa#defaultThreads(Map)} of the environment given)
 * @param plan           the pinning plan of a default native generator (empty for the twin)
 * @param twin           the pure-Java twin this JVM runs ({@code "java-vector"} or {@code "java-scalar"})
 * @param twinDetail     why: the Vector API and its vector size, or why it is not used
 */
public record SystemInfo(String implementation, Optional<String> nativeSource, Optional<String> nativeFailure,
                         List<String> cpuFeatures, int usableCpus, List<NumaNode> numaNodes,
                         String dispatch, int localRanks, int defaultThreads, Optional<Numa.Plan> plan,
                         String twin, String twinDetail) {

    /**
     * A NUMA node.
     *
     * @param id        node id
     * @param cpus      its online CPUs
     * @param distances distances to the nodes in the order listed (empty when unknown)
     * @param memoryKib its memory in KiB, when known
     */
    public record NumaNode(int id, List<Integer> cpus, List<Integer> distances, OptionalLong memoryKib) {}

    /** {@link #current(Map)} with this process's own environment variables. */
    public static SystemInfo current() {
        return current(System.getenv());
    }

    /**
     * Reads this process's view; the ranks on this host (and so the default thread count) are those the
     * launcher's variables in {@code env} say.
     */
    public static SystemInfo current(Map<String, String> env) {
        boolean nat = NativeLibrary.isAvailable();
        List<String> features = List.of();
        int cpus = Runtime.getRuntime().availableProcessors();
        if (nat) {
            try (Arena arena = Arena.ofConfined()) {
                long len = dgen4j_h.dgen4j_cpu_features(MemorySegment.NULL, 0);
                MemorySegment buf = arena.allocate(len + 1);
                dgen4j_h.dgen4j_cpu_features(buf, len + 1);
                String s = buf.getString(0).trim();
                features = s.isEmpty() ? List.of() : List.of(s.split("\\s+"));
            }
            cpus = dgen4j_h.dgen4j_affinity_cpus();
        }
        List<NumaNode> nodes = nat
                ? Numa.topology().stream().map(n -> new NumaNode(n.id(), n.cpus(), n.distances(), n.memoryKib())).toList()
                : numaNodes(Path.of("/sys/devices/system/node"));
        Optional<Numa.Plan> plan = nat ? Optional.of(Numa.plan(0, Numa.Mode.AUTO, OptionalInt.empty())) : Optional.empty();
        String twin = JavaGenerator.defaultImplementation();
        return new SystemInfo(nat ? "native" : twin, NativeLibrary.source(),
                NativeLibrary.failure().map(Throwable::getMessage), features, cpus, nodes,
                Numa.dispatch(), Numa.localRanks(env), Numa.defaultThreads(env), plan, twin, JavaGenerator.vectorStatus());
    }

    /** The CPU's model name from {@code /proc/cpuinfo}, or {@code unknown CPU} (not Linux). */
    public static String cpuModel() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
            return lines.filter(l -> l.startsWith("model name")).map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst().orElse("unknown CPU");
        } catch (IOException | UncheckedIOException e) {
            return "unknown CPU";
        }
    }

    /**
     * The NUMA nodes under a sysfs node directory ({@code /sys/devices/system/node}), read in Java:
     * the twin's view when the native core is not loaded (the native core reads the same files,
     * see {@link Numa#topology(Path)}).
     */
    public static List<NumaNode> numaNodes(Path sysfsNodeDir) {
        List<NumaNode> nodes = new ArrayList<>();
        if (Files.isDirectory(sysfsNodeDir)) {
            try (Stream<Path> dirs = Files.list(sysfsNodeDir)) {
                for (Path d : dirs.sorted().toList()) {
                    String name = d.getFileName().toString();
                    if (name.matches("node\\d+") && Files.isRegularFile(d.resolve("cpulist"))) {
                        nodes.add(new NumaNode(Integer.parseInt(name.substring(4)),
                                parseCpuList(Files.readString(d.resolve("cpulist"))), List.of(), OptionalLong.empty()));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read NUMA topology under " + sysfsNodeDir, e);
            }
        }
        if (nodes.isEmpty()) {
            List<Integer> all = new ArrayList<>();
            for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) {
                all.add(i);
            }
            nodes.add(new NumaNode(0, all, List.of(), OptionalLong.empty()));
        }
        nodes.sort((a, b) -> Integer.compare(a.id(), b.id()));
        return List.copyOf(nodes);
    }

    /** Parses a Linux CPU list such as {@code 0-3,8,10-11}. */
    public static List<Integer> parseCpuList(String list) {
        List<Integer> cpus = new ArrayList<>();
        for (String part : list.trim().split(",")) {
            if (part.isBlank()) {
                continue;
            }
            int dash = part.indexOf('-');
            if (dash < 0) {
                cpus.add(Integer.parseInt(part.trim()));
            } else {
                int from = Integer.parseInt(part.substring(0, dash).trim());
                int to = Integer.parseInt(part.substring(dash + 1).trim());
                for (int c = from; c <= to; c++) {
                    cpus.add(c);
                }
            }
        }
        return List.copyOf(cpus);
    }
}
