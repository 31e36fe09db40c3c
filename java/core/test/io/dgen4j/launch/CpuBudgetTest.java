package io.dgen4j.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class CpuBudgetTest {

    @Test
    void anUnboundRankSharesTheMaskWithTheOtherLocalRanks() {
        assertEquals(16, CpuBudget.threads(64, 64, 4));
        assertEquals(21, CpuBudget.threads(64, 64, 3)); // floor: never more threads than CPUs
        assertEquals(1, CpuBudget.threads(2, 2, 4));    // more ranks than CPUs: one thread each
        assertEquals(64, CpuBudget.threads(64, 64, 1));
        assertFalse(CpuBudget.bound(64, 64));
    }

    @Test
    void aBoundRankUsesItsMaskAsItIsNeverDividingTwice() {
        // mpirun --bind-to core with 4 ranks on 64 CPUs: 1 core each... or 16 with --map-by ppr:4:node:pe=16
        assertEquals(16, CpuBudget.threads(16, 64, 4));
        assertEquals(1, CpuBudget.threads(1, 2, 2));
        assertEquals(8, CpuBudget.threads(8, 64, 8));
        assertTrue(CpuBudget.bound(16, 64));
    }

    @Test
    void countsBelowOneAreRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CpuBudget.threads(0, 4, 1));
        assertEquals("CPU counts must be >= 1: 0 usable, 4 available, 1 local ranks", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CpuBudget.threads(4, 4, 0));
        assertThrows(IllegalArgumentException.class, () -> CpuBudget.threads(4, 0, 1));
    }

    @Test
    void cpuListsAreCounted() {
        assertEquals(1, CpuBudget.count("0"));
        assertEquals(4, CpuBudget.count("0-3"));
        assertEquals(7, CpuBudget.count("0-3,8,10-11\n"));
        assertEquals(2, CpuBudget.count(" 5 , 7 "));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CpuBudget.count("3-1"));
        assertEquals("CPU range '3-1' in '3-1' runs backwards", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> CpuBudget.count("0-3,x"));
        assertEquals("'x' in the CPU list '0-3,x' is not a CPU or range", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CpuBudget.count(""));
    }

    @Test
    void thisProcessFiguresComeFromItsMask() throws Exception {
        String status = Files.readString(Path.of("/proc/self/status"));
        String list = status.lines().filter(l -> l.startsWith("Cpus_allowed_list:")).findFirst().orElseThrow()
                .split(":")[1];
        assertEquals(CpuBudget.count(list), CpuBudget.usableCpus());
        assertTrue(CpuBudget.availableCpus() >= 1);
        int t = CpuBudget.threadsFor(LaunchInfo.SINGLE);
        assertEquals(CpuBudget.threads(CpuBudget.usableCpus(), Math.max(CpuBudget.usableCpus(),
                CpuBudget.availableCpus()), 1), t);
        LaunchInfo two = new LaunchInfo(0, 2, 0, 2, "openmpi");
        assertEquals(CpuBudget.threads(CpuBudget.usableCpus(), Math.max(CpuBudget.usableCpus(),
                CpuBudget.availableCpus()), 2), CpuBudget.threadsFor(two));
        assertTrue(CpuBudget.explain(two).startsWith(CpuBudget.threadsFor(two) + " thread(s): "), CpuBudget.explain(two));
    }
}
