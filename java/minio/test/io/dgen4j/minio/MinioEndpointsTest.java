package io.dgen4j.minio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.s3.EndpointSet;
import io.dgen4j.s3.S3ProxyExtension;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.storage.EndpointStatistics;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The minio backend over an endpoint set, through the shared driver: parts spread over the
 * endpoints, and a dead endpoint's parts sent again to a live one. The server's one port is reached
 * under two names ({@code 127.0.0.1} and {@code localhost}): two endpoints of one store, each with its
 * own client, as two gateways of one cluster would be.
 */
class MinioEndpointsTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();
    private static final int MIB = 1 << 20;

    private static S3Settings over(List<URI> endpoints, EndpointSet.Strategy strategy) {
        return S3.settings().toBuilder().endpointSet(EndpointSet.builder().endpoints(endpoints).strategy(strategy)
                .build()).build();
    }

    private static StreamingCheckpoint checkpoint(S3Settings s) {
        return StreamingCheckpoint.builder().chunkSize(5 * MIB).buffers(3).writersInFlight(2).readersInFlight(2).backend("minio")
                .backendOptions(s).build();
    }

    private static Map<String, EndpointStatistics> byEndpoint(List<EndpointStatistics> list) {
        return list.stream().collect(Collectors.toMap(EndpointStatistics::endpoint, Function.identity()));
    }

    private static URI byName(String host) {
        return URI.create("http://" + host + ":" + S3.endpoint().getPort());
    }

    @Test
    void roundRobinSendsHalfThePartsToEachEndpointAndTheLoadVerifies() throws IOException {
        URI a = byName("127.0.0.1");
        URI b = byName("localhost");
        S3Settings s = over(List.of(a, b), EndpointSet.Strategy.ROUND_ROBIN);
        String target = "s3://" + S3.bucket() + "/balanced.bin";
        long size = 20L * 5 * MIB;
        SaveResult saved = checkpoint(s).save(target, size);
        Map<String, EndpointStatistics> w = byEndpoint(saved.endpoints());
        assertEquals(2, w.size(), saved.endpoints().toString());
        long bytes = w.values().stream().mapToLong(EndpointStatistics::bytes).sum();
        assertEquals(size, bytes, "every part's bytes counted once: " + w);
        for (EndpointStatistics e : w.values()) {
            // 20 parts in turn over two endpoints (the calls around them take turns too)
            assertTrue(e.bytes() >= 8L * 5 * MIB && e.bytes() <= 12L * 5 * MIB, e.toString());
            assertEquals(0, e.errors(), e.toString());
        }
        LoadResult loaded = checkpoint(s).load(target, true);
        assertTrue(loaded.verified());
        assertEquals(size, loaded.totalBytes());
        Map<String, EndpointStatistics> r = byEndpoint(loaded.endpoints());
        assertEquals(2, r.size(), loaded.endpoints().toString());
        assertTrue(r.values().stream().allMatch(e -> e.bytes() > 0), r.toString());
    }

    @Test
    void aDeadEndpointsPartsAreSentAgainToTheLiveOneAndTheSaveCompletes() throws IOException {
        // port 2: nothing listens there, outside the ephemeral range (see MinioBackendTest)
        assertThrows(java.net.ConnectException.class, () -> new java.net.Socket("127.0.0.1", 2).close(),
                "something listens on 127.0.0.1:2");
        URI dead = URI.create("http://127.0.0.1:2");
        URI live = S3.endpoint();
        S3Settings s = over(List.of(dead, live), EndpointSet.Strategy.ROUND_ROBIN);
        String target = "s3://" + S3.bucket() + "/failover.bin";
        long size = 8L * 5 * MIB + 123;
        SaveResult saved = checkpoint(s).save(target, size);
        Map<String, EndpointStatistics> w = byEndpoint(saved.endpoints());
        EndpointStatistics d = w.get(dead.toString());
        EndpointStatistics l = w.get(live.toString());
        assertTrue(d.errors() >= 1 && d.markedDown() >= 1, d.toString());
        assertTrue(d.lastFailure().contains("cannot connect to the S3 endpoint " + dead), d.lastFailure());
        assertEquals(0, d.bytes(), d.toString());
        assertEquals(size, l.bytes(), "the live endpoint took every byte: " + l);
        assertEquals(0, l.errors(), l.toString());
        LoadResult loaded = checkpoint(S3.settings()).load(target, true);
        assertTrue(loaded.verified());
        assertEquals(size, loaded.totalBytes());
    }
}
