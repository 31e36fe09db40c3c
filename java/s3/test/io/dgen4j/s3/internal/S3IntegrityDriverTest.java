package io.dgen4j.s3.internal;

import io.dgen4j.s3.EndpointSet;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageTarget;
import io.dgen4j.storage.WriteRequest;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The driver's integrity checks over in-memory endpoints that check checksums as S3 does: a part
 * damaged on its way is sent again and the object is byte-exact, or the write fails in one line;
 * the object's CRC32C the store reports must be dgen4j's; a load compares the bytes it read with
 * the store's CRC32C and fails at once when the object is replaced under it.
 */
class S3IntegrityDriverTest {
    private static final int MIB = 1 << 20;
    private static final long PART = 5L * MIB;
    private static final String BUCKET = "bkt";
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    private S3Endpoints pool(FakeTransport.Cluster c, int endpoints, S3Settings.ChecksumMode mode) throws IOException {
        S3Settings s = S3Settings.builder().credentials("key", "secret", null).partSize(PART).checksumMode(mode)
                .endpointSet(EndpointSet.builder().endpoints(c.endpoints(endpoints))
                        .strategy(EndpointSet.Strategy.ROUND_ROBIN).build()).build();
        S3Endpoints p = S3Endpoints.open(c, s);
        open.add(p);
        return p;
    }

    private static S3Location at(String key) {
        return S3Location.parse("s3://" + BUCKET + "/" + key);
    }

    private static MultipartWriter writer(S3Endpoints pool, String key, long size) throws IOException {
        WriteRequest r = new WriteRequest(StorageTarget.parse("s3://" + BUCKET + "/" + key), size,
                Map.of("dgen4j", "test", "chunkSize", PART), 1, StorageOptions.empty());
        return MultipartWriter.open(pool, at(key), pool.settings(), r, 1);
    }

    /** Deterministic bytes: byte i of the object is a function of i. */
    private static byte[] bytes(long size) {
        byte[] b = new byte[(int) size];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) ((i * 0x9E3779B1) >>> 24);
        }
        return b;
    }

    /** Writes {@code data} part by part from one reused segment. */
    private static void write(MultipartWriter w, byte[] data) throws IOException {
        try (Arena a = Arena.ofShared()) {
            MemorySegment buf = a.allocate(PART, 4096);
            for (long off = 0; off < data.length; off += PART) {
                long n = Math.min(PART, data.length - off);
                MemorySegment part = buf.asSlice(0, n);
                MemorySegment.copy(data, (int) off, part, ValueLayout.JAVA_BYTE, 0, (int) n);
                w.write(off, part);
            }
        }
    }

    private static String crc32c(byte[] b) {
        CRC32C c = new CRC32C();
        c.update(b);
        return Crc32c.base64((int) c.getValue());
    }

    private static int uploadPartCalls(FakeTransport.Cluster c, int endpoints) {
        int n = 0;
        for (URI e : c.endpoints(endpoints)) {
            n += c.transport(e).calls("UploadPart");
        }
        return n;
    }

    @Test
    void crc32cOfJoinedRangesFollowsFromTheirs() {
        byte[] all = bytes(3 * MIB + 12345);
        for (int cut : new int[] {0, 1, 4096, MIB, all.length - 1, all.length}) {
            CRC32C a = new CRC32C();
            a.update(all, 0, cut);
            CRC32C b = new CRC32C();
            b.update(all, cut, all.length - cut);
            int joined = Crc32c.combine((int) a.getValue(), (int) b.getValue(), all.length - cut);
            assertEquals(crc32c(all), Crc32c.base64(joined), "cut at " + cut);
        }
        assertEquals(0x12345678, Crc32c.parse(Crc32c.base64(0x12345678)));
        assertEquals("AAAwOQ==", Crc32c.base64(12345));
        assertThrows(IllegalArgumentException.class, () -> Crc32c.parse("AAAA"));
    }

    @Test
    void aPartDamagedOnItsWayIsSentAgainAndTheObjectIsByteExact() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, true);
        S3Endpoints pool = pool(c, 2, S3Settings.ChecksumMode.CRC32C);
        // part 3 arrives damaged at whichever endpoint takes its first attempt
        java.util.concurrent.atomic.AtomicBoolean once = new java.util.concurrent.atomic.AtomicBoolean();
        for (URI e : c.endpoints(2)) {
            c.transport(e).damageWith((part, call) -> part == 3 && once.compareAndSet(false, true));
        }
        byte[] data = bytes(6 * PART);
        try (MultipartWriter w = writer(pool, "d.bin", data.length)) {
            write(w, data);
            w.commit();
        }
        assertArrayEquals(data, c.bytes("d.bin"));
        assertEquals(7, uploadPartCalls(c, 2), "6 parts, part 3 twice");
        assertEquals(crc32c(data), c.crc32c("d.bin"), "the store's full-object CRC32C");
        assertEquals(List.of(), c.uploadsOf("d.bin"));
    }

    /**
     * Part CRCs summed by the caller as it generated the bytes (the save pipeline's fused fill) are
     * sent as given: right ones store the object, a wrong one is refused by the store on every
     * attempt, as a buffer changed after its sum would be; a count that does not match the parts
     * is a caller's error.
     */
    @Test
    void partCrcsGivenWithAWriteAreSentAsGiven() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, true);
        S3Endpoints pool = pool(c, 1, S3Settings.ChecksumMode.CRC32C);
        byte[] data = bytes(2 * PART + 12345);
        int[] crcs = new int[3];
        for (int k = 0; k < 3; k++) {
            CRC32C one = new CRC32C();
            one.update(data, (int) (k * PART), (int) Math.min(PART, data.length - k * PART));
            crcs[k] = (int) one.getValue();
        }
        try (Arena a = Arena.ofShared(); MultipartWriter w = writer(pool, "given.bin", data.length)) {
            assertEquals(PART, w.crc32cPiece());
            MemorySegment all = a.allocate(data.length, 4096);
            MemorySegment.copy(data, 0, all, ValueLayout.JAVA_BYTE, 0, data.length);
            assertThrows(IllegalArgumentException.class, () -> w.write(0, all, new int[] {crcs[0], crcs[1]}));
            w.write(0, all, crcs);
            w.commit();
        }
        assertArrayEquals(data, c.bytes("given.bin"));
        assertEquals(crc32c(data), c.crc32c("given.bin"));

        int[] wrong = crcs.clone();
        wrong[1] ^= 1;
        try (Arena a = Arena.ofShared(); MultipartWriter w = writer(pool, "wrong.bin", data.length)) {
            MemorySegment all = a.allocate(data.length, 4096);
            MemorySegment.copy(data, 0, all, ValueLayout.JAVA_BYTE, 0, data.length);
            IOException e = assertThrows(IOException.class, () -> w.write(0, all, wrong));
            assertTrue(e.getMessage().contains("UploadPart 2"), e.getMessage());
        }
        assertEquals(List.of(), c.uploadsOf("wrong.bin"));

        S3Endpoints plain = pool(c, 1, S3Settings.ChecksumMode.WHEN_REQUIRED);
        try (MultipartWriter w = writer(plain, "plain.bin", data.length)) {
            assertEquals(0, w.crc32cPiece(), "no part checksums, nothing to sum");
        }
    }

    @Test
    void aPartDamagedOnEveryAttemptFailsTheWriteInOneLineAndTheUploadIsAborted() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, true);
        S3Endpoints pool = pool(c, 1, S3Settings.ChecksumMode.CRC32C);
        c.transport(c.endpoints(1).getFirst()).damageWith((part, call) -> part == 3);
        byte[] data = bytes(6 * PART);
        MultipartWriter w = writer(pool, "bad.bin", data.length);
        IOException e = assertThrows(IOException.class, () -> write(w, data));
        w.abort();
        assertTrue(e.getMessage().startsWith("UploadPart 3 of s3://bkt/bad.bin at "), e.getMessage());
        assertTrue(e.getMessage().contains("HTTP 400 BadDigest (" + MultipartWriter.CORRUPTED_ATTEMPTS
                + " attempts, the store found the bytes damaged each time"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
        assertEquals(2 + MultipartWriter.CORRUPTED_ATTEMPTS, uploadPartCalls(c, 1), "parts 1, 2, and 3 three times");
        assertEquals(List.of(), c.uploadsOf("bad.bin"), "the upload was aborted");
        assertNull(c.bytes("bad.bin"));
    }

    @Test
    void withoutChecksumsADamagedPartIsStoredUnnoticed() throws IOException {
        // what --checksums when_required gives up: the store cannot tell
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, true);
        S3Endpoints pool = pool(c, 1, S3Settings.ChecksumMode.WHEN_REQUIRED);
        c.transport(c.endpoints(1).getFirst()).damageWith((part, call) -> part == 3);
        byte[] data = bytes(4 * PART);
        try (MultipartWriter w = writer(pool, "silent.bin", data.length)) {
            write(w, data);
            w.commit();
        }
        assertEquals(data.length, c.bytes("silent.bin").length);
        assertFalse(java.util.Arrays.equals(data, c.bytes("silent.bin")));
        assertNull(c.crc32c("silent.bin"));
    }

    @Test
    void anObjectWhoseReportedCrcDiffersFromTheBytesSentIsDeleted() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, true);
        S3Endpoints pool = pool(c, 1, S3Settings.ChecksumMode.CRC32C);
        byte[] data = bytes(3 * PART);
        c.reportCrc32c(Crc32c.base64(42));
        MultipartWriter w = writer(pool, "lie.bin", data.length);
        write(w, data);
        IOException e = assertThrows(IOException.class, w::commit);
        w.abort();
        assertEquals("s3://bkt/lie.bin failed its check after upload (its CRC32C in the completion's answer is "
                + Crc32c.base64(42) + ", the bytes sent have " + crc32c(data) + "): it was deleted", e.getMessage());
        assertNull(c.bytes("lie.bin"));
        assertTrue(w.state().contains("failed its check"), w.state());
    }

    @Test
    void aCompositeChecksumOfTheRightPartsIsAccepted() throws IOException {
        // a store that keeps a COMPOSITE checksum: the CRC32C of the parts' CRCs, then -<parts>
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, true);
        S3Endpoints pool = pool(c, 1, S3Settings.ChecksumMode.CRC32C);
        byte[] data = bytes(2 * PART + 7);
        int[] parts = new int[3];
        for (int i = 0; i < 3; i++) {
            CRC32C p = new CRC32C();
            p.update(data, (int) (i * PART), (int) Math.min(PART, data.length - i * PART));
            parts[i] = (int) p.getValue();
        }
        c.reportCrc32c(Crc32c.composite(parts));
        try (MultipartWriter w = writer(pool, "composite.bin", data.length)) {
            write(w, data);
            w.commit();
        }
        assertArrayEquals(data, c.bytes("composite.bin"));
        parts[1] ^= 1;
        c.reportCrc32c(Crc32c.composite(parts));
        MultipartWriter w = writer(pool, "composite2.bin", data.length);
        write(w, data);
        IOException e = assertThrows(IOException.class, w::commit);
        w.abort();
        assertTrue(e.getMessage().contains("-3, the bytes sent have "), e.getMessage());
        assertNull(c.bytes("composite2.bin"));
    }

    @Test
    void aLoadComparesTheBytesItReadWithTheStoresCrc32c() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, true);
        S3Endpoints pool = pool(c, 2, S3Settings.ChecksumMode.CRC32C);
        byte[] data = bytes(3 * PART + 100);
        try (MultipartWriter w = writer(pool, "l.bin", data.length)) {
            write(w, data);
            w.commit();
        }
        try (Arena a = Arena.ofShared()) {
            MemorySegment buf = a.allocate(2 * MIB, 4096);
            RangedReader r = RangedReader.open(pool, at("l.bin"));
            assertTrue(r.checksumChecked());
            readAll(r, buf); // the ranges in another order than the object's: the check still holds
            c.damage("l.bin");
            RangedReader damaged = RangedReader.open(pool, at("l.bin"));
            IOException e = assertThrows(IOException.class, () -> readAll(damaged, buf));
            assertTrue(e.getMessage().startsWith("s3://bkt/l.bin: the bytes read have CRC32C "), e.getMessage());
            assertTrue(e.getMessage().contains("the store's checksum of the object is " + crc32c(data)), e.getMessage());
            // without checksums nothing is compared
            S3Endpoints plain = pool(c, 2, S3Settings.ChecksumMode.WHEN_REQUIRED);
            RangedReader unchecked = RangedReader.open(plain, at("l.bin"));
            assertFalse(unchecked.checksumChecked());
        }
    }

    /** Reads every range of {@code r} through {@code buf}, the last first. */
    private static void readAll(RangedReader r, MemorySegment buf) throws IOException {
        List<Long> offsets = new ArrayList<>();
        for (long off = 0; off < r.size(); off += buf.byteSize()) {
            offsets.add(off);
        }
        offsets.addLast(offsets.removeFirst());
        for (long off : offsets.reversed()) {
            r.read(off, buf);
        }
    }

    @Test
    void anObjectReplacedDuringALoadFailsAtOnceAsChanged() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, true);
        S3Endpoints pool = pool(c, 2, S3Settings.ChecksumMode.CRC32C);
        byte[] data = bytes(2 * PART);
        try (MultipartWriter w = writer(pool, "r.bin", data.length)) {
            write(w, data);
            w.commit();
        }
        RangedReader r = RangedReader.open(pool, at("r.bin"));
        byte[] other = data.clone();
        other[0] ^= 1;
        try (MultipartWriter w = writer(pool, "r.bin", data.length)) {
            write(w, other);
            w.commit();
        }
        try (Arena a = Arena.ofShared()) {
            MemorySegment buf = a.allocate(MIB, 4096);
            IOException e = assertThrows(IOException.class, () -> r.read(0, buf));
            assertTrue(e.getMessage().startsWith("s3://bkt/r.bin changed during the load: it is no longer the object "
                    + "of ETag "), e.getMessage());
            assertTrue(e.getMessage().contains("412"), e.getMessage());
        }
        int gets = 0;
        for (URI ep : c.endpoints(2)) {
            gets += c.transport(ep).calls("GetObject");
        }
        assertEquals(1, gets, "not retried, not failed over");
    }
}
