package io.dgen4j.format;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Compares ranges of a file read back with what its {@link Layout} says they hold, in any order
 * and from any thread: framing byte for byte, payloads against the regenerated stream. The CRC
 * fields of payloads depend on all of a payload's bytes, which other threads may be comparing:
 * their bytes are collected as read, the CRC of each compared payload piece is kept, and
 * {@link #crcMismatch()} combines the pieces (zlib's combine rule) once every range was compared.
 */
public final class LayoutChecker {
    /** What compares payload bytes: the stream offset of the first byte of {@code data} that differs, or -1. */
    public interface Stream {
        long firstMismatch(MemorySegment data, long streamOffset);

        /**
         * {@link #firstMismatch}, and when every byte is equal, the CRC-32 of {@code data} in
         * {@code crc[0]} (generators compute it in the compare's pass; here a second one).
         */
        default long firstMismatchCrc(MemorySegment data, long streamOffset, long[] crc) {
            long m = firstMismatch(data, streamOffset);
            if (m < 0) {
                crc[0] = Crc32s.of(data);
            }
            return m;
        }

        /** The stream's byte at {@code streamOffset}. */
        byte at(long streamOffset);

        /**
         * The stream offset of the first byte of {@code data} that differs from the stream at
         * {@code streamOffset} with its {@code dtype} values made finite ({@link Finite#apply}; {@code phase}:
         * the byte of its element that {@code data[0]} is), or -1; then, with {@code crc}, the CRC-32 of
         * {@code data} in {@code crc[0]}. Here the expected bytes are regenerated a piece at a time, masked,
         * compared and summed (the fused compare of {@link #firstMismatch} cannot know the masked values);
         * the native generator masks in its fused compare instead.
         */
        default long firstMismatchFinite(MemorySegment data, long streamOffset, DType dtype, int phase, long[] crc) {
            long len = data.byteSize();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment want = arena.allocate(Math.max(1, Math.min(len, FINITE_PIECE)));
                long sum = 0;
                for (long done = 0; done < len; ) {
                    long n = Math.min(want.byteSize(), len - done);
                    MemorySegment w = want.asSlice(0, n);
                    fill(w, streamOffset + done);
                    Finite.apply(dtype, w, (int) ((phase + done) % dtype.itemSize()));
                    long m = w.mismatch(data.asSlice(done, n));
                    if (m >= 0) {
                        return streamOffset + done + m;
                    }
                    if (crc != null) {
                        sum = Crc32s.combine(sum, Crc32s.of(w), n);
                    }
                    done += n;
                }
                if (crc != null) {
                    crc[0] = sum;
                }
                return -1;
            }
        }

        /** The stream's bytes at {@code streamOffset} into all of {@code dst} (here byte by byte; generators do better). */
        default void fill(MemorySegment dst, long streamOffset) {
            for (long i = 0; i < dst.byteSize(); i++) {
                dst.set(ValueLayout.JAVA_BYTE, i, at(streamOffset + i));
            }
        }
    }

    /** Payload bytes regenerated at a time to compare a payload whose values were made finite. */
    private static final long FINITE_PIECE = 1 << 20;

    /** A payload piece found equal to the stream, and its CRC. */
    private record Piece(int tensor, long offset, long length, long crc) {}

    /** A mismatch: its file offset and the bytes expected and found there. */
    public record Mismatch(long offset, byte expected, byte found) {}

    private final Layout layout;
    private final byte[][] foundCrc;
    private final ConcurrentLinkedQueue<Piece> pieces = new ConcurrentLinkedQueue<>();

    LayoutChecker(Layout layout) {
        this.layout = layout;
        this.foundCrc = new byte[layout.crcFields().length][4];
    }

    /** The layout. */
    public Layout layout() {
        return layout;
    }

    /**
     * Compares {@code data}, read from file offset {@code offset}, with what the file holds there
     * (CRC fields of payloads aside: {@link #crcMismatch()} checks them).
     *
     * @return the first differing byte's file offset and bytes, or null
     */
    public Mismatch compare(MemorySegment data, long offset, Stream stream) {
        long end = offset + data.byteSize();
        Layout.Segment[] segs = layout.segmentArray();
        Layout.CrcField[] fields = layout.crcFields();
        for (int i = layout.indexOf(offset); i < segs.length && segs[i].start() < end; i++) {
            Layout.Segment s = segs[i];
            long from = Math.max(offset, s.start());
            long to = Math.min(end, s.start() + s.length());
            if (to <= from) {
                continue;
            }
            MemorySegment part = data.asSlice(from - offset, to - from);
            if (s.payload()) {
                long streamAt = s.stream() + (from - s.start());
                DType finite = layout.finiteType(s.tensor());
                if (finite != null) {
                    long[] crc = new long[1];
                    long bad = stream.firstMismatchFinite(part, streamAt, finite,
                            (int) ((from - s.start()) % finite.itemSize()), layout.crc() ? crc : null);
                    if (bad >= 0) {
                        long at = from + (bad - streamAt);
                        return new Mismatch(at, expected(at, stream), part.get(ValueLayout.JAVA_BYTE, bad - streamAt));
                    }
                    if (layout.crc()) {
                        pieces.add(new Piece(s.tensor(), from - s.start(), to - from, crc[0]));
                    }
                } else {
                    long[] crc = new long[1];
                    long bad = layout.crc() ? stream.firstMismatchCrc(part, streamAt, crc)
                            : stream.firstMismatch(part, streamAt);
                    if (bad >= 0) {
                        long at = from + (bad - streamAt);
                        return new Mismatch(at, stream.at(bad), part.get(ValueLayout.JAVA_BYTE, bad - streamAt));
                    }
                    if (layout.crc()) {
                        pieces.add(new Piece(s.tensor(), from - s.start(), to - from, crc[0]));
                    }
                }
                continue;
            }
            byte[] want = s.framing();
            for (long at = from; at < to; at++) {
                byte found = part.get(ValueLayout.JAVA_BYTE, at - from);
                int field = fieldAt(fields, at);
                if (field >= 0 && layout.crc()) {
                    synchronized (foundCrc) {
                        foundCrc[field][(int) (at - fields[field].at())] = found;
                    }
                    continue;
                }
                byte expected = want[(int) (at - s.start())];
                if (found != expected) {
                    return new Mismatch(at, expected, found);
                }
            }
        }
        return null;
    }

    /**
     * After every range was compared equal: the first CRC field of a payload that does not hold
     * the CRC-32 of the payload's bytes, or null.
     */
    public Mismatch crcMismatch() {
        if (!layout.crc()) {
            return null;
        }
        int n = layout.fileOrder().size();
        List<List<Piece>> byTensor = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byTensor.add(new ArrayList<>());
        }
        pieces.forEach(p -> byTensor.get(p.tensor()).add(p));
        long[] crcs = new long[n];
        for (int i = 0; i < n; i++) {
            List<Piece> ps = byTensor.get(i);
            ps.sort(Comparator.comparingLong(Piece::offset));
            long crc = 0;
            long covered = 0;
            for (Piece p : ps) {
                if (p.offset() != covered) {
                    throw new IllegalStateException("payload " + layout.memberOf(i) + " was not compared from byte "
                            + covered);
                }
                crc = Crc32s.combine(crc, p.crc(), p.length());
                covered += p.length();
            }
            crcs[i] = crc;
        }
        Layout.CrcField[] fields = layout.crcFields();
        Mismatch first = null;
        synchronized (foundCrc) {
            for (int f = 0; f < fields.length; f++) {
                for (int b = 0; b < 4; b++) {
                    byte expected = (byte) (crcs[fields[f].tensor()] >>> (8 * b));
                    long at = fields[f].at() + b;
                    if (foundCrc[f][b] != expected && (first == null || at < first.offset())) {
                        first = new Mismatch(at, expected, foundCrc[f][b]);
                    }
                }
            }
        }
        return first;
    }

    /** The expected byte at file offset {@code offset} outside payload CRC fields (for messages). */
    public byte expected(long offset, Stream stream) {
        Layout.Segment s = layout.segmentArray()[layout.indexOf(offset)];
        while (s.length() == 0) {
            s = layout.segmentArray()[layout.indexOf(offset) + 1];
        }
        if (!s.payload()) {
            return s.framing()[(int) (offset - s.start())];
        }
        DType finite = layout.finiteType(s.tensor());
        long streamAt = s.stream() + (offset - s.start());
        if (finite == null) {
            return stream.at(streamAt);
        }
        MemorySegment one = MemorySegment.ofArray(new byte[] {stream.at(streamAt)});
        Finite.apply(finite, one, (int) ((offset - s.start()) % finite.itemSize()));
        return one.get(ValueLayout.JAVA_BYTE, 0);
    }

    private static int fieldAt(Layout.CrcField[] fields, long at) {
        int lo = 0;
        int hi = fields.length - 1;
        while (lo <= hi) { // fields are in file order
            int mid = (lo + hi) >>> 1;
            Layout.CrcField f = fields[mid];
            if (at < f.at()) {
                hi = mid - 1;
            } else if (at >= f.at() + 4) {
                lo = mid + 1;
            } else {
                return mid;
            }
        }
        return -1;
    }
}
