package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.azure.AzureSettings;
import io.dgen4j.azure.AzuriteExtension;
import io.dgen4j.s3.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code --endpoints} with {@code az://} targets through the CLI (in process): two listeners of a forwarding
 * proxy in front of one Azurite, given without the account path (taken from the connection string's
 * endpoint); the JSON names each endpoint's figures, one listener down is failed over, both down fail in one
 * line with exit 3, and the S3-only options are refused with exit 2.
 */
class AzureEndpointsCliTest {
    @RegisterExtension
    static final AzuriteExtension AZ = new AzuriteExtension();

    private static final String TARGET = "az://" + AzuriteExtension.CONTAINER + "/cli-endpoints/ckpt.bin";

    private static CliRun run(String... args) {
        return CliRun.hiding(AZ.key(), Map.of(AzureSettings.CONNECTION_STRING, AZ.connectionString()), args);
    }

    private static String[] args(String command, FaultProxy p, String... more) {
        List<String> a = new ArrayList<>(List.of(command, TARGET, "--endpoints", p.endpoint(0) + "," + p.endpoint(1),
                "--no-progress", "--json"));
        a.addAll(List.of(more));
        return a.toArray(String[]::new);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> endpoint(CliRun r, String uri) {
        List<Map<String, Object>> all = (List<Map<String, Object>>) JsonRead.object(r.out()).get("endpoints");
        return all.stream().filter(e -> uri.equals(e.get("endpoint"))).findFirst()
                .orElseThrow(() -> new AssertionError(uri + " not in " + r.out()));
    }

    private static long number(Map<String, Object> m, String key) {
        return ((Number) m.get(key)).longValue();
    }

    private static String account(FaultProxy p, int i) {
        return p.endpoint(i) + "/" + AzureSettings.DEV_ACCOUNT;
    }

    @Test
    void saveAndVerifiedLoadSpreadOverTheEndpointsAndFailOverOneThatIsDown() throws Exception {
        try (FaultProxy p = FaultProxy.start(List.of(AZ.endpoint(), AZ.endpoint()))) {
            CliRun save = run(args("save", p, "--size", "16MiB", "--chunk", "1MiB", "--writers", "2", "--buffers",
                    "3"));
            assertEquals(0, save.code(), save.err());
            for (int i = 0; i < 2; i++) {
                Map<String, Object> e = endpoint(save, account(p, i));
                assertTrue(number(e, "bytes") >= 4 << 20, save.out());
                assertEquals("up", e.get("state"), save.out());
            }
            CliRun load = run(args("load", p, "--verify", "--chunk", "1MiB"));
            assertEquals(0, load.code(), load.err());
            assertEquals(Boolean.TRUE, JsonRead.object(load.out()).get("verified"), load.out());
            assertTrue(number(endpoint(load, account(p, 0)), "requests") >= 2, load.out());
            assertTrue(number(endpoint(load, account(p, 1)), "requests") >= 2, load.out());

            p.outage(0, Duration.ofMinutes(2));
            save = run(args("save", p, "--size", "8MiB", "--chunk", "1MiB"));
            assertEquals(0, save.code(), save.err());
            assertTrue(number(endpoint(save, account(p, 0)), "markedDown") >= 1, save.out());
            assertEquals(8L << 20, number(endpoint(save, account(p, 1)), "bytes"), save.out());
            load = run(args("load", p, "--verify", "--chunk", "1MiB"));
            assertEquals(0, load.code(), load.err());
            assertEquals(Boolean.TRUE, JsonRead.object(load.out()).get("verified"), load.out());
        }
    }

    @Test
    void everyEndpointDownFailsInOneLineWithExit3() throws Exception {
        try (FaultProxy p = FaultProxy.start(List.of(AZ.endpoint(), AZ.endpoint()))) {
            p.outage(0, Duration.ofMinutes(2));
            p.outage(1, Duration.ofMinutes(2));
            long started = System.nanoTime();
            CliRun save = CliRun.hiding(AZ.key(), Map.of(AzureSettings.CONNECTION_STRING, AZ.connectionString()),
                    "save", TARGET + ".down", "--size", "4MiB", "--chunk", "1MiB", "--endpoints",
                    p.endpoint(0) + "," + p.endpoint(1), "--no-progress");
            double seconds = (System.nanoTime() - started) / 1e9;
            assertEquals(3, save.code(), save.err());
            assertTrue(seconds < 20, seconds + " s");
            String err = save.err().strip();
            assertFalse(err.contains("\n"), err);
            assertTrue(err.contains(account(p, 0)) && err.contains(account(p, 1)), err);
            assertTrue(err.contains("Connection refused"), err);
        }
    }

    @Test
    void theS3OnlyOptionsAreRefusedForAzureTargets() {
        CliRun r = run("save", TARGET, "--size", "1MiB", "--endpoints", "http://127.0.0.1:1,http://127.0.0.1:2",
                "--balance", "least_connections", "--no-progress");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("--balance") && r.err().contains("az://"), r.err());
        r = run("save", TARGET, "--size", "1MiB", "--endpoints", "http://127.0.0.1:1", "--part-size", "8MiB",
                "--no-progress");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("--part-size") || r.err().contains("s3://"), r.err());
    }
}
