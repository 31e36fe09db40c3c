package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.s3.S3ProxyExtension;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * A real CLI process whose every gateway dies mid-save: before exiting it waits for a gateway to
 * come back and aborts the upload it had to leave open, so nothing is left in the store.
 */
class LeftOpenAfterExitCliTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension(2);

    @TempDir
    Path dir;

    @Test
    void theCliWaitsForAGatewayAndAbortsTheUploadItLeftOpen() throws Exception {
        Path objects = S3.dataDir().resolve(S3.bucket());
        String eps = String.join(",", S3.endpoints().stream().map(URI::toString).toList());
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "save", "s3://" + S3.bucket() + "/exit.bin", "--size", "96MiB", "--chunk", "5MiB", "--writers", "2",
                "--buffers", "3", "--backend", "aws", "--endpoints", eps, "--no-progress"));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        pb.environment().put("AWS_ACCESS_KEY_ID", S3ProxyExtension.ACCESS_KEY);
        pb.environment().put("AWS_SECRET_ACCESS_KEY", S3ProxyExtension.SECRET_KEY);
        pb.environment().put("AWS_REGION", "us-east-1");
        pb.environment().put(Main.ABORT_WAIT_VAR, "60");
        Path err = dir.resolve("err");
        pb.redirectError(err.toFile()).redirectOutput(dir.resolve("out").toFile());
        Process p = pb.start();
        try {
            long before = bytes(objects);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (p.isAlive() && bytes(objects) - before < (10L << 20) && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertTrue(p.isAlive(), "the save ended before 10 MiB reached the store: " + Files.readString(err));
            S3.kill(); // every gateway
            while (p.isAlive() && !Files.readString(err).contains("waiting up to 60 s") && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(Files.readString(err).contains("is left open"), Files.readString(err));
            S3.start(); // the gateways come back while the process waits
            assertTrue(p.waitFor(90, TimeUnit.SECONDS), "the CLI did not exit after a gateway came back");
            String e = Files.readString(err);
            assertEquals(3, p.exitValue(), e);
            assertTrue(e.contains("nothing is left open"), e);
        } finally {
            p.destroyForcibly();
        }
        try (S3AsyncClient raw = S3AsyncClient.builder().endpointOverride(S3.endpoint()).region(Region.US_EAST_1)
                .forcePathStyle(true).credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                        S3ProxyExtension.ACCESS_KEY, S3ProxyExtension.SECRET_KEY))).build()) {
            assertEquals(List.of(), raw.listMultipartUploads(b -> b.bucket(S3.bucket())).join().uploads());
        }
    }

    private static long bytes(Path d) {
        try (Stream<Path> s = Files.walk(d)) {
            return s.filter(Files::isRegularFile).mapToLong(x -> x.toFile().length()).sum();
        } catch (IOException | RuntimeException x) {
            return 0;
        }
    }
}
