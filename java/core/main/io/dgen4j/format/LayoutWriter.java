package io.dgen4j.format;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Fills the bytes of one file of a {@link Layout}, range after consecutive range, from the
 * beginning: framing copied in, payloads generated in place by the caller's source (floating-point
 * values made finite where the layout says so), the CRC-32 of each payload computed as it is
 * generated and written into its descriptor and central directory entry, which come after it. Not
 * thread-safe: one producer fills a save.
 */
public final class LayoutWriter {
    /** What generates payload bytes: the stream's bytes at {@code streamOffset} into all of {@code dst}. */
    @FunctionalInterface
    public interface Source {
        void fill(MemorySegment dst, long streamOffset);

        /**
         * Fills {@code dst} like {@link #fill}, makes the values of {@code finite} finite when it is
         * not null ({@link Finite#apply}; {@code phase}: the byte of its element that {@code dst[0]}
         * is), and returns {@code crc} (the CRC-32 of the payload's bytes before these, 0 to start)
         * continued over {@code dst}, or 0 without {@code withCrc}. This default makes three passes
         * (java.util.zip.CRC32 for the sum); the native core's makes one.
         */
        default long fillPayload(MemorySegment dst, long streamOffset, DType finite, int phase, boolean withCrc,
                                 long crc) {
            fill(dst, streamOffset);
            if (finite != null) {
                Finite.apply(finite, dst, phase);
            }
            return withCrc ? Crc32s.combine(crc, Crc32s.of(dst), dst.byteSize()) : 0;
        }
    }

    private final Layout layout;
    private final long[] crcs;
    /** The CRC-32 of the payload being filled, up to the last byte filled. */
    private long running;
    private long next;

    LayoutWriter(Layout layout) {
        this.layout = layout;
        this.crcs = new long[layout.fileOrder().size()];
    }

    /** Bytes filled so far. */
    public long filled() {
        return next;
    }

    /**
     * Fills {@code dst} with the file's bytes from {@code offset}, which must be where the last
     * fill ended (0 first).
     *
     * @throws IllegalStateException when {@code offset} is not the next byte
     */
    public void fill(MemorySegment dst, long offset, Source source) {
        if (offset != next) {
            throw new IllegalStateException("a " + layout.format().label() + " file is filled in order: byte "
                    + next + " is next, not " + offset);
        }
        long end = offset + dst.byteSize();
        if (end > layout.size()) {
            throw new IllegalArgumentException("fill up to " + end + " is past the file's " + layout.size() + " bytes");
        }
        Layout.Segment[] segs = layout.segmentArray();
        for (int i = layout.indexOf(offset); i < segs.length && segs[i].start() < end; i++) {
            Layout.Segment s = segs[i];
            long from = Math.max(offset, s.start());
            long to = Math.min(end, s.start() + s.length());
            if (to <= from) {
                continue;
            }
            MemorySegment part = dst.asSlice(from - offset, to - from);
            if (s.payload()) {
                long within = from - s.start();
                DType finite = layout.finiteType(s.tensor());
                if (finite == null && !layout.crc()) {
                    source.fill(part, s.stream() + within);
                    continue;
                }
                int phase = finite == null ? 0 : (int) (within % finite.itemSize());
                running = source.fillPayload(part, s.stream() + within, finite, phase, layout.crc(),
                        within == 0 ? 0 : running);
                if (layout.crc() && to == s.start() + s.length()) {
                    crcs[s.tensor()] = running;
                }
            } else {
                MemorySegment.copy(MemorySegment.ofArray(s.framing()), from - s.start(), dst, from - offset, to - from);
            }
        }
        // empty payloads end where they start: their CRC is that of nothing (0), as set
        if (layout.crc()) {
            for (Layout.CrcField f : layout.crcFields()) {
                for (int b = 0; b < 4; b++) {
                    long at = f.at() + b;
                    if (at >= offset && at < end) {
                        dst.set(ValueLayout.JAVA_BYTE, at - offset, (byte) (crcs[f.tensor()] >>> (8 * b)));
                    }
                }
            }
        }
        next = end;
    }
}
