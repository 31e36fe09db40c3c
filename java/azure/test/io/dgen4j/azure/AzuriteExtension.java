package io.dgen4j.azure;

import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts Azurite's blob service (the npm package {@code azurite}) as a child process on a free
 * 127.0.0.1 port, its files in a temporary directory, for a test class; stops it after. Its telemetry is
 * off ({@code --disableTelemetry}): it would otherwise look up and post to an Azure host. Azurite is looked
 * for in {@code <dgen4j.azurite.dir>/node_modules/.bin/azurite-blob} (the system property; the build sets
 * {@code ~/.cache/dgen4j/azurite}, where {@code .ci/run} installs it), else on the {@code PATH}. When it
 * cannot start, the tests fail with a message that says how to install it: they never skip.
 */
public final class AzuriteExtension implements BeforeAllCallback, AfterAllCallback {
    /** The container every test class gets. */
    public static final String CONTAINER = "ckpt";

    private Process process;
    private Path dir;
    private int port;
    private final List<String> output = new ArrayList<>();

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        stop();
    }

    /** Starts Azurite and creates {@link #CONTAINER}. */
    public void start() throws IOException, InterruptedException {
        String bin = executable();
        dir = Files.createTempDirectory("azurite-");
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            port = freePort();
            ProcessBuilder pb = new ProcessBuilder("node", bin, "--blobHost", "127.0.0.1", "--blobPort",
                    String.valueOf(port), "--location", dir.toString(), "--loose", "--skipApiVersionCheck",
                    "--disableProductStyleUrl", "--disableTelemetry").redirectErrorStream(true);
            process = pb.start();
            Thread reader = Thread.ofPlatform().daemon().start(() -> {
                try (var in = process.inputReader(StandardCharsets.UTF_8)) {
                    String line;
                    while ((line = in.readLine()) != null) {
                        synchronized (output) {
                            output.add(line);
                        }
                    }
                } catch (IOException e) {
                    // the process ended
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline && process.isAlive()) {
                if (listening()) {
                    createContainer();
                    return;
                }
                Thread.sleep(100);
            }
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            reader.join(1000);
            last = new IOException("Azurite did not start on 127.0.0.1:" + port + " within 30 s: " + lastOutput());
        }
        throw last;
    }

    /** Kills Azurite at once (SIGKILL), as a crashed server. */
    public void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Stops Azurite and removes its files. */
    public void stop() throws IOException, InterruptedException {
        kill();
        if (dir != null) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** The blob service's endpoint, path style: {@code http://127.0.0.1:<port>/devstoreaccount1}. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port + "/" + AzureSettings.DEV_ACCOUNT);
    }

    /** The development account's settings at this Azurite. */
    public AzureSettings settings() {
        return AzureSettings.sharedKey(endpoint(), AzureSettings.DEV_ACCOUNT, AzureSettings.DEV_KEY);
    }

    /** The account key (to check that no output shows it). */
    public String key() {
        return AzureSettings.DEV_KEY;
    }

    /** A connection string for the development account at this Azurite (for the CLI's environment). */
    public String connectionString() {
        return "DefaultEndpointsProtocol=http;AccountName=" + AzureSettings.DEV_ACCOUNT + ";AccountKey="
                + AzureSettings.DEV_KEY + ";BlobEndpoint=" + endpoint() + ";";
    }

    /** Azurite's data directory. */
    public Path dataDir() {
        return dir;
    }

    private void createContainer() {
        new BlobServiceClientBuilder().endpoint(endpoint().toString())
                .credential(new StorageSharedKeyCredential(AzureSettings.DEV_ACCOUNT, AzureSettings.DEV_KEY))
                .buildClient().getBlobContainerClient(CONTAINER).createIfNotExists();
    }

    private boolean listening() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private String lastOutput() {
        synchronized (output) {
            return output.isEmpty() ? "(no output)" : String.join(" | ", output.subList(Math.max(0, output.size() - 5),
                    output.size()));
        }
    }

    private static String executable() throws IOException {
        String home = System.getProperty("dgen4j.azurite.dir", System.getProperty("user.home")
                + "/.cache/dgen4j/azurite");
        Path local = Path.of(home, "node_modules", "azurite", "dist", "src", "blob", "main.js");
        if (Files.isRegularFile(local)) {
            return local.toString();
        }
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path p = Path.of(d.isEmpty() ? "." : d, "azurite-blob");
            if (Files.isExecutable(p)) {
                return p.toRealPath().toString();
            }
        }
        throw new IllegalStateException("Azurite is not installed: the Azure tests need it; install it with `npm "
                + "install --prefix " + home + " azurite` (Node.js 18+; .ci/run does this), or put azurite-blob on the PATH");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
