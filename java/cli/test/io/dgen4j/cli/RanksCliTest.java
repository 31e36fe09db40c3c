package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.launch.Shards;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * save and load as one rank of a launch, in process: the launcher's variables come with the command's
 * environment, which is not the process's, so MPI is not started and the rank works alone (the mpirun
 * tests, {@link MpirunCliTest}, run the real thing). Shard names, seeds and the no-MPI report.
 */
class RanksCliTest {
    @TempDir
    Path dir;

    private static CliRun run(Map<String, String> env, String... args) {
        return CliRun.of(env, args);
    }

    private static Map<String, String> rank(int r, int n) {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("OMPI_COMM_WORLD_RANK", String.valueOf(r));
        env.put("OMPI_COMM_WORLD_SIZE", String.valueOf(n));
        env.put("OMPI_COMM_WORLD_LOCAL_RANK", String.valueOf(r));
        env.put("OMPI_COMM_WORLD_LOCAL_SIZE", String.valueOf(n));
        return env;
    }

    private static String seedOf(Path manifest) throws Exception {
        return (String) JsonRead.object(Files.readString(manifest)).get("seed");
    }

    @Test
    void eachRankSavesItsOwnShardWithTheSeedMixedWithItsRank() throws Exception {
        Path target = dir.resolve("ckpt");
        for (int r = 0; r < 2; r++) {
            CliRun save = run(rank(r, 2), "save", target.toString(), "--size", "256KiB", "--chunk", "64KiB", "--seed", "7",
                    "--no-progress");
            assertEquals(0, save.code(), save.err());
            String why = "the command's environment is not this process's, so MPI is not started";
            assertEquals(List.of("dgen4j: rank " + r + " of 2 (local " + r + " of 2, openmpi) without MPI (" + why
                    + "): this rank works alone and the aggregate is unavailable"), save.err().lines().toList());
            assertTrue(save.out().startsWith("saved 256.00 KiB (262144 bytes) to " + target + ".rank" + r + "\n"),
                    save.out());
            assertTrue(save.out().endsWith("rank " + r + " of 2 (local " + r + " of 2, openmpi): aggregate unavailable "
                    + "without MPI (" + why + "); each rank reported alone\n"), save.out());
            assertFalse(save.out().contains("aggregate: "), save.out());
            assertEquals(Long.toUnsignedString(Shards.seed(7, r)), seedOf(dir.resolve("ckpt.rank" + r + ".manifest.json")));
            assertEquals(262144, Files.size(dir.resolve("ckpt.rank" + r)));
        }
        assertFalse(Files.exists(target), "no unsharded checkpoint");
        // each rank loads its own shard
        CliRun load = run(rank(1, 2), "load", target.toString(), "--verify", "--chunk", "64KiB", "--no-progress");
        assertEquals(0, load.code(), load.err());
        assertTrue(load.out().startsWith("loaded 256.00 KiB (262144 bytes) from " + target + ".rank1: every byte verified"),
                load.out());
        // the shards are plain checkpoints: a single process loads one by its name
        CliRun plain = run(Map.of(), "load", target + ".rank0", "--verify", "--chunk", "64KiB", "--no-progress");
        assertEquals(0, plain.code(), plain.err());
        assertEquals("", plain.err());
    }

    @Test
    void sameSeedKeepsTheSeedOnEveryRankAndAPlaceholderNamesTheShard() throws Exception {
        for (int r = 0; r < 2; r++) {
            CliRun save = run(rank(r, 2), "save", dir.resolve("part-{rank}.bin").toString(), "--size", "64KiB",
                    "--chunk", "64KiB", "--seed", "0x2a", "--same-seed", "--no-progress");
            assertEquals(0, save.code(), save.err());
            assertEquals("42", seedOf(dir.resolve("part-" + r + ".bin.manifest.json")));
        }
        assertEquals(-1, Files.mismatch(dir.resolve("part-0.bin"), dir.resolve("part-1.bin")), "the same stream");
    }

    @Test
    void withoutASeedEachRankDrawsItsOwnAndTheShardsDiffer() throws Exception {
        for (int r = 0; r < 2; r++) {
            CliRun save = run(rank(r, 2), "save", dir.resolve("c").toString(), "--size", "64KiB", "--chunk", "64KiB",
                    "--no-progress");
            assertEquals(0, save.code(), save.err());
        }
        // in one JVM both "ranks" draw the same process seed; the rank mixing still separates them
        String s0 = seedOf(dir.resolve("c.rank0.manifest.json"));
        String s1 = seedOf(dir.resolve("c.rank1.manifest.json"));
        assertFalse(s0.equals(s1), s0);
        assertTrue(Files.mismatch(dir.resolve("c.rank0"), dir.resolve("c.rank1")) >= 0);
    }

    @Test
    void jsonWithoutMpiIsTheRanksOwnDocumentWithNoAggregate() throws Exception {
        CliRun save = run(rank(1, 3), "save", dir.resolve("j").toString(), "--size", "64KiB", "--chunk", "64KiB",
                "--seed", "5", "--no-progress", "--json");
        assertEquals(0, save.code(), save.err());
        Map<String, Object> m = JsonRead.object(save.out());
        assertEquals(dir.resolve("j.rank1").toString(), m.get("target"));
        assertEquals(Long.toUnsignedString(Shards.seed(5, 1)), m.get("seed"));
        @SuppressWarnings("unchecked")
        Map<String, Object> launch = (Map<String, Object>) m.get("launch");
        assertEquals(1L, ((Number) launch.get("rank")).longValue());
        assertEquals(3L, ((Number) launch.get("size")).longValue());
        assertEquals("openmpi", launch.get("launcher"));
        assertNull(launch.get("mpi"));
        assertEquals("5", launch.get("baseSeed"));
        assertTrue(m.containsKey("aggregate"));
        assertNull(m.get("aggregate"));
        assertNull(m.get("perRank"));
    }

    @Test
    void aSingleProcessIsUnchanged() throws Exception {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.keySet().removeIf(k -> k.startsWith("OMPI_") || k.startsWith("PMI_") || k.startsWith("SLURM_")
                || k.startsWith("MV2_"));
        CliRun save = run(env, "save", dir.resolve("one").toString(), "--size", "64KiB", "--chunk", "64KiB", "--seed", "9",
                "--no-progress", "--json");
        assertEquals(0, save.code(), save.err());
        assertEquals("", save.err());
        Map<String, Object> m = JsonRead.object(save.out());
        assertEquals("9", m.get("seed"));
        assertFalse(m.containsKey("launch"));
        assertTrue(Files.exists(dir.resolve("one")));
    }
}
