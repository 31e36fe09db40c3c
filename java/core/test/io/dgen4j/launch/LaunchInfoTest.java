package io.dgen4j.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LaunchInfoTest {

    private static Map<String, String> env(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void noLauncherIsASingleProcess() {
        LaunchInfo l = LaunchInfo.fromEnvironment(env("PATH", "/bin", "HOME", "/root"));
        assertEquals(LaunchInfo.SINGLE, l);
        assertFalse(l.launched());
        assertEquals("a single process (no launcher)", l.describe());
    }

    @Test
    void openMpi() {
        LaunchInfo l = LaunchInfo.fromEnvironment(env("OMPI_COMM_WORLD_RANK", "5", "OMPI_COMM_WORLD_SIZE", "8",
                "OMPI_COMM_WORLD_LOCAL_RANK", "1", "OMPI_COMM_WORLD_LOCAL_SIZE", "4"));
        assertEquals(new LaunchInfo(5, 8, 1, 4, "openmpi"), l);
        assertTrue(l.launched());
        assertEquals("rank 5 of 8 (local 1 of 4, openmpi)", l.describe());
    }

    @Test
    void mpichHydraAndIntelMpi() {
        assertEquals(new LaunchInfo(3, 4, 1, 2, "pmi"), LaunchInfo.fromEnvironment(env("PMI_RANK", "3", "PMI_SIZE", "4",
                "MPI_LOCALRANKID", "1", "MPI_LOCALNRANKS", "2")));
    }

    @Test
    void mvapich() {
        assertEquals(new LaunchInfo(2, 16, 2, 8, "mvapich"), LaunchInfo.fromEnvironment(env("MV2_COMM_WORLD_RANK", "2",
                "MV2_COMM_WORLD_SIZE", "16", "MV2_COMM_WORLD_LOCAL_RANK", "2", "MV2_COMM_WORLD_LOCAL_SIZE", "8")));
    }

    @Test
    void slurmWithTasksPerNode() {
        assertEquals(new LaunchInfo(7, 8, 3, 4, "slurm"), LaunchInfo.fromEnvironment(env("SLURM_PROCID", "7",
                "SLURM_NTASKS", "8", "SLURM_LOCALID", "3", "SLURM_NTASKS_PER_NODE", "4")));
    }

    @Test
    void slurmLocalSizeFromTheTaskListOfThisNode() {
        // 3 nodes with 4 tasks, 1 node with 2: node 3 has 2 tasks
        Map<String, String> e = env("SLURM_PROCID", "13", "SLURM_NTASKS", "14", "SLURM_LOCALID", "1",
                "SLURM_TASKS_PER_NODE", "4(x3),2", "SLURM_NODEID", "3");
        assertEquals(new LaunchInfo(13, 14, 1, 2, "slurm"), LaunchInfo.fromEnvironment(e));
        e.put("SLURM_NODEID", "2");
        e.put("SLURM_LOCALID", "3");
        assertEquals(4, LaunchInfo.fromEnvironment(e).localSize());
        e.put("SLURM_NODEID", "4");
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> LaunchInfo.fromEnvironment(e));
        assertEquals("SLURM_NODEID=4 is beyond the 4 node(s) of SLURM_TASKS_PER_NODE=4(x3),2", x.getMessage());
        e.put("SLURM_NODEID", "0");
        e.put("SLURM_TASKS_PER_NODE", "4(3)");
        x = assertThrows(IllegalArgumentException.class, () -> LaunchInfo.fromEnvironment(e));
        assertEquals("SLURM_TASKS_PER_NODE=4(3) is not a task list such as 4(x2),3 (entry '4(3)')", x.getMessage());
    }

    @Test
    void theFirstLauncherWinsOpenMpiInsideASlurmAllocation() {
        LaunchInfo l = LaunchInfo.fromEnvironment(env("SLURM_PROCID", "0", "SLURM_NTASKS", "1",
                "OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "2", "PMI_RANK", "9", "PMI_SIZE", "10"));
        assertEquals("openmpi", l.launcher());
        assertEquals(1, l.rank());
        // PMI beats MVAPICH and Slurm
        assertEquals("pmi", LaunchInfo.fromEnvironment(env("PMI_RANK", "0", "PMI_SIZE", "2", "MV2_COMM_WORLD_RANK", "1",
                "MV2_COMM_WORLD_SIZE", "2", "SLURM_PROCID", "1", "SLURM_NTASKS", "2")).launcher());
    }

    @Test
    void aLauncherCountsOnlyWithBothRankAndSize() {
        assertEquals(LaunchInfo.SINGLE, LaunchInfo.fromEnvironment(env("OMPI_COMM_WORLD_RANK", "1")));
        assertEquals(LaunchInfo.SINGLE, LaunchInfo.fromEnvironment(env("PMI_SIZE", "4")));
        assertEquals(LaunchInfo.SINGLE, LaunchInfo.fromEnvironment(env("OMPI_COMM_WORLD_RANK", " ",
                "OMPI_COMM_WORLD_SIZE", "")));
        // a blank Open MPI pair falls through to the next launcher
        assertEquals("slurm", LaunchInfo.fromEnvironment(env("OMPI_COMM_WORLD_RANK", "", "OMPI_COMM_WORLD_SIZE", "",
                "SLURM_PROCID", "0", "SLURM_NTASKS", "1")).launcher());
    }

    @Test
    void missingLocalFiguresAreTheJobsSoThreadsAreNeverOversubscribed() {
        // no local figures at all: every rank on this host
        assertEquals(new LaunchInfo(3, 4, 3, 4, "pmi"), LaunchInfo.fromEnvironment(env("PMI_RANK", "3", "PMI_SIZE", "4")));
        // a local rank without a local size
        assertEquals(new LaunchInfo(3, 4, 1, 4, "openmpi"), LaunchInfo.fromEnvironment(env("OMPI_COMM_WORLD_RANK", "3",
                "OMPI_COMM_WORLD_SIZE", "4", "OMPI_COMM_WORLD_LOCAL_RANK", "1")));
        // a local size without a local rank: the rank where it fits, else 0
        assertEquals(new LaunchInfo(1, 4, 1, 2, "mvapich"), LaunchInfo.fromEnvironment(env("MV2_COMM_WORLD_RANK", "1",
                "MV2_COMM_WORLD_SIZE", "4", "MV2_COMM_WORLD_LOCAL_SIZE", "2")));
        assertEquals(new LaunchInfo(3, 4, 0, 2, "mvapich"), LaunchInfo.fromEnvironment(env("MV2_COMM_WORLD_RANK", "3",
                "MV2_COMM_WORLD_SIZE", "4", "MV2_COMM_WORLD_LOCAL_SIZE", "2")));
        // Slurm without SLURM_NTASKS_PER_NODE nor a task list
        assertEquals(new LaunchInfo(2, 3, 0, 3, "slurm"), LaunchInfo.fromEnvironment(env("SLURM_PROCID", "2",
                "SLURM_NTASKS", "3", "SLURM_LOCALID", "0")));
    }

    @Test
    void whitespaceAroundNumbersIsAccepted() {
        assertEquals(new LaunchInfo(1, 2, 1, 2, "openmpi"), LaunchInfo.fromEnvironment(env("OMPI_COMM_WORLD_RANK", " 1\n",
                "OMPI_COMM_WORLD_SIZE", "2 ", "OMPI_COMM_WORLD_LOCAL_RANK", "\t1", "OMPI_COMM_WORLD_LOCAL_SIZE", "2")));
    }

    @Test
    void badNumbersNameTheVariableAndTheValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LaunchInfo.fromEnvironment(
                env("OMPI_COMM_WORLD_RANK", "one", "OMPI_COMM_WORLD_SIZE", "2")));
        assertEquals("OMPI_COMM_WORLD_RANK=one is not a number", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> LaunchInfo.fromEnvironment(
                env("PMI_RANK", "0", "PMI_SIZE", "2", "MPI_LOCALNRANKS", "2x")));
        assertEquals("MPI_LOCALNRANKS=2x is not a number", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> LaunchInfo.fromEnvironment(
                env("SLURM_PROCID", "0", "SLURM_NTASKS", "99999999999")));
        assertEquals("SLURM_NTASKS=99999999999 is not a number", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> LaunchInfo.fromEnvironment(
                env("MV2_COMM_WORLD_RANK", "0", "MV2_COMM_WORLD_SIZE", "2", "MV2_COMM_WORLD_LOCAL_RANK", "-")));
        assertEquals("MV2_COMM_WORLD_LOCAL_RANK=- is not a number", e.getMessage());
    }

    @Test
    void inconsistentFiguresAreRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LaunchInfo.fromEnvironment(
                env("OMPI_COMM_WORLD_RANK", "2", "OMPI_COMM_WORLD_SIZE", "2")));
        assertEquals("inconsistent launch: rank 2 of 2, local rank 0 of 2 (openmpi)", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> LaunchInfo.fromEnvironment(
                env("PMI_RANK", "-1", "PMI_SIZE", "2")));
        assertTrue(e.getMessage().startsWith("inconsistent launch: rank -1 of 2"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> LaunchInfo.fromEnvironment(
                env("PMI_RANK", "0", "PMI_SIZE", "0")));
        assertTrue(e.getMessage().startsWith("inconsistent launch: rank 0 of 0"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LaunchInfo.fromEnvironment(env("OMPI_COMM_WORLD_RANK", "0",
                "OMPI_COMM_WORLD_SIZE", "2", "OMPI_COMM_WORLD_LOCAL_RANK", "3", "OMPI_COMM_WORLD_LOCAL_SIZE", "2")));
        e = assertThrows(IllegalArgumentException.class, () -> LaunchInfo.fromEnvironment(env("OMPI_COMM_WORLD_RANK", "0",
                "OMPI_COMM_WORLD_SIZE", "2", "OMPI_COMM_WORLD_LOCAL_RANK", "0", "OMPI_COMM_WORLD_LOCAL_SIZE", "4")));
        assertEquals("inconsistent launch: rank 0 of 2, local rank 0 of 4 (openmpi)", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new LaunchInfo(0, 1, 0, 1, " "));
    }

    @Test
    void aJobOfOneRankIsStillLaunched() {
        LaunchInfo l = LaunchInfo.fromEnvironment(env("OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "1"));
        assertTrue(l.launched());
        assertEquals(new LaunchInfo(0, 1, 0, 1, "openmpi"), l);
    }
}
