package io.dgen4j.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageProvider;
import io.dgen4j.storage.StorageProviders;
import io.dgen4j.storage.StorageTarget;
import io.dgen4j.storage.StorageWriter;
import io.dgen4j.storage.WriteRequest;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * How an S3 backend fails, against a real s3proxy: bad or missing credentials, a missing bucket or
 * object, a dead endpoint and a TLS failure are each one clear line before any data; too many
 * parts are refused before any request; no message or string form ever holds a secret. A backend's
 * test extends it (as its storage test extends {@code StorageContract}) and names the backend; its own
 * tests reach the contract's s3proxy as {@code S3} and may record what they print in {@link #SEEN}
 * through {@link #see}.
 */
public abstract class S3BackendFailuresContract {
    protected static final int MIB = 1 << 20;
    protected static final String WRONG_SECRET = "wrong-SECRET-n3v3rpr1nt-0b8e";
    /** Every message and string form the tests produced: none may hold a secret. */
    protected static final List<String> SEEN = Collections.synchronizedList(new ArrayList<>());

    /** The s3proxy the contract runs against; a backend's own tests reach it as {@code S3}. */
    @RegisterExtension
    protected static final S3ProxyExtension S3 = new S3ProxyExtension();

    /** The backend under test ({@code aws}, {@code crt}, {@code minio}). */
    protected abstract String backend();

    /** The s3proxy the contract runs against. */
    protected S3ProxyExtension s3() {
        return S3;
    }

    /** A checkpoint through the backend with its default options and these settings. */
    protected StreamingCheckpoint checkpoint(S3Settings settings) {
        return StreamingCheckpoint.builder().chunkSize(5 * MIB).buffers(3).writersInFlight(2).readersInFlight(2)
                .backend(backend()).backendOptions(settings)
                .spec(DataSpec.builder().size(1).seed(42).dedupRatio(2).compressRatio(2).build()).build();
    }

    /** The object's HEAD as the backend's own client returns it, or null when there is none. */
    protected Object head(String key) {
        return new S3ClientKit(backend()).head(S3, key);
    }

    @AfterAll
    static void noSecretWasEverPrinted() {
        assertFalse(SEEN.isEmpty());
        for (String s : SEEN) {
            assertFalse(s.contains(S3ProxyExtension.SECRET_KEY), s);
            assertFalse(s.contains(WRONG_SECRET), s);
        }
    }

    /** Records {@code t}'s messages and string forms, causes and suppressed ones included. */
    protected static void see(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            SEEN.add(String.valueOf(c.getMessage()));
            SEEN.add(c.toString());
            for (Throwable s : c.getSuppressed()) {
                see(s);
            }
        }
    }

    private String target(String key) {
        return "s3://" + s3().bucket() + "/" + key;
    }

    @Test
    protected void badCredentialsAreOneClearLineBeforeAnyData() {
        S3Settings wrong = s3().settings().toBuilder().credentials(S3ProxyExtension.ACCESS_KEY, WRONG_SECRET, null).build();
        IOException e = assertThrows(IOException.class, () -> checkpoint(wrong)
                .save(target("bad-creds.bin"), 6 * MIB));
        see(e);
        String line = rootLine(e);
        assertTrue(line.contains("refused the credentials (access key dgen****, from settings) with HTTP 403"), line);
        assertTrue(line.contains(s3().endpoint().toString()), line);
        assertNull(head("bad-creds.bin"));
    }

    @Test
    protected void aMissingBucketIsOneClearLineBeforeAnyData() {
        StorageProvider p = StorageProviders.named(backend()).orElseThrow();
        StorageTarget t = StorageTarget.parse("s3://no-such-bucket-here/k.bin");
        IOException e = assertThrows(IOException.class, () -> p.openWriter(new WriteRequest(t, 6 * MIB, Map.of(), 2,
                StorageOptions.empty().with(s3().settings()))));
        see(e);
        assertEquals("bucket no-such-bucket-here does not exist at " + s3().endpoint(), e.getMessage());
        IOException viaSave = assertThrows(IOException.class,
                () -> checkpoint(s3().settings()).save("s3://no-such-bucket-here/k.bin", 6 * MIB));
        see(viaSave);
        assertTrue(viaSave.getMessage().contains("bucket no-such-bucket-here does not exist at " + s3().endpoint()),
                viaSave.getMessage());
        IOException load = assertThrows(IOException.class, () -> checkpoint(s3().settings()).load("s3://no-such-bucket-here/k.bin",
                false));
        see(load);
        assertTrue(load.getMessage().contains("bucket no-such-bucket-here does not exist"), load.getMessage());
    }

    @Test
    protected void aMissingObjectIsNoSuchFile() throws IOException {
        IOException e = assertThrows(IOException.class, () -> checkpoint(s3().settings()).load(target("never-saved.bin"), true));
        see(e);
        assertEquals("checkpoint " + target("never-saved.bin") + " does not exist", e.getMessage());
        assertFalse(checkpoint(s3().settings()).delete(StorageTarget.parse(target("never-saved.bin"))));
    }

    @Test
    protected void aDeadEndpointIsOneClearLine() throws IOException {
        // Port 1 (tcpmux): nothing listens there, and being outside the ephemeral range a connect to
        // it can never meet itself (on loopback a connect to a just-freed ephemeral port may pick that
        // very port as its own and connect to itself, then hang).
        int port = 1;
        assertThrows(java.net.ConnectException.class, () -> new java.net.Socket("127.0.0.1", port).close(),
                "something listens on 127.0.0.1:1");
        S3Settings dead = s3().settings().toBuilder().endpoint(URI.create("http://127.0.0.1:" + port)).build();
        IOException e = assertThrows(IOException.class, () -> checkpoint(dead)
                .save(target("dead.bin"), 6 * MIB));
        see(e);
        assertTrue(rootLine(e).contains("cannot connect to the S3 endpoint http://127.0.0.1:" + port), rootLine(e));
    }

    @Test
    protected void aTlsFailureIsOneClearLine(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        try (UntrustedTlsServer tls = new UntrustedTlsServer(dir)) {
            S3Settings untrusted = s3().settings().toBuilder().endpoint(tls.endpoint()).build();
            IOException e = assertThrows(IOException.class, () -> checkpoint(untrusted)
                    .save(target("tls.bin"), 6 * MIB));
            see(e);
            assertTrue(rootLine(e).contains("TLS with " + tls.endpoint() + " failed"), rootLine(e));
            assertTrue(rootLine(e).contains("AWS_CA_BUNDLE"), rootLine(e));
        }
    }

    @Test
    protected void missingCredentialsAreOneClearLine() {
        S3Settings none = S3Settings.builder().endpoint(s3().endpoint()).build();
        IOException e = assertThrows(IOException.class, () -> checkpoint(none)
                .save(target("none.bin"), 6 * MIB));
        see(e);
        assertTrue(e.getMessage().contains("no S3 credentials for " + target("none.bin")), e.getMessage());
    }

    @Test
    protected void deleteSaysWhetherThereWasAnObject() throws IOException {
        checkpoint(s3().settings()).save(target("del.bin"), MIB);
        assertTrue(checkpoint(s3().settings()).delete(StorageTarget.parse(target("del.bin"))));
        assertNull(head("del.bin"));
        assertFalse(checkpoint(s3().settings()).delete(StorageTarget.parse(target("del.bin"))));
    }

    @Test
    protected void tooManyPartsAreRefusedBeforeAnyRequest() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> checkpoint(s3().settings()).save(target("huge.bin"), 100L << 30));
        assertTrue(e.getMessage().contains("needs 20480 parts; S3 allows 10000"), e.getMessage());
        assertNull(head("huge.bin"));
    }

    @Test
    protected void stringFormsMaskTheSecret() throws IOException {
        StorageProvider p = StorageProviders.named(backend()).orElseThrow();
        StorageOptions o = StorageOptions.empty().with(s3().settings());
        SEEN.add(o.toString());
        SEEN.add(s3().settings().toString());
        try (StorageWriter w = p.openWriter(new WriteRequest(StorageTarget.parse(target("strings.bin")), 5 * MIB,
                Map.of(), 1, o))) {
            SEEN.add(w.description());
            SEEN.add(w.state());
            SEEN.add(w.toString());
        }
        assertNotNull(s3().settings().secretAccessKey().orElseThrow());
    }

    /** The exception's one line: its message, which must hold no line break. */
    protected static String rootLine(IOException e) {
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        return e.getMessage();
    }
}
