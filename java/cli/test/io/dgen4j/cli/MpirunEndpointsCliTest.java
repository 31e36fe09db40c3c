package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.launch.Mpirun;
import io.dgen4j.s3.S3ProxyExtension;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code rank} strategy under a real {@code mpirun} (Open MPI, libmpi through FFM) over two real s3proxy
 * gateways of one store: rank r sends every request of its shard to endpoint r % 2, each rank's object has its
 * own seed, and {@code load --verify} of the shards passes; rank 0's JSON shows each rank's requests per
 * endpoint ({@code perRank[].endpoints}). The S3 settings reach the ranks with {@code -x}, as a multi-host run
 * forwards them.
 */
class MpirunEndpointsCliTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension(2);
    private static final long SHARD = 6L << 20;

    @TempDir
    Path dir;

    private static Map<String, String> env() {
        return Map.of("AWS_ACCESS_KEY_ID", S3ProxyExtension.ACCESS_KEY,
                "AWS_SECRET_ACCESS_KEY", S3ProxyExtension.SECRET_KEY, "AWS_REGION", "us-east-1",
                "S3_ENDPOINT_URIS", endpoints());
    }

    private static String endpoints() {
        return String.join(",", S3.endpoints().stream().map(URI::toString).toList());
    }

    /** {@code mpirun -np ranks -x AWS_... -x S3_... java ... Main args}: every variable forwarded by name. */
    private Mpirun.Result dgen4j(int ranks, List<String> extra, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        List<String> forward = new ArrayList<>(List.of("-x", "AWS_ACCESS_KEY_ID", "-x", "AWS_SECRET_ACCESS_KEY",
                "-x", "AWS_REGION", "-x", "S3_ENDPOINT_URIS"));
        forward.addAll(extra);
        cmd.addAll(Mpirun.prefix(ranks, forward.toArray(String[]::new)));
        cmd.addAll(Mpirun.java(Main.class.getName(), args));
        Mpirun.Result r = Mpirun.run(dir, env(), cmd, 180);
        assertEquals(0, r.code(), "stdout:\n" + r.out() + "\nstderr:\n" + r.err());
        assertFalse(r.err().contains("without MPI"), r.err());
        assertFalse(r.out().contains(S3ProxyExtension.SECRET_KEY) || r.err().contains(S3ProxyExtension.SECRET_KEY));
        return r;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Object o) {
        return (List<Map<String, Object>>) o;
    }

    private static long number(Map<String, Object> m, String key) {
        return ((Number) m.get(key)).longValue();
    }

    /**
     * Checks rank 0's one document: rank r's requests all on endpoint r % 2, {@link #SHARD} bytes there, none on
     * the other; returns the ranks' seeds (null for a load).
     */
    private static List<String> checkRanks(String json, int ranks, String key) {
        Map<String, Object> m = JsonRead.object(json); // one document, nothing else on stdout
        List<Map<String, Object>> perRank = list(m.get("perRank"));
        assertEquals(ranks, perRank.size(), json);
        assertEquals((long) ranks * SHARD, number((Map<String, Object>) m.get("aggregate"), "totalBytes"), json);
        List<String> seeds = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            Map<String, Object> rank = perRank.get(r);
            assertEquals("s3://" + S3.bucket() + "/" + key + ".rank" + r, rank.get("target"), json);
            assertEquals(Boolean.TRUE, rank.get("ok"), json);
            List<Map<String, Object>> eps = list(rank.get("endpoints"));
            assertEquals(2, eps.size(), json);
            for (int i = 0; i < 2; i++) {
                Map<String, Object> e = eps.get(i);
                assertEquals(S3.endpoint(i).toString(), e.get("endpoint"), json);
                assertEquals(0L, number(e, "errors"), json);
                if (i == r % 2) {
                    assertTrue(number(e, "requests") > 0, "rank " + r + " on endpoint " + i + ": " + json);
                    assertEquals(SHARD, number(e, "bytes"), "rank " + r + " on endpoint " + i + ": " + json);
                } else {
                    assertEquals(0L, number(e, "requests"), "rank " + r + " never on endpoint " + i + ": " + json);
                }
            }
            seeds.add((String) rank.get("seed"));
        }
        // rank 0's own figures: endpoint 0 alone
        List<Map<String, Object>> own = list(m.get("endpoints"));
        assertEquals(List.of(S3.endpoint(0).toString(), S3.endpoint(1).toString()),
                own.stream().map(e -> e.get("endpoint")).toList(), json);
        assertEquals(0L, number(own.get(1), "requests"), json);
        return seeds;
    }

    @Test
    void twoRanksEachUseTheirOwnEndpointWithTheirOwnSeedAndVerify() throws Exception {
        String target = "s3://" + S3.bucket() + "/ckpt/model.bin";
        Mpirun.Result save = dgen4j(2, List.of(), "save", target, "--size", Long.toString(SHARD), "--chunk", "5MiB",
                "--no-progress", "--backend", "aws", "--endpoints", endpoints(), "--balance", "rank", "--json");
        System.out.println("mpirun -np 2 save --balance rank --json:\n" + save.out());
        List<String> seeds = checkRanks(save.out(), 2, "ckpt/model.bin");
        assertEquals(2, new HashSet<>(seeds).size(), "each rank its own seed: " + seeds);
        assertTrue(((String) JsonRead.object(save.out()).get("backend")).contains("2 endpoints (rank): ["), save.out());

        // the strategy from the environment this time, forwarded as mpirun -x NAME=value sets it; the text
        // report: rank 0's table (its requests all on endpoint 0) and the aggregate line, printed once
        Mpirun.Result text = dgen4j(2, List.of("-x", "S3_LOAD_BALANCE_STRATEGY=rank"), "load", target, "--verify",
                "--chunk", "5MiB", "--no-progress", "--backend", "aws");
        assertTrue(text.out().startsWith("loaded 6.00 MiB (6291456 bytes) from " + target + ".rank0: every byte verified"),
                text.out());
        assertTrue(text.out().contains(" at 2 endpoints (rank): ["), text.out());
        List<String> idle = text.out().lines().map(String::strip).filter(x -> x.startsWith(S3.endpoint(1) + " "))
                .toList();
        assertEquals(1, idle.size(), text.out());
        assertEquals("0", idle.getFirst().split("\\s+")[1], "rank 0 never reads from endpoint 1: " + text.out());
        List<String> aggregate = text.out().lines().filter(x -> x.startsWith("aggregate:")).toList();
        assertEquals(1, aggregate.size(), text.out());
        assertTrue(aggregate.getFirst().startsWith("aggregate: 2 ranks loaded and verified 12.00 MiB (12582912 bytes)"),
                text.out());
        System.out.println("mpirun -np 2 load --verify (rank strategy):\n" + text.out());
    }

    @Test
    void threeRanksOnTwoEndpointsPutRankTwoOnEndpointZero() throws Exception {
        String target = "s3://" + S3.bucket() + "/three/model.bin";
        Mpirun.Result save = dgen4j(3, List.of(), "save", target, "--size", Long.toString(SHARD), "--chunk", "5MiB",
                "--no-progress", "--backend", "aws", "--endpoints", endpoints(), "--balance", "rank", "--json");
        Set<String> seeds = new HashSet<>(checkRanks(save.out(), 3, "three/model.bin"));
        assertEquals(3, seeds.size(), save.out());
        Mpirun.Result load = dgen4j(3, List.of(), "load", target, "--verify", "--chunk", "5MiB", "--no-progress",
                "--backend", "aws", "--endpoints", endpoints(), "--balance", "rank", "--json");
        checkRanks(load.out(), 3, "three/model.bin");
        assertEquals(Boolean.TRUE, JsonRead.object(load.out()).get("verified"), load.out());
    }
}
