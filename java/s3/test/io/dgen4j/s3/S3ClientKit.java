package io.dgen4j.s3;

import io.dgen4j.s3.spi.S3Transport;
import io.dgen4j.s3.spi.S3ClientProvider;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageProvider;
import io.dgen4j.storage.StorageProviders;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The client a contract runs, found by name through the SPI as the s3:// provider finds it: its storage
 * backend, and its own transport to look at the store with (open uploads, HEADs), so that every
 * client module runs the same contracts with nothing re-typed but the client's name.
 *
 * @param backend the client's name ({@code aws}, {@code crt}, {@code minio})
 */
public record S3ClientKit(String backend) {
    /** The installed client of this name. */
    public S3ClientProvider client() {
        return S3StorageProvider.clients().stream().filter(c -> c.name().equals(backend)).findFirst()
                .orElseThrow(() -> new AssertionError("no S3 client called " + backend + " is installed: "
                        + S3StorageProvider.clients().stream().map(S3ClientProvider::name).toList()));
    }

    /** The client's storage backend, found through {@link StorageProviders} like any other. */
    public StorageProvider provider() {
        return StorageProviders.named(backend).orElseThrow(() -> new AssertionError("the " + backend
                + " backend is not installed: " + StorageProviders.installed()));
    }

    /** The ids of the multipart uploads of exactly {@code key} open in the store, listed through the client. */
    public List<String> openUploads(S3ProxyExtension s3, String key) throws IOException {
        return call(s3, t -> t.uploadsOf(new S3Location(s3.bucket(), key)));
    }

    /** The object's HEAD through the client, or null when there is none. */
    public S3Transport.ObjectHead head(S3ProxyExtension s3, String key) {
        try {
            return call(s3, t -> t.headObject(new S3Location(s3.bucket(), key))).orElse(null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private <T> T call(S3ProxyExtension s3, java.util.function.Function<S3Transport, CompletableFuture<T>> what)
            throws IOException {
        S3Transport t = client().transports(StorageOptions.empty(), 0).open(s3.settings());
        try {
            return what.apply(t).join();
        } catch (CompletionException e) {
            throw t.describe("a test's look at the store", new S3Location(s3.bucket(), "-"), e.getCause());
        } finally {
            t.close();
        }
    }
}
