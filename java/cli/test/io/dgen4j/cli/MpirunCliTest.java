package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.launch.Mpirun;
import io.dgen4j.s3.S3ProxyExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dgen4j save} and {@code load --verify} under a real {@code mpirun -np 2} (Open MPI, libmpi through
 * FFM): each rank writes its own shard with its own seed, the ranks start together, and rank 0 alone
 * prints the aggregate. {@code --tag-output} prefixes each line with the rank that printed it.
 */
class MpirunCliTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final Pattern TAG = Pattern.compile("^\\[\\d+,(\\d+)\\]<(stdout|stderr)>:(.*)$");
    private static final String AGGREGATE = "aggregate: 2 ranks %s %s \\(%d bytes\\) in \\d+\\.\\d{3} s \\(slowest rank [01]\\): "
            + "\\d+\\.\\d{3} GB/s; per rank min \\d+\\.\\d{3} / median \\d+\\.\\d{3} / max \\d+\\.\\d{3} GB/s";

    @TempDir
    Path dir;

    /** The CLI on this test's class path (the shaded jar is built after the tests) under mpirun. */
    private Mpirun.Result dgen4j(int ranks, Map<String, String> env, List<String> mpirunExtra, String... args)
            throws Exception {
        List<String> cmd = new ArrayList<>(Mpirun.prefix(ranks, mpirunExtra.toArray(String[]::new)));
        cmd.addAll(Mpirun.java(Main.class.getName(), args));
        return Mpirun.run(dir, env, cmd, 180);
    }

    /** Each rank's stdout lines: rank -> lines (from --tag-output). */
    private static Map<Integer, List<String>> stdoutByRank(Mpirun.Result r) {
        Map<Integer, List<String>> by = new java.util.TreeMap<>();
        for (String line : r.out().lines().toList()) {
            Matcher m = TAG.matcher(line);
            assertTrue(m.matches(), "an untagged line on stdout: " + line + "\n" + r.out());
            if (m.group(2).equals("stdout")) {
                by.computeIfAbsent(Integer.parseInt(m.group(1)), k -> new ArrayList<>()).add(m.group(3));
            }
        }
        return by;
    }

    private static String seedOf(Path manifest) throws Exception {
        return (String) JsonRead.object(Files.readString(manifest)).get("seed");
    }

    private static void ok(Mpirun.Result r) {
        assertEquals(0, r.code(), "stdout:\n" + r.out() + "\nstderr:\n" + r.err());
        assertFalse(r.err().contains("without MPI"), r.err());
    }

    @Test
    void twoRanksSaveTwoShardsWithTheirOwnSeedsAndRankZeroAloneAggregates() throws Exception {
        Path target = dir.resolve("ckpt");
        Mpirun.Result save = dgen4j(2, Map.of(), List.of("--tag-output"), "save", target.toString(), "--size", "4MiB",
                "--chunk", "1MiB", "--no-progress");
        ok(save);
        Map<Integer, List<String>> out = stdoutByRank(save);
        assertEquals(List.of(0), List.copyOf(out.keySet()), "rank 0 alone prints: " + save.out());
        List<String> lines = out.get(0);
        assertEquals(1, lines.stream().filter(l -> l.startsWith("aggregate:")).count(), save.out());
        String aggregate = lines.stream().filter(l -> l.startsWith("aggregate:")).findFirst().orElseThrow();
        assertTrue(aggregate.matches(String.format(AGGREGATE, "saved", "8.00 MiB", 8L << 20)), aggregate);
        System.out.println("mpirun -np 2 save: " + aggregate);
        assertTrue(lines.get(0).equals("saved 4.00 MiB (4194304 bytes) to " + target + ".rank0"), lines.get(0));
        assertTrue(lines.stream().anyMatch(l -> l.matches("  ranks         2 \\(openmpi launch, Open MPI v4\\..*"
                + "\\(libmpi\\.so\\.40\\)\\), base seed \\d+ mixed with each rank")), save.out());
        for (int r = 0; r < 2; r++) {
            Path shard = dir.resolve("ckpt.rank" + r);
            assertEquals(4L << 20, Files.size(shard));
            String seed = seedOf(dir.resolve("ckpt.rank" + r + ".manifest.json"));
            int rank = r;
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("  rank " + rank + " ") && l.contains(shard.toString())
                    && l.contains("seed " + seed + " ")), save.out());
        }
        assertFalse(Files.exists(target));
        assertNotEquals(seedOf(dir.resolve("ckpt.rank0.manifest.json")), seedOf(dir.resolve("ckpt.rank1.manifest.json")));
        assertTrue(Files.mismatch(dir.resolve("ckpt.rank0"), dir.resolve("ckpt.rank1")) >= 0, "different streams");

        Mpirun.Result load = dgen4j(2, Map.of(), List.of("--tag-output"), "load", target.toString(), "--verify",
                "--chunk", "1MiB", "--no-progress");
        ok(load);
        out = stdoutByRank(load);
        assertEquals(List.of(0), List.copyOf(out.keySet()), load.out());
        assertEquals(1, out.get(0).stream().filter(l -> l.matches(String.format(AGGREGATE, "loaded and verified",
                "8.00 MiB", 8L << 20))).count(), load.out());
        assertTrue(out.get(0).get(0).startsWith("loaded 4.00 MiB (4194304 bytes) from " + target + ".rank0: every byte "
                + "verified"), load.out());
        // and each shard verifies on its own, by its name, in a single process
        for (int r = 0; r < 2; r++) {
            Mpirun.Result one = Mpirun.run(dir, Map.of(), Mpirun.java(Main.class.getName(), "load",
                    dir.resolve("ckpt.rank" + r).toString(), "--verify", "--chunk", "1MiB", "--no-progress"), 120);
            assertEquals(0, one.code(), one.err());
            assertTrue(one.out().contains("every byte verified"), one.out());
        }
    }

    @Test
    void jsonIsOneDocumentFromRankZeroAndAnExplicitSeedStillDiffersPerRank() throws Exception {
        Mpirun.Result save = dgen4j(2, Map.of(), List.of("--bind-to", "core"), "save", dir.resolve("p-{rank}.bin").toString(),
                "--size", "2MiB", "--chunk", "1MiB", "--seed", "11", "--no-progress", "--json");
        ok(save);
        Map<String, Object> m = JsonRead.object(save.out()); // one document, nothing else on stdout
        assertEquals(dir.resolve("p-0.bin").toString(), m.get("target"));
        @SuppressWarnings("unchecked")
        Map<String, Object> aggregate = (Map<String, Object>) m.get("aggregate");
        assertEquals(2L, ((Number) aggregate.get("ranks")).longValue());
        assertEquals(4L << 20, ((Number) aggregate.get("totalBytes")).longValue());
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> perRank = (List<Map<String, Object>>) m.get("perRank");
        assertEquals(2, perRank.size());
        for (int r = 0; r < 2; r++) {
            assertEquals(dir.resolve("p-" + r + ".bin").toString(), perRank.get(r).get("target"));
            assertEquals(Long.toUnsignedString(io.dgen4j.launch.Shards.seed(11, r)), perRank.get(r).get("seed"));
            assertEquals(Long.toUnsignedString(io.dgen4j.launch.Shards.seed(11, r)),
                    seedOf(dir.resolve("p-" + r + ".bin.manifest.json")));
            assertEquals(Boolean.TRUE, perRank.get(r).get("ok"));
            // bound to one core each: the mask as it is (one CPU), never divided again
            assertEquals(1L, ((Number) perRank.get(r).get("threads")).longValue(), perRank.toString());
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> launch = (Map<String, Object>) m.get("launch");
        assertEquals("11", launch.get("baseSeed"));
        assertTrue(String.valueOf(launch.get("mpi")).startsWith("Open MPI v4."), launch.toString());
    }

    @Test
    void unboundRanksShareTheirMaskWithTheOtherLocalRanks() throws Exception {
        Mpirun.Result save = dgen4j(2, Map.of(), List.of("--bind-to", "none"), "save", dir.resolve("u").toString(),
                "--size", "1MiB", "--chunk", "1MiB", "--no-progress", "--json");
        ok(save);
        // the ranks inherit this JVM's mask: this JVM's rule for 2 local ranks is theirs
        long expected = io.dgen4j.launch.CpuBudget.threadsFor(new io.dgen4j.launch.LaunchInfo(0, 2, 0, 2, "openmpi"));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> perRank = (List<Map<String, Object>>) JsonRead.object(save.out()).get("perRank");
        for (Map<String, Object> r : perRank) {
            assertEquals(expected, ((Number) r.get("threads")).longValue(), perRank.toString());
        }
    }

    @Test
    void underMpichsLauncherTooRankZeroPrintsTheOnlyDocument() throws Exception {
        List<String> cmd = new ArrayList<>(Mpirun.mpichPrefix(2));
        cmd.addAll(Mpirun.java(Main.class.getName(), "save", dir.resolve("m").toString(), "--size", "2MiB", "--chunk",
                "1MiB", "--no-progress", "--json"));
        Mpirun.Result save = Mpirun.run(dir, Map.of(), cmd, 180);
        ok(save);
        Map<String, Object> m = JsonRead.object(save.out()); // one document: the other rank printed nothing
        @SuppressWarnings("unchecked")
        Map<String, Object> launch = (Map<String, Object>) m.get("launch");
        assertEquals("pmi", launch.get("launcher"));
        assertTrue(String.valueOf(launch.get("mpi")).matches("MPICH Version: 4\\..* \\(libmpich\\.so\\.12\\)"),
                launch.toString());
        @SuppressWarnings("unchecked")
        Map<String, Object> aggregate = (Map<String, Object>) m.get("aggregate");
        assertEquals(4L << 20, ((Number) aggregate.get("totalBytes")).longValue());
        assertNotEquals(seedOf(dir.resolve("m.rank0.manifest.json")), seedOf(dir.resolve("m.rank1.manifest.json")));
    }

    @Test
    void aRankThatFailsIsReportedByRankZeroAndNobodyHangs() throws Exception {
        Mpirun.Result save = dgen4j(2, Map.of(), List.of(), "save", dir.resolve("f").toString(), "--size", "1MiB",
                "--chunk", "1MiB", "--no-progress");
        ok(save);
        Files.delete(dir.resolve("f.rank1"));
        Mpirun.Result load = dgen4j(2, Map.of(), List.of("--tag-output"), "load", dir.resolve("f").toString(),
                "--verify", "--chunk", "1MiB", "--no-progress");
        assertNotEquals(0, load.code(), load.out());
        assertTrue(load.out().contains("[1]"), "rank 1 reports its failure: " + load.out() + load.err());
        assertTrue((load.out() + load.err()).contains("f.rank1"), load.out() + load.err());
        Map<Integer, List<String>> out = stdoutByRank(load);
        assertTrue(out.get(0).stream().anyMatch(l -> l.startsWith("  rank 1 ") && l.endsWith("FAILED")), load.out());
        assertTrue(out.get(0).contains("aggregate: unavailable, rank [1] failed (their own messages say why)"),
                load.out());
    }

    @Test
    void twoRanksSaveTwoObjectsToOneS3EndpointAndVerifyThem() throws Exception {
        Map<String, String> env = Map.of("AWS_ACCESS_KEY_ID", S3ProxyExtension.ACCESS_KEY,
                "AWS_SECRET_ACCESS_KEY", S3ProxyExtension.SECRET_KEY, "AWS_ENDPOINT_URL", S3.endpoint().toString(),
                "AWS_REGION", "us-east-1", "HOME", dir.toString());
        String target = "s3://" + S3.bucket() + "/mpi/ckpt.bin";
        // -x: how a multi-host run forwards the S3 settings (local ranks would inherit them anyway)
        List<String> forward = List.of("--tag-output", "-x", "AWS_ACCESS_KEY_ID", "-x", "AWS_SECRET_ACCESS_KEY",
                "-x", "AWS_ENDPOINT_URL", "-x", "AWS_REGION");
        Mpirun.Result save = dgen4j(2, env, forward, "save", target, "--size", "6MiB", "--chunk", "5MiB", "--no-progress");
        ok(save);
        assertFalse(save.out().contains(S3ProxyExtension.SECRET_KEY) || save.err().contains(S3ProxyExtension.SECRET_KEY));
        Map<Integer, List<String>> out = stdoutByRank(save);
        assertEquals(List.of(0), List.copyOf(out.keySet()), save.out());
        assertEquals(1, out.get(0).stream().filter(l -> l.matches(String.format(AGGREGATE, "saved", "12.00 MiB",
                12L << 20))).count(), save.out());
        for (int r = 0; r < 2; r++) {
            Path object = S3.dataDir().resolve(S3.bucket()).resolve("mpi").resolve("ckpt.bin.rank" + r);
            assertTrue(Files.isRegularFile(object), "object mpi/ckpt.bin.rank" + r + " in " + S3.dataDir());
            assertEquals(6L << 20, Files.size(object));
        }
        Mpirun.Result load = dgen4j(2, env, forward, "load", target, "--verify", "--chunk", "5MiB", "--no-progress");
        ok(load);
        assertEquals(1, stdoutByRank(load).get(0).stream().filter(l -> l.matches(String.format(AGGREGATE,
                "loaded and verified", "12.00 MiB", 12L << 20))).count(), load.out());
    }
}
