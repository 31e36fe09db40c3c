package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.ListBlobsOptions;
import com.azure.storage.common.StorageSharedKeyCredential;
import io.dgen4j.azure.AzureSettings;
import io.dgen4j.azure.AzuriteExtension;
import io.dgen4j.azure.LocalAzurite;
import io.dgen4j.cli.s3.AzureEndpoint;
import io.dgen4j.cli.s3.S3Backends;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3ProxyExtension;
import io.dgen4j.storage.StorageProvider;
import io.dgen4j.storage.StorageProviders;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dgen4j backends} with its {@code azure} row beside the S3 backends: on a local Azurite the command starts
 * and stops itself, on a configured account (this class's Azurite) with {@code --rounds}, and without Azurite (the
 * S3 rows alone and one line saying why).
 */
class AzureBackendsCliTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @RegisterExtension
    static final AzuriteExtension AZ = new AzuriteExtension();

    @TempDir
    Path home;

    /** S3 at the extension's s3proxy; no Azure account; Azurite looked for in {@code azuriteDir}. */
    private Map<String, String> env(String azuriteDir) {
        Map<String, String> env = S3.cliEnv(home);
        env.put(LocalAzurite.DIR_VAR, azuriteDir);
        return env;
    }

    private static CliRun run(Map<String, String> env, String... args) {
        CliRun r = CliRun.hiding(S3ProxyExtension.SECRET_KEY, env, args);
        assertFalse(r.out().contains(AZ.key()) || r.err().contains(AZ.key()), "the account key was printed");
        return r;
    }

    private static List<String> s3Backends() {
        return StorageProviders.installed().stream().filter(p -> p.schemes().contains(S3Location.SCHEME))
                .map(StorageProvider::name).toList();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> rows(Map<String, Object> m) {
        return (List<Map<String, Object>>) m.get("backends");
    }

    @Test
    void backendsStartsALocalAzuriteAndReportsTheAzureRowInTheS3RowsShape() throws Exception {
        Path png = home.resolve("backends.png");
        CliRun r = run(env(LocalAzurite.home(System.getenv()).toString()), "backends", "s3://" + S3.bucket() + "/az",
                "--size", "16MiB", "--chunk", "5MiB", "--writers", "2", "--buffers", "3", "--no-progress", "--json",
                "--plot", png.toString());
        assertEquals(0, r.code(), r.err());
        Matcher started = Pattern.compile("no Azure account configured: started a local Azurite on "
                + "(http://127\\.0\\.0\\.1:(\\d+)/devstoreaccount1) \\(files in (\\S+)\\)").matcher(r.err());
        assertTrue(started.find(), r.err());
        assertFalse(Files.exists(Path.of(started.group(3))), "the local Azurite's files are removed");
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", Integer.parseInt(started.group(2))), 500);
            throw new AssertionError("the local Azurite still listens on " + started.group(1));
        } catch (IOException expected) {
            // stopped
        }
        Map<String, Object> m = JsonRead.object(r.out());
        assertEquals(started.group(1), m.get("azureEndpoint"), r.out());
        assertEquals(true, m.get("localAzurite"), r.out());
        List<Map<String, Object>> rows = rows(m);
        List<String> names = new ArrayList<>(s3Backends());
        names.add(S3Backends.AZURE);
        assertEquals(names, rows.stream().map(x -> x.get("backend")).toList(), r.out());
        Map<String, Object> az = rows.getLast();
        assertEquals("az://" + AzureEndpoint.LOCAL_CONTAINER + "/dgen4j-backends/azure.bin", az.get("target"));
        assertEquals(rows.getFirst().keySet(), az.keySet(), "the azure row has the S3 rows' keys: " + az);
        assertEquals(true, az.get("ok"), az.toString());
        assertEquals(true, az.get("verified"), az.toString());
        assertEquals(0, ((Number) az.get("copiesPerByte")).intValue(), az.toString());
        assertTrue(((Number) az.get("saveMBps")).doubleValue() > 0, az.toString());
        assertTrue(((Number) az.get("cpuSecondsPerGiB")).doubleValue() > 0, az.toString());
        assertTrue(((Number) az.get("peakRssBytes")).longValue() > 0, az.toString());
        @SuppressWarnings("unchecked")
        Map<String, Object> save = (Map<String, Object>) az.get("save");
        assertEquals(16L << 20, ((Number) save.get("totalBytes")).longValue());
        @SuppressWarnings("unchecked")
        Map<String, Object> load = (Map<String, Object>) az.get("load");
        assertEquals(16L << 20, ((Number) load.get("totalBytes")).longValue());
        assertEquals(png.toString(), m.get("plot"), r.out());
    }

    @Test
    void aConfiguredAccountRunsRoundsAndDeletesItsBlobs() throws Exception {
        Map<String, String> env = env(home.resolve("no-azurite").toString());
        env.put(AzureSettings.CONNECTION_STRING, AZ.connectionString());
        env.put(AzureEndpoint.CONTAINER_VAR, AzuriteExtension.CONTAINER);
        CliRun r = run(env, "backends", "s3://" + S3.bucket() + "/az2", "--size", "11MiB", "--chunk", "5MiB",
                "--backends", "aws,azure", "--rounds", "2", "--no-progress", "--json");
        assertEquals(0, r.code(), r.err());
        assertEquals("", r.err(), "nothing on stderr: both endpoints are configured");
        Map<String, Object> m = JsonRead.object(r.out());
        assertEquals(AZ.endpoint().toString(), m.get("azureEndpoint"), r.out());
        assertEquals(false, m.get("localAzurite"), r.out());
        List<Map<String, Object>> rows = rows(m);
        assertEquals(List.of("aws", "azure"), rows.stream().map(x -> x.get("backend")).toList(), r.out());
        Map<String, Object> az = rows.getLast();
        assertEquals("az://" + AzuriteExtension.CONTAINER + "/dgen4j-backends/azure.bin", az.get("target"));
        assertEquals(2, ((Number) az.get("rounds")).intValue(), az.toString());
        @SuppressWarnings("unchecked")
        Map<String, Object> spread = (Map<String, Object>) az.get("spread");
        @SuppressWarnings("unchecked")
        Map<String, Object> saveSpread = (Map<String, Object>) spread.get("saveMBps");
        assertTrue(((Number) saveSpread.get("min")).doubleValue() <= ((Number) saveSpread.get("max")).doubleValue(),
                spread.toString());
        var container = new BlobServiceClientBuilder().endpoint(AZ.endpoint().toString())
                .credential(new StorageSharedKeyCredential(AzureSettings.DEV_ACCOUNT, AZ.key())).buildClient()
                .getBlobContainerClient(AzuriteExtension.CONTAINER);
        assertEquals(List.of(), container.listBlobs(new ListBlobsOptions().setPrefix("dgen4j-backends/"), null)
                .stream().map(b -> b.getName()).toList(), "every blob written (and the warm-up ones) is deleted");

        CliRun text = run(env, "backends", "s3://" + S3.bucket() + "/az3", "--size", "5MiB", "--chunk", "5MiB",
                "--backends", "azure", "--no-progress");
        assertEquals(0, text.code(), text.err());
        assertTrue(text.out().contains("azure: " + AZ.endpoint() + " (configured account), az://"
                + AzuriteExtension.CONTAINER + "/dgen4j-backends/azure.bin"), text.out());
        assertTrue(text.out().lines().anyMatch(l -> l.startsWith("azure ") && l.contains(" yes ")), text.out());
    }

    @Test
    void quickstartPartTwoHasTheAzureRow() throws Exception {
        Map<String, String> env = env(home.resolve("no-azurite").toString());
        env.put(AzureSettings.CONNECTION_STRING, AZ.connectionString());
        env.put(AzureEndpoint.CONTAINER_VAR, AzuriteExtension.CONTAINER);
        env.put("DGEN4J_S3_BUCKET", S3.bucket());
        Path dir = Files.createDirectory(home.resolve("qs"));
        CliRun r = run(env, "quickstart", "--dir", dir.toString(), "--size", "6MiB", "--chunk", "5MiB",
                "--no-progress", "--json");
        assertEquals(0, r.code(), r.err());
        Map<String, Object> m = JsonRead.object(r.out());
        @SuppressWarnings("unchecked")
        Map<String, Object> s3 = (Map<String, Object>) m.get("s3");
        assertEquals(AZ.endpoint() + " (the configured account), az://" + AzuriteExtension.CONTAINER
                + "/dgen4j-quickstart/azure.bin", s3.get("azure"), r.out());
        List<Map<String, Object>> rows = rows(s3);
        Map<String, Object> az = rows.getLast();
        assertEquals(S3Backends.AZURE, az.get("backend"), r.out());
        assertEquals(true, az.get("verified"), az.toString());
        assertEquals(3, ((Number) az.get("rounds")).intValue(), az.toString());
    }

    @Test
    void withoutAzuriteTheS3BackendsRunAndOneLineSaysWhy() {
        Map<String, String> env = env(home.resolve("no-azurite").toString());
        CliRun r = run(env, "backends", "s3://" + S3.bucket() + "/az4", "--size", "5MiB", "--chunk", "5MiB",
                "--backends", "aws,azure", "--no-progress", "--json");
        assertEquals(0, r.code(), r.err());
        Map<String, Object> m = JsonRead.object(r.out());
        assertEquals(List.of("aws"), rows(m).stream().map(x -> x.get("backend")).toList(), r.out());
        assertTrue(((String) m.get("azureSkipped")).startsWith("Azurite is not installed: install it with `npm "
                + "install --prefix " + home.resolve("no-azurite")), r.out());
        CliRun text = run(env, "backends", "s3://" + S3.bucket() + "/az4", "--size", "5MiB", "--chunk", "5MiB",
                "--backends", "aws,azure", "--no-progress");
        assertEquals(0, text.code(), text.err());
        assertEquals(1, text.out().lines().filter(l -> l.startsWith("azure: not run (Azurite is not installed"))
                .count(), text.out());
        CliRun only = run(env, "backends", "s3://" + S3.bucket() + "/az4", "--size", "5MiB", "--backends", "azure",
                "--no-progress");
        assertEquals(2, only.code(), only.err());
        assertTrue(only.err().startsWith("dgen4j: --backends azure: az:// cannot run: Azurite is not installed"),
                only.err());
        assertEquals(1, only.err().lines().count(), only.err());
    }
}
