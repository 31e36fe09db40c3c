package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.s3.S3ProxyExtension;
import io.dgen4j.storage.StorageProviders;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** save and load --verify of s3:// targets through the CLI with --backend crt, in process, against s3proxy. */
class S3CrtCliTest {
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
    void saveAndLoadVerifyThroughTheCrtBackend() {
        String target = "s3://" + S3.bucket() + "/cli/crt.bin";
        CliRun save = run(env(), "save", target, "--size", "13MiB", "--chunk", "5MiB", "--buffers", "3", "--writers", "2",
                "--seed", "7", "--no-progress", "--backend", "crt", "--json");
        assertEquals(0, save.code(), save.err());
        assertTrue(save.out().contains("crt s3://" + S3.bucket() + "/cli/crt.bin at " + S3.endpoint()), save.out());
        Map<String, String> viaEnv = env();
        viaEnv.put("DGEN4J_S3_BACKEND", "crt");
        CliRun load = run(viaEnv, "load", target, "--verify", "--chunk", "5MiB", "--no-progress", "--json");
        assertEquals(0, load.code(), load.err());
        assertTrue(load.out().contains("\"verified\":true"), load.out());
        assertTrue(load.out().contains("crt s3://"), load.out());
    }

    @Test
    void aMissingBucketIsOneLineWithExitStatus3() {
        CliRun r = run(env(), "save", "s3://no-such-bucket-dgen4j/x.bin", "--size", "6MiB", "--chunk", "5MiB",
                "--backend", "crt", "--no-progress");
        assertEquals(3, r.code(), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains("bucket no-such-bucket-dgen4j does not exist at " + S3.endpoint()), r.err());
    }

    /**
     * The CRT hands a ranged GET's body to Java as heap arrays, one per piece it fetched: with whole
     * 32 MiB ranges four readers needed more heap than the launcher gives (96 MiB: one load in four
     * failed, "OutOfMemoryError has been raised from JVM", the endpoint marked down; under 40 MiB every
     * load failed). Pieces of 8 MiB fit even 40 MiB, in a real process.
     */
    @Test
    void fourReadersOf32MiBRangesFitASmallHeap() throws Exception {
        String target = "s3://" + S3.bucket() + "/cli/crt-heap.bin";
        CliRun save = run(env(), "save", target, "--size", "256MiB", "--chunk", "32MiB", "--no-progress");
        assertEquals(0, save.code(), save.err());
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-Xmx40m", "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "load", target, "--backend", "crt",
                "--readers", "4", "--buffers", "6", "--chunk", "32MiB", "--verify", "--no-progress"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(5, java.util.concurrent.TimeUnit.MINUTES), out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("every byte verified"), out);
    }

    @Test
    void theCrtBackendIsInstalledAndUsableHere() {
        assertTrue(StorageProviders.named("crt").isPresent());
        assertEquals(java.util.Optional.empty(), StorageProviders.named("crt").orElseThrow().unavailable());
    }
}
