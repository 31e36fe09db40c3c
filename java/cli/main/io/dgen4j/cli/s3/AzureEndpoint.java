package io.dgen4j.cli.s3;

import io.dgen4j.azure.AzureLocation;
import io.dgen4j.azure.AzureSettings;
import io.dgen4j.azure.LocalAzurite;
import io.dgen4j.cli.Environment;
import io.dgen4j.cli.Errors;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Where {@code backends} and quickstart's part 2 write their {@code az://} row: the configured Azure account
 * ({@link AzureSettings#fromEnvironment}) and the container {@value #CONTAINER_VAR} names, or, when no account
 * is configured, a local Azurite that this class starts ({@link LocalAzurite}) and stops on {@link #close()} or
 * at JVM exit (Ctrl-C).
 */
public final class AzureEndpoint implements AutoCloseable {
    /** The variable naming the container to use on a configured account. */
    public static final String CONTAINER_VAR = "DGEN4J_AZURE_CONTAINER";
    /** The container made on a local Azurite. */
    public static final String LOCAL_CONTAINER = "dgen4j";

    private final AzureSettings settings;
    private final String container;
    private final String prefix;
    private final LocalAzurite local;
    private final Thread hook;
    private final CountDownLatch closed;
    private final String skipped;

    private AzureEndpoint(String skipped) {
        this(null, null, null, null, null, null, skipped);
    }

    private AzureEndpoint(AzureSettings settings, String container, String prefix, LocalAzurite local, Thread hook,
            CountDownLatch closed) {
        this(settings, container, prefix, local, hook, closed, null);
    }

    private AzureEndpoint(AzureSettings settings, String container, String prefix, LocalAzurite local, Thread hook,
            CountDownLatch closed, String skipped) {
        this.skipped = skipped;
        this.settings = settings;
        this.container = container;
        this.prefix = prefix;
        this.local = local;
        this.hook = hook;
        this.closed = closed;
    }

    /**
     * The configured account's endpoint, else a local Azurite started now (said on {@code err}), under
     * {@code defaultKey}; when there is neither (no container named for a configured account, Azurite not
     * installed or not starting), one that is {@link #skipped()}, saying why in one line: the caller runs the S3
     * backends alone and reports that line.
     *
     * @throws IllegalArgumentException when the Azure variables are malformed (naming the variable)
     */
    public static AzureEndpoint open(String defaultKey, Environment env, PrintWriter err)
            throws InterruptedException {
        java.util.Optional<AzureSettings> configured = AzureSettings.fromEnvironment(env.variables(), Path.of(""));
        if (configured.isPresent()) {
            String container = env.get(CONTAINER_VAR);
            if (container == null || container.isBlank()) {
                return skip(String.format("an Azure account is configured (%s) but no container is named: set %s",
                        configured.get().endpoint(), CONTAINER_VAR));
            }
            AzureLocation.of(io.dgen4j.storage.StorageTarget.parse("az://" + container.strip() + "/x"));
            return new AzureEndpoint(configured.get(), container.strip(), defaultKey, null, null, null);
        }
        java.util.Optional<Path> script = LocalAzurite.find(env.variables());
        if (script.isEmpty()) {
            return skip(LocalAzurite.notInstalled(env.variables()));
        }
        LocalAzurite az;
        try {
            az = LocalAzurite.startTemporary(script.get());
        } catch (IOException e) {
            return skip(Errors.describe(e));
        }
        CountDownLatch closed = new CountDownLatch(1);
        // Ctrl-C: the command's cleanup (deleting the blob) still needs the server; this hook waits for that,
        // then kills it (a child process outlives the JVM otherwise)
        Thread hook = new Thread(() -> {
            try {
                closed.await(8, TimeUnit.SECONDS);
                az.close();
            } catch (IOException | InterruptedException | RuntimeException e) {
                // the JVM is exiting: nothing left to tell
            }
        }, "dgen4j-azurite-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        AzureEndpoint e = new AzureEndpoint(az.settings(), LOCAL_CONTAINER, defaultKey, az, hook, closed);
        try {
            az.createContainer(LOCAL_CONTAINER);
        } catch (RuntimeException ex) {
            try {
                e.close();
            } catch (IOException closing) {
                ex.addSuppressed(closing);
            }
            return skip("creating a container on the local Azurite failed: " + Errors.describe(ex));
        }
        err.printf("no Azure account configured: started a local Azurite on %s (files in %s)%n", az.endpoint(),
                az.dir());
        err.flush();
        return e;
    }

    private static AzureEndpoint skip(String why) {
        return new AzureEndpoint(why);
    }

    /** Why the {@code az://} backend does not run (one line), or null when it does. */
    public String skipped() {
        return skipped;
    }

    /** The account's settings (the backend's options). */
    AzureSettings settings() {
        return settings;
    }

    /** {@code az://container/prefix/}, where the blobs go. */
    public String prefix() {
        return "az://" + container + "/" + (prefix.isEmpty() ? "" : prefix + "/");
    }

    /** Whether this is a local Azurite started here. */
    public boolean isLocal() {
        return local != null;
    }

    /** The blob service's URL, for reports. */
    public String endpoint() {
        return settings.endpoint().toString();
    }

    /** Stops the local Azurite, if one was started, and removes its files. */
    @Override
    public void close() throws IOException, InterruptedException {
        if (local == null) {
            return; // a configured account, or skipped: nothing started
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // already shutting down: the hook runs too (closing twice is harmless)
        }
        try {
            local.close();
        } finally {
            closed.countDown();
        }
    }
}
