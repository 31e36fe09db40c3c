package io.dgen4j.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.unit.ByteSize;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class S3SettingsTest {
    private static final String SECRET = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY";
    private static final String TOKEN = "FwoGZXIvYXdzEXAMPLETOKEN0123456789";

    @TempDir
    Path dir;

    private Map<String, String> env(String... kv) {
        Map<String, String> m = new java.util.HashMap<>();
        m.put("HOME", dir.resolve("home").toString()); // no ~/.aws of the machine running the tests
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void readsTheVariablesUsersAlreadySet() {
        S3Settings s = S3Settings.fromEnvironment(env("AWS_ACCESS_KEY_ID", "AKIAEXAMPLE", "AWS_SECRET_ACCESS_KEY",
                SECRET, "AWS_SESSION_TOKEN", TOKEN, "AWS_ENDPOINT_URL", "http://other:1",
                "AWS_ENDPOINT_URL_S3", "http://127.0.0.1:9000", "AWS_DEFAULT_REGION", "eu-west-1",
                "AWS_REGION", "us-west-2", "AWS_CA_BUNDLE", "ca.pem"), dir);
        assertEquals("AKIAEXAMPLE", s.accessKeyId().orElseThrow());
        assertEquals(SECRET, s.secretAccessKey().orElseThrow());
        assertEquals(TOKEN, s.sessionToken().orElseThrow());
        assertEquals("environment", s.credentialsSource().orElseThrow());
        assertEquals(URI.create("http://127.0.0.1:9000"), s.endpoint().orElseThrow());
        assertEquals("us-west-2", s.region());
        assertEquals(dir.resolve("ca.pem"), s.caBundle().orElseThrow());
        assertTrue(s.pathStyle(), "path-style by default for a custom endpoint");
        assertEquals(S3Settings.ChecksumMode.CRC32C, s.checksumMode(), "every part carries a CRC32C by default");
    }

    @Test
    void partSizeAndChecksumsFromDgen4jVariables() {
        S3Settings s = S3Settings.fromEnvironment(env("DGEN4J_S3_PART_SIZE", "8MiB", "DGEN4J_S3_CHECKSUMS", "FULL"), dir);
        assertEquals(8L << 20, s.partSize().orElseThrow());
        assertEquals(8L << 20, s.partSizeFor(64L << 20), "the part size set wins over the chunk size");
        assertEquals(S3Settings.ChecksumMode.FULL, s.checksumMode());
        assertEquals(6L << 20, S3Settings.fromEnvironment(env("DGEN4J_S3_PART_SIZE", "6291456"), dir)
                .partSize().orElseThrow());
        assertEquals(1L << 30, S3Settings.fromEnvironment(env("DGEN4J_S3_PART_SIZE", "1G"), dir)
                .partSize().orElseThrow());
        assertEquals(S3Settings.ChecksumMode.WHEN_REQUIRED, S3Settings.fromEnvironment(
                env("DGEN4J_S3_CHECKSUMS", "when-required"), dir).checksumMode());
        assertEquals(S3Settings.ChecksumMode.CRC32C, S3Settings.fromEnvironment(
                env("DGEN4J_S3_CHECKSUMS", "CRC32C"), dir).checksumMode());
        // a .env file supplies them too
        assertEquals(S3Settings.ChecksumMode.FULL, S3Settings.fromEnvironment(env(), dotEnv("DGEN4J_S3_CHECKSUMS=full"))
                .checksumMode());

        IllegalArgumentException small = assertThrows(IllegalArgumentException.class,
                () -> S3Settings.fromEnvironment(env("DGEN4J_S3_PART_SIZE", "4MiB"), dir));
        assertTrue(small.getMessage().startsWith("DGEN4J_S3_PART_SIZE=4MiB: part size must be between"),
                small.getMessage());
        IllegalArgumentException junk = assertThrows(IllegalArgumentException.class,
                () -> S3Settings.fromEnvironment(env("DGEN4J_S3_PART_SIZE", "8 apples"), dir));
        assertEquals("DGEN4J_S3_PART_SIZE: unknown size unit 'apples' in '8 apples' (use " + ByteSize.UNITS + ")",
                junk.getMessage());
        // the one grammar: MB is a power of 1000 here as in --part-size (it was 2^20 before)
        assertEquals(8_000_000L, S3Settings.fromEnvironment(env("DGEN4J_S3_PART_SIZE", "8MB"), dir)
                .partSize().orElseThrow());
        IllegalArgumentException mode = assertThrows(IllegalArgumentException.class,
                () -> S3Settings.fromEnvironment(env("DGEN4J_S3_CHECKSUMS", "when_supported"), dir));
        assertEquals("DGEN4J_S3_CHECKSUMS must be crc32c, when_required or full, got 'when_supported'", mode.getMessage());
    }

    private Path dotEnv(String... lines) {
        try {
            Path d = Files.createDirectories(dir.resolve("with-env"));
            Files.write(d.resolve(".env"), List.of(lines));
            return d;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void defaultsWithNothingSet() {
        S3Settings s = S3Settings.fromEnvironment(env(), dir);
        assertFalse(s.hasCredentials());
        assertEquals("us-east-1", s.region());
        assertTrue(s.endpoint().isEmpty());
        assertFalse(s.pathStyle(), "virtual-hosted style on AWS");
        assertEquals(32L << 20, s.partSizeFor(32L << 20));
        assertEquals(5L << 20, s.partSizeFor(1L << 20));
        assertEquals("eu-north-1", S3Settings.fromEnvironment(env("AWS_DEFAULT_REGION", "eu-north-1"), dir).region());
        assertEquals("http://fallback:9000", S3Settings.fromEnvironment(env("AWS_ENDPOINT_URL", "http://fallback:9000"),
                dir).endpoint().orElseThrow().toString());
    }

    @Test
    void aDotEnvFileFillsWhatTheEnvironmentDoesNotSet() throws IOException {
        Files.writeString(dir.resolve(".env"), String.join("\n",
                "# written by the quickstart",
                "export AWS_ACCESS_KEY_ID=\"fromfile\"",
                "AWS_SECRET_ACCESS_KEY='" + SECRET + "'",
                "AWS_ENDPOINT_URL=http://127.0.0.1:9001   # local",
                "",
                "AWS_REGION=eu-central-1"));
        S3Settings s = S3Settings.fromEnvironment(env("AWS_REGION", "ap-south-1"), dir);
        assertEquals("fromfile", s.accessKeyId().orElseThrow());
        assertEquals(SECRET, s.secretAccessKey().orElseThrow());
        assertEquals("http://127.0.0.1:9001", s.endpoint().orElseThrow().toString());
        assertEquals("ap-south-1", s.region(), "the environment wins over .env");
        assertEquals(dir.resolve(".env").toString(), s.credentialsSource().orElseThrow());
    }

    @Test
    void aBadDotEnvLineIsNamedByNumberWithoutItsText() throws IOException {
        Files.writeString(dir.resolve(".env"), "AWS_REGION=x\n" + SECRET + "\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> S3Settings.fromEnvironment(env(), dir));
        assertEquals(dir.resolve(".env") + " line 2 is not KEY=VALUE", e.getMessage());
        Files.writeString(dir.resolve(".env"), "AWS_SECRET_ACCESS_KEY=\"" + SECRET + "\n");
        e = assertThrows(IllegalArgumentException.class, () -> S3Settings.fromEnvironment(env(), dir));
        assertFalse(e.getMessage().contains(SECRET), e.getMessage());
    }

    @Test
    void settingsFilesThatAreNotSmallRegularTextAreRefusedNamingThem() throws Exception {
        Path dotEnv = dir.resolve(".env");
        Files.createSymbolicLink(dotEnv, Path.of("/dev/zero"));
        assertEquals(".env file " + dotEnv + " is a character device, not a regular file", refusedBy(env()));
        Files.delete(dotEnv);
        Files.createDirectory(dotEnv);
        assertEquals(".env file " + dotEnv + " is a directory, not a regular file", refusedBy(env()));
        Files.delete(dotEnv);
        assertEquals(0, new ProcessBuilder("mkfifo", dotEnv.toString()).start().waitFor());
        assertEquals(".env file " + dotEnv + " is a FIFO (named pipe), not a regular file", refusedBy(env()));
        Files.delete(dotEnv);
        Files.write(dotEnv, new byte[] {'A', '=', (byte) 0xc3, '\n'});
        assertEquals(".env file " + dotEnv + " is not UTF-8 text (a binary byte at offset 2)", refusedBy(env()));
        Files.delete(dotEnv);
        Path aws = Files.createDirectories(dir.resolve("home/.aws"));
        Files.writeString(aws.resolve("credentials"), "#".repeat(io.dgen4j.storage.ConfigFiles.MAX_BYTES + 1));
        assertEquals("AWS credentials file " + aws.resolve("credentials") + " is 1048577 bytes: the limit for a "
                + "settings file is 1048576 (1 MiB)", refusedBy(env()));
        Files.delete(aws.resolve("credentials"));
        assertEquals(0, new ProcessBuilder("mkfifo", aws.resolve("config").toString()).start().waitFor());
        assertEquals("AWS config file " + aws.resolve("config") + " is a FIFO (named pipe), not a regular file",
                refusedBy(env()));
        Files.delete(aws.resolve("config"));
        assertEquals("AWS_CA_BUNDLE /dev/zero is a character device, not a regular file",
                refusedBy(env("AWS_CA_BUNDLE", "/dev/zero")));
    }

    private String refusedBy(Map<String, String> env) {
        return assertTimeoutPreemptively(java.time.Duration.ofSeconds(20), () -> assertThrows(
                IllegalArgumentException.class, () -> S3Settings.fromEnvironment(env, dir))).getMessage();
    }

    @Test
    void aProfileGivesCredentialsWhenTheEnvironmentHasNone() throws IOException {
        Path aws = Files.createDirectories(dir.resolve("home/.aws"));
        Files.writeString(aws.resolve("credentials"), String.join("\n",
                "[default]", "aws_access_key_id = DEFAULTID", "aws_secret_access_key = defaultsecret",
                "; comment", "[bench]", "aws_access_key_id=BENCHID", "aws_secret_access_key=" + SECRET,
                "aws_session_token=" + TOKEN));
        Files.writeString(aws.resolve("config"), "[profile bench]\nregion = sa-east-1\n");
        S3Settings d = S3Settings.fromEnvironment(env(), dir);
        assertEquals("DEFAULTID", d.accessKeyId().orElseThrow());
        S3Settings b = S3Settings.fromEnvironment(env("AWS_PROFILE", "bench"), dir);
        assertEquals("BENCHID", b.accessKeyId().orElseThrow());
        assertEquals(SECRET, b.secretAccessKey().orElseThrow());
        assertEquals(TOKEN, b.sessionToken().orElseThrow());
        assertEquals("sa-east-1", b.region());
        assertTrue(b.credentialsSource().orElseThrow().startsWith("profile bench in "));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> S3Settings.fromEnvironment(env("AWS_PROFILE", "nope"), dir));
        assertTrue(e.getMessage().startsWith("AWS_PROFILE=nope but "), e.getMessage());
    }

    @Test
    void malformedValuesNameTheVariable() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> S3Settings.fromEnvironment(
                env("AWS_ENDPOINT_URL_S3", "127.0.0.1:9000"), dir)).getMessage().startsWith("AWS_ENDPOINT_URL_S3 must be"));
        assertEquals("AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not: set both",
                assertThrows(IllegalArgumentException.class, () -> S3Settings.fromEnvironment(
                        env("AWS_SECRET_ACCESS_KEY", SECRET), dir)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> S3Settings.builder().partSize(1 << 20));
        assertThrows(IllegalArgumentException.class, () -> S3Settings.builder().region("US East"));
    }

    @Test
    void builderOverridesAndEquality() {
        S3Settings a = S3Settings.fromEnvironment(env("AWS_ENDPOINT_URL", "http://127.0.0.1:9000"), dir).toBuilder()
                .partSize(16L << 20).maxInFlight(8).pathStyle(false).checksumMode(S3Settings.ChecksumMode.FULL)
                .apiCallAttemptTimeout(Duration.ofSeconds(5)).build();
        assertEquals(16L << 20, a.partSizeFor(32L << 20));
        assertEquals(8, a.maxInFlight().getAsInt());
        assertFalse(a.pathStyle());
        assertEquals(S3Settings.ChecksumMode.FULL, a.checksumMode());
        assertEquals(a, a.toBuilder().build());
        assertEquals(a.hashCode(), a.toBuilder().build().hashCode());
    }

    @Test
    void noStringFormHoldsASecret() throws IOException {
        Files.writeString(dir.resolve(".env"), "AWS_SESSION_TOKEN=" + TOKEN + "\n");
        S3Settings s = S3Settings.fromEnvironment(env("AWS_ACCESS_KEY_ID", "AKIAEXAMPLE",
                "AWS_SECRET_ACCESS_KEY", SECRET, "AWS_ENDPOINT_URL", "https://s3.example.com"), dir);
        List<String> forms = new ArrayList<>(List.of(s.toString(), s.toBuilder().build().toString(),
                String.valueOf(s), s.endpointDescription(), s.credentialsSource().orElseThrow(),
                new io.dgen4j.storage.StorageOptions[] {io.dgen4j.storage.StorageOptions.empty().with(s)}[0].toString()));
        for (String f : forms) {
            assertFalse(f.contains(SECRET), f);
            assertFalse(f.contains(TOKEN), f);
            assertFalse(f.contains("AKIAEXAMPLE"), f);
        }
        assertTrue(s.toString().contains("accessKeyId=AKIA****"), s.toString());
        assertTrue(s.toString().contains("secretAccessKey=****"), s.toString());
    }

    @Test
    void timeoutsFromDgen4jS3TimeoutsOverTheDefaults() {
        S3Settings d = S3Settings.fromEnvironment(env(), dir);
        assertEquals(S3Timeouts.DEFAULTS, d.timeouts());
        assertEquals(Duration.ofSeconds(5), d.timeouts().connect());
        assertEquals(Duration.ofSeconds(10), d.timeouts().read());
        S3Settings s = S3Settings.fromEnvironment(env("DGEN4J_S3_TIMEOUTS", "first-byte=60s, idle=1500ms,retry=2m"), dir);
        assertEquals(new S3Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(60), Duration.ofMillis(1500),
                Duration.ofMinutes(2)), s.timeouts());
        assertEquals(Duration.ofSeconds(60), s.timeouts().read(), "the larger of first-byte and idle");
        assertEquals("connect=5s,first-byte=60s,idle=1500ms,retry=120s", s.timeouts().toString());
        assertEquals(s.timeouts(), S3Timeouts.parse(s.timeouts().toString(), "x", S3Timeouts.DEFAULTS));
        assertEquals(Duration.ofSeconds(3), S3Timeouts.parse("connect=3", "x", S3Timeouts.DEFAULTS).connect(),
                "seconds by default");
        assertEquals(Duration.ZERO, S3Timeouts.parse("retry=0s", "x", S3Timeouts.DEFAULTS).retry(), "no retries");
        assertTrue(s.toString().contains("timeouts=connect=5s,first-byte=60s"), s.toString());
        assertFalse(s.equals(d), "timeouts change the clients");
    }

    @Test
    void aBadTimeoutNamesTheVariableTheItemAndTheLimits() {
        for (String bad : List.of("idle", "idle=", "idle=-1s", "idle=5h", "wait=5s", "idle=5s,", "first-byte=2d",
                "connect=0s", "idle=2h")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> S3Settings.fromEnvironment(env("DGEN4J_S3_TIMEOUTS", bad), dir), bad);
            assertTrue(e.getMessage().startsWith("DGEN4J_S3_TIMEOUTS"), e.getMessage());
            assertTrue(e.getMessage().contains("connect=") || e.getMessage().contains("1 hour"), e.getMessage());
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> S3Timeouts.parse(" ", "--s3-timeouts", S3Timeouts.DEFAULTS));
        assertTrue(e.getMessage().startsWith("--s3-timeouts is empty"), e.getMessage());
        assertEquals(S3Timeouts.DEFAULTS, S3Settings.fromEnvironment(env("DGEN4J_S3_TIMEOUTS", " "), dir).timeouts(),
                "a blank variable is not set, as for the others");
    }
}
