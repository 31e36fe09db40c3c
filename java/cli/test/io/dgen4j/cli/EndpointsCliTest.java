package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.s3.local.LocalS3Proxy;
import io.dgen4j.s3.S3ProxyExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dgen4j endpoints} and the endpoint-set options against two real s3proxy gateways over one
 * directory (one cluster, two gateways) and a dead endpoint (port 1 of 127.0.0.1, where nothing
 * listens), probed through the test-only {@link HttpProbeTransportFactory}; and the options on save
 * and load.
 */
class EndpointsCliTest {
    private static final String DEAD = "http://127.0.0.1:1";
    private static final String KEY = "endpointskey";
    private static final String SECRET = "endpoints-SECRET-n0tpr1nted-41d2";
    private static Path shared;
    private static LocalS3Proxy a;
    private static LocalS3Proxy b;
    private static String bucket;

    @TempDir
    Path home;

    @BeforeAll
    static void startTwoGateways() throws Exception {
        String jar = System.getProperty(S3ProxyExtension.JAR_PROPERTY);
        assertNotNull(jar, "system property " + S3ProxyExtension.JAR_PROPERTY + " names the s3proxy jar: run the "
                + "tests through Maven");
        shared = Files.createTempDirectory("dgen4j-endpoints-");
        // one after the other: each writes its properties file into the shared directory and reads
        // it as it starts (start returns once it answers)
        a = LocalS3Proxy.start(Path.of(jar), shared, KEY, SECRET);
        b = LocalS3Proxy.start(Path.of(jar), shared, KEY, SECRET);
        bucket = a.createBucket("endpoints-cli");
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (a != null) {
                a.close();
            }
        } finally {
            try {
                if (b != null) {
                    b.close();
                }
            } finally {
                LocalS3Proxy.deleteTree(shared);
            }
        }
    }

    private CliRun run(Map<String, String> env, String... args) {
        return CliRun.hiding(SECRET, env, args);
    }

    private Map<String, String> env(String... kv) {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", home.toString());
        env.put("AWS_ACCESS_KEY_ID", KEY);
        env.put("AWS_SECRET_ACCESS_KEY", SECRET);
        env.put("AWS_REGION", "us-east-1");
        for (int i = 0; i < kv.length; i += 2) {
            env.put(kv[i], kv[i + 1]);
        }
        return env;
    }

    private static String uris(String... endpoints) {
        return String.join(",", endpoints);
    }

    private static String ea() {
        return a.endpoint().toString();
    }

    private static String eb() {
        return b.endpoint().toString();
    }

    /** The table's row of {@code endpoint}, split on blanks. */
    private static List<String> row(String out, String endpoint) {
        List<String> rows = out.lines().filter(l -> l.startsWith(endpoint + " ")).toList();
        assertEquals(1, rows.size(), out);
        return List.of(rows.getFirst().split("\\s+"));
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> endpoints(Map<String, Object> json) {
        return (List<Map<String, Object>>) json.get("endpoints");
    }

    @Test
    void twoGatewaysUpAndADeadEndpointDownWithItsCause() {
        CliRun r = run(env("S3_ENDPOINT_URIS", uris(ea(), eb(), DEAD)), "endpoints", "s3://" + bucket,
                "--backend", HttpProbeTransportFactory.NAME, "--probes", "3");
        assertEquals(3, r.code(), r.out() + r.err());
        assertTrue(r.out().startsWith("dgen4j endpoints: 3 endpoints (round_robin), bucket " + bucket
                + ", backend test-http, 3 HEAD-bucket probes each\n"), r.out());
        assertEquals(List.of("endpoint", "probes", "p50", "ms", "p99", "ms", "state", "cause"),
                List.of(r.out().lines().toList().get(1).split("\\s+")));
        List<String> upA = row(r.out(), ea());
        assertEquals(List.of("3/3", "up", "-"), List.of(upA.get(1), upA.get(4), upA.get(5)), r.out());
        assertTrue(Double.parseDouble(upA.get(2)) > 0 && Double.parseDouble(upA.get(3)) >= Double.parseDouble(upA.get(2)));
        List<String> upB = row(r.out(), eb());
        assertEquals(List.of("3/3", "up"), List.of(upB.get(1), upB.get(4)), r.out());
        List<String> down = row(r.out(), DEAD);
        assertEquals(List.of("0/1", "-", "-", "down"), down.subList(1, 5), r.out());
        assertTrue(r.out().contains("down  HeadBucket of s3://" + bucket + " at " + DEAD + ": connection refused\n"),
                r.out());
        assertTrue(r.out().endsWith("2 of 3 endpoints up\n"), r.out());
        assertEquals("dgen4j: 1 of 3 S3 endpoints are down\n", r.err());
    }

    @Test
    void jsonIsOneObjectWithEveryEndpoint() {
        CliRun r = run(env("S3_ENDPOINT_URIS", uris(DEAD, ea(), eb()), "S3_LOAD_BALANCE_STRATEGY", "rank",
                        "OMPI_COMM_WORLD_RANK", "4", "OMPI_COMM_WORLD_SIZE", "6", "DGEN4J_S3_BACKEND", "test-http"),
                "endpoints", "s3://" + bucket + "/some/key", "--json", "--probes", "2");
        assertEquals(3, r.code(), r.err());
        assertEquals(1, r.out().lines().count(), r.out());
        Map<String, Object> m = JsonRead.object(r.out());
        assertEquals(bucket, m.get("bucket"));
        assertEquals("test-http", m.get("backend"));
        assertEquals("rank", m.get("strategy"));
        assertEquals(4L, ((Number) m.get("rank")).longValue());
        assertEquals(2L, ((Number) m.get("up")).longValue());
        assertEquals(1L, ((Number) m.get("down")).longValue());
        List<Map<String, Object>> list = endpoints(m);
        assertEquals(List.of(DEAD, ea(), eb()), list.stream().map(e -> e.get("endpoint")).toList());
        assertEquals(List.of("down", "up", "up"), list.stream().map(e -> e.get("state")).toList());
        assertEquals("HeadBucket of s3://" + bucket + " at " + DEAD + ": connection refused",
                list.get(0).get("lastFailure"));
        assertEquals("endpoint", list.get(0).get("failureKind"));
        assertEquals(1L, ((Number) list.get(0).get("errors")).longValue());
        assertEquals(1L, ((Number) list.get(0).get("markedDown")).longValue());
        for (Map<String, Object> up : list.subList(1, 3)) {
            assertEquals(2L, ((Number) up.get("requests")).longValue());
            assertEquals(2L, ((Number) up.get("probesOk")).longValue());
            assertEquals(0L, ((Number) up.get("errors")).longValue());
            assertEquals("", up.get("lastFailure"));
            assertEquals(null, up.get("failureKind"));
            assertTrue(((Number) up.get("p50Millis")).doubleValue() > 0, up.toString());
        }
        CliRun allUp = run(env("S3_ENDPOINT_URIS", uris(ea(), eb()), "DGEN4J_S3_BACKEND", "test-http"),
                "endpoints", "s3://" + bucket, "--json", "--probes", "1", "--balance", "least_connections",
                "--pin-upload");
        assertEquals(0, allUp.code(), allUp.err());
        assertEquals("", allUp.err());
        Map<String, Object> ok = JsonRead.object(allUp.out());
        assertEquals("least_connections", ok.get("strategy"));
        assertEquals(true, ok.get("pinUpload"));
        assertEquals(0L, ((Number) ok.get("down")).longValue());
    }

    @Test
    void aMissingBucketIsARequestFailureOnEveryGateway() {
        CliRun r = run(env("S3_ENDPOINT_URIS", uris(ea(), eb())), "endpoints", "s3://no-such-bucket-here",
                "--backend", "test-http", "--json");
        assertEquals(3, r.code(), r.err());
        for (Map<String, Object> e : endpoints(JsonRead.object(r.out()))) {
            assertEquals("down", e.get("state"));
            assertEquals("request", e.get("failureKind"));
            assertEquals(1L, ((Number) e.get("requests")).longValue(), "probes stop at the first failure");
            assertEquals("HeadBucket of s3://no-such-bucket-here at " + e.get("endpoint")
                    + ": the bucket does not exist (HTTP 404)", e.get("lastFailure"));
        }
    }

    @Test
    void optionsOverrideTheEnvironment() throws IOException {
        Map<String, String> deadEnv = env("S3_ENDPOINT_URIS", DEAD, "S3_LOAD_BALANCE_STRATEGY", "rank",
                "DGEN4J_S3_BACKEND", "test-http", "DGEN4J_S3_BUCKET", bucket);
        CliRun flags = run(deadEnv, "endpoints", "--endpoints", ea(), "--endpoints", eb(), "--probes", "1");
        assertEquals(0, flags.code(), flags.out() + flags.err());
        assertTrue(flags.out().startsWith("dgen4j endpoints: 2 endpoints (rank, rank 0 uses " + ea() + "), bucket "
                + bucket), flags.out());
        assertFalse(flags.out().contains(DEAD), flags.out());
        CliRun balanced = run(deadEnv, "endpoints", "--endpoints", uris(ea(), eb()), "--balance", "round-robin",
                "--probes", "1");
        assertEquals(0, balanced.code(), balanced.err());
        assertTrue(balanced.out().startsWith("dgen4j endpoints: 2 endpoints (round_robin), "), balanced.out());

        String port = Integer.toString(a.endpoint().getPort());
        CliRun template = run(deadEnv, "endpoints", "--endpoint-template", "http://127.0.0.{1...1}:" + port,
                "--probes", "1");
        assertEquals(0, template.code(), template.err());
        assertTrue(template.out().startsWith("dgen4j endpoints: 1 endpoint (rank, rank 0 uses " + ea() + ")"),
                template.out());

        Path file = Files.writeString(home.resolve("gateways.txt"), "# cluster\n" + eb() + "\n\n" + DEAD + "  # gone\n");
        CliRun fromFile = run(env("DGEN4J_S3_BACKEND", "test-http", "AWS_ENDPOINT_URL", ea()), "endpoints",
                "s3://" + bucket, "--endpoint-file", file.toString(), "--probes", "1", "--json");
        assertEquals(3, fromFile.code(), fromFile.err());
        assertEquals(List.of(eb(), DEAD), endpoints(JsonRead.object(fromFile.out())).stream()
                .map(e -> e.get("endpoint")).toList());

        // --backend over DGEN4J_S3_BACKEND
        CliRun backend = run(env("DGEN4J_S3_BACKEND", "nope", "AWS_ENDPOINT_URL", ea()), "endpoints", "s3://" + bucket,
                "--backend", "test-http", "--probes", "1");
        assertEquals(0, backend.code(), backend.err());
    }

    @Test
    void theEnvironmentsPrecedenceEndToEnd() throws IOException {
        Path file = Files.writeString(home.resolve("eps"), DEAD + "\n");
        String template = "http://127.0.0.{1...1}:" + b.endpoint().getPort();
        // URIS over TEMPLATE over FILE; any of them over AWS_ENDPOINT_URL
        CliRun uris = run(env("S3_ENDPOINT_URIS", ea(), "S3_ENDPOINT_TEMPLATE", template, "S3_ENDPOINT_FILE",
                file.toString(), "AWS_ENDPOINT_URL", DEAD), "endpoints", "s3://" + bucket, "--backend", "test-http",
                "--json", "--probes", "1");
        assertEquals(0, uris.code(), uris.err());
        assertEquals(List.of(ea()), endpoints(JsonRead.object(uris.out())).stream().map(e -> e.get("endpoint")).toList());
        CliRun tmpl = run(env("S3_ENDPOINT_TEMPLATE", template, "S3_ENDPOINT_FILE", file.toString(),
                "AWS_ENDPOINT_URL", DEAD), "endpoints", "s3://" + bucket, "--backend", "test-http", "--json",
                "--probes", "1");
        assertEquals(0, tmpl.code(), tmpl.err());
        assertEquals(List.of(eb()), endpoints(JsonRead.object(tmpl.out())).stream().map(e -> e.get("endpoint")).toList());
        CliRun fromFile = run(env("S3_ENDPOINT_FILE", file.toString(), "AWS_ENDPOINT_URL", ea()), "endpoints",
                "s3://" + bucket, "--backend", "test-http", "--json", "--probes", "1");
        assertEquals(3, fromFile.code(), fromFile.err());
        assertEquals(List.of(DEAD), endpoints(JsonRead.object(fromFile.out())).stream().map(e -> e.get("endpoint"))
                .toList());
        // no set: the single endpoint alone, and no strategy
        CliRun single = run(env("AWS_ENDPOINT_URL", eb()), "endpoints", "s3://" + bucket, "--backend", "test-http",
                "--json", "--probes", "1");
        assertEquals(0, single.code(), single.err());
        Map<String, Object> m = JsonRead.object(single.out());
        assertEquals(null, m.get("strategy"));
        assertEquals(List.of(eb()), endpoints(m).stream().map(e -> e.get("endpoint")).toList());
    }

    @Test
    void badValuesAreUsageErrorsNamingTheEntry() throws IOException {
        Map<String, String> env = env("AWS_ENDPOINT_URL", ea(), "DGEN4J_S3_BACKEND", "test-http");
        String target = "s3://" + bucket;
        assertUsage(run(env, "endpoints", target, "--endpoints", ea() + ",ftp://gw2:21"),
                "dgen4j: --endpoints entry 2 must be an http:// or https:// URL with a host, got 'ftp://gw2:21'");
        assertUsage(run(env, "endpoints", target, "--endpoint-template", "http://10.0.0.{8...1}:9000"),
                "dgen4j: --endpoint-template 'http://10.0.0.{8...1}:9000': range {8...1} ends below its start");
        assertUsage(run(env, "endpoints", target, "--endpoint-template", "http://10.0.0.{x...4}:9000"),
                "dgen4j: --endpoint-template 'http://10.0.0.{x...4}:9000': '{x...4}' is not a range: write "
                        + "{first...last} with decimal numbers, e.g. {1...8} or {01...16}");
        Path missing = home.resolve("no-such-file");
        assertUsage(run(env, "endpoints", target, "--endpoint-file", missing.toString()),
                "dgen4j: --endpoint-file " + missing + ": no such file");
        Path bad = Files.writeString(home.resolve("bad"), ea() + "\n" + "gw:9000\n");
        assertUsage(run(env, "endpoints", target, "--endpoint-file", bad.toString()),
                "dgen4j: --endpoint-file " + bad + ":2 must be an http:// or https:// URL with a host, got 'gw:9000': "
                        + "write http://gw:9000 (or https://)");
        assertUsage(run(env, "endpoints", target, "--balance", "fastest"),
                "dgen4j: invalid value for option '--balance': unknown load-balancing strategy 'fastest': use "
                        + "round_robin, least_connections or rank (see 'dgen4j endpoints --help')");
        assertUsage(run(env, "endpoints", target, "--endpoints", ea(), "--endpoint-template", "http://h{1...2}:1"),
                "dgen4j: give one of --endpoints, --endpoint-template and --endpoint-file, not 2");
        assertUsage(run(env, "endpoints", target, "--balance", "rank"),
                "dgen4j: --balance applies to a set of S3 endpoints: give --endpoints, --endpoint-template or "
                        + "--endpoint-file, or set S3_ENDPOINT_URIS, S3_ENDPOINT_TEMPLATE or S3_ENDPOINT_FILE");
        assertUsage(run(env("S3_ENDPOINT_URIS", ea() + ",10.0.0.2:9000"), "endpoints", target),
                "dgen4j: S3_ENDPOINT_URIS entry 2 must be an http:// or https:// URL with a host, got '10.0.0.2:9000': "
                        + "write http://10.0.0.2:9000 (or https://)");
        assertUsage(run(env, "endpoints", target, "--probes", "0"), "dgen4j: --probes must be in [1, 1000], got 0");
        assertUsage(run(env, "endpoints"), "dgen4j: no bucket to probe: give s3://bucket or set DGEN4J_S3_BUCKET");
        assertUsage(run(env, "endpoints", target, "--backend", "nope"),
                "dgen4j: backend 'nope' cannot probe endpoints: it has no per-endpoint transport installed "
                        + "(backends that have one: " + String.join(", ", io.dgen4j.s3.S3StorageProvider.clients().stream()
                        .map(c -> c.name()).sorted().toList()) + ")");
        assertUsage(run(env, "backends", target, "--endpoints", "http://ok:1,ftp://b:2"),
                "dgen4j: --endpoints entry 2 must be an http:// or https:// URL with a host, got 'ftp://b:2'");
        assertUsage(run(env, "quickstart", "--size", "1MiB", "--endpoint-template", "http://h{2...1}:1"),
                "dgen4j: --endpoint-template 'http://h{2...1}:1': range {2...1} ends below its start");
        assertUsage(run(env, "quickstart", "--no-s3", "--size", "1MiB", "--pin-upload"),
                "dgen4j: --pin-upload applies to part 2, which --no-s3 skips");
        // the options apply to s3:// targets only
        assertUsage(run(env, "save", home.resolve("x.bin").toString(), "--size", "1MiB", "--endpoints", ea(),
                "--no-progress"), "dgen4j: --endpoints applies to s3:// targets, not " + home.resolve("x.bin"));
    }

    private static void assertUsage(CliRun r, String line) {
        assertEquals(2, r.code(), r.out() + r.err());
        assertEquals("", r.out());
        assertEquals(List.of(line), r.err().lines().toList());
    }

    @Test
    void saveAndLoadTakeTheOptions() {
        // the aws backend reaches the set's first endpoint until the shared driver spreads parts;
        // the two gateways share their files, so a save through one loads through the other
        String target = "s3://" + bucket + "/opts/ckpt.bin";
        CliRun save = run(env("S3_ENDPOINT_URIS", DEAD), "save", target, "--size", "6MiB", "--chunk", "5MiB",
                "--no-progress", "--backend", "aws", "--endpoints", uris(ea(), eb()), "--balance",
                "least_connections", "--json");
        assertEquals(0, save.code(), save.err());
        assertTrue(save.out().contains(ea()), save.out());
        CliRun load = run(env("S3_ENDPOINT_URIS", DEAD), "load", target, "--verify", "--chunk", "5MiB",
                "--no-progress", "--backend", "aws", "--endpoint-template", "http://127.0.0.{1...1}:"
                        + b.endpoint().getPort(), "--json");
        assertEquals(0, load.code(), load.err());
        assertTrue(load.out().contains("\"verified\":true"), load.out());
        assertTrue(load.out().contains(" at http://127.0.0.1:" + b.endpoint().getPort()), load.out());
        CliRun bad = run(env(), "load", target, "--endpoints", "http://ok:1,http://", "--no-progress");
        assertEquals(2, bad.code(), bad.err());
        assertTrue(bad.err().startsWith("dgen4j: --endpoints entry 2 must be an http:// or https:// URL with a host"),
                bad.err());
    }
}
