package io.dgen4j.checkpoint;

import io.dgen4j.gen.DataSpec;
import io.dgen4j.format.DType;
import io.dgen4j.format.Finite;
import io.dgen4j.format.LayoutWriter;
import io.dgen4j.gen.Generator;
import io.dgen4j.gen.NativeGenerator;
import java.lang.foreign.MemorySegment;
import java.util.Optional;
import java.util.Random;

/**
 * What fills checkpoint chunks: the dgen4j stream (native core or pure-Java twin, verifiable on
 * load) or {@code java.util.Random.nextBytes} (the naive baseline users compare against, as the
 * Python tools compare against NumPy; not verifiable).
 */
public enum DataSource {
    /** The stream, native core when it loads, else the twin. */
    AUTO(Generator.Kind.AUTO),
    /** The stream from the native core; fails when it cannot load. */
    NATIVE(Generator.Kind.NATIVE),
    /** The stream from the pure-Java twin. */
    JAVA(Generator.Kind.JAVA),
    /** {@code java.util.Random.nextBytes} into a heap array, copied into the buffer. */
    JDK_RANDOM(null);

    /** The generator of the stream; null for the baseline, which is no stream. */
    private final Generator.Kind kind;

    DataSource(Generator.Kind kind) {
        this.kind = kind;
    }

    /** The source that fills chunks with {@code kind}'s stream. */
    public static DataSource of(Generator.Kind kind) {
        return switch (kind) {
            case AUTO -> AUTO;
            case NATIVE -> NATIVE;
            case JAVA -> JAVA;
        };
    }

    /** The generator of the stream, or empty for {@link #JDK_RANDOM}. */
    public Optional<Generator.Kind> kind() {
        return Optional.ofNullable(kind);
    }

    /** The name users type: auto, native, java (as {@link Generator.Kind#label()}), jdk-random. */
    public String label() {
        return kind != null ? kind.label() : "jdk-random";
    }

    /** Parses auto, native, java ({@link Generator.Kind#parse}) or jdk-random (the {@code DGEN4J_DATA_GEN} values). */
    public static DataSource parse(String s) {
        String t = s == null ? "" : s.strip();
        if (t.equalsIgnoreCase(JDK_RANDOM.label()) || t.equalsIgnoreCase(JDK_RANDOM.name())) {
            return JDK_RANDOM;
        }
        try {
            return of(Generator.Kind.parse(t));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + s + "' is not a generator (auto, native, java, jdk-random)", e);
        }
    }

    /** Whether a checkpoint made with this source can be verified byte for byte on load. */
    public boolean verifiable() {
        return kind != null;
    }

    /** Opens a filler for {@code spec} using {@code threads} threads (0 = all CPUs). */
    Filler open(DataSpec spec, int threads) {
        return kind != null ? new StreamFiller(Generator.open(spec, kind, threads)) : new RandomFiller(spec.seed());
    }

    @Override
    public String toString() {
        return label();
    }

    /** Fills a chunk with the bytes at a stream offset. */
    interface Filler extends AutoCloseable {
        void fill(MemorySegment dst, long offset);

        /** "native", "java" or "jdk-random". */
        String implementation();

        /**
         * Fills {@code dst} like {@link #fill} and returns the CRC-32C of each {@code piece}-long
         * piece of it (the last may be shorter), for a writer that sends part checksums
         * ({@link io.dgen4j.storage.StorageWriter#crc32cPiece()}); null when this filler does not
         * sum as it fills (the writer then sums the bytes itself).
         */
        default int[] fillCrc32c(MemorySegment dst, long offset, long piece) {
            return null;
        }

        /** This filler as the source of a layout's payloads (where the native core fills, masks and sums in one pass). */
        default LayoutWriter.Source payloads() {
            return this::fill;
        }

        @Override
        void close();
    }

    private record StreamFiller(Generator gen) implements Filler {
        @Override
        public void fill(MemorySegment dst, long offset) {
            gen.fill(dst, offset);
        }

        /** Each piece filled and summed in one pass by the generator. */
        @Override
        public int[] fillCrc32c(MemorySegment dst, long offset, long piece) {
            int[] crcs = new int[(int) ((dst.byteSize() + piece - 1) / piece)];
            for (int k = 0; k < crcs.length; k++) {
                long at = k * piece;
                crcs[k] = gen.fillCrc32c(dst.asSlice(at, Math.min(piece, dst.byteSize() - at)), offset + at);
            }
            return crcs;
        }

        @Override
        public String implementation() {
            return gen.implementation();
        }

        @Override
        public LayoutWriter.Source payloads() {
            if (!(gen instanceof NativeGenerator nat)) {
                return this::fill; // the twin: java.util.zip.CRC32 over what it filled
            }
            return new LayoutWriter.Source() {
                @Override
                public void fill(MemorySegment dst, long streamOffset) {
                    nat.fill(dst, streamOffset);
                }

                @Override
                public long fillPayload(MemorySegment dst, long streamOffset, DType finite, int phase, boolean withCrc,
                                        long crc) {
                    if (!dst.isNative()) {
                        return LayoutWriter.Source.super.fillPayload(dst, streamOffset, finite, phase, withCrc, crc);
                    }
                    return nat.fillPayload(dst, streamOffset, finite == null ? 0 : Finite.code(finite), phase, withCrc,
                            crc);
                }
            };
        }

        @Override
        public void close() {
            gen.close();
        }
    }

    private static final class RandomFiller implements Filler {
        private final Random random;
        private byte[] scratch = new byte[0];

        RandomFiller(long seed) {
            this.random = new Random(seed);
        }

        @Override
        public void fill(MemorySegment dst, long offset) {
            // Random has no offset: the bytes depend on call order, which is why it cannot be verified.
            int chunk = (int) Math.min(dst.byteSize(), 1 << 20);
            if (scratch.length < chunk) {
                scratch = new byte[chunk];
            }
            for (long done = 0; done < dst.byteSize(); done += chunk) {
                int n = (int) Math.min(chunk, dst.byteSize() - done);
                random.nextBytes(scratch);
                MemorySegment.copy(MemorySegment.ofArray(scratch), 0, dst, done, n);
            }
        }

        @Override
        public String implementation() {
            return "jdk-random";
        }

        @Override
        public void close() {}
    }
}
