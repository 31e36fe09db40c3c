package io.dgen4j.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * libmpi through FFM under a real launcher: every collective of {@link Cluster} under Open MPI's
 * {@code mpirun} with 2 and 3 ranks, and under MPICH's {@code mpiexec.mpich} (the other ABI: int handles).
 */
class MpiTest {
    @TempDir
    Path dir;

    /** Each rank's {@code key=value} lines: rank -> key -> value. */
    private static Map<Integer, Map<String, String>> parse(Mpirun.Result r) {
        Map<Integer, Map<String, String>> ranks = new TreeMap<>();
        for (String line : r.lines()) {
            if (!line.matches("r\\d+ [a-z]+=.*")) {
                continue;
            }
            int sp = line.indexOf(' ');
            int eq = line.indexOf('=');
            ranks.computeIfAbsent(Integer.parseInt(line.substring(1, sp)), k -> new TreeMap<>())
                    .put(line.substring(sp + 1, eq), line.substring(eq + 1));
        }
        return ranks;
    }

    private Map<Integer, Map<String, String>> probe(int n, String... jvmProps) throws Exception {
        return probe(Mpirun.prefix(n), n, jvmProps);
    }

    private Map<Integer, Map<String, String>> probe(List<String> launcher, int n, String... jvmProps) throws Exception {
        List<String> cmd = new ArrayList<>(launcher);
        List<String> java = new ArrayList<>(Mpirun.java(MpiProbe.class.getName(), dir.toString()));
        java.addAll(1, List.of(jvmProps));
        cmd.addAll(java);
        Mpirun.Result r = Mpirun.run(dir, Map.of(), cmd, 120);
        assertEquals(0, r.code(), "stdout:\n" + r.out() + "\nstderr:\n" + r.err());
        Map<Integer, Map<String, String>> ranks = parse(r);
        assertEquals(n, ranks.size(), r.out());
        return ranks;
    }

    @Test
    void everyCollectiveWorksAcrossTwoRanks() throws Exception {
        checkCollectives(2);
    }

    @Test
    void everyCollectiveWorksAcrossThreeRanks() throws Exception {
        checkCollectives(3);
    }

    @Test
    void everyCollectiveWorksAcrossTwoRanksOfMpich() throws Exception {
        checkCollectives(Mpirun.mpichPrefix(2), 2, "pmi", "MPICH Version: 4\\..* \\(libmpich\\.so\\.12\\)");
    }

    private void checkCollectives(int n) throws Exception {
        checkCollectives(Mpirun.prefix(n), n, "openmpi", "Open MPI v\\d+\\.\\d+.* \\(libmpi\\.so\\.40\\)");
    }

    private void checkCollectives(List<String> launcher, int n, String launcherName, String library) throws Exception {
        Map<Integer, Map<String, String>> ranks = probe(launcher, n);
        double dsum = 0;
        long lsum = 0;
        StringBuilder gather = new StringBuilder();
        StringBuilder lgather = new StringBuilder();
        for (int r = 0; r < n; r++) {
            dsum += r + 0.5;
            lsum += (1L << 40) + r;
            gather.append(r == 0 ? "" : ", ").append(10.0 * r + 0.25);
            lgather.append(r == 0 ? "" : ", ").append(-7L * r);
        }
        for (int r = 0; r < n; r++) {
            Map<String, String> m = ranks.get(r);
            assertEquals(String.format("rank %d of %d (local %d of %d, %s)", r, n, r, n, launcherName), m.get("launch"));
            assertEquals("true", m.get("coordinated"), m.toString());
            assertTrue(m.get("library").matches(library), m.get("library"));
            assertEquals("-", m.get("alone"));
            assertEquals(String.valueOf(dsum), m.get("dsum"));
            assertEquals(String.valueOf(n - 0.5), m.get("dmax"));
            assertEquals("[-1.0, " + (double) -(n - 1) + "]", m.get("dmin"));
            assertEquals(String.valueOf(lsum), m.get("lsum"));
            assertEquals("[" + ((1L << 40) + n - 1) + ", " + -(1L << 40) + "]", m.get("lmax"));
            assertEquals(String.valueOf(1L << 40), m.get("lmin"));
            assertEquals("[" + gather + "]", m.get("gather"));
            assertEquals("[" + lgather + "]", m.get("lgather"));
            assertEquals("from rank 0: \u00e9t\u00e9 \u2603", m.get("text"));
            assertEquals(String.valueOf(Long.MIN_VALUE + 5), m.get("number"));
            assertEquals("true", m.get("bytes"));
            assertEquals("4:b|a\\nnewline||\u2603", m.get("names"));
            assertEquals(r == 0 ? "no such bucket: nope" : "rank 0 failed: no such bucket: nope", m.get("failure"));
            assertEquals("true", m.get("agreed"));
            // every rank names the same disagreement: rank 1, the first of those that differ, with its own facts
            assertEquals("1/" + (n - 1) + ":--size:1>2:" + (n == 2 ? "[command, --size, --verify]"
                    : "[command, --size]"), m.get("disagreement"));
        }
        assertEquals("rank 0\n", Files.readString(dir.resolve("lister-calls")), "rank 0 alone listed");
    }

    @Test
    void disabledMpiLeavesEachRankAloneAndSaysWhy() throws Exception {
        Map<Integer, Map<String, String>> ranks = probe(2, "-D" + Mpi.PROP_DISABLE + "=true");
        for (int r = 0; r < 2; r++) {
            Map<String, String> m = ranks.get(r);
            assertEquals("false", m.get("coordinated"));
            assertEquals("MPI is disabled by -Ddgen4j.mpi.disable=true", m.get("alone"));
            assertEquals(String.valueOf(r + 0.5), m.get("dsum"), "a communicator of one");
            assertEquals("[" + (10.0 * r + 0.25) + "]", m.get("gather"));
            assertEquals(r == 0 ? "from rank 0: \u00e9t\u00e9 \u2603" : "not me", m.get("text"));
            assertEquals(r == 0 ? "no such bucket: nope" : "no such bucket: nope", m.get("failure"));
            assertEquals("-", m.get("disagreement"), "alone, a rank agrees with itself");
        }
        assertEquals("rank 0\nrank 1\n", sortedLines(dir.resolve("lister-calls")), "each rank listed for itself");
    }

    @Test
    void aMissingLibraryLeavesEachRankAloneNamingWhatWasTried() throws Exception {
        Map<Integer, Map<String, String>> ranks = probe(2, "-D" + Mpi.PROP_LIBRARY + "=libdgen4j-no-such-mpi.so.1");
        for (int r = 0; r < 2; r++) {
            Map<String, String> m = ranks.get(r);
            assertEquals("false", m.get("coordinated"));
            assertTrue(m.get("alone").startsWith("no MPI library: tried libdgen4j-no-such-mpi.so.1: "), m.get("alone"));
            assertTrue(m.get("alone").endsWith("(set -Ddgen4j.mpi.library=/path/to/libmpi.so.40 to name one)"),
                    m.get("alone"));
        }
    }

    private static String sortedLines(Path p) throws Exception {
        return String.join("\n", Files.readAllLines(p).stream().sorted().toList()) + "\n";
    }
}
