package io.dgen4j.gen;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.nativelib.NativeLibrary;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * NUMA through the native core: fixture sysfs trees (1, 2 and 4 nodes, sparse CPU ids, offline
 * CPUs, a memory-only node), pinning plans, node-local buffers, pinned generators and the MPI
 * local-rank default thread count.
 */
class NumaTest {
    static Path fixtures;

    @BeforeAll
    static void load() {
        NativeLibrary.ensureLoaded();
        fixtures = Path.of(System.getProperty("dgen4j.test.root"), "native", "tests", "fixtures", "sysfs");
    }

    @Test
    void topologiesOfFixtureTrees() {
        List<Numa.Node> one = Numa.topology(fixtures.resolve("one-node"));
        assertEquals(List.of(new Numa.Node(0, List.of(0, 1), List.of(10), OptionalLong.of(24_610_776))), one);
        List<Numa.Node> two = Numa.topology(fixtures.resolve("two-nodes"));
        assertEquals(List.of(0, 1, 2, 3, 4, 5), two.get(0).cpus(), "offline CPUs 6 and 7 are left out");
        assertEquals(List.of(8, 9, 10, 11, 12, 13), two.get(1).cpus());
        assertEquals(List.of(21, 10), two.get(1).distances());
        List<Numa.Node> four = Numa.topology(fixtures.resolve("four-nodes"));
        assertEquals(List.of(0, 1, 4, 5), four.stream().map(Numa.Node::id).toList());
        assertEquals(List.of(128, 129, 130, 131), four.get(2).cpus());
        assertEquals(List.of(), four.get(3).cpus());
        assertEquals(OptionalLong.of(8_388_608), four.get(3).memoryKib());
        List<Numa.Node> none = Numa.topology(fixtures.resolve("no-numa"));
        assertEquals(List.of(new Numa.Node(0, List.of(0, 1, 2), List.of(10), OptionalLong.empty())), none);
        assertFalse(Numa.topology().isEmpty());
    }

    @Test
    void plansOnFixtureTrees() {
        Path four = fixtures.resolve("four-nodes");
        Numa.Plan p = Numa.plan(four, "0-3,64-67,128-131", 5, Numa.Mode.AUTO, OptionalInt.empty());
        assertTrue(p.pinned());
        assertEquals(5, p.threads());
        assertEquals(List.of(new Numa.Group(OptionalInt.of(0), 2, List.of(0, 1, 2, 3)),
                new Numa.Group(OptionalInt.of(1), 2, List.of(64, 65, 66, 67)),
                new Numa.Group(OptionalInt.of(4), 1, List.of(128, 129, 130, 131))), p.groups());
        Numa.Plan bound = Numa.plan(four, "0-3,64-67,128-131", 0, Numa.Mode.AUTO, OptionalInt.of(4));
        assertEquals(List.of(new Numa.Group(OptionalInt.of(4), 4, List.of(128, 129, 130, 131))), bound.groups());
        Numa.Plan off = Numa.plan(fixtures.resolve("two-nodes"), "0-13", 3, Numa.Mode.OFF, OptionalInt.empty());
        assertEquals(new Numa.Plan(false, Numa.Mode.OFF, 3, List.of(new Numa.Group(OptionalInt.empty(), 3, List.of()))), off);
        Numa.Plan one = Numa.plan(fixtures.resolve("one-node"), "0-1", 0, Numa.Mode.AUTO, OptionalInt.empty());
        assertFalse(one.pinned(), "a single node is not pinned in auto mode");
        assertTrue(Numa.plan(fixtures.resolve("one-node"), "0-1", 0, Numa.Mode.FORCE, OptionalInt.empty()).pinned());
        var e = assertThrows(IllegalArgumentException.class,
                () -> Numa.plan(four, "0-3", 0, Numa.Mode.AUTO, OptionalInt.of(5)));
        assertEquals("NUMA node 5 has no CPU this process may run on (node CPUs -, affinity 0-3)", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> Numa.plan(four, null, 0, Numa.Mode.AUTO, OptionalInt.of(3)));
        assertEquals("NUMA node 3 does not exist (nodes: 0-1,4-5)", e.getMessage());
    }

    @Test
    void nodeBuffersAreAlignedFilledAndFreedWithTheirArena() {
        int node = Numa.topology().get(0).id();
        DataSpec spec = DataSpec.builder().size(6L << 20).dedupRatio(2).compressRatio(3).seed(11).build();
        byte[] want = Streams.bytes(spec, Generator.Kind.JAVA, 1);
        MemorySegment kept;
        try (Arena arena = Arena.ofShared();
             NativeGenerator gen = new NativeGenerator(spec, 2, Numa.Mode.FORCE, node)) {
            assertTrue(gen.plan().pinned());
            assertEquals(2, gen.threads());
            MemorySegment buf = NodeBuffers.allocate(arena, spec.size(), node);
            assertEquals(0, buf.address() % NodeBuffers.ALIGNMENT);
            assertEquals(spec.size(), buf.byteSize());
            gen.fill(buf, 0);
            assertArrayEquals(want, buf.toArray(ValueLayout.JAVA_BYTE));
            MemorySegment unbound = NodeBuffers.allocate(arena, 5000);
            gen.fill(unbound, 100);
            assertArrayEquals(java.util.Arrays.copyOfRange(want, 100, 5100), unbound.toArray(ValueLayout.JAVA_BYTE));
            kept = buf;
        }
        assertFalse(kept.scope().isAlive());
        assertThrows(IllegalStateException.class, () -> kept.get(ValueLayout.JAVA_BYTE, 0));
        try (Arena arena = Arena.ofConfined()) {
            assertThrows(IllegalArgumentException.class, () -> NodeBuffers.allocate(arena, 0, -1));
            var e = assertThrows(IllegalArgumentException.class, () -> NodeBuffers.allocate(arena, 4096, 4000));
            assertTrue(e.getMessage().startsWith("NUMA node 4000 does not exist"), e.getMessage());
        }
        var e = assertThrows(IllegalArgumentException.class, () -> new NativeGenerator(spec, 1, Numa.Mode.AUTO, 4000));
        assertTrue(e.getMessage().startsWith("NUMA node 4000 does not exist"), e.getMessage());
    }

    @Test
    void theInRustTimingFillsTheSameBytes() {
        DataSpec spec = DataSpec.builder().size(1L << 20).seed(3).build();
        try (Arena arena = Arena.ofConfined(); NativeGenerator gen = new NativeGenerator(spec, 1)) {
            MemorySegment buf = arena.allocate(65536, 4096);
            long ns = gen.timeFillInNative(buf, 4096, 65536, 3);
            assertTrue(ns > 0);
            assertArrayEquals(java.util.Arrays.copyOfRange(Streams.bytes(spec, Generator.Kind.JAVA, 1), 4096, 4096 + 65536),
                    buf.toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void dispatchNamesAKernel() {
        String d = Numa.dispatch();
        assertTrue(d.matches("(scalar|avx2|avx512) \\(cpu supports .*"), d);
    }

    /** Runs a JVM that prints the local ranks and default threads, under the given environment. */
    static String[] probe(Map<String, String> env) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(RankProbe.class.getName());
        ProcessBuilder pb = new ProcessBuilder(cmd);
        for (String v : List.of("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "MV2_COMM_WORLD_LOCAL_SIZE",
                "OMPI_COMM_WORLD_SIZE", "PMI_SIZE")) {
            pb.environment().remove(v);
        }
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "probe JVM did not finish");
        assertEquals(0, p.exitValue(), err);
        return out.split(" ");
    }

    @Test
    void threadCountsHonourTheLocalRanksNeverTheWorldSize() throws Exception {
        int cpus = Integer.parseInt(probe(Map.of())[2]);
        assertEquals(List.of("1", String.valueOf(cpus), String.valueOf(cpus)), List.of(probe(Map.of())));
        String[] r = probe(Map.of("OMPI_COMM_WORLD_LOCAL_SIZE", "2", "OMPI_COMM_WORLD_SIZE", "64"));
        assertEquals(List.of("2", String.valueOf(Math.max(1, cpus / 2)), String.valueOf(cpus)), List.of(r));
        r = probe(Map.of("MPI_LOCALNRANKS", "64", "PMI_SIZE", "128"));
        assertEquals(List.of("64", "1", String.valueOf(cpus)), List.of(r));
        r = probe(Map.of("MV2_COMM_WORLD_LOCAL_SIZE", "1", "OMPI_COMM_WORLD_SIZE", "8"));
        assertEquals(List.of("1", String.valueOf(cpus), String.valueOf(cpus)), List.of(r));
        r = probe(Map.of("OMPI_COMM_WORLD_SIZE", "16", "PMI_SIZE", "16"));
        assertEquals("1", r[0], "the world size is not the local rank count");
        r = probe(Map.of("OMPI_COMM_WORLD_LOCAL_SIZE", "x", "MPI_LOCALNRANKS", " 3 ", "MV2_COMM_WORLD_LOCAL_SIZE", "5"));
        assertEquals("3", r[0], "a variable that is not a count is passed over");
    }

    @Test
    void localRanksAndDefaultThreadsOfAGivenEnvironmentNotTheProcesss() {
        int cpus = SystemInfo.current().usableCpus();
        assertEquals(1, Numa.localRanks(Map.of()));
        assertEquals(4, Numa.localRanks(Map.of("OMPI_COMM_WORLD_LOCAL_SIZE", "4", "MPI_LOCALNRANKS", "2")));
        assertEquals(2, Numa.localRanks(Map.of("OMPI_COMM_WORLD_LOCAL_SIZE", "0", "MPI_LOCALNRANKS", "2")));
        assertEquals(7, Numa.localRanks(Map.of("OMPI_COMM_WORLD_LOCAL_SIZE", "-1", "MV2_COMM_WORLD_LOCAL_SIZE", "7")));
        assertEquals(1, Numa.localRanks(Map.of("OMPI_COMM_WORLD_SIZE", "64", "PMI_SIZE", "64")));
        assertEquals(cpus, Numa.defaultThreads(Map.of()));
        assertEquals(Math.max(1, cpus / 2), Numa.defaultThreads(Map.of("MPI_LOCALNRANKS", "2")));
        assertEquals(1, Numa.defaultThreads(Map.of("MPI_LOCALNRANKS", String.valueOf(cpus + 1))));
        SystemInfo info = SystemInfo.current(Map.of("OMPI_COMM_WORLD_LOCAL_SIZE", "2"));
        assertEquals(2, info.localRanks());
        assertEquals(Math.max(1, cpus / 2), info.defaultThreads());
    }

    /** Prints {@code localRanks defaultThreads affinityCpus} and the threads of a default generator. */
    public static final class RankProbe {
        public static void main(String[] args) {
            DataSpec spec = DataSpec.ofSize(1 << 20);
            try (NativeGenerator gen = new NativeGenerator(spec, 0)) {
                if (gen.threads() != Numa.defaultThreads()) {
                    throw new AssertionError("default generator threads " + gen.threads() + " != " + Numa.defaultThreads());
                }
            }
            // the Java rule over the variables agrees with the native core's reading of the process's own
            if (Numa.localRanks(System.getenv()) != Numa.localRanks()
                    || Numa.defaultThreads(System.getenv()) != Numa.defaultThreads()) {
                throw new AssertionError("Java rule " + Numa.localRanks(System.getenv()) + "/"
                        + Numa.defaultThreads(System.getenv()) + " != native " + Numa.localRanks() + "/"
                        + Numa.defaultThreads());
            }
            System.out.println(Numa.localRanks() + " " + Numa.defaultThreads() + " " + SystemInfo.current().usableCpus());
        }
    }
}
