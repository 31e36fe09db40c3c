package io.dgen4j.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.dgen4j.gen.DataSpec;
import io.dgen4j.storage.StorageWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * A writer that sends part checksums gets them from the save pipeline, summed as the generator
 * fills (native: in one pass), and they are the CRC-32C of the bytes it is given; a writer that
 * sends none gets plain writes.
 */
class SavePipelineCrc32cTest {
    private static final long PIECE = 1 << 20;

    /** Records each write's bytes' CRC-32C per piece and the sums it was given. */
    private static final class Recording implements StorageWriter {
        final long piece;
        final Map<Long, int[]> given = new ConcurrentHashMap<>();
        final Map<Long, int[]> actual = new ConcurrentHashMap<>();
        final Map<Long, Boolean> plain = new ConcurrentHashMap<>();

        Recording(long piece) {
            this.piece = piece;
        }

        @Override
        public long crc32cPiece() {
            return piece;
        }

        @Override
        public void write(long offset, MemorySegment data) {
            plain.put(offset, true);
            actual.put(offset, sums(data));
        }

        @Override
        public void write(long offset, MemorySegment data, int[] crc32cs) {
            given.put(offset, crc32cs.clone());
            actual.put(offset, sums(data));
        }

        int[] sums(MemorySegment data) {
            long p = piece > 0 ? piece : PIECE;
            int[] out = new int[(int) ((data.byteSize() + p - 1) / p)];
            for (int k = 0; k < out.length; k++) {
                CRC32C c = new CRC32C();
                c.update(data.asSlice(k * p, Math.min(p, data.byteSize() - k * p)).asByteBuffer());
                out[k] = (int) c.getValue();
            }
            return out;
        }

        @Override
        public void commit() {}

        @Override
        public void abort() {}

        @Override
        public String state() {
            return "test";
        }

        @Override
        public boolean directIo() {
            return false;
        }

        @Override
        public String description() {
            return "recording writer";
        }

        @Override
        public void close() {}
    }

    private static void save(DataSource source, Recording w, long total) throws Exception {
        DataSpec spec = DataSpec.builder().seed(21).compressRatio(1.5).dedupRatio(2).size(total).build();
        try (BufferPool pool = new BufferPool(2, 4 * PIECE);
             DataSource.Filler filler = source.open(spec, 2)) {
            new SavePipeline(pool, total, 4 * PIECE, 2, done -> {}).run(filler, w);
        }
    }

    @Test
    void eachPieceIsSummedAsItIsFilledAndTheSumsAreTheBytesCrcs() throws Exception {
        for (DataSource source : List.of(DataSource.NATIVE, DataSource.JAVA)) {
            long total = 10 * PIECE + 12345; // 3 chunks, the last one short, its last piece shorter
            Recording w = new Recording(PIECE);
            save(source, w, total);
            assertEquals(3, w.given.size(), source + ": every chunk written with its sums");
            assertEquals(Map.of(), w.plain, source.toString());
            for (Map.Entry<Long, int[]> e : w.given.entrySet()) {
                assertArrayEquals(w.actual.get(e.getKey()), e.getValue(), source + " at " + e.getKey());
            }
            assertEquals(3, w.given.get(8 * PIECE).length, "2 MiB and 12,345 bytes: 3 pieces");
        }
    }

    @Test
    void aWriterThatSendsNoChecksumsGetsPlainWrites() throws Exception {
        Recording w = new Recording(0);
        save(DataSource.NATIVE, w, 5 * PIECE);
        assertEquals(2, w.plain.size());
        assertEquals(Map.of(), w.given);
    }

    @Test
    void aFillerThatDoesNotSumLeavesTheWriterToSum() throws Exception {
        DataSpec spec = DataSpec.builder().seed(3).size(PIECE).build();
        try (DataSource.Filler f = DataSource.JDK_RANDOM.open(spec, 1); Arena a = Arena.ofConfined()) {
            assertNull(f.fillCrc32c(a.allocate(PIECE), 0, PIECE));
        }
    }
}
