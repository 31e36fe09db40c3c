package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.launch.Mpirun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ranks started with different commands or options (MPMD launches, {@code mpirun A : B}) fail together,
 * at once, each with the one line that names the first difference, before any byte is written; the
 * options that may differ per rank ({@code --threads}, {@code --no-progress}, dlio's {@code --output})
 * do not count. Real {@code mpirun} (Open MPI) and {@code mpiexec.mpich}.
 */
class MpirunAgreementCliTest {
    private static final Pattern TAG = Pattern.compile("^\\[\\d+,(\\d+)\\]<(stdout|stderr)>:(.*)$");
    private static final String PREFIX = "dgen4j: the ranks were started with different commands or options: ";
    private static final String SUFFIX = "; every rank must run the same command with the same options (only "
            + "--no-progress, --output, --threads may differ)";
    /** Far below a hang (the launch without the check waited until killed), far above a JVM's start on a busy machine. */
    private static final double BOUND_SECONDS = 60;

    @TempDir
    Path dir;

    /** One app context of an MPMD launch: {@code -np n [-wdir d] java ... Main args}. */
    private static List<String> app(int n, Path wdir, String... args) {
        List<String> a = new ArrayList<>(List.of("-np", Integer.toString(n)));
        if (wdir != null) {
            a.addAll(List.of("-wdir", wdir.toString()));
        }
        a.addAll(Mpirun.java(Main.class.getName(), args));
        return a;
    }

    /** {@code mpirun --tag-output} over the app contexts, joined by {@code :}; returns the result and its time. */
    private record Timed(Mpirun.Result result, double seconds) { }

    private Timed openMpi(List<List<String>> apps) throws Exception {
        List<String> cmd = new ArrayList<>(Mpirun.prefix(0, "--tag-output"));
        cmd.subList(cmd.size() - 2, cmd.size()).clear(); // the prefix's "-np 0": each app context has its own
        for (int i = 0; i < apps.size(); i++) {
            if (i > 0) {
                cmd.add(":");
            }
            cmd.addAll(apps.get(i));
        }
        long start = System.nanoTime();
        Mpirun.Result r = Mpirun.run(dir, Map.of(), cmd, 180);
        return new Timed(r, (System.nanoTime() - start) / 1e9);
    }

    /** Each rank's lines of {@code stream} under --tag-output. */
    private static Map<Integer, List<String>> byRank(Mpirun.Result r, String stream) {
        Map<Integer, List<String>> by = new TreeMap<>();
        for (String line : (r.out() + "\n" + r.err()).lines().toList()) {
            Matcher m = TAG.matcher(line);
            if (m.matches() && m.group(2).equals(stream)) {
                by.computeIfAbsent(Integer.parseInt(m.group(1)), k -> new ArrayList<>()).add(m.group(3));
            }
        }
        return by;
    }

    /** Every rank failed with exactly {@code line} on its stderr, printed nothing on stdout, within the bound. */
    private static void everyRankFailsWith(Timed t, int ranks, String line) {
        Mpirun.Result r = t.result();
        String all = "stdout:\n" + r.out() + "\nstderr:\n" + r.err();
        assertEquals(ExitCodes.USAGE, r.code(), all);
        assertTrue(t.seconds() < BOUND_SECONDS, t.seconds() + " s: " + all);
        Map<Integer, List<String>> err = byRank(r, "stderr");
        assertEquals(ranks, err.size(), all);
        for (int rank = 0; rank < ranks; rank++) {
            assertEquals(List.of(line), err.get(rank), "rank " + rank + ": " + all);
        }
        assertEquals(Map.of(), byRank(r, "stdout"), all);
        System.out.printf("mpirun failed in %.1f s, exit %d: %s%n", t.seconds(), r.code(), line);
    }

    private List<String> filesIn(Path d) throws Exception {
        try (Stream<Path> s = Files.list(d)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith("mpirun")).sorted().toList();
        }
    }

    @Test
    void aSaveAndALoadStartedTogetherFailAtOnceInsteadOfWaitingInDifferentCollectives() throws Exception {
        String target = dir.resolve("ckpt").toString();
        Timed t = openMpi(List.of(app(1, null, "save", target, "--size", "2MiB", "--chunk", "1MiB", "--no-progress"),
                app(1, null, "load", target, "--chunk", "1MiB", "--no-progress")));
        everyRankFailsWith(t, 2, PREFIX + "rank 1 runs 'dgen4j load', rank 0 'dgen4j save'" + SUFFIX);
        assertEquals(List.of(), filesIn(dir), "nothing written");
    }

    @Test
    void differentTargetsFailNamingBoth() throws Exception {
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        Timed t = openMpi(List.of(app(1, null, "save", a.toString(), "--size", "1MiB", "--chunk", "1MiB"),
                app(1, null, "save", b.toString(), "--size", "1MiB", "--chunk", "1MiB")));
        everyRankFailsWith(t, 2, PREFIX + "rank 1 has TARGET " + b + ", rank 0 TARGET " + a + SUFFIX);
        assertEquals(List.of(), filesIn(dir), "nothing written");
    }

    @Test
    void theFirstOfSeveralRanksThatDifferIsNamedWithTheirCount() throws Exception {
        String target = dir.resolve("p-{rank}").toString();
        Timed t = openMpi(List.of(app(1, null, "save", target, "--size", "2MiB", "--chunk", "1MiB"),
                app(2, null, "save", target, "--size", "1MiB", "--chunk", "1MiB")));
        everyRankFailsWith(t, 3, PREFIX + "rank 1 has --size 1048576, rank 0 --size 2097152 (2 ranks differ from rank 0)"
                + SUFFIX);
        assertEquals(List.of(), filesIn(dir), "nothing written");
    }

    @Test
    void threadsAndProgressMayDifferAndTheRankTableShowsWhatEachRankDid() throws Exception {
        Path target = dir.resolve("t");
        Timed t = openMpi(List.of(app(1, null, "save", target.toString(), "--size", "2MiB", "--chunk", "1MiB",
                        "--threads", "1", "--json"),
                app(1, null, "save", target.toString(), "--size", "2MiB", "--chunk", "1MiB", "--threads", "2",
                        "--no-progress", "--json")));
        Mpirun.Result r = t.result();
        assertEquals(0, r.code(), "stdout:\n" + r.out() + "\nstderr:\n" + r.err());
        List<String> json = byRank(r, "stdout").get(0);
        assertEquals(1, json.size(), r.out());
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> perRank = (List<Map<String, Object>>) JsonRead.object(json.getFirst()).get("perRank");
        for (int rank = 0; rank < 2; rank++) {
            Map<String, Object> m = perRank.get(rank);
            assertEquals(target + ".rank" + rank, m.get("target"));
            assertEquals((long) rank + 1, ((Number) m.get("threads")).longValue(), perRank.toString());
            assertEquals(2L << 20, ((Number) m.get("bytes")).longValue());
            assertEquals(2L << 20, Files.size(Path.of((String) m.get("target"))), "what the table names was written");
        }
    }

    @Test
    void dlioRanksWhoseConfigFilesDifferFailNamingTheWorkload() throws Exception {
        // one relative --config, read in each rank's own working directory: the same arguments, two workloads
        Path tiny = Path.of(System.getProperty("dgen4j.test.root", ".")).resolve("configs/dlio/tiny.yaml");
        String yaml = Files.readString(tiny);
        assertTrue(yaml.contains("hidden_size: 256"), yaml);
        Path d0 = Files.createDirectories(dir.resolve("host0"));
        Path d1 = Files.createDirectories(dir.resolve("host1"));
        Files.writeString(d0.resolve("tiny.yaml"), yaml);
        Files.writeString(d1.resolve("tiny.yaml"), yaml.replace("hidden_size: 256", "hidden_size: 128"));
        String[] args = {"dlio", "run", "--config", "tiny.yaml", "--output", "out", "++workload.model.parallelism.pipeline=1",
                "++workload.checkpoint.checkpoint_folder=" + dir.resolve("ckpt")};
        Timed t = openMpi(List.of(app(1, d0, args), app(1, d1, args)));
        everyRankFailsWith(t, 2, PREFIX + "rank 1's DLIO workload (its --config as read, overrides applied) differs "
                + "from rank 0's" + SUFFIX);
        assertFalse(Files.exists(dir.resolve("ckpt")), "nothing written");
        // the same file on both: each rank's own --output is allowed, and the run completes
        Files.writeString(d1.resolve("tiny.yaml"), yaml);
        t = openMpi(List.of(app(1, d0, args), app(1, d1, args)));
        assertEquals(0, t.result().code(), t.result().out() + t.result().err());
        assertTrue(Files.exists(d0.resolve("out/summary.json")));
        assertTrue(Files.exists(d1.resolve("out/1_output.json")));
    }

    @Test
    void mpichRanksDisagreeingFailTheSameWay() throws Exception {
        String target = dir.resolve("m").toString();
        List<String> cmd = new ArrayList<>(Mpirun.mpichPrefix(1));
        cmd.addAll(Mpirun.java(Main.class.getName(), "save", target, "--size", "1MiB", "--chunk", "1MiB"));
        cmd.addAll(List.of(":", "-np", "1"));
        cmd.addAll(Mpirun.java(Main.class.getName(), "save", target, "--size", "1MiB", "--chunk", "1MiB", "--same-seed"));
        long start = System.nanoTime();
        Mpirun.Result r = Mpirun.run(dir, Map.of(), cmd, 180);
        double seconds = (System.nanoTime() - start) / 1e9;
        String all = "stdout:\n" + r.out() + "\nstderr:\n" + r.err();
        assertTrue(r.code() != 0, all);
        assertTrue(seconds < BOUND_SECONDS, seconds + " s: " + all);
        String line = PREFIX + "rank 1 has --same-seed true, rank 0 --same-seed false" + SUFFIX;
        assertEquals(2, r.err().lines().filter(line::equals).count(), all);
        assertEquals("", r.out(), all);
        assertEquals(List.of(), filesIn(dir), "nothing written");
    }
}
