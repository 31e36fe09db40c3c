package io.dgen4j.format;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.zip.CRC32;

/**
 * Fills the bytes of one file of a {@link Layout}, range after consecutive range, from the
 * beginning: framing copied in, payloads generated in place by the caller's source, the CRC-32 of
 * each payload computed as it is generated and written into its descriptor and central directory
 * entry, which come after it. Not thread-safe: one producer fills a save.
 */
public final class LayoutWriter {
    /** What generates payload bytes: the stream's bytes at {@code streamOffset} into all of {@code dst}. */
    @FunctionalInterface
    public interface Source {
        void fill(MemorySegment dst, long streamOffset);
    }

    private final Layout layout;
    private final long[] crcs;
    private final CRC32 running = new CRC32();
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
                source.fill(part, s.stream() + (from - s.start()));
                if (layout.crc()) {
                    Crc32s.update(running, part);
                    if (to == s.start() + s.length()) {
                        crcs[s.tensor()] = running.getValue();
                        running.reset();
                    }
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
