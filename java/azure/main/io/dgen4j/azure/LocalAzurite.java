package io.dgen4j.azure;

import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import java.io.IOException;
import java.net.InetAddress;
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
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A local Azure blob service: Azurite's blob server (the npm package {@code azurite}) run by {@code node} as a
 * child process on a free port of 127.0.0.1, its files in a temporary directory, the well-known development
 * account. Its telemetry is off ({@code --disableTelemetry}): it would otherwise look up and post to an Azure
 * host. The CLI starts one for {@code backends} and quickstart when no Azure account is configured; the tests'
 * {@code AzuriteExtension} runs on it.
 *
 * {@snippet :
 * try (LocalAzurite az = LocalAzurite.startTemporary(LocalAzurite.find(System.getenv()).orElseThrow())) {
 *     az.createContainer("ckpt");
 *     AzureSettings s = az.settings();
 * }                                          // killed, its directory removed
 * }
 */
public final class LocalAzurite implements AutoCloseable {
    /** The system property naming the directory azurite is npm-installed in ({@code <dir>/node_modules/azurite}). */
    public static final String DIR_PROPERTY = "dgen4j.azurite.dir";
    /** The variable naming that directory, over the property. */
    public static final String DIR_VAR = "DGEN4J_AZURITE_DIR";
    private static final long START_SECONDS = 30;

    private final Process process;
    private final Path dir;
    private final int port;
    private final List<String> output;

    private LocalAzurite(Process process, Path dir, int port, List<String> output) {
        this.process = process;
        this.dir = dir;
        this.port = port;
        this.output = output;
    }

    /**
     * The directory azurite is looked for in: {@value #DIR_VAR}, else {@value #DIR_PROPERTY}, else
     * {@code $HOME/.cache/dgen4j/azurite} (where {@code .ci/run} installs it; {@code HOME} of {@code env}, else
     * the JVM's {@code user.home}).
     */
    public static Path home(Map<String, String> env) {
        String v = env.get(DIR_VAR);
        if (v == null || v.isBlank()) {
            String user = env.get("HOME");
            v = System.getProperty(DIR_PROPERTY, (user == null || user.isBlank() ? System.getProperty("user.home")
                    : user.strip()) + "/.cache/dgen4j/azurite");
        }
        return Path.of(v.strip());
    }

    /**
     * Azurite's blob server script: {@code <home>/node_modules/azurite/dist/src/blob/main.js}, else
     * {@code azurite-blob} on the {@code PATH}; empty when neither is there.
     */
    public static Optional<Path> find(Map<String, String> env) {
        Path local = home(env).resolve(Path.of("node_modules", "azurite", "dist", "src", "blob", "main.js"));
        if (Files.isRegularFile(local)) {
            return Optional.of(local);
        }
        for (String d : env.getOrDefault("PATH", "").split(":")) {
            Path p = Path.of(d.isEmpty() ? "." : d, "azurite-blob");
            if (Files.isExecutable(p)) {
                try {
                    return Optional.of(p.toRealPath());
                } catch (IOException e) {
                    // a dangling link: look on
                }
            }
        }
        return Optional.empty();
    }

    /** One line saying that Azurite is not installed and how to install it. */
    public static String notInstalled(Map<String, String> env) {
        return String.format("Azurite is not installed: install it with `npm install --prefix %s azurite` (Node.js 18+;"
                + " .ci/run does this), set %s to where it is, or put azurite-blob on the PATH", home(env), DIR_VAR);
    }

    /**
     * Starts Azurite's blob server from {@code script} ({@link #find}) in a new temporary directory, on a
     * free port (up to 3 ports tried), and waits up to 30 s for it to listen.
     *
     * @throws IOException when node cannot be run or Azurite does not listen in time (with its last output)
     */
    public static LocalAzurite startTemporary(Path script) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("azurite-");
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            int port = freePort();
            List<String> output = new ArrayList<>();
            ProcessBuilder pb = new ProcessBuilder("node", script.toString(), "--blobHost", "127.0.0.1", "--blobPort",
                    String.valueOf(port), "--location", dir.toString(), "--loose", "--skipApiVersionCheck",
                    "--disableProductStyleUrl", "--disableTelemetry").redirectErrorStream(true);
            Process process;
            try {
                process = pb.start();
            } catch (IOException e) {
                deleteTree(dir);
                throw new IOException("cannot run node for Azurite (" + script + "): " + e.getMessage(), e);
            }
            Thread reader = Thread.ofPlatform().daemon().name("azurite-output").start(() -> {
                try (var in = process.inputReader(StandardCharsets.UTF_8)) {
                    String line;
                    while ((line = in.readLine()) != null) {
                        synchronized (output) {
                            output.add(line);
                            if (output.size() > 50) {
                                output.removeFirst();
                            }
                        }
                    }
                } catch (IOException e) {
                    // the process ended
                }
            });
            LocalAzurite az = new LocalAzurite(process, dir, port, output);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
            while (System.nanoTime() < deadline && process.isAlive()) {
                if (az.listening()) {
                    return az;
                }
                Thread.sleep(100);
            }
            az.kill();
            reader.join(1000);
            last = new IOException("Azurite did not start on 127.0.0.1:" + port + " within " + START_SECONDS + " s: "
                    + az.lastOutput());
        }
        deleteTree(dir);
        throw last;
    }

    /** The blob service's endpoint, path style: {@code http://127.0.0.1:<port>/devstoreaccount1}. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port + "/" + AzureSettings.DEV_ACCOUNT);
    }

    /** The development account's settings at this Azurite. */
    public AzureSettings settings() {
        return AzureSettings.sharedKey(endpoint(), AzureSettings.DEV_ACCOUNT, AzureSettings.DEV_KEY);
    }

    /** Azurite's data directory. */
    public Path dir() {
        return dir;
    }

    /** Creates container {@code name} unless it exists. */
    public void createContainer(String name) {
        new BlobServiceClientBuilder().endpoint(endpoint().toString())
                .credential(new StorageSharedKeyCredential(AzureSettings.DEV_ACCOUNT, AzureSettings.DEV_KEY))
                .buildClient().getBlobContainerClient(name).createIfNotExists();
    }

    /** Kills Azurite at once (SIGKILL), as a crashed server; its files stay. */
    public void kill() throws InterruptedException {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }

    /** Kills Azurite and removes its files. */
    @Override
    public void close() throws IOException, InterruptedException {
        kill();
        deleteTree(dir);
    }

    /** Azurite's last lines of output, for messages. */
    public String lastOutput() {
        synchronized (output) {
            return output.isEmpty() ? "(no output)" : String.join(" | ", output.subList(Math.max(0, output.size() - 5),
                    output.size()));
        }
    }

    private boolean listening() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
