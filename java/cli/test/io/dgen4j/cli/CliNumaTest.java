package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.gen.DataSpec;
import io.dgen4j.gen.Generator;
import io.dgen4j.gen.Numa;
import io.dgen4j.gen.Streams;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code info} shows topology, plan and kernel; {@code generate --numa-node} binds a run to a node. */
class CliNumaTest {
    static final Path FIXTURES = Path.of(System.getProperty("dgen4j.test.root"), "native", "tests", "fixtures", "sysfs");

    @Test
    void infoShowsKernelTopologyAndPlan() {
        CliTest.Result r = CliTest.run("info");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("kernel        " + Numa.dispatch()), r.out());
        assertTrue(r.out().contains("placement     "), r.out());
        assertTrue(r.out().contains("mpi ranks     "), r.out());
        CliTest.Result j = CliTest.run("info", "--json", "--sysfs-root", FIXTURES.resolve("two-nodes").toString(),
                "--affinity", "0-5,8-13", "--threads", "4");
        assertEquals(0, j.code(), j.err());
        assertTrue(j.out().contains("\"numaNodes\":[{\"node\":0,\"cpus\":[0,1,2,3,4,5],\"distances\":[10,21],"
                + "\"memoryKiB\":16777216},{\"node\":1,\"cpus\":[8,9,10,11,12,13],\"distances\":[21,10],"), j.out());
        assertTrue(j.out().contains("\"plan\":{\"pinned\":true,\"mode\":\"auto\",\"threads\":4,\"groups\":["
                + "{\"node\":0,\"threads\":2,\"cpus\":[0,1,2,3,4,5]},{\"node\":1,\"threads\":2,\"cpus\":[8,9,10,11,12,13]}]}"),
                j.out());
        assertTrue(j.out().matches("(?s).*\"dispatch\":\"(scalar|avx2|avx512)\".*"), j.out());
        CliTest.Result bad = CliTest.run("info", "--sysfs-root", FIXTURES.resolve("two-nodes").toString(),
                "--affinity", "0-1", "--numa-node", "1");
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("NUMA node 1 has no CPU this process may run on"), bad.err());
    }

    @Test
    void generateBoundToANodeGivesTheSameBytes(@TempDir Path dir) throws Exception {
        int node = Numa.topology().get(0).id();
        DataSpec spec = DataSpec.builder().size(9L << 20).dedupRatio(2).compressRatio(3).seed(5).build();
        byte[] want = Streams.bytes(spec, Generator.Kind.JAVA, 1);
        Path f = dir.resolve("bound");
        CliTest.Result r = CliTest.run("generate", "--size", "9MiB", "--dedup", "2", "--compress", "3", "--seed", "5",
                "--numa-node", String.valueOf(node), "--threads", "2", "--chunk", "4MiB", "--out", f.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("workers pinned: 2 on node " + node), r.out());
        assertArrayEquals(want, Files.readAllBytes(f));
        CliTest.Result j = CliTest.run("generate", "--size", "1MiB", "--numa-node", String.valueOf(node), "--json");
        assertTrue(j.out().contains("\"numaNode\":" + node + ",\"pinned\":true"), j.out());
        CliTest.Result bad = CliTest.run("generate", "--size", "1MiB", "--numa-node", "4000");
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("NUMA node 4000 does not exist"), bad.err());
    }
}
