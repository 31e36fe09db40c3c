package io.dgen4j.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.storage.ReadRequest;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageProvider;
import io.dgen4j.storage.StorageProviders;
import io.dgen4j.storage.StorageReader;
import io.dgen4j.storage.StorageTarget;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Integrity through a backend against a real s3proxy (4.1.0, filesystem store), which checks what
 * S3 checks: an {@code x-amz-checksum-crc32c} header against the part's bytes (400 BadDigest), the
 * full-object CRC32C of the completion against the parts, and reports the object's CRC32C to a HEAD
 * with {@code x-amz-checksum-mode: ENABLED} (not to ranged GETs); it refuses a GET whose
 * {@code If-Match} names another ETag with 412. The {@link FaultProxy} between the backend and the
 * store damages a part on its way in, a GET's answer on its way out, or holds a GET back while the
 * object is replaced. A backend's test extends it and names the backend.
 */
public abstract class S3IntegrityContract {
    protected static final int MIB = 1 << 20;
    private static final long CHUNK = 5L * MIB;

    @RegisterExtension
    protected static final S3ProxyExtension S3 = new S3ProxyExtension();

    /** The backend under test ({@code aws}, {@code crt}, {@code minio}). */
    protected abstract String backend();

    private S3Transport transport(S3Settings s) throws IOException {
        for (S3TransportFactory f : ServiceLoader.load(S3TransportFactory.class)) {
            if (f.backend().equals(backend())) {
                return f.open(s);
            }
        }
        throw new IllegalStateException("no S3 transport named " + backend() + " on the class path");
    }

    private StreamingCheckpoint checkpoint(S3Settings s, long seed) {
        return StreamingCheckpoint.builder().chunkSize(CHUNK).buffers(3).writersInFlight(2).backend(backend())
                .backendOptions(s).spec(DataSpec.builder().seed(seed).build()).build();
    }

    private StorageTarget target(String key) {
        return StorageTarget.parse("s3://" + S3.bucket() + "/" + key);
    }

    private Path stored(String key) {
        return S3.dataDir().resolve(S3.bucket()).resolve(key);
    }

    private static String crc32c(Path file) throws IOException {
        CRC32C c = new CRC32C();
        c.update(Files.readAllBytes(file));
        return Crc32c.base64((int) c.getValue());
    }

    private static Throwable failure(CompletableFuture<?> f) {
        CompletionException e = assertThrows(CompletionException.class, f::join);
        return e.getCause() == null ? e : e.getCause();
    }

    @Test
    protected void theStoreChecksEachPartsCrc32cAndTheObjectsAtCompletion() throws Exception {
        S3Location where = S3Location.parse("s3://" + S3.bucket() + "/integrity/parts.bin");
        try (S3Transport t = transport(S3.settings()); Arena arena = Arena.ofShared()) {
            MemorySegment first = arena.allocate(CHUNK, 4096);
            MemorySegment last = arena.allocate(1000, 4096);
            for (long i = 0; i < CHUNK; i += 8) {
                first.set(ValueLayout.JAVA_LONG, i, i * 0x9E3779B97F4A7C15L);
            }
            last.fill((byte) 7);
            int crcFirst = Crc32c.of(first);
            int crcLast = Crc32c.of(last);
            String id = t.createMultipartUpload(where, Map.of(), true).join();
            Throwable bad = failure(t.uploadPart(where, id, 1, first, Crc32c.base64(crcFirst ^ 1)));
            assertEquals(S3Transport.FailureKind.CORRUPTED, t.classify(bad), String.valueOf(bad));
            S3Transport.UploadedPart p1 = t.uploadPart(where, id, 1, first, Crc32c.base64(crcFirst)).join();
            S3Transport.UploadedPart p2 = t.uploadPart(where, id, 2, last, Crc32c.base64(crcLast)).join();
            List<S3Transport.UploadedPart> parts = List.of(
                    new S3Transport.UploadedPart(1, p1.etag(), Crc32c.base64(crcFirst)),
                    new S3Transport.UploadedPart(2, p2.etag(), Crc32c.base64(crcLast)));
            String object = Crc32c.base64(Crc32c.combine(crcFirst, crcLast, last.byteSize()));
            // refused (400 BadDigest: the crt backend does not see the code of this answer), not an endpoint's fault
            Throwable wrong = failure(t.completeMultipartUpload(where, id, parts, Crc32c.base64(42)));
            assertNotEquals(S3Transport.FailureKind.ENDPOINT, t.classify(wrong), String.valueOf(wrong));
            assertEquals(object, t.completeMultipartUpload(where, id, parts, object).join(),
                    "the store's CRC32C of the object, in the completion's answer");
            Optional<S3Transport.ObjectHead> h = t.headObject(where).join();
            assertEquals(object, h.orElseThrow().crc32c(), "and in a HEAD's");
            assertEquals(object, crc32c(stored("integrity/parts.bin")), "the bytes the store holds");
        }
    }

    @Test
    protected void aSaveStoresTheFullObjectCrc32cThatALoadChecks() throws Exception {
        String key = "integrity/saved.bin";
        long size = 3 * CHUNK + 12345;
        checkpoint(S3.settings(), 5).save(target(key), size);
        String onDisk = crc32c(stored(key));
        try (S3Transport t = transport(S3.settings())) {
            S3Location where = S3Location.parse(target(key).toString());
            assertEquals(onDisk, t.headObject(where).join().orElseThrow().crc32c());
        }
        LoadResult back = checkpoint(S3.settings(), 5).load(target(key), true);
        assertTrue(back.verified());
        try (StorageReader r = reader(key, S3.settings())) {
            assertTrue(((RangedReader) r).checksumChecked(), "the load compares the bytes with the store's CRC32C");
        }

        // a byte flipped at rest (the store's checksum stays): a load finds it without --verify
        try (RandomAccessFile f = new RandomAccessFile(stored(key).toFile(), "rw")) {
            f.seek(CHUNK + 3);
            int b = f.read();
            f.seek(CHUNK + 3);
            f.write(b ^ 0x10);
        }
        IOException e = assertThrows(IOException.class, () -> checkpoint(S3.settings(), 5).load(target(key), false));
        assertTrue(e.getMessage().contains("s3://" + S3.bucket() + "/" + key + ": the bytes read have CRC32C "),
                e.getMessage());
        assertTrue(e.getMessage().contains("the store's checksum of the object is " + onDisk), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        IOException verified = assertThrows(IOException.class,
                () -> checkpoint(S3.settings(), 5).load(target(key), true));
        assertNotNull(verified.getMessage());
    }

    /** No upload that the proxy saw a part of is still listed. */
    private void assertNoOpenUpload(FaultProxy proxy, String key) throws IOException {
        S3Location where = S3Location.parse(target(key).toString());
        try (S3Transport t = transport(S3.settings())) {
            for (String id : proxy.seen().stream().filter(FaultProxy.Match.uploadPart())
                    .map(x -> x.query().get("uploadId")).distinct().toList()) {
                assertFalse(t.uploadListed(where, id).join(), "upload " + id + " of " + key + " is left open");
            }
        }
    }

    @Test
    protected void aPartFlippedOnItsWayIsSentAgainAndTheObjectIsByteExact() throws Exception {
        String key = "integrity/flipped-part.bin";
        try (FaultProxy proxy = FaultProxy.start(S3.endpoint())) {
            FaultProxy.Injection flip = proxy.inject(FaultProxy.Match.uploadPart(3), FaultProxy.Fault.flipRequestBody(0));
            checkpoint(proxy.settings(S3.settings()), 11).save(target(key), 6 * CHUNK);
            assertEquals(1, flip.fired());
            assertEquals(2, proxy.count(FaultProxy.Match.uploadPart(3)), "part 3 was sent again: " + proxy.seen());
            assertNoOpenUpload(proxy, key);
        }
        assertTrue(checkpoint(S3.settings(), 11).load(target(key), true).verified(), "the object is byte-exact");
    }

    @Test
    protected void aPartFlippedOnEveryAttemptFailsTheSaveInOneLineAndLeavesThePreviousObject() throws Exception {
        String key = "integrity/always-flipped.bin";
        checkpoint(S3.settings(), 12).save(target(key), 2 * CHUNK);
        try (FaultProxy proxy = FaultProxy.start(S3.endpoint())) {
            proxy.inject(FaultProxy.Match.uploadPart(3), FaultProxy.Fault.flipRequestBody(100), 1, FaultProxy.EVERY);
            long start = System.nanoTime();
            IOException e = assertThrows(IOException.class,
                    () -> checkpoint(proxy.settings(S3.settings()), 13).save(target(key), 6 * CHUNK));
            double seconds = (System.nanoTime() - start) / 1e9;
            assertTrue(e.getMessage().contains("UploadPart 3 of s3://" + S3.bucket() + "/" + key), e.getMessage());
            assertTrue(e.getMessage().contains("(" + MultipartWriter.CORRUPTED_ATTEMPTS + " attempts, the store found "
                    + "the bytes damaged each time"), e.getMessage());
            assertTrue(e.getMessage().contains("is intact"), e.getMessage());
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
            assertEquals(MultipartWriter.CORRUPTED_ATTEMPTS, proxy.count(FaultProxy.Match.uploadPart(3)));
            assertTrue(seconds < 120, "failed within the bound: " + seconds + " s");
            assertNoOpenUpload(proxy, key);
        }
        LoadResult previous = checkpoint(S3.settings(), 12).load(target(key), true);
        assertTrue(previous.verified());
        assertEquals(2 * CHUNK, previous.totalBytes(), "the previous object is whole");
    }

    @Test
    protected void aByteFlippedInAGetsAnswerFailsTheLoadByTheStoresChecksumAndByVerify() throws Exception {
        String key = "integrity/flipped-get.bin";
        checkpoint(S3.settings(), 14).save(target(key), 3 * CHUNK);
        try (FaultProxy proxy = FaultProxy.start(S3.endpoint())) {
            S3Settings via = proxy.settings(S3.settings());
            proxy.inject(FaultProxy.Match.rangedGet(), FaultProxy.Fault.flipResponseBody(17));
            IOException e = assertThrows(IOException.class, () -> checkpoint(via, 14).load(target(key), false));
            assertTrue(e.getMessage().contains(": the bytes read have CRC32C "), e.getMessage());
            assertFalse(e.getMessage().contains("\n"), e.getMessage());

            proxy.inject(FaultProxy.Match.rangedGet(), FaultProxy.Fault.flipResponseBody(17));
            assertThrows(IOException.class, () -> checkpoint(via, 14).load(target(key), true));

            // without checksums only --verify sees it
            S3Settings plain = via.toBuilder().checksumMode(S3Settings.ChecksumMode.WHEN_REQUIRED).build();
            proxy.inject(FaultProxy.Match.rangedGet(), FaultProxy.Fault.flipResponseBody(17));
            assertEquals(3 * CHUNK, checkpoint(plain, 14).load(target(key), false).totalBytes(),
                    "read, damaged, unnoticed");
            proxy.inject(FaultProxy.Match.rangedGet(), FaultProxy.Fault.flipResponseBody(17));
            IOException verify = assertThrows(IOException.class, () -> checkpoint(plain, 14).load(target(key), true));
            assertTrue(verify.getMessage().contains("first mismatch at byte offset 17"), verify.getMessage());
        }
        assertTrue(checkpoint(S3.settings(), 14).load(target(key), true).verified(), "the stored object is whole");
    }

    @Test
    protected void anObjectReplacedDuringALoadFailsItAsChangedWithoutRetries() throws Exception {
        String key = "integrity/replaced-during-load.bin";
        checkpoint(S3.settings(), 21).save(target(key), 4 * CHUNK);
        try (FaultProxy proxy = FaultProxy.start(S3.endpoint())) {
            // the second ranged GET is held back while the object is replaced
            proxy.inject(FaultProxy.Match.rangedGet(), FaultProxy.Fault.delayRequest(java.time.Duration.ofSeconds(8)),
                    2, 1);
            StreamingCheckpoint load = StreamingCheckpoint.builder().chunkSize(CHUNK).buffers(2).readersInFlight(1)
                    .backend(backend()).backendOptions(proxy.settings(S3.settings()))
                    .spec(DataSpec.builder().seed(21).build()).build();
            CompletableFuture<LoadResult> loading = CompletableFuture.supplyAsync(() -> {
                try {
                    return load.load(target(key), false);
                } catch (IOException x) {
                    throw new CompletionException(x);
                }
            });
            assertTrue(proxy.await(FaultProxy.Match.rangedGet(), 2, java.time.Duration.ofSeconds(60)));
            checkpoint(S3.settings(), 22).save(target(key), 4096); // one small part: done within the hold
            Throwable e = failure(loading);
            assertTrue(e instanceof IOException, String.valueOf(e));
            assertTrue(e.getMessage().contains("s3://" + S3.bucket() + "/" + key + " changed during the load"),
                    e.getMessage());
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
            assertEquals(2, proxy.count(FaultProxy.Match.rangedGet()), "not retried: " + proxy.seen());
        }
    }

    @Test
    protected void aGetAnsweredWithAnotherETagIsRefusedAsChangedForStoresThatIgnoreIfMatch() throws Exception {
        // a store that ignores If-Match: every GET is answered, with the ETag of another object
        com.sun.net.httpserver.HttpServer store = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 10);
        byte[] body = new byte[4096];
        java.util.concurrent.atomic.AtomicInteger gets = new java.util.concurrent.atomic.AtomicInteger();
        store.createContext("/", x -> {
            gets.incrementAndGet();
            x.getRequestBody().readAllBytes();
            x.getResponseHeaders().add("ETag", "\"0123456789abcdef0123456789abcdef\"");
            x.getResponseHeaders().add("Content-Range", "bytes 0-4095/8192");
            x.getResponseHeaders().add("Content-Type", "application/octet-stream");
            x.sendResponseHeaders(206, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        store.start();
        S3Location where = S3Location.parse("s3://" + S3.bucket() + "/integrity/ignores-if-match.bin");
        try (S3Transport t = transport(S3.settings().toBuilder().endpoint(java.net.URI.create("http://127.0.0.1:"
                + store.getAddress().getPort())).build()); Arena arena = Arena.ofShared()) {
            MemorySegment dst = arena.allocate(4096, 4096);
            Throwable e = failure(t.getRange(where, 0, dst, "\"fedcba9876543210fedcba9876543210\""));
            assertEquals(S3Transport.FailureKind.CHANGED, t.classify(e), String.valueOf(e));
            String line = t.describe("GetObject bytes=0-4095", where, e).getMessage();
            assertTrue(line.contains("answered with ETag \"0123456789abcdef0123456789abcdef\", not "), line);
            assertEquals(1, gets.get(), "asked once: the client library does not retry it either");
            // the same answer to a GET that names that ETag is read
            assertEquals(4096, t.getRange(where, 0, dst, "\"0123456789abcdef0123456789abcdef\"").join());
        } finally {
            store.stop(0);
        }
    }

    private StorageReader reader(String key, S3Settings s) throws IOException {
        StorageProvider p = StorageProviders.named(backend()).orElseThrow();
        return p.openReader(new ReadRequest(target(key), 2, StorageOptions.empty().with(s)));
    }

    @Test
    protected void anObjectReplacedBetweenTheHeadAndAGetFailsTheLoadAsChanged() throws Exception {
        String key = "integrity/replaced.bin";
        long size = 2 * CHUNK;
        checkpoint(S3.settings(), 1).save(target(key), size);
        try (StorageReader r = reader(key, S3.settings()); Arena arena = Arena.ofShared()) {
            MemorySegment buf = arena.allocate(CHUNK, 4096);
            assertEquals(CHUNK, r.read(0, buf), "the object as HEADed");
            checkpoint(S3.settings(), 2).save(target(key), size); // replaced: same size, other bytes
            long start = System.nanoTime();
            IOException e = assertThrows(IOException.class, () -> r.read(CHUNK, buf));
            double seconds = (System.nanoTime() - start) / 1e9;
            assertTrue(e.getMessage().startsWith("s3://" + S3.bucket() + "/" + key + " changed during the load: it "
                    + "is no longer the object of ETag "), e.getMessage());
            assertTrue(e.getMessage().contains("412"), "s3proxy honours If-Match on GET: " + e.getMessage());
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
            assertTrue(seconds < 10, "failed at once, not retried: " + seconds + " s");
        }
    }

    @Test
    protected void withChecksumsWhenRequiredNothingIsAskedOrChecked() throws Exception {
        String key = "integrity/plain.bin";
        S3Settings plain = S3.settings().toBuilder().checksumMode(S3Settings.ChecksumMode.WHEN_REQUIRED).build();
        checkpoint(plain, 3).save(target(key), 2 * CHUNK + 1);
        assertTrue(checkpoint(plain, 3).load(target(key), true).verified());
        try (S3Transport t = transport(S3.settings())) {
            S3Location where = S3Location.parse(target(key).toString());
            assertNull(t.headObject(where).join().orElseThrow().crc32c(),
                    "no full-object CRC32C was asked for: the store keeps none");
        }
        try (StorageReader r = reader(key, S3.settings())) {
            assertFalse(((RangedReader) r).checksumChecked());
        }
    }
}
