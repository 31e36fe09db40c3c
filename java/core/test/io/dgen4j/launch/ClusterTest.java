package io.dgen4j.launch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A cluster without MPI: a communicator of one that keeps the launcher's rank and size. */
class ClusterTest {
    private final LaunchInfo rank1 = new LaunchInfo(1, 4, 1, 2, "openmpi");

    @Test
    void aSingleProcessIsAloneAndNeverLoadsMpi() {
        try (Cluster c = Cluster.open(LaunchInfo.SINGLE)) {
            assertFalse(c.coordinated());
            assertTrue(c.isRoot());
            assertEquals("this process was not started by a launcher", c.whyAlone().orElseThrow());
            assertTrue(c.mpiLibrary().isEmpty());
        }
    }

    @Test
    void withoutMpiCollectivesSeeThisRankAlone() throws IOException {
        try (Cluster c = Cluster.alone(rank1, "no libmpi")) {
            assertEquals(1, c.rank());
            assertEquals(4, c.size());
            assertFalse(c.isRoot());
            c.barrier();
            assertEquals(2.5, c.allreduce(2.5, Mpi.Op.SUM));
            assertEquals(7L, c.allreduce(7L, Mpi.Op.MAX));
            double[] in = {1, 2};
            double[] out = c.allreduce(in, Mpi.Op.MIN);
            out[0] = 9;
            assertEquals(1, in[0], "a copy, not the caller's array");
            assertArrayEquals(new double[] {3.5}, c.gather(3.5));
            assertArrayEquals(new long[] {-2}, c.gather(-2L));
            assertEquals("mine", c.broadcast("mine"));
            assertEquals(5L, c.broadcast(5L));
            AtomicInteger calls = new AtomicInteger();
            assertEquals(List.of("x", "y"), c.listOnce(() -> {
                calls.incrementAndGet();
                return List.of("x", "y");
            }));
            assertEquals(1, calls.get());
            IOException e = assertThrows(IOException.class, () -> c.listOnce(() -> {
                throw new IOException("gone");
            }));
            assertEquals("gone", e.getMessage());
        }
    }

    @Test
    void aRankAloneAgreesWithItselfAndADisagreementNamesTheFirstDifference() {
        try (Cluster c = Cluster.alone(rank1, "no libmpi")) {
            assertTrue(c.agree(java.util.Map.of("command", "save")).isEmpty());
        }
        java.util.Map<String, String> zero = new java.util.LinkedHashMap<>();
        zero.put("command", "save");
        zero.put("--size", "8");
        java.util.Map<String, String> one = new java.util.LinkedHashMap<>(zero);
        one.put("--verify", "true");
        assertEquals("--verify", new Cluster.Disagreement(1, 1, zero, one).firstDifference(), "absent on one side");
        one.put("--size", "4");
        assertEquals("--size", new Cluster.Disagreement(1, 1, zero, one).firstDifference(), "rank 0's order first");
        assertThrows(IllegalStateException.class, () -> new Cluster.Disagreement(1, 1, zero, zero).firstDifference());
    }

    @Test
    void namesRoundTripWithAnyCharacter() throws IOException {
        List<String> names = List.of("", "a", "with\nnewline", "\u2603/\u00e9", "x".repeat(100_000));
        assertEquals(names, Cluster.decode(Cluster.encode(names)));
        assertEquals(List.of(), Cluster.decode(Cluster.encode(List.of())));
    }

    @Test
    void aDamagedNameListIsAnErrorNotAGuess() {
        byte[] ok = Cluster.encode(List.of("abc", "de"));
        byte[] cut = java.util.Arrays.copyOf(ok, ok.length - 1);
        IOException e = assertThrows(IOException.class, () -> Cluster.decode(cut));
        assertEquals("name 1 claims 2 bytes, 1 are left", e.getMessage());
        assertThrows(IOException.class, () -> Cluster.decode(new byte[] {0x7f, 0, 0, 0}));
    }

    @Test
    void notLaunchedMeansNoMpiEvenWhenAsked() {
        assertTrue(Mpi.initialize(LaunchInfo.SINGLE).isEmpty());
        assertEquals("this process was not started by a launcher (mpirun, srun)", Mpi.unavailable().orElseThrow());
    }
}
