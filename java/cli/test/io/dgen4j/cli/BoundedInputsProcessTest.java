package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bounded-input cases that need a real process: a {@code .env} in a working directory of its own,
 * and inputs that ran the launcher's 96 MiB heap out (a 27 MB YAML, {@code /dev/zero} as a settings
 * file, a plan of 65,536 ranks as JSON). Each ends within its timeout with one line, or with its output.
 */
class BoundedInputsProcessTest {
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    @TempDir
    Path dir;

    record Proc(int code, String out, String err) {}

    /** The CLI under the launcher's heap (-Xmx96m, Serial GC), in {@link #dir}, with {@code env} added. */
    Proc cli(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(JAVA, "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC",
                "-Xmx96m", "-XX:ErrorFile=" + dir.resolve("hs_err.log"), "-cp", System.getProperty("java.class.path"),
                Main.class.getName()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        pb.environment().put("HOME", dir.resolve("home").toString());
        pb.environment().keySet().removeIf(k -> k.startsWith("AWS_") || k.startsWith("S3_") || k.startsWith("DGEN4J_"));
        pb.environment().putAll(env);
        Path out = dir.resolve("proc.out");
        Path err = dir.resolve("proc.err");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        p.getOutputStream().close();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("hung: " + args[0] + " ...");
        }
        return new Proc(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    private static void assertOneLine(Proc p, int code, String line) {
        assertEquals(code, p.code(), p.err());
        assertEquals("dgen4j: " + line + "\n", p.err());
    }

    @Test
    void aDotEnvThatIsNotSmallRegularTextIsRefusedNamingIt() throws Exception {
        Map<String, String> env = Map.of("AWS_ACCESS_KEY_ID", "AKIDTEST", "AWS_SECRET_ACCESS_KEY", "secretsecret",
                "AWS_ENDPOINT_URL", "http://127.0.0.1:1");
        Path dotEnv = dir.resolve(".env");
        Files.createSymbolicLink(dotEnv, Path.of("/dev/zero"));
        assertOneLine(cli(env, "save", "s3://ckpt/k", "--size", "1MiB"), 2,
                ".env file " + dotEnv + " is a character device, not a regular file");
        Files.delete(dotEnv);
        Files.write(dotEnv, new byte[] {'A', '=', (byte) 0x80, '\n'});
        assertOneLine(cli(env, "save", "s3://ckpt/k", "--size", "1MiB"), 2,
                ".env file " + dotEnv + " is not UTF-8 text (a binary byte at offset 2)");
        Files.delete(dotEnv);
        Files.createDirectory(dotEnv);
        assertOneLine(cli(env, "load", "s3://ckpt/k"), 2, ".env file " + dotEnv + " is a directory, not a regular file");
        Files.delete(dotEnv);
        MisuseTest.exec("mkfifo", dotEnv.toString());
        assertOneLine(cli(env, "save", "s3://ckpt/k", "--size", "1MiB"), 2,
                ".env file " + dotEnv + " is a FIFO (named pipe), not a regular file");
    }

    @Test
    void whatRanTheHeapOutIsRefusedOrFitsIt() throws Exception {
        Path big = dir.resolve("big.yaml");
        Files.writeString(big, "model:\n  name: x\nx: \"" + "a".repeat(27 << 20) + "\"\n");
        assertOneLine(cli(Map.of(), "dlio", "plan", "--config", big.toString(), "--ranks", "4"), 2,
                "DLIO workload " + big + " is " + Files.size(big) + " bytes: the limit for a settings file is 1048576 "
                        + "(1 MiB)");
        assertOneLine(cli(Map.of("S3_ENDPOINT_FILE", "/dev/zero", "AWS_ACCESS_KEY_ID", "AKIDTEST",
                "AWS_SECRET_ACCESS_KEY", "secretsecret"), "save", "s3://ckpt/k", "--size", "1MiB"), 2,
                "S3_ENDPOINT_FILE /dev/zero is a character device, not a regular file");
        String tiny = Path.of(System.getProperty("dgen4j.test.root", ".")).toAbsolutePath()
                .resolve("configs/dlio/tiny.yaml").toString();
        Proc plan = cli(Map.of(), "dlio", "plan", "--config", tiny, "--ranks", "65536", "--json");
        assertEquals(0, plan.code(), plan.err());
        Map<String, Object> json = JsonRead.object(plan.out());
        assertEquals(65536, ((Number) json.get("ranks")).intValue());
        assertEquals(65536, ((List<?>) json.get("rankPlans")).size());
        assertTrue(plan.err().isEmpty(), plan.err());
    }
}
