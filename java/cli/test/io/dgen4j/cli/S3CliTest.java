package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.s3.S3ProxyExtension;
import io.dgen4j.storage.StorageProviders;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** save and load --verify of s3:// targets through the CLI, in process, against s3proxy. */
class S3CliTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @TempDir
    Path home;

    private CliRun run(Map<String, String> env, String... args) {
        return CliRun.hiding(S3ProxyExtension.SECRET_KEY, env, args);
    }

    private Map<String, String> env() {
        return S3.cliEnv(home);
    }

    @Test
    void saveAndLoadVerifyAnS3Checkpoint() {
        String target = "s3://" + S3.bucket() + "/cli/ckpt.bin";
        CliRun save = run(env(), "save", target, "--size", "13MiB", "--chunk", "5MiB", "--buffers", "3", "--writers", "2",
                "--seed", "7", "--no-progress", "--backend", "aws", "--json");
        assertEquals(0, save.code(), save.err());
        assertTrue(save.out().contains("aws s3://" + S3.bucket() + "/cli/ckpt.bin at " + S3.endpoint()), save.out());
        CliRun load = run(env(), "load", target, "--verify", "--chunk", "5MiB", "--no-progress", "--json");
        assertEquals(0, load.code(), load.err());
        assertTrue(load.out().contains("\"verified\":true"), load.out());
        Map<String, String> viaEnv = env();
        viaEnv.put("DGEN4J_S3_BACKEND", "aws");
        CliRun text = run(viaEnv, "load", target, "--verify", "--chunk", "5MiB", "--no-progress");
        assertEquals(0, text.code(), text.err());
    }

    @Test
    void s3FailuresAreOneLineWithTheirExitStatus() {
        CliRun missing = run(env(), "load", "s3://" + S3.bucket() + "/none.bin", "--verify", "--no-progress");
        assertEquals(3, missing.code(), missing.err());
        assertEquals(List.of("dgen4j: checkpoint s3://" + S3.bucket() + "/none.bin does not exist"),
                missing.err().lines().toList());
        Map<String, String> wrong = env();
        wrong.put("AWS_SECRET_ACCESS_KEY", "not-the-" + S3ProxyExtension.SECRET_KEY);
        CliRun creds = run(wrong, "save", "s3://" + S3.bucket() + "/x.bin", "--size", "6MiB", "--chunk", "5MiB",
                "--no-progress");
        assertEquals(3, creds.code(), creds.err());
        assertEquals(1, creds.err().lines().count(), creds.err());
        assertTrue(creds.err().contains("refused the credentials"), creds.err());
        CliRun badBucket = run(env(), "save", "s3://Bad_Bucket/x.bin", "--size", "6MiB", "--no-progress");
        assertEquals(2, badBucket.code(), badBucket.err());
        assertTrue(badBucket.err().contains("bad S3 bucket name 'Bad_Bucket'"), badBucket.err());
        CliRun unknown = run(env(), "save", "s3://" + S3.bucket() + "/x.bin", "--size", "6MiB", "--backend", "nope",
                "--no-progress");
        assertEquals(2, unknown.code(), unknown.err());
        assertTrue(unknown.err().contains("no storage backend called 'nope'"), unknown.err());
    }

    @Test
    void theAwsBackendIsInstalled() {
        assertTrue(StorageProviders.named("aws").isPresent());
    }

    @Test
    void saveAndLoadVerifyThroughTheMinioBackend() {
        assertTrue(StorageProviders.named("minio").isPresent());
        String target = "s3://" + S3.bucket() + "/cli/minio.bin";
        CliRun save = run(env(), "save", target, "--size", "11MiB", "--chunk", "5MiB", "--buffers", "3", "--writers",
                "2", "--seed", "9", "--no-progress", "--backend", "minio", "--json");
        assertEquals(0, save.code(), save.err());
        assertTrue(save.out().contains("minio s3://" + S3.bucket() + "/cli/minio.bin at " + S3.endpoint()), save.out());
        Map<String, String> viaEnv = env();
        viaEnv.put("DGEN4J_S3_BACKEND", "minio");
        CliRun load = run(viaEnv, "load", target, "--verify", "--chunk", "5MiB", "--no-progress", "--json");
        assertEquals(0, load.code(), load.err());
        assertTrue(load.out().contains("\"verified\":true"), load.out());
        assertTrue(load.out().contains("minio s3://" + S3.bucket() + "/cli/minio.bin at "), load.out());
    }
}
