package io.dgen4j.crt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.s3.S3ProxyExtension;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.storage.StorageTarget;
import io.dgen4j.storage.ReadRequest;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageReader;
import io.dgen4j.storage.StorageWriter;
import io.dgen4j.storage.WriteRequest;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Streaming checkpoints through the crt backend, end to end: save to s3proxy, then load with every
 * byte verified against the regenerated stream, at sizes that end inside a part, a block and a
 * page. The part size is the chunk size, taken from the checkpoint's manifest (no part size set).
 */
class CrtCheckpointTest {
    private static final long CHUNK = 5L << 20;

    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static StreamingCheckpoint checkpoint(long seed) {
        return StreamingCheckpoint.builder().chunkSize(CHUNK).buffers(3).writersInFlight(2).readersInFlight(2).backend("crt")
                .backendOptions(S3.settings()).spec(DataSpec.builder().seed(seed).compressRatio(2).build()).build();
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 4097, (5L << 20) - 1, (5L << 20) + 1, 3 * (5L << 20) + 12_345})
    void saveThenLoadVerifiesEveryByte(long size) throws Exception {
        String key = "ckpt/odd-" + size + ".bin";
        StorageTarget target = CrtTests.target(S3, key);
        StreamingCheckpoint c = checkpoint(size + 11);
        SaveResult saved = c.save(target, size);
        assertEquals(size, saved.totalBytes());
        assertTrue(saved.backend().startsWith("crt s3://"), saved.backend());
        // The server's own file for the object (its filesystem backend), read without any S3 client.
        Path file = S3.dataDir().resolve(S3.bucket()).resolve(key);
        assertEquals(size, Files.size(file), "size of the object on the server's disk");

        LoadResult loaded = c.load(target, true);
        assertTrue(loaded.verified());
        assertEquals(size, loaded.totalBytes());
        assertEquals(List.of(), CrtTests.openUploads(S3, key));
    }

    /** A chunk that holds several parts is sent as those parts, slices of the same buffer. */
    @Test
    void aChunkOfSeveralPartsIsSentAsThoseParts() throws Exception {
        String key = "ckpt/two-parts-per-chunk.bin";
        StorageTarget target = CrtTests.target(S3, key);
        StreamingCheckpoint c = StreamingCheckpoint.builder().chunkSize(2 * CHUNK).buffers(3).writersInFlight(2).readersInFlight(2)
                .backend("crt").backendOptions(S3.settings().toBuilder().partSize(CHUNK).build())
                .spec(DataSpec.builder().seed(6).build()).build();
        long size = 5 * CHUNK + 777;
        SaveResult saved = c.save(target, size);
        assertTrue(saved.backend().contains("6 parts of " + CHUNK + " bytes"), saved.backend());
        assertTrue(c.load(target, true).verified());
        assertEquals(size, Files.size(S3.dataDir().resolve(S3.bucket()).resolve(key)));
    }

    /** Checksum mode FULL: the upload is created with CRC32, every part sends one, the completion lists them. */
    @Test
    void fullChecksumsRoundTrip() throws Exception {
        String key = "ckpt/full-checksums.bin";
        StorageTarget target = CrtTests.target(S3, key);
        StreamingCheckpoint c = StreamingCheckpoint.builder().chunkSize(CHUNK).buffers(3).writersInFlight(2).readersInFlight(2)
                .backend("crt").backendOptions(S3.settings().toBuilder().checksumMode(S3Settings.ChecksumMode.FULL)
                        .build()).spec(DataSpec.builder().seed(5).build()).build();
        long size = 2 * CHUNK + 4321;
        assertTrue(c.save(target, size).backend().startsWith("crt s3://"));
        assertTrue(c.load(target, true).verified());
        assertEquals(size, Files.size(S3.dataDir().resolve(S3.bucket()).resolve(key)));
    }

    /** A checkpoint is never empty, but an object may be: one PutObject at commit, with its metadata. */
    @Test
    void anEmptyObjectIsOnePutWithItsMetadata() throws Exception {
        String key = "ckpt/empty.bin";
        StorageTarget target = CrtTests.target(S3, key);
        StorageOptions options = CrtTests.options(S3.settings());
        try (StorageWriter w = CrtTests.crt().openWriter(new WriteRequest(target, 0, Map.of("n", 0L), 1, options))) {
            assertEquals(List.of(), CrtTests.openUploads(S3, key));
            w.commit();
            assertTrue(w.state().contains("new object is in place"), w.state());
        }
        try (StorageReader r = CrtTests.crt().openReader(new ReadRequest(target, 1, options));
             Arena arena = Arena.ofConfined()) {
            assertEquals(0, r.size());
            assertEquals(Map.of("n", 0L), r.metadata());
            assertEquals(0, r.read(0, arena.allocate(4096, 4096)));
        }
        assertEquals(0, Files.size(S3.dataDir().resolve(S3.bucket()).resolve(key)));
        assertTrue(CrtTests.crt().delete(target, options));
        CrtTests.assertNoTrace(S3, key);
    }
}
