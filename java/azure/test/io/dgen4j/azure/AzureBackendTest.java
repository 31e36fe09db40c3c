package io.dgen4j.azure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.BlockListType;
import com.azure.storage.common.StorageSharedKeyCredential;
import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.s3.FaultProxy;
import io.dgen4j.s3.FaultProxy.Fault;
import io.dgen4j.s3.FaultProxy.Match;
import io.dgen4j.storage.Storage;
import io.dgen4j.storage.StorageTarget;
import java.io.IOException;
import java.net.URI;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The {@code azure} backend against Azurite: saves, verified loads, failures, secrets. */
class AzureBackendTest {
    @RegisterExtension
    static final AzuriteExtension AZ = new AzuriteExtension();

    private static final long CHUNK = 1 << 20;

    private static StreamingCheckpoint checkpoint(AzureSettings s) {
        return StreamingCheckpoint.builder().chunkSize(CHUNK).buffers(4).writersInFlight(3).readersInFlight(3)
                .backend("azure").backendOptions(s)
                .spec(DataSpec.builder().size(1).seed(24).dedupRatio(2).compressRatio(2).build()).build();
    }

    private static String target(String name) {
        return "az://" + AzuriteExtension.CONTAINER + "/" + name;
    }

    private static com.azure.storage.blob.BlobContainerClient container() {
        return new BlobServiceClientBuilder().endpoint(AZ.endpoint().toString())
                .credential(new StorageSharedKeyCredential(AzureSettings.DEV_ACCOUNT, AzureSettings.DEV_KEY))
                .buildClient().getBlobContainerClient(AzuriteExtension.CONTAINER);
    }

    @Test
    void aSaveIsOneBlockPerChunkCommittedWithTheSpecAndLoadsVerified() throws IOException {
        long size = 8 * CHUNK;
        SaveResult saved = checkpoint(AZ.settings()).save(target("ckpt.bin"), size);
        assertEquals(size, saved.totalBytes());
        var blob = container().getBlobClient("ckpt.bin");
        assertEquals(size, blob.getProperties().getBlobSize());
        var blocks = blob.getBlockBlobClient().listBlocks(BlockListType.ALL);
        assertEquals(8, blocks.getCommittedBlocks().size());
        assertTrue(blocks.getCommittedBlocks().stream().allMatch(b -> b.getSizeLong() == CHUNK));
        assertTrue(blob.getProperties().getMetadata().get(AzureWriter.METADATA_KEY).contains("\"seed\""),
                blob.getProperties().getMetadata().toString());
        LoadResult back = checkpoint(AZ.settings()).load(target("ckpt.bin"), true);
        assertTrue(back.verified());
        assertEquals(size, back.totalBytes());
    }

    /** Sizes that are not a multiple of the chunk, and smaller than one (the library refuses an empty checkpoint). */
    @Test
    void oddSizesRoundTrip() throws IOException {
        for (long size : new long[] {3 * CHUNK + 12_345, 1000, 1}) {
            String name = "odd-" + size + ".bin";
            checkpoint(AZ.settings()).save(target(name), size);
            assertEquals(size, container().getBlobClient(name).getProperties().getBlobSize());
            LoadResult back = checkpoint(AZ.settings()).load(target(name), true);
            assertTrue(back.verified(), name);
            assertEquals(size, back.totalBytes(), name);
        }
    }

    @Test
    void aBlockFailureMidUploadFailsTheSaveAndLeavesThePreviousBlobUntouched() throws Exception {
        String name = "faulted.bin";
        checkpoint(AZ.settings()).save(target(name), 2 * CHUNK); // the previous checkpoint
        String etag = container().getBlobClient(name).getProperties().getETag();
        try (FaultProxy p = FaultProxy.start(AZ.endpoint())) {
            URI proxied = URI.create(p.endpoint().toString().replaceAll("/+$", "") + "/" + AzureSettings.DEV_ACCOUNT);
            // every try of the 4th block is cut: the SDK's retries run out
            p.inject(Match.put().query("comp", "block"), Fault.reset(), 4, FaultProxy.EVERY);
            IOException e = assertThrows(IOException.class,
                    () -> checkpoint(AZ.settings().withEndpoint(proxied)).save(target(name), 8 * CHUNK));
            assertTrue(e.getMessage().contains("stage block"), e.getMessage());
            assertTrue(e.getMessage().contains(target(name)), e.getMessage());
            assertTrue(e.getMessage().contains("untouched") && e.getMessage().contains("7 days"), e.getMessage());
            assertFalse(e.getMessage().contains(AZ.key()), e.getMessage());
        }
        var props = container().getBlobClient(name).getProperties();
        assertEquals(etag, props.getETag(), "the previous blob was replaced");
        assertEquals(2 * CHUNK, props.getBlobSize());
        assertTrue(checkpoint(AZ.settings()).load(target(name), true).verified());
    }

    @Test
    void aMissingContainerIsNamedBeforeAnyBlock() {
        IOException e = assertThrows(IOException.class,
                () -> checkpoint(AZ.settings()).save("az://no-such-container/x.bin", CHUNK));
        assertTrue(e.getMessage().contains("ContainerNotFound"), e.getMessage());
        assertTrue(e.getMessage().contains("no-such-container"), e.getMessage());
    }

    @Test
    void badCredentialsFailWithoutPrintingTheKey() {
        String wrong = "d3Jvbmcta2V5LXdyb25nLWtleS13cm9uZy1rZXktd3Jvbmcta2V5LXdyb25nLWtleS13cm9uZy1rZXk=";
        AzureSettings bad = AzureSettings.sharedKey(AZ.endpoint(), AzureSettings.DEV_ACCOUNT, wrong);
        IOException e = assertThrows(IOException.class, () -> checkpoint(bad).save(target("bad.bin"), CHUNK));
        assertTrue(e.getMessage().contains("403"), e.getMessage());
        assertTrue(e.getMessage().contains("account key"), e.getMessage());
        assertFalse(e.getMessage().contains(wrong), e.getMessage());
        assertFalse(bad.toString().contains(wrong), bad.toString());
    }

    @Test
    void aMissingBlobIsNoSuchFile() throws IOException {
        IOException e = assertThrows(IOException.class, () -> checkpoint(AZ.settings()).load(target("absent.bin"), true));
        assertTrue(e instanceof NoSuchFileException || e.getCause() instanceof NoSuchFileException, e.toString());
        assertTrue(e.getMessage().contains("BlobNotFound") && e.getMessage().contains(target("absent.bin")),
                e.getMessage());
        try (Storage storage = Storage.open()) {
            assertThrows(NoSuchFileException.class, () -> storage.forTarget(StorageTarget.parse(target("absent.bin")),
                    java.util.Optional.of("azure")).openReader(new io.dgen4j.storage.ReadRequest(
                    StorageTarget.parse(target("absent.bin")), 1, io.dgen4j.storage.StorageOptions.empty()
                    .with(AZ.settings()))));
        }
    }

    @Test
    void limitsAreCheckedBeforeAnythingIsSent() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AzureStorageProvider.checkBlocks(StorageTarget.parse(target("big")), 50_001L * CHUNK, CHUNK));
        assertTrue(e.getMessage().contains("50000"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> AzureStorageProvider.checkBlocks(StorageTarget.parse(target("big")), 8000L << 20, 4001L << 20));
        assertTrue(e.getMessage().contains("4000.00 MiB"), e.getMessage());
    }

    @Test
    void settingsComeFromAConnectionStringAndMaskIt() throws IOException {
        var s = AzureSettings.fromEnvironment(Map.of(AzureSettings.CONNECTION_STRING, AZ.connectionString()),
                java.nio.file.Path.of("/nonexistent")).orElseThrow();
        assertEquals(AZ.endpoint(), s.endpoint());
        assertEquals(AzureSettings.DEV_ACCOUNT, s.account());
        assertFalse(s.toString().contains(AZ.key()));
        assertEquals("x *** y", s.mask("x " + AZ.key() + " y"));
        try (Storage storage = Storage.open(Map.of(AzureSettings.CONNECTION_STRING, AZ.connectionString()),
                java.nio.file.Path.of("/nonexistent"))) {
            StreamingCheckpoint c = StreamingCheckpoint.builder().chunkSize(CHUNK).storage(storage).backend("azure")
                    .build();
            assertEquals(CHUNK, c.save(target("from-env.bin"), CHUNK).totalBytes());
        }
    }

    @Test
    void killingTheServerMidUploadFailsTheSaveWithinSeconds() throws Exception {
        AzuriteExtension own = new AzuriteExtension();
        own.start();
        try {
            java.util.concurrent.atomic.AtomicBoolean killed = new java.util.concurrent.atomic.AtomicBoolean();
            StreamingCheckpoint c = StreamingCheckpoint.builder().chunkSize(CHUNK).buffers(4).writersInFlight(3)
                    .backend("azure").backendOptions(own.settings()).progress(written -> {
                        if (written >= 16 * CHUNK && killed.compareAndSet(false, true)) {
                            try {
                                own.kill();
                            } catch (InterruptedException ex) {
                                Thread.currentThread().interrupt();
                            }
                        }
                    }).build();
            long start = System.nanoTime();
            IOException e = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertThrows(IOException.class,
                    () -> c.save(target("killed.bin"), 1L << 30)));
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("save failed %.1f s after it started (Azurite killed after 16 MiB): %s%n", seconds,
                    e.getMessage());
            assertTrue(killed.get());
            assertTrue(e.getMessage().contains(target("killed.bin")), e.getMessage());
            assertTrue(e.getMessage().contains("Connection refused") || e.getMessage().contains("onnection"),
                    e.getMessage());
            assertFalse(e.getMessage().contains(own.key()));
        } finally {
            own.stop();
        }
    }
}
