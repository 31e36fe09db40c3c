package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.s3.FaultProxy;
import io.dgen4j.s3.S3ProxyExtension;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code dgen4j endpoints} over sets that used to stall it: the documented maximum of 4096 endpoints
 * (listeners of a {@link FaultProxy} on 127.0.0.1, one s3proxy behind them), gateways that accept and
 * never answer, and host names that do not resolve. Each run ends by its deadline with a row per
 * endpoint.
 */
class EndpointsDeadlineCliTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @TempDir
    Path dir;

    private static Map<String, String> env() {
        Map<String, String> e = new HashMap<>();
        e.put("AWS_ACCESS_KEY_ID", S3ProxyExtension.ACCESS_KEY);
        e.put("AWS_SECRET_ACCESS_KEY", S3ProxyExtension.SECRET_KEY);
        e.put("AWS_REGION", "us-east-1");
        return e;
    }

    /** The table's rows: the lines after the header up to the summary. */
    private static List<String> rows(String out) {
        List<String> lines = out.lines().toList();
        return lines.subList(2, lines.size() - 1);
    }

    @Test
    void theDocumentedMaximumOf4096EndpointsPrintsWithinTheDeadline() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(Collections.nCopies(4096, S3.endpoint()))) {
            Path file = Files.writeString(dir.resolve("gateways"), proxy.endpoints().stream().map(URI::toString)
                    .collect(Collectors.joining("\n")));
            Map<String, String> env = env();
            env.put("S3_ENDPOINT_FILE", file.toString());
            long start = System.nanoTime();
            CliRun r = CliRun.hiding(S3ProxyExtension.SECRET_KEY, env, "endpoints", "s3://" + S3.bucket(), "--backend",
                    "aws", "--probes", "1", "--deadline", "60");
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
            assertTrue(seconds <= 60 + 20, "took " + seconds + " s");
            assertTrue(r.out().startsWith("dgen4j endpoints: 4096 endpoints (round_robin), bucket " + S3.bucket()),
                    r.out().lines().findFirst().orElse(""));
            List<String> rows = rows(r.out());
            assertEquals(4096, rows.size());
            long up = rows.stream().filter(l -> l.split("\\s+")[4].equals("up")).count();
            long late = rows.stream().filter(l -> l.split("\\s+")[4].equals("unknown")).count();
            assertEquals(4096, up + late, "every endpoint up, or cut short by the deadline: " + r.out());
            assertTrue(up > 0, "some endpoint answered within 60 s");
            if (late == 0) {
                assertEquals(0, r.code(), r.err());
                assertTrue(r.out().endsWith("4096 of 4096 endpoints up\n"), r.out());
            } else {
                assertEquals(3, r.code(), r.err());
                assertTrue(r.out().endsWith(String.format("%d of 4096 endpoints up, %d not answered within the "
                        + "deadline of 60 s\n", up, late)), r.out());
            }
            assertEquals(4096, rows.stream().map(l -> l.split("\\s+")[0]).distinct().count());
        }
    }

    @Test
    void gatewaysThatNeverAnswerAreReportedByTheDeadline() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(Collections.nCopies(40, S3.endpoint()))) {
            proxy.blackHole(true);
            Map<String, String> env = env();
            env.put("S3_ENDPOINT_URIS", proxy.endpoints().stream().map(URI::toString).collect(Collectors.joining(",")));
            long start = System.nanoTime();
            CliRun r = CliRun.hiding(S3ProxyExtension.SECRET_KEY, env, "endpoints", "s3://" + S3.bucket(), "--backend",
                    "aws", "--timeout", "30", "--deadline", "3", "--parallel", "8");
            double seconds = (System.nanoTime() - start) / 1e9;
            assertTrue(seconds < 3 + 7, "took " + seconds + " s");
            assertEquals(3, r.code(), r.out() + r.err());
            List<String> rows = rows(r.out());
            assertEquals(40, rows.size(), r.out());
            // 8 at once: 8 waiting for their answer, 32 never reached
            assertEquals(8, rows.stream().filter(l -> l.endsWith(" unknown not answered within the deadline of 3 s "
                    + "(--deadline)")).count(), r.out());
            assertEquals(32, rows.stream().filter(l -> l.endsWith(" unknown not probed within the deadline of 3 s "
                    + "(--deadline; 8 endpoints are probed at once, --parallel)")).count(), r.out());
            assertTrue(r.out().endsWith("0 of 40 endpoints up, 40 not answered within the deadline of 3 s\n"), r.out());
            assertEquals("dgen4j: 40 of 40 S3 endpoints did not answer within the deadline of 3 s (--deadline)\n",
                    r.err());
        }
    }

    @Test
    void jsonCountsTheEndpointsTheDeadlineCutShort() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(List.of(S3.endpoint(), S3.endpoint()))) {
            proxy.blackHole(1, true);
            Map<String, String> env = env();
            env.put("S3_ENDPOINT_URIS", proxy.endpoint(0) + "," + proxy.endpoint(1));
            CliRun r = CliRun.hiding(S3ProxyExtension.SECRET_KEY, env, "endpoints", "s3://" + S3.bucket(), "--backend",
                    "aws", "--probes", "2", "--timeout", "60", "--deadline", "15", "--json");
            assertEquals(3, r.code(), r.err());
            Map<String, Object> m = JsonRead.object(r.out());
            assertEquals(15L, ((Number) m.get("deadlineSeconds")).longValue());
            assertEquals(1L, ((Number) m.get("up")).longValue());
            assertEquals(0L, ((Number) m.get("down")).longValue());
            assertEquals(1L, ((Number) m.get("unknown")).longValue());
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> eps = (List<Map<String, Object>>) m.get("endpoints");
            assertEquals("up", eps.get(0).get("state"));
            assertEquals("unknown", eps.get(1).get("state"));
            assertEquals("not answered within the deadline of 15 s (--deadline)", eps.get(1).get("lastFailure"));
            assertEquals(null, eps.get(1).get("failureKind"));
        }
    }

    /**
     * 512 host names that do not resolve, in a CLI process whose JDK resolver reads a hosts file that
     * names only localhost ({@code -Djdk.net.hosts.file}: no lookup leaves the machine). The aws and
     * minio clients resolve through the JDK; the crt backend's native resolver would ask DNS, so it
     * is not run here.
     */
    @ParameterizedTest
    @ValueSource(strings = {"aws", "minio"})
    void hostNamesThatDoNotResolveDoNotStallIt(String backend) throws Exception {
        Path hosts = Files.writeString(dir.resolve("hosts"), "127.0.0.1 localhost\n");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx96m", "-XX:+UseSerialGC", "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow", "-Djdk.net.hosts.file=" + hosts,
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "endpoints", "s3://bkt",
                "--backend", backend, "--endpoint-template", "http://gw{1...512}.invalid:9000", "--deadline", "60"));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("AWS_") || k.startsWith("S3_") || k.startsWith("DGEN4J_"));
        pb.environment().putAll(env());
        pb.redirectOutput(dir.resolve("out").toFile()).redirectError(dir.resolve("err").toFile());
        long start = System.nanoTime();
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("dgen4j endpoints over 512 unresolvable hosts did not return within 120 s");
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        String out = Files.readString(dir.resolve("out"));
        String err = Files.readString(dir.resolve("err"));
        assertEquals(3, p.exitValue(), err);
        List<String> rows = rows(out);
        assertEquals(512, rows.size(), out);
        assertTrue(rows.stream().allMatch(l -> l.split("\\s+")[4].equals("down")), out);
        // the cause names the host that does not resolve
        String gw7 = rows.stream().filter(l -> l.startsWith("http://gw7.invalid:9000 ")).findFirst().orElseThrow();
        assertTrue(backend.equals("aws") ? gw7.endsWith(": unknown host gw7.invalid") : gw7.contains("gw7.invalid"),
                gw7);
        assertTrue(out.endsWith("0 of 512 endpoints up\n"), out);
        assertEquals("dgen4j: 512 of 512 S3 endpoints are down\n", err);
        assertFalse(err.contains("\tat "), err);
        System.out.printf("%s: 512 unresolvable hosts probed in %.1f s (process)%n", backend, seconds);
    }
}
