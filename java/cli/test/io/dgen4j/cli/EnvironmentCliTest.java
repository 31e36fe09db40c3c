package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The environment an embedder hands {@link Main#run} reaches every variable the commands read. */
class EnvironmentCliTest {
    @TempDir
    Path dir;

    private String generatorOfASave(Map<String, String> env) {
        CliRun r = CliRun.of(env, "save", dir.resolve("ckpt.bin").toString(), "--size", "1MiB", "--chunk", "1MiB",
                "--json");
        assertEquals(0, r.code(), r.err());
        return (String) JsonRead.object(r.out()).get("generator");
    }

    @Test
    void aSavesGeneratorIsTheGivenEnvironmentsDgen4jDataGen() {
        assertEquals("jdk-random", generatorOfASave(Map.of("DGEN4J_DATA_GEN", "jdk-random")));
        String java = generatorOfASave(Map.of("DGEN4J_DATA_GEN", "java"));
        assertTrue(java.startsWith("java"), java); // java, or java-vector where the Vector API runs
        assertNotEquals("jdk-random", generatorOfASave(Map.of()), "one run's variable does not stay for the next");
    }

    @Test
    void generateRefusesABadDgen4jDataGenOfTheGivenEnvironment() {
        CliRun r = CliRun.of(Map.of("DGEN4J_DATA_GEN", "bogus"), "generate", "--size", "1MiB", "--out",
                dir.resolve("g.bin").toString());
        assertEquals(ExitCodes.USAGE, r.code(), r.err());
        assertTrue(r.err().contains("DGEN4J_DATA_GEN=bogus is not one of auto, native, java"), r.err());
    }

    @Test
    void compareWithoutDirUsesTheGivenEnvironmentsCheckpointDir() {
        Path missing = dir.resolve("no-such-dir");
        CliRun r = CliRun.of(Map.of("TEST_CHECKPOINT_DIR", missing.toString()), "compare", "--size", "1MiB");
        assertEquals(ExitCodes.IO, r.code(), r.err());
        assertTrue(r.err().contains(missing.toString()), r.err());
    }

    @Test
    void quickstartsDefaultSizeIsTheGivenEnvironmentsTestSizeGb() {
        CliRun r = CliRun.of(Map.of("TEST_SIZE_GB", "abc"), "quickstart", "--dir", dir.toString(), "--no-s3");
        assertEquals(ExitCodes.USAGE, r.code(), r.err());
        assertTrue(r.err().contains("TEST_SIZE_GB=abc is not a size in GiB"), r.err());
    }

    @Test
    void infosLocalRanksAreTheGivenEnvironmentsLauncherVariables() {
        CliRun r = CliRun.of(Map.of("OMPI_COMM_WORLD_LOCAL_SIZE", "3"), "info", "--json");
        assertEquals(0, r.code(), r.err());
        assertEquals(3L, JsonRead.object(r.out()).get("localRanks"));
        r = CliRun.of(Map.of(), "info", "--json");
        assertEquals(1L, JsonRead.object(r.out()).get("localRanks"), "one run's variable does not stay for the next");
    }
}
