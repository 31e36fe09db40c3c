package io.dgen4j.s3;

import io.dgen4j.s3.internal.RangedReader;
import io.dgen4j.s3.internal.Crc32c;
import io.dgen4j.s3.spi.S3Transport;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.checkpoint.VerifyException;
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
 * {@code If-Match} names another ETag with 412; a store that ignores {@code If-Match} (a JDK HTTP
 * server here) is caught by the answer's ETag. Damage on the way, through the {@link FaultProxy}, is
 * {@link S3FaultContract}'s. A backend's test extends it and names the backend.
 */
public abstract class S3IntegrityContract {
    protected static final int MIB = 1 << 20;
    private static final long CHUNK = 5L * MIB;

    @RegisterExtension
    protected static final S3ProxyExtension S3 = new S3ProxyExtension();

    /** The backend under test ({@code aws}, {@code crt}, {@code minio}). */
    protected abstract String backend();

    private S3Transport transport(S3Settings s) throws IOException {
        for (io.dgen4j.s3.spi.S3ClientProvider c : S3StorageProvider.clients()) {
            if (c.name().equals(backend())) {
                return c.transports(StorageOptions.empty(), 0).open(s);
            }
        }
        throw new IllegalStateException("no S3 client named " + backend() + " on the class path");
    }

    private StreamingCheckpoint checkpoint(S3Settings s, long seed) {
        return StreamingCheckpoint.builder().chunkSize(CHUNK).buffers(3).writersInFlight(2).readersInFlight(2)
                .backend(backend()).backendOptions(s).spec(DataSpec.builder().seed(seed).build()).build();
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

    /**
     * A summed ranged GET feeds its checksum exactly the bytes it stores, in order: a range the crt
     * backend splits into pieces (over 8 MiB, not a whole number of them), one at the object's end
     * (fewer bytes than asked for), and one of a single byte.
     */
    @Test
    protected void aSummedRangedGetChecksumsExactlyTheBytesItStores() throws Exception {
        String key = "integrity/summed.bin";
        long size = 4 * CHUNK + 777; // 20 MiB and some
        checkpoint(S3.settings(), 9).save(target(key), size);
        byte[] stored = Files.readAllBytes(stored(key));
        assertEquals(size, stored.length);
        S3Location where = S3Location.parse(target(key).toString());
        try (S3Transport t = transport(S3.settings()); Arena arena = Arena.ofShared()) {
            String etag = t.headObject(where).join().orElseThrow().etag();
            long[][] ranges = {{3, size - 1000}, {size - 500, 4096}, {12345, 1}};
            for (long[] r : ranges) {
                MemorySegment dst = arena.allocate(r[1]);
                StoredFirst sum = new StoredFirst(dst);
                sum.update(new byte[] {1, 2, 3}); // what an earlier attempt left: the GET starts it over
                long n = t.getRange(where, r[0], dst, etag, sum).join();
                long expected = Math.min(r[1], size - r[0]);
                assertEquals(expected, n, "bytes of the range at " + r[0]);
                CRC32C want = new CRC32C();
                want.update(stored, (int) r[0], (int) expected);
                assertEquals(want.getValue(), sum.getValue(), "the sum of the range at " + r[0]);
                assertEquals(expected, sum.fed, "bytes fed to the sum of the range at " + r[0]);
                assertNull(sum.notYetStored, "every byte is fed once it is in the segment, where a verified "
                        + "load compares it");
                assertEquals(java.nio.ByteBuffer.wrap(stored, (int) r[0], (int) expected),
                        dst.asSlice(0, n).asByteBuffer(), "the bytes of the range at " + r[0]);
            }
        }
    }

    /**
     * A CRC32C that checks, as each byte is fed after its reset, that the segment already holds it at
     * the position it was fed at.
     */
    private static final class StoredFirst implements java.util.zip.Checksum {
        private final CRC32C crc = new CRC32C();
        private final MemorySegment dst;
        private boolean started;
        long fed;
        String notYetStored;

        StoredFirst(MemorySegment dst) {
            this.dst = dst;
        }

        @Override
        public void update(int b) {
            update(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void update(byte[] b, int off, int len) {
            crc.update(b, off, len);
            if (started && notYetStored == null) {
                long m = MemorySegment.mismatch(MemorySegment.ofArray(b), off, off + len, dst, fed, fed + len);
                if (m >= 0) {
                    notYetStored = "byte " + (fed + m) + " fed before it was stored";
                }
            }
            fed += len;
        }

        @Override
        public void update(java.nio.ByteBuffer buffer) {
            byte[] b = new byte[buffer.remaining()];
            buffer.get(b);
            update(b, 0, b.length);
        }

        @Override
        public long getValue() {
            return crc.getValue();
        }

        @Override
        public void reset() {
            crc.reset();
            started = true;
            fed = 0;
        }
    }

    /**
     * A verified load compares the bytes as they arrive and reports the first that differs, with what
     * it should be and what was read (here with checksums only where required, so that the store's
     * CRC32C does not find the byte first).
     */
    @Test
    protected void aVerifiedLoadFindsTheFirstByteThatDiffersAsItArrives() throws Exception {
        String key = "integrity/verified.bin";
        long size = 3 * CHUNK + 4321;
        S3Settings required = S3.settings().toBuilder().checksumMode(S3Settings.ChecksumMode.WHEN_REQUIRED).build();
        checkpoint(required, 11).save(target(key), size);
        assertTrue(checkpoint(required, 11).load(target(key), true).verified());
        try (StorageReader r = reader(key, required)) {
            assertTrue(r.checksAsRead(), "compared as the pieces arrive, with no verifier thread");
        }
        long at = 2 * CHUNK + 1000;
        int was;
        try (RandomAccessFile f = new RandomAccessFile(stored(key).toFile(), "rw")) {
            f.seek(at);
            was = f.read();
            f.seek(at);
            f.write(was ^ 0x44);
        }
        VerifyException e = assertThrows(VerifyException.class,
                () -> checkpoint(required, 11).load(target(key), true));
        assertEquals(at, e.offset().orElseThrow(), e.getMessage());
        assertTrue(e.getMessage().contains(String.format("(expected 0x%02x, found 0x%02x)", was, was ^ 0x44)),
                e.getMessage());
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
