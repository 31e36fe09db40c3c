package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.s3.S3ProxyExtension;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/** {@code --part-size} and {@code --checksums} (and their variables) of save and load, against s3proxy. */
class S3TransferCliTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @TempDir
    Path home;

    private CliRun run(Map<String, String> env, String... args) {
        return CliRun.hiding(S3ProxyExtension.SECRET_KEY, env, args);
    }

    private Map<String, String> env(String... kv) {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", home.toString());
        env.put("AWS_ACCESS_KEY_ID", S3ProxyExtension.ACCESS_KEY);
        env.put("AWS_SECRET_ACCESS_KEY", S3ProxyExtension.SECRET_KEY);
        env.put("AWS_ENDPOINT_URL", S3.endpoint().toString());
        env.put("AWS_REGION", "us-east-1");
        for (int i = 0; i < kv.length; i += 2) {
            env.put(kv[i], kv[i + 1]);
        }
        return env;
    }

    /** One client for the ETags: each client's close costs its event loops' quiet period. */
    private static S3AsyncClient raw;

    @BeforeAll
    static void client() {
        raw = S3AsyncClient.builder().endpointOverride(S3.endpoint()).region(Region.US_EAST_1)
                .forcePathStyle(true).credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                        S3ProxyExtension.ACCESS_KEY, S3ProxyExtension.SECRET_KEY)))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED).build();
    }

    @AfterAll
    static void closeClient() {
        raw.close();
    }

    /** The ETag the server gave the object: a multipart object's ends in {@code -<parts>}. */
    private static String etag(String key) {
        return raw.headObject(b -> b.bucket(S3.bucket()).key(key)).join().eTag();
    }

    @Test
    void thePartsHaveTheAskedSizeThroughEveryBackend() {
        for (String backend : List.of("aws", "crt", "minio")) {
            String key = "parts/" + backend + ".bin";
            String target = "s3://" + S3.bucket() + "/" + key;
            // 23 MiB in chunks of 10 MiB: parts of 5 MiB make 5 parts (the last 3 MiB), chunks alone would make 3
            CliRun save = run(env(), "save", target, "--size", "23MiB", "--chunk", "10MiB", "--part-size", "5MiB",
                    "--buffers", "3", "--writers", "2", "--seed", "11", "--no-progress", "--backend", backend, "--json");
            assertEquals(0, save.code(), backend + ": " + save.err());
            assertTrue(etag(key).replace("\"", "").endsWith("-5"), backend + ": " + etag(key));
            CliRun load = run(env(), "load", target, "--verify", "--chunk", "10MiB", "--no-progress", "--backend", backend,
                    "--json");
            assertEquals(0, load.code(), backend + ": " + load.err());
            assertTrue(load.out().contains("\"verified\":true"), load.out());
        }
        // the variable does the same; the default is one part per chunk
        String key = "parts/env.bin";
        CliRun save = run(env("DGEN4J_S3_PART_SIZE", "5MiB"), "save", "s3://" + S3.bucket() + "/" + key, "--size",
                "23MiB", "--chunk", "10MiB", "--no-progress", "--backend", "aws");
        assertEquals(0, save.code(), save.err());
        assertTrue(etag(key).replace("\"", "").endsWith("-5"), etag(key));
        CliRun plain = run(env(), "save", "s3://" + S3.bucket() + "/" + key, "--size", "23MiB", "--chunk", "10MiB",
                "--no-progress", "--backend", "aws");
        assertEquals(0, plain.code(), plain.err());
        assertTrue(etag(key).replace("\"", "").endsWith("-3"), etag(key));
    }

    @Test
    void fullChecksumsSaveAndLoadThroughEveryBackend() {
        for (String backend : List.of("aws", "crt", "minio")) {
            String target = "s3://" + S3.bucket() + "/sums/" + backend + ".bin";
            CliRun save = run(env(), "save", target, "--size", "12MiB", "--chunk", "6MiB", "--checksums", "full",
                    "--seed", "5", "--no-progress", "--backend", backend);
            assertEquals(0, save.code(), backend + ": " + save.err());
            CliRun load = run(env("DGEN4J_S3_CHECKSUMS", "full"), "load", target, "--verify", "--chunk", "6MiB",
                    "--no-progress", "--backend", backend, "--json");
            assertEquals(0, load.code(), backend + ": " + load.err());
            assertTrue(load.out().contains("\"verified\":true"), load.out());
        }
    }

    @Test
    void badValuesAreUsageErrorsNamingTheOption() {
        // nothing is sent: every one of these is refused before a request or any data
        Map<String, String> env = env("AWS_ENDPOINT_URL", "http://127.0.0.1:1");
        String target = "s3://" + S3.bucket() + "/bad.bin";
        assertUsage(run(env, "save", target, "--size", "20MiB", "--part-size", "4MiB", "--no-progress"),
                "dgen4j: --part-size 4MiB is outside S3's limits: parts are 5MiB to 5GiB");
        assertUsage(run(env, "save", target, "--size", "20MiB", "--part-size", "6GiB", "--no-progress"),
                "dgen4j: --part-size 6GiB is outside S3's limits: parts are 5MiB to 5GiB");
        assertUsage(run(env, "save", target, "--size", "30MiB", "--chunk", "10MiB", "--part-size", "6MiB",
                "--no-progress"), "dgen4j: --part-size 6MiB does not divide --chunk 10MiB: each chunk is sent as "
                        + "whole parts, so the chunk size must be a multiple of the part size (e.g. --part-size 5MiB)");
        assertUsage(run(env("AWS_ENDPOINT_URL", "http://127.0.0.1:1", "DGEN4J_S3_PART_SIZE", "7MiB"), "save", target,
                "--size", "64MiB", "--chunk", "32MiB", "--no-progress"), "dgen4j: DGEN4J_S3_PART_SIZE=7MiB does not "
                        + "divide --chunk 32MiB: each chunk is sent as whole parts, so the chunk size must be a multiple "
                        + "of the part size (e.g. --part-size 8MiB)");
        assertUsage(run(env, "save", target, "--size", "100GiB", "--chunk", "5MiB", "--part-size", "5MiB",
                "--no-progress"), "dgen4j: --part-size 5MiB: a 100 GiB object in 5 MiB parts needs 20480 parts; S3 "
                        + "allows 10000: use a part size of at least 10.25 MiB (10737419 bytes)");
        assertUsage(run(env, "save", target, "--size", "20MiB", "--chunk", "1MiB", "--no-progress"),
                "dgen4j: --chunk 1MiB is below S3's smallest part (5MiB): each chunk is sent as whole parts, so use a "
                        + "--chunk of 5MiB or more");
        assertUsage(run(env, "save", target, "--size", "20MiB", "--checksums", "when_supported", "--no-progress"),
                "dgen4j: invalid value for option '--checksums': --checksums must be crc32c, when_required or full, "
                        + "got 'when_supported' (see 'dgen4j save --help')");
        assertUsage(run(env("AWS_ENDPOINT_URL", "http://127.0.0.1:1", "DGEN4J_S3_CHECKSUMS", "some"), "save", target,
                "--size", "20MiB", "--no-progress"), "dgen4j: DGEN4J_S3_CHECKSUMS must be crc32c, when_required or "
                        + "full, got 'some'");
        assertUsage(run(env, "load", target, "--part-size", "8MiB", "--no-progress"),
                "dgen4j: --part-size applies to save: a load reads ranges of --chunk bytes");
        Path file = home.resolve("x.bin");
        assertUsage(run(env, "save", file.toString(), "--size", "1MiB", "--part-size", "8MiB", "--no-progress"),
                "dgen4j: --part-size applies to s3:// targets, not " + file);
        assertUsage(run(env, "save", file.toString(), "--size", "1MiB", "--checksums", "full", "--no-progress"),
                "dgen4j: --checksums applies to s3:// targets, not " + file);
    }

    private static void assertUsage(CliRun r, String line) {
        assertEquals(2, r.code(), r.out() + r.err());
        assertEquals("", r.out());
        assertEquals(List.of(line), r.err().lines().toList());
    }
}
