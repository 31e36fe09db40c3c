package io.dgen4j.minio;

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
import io.minio.StatObjectResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import okhttp3.Interceptor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Streaming checkpoints to a real S3 server (s3proxy) through the minio backend, and its failures. */
class MinioBackendTest extends S3BackendFailuresContract {
    private static RawMinio raw;

    @BeforeAll
    static void client() {
        raw = new RawMinio(S3);
    }

    @AfterAll
    static void closeClient() {
        raw.close();
    }

    private static StreamingCheckpoint checkpoint(S3Settings s, MinioOptions options) {
        return StreamingCheckpoint.builder().chunkSize(5 * MIB).buffers(3).writersInFlight(2).readersInFlight(2).backend("minio")
                .backendOptions(s).backendOptions(options)
                .spec(DataSpec.builder().size(1).seed(42).dedupRatio(2).compressRatio(2).build()).build();
    }

    private static StreamingCheckpoint checkpoint() {
        return checkpoint(S3.settings(), MinioOptions.defaults());
    }

    private static String target(String key) {
        return "s3://" + S3.bucket() + "/" + key;
    }

    @Override
    protected String backend() {
        return "minio";
    }

    @Test
    void minioIsAnS3BackendBelowAws() {
        StorageProvider p = StorageProviders.named("minio").orElseThrow();
        assertEquals(java.util.Set.of("s3"), p.schemes());
        assertEquals(3, p.priority());
        assertEquals("minio", StorageProviders.forTarget(StorageTarget.parse("s3://b-1/k"),
                java.util.Optional.of("minio")).name());
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 5 * MIB - 1, 5 * MIB, 17 * MIB + 3})
    void saveAndLoadWithVerify(long size) throws IOException {
        String key = "sizes/" + size + ".bin";
        long streamedBefore = MinioTransportFactory.counters().streamedBytes();
        SaveResult saved = checkpoint().save(target(key), size);
        assertEquals(size, saved.totalBytes());
        SEEN.add(saved.toString());
        assertTrue(saved.backend().startsWith("minio " + target(key)), saved.backend());
        assertEquals(size, MinioTransportFactory.counters().streamedBytes() - streamedBefore,
                "every byte handed to MinIO once, from its segment");
        StatObjectResponse h = raw.head(S3.bucket(), key);
        assertEquals(size, h.size());
        assertTrue(h.userMetadata().getFirst(MetadataCodec.KEY).contains("\"dgen4j\":\"checkpoint\""),
                h.userMetadata().toString());
        LoadResult loaded = checkpoint().load(target(key), true);
        assertEquals(size, loaded.totalBytes());
        assertTrue(loaded.verified());
        assertEquals(List.of(), raw.uploads(S3.bucket(), key));
    }

    @Test
    void theFullChecksumModeLetsMinioSignThePayload() throws IOException {
        List<String> hashes = Collections.synchronizedList(new ArrayList<>());
        List<String> crcs = Collections.synchronizedList(new ArrayList<>());
        Interceptor headers = chain -> {
            if (chain.request().url().queryParameter("partNumber") != null) {
                hashes.add(chain.request().header("x-amz-content-sha256"));
                crcs.add(String.valueOf(chain.request().header("x-amz-checksum-crc32c")));
            }
            return chain.proceed(chain.request());
        };
        MinioOptions watched = new MinioOptions(b -> b.addInterceptor(headers));
        checkpoint(S3.settings(), watched).save(target("unsigned.bin"), 11 * MIB + 7);
        assertEquals(List.of("UNSIGNED-PAYLOAD", "UNSIGNED-PAYLOAD", "UNSIGNED-PAYLOAD"), hashes);
        assertTrue(crcs.stream().allMatch(c -> c.matches("[A-Za-z0-9+/]{6}==")), crcs.toString());
        hashes.clear();
        crcs.clear();
        S3Settings full = S3.settings().toBuilder().checksumMode(S3Settings.ChecksumMode.FULL).build();
        checkpoint(full, watched).save(target("full.bin"), 11 * MIB + 7);
        assertEquals(3, hashes.size());
        assertTrue(hashes.stream().allMatch(h -> h.matches("[0-9a-f]{64}")), "signed SHA-256 payloads: " + hashes);
        assertEquals(11L * MIB + 7, checkpoint().load(target("full.bin"), true).totalBytes());
    }

    @Test
    void aChunkOfSeveralPartsIsSentAsThoseParts() throws IOException {
        AtomicInteger parts = new AtomicInteger();
        Interceptor count = chain -> {
            if (chain.request().url().queryParameter("partNumber") != null) {
                parts.incrementAndGet();
            }
            return chain.proceed(chain.request());
        };
        S3Settings fiveMiBParts = S3.settings().toBuilder().partSize(5 * MIB).build();
        StreamingCheckpoint c = StreamingCheckpoint.builder().chunkSize(10 * MIB).buffers(3).writersInFlight(2)
                .backend("minio").backendOptions(fiveMiBParts)
                .backendOptions(new MinioOptions(b -> b.addInterceptor(count))).build();
        SaveResult r = c.save(target("split.bin"), 23 * MIB + 5);
        assertEquals(5, parts.get(), "10 MiB chunks in 5 MiB parts: 2 + 2 + 1 parts");
        assertTrue(r.backend().contains("5 parts of 5242880 bytes"), r.backend());
        assertEquals(23L * MIB + 5, checkpoint().load(target("split.bin"), true).totalBytes());
    }

    @Test
    void aCorruptedObjectFailsVerificationAtTheFirstBadOffset() throws Exception {
        String key = "corrupt.bin";
        checkpoint().save(target(key), 12 * MIB);
        StatObjectResponse h = raw.head(S3.bucket(), key);
        byte[] bytes;
        try (var in = raw.client.getObject(io.minio.GetObjectArgs.builder().bucket(S3.bucket()).object(key).build())
                .join()) {
            bytes = in.readAllBytes();
        }
        bytes[7 * MIB + 5] ^= 1;
        raw.client.putObject(io.minio.PutObjectAPIArgs.builder().bucket(S3.bucket()).object(key)
                .data(bytes, bytes.length).headers(new io.minio.Http.Headers("x-amz-meta-" + MetadataCodec.KEY,
                        h.userMetadata().getFirst(MetadataCodec.KEY))).build()).join();
        IOException e = assertThrows(IOException.class, () -> checkpoint().load(target(key), true));
        assertTrue(e.getMessage().contains(Long.toString(7L * MIB + 5)), e.getMessage());
    }

    @Test
    void anEmptyObjectIsOnePutWithItsMetadata() throws IOException {
        StorageProvider p = StorageProviders.named("minio").orElseThrow();
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
        assertEquals(0L, raw.head(S3.bucket(), "empty.bin").size());
    }

    @Test
    void aFailedPartFailsTheSaveWithItsCauseAndLeavesNoObjectNorUpload() throws Exception {
        // the server really lists open uploads (else the check below would prove nothing)
        String probe = raw.client.createMultipartUpload(io.minio.CreateMultipartUploadArgs.builder()
                .bucket(S3.bucket()).object("probe.bin").build()).join().result().uploadId();
        assertEquals(1, raw.uploads(S3.bucket(), "probe.bin").size());
        raw.client.abortMultipartUpload(io.minio.AbortMultipartUploadArgs.builder().bucket(S3.bucket())
                .object("probe.bin").uploadId(probe).build()).join();
        assertEquals(List.of(), raw.uploads(S3.bucket(), "probe.bin"));

        // The server refuses the second part (an S3 error answer: the request's fault, so the driver
        // fails the save at once; a broken connection would be the endpoint's, and mark this test
        // server's one endpoint down for the next tests; the failover tests cover that).
        AtomicInteger parts = new AtomicInteger();
        Interceptor failSecondPart = chain -> {
            if (chain.request().url().queryParameter("partNumber") != null && parts.incrementAndGet() == 2) {
                return new okhttp3.Response.Builder().request(chain.request()).protocol(okhttp3.Protocol.HTTP_1_1)
                        .code(400).message("Bad Request").header("Content-Type", "application/xml")
                        .body(okhttp3.ResponseBody.create("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>"
                                + "InjectedFailure</Code><Message>injected failure of the second UploadPart</Message>"
                                + "</Error>", okhttp3.MediaType.get("application/xml"))).build();
            }
            return chain.proceed(chain.request());
        };
        MinioOptions failing = new MinioOptions(b -> b.addInterceptor(failSecondPart));
        String key = "failed-part.bin";
        IOException e = assertThrows(IOException.class,
                () -> checkpoint(S3.settings(), failing).save(target(key), 23 * MIB + 11));
        see(e);
        assertTrue(chain(e).contains("injected failure of the second UploadPart"), chain(e));
        assertTrue(e.getMessage().contains("HTTP 400 InjectedFailure"), e.getMessage());
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

    @Test
    void aPartAlteredInFlightIsRefusedByItsCrc32c() {
        // the body is replaced after the CRC32C header was computed; the payload is unsigned, so
        // only the checksum can tell: the server answers BadDigest and the save leaves nothing
        Interceptor zeroBody = chain -> {
            var rq = chain.request();
            if (rq.url().queryParameter("partNumber") != null) {
                rq = rq.newBuilder().put(okhttp3.RequestBody.create(new byte[(int) rq.body().contentLength()],
                        rq.body().contentType())).build();
            }
            return chain.proceed(rq);
        };
        String key = "altered.bin";
        IOException e = assertThrows(IOException.class, () -> checkpoint(S3.settings(),
                new MinioOptions(b -> b.addInterceptor(zeroBody))).save(target(key), 6 * MIB));
        see(e);
        assertTrue(e.getMessage().contains("HTTP 400 BadDigest"), e.getMessage());
        assertNull(raw.head(S3.bucket(), key), "no object");
        assertEquals(List.of(), raw.uploads(S3.bucket(), key), "no open upload");
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
            b.append(c.getMessage()).append(" <- ");
        }
        return b.toString();
    }
}
