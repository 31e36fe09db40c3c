package io.dgen4j.cli.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.cli.Environment;
import io.dgen4j.launch.CpuBudget;
import io.dgen4j.launch.LaunchInfo;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the ranks of a launch compare before they start ({@link Ranks#facts}), and each rank's threads. */
class RanksTest {
    /** This process's own environment, as Main hands it down. */
    private static final Environment PROCESS = new Environment(System.getenv(), true);

    private static Map<String, String> facts(Object command, String... args) {
        picocli.CommandLine cl = new picocli.CommandLine(command);
        cl.parseArgs(args);
        return Ranks.facts(cl.getCommandSpec());
    }

    @Test
    void theFactsRanksCompareAreTheCommandAndItsValuesSaveThoseThatMayDifferPerRank() {
        Map<String, String> a = facts(new SaveCommand(PROCESS), "/d/ckpt", "--size", "8MiB", "--threads", "3");
        assertEquals(a, facts(new SaveCommand(PROCESS), "/d/ckpt", "--size", "8388608", "--threads", "1", "--no-progress"),
                "one value in two spellings, and each rank's own threads and terminal");
        assertEquals("save", a.get("command"));
        assertEquals("/d/ckpt", a.get("TARGET"));
        assertEquals("8388608", a.get("--size"));
        assertFalse(a.containsKey("--threads") || a.containsKey("--no-progress") || a.containsKey("--help"), a.toString());
        assertNull(a.get("--seed"), "an option without a value is absent");
        Map<String, String> b = facts(new SaveCommand(PROCESS), "/d/ckpt", "--size", "8MiB", "--seed", "5");
        io.dgen4j.launch.Cluster.Disagreement d = new io.dgen4j.launch.Cluster.Disagreement(2, 1, a, b);
        assertEquals("the ranks were started with different commands or options: rank 2 has --seed 5, rank 0 no --seed; "
                + "every rank must run the same command with the same options (only --no-progress, --output, --threads "
                + "may differ)", Ranks.disagreement(d));
    }

    @Test
    void aDisagreeingValueWithUserInfoIsNotShown() {
        Map<String, String> a = facts(new LoadCommand(PROCESS), "s3://user:SECRET-x1@bucket/k");
        Map<String, String> b = facts(new LoadCommand(PROCESS), "s3://bucket/k");
        String line = Ranks.disagreement(new io.dgen4j.launch.Cluster.Disagreement(1, 3, a, b));
        assertTrue(line.contains("rank 1 has TARGET s3://bucket/k, rank 0 TARGET (a different value) (3 ranks differ "
                + "from rank 0)"), line);
        assertFalse(line.contains("SECRET"), line);
    }

    @Test
    void threadsUnderALaunchAreThisRanksShareOfTheCpus() {
        Ranks ranks = Ranks.open(new picocli.CommandLine(new SaveCommand(PROCESS)).getCommandSpec(), PROCESS);
        assertEquals(5, ranks.threads(5), "an explicit count is kept");
        LaunchInfo four = new LaunchInfo(0, 4, 0, 4, "openmpi");
        int usable = CpuBudget.usableCpus();
        int expected = CpuBudget.threads(usable, Math.max(usable, CpuBudget.availableCpus()), 4);
        assertEquals(expected, CpuBudget.threadsFor(four));
        assertTrue(expected >= 1 && expected <= usable);
    }
}
