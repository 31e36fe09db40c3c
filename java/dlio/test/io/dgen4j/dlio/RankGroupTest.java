package io.dgen4j.dlio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.launch.Cluster;
import io.dgen4j.launch.LaunchInfo;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The two kinds of rank group without MPI (the MPI one runs under mpirun in the CLI's DlioMpirunCliTest). */
class RankGroupTest {
    private static final RankGroup.StepFigures A = new RankGroup.StepFigures(1.5, 100, true);
    private static final RankGroup.StepFigures B = new RankGroup.StepFigures(2.5, 200, false);

    @Test
    void in_one_process_every_ranks_figures_are_known() throws IOException {
        RankGroup g = RankGroup.inProcess(3);
        assertEquals(List.of(0, 1, 2), g.localRanks());
        assertTrue(g.alone().isEmpty());
        assertArrayEquals(new RankGroup.StepFigures[] {A, null, B}, g.exchange(Map.of(0, A, 2, B)));
        assertEquals(List.of("x"), g.listOnce(() -> List.of("x")));
        assertEquals(0, g.threads(1));
        assertEquals(Math.max(1, Runtime.getRuntime().availableProcessors() / 2), g.threads(2));
    }

    @Test
    void a_launched_rank_alone_knows_its_own_figures_and_lists_itself() throws IOException {
        LaunchInfo launch = new LaunchInfo(1, 4, 1, 2, "openmpi");
        RankGroup g = RankGroup.of(Cluster.alone(launch, "libmpi is missing"));
        assertEquals(4, g.size());
        assertEquals(List.of(1), g.localRanks());
        assertEquals(2, g.hosts());
        assertEquals("libmpi is missing", g.alone().orElseThrow());
        assertArrayEquals(new RankGroup.StepFigures[] {null, A, null, null}, g.exchange(Map.of(1, A)));
        AtomicInteger listed = new AtomicInteger();
        assertEquals(List.of("a", "b"), g.listOnce(() -> {
            listed.incrementAndGet();
            return List.of("a", "b");
        }));
        assertEquals(1, listed.get());
        g.barrier(); // returns at once
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> g.exchange(Map.of(0, A)));
        assertTrue(e.getMessage().contains("rank 1 exchanges its own figures only"), e.getMessage());
        assertEquals(io.dgen4j.launch.CpuBudget.threadsFor(launch), g.threads(1));
    }
}
