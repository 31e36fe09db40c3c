package io.dgen4j.azure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.s3.FaultProxy;
import io.dgen4j.storage.EndpointStatistics;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Endpoint sets of the {@code azure} backend: several listeners of a forwarding proxy in front of one Azurite
 * (gateways of one account), one or all of them taken down mid-transfer, and a read-only secondary.
 */
class AzureFailoverTest {
    @RegisterExtension
    static final AzuriteExtension AZ = new AzuriteExtension();

    private static final long CHUNK = 1 << 20;
    /** Long enough that a listener taken down stays down for the rest of the test. */
    private static final Duration DOWN = Duration.ofMinutes(2);

    private static StreamingCheckpoint checkpoint(AzureSettings s, LongConsumer progress) {
        return StreamingCheckpoint.builder().chunkSize(CHUNK).buffers(4).writersInFlight(3).readersInFlight(3)
                .backend("azure").backendOptions(s).progress(progress)
                .spec(DataSpec.builder().size(1).seed(24).dedupRatio(2).compressRatio(2).build()).build();
    }

    private static StreamingCheckpoint checkpoint(AzureSettings s) {
        return checkpoint(s, n -> { });
    }

    private static String target(String name) {
        return "az://" + AzuriteExtension.CONTAINER + "/" + name;
    }

    /** The development account over listeners {@code writable} of {@code p}, and {@code readOnly} as secondaries. */
    private static AzureSettings over(FaultProxy p, List<Integer> writable, List<Integer> readOnly) {
        return AZ.settings().withEndpoints(writable.stream().map(p::endpoint).toList(),
                readOnly.stream().map(p::endpoint).toList());
    }

    private static String account(FaultProxy p, int i) {
        return p.endpoint(i) + "/" + AzureSettings.DEV_ACCOUNT;
    }

    private static EndpointStatistics of(List<EndpointStatistics> all, String endpoint) {
        return all.stream().filter(e -> e.endpoint().equals(endpoint)).findFirst()
                .orElseThrow(() -> new AssertionError(endpoint + " not in " + all));
    }

    private static long requests(FaultProxy p, int listener, String method) {
        return p.seen().stream().filter(s -> s.listener() == listener && s.method().equals(method)).count();
    }

    private static String etag(String name) {
        return new BlobServiceClientBuilder().endpoint(AZ.endpoint().toString())
                .credential(new StorageSharedKeyCredential(AzureSettings.DEV_ACCOUNT, AZ.key())).buildClient()
                .getBlobContainerClient(AzuriteExtension.CONTAINER).getBlobClient(name).getProperties().getETag();
    }

    @Test
    void aSaveAndAVerifiedLoadSpreadTheirRequestsOverEveryEndpoint() throws Exception {
        try (FaultProxy p = FaultProxy.start(List.of(AZ.endpoint(), AZ.endpoint()))) {
            AzureSettings s = over(p, List.of(0, 1), List.of());
            SaveResult saved = checkpoint(s).save(target("spread.bin"), 8 * CHUNK);
            assertEquals(2, saved.endpoints().size(), saved.endpoints().toString());
            for (int i = 0; i < 2; i++) {
                EndpointStatistics e = of(saved.endpoints(), account(p, i));
                assertTrue(e.requests() >= 3 && e.bytes() >= 3 * CHUNK, e.toString());
                assertEquals(0, e.markedDown(), e.toString());
                assertTrue(requests(p, i, "PUT") >= 3, "listener " + i + " saw " + requests(p, i, "PUT") + " PUTs");
            }
            assertEquals(8 * CHUNK, saved.endpoints().stream().mapToLong(EndpointStatistics::bytes).sum());
            LoadResult back = checkpoint(s).load(target("spread.bin"), true);
            assertTrue(back.verified());
            for (int i = 0; i < 2; i++) {
                EndpointStatistics e = of(back.endpoints(), account(p, i));
                assertTrue(e.requests() >= 3, e.toString());
                assertTrue(requests(p, i, "GET") >= 3, "listener " + i + " saw " + requests(p, i, "GET") + " GETs");
            }
        }
    }

    @Test
    void anEndpointTakenDownMidSaveIsMarkedDownAndTheSaveCompletesThroughTheOther() throws Exception {
        try (FaultProxy p = FaultProxy.start(List.of(AZ.endpoint(), AZ.endpoint()))) {
            AzureSettings s = over(p, List.of(0, 1), List.of());
            AtomicBoolean down = new AtomicBoolean();
            SaveResult saved = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> checkpoint(s, written -> {
                if (written >= 6 * CHUNK && down.compareAndSet(false, true)) {
                    p.outage(0, DOWN);
                }
            }).save(target("mid-save.bin"), 32 * CHUNK));
            assertTrue(down.get());
            EndpointStatistics dead = of(saved.endpoints(), account(p, 0));
            EndpointStatistics live = of(saved.endpoints(), account(p, 1));
            assertTrue(dead.markedDown() >= 1, dead.toString());
            assertFalse(dead.lastFailure().isEmpty(), dead.toString());
            assertTrue(live.bytes() >= 16 * CHUNK, live.toString());
            assertEquals(0, live.markedDown(), live.toString());
            assertTrue(checkpoint(AZ.settings()).load(target("mid-save.bin"), true).verified());
        }
    }

    @Test
    void anEndpointTakenDownMidLoadIsMarkedDownAndTheLoadCompletesThroughTheOther() throws Exception {
        checkpoint(AZ.settings()).save(target("mid-load.bin"), 32 * CHUNK);
        try (FaultProxy p = FaultProxy.start(List.of(AZ.endpoint(), AZ.endpoint()))) {
            AzureSettings s = over(p, List.of(0, 1), List.of());
            AtomicBoolean down = new AtomicBoolean();
            Thread taker = Thread.ofVirtual().start(() -> {
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (requests(p, 0, "GET") < 4 && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                p.outage(0, DOWN);
                down.set(true);
            });
            LoadResult back = assertTimeoutPreemptively(Duration.ofSeconds(60),
                    () -> checkpoint(s).load(target("mid-load.bin"), true));
            taker.join();
            assertTrue(down.get());
            assertTrue(back.verified());
            assertEquals(32 * CHUNK, back.totalBytes());
            EndpointStatistics dead = of(back.endpoints(), account(p, 0));
            assertTrue(dead.markedDown() >= 1, dead.toString());
            assertTrue(of(back.endpoints(), account(p, 1)).bytes() >= 16 * CHUNK, back.endpoints().toString());
        }
    }

    @Test
    void everyEndpointDownFailsTheSaveWithinItsBoundAndLeavesThePreviousBlob() throws Exception {
        String name = "all-down.bin";
        checkpoint(AZ.settings()).save(target(name), 2 * CHUNK);
        String before = etag(name);
        try (FaultProxy p = FaultProxy.start(List.of(AZ.endpoint(), AZ.endpoint()))) {
            AzureSettings s = over(p, List.of(0, 1), List.of());
            AtomicBoolean down = new AtomicBoolean();
            long started = System.nanoTime();
            IOException e = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertThrows(IOException.class,
                    () -> checkpoint(s, written -> {
                        if (written >= 4 * CHUNK && down.compareAndSet(false, true)) {
                            p.outage(0, DOWN);
                            p.outage(1, DOWN);
                        }
                    }).save(target(name), 64 * CHUNK)));
            double seconds = (System.nanoTime() - started) / 1e9;
            System.out.printf("every endpoint down: the save failed after %.1f s: %s%n", seconds, e.getMessage());
            assertTrue(seconds < 20, seconds + " s");
            String m = e.getMessage();
            assertFalse(m.contains("\n"), m);
            assertTrue(m.contains(account(p, 0)) && m.contains(account(p, 1)), m);
            assertTrue(m.contains("every one of the 2 endpoints"), m);
            assertTrue(m.contains("untouched"), m);
            assertFalse(m.contains(AZ.key()), m);
        }
        assertEquals(before, etag(name), "the previous blob was replaced");
        assertTrue(checkpoint(AZ.settings()).load(target(name), true).verified());
    }

    @Test
    void aReadOnlySecondaryGetsNoWritesAndServesReads() throws Exception {
        try (FaultProxy p = FaultProxy.start(List.of(AZ.endpoint(), AZ.endpoint()))) {
            AzureSettings s = over(p, List.of(0), List.of(1));
            SaveResult saved = checkpoint(s).save(target("secondary.bin"), 8 * CHUNK);
            assertEquals(0, p.connections(1), "the secondary was sent part of a save");
            assertEquals(0, of(saved.endpoints(), account(p, 1)).requests());
            assertEquals(8 * CHUNK, of(saved.endpoints(), account(p, 0)).bytes());
            LoadResult back = checkpoint(s).load(target("secondary.bin"), true);
            assertTrue(back.verified());
            assertTrue(requests(p, 1, "GET") >= 3, "the secondary served " + requests(p, 1, "GET") + " GETs");
            assertEquals(0, requests(p, 1, "PUT"));
        }
    }

    @Test
    void withTheSecondaryAloneLeftASaveFailsAndALoadReadsThroughIt() throws Exception {
        checkpoint(AZ.settings()).save(target("primary-down.bin"), 4 * CHUNK);
        try (FaultProxy p = FaultProxy.start(List.of(AZ.endpoint(), AZ.endpoint()))) {
            AzureSettings s = over(p, List.of(0), List.of(1));
            p.outage(0, DOWN);
            IOException e = assertThrows(IOException.class, () -> checkpoint(s).save(target("primary-down.bin"),
                    CHUNK));
            assertTrue(e.getMessage().contains(account(p, 0)), e.getMessage());
            assertFalse(e.getMessage().contains(account(p, 1)), e.getMessage());
            assertEquals(0, p.connections(1));
            LoadResult back = checkpoint(s).load(target("primary-down.bin"), true);
            assertTrue(back.verified());
            assertEquals(4 * CHUNK, of(back.endpoints(), account(p, 1)).bytes());
        }
    }

    @Test
    void endpointsWithoutAPathTakeThePrimarysAccountPath() {
        AzureSettings s = AZ.settings().withEndpoints(List.of(URI.create("http://127.0.0.1:1"),
                URI.create("http://127.0.0.1:2")), List.of(URI.create("http://127.0.0.1:3")));
        assertEquals(List.of(URI.create("http://127.0.0.1:1/" + AzureSettings.DEV_ACCOUNT),
                URI.create("http://127.0.0.1:2/" + AzureSettings.DEV_ACCOUNT)), s.endpoints());
        assertEquals(List.of(URI.create("http://127.0.0.1:3/" + AzureSettings.DEV_ACCOUNT)), s.secondaries());
        assertThrows(IllegalArgumentException.class, () -> AZ.settings().withEndpoints(
                List.of(URI.create("http://127.0.0.1:1"), URI.create("http://127.0.0.1:1/")), List.of()));
    }
}
