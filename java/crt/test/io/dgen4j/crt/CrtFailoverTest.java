package io.dgen4j.crt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.s3.EndpointSet;
import io.dgen4j.s3.LocalS3Proxy;
import io.dgen4j.s3.S3ProxyExtension;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.storage.EndpointStatistics;
import io.dgen4j.storage.StorageTarget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The crt backend over two s3proxy gateways of one store (two servers over the same files): parts
 * spread round-robin over both, and when one gateway is killed mid-save the save still completes
 * through the other, every byte verified on load, the statistics showing the failover.
 */
class CrtFailoverTest {
    private static final long CHUNK = 5L << 20;

    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    /** The second gateway, over the first's files. */
    private static LocalS3Proxy second;

    @BeforeAll
    static void startSecond() throws Exception {
        Path jar = Path.of(System.getProperty(S3ProxyExtension.JAR_PROPERTY));
        second = LocalS3Proxy.start(jar, S3.dataDir().getParent(), S3ProxyExtension.ACCESS_KEY,
                S3ProxyExtension.SECRET_KEY);
    }

    @AfterAll
    static void stopSecond() throws Exception {
        if (second != null) {
            second.kill();
        }
    }

    private static S3Settings both() {
        return S3.settings().toBuilder().endpointSet(EndpointSet.builder()
                .endpoints(List.of(S3.endpoint(), second.endpoint())).build()).build();
    }

    private static StreamingCheckpoint.Builder checkpoint(long seed) {
        return StreamingCheckpoint.builder().chunkSize(CHUNK).buffers(3).writersInFlight(2).backend("crt")
                .backendOptions(both()).spec(DataSpec.builder().seed(seed).build());
    }

    private static EndpointStatistics of(List<EndpointStatistics> all, Object endpoint) {
        return all.stream().filter(s -> s.endpoint().equals(endpoint.toString())).findFirst()
                .orElseThrow(() -> new AssertionError("no figures for " + endpoint + " in " + all));
    }

    @Test
    void partsSpreadOverBothGatewaysAndASaveOutlivesOneOfThem() throws Exception {
        // 1. both up: the 8 parts go round-robin, each gateway taking some, every byte counted once
        String key = "failover/spread.bin";
        StorageTarget target = CrtTests.target(S3, key);
        long size = 8 * CHUNK;
        SaveResult saved = checkpoint(21).build().save(target, size);
        EndpointStatistics a = of(saved.endpoints(), S3.endpoint());
        EndpointStatistics b = of(saved.endpoints(), second.endpoint());
        assertEquals(size, a.bytes() + b.bytes(), "part bytes over both gateways: " + saved.endpoints());
        assertTrue(a.bytes() >= 3 * CHUNK && b.bytes() >= 3 * CHUNK, "round-robin spread: " + saved.endpoints());
        assertEquals(0, a.errors() + b.errors(), "" + saved.endpoints());
        assertEquals(size, Files.size(S3.dataDir().resolve(S3.bucket()).resolve(key)));
        assertTrue(checkpoint(21).build().load(target, true).verified());

        // 2. the second gateway dies mid-save: its parts go to the first again, the save completes
        String killedKey = "failover/one-killed.bin";
        StorageTarget killedTarget = CrtTests.target(S3, killedKey);
        long bigger = 16 * CHUNK;
        AtomicLong writtenAtKill = new AtomicLong();
        SaveResult survived = checkpoint(22).progress(written -> {
            if (written >= 4 * CHUNK && writtenAtKill.compareAndSet(0, written)) {
                try {
                    second.kill(); // here, so that the rest of the save meets a dead gateway
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }).build().save(killedTarget, bigger);
        assertTrue(writtenAtKill.get() > 0 && !second.isRunning(), "the second gateway was killed mid-save");
        assertEquals(bigger, survived.totalBytes());
        EndpointStatistics up = of(survived.endpoints(), S3.endpoint());
        EndpointStatistics down = of(survived.endpoints(), second.endpoint());
        System.out.printf("crt failover: gateway killed after %d MiB of %d MiB; %s%n", writtenAtKill.get() >> 20,
                bigger >> 20, survived.endpoints());
        assertTrue(down.markedDown() >= 1 && down.errors() >= 1, "the killed gateway marked down: " + down);
        assertEquals("up", up.state(), "" + up);
        assertTrue(up.bytes() >= bigger - down.bytes(), "the surviving gateway took the rest: " + survived.endpoints());
        assertEquals(bigger, Files.size(S3.dataDir().resolve(S3.bucket()).resolve(killedKey)));
        LoadResult back = checkpoint(22).build().load(killedTarget, true);
        assertTrue(back.verified());
        assertEquals(bigger, back.totalBytes());
        assertEquals(List.of(), CrtTests.openUploads(S3, killedKey));
    }
}
