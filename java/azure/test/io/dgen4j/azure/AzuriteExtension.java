package io.dgen4j.azure;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts Azurite's blob service ({@link LocalAzurite}: the npm package {@code azurite}, a child process on a free
 * 127.0.0.1 port, its files in a temporary directory) for a test class, with container {@link #CONTAINER}; stops
 * it after. Azurite is looked for where {@link LocalAzurite#find} looks (the build sets
 * {@code dgen4j.azurite.dir} to {@code ~/.cache/dgen4j/azurite}, where {@code .ci/run} installs it). When it
 * cannot start, the tests fail with a message that says how to install it: they never skip.
 */
public final class AzuriteExtension implements BeforeAllCallback, AfterAllCallback {
    /** The container every test class gets. */
    public static final String CONTAINER = "ckpt";

    private LocalAzurite azurite;

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
        Path script = LocalAzurite.find(System.getenv()).orElseThrow(() -> new IllegalStateException(
                "the Azure tests need Azurite: " + LocalAzurite.notInstalled(System.getenv())));
        azurite = LocalAzurite.startTemporary(script);
        try {
            azurite.createContainer(CONTAINER);
        } catch (RuntimeException e) {
            azurite.close();
            throw e;
        }
    }

    /** Kills Azurite at once (SIGKILL), as a crashed server. */
    public void kill() throws InterruptedException {
        if (azurite != null) {
            azurite.kill();
        }
    }

    /** Stops Azurite and removes its files. */
    public void stop() throws IOException, InterruptedException {
        if (azurite != null) {
            azurite.close();
        }
    }

    /** The blob service's endpoint, path style: {@code http://127.0.0.1:<port>/devstoreaccount1}. */
    public URI endpoint() {
        return azurite.endpoint();
    }

    /** The development account's settings at this Azurite. */
    public AzureSettings settings() {
        return azurite.settings();
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
        return azurite.dir();
    }
}
