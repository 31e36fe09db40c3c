package io.dgen4j.crt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.s3.FaultProxy;
import io.dgen4j.s3.FaultProxy.Fault;
import io.dgen4j.s3.FaultProxy.Match;
import io.dgen4j.s3.S3BackendFailuresContract;
import io.dgen4j.s3.S3ProxyExtension;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.storage.ReadRequest;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageTarget;
import io.dgen4j.storage.StorageWriter;
import io.dgen4j.storage.WriteRequest;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The crt backend against a real server: the failures contract (one-line errors before any data for a
 * missing bucket, refused or missing credentials, a dead endpoint, TLS; no secret ever printed), and
 * its own cases: a part the server refuses mid-upload (then no object and no open upload, or the
 * previous object intact), and a CA bundle this client cannot use.
 */
class CrtBackendTest extends S3BackendFailuresContract {
    private static final long CHUNK = 5L << 20;

    @Override
    protected String backend() {
        return CrtClient.NAME;
    }

    private static StreamingCheckpoint.Builder checkpoint(long seed, S3Settings settings) {
        return StreamingCheckpoint.builder().chunkSize(CHUNK).buffers(3).writersInFlight(2).readersInFlight(2).backend("crt")
                .backendOptions(settings).spec(DataSpec.builder().seed(seed).build());
    }

    /** Every message in a throwable's chain, and its printed stack trace. */
    private static String everything(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        return out.toString();
    }

    private static void assertNoSecret(String text) {
        assertFalse(text.contains(S3ProxyExtension.SECRET_KEY), "the secret key was printed: " + text);
        assertFalse(text.contains(WRONG_SECRET), "the (wrong) secret key was printed: " + text);
    }

    private static void assertOneLine(String message) {
        assertFalse(message.contains("\n") || message.contains("\r"), "not one line: " + message);
        assertNoSecret(message);
    }

    /** A fault proxy before the server that refuses part {@code part} of every upload (HTTP 400), each time. */
    private static FaultProxy refusing(int part) throws IOException {
        FaultProxy p = FaultProxy.start(S3.endpoint());
        p.inject(Match.uploadPart(part), Fault.status(400), 1, FaultProxy.EVERY);
        return p;
    }

    @Test
    void aPartRefusedMidUploadLeavesNoObjectAndNoOpenUpload() throws Exception {
        String key = "fail/refused-part.bin";
        try (FaultProxy p = refusing(3)) {
            StreamingCheckpoint c = checkpoint(1, p.settings(S3.settings())).build();
            IOException e = assertThrows(IOException.class, () -> c.save(CrtTests.target(S3, key), 6 * CHUNK));
            assertTrue(e.getMessage().contains("UploadPart 3"), e.getMessage());
            assertTrue(e.getMessage().contains("HTTP 400"), e.getMessage());
            assertTrue(e.getMessage().contains("nothing was stored"), e.getMessage());
            assertOneLine(e.getMessage());
        }
        CrtTests.assertNoTrace(S3, key);
    }

    @Test
    void aFailedReplaceLeavesThePreviousObjectIntact() throws Exception {
        String key = "fail/replace.bin";
        StorageTarget target = CrtTests.target(S3, key);
        long size = 2 * CHUNK + 999;
        checkpoint(7, S3.settings()).build().save(target, size);
        try (FaultProxy p = refusing(2)) {
            StreamingCheckpoint failing = checkpoint(8, p.settings(S3.settings())).build();
            IOException e = assertThrows(IOException.class, () -> failing.save(target, 4 * CHUNK));
            assertTrue(e.getMessage().contains("previous object"), e.getMessage());
        }
        LoadResult back = checkpoint(7, S3.settings()).build().load(target, true);
        assertTrue(back.verified());
        assertEquals(size, back.totalBytes());
        assertEquals(List.of(), CrtTests.openUploads(S3, key));
    }

    @Test
    void afterAFailedPartNoWriteOrCommitSucceedsAndAbortConfirmsNothingIsLeft() throws Exception {
        String key = "fail/writer.bin";
        try (FaultProxy p = refusing(2); Arena arena = Arena.ofShared();
             StorageWriter w = CrtTests.crt().openWriter(new WriteRequest(CrtTests.target(S3, key), 3 * CHUNK,
                     Map.of("k", "v"), 1, CrtTests.options(p.settings(S3.settings()).toBuilder().partSize(CHUNK)
                     .build())))) {
            MemorySegment chunk = arena.allocate(CHUNK, 4096);
            w.write(0, chunk);
            assertEquals(1, CrtTests.openUploads(S3, key).size());
            IOException e = assertThrows(IOException.class, () -> w.write(CHUNK, chunk));
            assertTrue(e.getMessage().contains("UploadPart 2 of s3://" + S3.bucket() + "/" + key), e.getMessage());
            IOException later = assertThrows(IOException.class, () -> w.write(2 * CHUNK, chunk));
            assertTrue(later.getMessage().contains("an earlier part"), later.getMessage());
            assertThrows(IOException.class, w::commit);
            w.abort();
            assertTrue(w.state().contains("nothing was stored"), w.state());
            assertNoSecret(w.state() + w.description() + everything(e));
        }
        CrtTests.assertNoTrace(S3, key);
    }

    @Test
    void aCaBundleIsRefusedWithTheReasonForHttpsButIgnoredForHttp() throws Exception {
        Path pem = java.nio.file.Files.createTempFile("dgen4j-ca", ".pem");
        try {
            S3Settings https = S3.settings().toBuilder().endpoint(URI.create("https://127.0.0.1:1")).caBundle(pem)
                    .build();
            IOException e = assertThrows(IOException.class,
                    () -> checkpoint(6, https).build().save(CrtTests.target(S3, "fail/ca.bin"), CHUNK));
            assertTrue(e.getMessage().contains("trusts only the system's CA file"), e.getMessage());
            assertOneLine(e.getMessage());
            // over plain http there is no TLS: the bundle does not matter
            S3Settings http = S3.settings().toBuilder().caBundle(pem).build();
            assertEquals(CHUNK, checkpoint(6, http).build().save(CrtTests.target(S3, "fail/ca.bin"), CHUNK)
                    .totalBytes());
        } finally {
            java.nio.file.Files.delete(pem);
        }
    }

    @Test
    void aMissingObjectOrBucketIsNoSuchFile() {
        StorageOptions options = CrtTests.options(S3.settings());
        NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> CrtTests.crt().openReader(
                new ReadRequest(CrtTests.target(S3, "fail/absent.bin"), 1, options)));
        assertTrue(e.getMessage().contains("no such object at " + S3.endpoint()), e.getMessage());
        IOException b = assertThrows(IOException.class, () -> CrtTests.crt().openReader(
                new ReadRequest(StorageTarget.parse("s3://no-such-bucket-dgen4j/x.bin"), 1, options)));
        assertTrue(b.getMessage().contains("bucket no-such-bucket-dgen4j does not exist"), b.getMessage());
    }
}
