package io.dgen4j.aws;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.s3.internal.MetadataCodec;
import io.dgen4j.s3.S3BackendFailuresContract;
import io.dgen4j.s3.S3ProxyExtension;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.storage.ReadRequest;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageProvider;
import io.dgen4j.storage.StorageProviders;
import io.dgen4j.storage.StorageReader;
import io.dgen4j.storage.StorageTarget;
import io.dgen4j.storage.StorageWriter;
import io.dgen4j.storage.WriteRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;

/** Streaming checkpoints to a real S3 server (s3proxy) through the aws backend, and its failures. */
class AwsBackendTest extends S3BackendFailuresContract {
    private static RawS3 raw;

    @BeforeAll
    static void client() {
        raw = new RawS3(S3);
    }

    @AfterAll
    static void closeClient() {
        raw.close();
    }

    private static StreamingCheckpoint checkpoint(S3Settings s, AwsOptions options) {
        return StreamingCheckpoint.builder().chunkSize(5 * MIB).buffers(3).writersInFlight(2).readersInFlight(2).backend("aws")
                .backendOptions(s).backendOptions(options)
                .spec(DataSpec.builder().size(1).seed(42).dedupRatio(2).compressRatio(2).build()).build();
    }

    private static StreamingCheckpoint checkpoint() {
        return checkpoint(S3.settings(), AwsOptions.defaults());
    }

    private static String target(String key) {
        return "s3://" + S3.bucket() + "/" + key;
    }

    @Override
    protected String backend() {
        return "aws";
    }

    @Test
    void awsIsTheDefaultBackendForS3Targets() {
        StorageProvider p = StorageProviders.forTarget(StorageTarget.parse("s3://b-1/k"), java.util.Optional.empty());
        assertEquals("aws", p.name());
        assertEquals(java.util.Set.of("s3"), p.schemes());
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 5 * MIB - 1, 5 * MIB, 17 * MIB + 3})
    void saveAndLoadWithVerify(long size) throws IOException {
        String key = "sizes/" + size + ".bin";
        SaveResult saved = checkpoint().save(target(key), size);
        assertEquals(size, saved.totalBytes());
        SEEN.add(saved.toString());
        HeadObjectResponse h = raw.head(S3.bucket(), key);
        assertEquals(size, h.contentLength());
        assertTrue(h.metadata().get(MetadataCodec.KEY).contains("\"dgen4j\":\"checkpoint\""), h.metadata().toString());
        LoadResult loaded = checkpoint().load(target(key), true);
        assertEquals(size, loaded.totalBytes());
        assertTrue(loaded.verified());
        assertEquals(List.of(), raw.uploads(S3.bucket(), key));
    }

    @Test
    void aChunkOfSeveralPartsIsSentAsThosePartsFromOneBuffer() throws IOException {
        AtomicInteger parts = new AtomicInteger();
        ExecutionInterceptor count = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                if (context.request() instanceof UploadPartRequest) {
                    parts.incrementAndGet();
                }
            }
        };
        S3Settings fiveMiBParts = S3.settings().toBuilder().partSize(5 * MIB).build();
        StreamingCheckpoint c = StreamingCheckpoint.builder().chunkSize(10 * MIB).buffers(3).writersInFlight(2)
                .backend("aws").backendOptions(fiveMiBParts)
                .backendOptions(AwsOptions.overriding(o -> o.addExecutionInterceptor(count))).build();
        SaveResult r = c.save(target("split.bin"), 23 * MIB + 5);
        assertEquals(5, parts.get(), "10 MiB chunks in 5 MiB parts: 2 + 2 + 1 parts");
        assertTrue(r.backend().contains("5 parts of 5242880 bytes"), r.backend());
        assertEquals(23L * MIB + 5, checkpoint().load(target("split.bin"), true).totalBytes());
        // chunks that would end inside a part are refused before any data
        S3Settings eightMiBParts = S3.settings().toBuilder().partSize(8 * MIB).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StreamingCheckpoint.builder()
                .chunkSize(12 * MIB).backend("aws").backendOptions(eightMiBParts).build()
                .save(target("misaligned.bin"), 30 * MIB));
        assertTrue(e.getMessage().contains("chunks of 12 MiB do not fill whole parts of 8 MiB"), e.getMessage());
        assertNull(raw.head(S3.bucket(), "misaligned.bin"));
    }

    /**
     * A save's requests go through the async client (Netty: part bodies sent from the pool's segments
     * with no copy); a load's HEAD and ranged GETs through the sync client (Apache's: one copy into the
     * segment), so that neither run makes the other client. Options that customize the async client's
     * builder keep the load on that client. Every way loads every byte.
     */
    @Test
    void partsAndRangedGetsGoThroughTheSyncClientsUnlessTheAsyncBuilderIsCustomized() throws IOException {
        String key = "gets/17MiB.bin";
        long size = 17 * MIB + 3;
        java.util.Set<String> calls = java.util.concurrent.ConcurrentHashMap.newKeySet();
        ExecutionInterceptor record = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                calls.add(context.request().getClass().getSimpleName() + " "
                        + attributes.getAttribute(SdkExecutionAttribute.CLIENT_TYPE).name());
            }
        };
        SaveResult saved = checkpoint(S3.settings(), AwsOptions.overriding(o -> o.addExecutionInterceptor(record)))
                .save(target(key), size);
        SEEN.add(saved.toString());
        // to an http:// endpoint the parts go through the sync client on SegmentHttpClient
        assertEquals(java.util.Set.of("HeadBucketRequest ASYNC", "CreateMultipartUploadRequest ASYNC", "UploadPartRequest SYNC",
                "CompleteMultipartUploadRequest ASYNC", "HeadObjectRequest ASYNC"), calls);
        calls.clear();
        // a single-part object too, its metadata with it
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared();
             io.dgen4j.s3.spi.S3Transport t = new AwsTransportFactory(AwsOptions.overriding(
                     o -> o.addExecutionInterceptor(record)), 4).open(S3.settings())) {
            byte[] bytes = new byte[5001];
            new java.util.Random(5).nextBytes(bytes);
            java.lang.foreign.MemorySegment body = arena.allocate(bytes.length);
            body.copyFrom(java.lang.foreign.MemorySegment.ofArray(bytes));
            t.putObject(io.dgen4j.s3.S3Location.parse("s3://" + S3.bucket() + "/gets/put.bin"), Map.of("k", "v"), body)
                    .join();
            assertEquals(java.util.Set.of("PutObjectRequest SYNC"), calls);
            assertEquals(Map.of("k", "v"), raw.head(S3.bucket(), "gets/put.bin").metadata());
            assertArrayEquals(bytes, raw.client.getObject(b -> b.bucket(S3.bucket()).key("gets/put.bin"),
                    software.amazon.awssdk.core.async.AsyncResponseTransformer.toBytes()).join().asByteArray());
        }
        calls.clear();
        checkpoint(S3.settings(), new AwsOptions(b -> { }, o -> o.addExecutionInterceptor(record)))
                .save(target("gets/customized.bin"), size);
        assertEquals(java.util.Set.of("HeadBucketRequest ASYNC", "CreateMultipartUploadRequest ASYNC", "UploadPartRequest ASYNC",
                "CompleteMultipartUploadRequest ASYNC", "HeadObjectRequest ASYNC"), calls);
        calls.clear();
        LoadResult sync = checkpoint(S3.settings(), AwsOptions.overriding(o -> o.addExecutionInterceptor(record)))
                .load(target(key), true);
        SEEN.add(sync.toString());
        assertEquals(size, sync.totalBytes());
        assertTrue(sync.verified());
        assertEquals(java.util.Set.of("HeadObjectRequest SYNC", "GetObjectRequest SYNC"), calls);
        calls.clear();
        LoadResult async = checkpoint(S3.settings(), new AwsOptions(b -> { }, o -> o.addExecutionInterceptor(record)))
                .load(target(key), true);
        assertEquals(size, async.totalBytes());
        assertTrue(async.verified());
        assertEquals(java.util.Set.of("HeadObjectRequest ASYNC", "GetObjectRequest ASYNC"), calls);
    }

    @Test
    void aCorruptedObjectFailsVerificationAtTheFirstBadOffset() throws Exception {
        String key = "corrupt.bin";
        checkpoint().save(target(key), 12 * MIB);
        // rewrite the object with one byte changed, keeping its metadata
        HeadObjectResponse h = raw.head(S3.bucket(), key);
        byte[] bytes = raw.client.getObject(b -> b.bucket(S3.bucket()).key(key),
                software.amazon.awssdk.core.async.AsyncResponseTransformer.toBytes()).join().asByteArray();
        bytes[7 * MIB + 5] ^= 1;
        raw.client.putObject(b -> b.bucket(S3.bucket()).key(key).metadata(h.metadata()),
                software.amazon.awssdk.core.async.AsyncRequestBody.fromBytes(bytes)).join();
        IOException e = assertThrows(IOException.class, () -> checkpoint().load(target(key), true));
        assertTrue(e.getMessage().contains(Long.toString(7L * MIB + 5)), e.getMessage());
    }

    @Test
    void anEmptyObjectIsOnePutWithItsMetadata() throws IOException {
        StorageProvider p = StorageProviders.named("aws").orElseThrow();
        StorageTarget t = StorageTarget.parse(target("empty.bin"));
        StorageOptions o = StorageOptions.empty().with(S3.settings());
        Map<String, Object> meta = Map.of("dgen4j", "checkpoint", "size", 0L, "ratio", 1.5);
        try (StorageWriter w = p.openWriter(new WriteRequest(t, 0, meta, 1, o))) {
            SEEN.add(w.description());
            w.commit();
            assertTrue(w.state().contains("in place"), w.state());
        }
        try (StorageReader r = p.openReader(new ReadRequest(t, 1, o))) {
            assertEquals(0, r.size());
            assertEquals(meta, r.metadata());
            assertEquals(0, r.read(0, java.lang.foreign.Arena.global().allocate(4096, 4096)));
        }
        assertEquals(0L, raw.head(S3.bucket(), "empty.bin").contentLength());
    }

    @Test
    void aFailedPartFailsTheSaveWithItsCauseAndLeavesNoObjectNorUpload() throws Exception {
        // the server really lists open uploads (else the check below would prove nothing)
        String probe = raw.client.createMultipartUpload(b -> b.bucket(S3.bucket()).key("probe.bin")).join().uploadId();
        assertEquals(1, raw.uploads(S3.bucket(), "probe.bin").size());
        raw.client.abortMultipartUpload(b -> b.bucket(S3.bucket()).key("probe.bin").uploadId(probe)).join();
        assertEquals(List.of(), raw.uploads(S3.bucket(), "probe.bin"));

        AtomicInteger parts = new AtomicInteger();
        ExecutionInterceptor failSecondPart = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                if (context.request() instanceof UploadPartRequest && parts.incrementAndGet() == 2) {
                    throw new IllegalStateException("injected failure of the second UploadPart");
                }
            }
        };
        AwsOptions failing = AwsOptions.overriding(c -> c.addExecutionInterceptor(failSecondPart));
        String key = "failed-part.bin";
        IOException e = assertThrows(IOException.class,
                () -> checkpoint(S3.settings(), failing).save(target(key), 23 * MIB + 11));
        see(e);
        assertTrue(chain(e).contains("injected failure of the second UploadPart"), chain(e));
        assertTrue(parts.get() >= 2);
        assertNull(raw.head(S3.bucket(), key), "no object");
        assertEquals(List.of(), raw.uploads(S3.bucket(), key), "no open upload");
        assertNoPartFiles();

        // a failed replacement leaves the previous checkpoint whole
        String kept = "kept.bin";
        checkpoint().save(target(kept), 11 * MIB);
        parts.set(0);
        see(assertThrows(IOException.class, () -> checkpoint(S3.settings(), failing).save(target(kept), 16 * MIB)));
        assertEquals(11L * MIB, checkpoint().load(target(kept), true).totalBytes());
        assertEquals(List.of(), raw.uploads(S3.bucket(), kept));
    }

    private static void assertNoPartFiles() throws IOException {
        try (Stream<Path> s = Files.walk(S3.dataDir().resolve(S3.bucket()))) {
            List<String> names = s.filter(Files::isRegularFile).map(p -> p.getFileName().toString())
                    .filter(n -> n.contains("failed-part")).toList();
            assertEquals(List.of(), names, "files of the failed upload left in the server's store");
        }
    }

    private static String chain(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c).append(" <- ");
        }
        return b.toString();
    }
}
