package io.dgen4j.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.gen.DataSpec;
import io.dgen4j.gen.Generator;
import io.dgen4j.gen.Streams;
import io.dgen4j.storage.FileOptions;
import io.dgen4j.storage.FileStorageProvider;
import io.dgen4j.storage.ReadRequest;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageTarget;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Save and load on real filesystems: bytes, durability, and every fault the issue lists. */
class StreamingCheckpointTest {
    private static final DataSpec DATA = DataSpec.builder().seed(99).dedupRatio(2).compressRatio(3).build();

    @TempDir
    Path dir;

    @AfterEach
    void noBufferLeaks() {
        assertEquals(0, BufferPool.liveBytes(), "buffer memory left allocated after the test");
    }

    static StreamingCheckpoint.Builder small() {
        return StreamingCheckpoint.builder().chunkSize(1 << 20).buffers(3).writersInFlight(2).readersInFlight(2)
                .spec(DATA);
    }

    static byte[] expected(long size) {
        return Streams.bytes(DATA.toBuilder().size(size).build(), Generator.Kind.JAVA, 1);
    }

    static List<Path> leftovers(Path d) throws IOException {
        try (Stream<Path> s = Files.list(d)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList();
        }
    }

    @Test
    void saveWritesTheStreamDurablyAndLoadVerifiesIt() throws Exception {
        long size = 20_000_017; // not a multiple of anything: the O_DIRECT tail path
        Path f = dir.resolve("ckpt.bin");
        SaveResult r = small().build().save(f.toString(), size);
        assertArrayEquals(expected(size), Files.readAllBytes(f));
        assertTrue(r.directIo(), "ext4 takes O_DIRECT: " + r.backend());
        assertEquals(20, r.chunks());
        assertEquals(size, r.totalBytes());
        assertTrue(r.peakBuffersInUse() >= 1 && r.peakBuffersInUse() <= 3, "peak " + r.peakBuffersInUse());
        assertEquals(3L << 20, r.poolBytes());
        assertTrue(r.peakRssBytes() > 0);
        assertTrue(r.generationSeconds() > 0 && r.ioSeconds() > 0 && r.totalSeconds() >= r.ioSeconds());
        assertEquals(List.of(), leftovers(dir));
        Manifest m;
        try (var reader = new FileStorageProvider().openReader(new ReadRequest(StorageTarget.parse(f.toString()), 1,
                StorageOptions.empty()))) {
            m = Manifest.fromMetadata(reader.metadata(), "manifest");
        }
        assertEquals(DATA.toBuilder().size(size).build(), m.spec());

        LoadResult l = small().build().load(f.toString(), true);
        assertTrue(l.verified());
        assertEquals(size, l.totalBytes());
        assertTrue(l.directIo());
    }

    @Test
    void aFlippedByteIsFoundAtItsOffset() throws Exception {
        long size = 9_000_000;
        Path f = dir.resolve("flip.bin");
        small().build().save(f.toString(), size);
        for (long at : new long[] {5_555_555, 0, size - 1}) {
            byte original;
            try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
                raf.seek(at);
                original = raf.readByte();
                raf.seek(at);
                raf.writeByte(original ^ 0x40);
            }
            var e = assertThrows(VerifyException.class, () -> small().build().load(f.toString(), true));
            assertEquals(at, e.offset().orElseThrow(), e.getMessage());
            assertTrue(e.getMessage().contains("first mismatch at byte offset " + at), e.getMessage());
            try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
                raf.seek(at);
                raf.writeByte(original);
            }
        }
        // without verify the bytes are only read
        assertFalse(small().build().load(f.toString(), false).verified());
    }

    @Test
    void aTruncatedFileIsRefusedOnLoad() throws Exception {
        Path f = dir.resolve("short.bin");
        small().build().save(f.toString(), 4_000_000);
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.setLength(3_000_000);
        }
        var e = assertThrows(CheckpointException.class, () -> small().build().load(f.toString(), true));
        assertTrue(e.getMessage().contains("holds 3000000 bytes but its manifest says 4000000"), e.getMessage());
        var none = assertThrows(CheckpointException.class,
                () -> small().build().load(dir.resolve("nothing.bin").toString(), false));
        assertTrue(none.getMessage().matches("checkpoint .*nothing.bin does not exist"), none.getMessage());
        Files.write(dir.resolve("plain.bin"), new byte[100]);
        var plain = assertThrows(CheckpointException.class,
                () -> small().build().load(dir.resolve("plain.bin").toString(), false));
        assertTrue(plain.getMessage().startsWith("no manifest for "), plain.getMessage());
    }

    @Test
    void theProcesssPeakRssIsResetOnlyWhenTheCallerAsks() throws Exception {
        // A high-water mark 256 MiB above anything a small save takes, left behind by memory now freed.
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            arena.allocate(256L << 20, 4096).fill((byte) 1);
        }
        long high = ProcessMemory.peakRss();
        assertTrue(high > ProcessMemory.rss() + (200L << 20), "the freed memory left a peak: " + high);
        SaveResult quiet = small().build().save(dir.resolve("quiet.bin").toString(), 3L << 20);
        assertTrue(ProcessMemory.peakRss() >= high, "a library save leaves the process's peak alone");
        assertTrue(quiet.peakRssBytes() > 0 && quiet.peakRssBytes() < high,
                "its figure is the sampled peak, not the process's: " + quiet.peakRssBytes() + " of " + high);
        SaveResult measured = small().resetPeakRss(true).build().save(dir.resolve("measured.bin").toString(), 3L << 20);
        assertTrue(ProcessMemory.peakRss() < high, "asked, the save resets the peak (/proc/self/clear_refs) at its "
                + "start: " + ProcessMemory.peakRss() + " of " + high);
        assertTrue(measured.peakRssBytes() > 0 && measured.peakRssBytes() < high, "" + measured.peakRssBytes());
    }

    @Test
    void badSizesAndChunksAreRefused() {
        var zero = assertThrows(IllegalArgumentException.class, () -> small().build().save(dir.resolve("z").toString(), 0));
        assertEquals("checkpoint size must be > 0 bytes, got 0", zero.getMessage());
        var chunk = assertThrows(IllegalArgumentException.class, () -> StreamingCheckpoint.builder().chunkSize(1000));
        assertEquals("chunk size must be a positive multiple of 4096 bytes, got 1000", chunk.getMessage());
        // a load of that checkpoint could run; its save cannot, and is refused before it writes
        var buffers = assertThrows(IllegalArgumentException.class,
                () -> StreamingCheckpoint.builder().buffers(2).writersInFlight(2).build()
                        .save(dir.resolve("z").toString(), 1));
        assertTrue(buffers.getMessage().startsWith("buffers (2) must exceed writers in flight (2)"));
        assertFalse(Files.exists(dir.resolve("z")));
    }

    @Test
    void aMissingDirectoryIsNamed() throws Exception {
        Path f = dir.resolve("no/such/dir/ckpt.bin");
        var e = assertThrows(CheckpointException.class, () -> small().build().save(f.toString(), 1 << 20));
        assertTrue(e.getMessage().contains(dir.resolve("no/such/dir").toString()), e.getMessage());
        assertTrue(e.getMessage().contains("target directory does not exist"), e.getMessage());
    }

    @Test
    void aReadOnlyDirectoryIsReported() throws Exception {
        try (Mounts mounts = new Mounts()) {
            Path ro = mounts.readOnly(dir);
            var e = assertThrows(CheckpointException.class,
                    () -> small().build().save(ro.resolve("ckpt.bin").toString(), 1 << 20));
            assertTrue(e.getMessage().contains("Read-only file system"), e.getMessage());
            assertEquals(List.of(), leftovers(ro));
        }
    }

    @Test
    void aFullDiskFailsWithPathAndOffsetAndLeavesNothing() throws Exception {
        try (Mounts mounts = new Mounts()) {
            Path disk = mounts.ext4(dir, 32);
            // without preallocation, a write fails midway: the error names the offset and the path
            var mid = assertThrows(CheckpointException.class, () -> small()
                    .backendOptions(FileOptions.defaults().withPreallocate(false)).build()
                    .save(disk.resolve("big.bin").toString(), 64L << 20));
            assertTrue(mid.getMessage().contains("No space left on device"), mid.getMessage());
            assertTrue(mid.offset().isPresent() && mid.offset().getAsLong() > 0, mid.getMessage());
            assertTrue(mid.getMessage().contains(disk.toString()), mid.getMessage());
            // with preallocation, the shortage is found before any byte is written
            var pre = assertThrows(CheckpointException.class,
                    () -> small().build().save(disk.resolve("big.bin").toString(), 64L << 20));
            assertTrue(pre.getMessage().contains("No space left on device"), pre.getMessage());
            assertTrue(pre.getMessage().contains("cannot reserve 67108864 bytes"), pre.getMessage());
            try (Stream<Path> s = Files.list(disk)) {
                assertEquals(List.of("lost+found"), s.map(p -> p.getFileName().toString()).toList());
            }
        }
    }

    @Test
    void oDirectRefusedFallsBackToBufferedOrFailsWhenDemanded() throws Exception {
        try (Mounts mounts = new Mounts()) {
            Path ram = mounts.ramfs(dir);
            Path f = ram.resolve("ckpt.bin");
            SaveResult r = small().build().save(f.toString(), 3_000_001);
            assertFalse(r.directIo(), r.backend());
            assertTrue(r.backend().contains("buffered"), r.backend());
            assertArrayEquals(expected(3_000_001), Files.readAllBytes(f));
            assertTrue(small().build().load(f.toString(), true).verified());

            var e = assertThrows(CheckpointException.class,
                    () -> small().build().save("direct://" + ram.resolve("d.bin"), 1 << 20));
            assertTrue(e.getMessage().contains("O_DIRECT is not available for"), e.getMessage());
            assertEquals(List.of(), leftovers(ram));
            assertFalse(Files.exists(ram.resolve("d.bin")));
        }
    }

    @Test
    void fadviseModesAndNoFsyncKeepTheBytes() throws Exception {
        for (FileOptions.Fadvise mode : FileOptions.Fadvise.values()) {
            Path f = dir.resolve("fadvise-" + mode + ".bin");
            SaveResult r = small().backendOptions(FileOptions.defaults().withDirect(FileOptions.Direct.OFF)
                    .withFadvise(mode).withFsync(mode != FileOptions.Fadvise.NONE)).build().save(f.toString(), 5_000_000);
            assertFalse(r.directIo());
            assertArrayEquals(expected(5_000_000), Files.readAllBytes(f), mode.toString());
        }
    }

    @Test
    void anInterruptStopsTheSaveAndRemovesThePartialFile() throws Exception {
        Path f = dir.resolve("interrupted.bin");
        Thread saver = Thread.currentThread();
        AtomicReference<Long> seen = new AtomicReference<>(0L);
        StreamingCheckpoint ckpt = small().progress(done -> {
            if (seen.getAndSet(done) == 0L) {
                saver.interrupt();
            }
        }).build();
        var e = assertThrows(InterruptedIOException.class, () -> ckpt.save(f.toString(), 4L << 30));
        assertTrue(Thread.interrupted(), "the interrupt flag is restored");
        assertTrue(e.getMessage().contains("interrupted"), e.getMessage());
        assertTrue(seen.get() < 64L << 20, "stopped promptly, after " + seen.get() + " bytes");
        assertFalse(Files.exists(f));
        assertFalse(Files.exists(ManifestTest.sidecar(f)));
        assertEquals(List.of(), leftovers(dir));
    }

    @Test
    void theOldMethodWritesTheSameBytes() throws Exception {
        Path f = dir.resolve("old.bin");
        SaveResult r = small().build().savePreallocated(StorageTarget.parse(f.toString()), 7_000_003);
        assertEquals("preallocated", r.method());
        assertEquals(7_000_003, r.poolBytes());
        assertArrayEquals(expected(7_000_003), Files.readAllBytes(f));
        assertTrue(small().build().load(f.toString(), true).verified());
    }

    @Test
    void jdkRandomDataSavesButCannotBeVerified() throws Exception {
        Path f = dir.resolve("random.bin");
        // jdk-random bytes have no dedup or compression: its checkpoints are made with ratios 1.
        SaveResult r = small().spec(DataSpec.builder().seed(3).build()).source(DataSource.JDK_RANDOM).build()
                .save(f.toString(), 3 << 20);
        assertEquals("jdk-random", r.generator());
        assertEquals(3 << 20, Files.size(f));
        var e = assertThrows(CheckpointException.class, () -> small().build().load(f.toString(), true));
        assertTrue(e.getMessage().contains("jdk-random data, which cannot be regenerated"), e.getMessage());
        assertFalse(small().build().load(f.toString(), false).verified());
    }

    @Test
    void overwritingAnExistingCheckpointReplacesIt() throws Exception {
        Path f = dir.resolve("again.bin");
        small().build().save(f.toString(), 5_000_000);
        small().build().save(f.toString(), 2_000_000);
        assertArrayEquals(expected(2_000_000), Files.readAllBytes(f));
        assertEquals(List.of(), leftovers(dir));
    }
}
