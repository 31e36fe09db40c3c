package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.azure.AzureSettings;
import io.dgen4j.azure.AzuriteExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code az://} through the CLI against Azurite, in processes with the launcher's 96 MiB heap at the
 * {@code trace} log level: save and verified load with the connection string or a {@code .env}; a wrong
 * key, a SAS token and a missing container fail in one line with exit 3; no secret anywhere in the output.
 */
class AzureCliTest {
    @RegisterExtension
    static final AzuriteExtension AZ = new AzuriteExtension();

    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    /** A wrong account key (base64 of "PLANTEDazureKEY1234567890"). */
    private static final String WRONG_KEY = "UExBTlRFRGF6dXJlS0VZMTIzNDU2Nzg5MA==";
    private static final String SAS_SIG = "PLANTEDsasSIG4711";

    @TempDir
    Path dir;

    private record Run(int exit, String out) {}

    private Run cli(Path cwd, Map<String, String> env, String... args) throws IOException, InterruptedException {
        Files.createDirectories(cwd);
        List<String> cmd = new ArrayList<>(List.of(JAVA, "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow", "-Xmx96m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=trace",
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("AWS_") || k.startsWith("AZURE_")
                || k.startsWith("DGEN4J_"));
        pb.environment().putAll(env);
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the CLI ended");
        String text = new String(out, StandardCharsets.UTF_8);
        for (String secret : List.of(AZ.key(), WRONG_KEY, SAS_SIG, AZ.connectionString())) {
            assertFalse(text.contains(secret), "a secret was printed by " + String.join(" ", args) + ":\n" + text);
        }
        return new Run(p.exitValue(), text);
    }

    private static String lastLines(String text) {
        String[] lines = text.split("\n");
        return String.join("\n", java.util.Arrays.copyOfRange(lines, Math.max(0, lines.length - 5), lines.length));
    }

    @Test
    void saveAndVerifiedLoadWithTheConnectionStringPrintNoSecret() throws Exception {
        Map<String, String> env = Map.of(AzureSettings.CONNECTION_STRING, AZ.connectionString());
        String target = "az://" + AzuriteExtension.CONTAINER + "/cli/ckpt.bin";
        Run save = cli(dir, env, "save", target, "--size", "40MiB", "--chunk", "4MiB", "--writers", "2", "--buffers",
                "3", "--no-progress");
        assertEquals(0, save.exit(), save.out());
        assertTrue(save.out().contains("saved 40.00 MiB (41943040 bytes) to " + target), lastLines(save.out()));
        Run load = cli(dir, env, "load", target, "--verify", "--no-progress");
        assertEquals(0, load.exit(), load.out());
        assertTrue(load.out().contains("every byte verified"), lastLines(load.out()));
    }

    @Test
    void aDotEnvWithAccountKeyAndEndpointWorks() throws Exception {
        Path cwd = dir.resolve("dotenv");
        Files.createDirectories(cwd);
        Files.writeString(cwd.resolve(".env"), String.join("\n", AzureSettings.ACCOUNT + "=" + AzureSettings.DEV_ACCOUNT,
                AzureSettings.KEY + "=" + AZ.key(), AzureSettings.ENDPOINT + "=" + AZ.endpoint(), ""));
        Run save = cli(cwd, Map.of(), "save", "az://" + AzuriteExtension.CONTAINER + "/cli/dotenv.bin", "--size", "3MiB",
                "--chunk", "1MiB", "--no-progress");
        assertEquals(0, save.exit(), save.out());
    }

    @Test
    void aWrongKeyASasTokenAndAMissingContainerFailInOneLine() throws Exception {
        Map<String, String> wrong = Map.of(AzureSettings.ACCOUNT, AzureSettings.DEV_ACCOUNT, AzureSettings.KEY,
                WRONG_KEY, AzureSettings.ENDPOINT, AZ.endpoint().toString());
        Run bad = cli(dir, wrong, "save", "az://" + AzuriteExtension.CONTAINER + "/cli/bad.bin", "--size", "2MiB",
                "--chunk", "1MiB", "--no-progress");
        assertEquals(3, bad.exit(), bad.out());
        assertTrue(bad.out().contains("403") && bad.out().contains("check the account key"), lastLines(bad.out()));
        // the failure is the last line, one line (the trace level logs the libraries' own traces above it)
        assertTrue(lastLines(bad.out()).strip().lines().reduce((a, b) -> b).orElse("").startsWith(
                "dgen4j: save to az://ckpt/cli/bad.bin failed: "), lastLines(bad.out()));

        Map<String, String> sas = Map.of(AzureSettings.ACCOUNT, AzureSettings.DEV_ACCOUNT, AzureSettings.SAS_TOKEN,
                "?sv=2021-08-06&ss=b&srt=sco&sp=rwdlac&se=2099-01-01T00:00:00Z&sig=" + SAS_SIG,
                AzureSettings.ENDPOINT, AZ.endpoint().toString());
        Run bySas = cli(dir, sas, "save", "az://" + AzuriteExtension.CONTAINER + "/cli/sas.bin", "--size", "2MiB",
                "--chunk", "1MiB", "--no-progress");
        assertEquals(3, bySas.exit(), bySas.out());
        assertTrue(bySas.out().contains("403"), lastLines(bySas.out()));
        assertTrue(bySas.out().contains("untouched") && bySas.out().contains("7 days"), lastLines(bySas.out()));

        Run missing = cli(dir, Map.of(AzureSettings.CONNECTION_STRING, AZ.connectionString()), "save",
                "az://no-such-container/x.bin", "--size", "2MiB", "--chunk", "1MiB", "--no-progress");
        assertEquals(3, missing.exit(), missing.out());
        assertTrue(missing.out().contains("ContainerNotFound"), lastLines(missing.out()));
    }
}
