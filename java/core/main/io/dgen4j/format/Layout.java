package io.dgen4j.format;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A checkpoint file laid out from its tensor list: every byte is framing (computed here, CRC
 * fields of generated payloads patched in as they are produced) or a range of the generated
 * stream that fills one tensor's payload in place. Payloads take consecutive ranges of the stream
 * in file order, so the stream's size is the tensors' bytes and the file's size is known before a
 * byte is written. {@link #writer()} fills a save's chunks in order; {@link #checker()} compares a
 * load's chunks in any order.
 */
public final class Layout {
    /** The formats a checkpoint may have. */
    public enum Format {
        /** The stream alone. */
        RAW,
        /** {@code torch.save}'s zip (docs/FORMATS.md). */
        TORCH,
        /** Hugging Face's safetensors: a JSON header, then the tensors (docs/FORMATS.md). */
        SAFETENSORS;

        /** The name users type: raw, torch, safetensors. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /**
         * Whether {@code --finite} is on when not given: off for raw and torch, whose payloads are
         * the stream's bytes as they are unless asked; on for safetensors, a model's weights that
         * loaders compute with ({@link Finite}).
         */
        public boolean finiteByDefault() {
            return this == SAFETENSORS;
        }

        /** Parses raw, torch or safetensors. */
        public static Format parse(String s) {
            String t = s == null ? "" : s.strip().toLowerCase(Locale.ROOT);
            for (Format f : values()) {
                if (f.label().equals(t)) {
                    return f;
                }
            }
            throw new IllegalArgumentException("'" + s + "' is not a checkpoint format (raw, torch, safetensors)");
        }
    }

    /**
     * One piece of the file: framing bytes (with a label naming the record) or the payload of the
     * tensor {@code tensor} (an index in file order) from stream offset {@code stream}.
     */
    record Segment(long start, long length, byte[] framing, String label, long stream, int tensor) {
        boolean payload() {
            return framing == null;
        }
    }

    /** Where a payload's CRC-32 goes (4 bytes, little-endian) once its bytes are produced. */
    record CrcField(long at, int tensor) {}

    private final Format format;
    private final List<Tensor> tensors;
    private final List<Tensor> fileOrder;
    private final List<String> memberNames;
    private final boolean crc;
    private final boolean finite;
    private final int alignment;
    private final long size;
    private final long payloadBytes;
    private final Segment[] segments;
    private final long[] starts;
    private final CrcField[] crcFields;

    Layout(Format format, List<Tensor> tensors, List<Tensor> fileOrder, List<String> memberNames, boolean crc,
           int alignment, List<Segment> segments, List<CrcField> crcFields) {
        this.format = format;
        this.tensors = List.copyOf(tensors);
        this.fileOrder = List.copyOf(fileOrder);
        this.memberNames = List.copyOf(memberNames);
        this.crc = crc;
        this.finite = false;
        this.alignment = alignment;
        this.segments = segments.toArray(Segment[]::new);
        this.starts = new long[this.segments.length];
        long at = 0;
        long payload = 0;
        for (int i = 0; i < this.segments.length; i++) {
            Segment s = this.segments[i];
            if (s.start() != at) {
                throw new IllegalStateException("segment " + i + " starts at " + s.start() + ", not " + at);
            }
            starts[i] = at;
            at += s.length();
            if (s.payload()) {
                payload += s.length();
            }
        }
        this.size = at;
        this.payloadBytes = payload;
        this.crcFields = crcFields.toArray(CrcField[]::new);
    }

    /** {@code base} with {@code finite} floating-point values or not. */
    private Layout(Layout base, boolean finite) {
        this.format = base.format;
        this.tensors = base.tensors;
        this.fileOrder = base.fileOrder;
        this.memberNames = base.memberNames;
        this.crc = base.crc;
        this.finite = finite;
        this.alignment = base.alignment;
        this.segments = base.segments;
        this.starts = base.starts;
        this.size = base.size;
        this.payloadBytes = base.payloadBytes;
        this.crcFields = base.crcFields;
    }

    /**
     * This layout with the values of its floating-point tensors made finite or not ({@code --finite},
     * {@link Finite}): the same framing and offsets, payload bytes masked as they are generated.
     */
    public Layout withFinite(boolean on) {
        return on == finite ? this : new Layout(this, on);
    }

    /** Whether the floating-point tensors' values are made finite ({@link Finite}). */
    public boolean finite() {
        return finite;
    }

    /** The dtype whose values {@link Finite} masks in the payload of tensor {@code i} (file order), or null. */
    DType finiteType(int i) {
        DType d = fileOrder.get(i).dtype();
        return finite && Finite.applies(d) ? d : null;
    }

    /**
     * The layout of {@code tensors} in {@code format}; {@code crc} false writes zeros where the
     * CRC-32 of each generated payload goes; {@code alignment} is where each torch record's data
     * starts (64, or 4096), or where a safetensors file's data region starts (8, or 4096).
     */
    public static Layout of(Format format, List<Tensor> tensors, boolean crc, int alignment) {
        return switch (format) {
            case RAW -> raw(tensors);
            case TORCH -> TorchZip.layout(tensors, crc, alignment);
            case SAFETENSORS -> Safetensors.layout(tensors, alignment, java.util.Map.of());
        };
    }

    /**
     * This layout for payloads filled by {@code spec}'s stream: a safetensors header names the spec
     * in its {@code __metadata__} (so the file describes itself); other formats do not change.
     */
    public Layout describing(io.dgen4j.gen.DataSpec spec) {
        return format == Format.SAFETENSORS ? Safetensors.layout(tensors, alignment, Safetensors.specMetadata(spec))
                .withFinite(finite) : this;
    }

    /** The stream alone, the tensors one after another. */
    public static Layout raw(List<Tensor> tensors) {
        long n = TensorList.bytes(tensors);
        List<Segment> segs = new ArrayList<>();
        long at = 0;
        for (int i = 0; i < tensors.size(); i++) {
            segs.add(new Segment(at, tensors.get(i).bytes(), null, null, at, i));
            at += tensors.get(i).bytes();
        }
        return new Layout(Format.RAW, tensors, tensors, tensors.stream().map(Tensor::name).toList(), false, 1,
                segs, List.of());
    }

    /** The format. */
    public Format format() {
        return format;
    }

    /** The tensors as listed. */
    public List<Tensor> tensors() {
        return tensors;
    }

    /** The tensors in the order their payloads are in the file. */
    public List<Tensor> fileOrder() {
        return fileOrder;
    }

    /** Whether payload CRC-32s are written (else zeros). */
    public boolean crc() {
        return crc;
    }

    /** Where each torch record's data (a safetensors file's data region) starts: a multiple of this. */
    public int alignment() {
        return alignment;
    }

    /** The file's bytes. */
    public long size() {
        return size;
    }

    /** The payload bytes: the size of the stream that fills them. */
    public long payloadBytes() {
        return payloadBytes;
    }

    /**
     * Where the file's closing framing starts: a torch file's central directory (the end records
     * follow it); the file's size for raw, which has none.
     */
    public long directoryOffset() {
        for (Segment s : segments) {
            if (!s.payload() && s.label().startsWith("the central directory")) {
                return s.start();
            }
        }
        return size;
    }

    /** The file offset of the payload of the tensor {@code i} in {@link #fileOrder()}. */
    public long offsetOf(int i) {
        for (Segment s : segments) {
            if (s.payload() && s.tensor() == i) {
                return s.start();
            }
        }
        throw new IndexOutOfBoundsException(i);
    }

    /** The zip member that holds the tensor {@code i} in {@link #fileOrder()} ({@code archive/data/3}). */
    public String memberOf(int i) {
        return memberNames.get(i);
    }

    /** Framing and payload pieces, in file order (for tests and inspection). */
    List<Segment> segments() {
        return List.of(segments);
    }

    /** The segments themselves (not copied: callers only read). */
    Segment[] segmentArray() {
        return segments;
    }

    CrcField[] crcFields() {
        return crcFields;
    }

    /** What byte {@code offset} of the file is: "tensor model/w (archive/data/0) byte 12 of 4096" or the record's name. */
    public String describe(long offset) {
        if (offset < 0 || offset >= size) {
            return "past the end of the file (" + size + " bytes)";
        }
        Segment s = segments[indexOf(offset)];
        if (s.payload()) {
            return String.format("tensor %s (%s) byte %d of %d", fileOrder.get(s.tensor()).name(),
                    memberNames.get(s.tensor()), offset - s.start(), s.length());
        }
        for (CrcField f : crcFields) {
            if (offset >= f.at() && offset < f.at() + 4) {
                return "the CRC-32 of " + memberNames.get(f.tensor()) + " in " + s.label();
            }
        }
        return s.label() + " byte " + (offset - s.start());
    }

    /** The index of the segment holding {@code offset}. */
    int indexOf(long offset) {
        int i = Arrays.binarySearch(starts, offset);
        return i >= 0 ? i : -i - 2;
    }

    /** A filler for one save: fills consecutive ranges of the file, payloads from {@code source}. */
    public LayoutWriter writer() {
        return new LayoutWriter(this);
    }

    /** A checker for one load: compares ranges of the file in any order, from any thread. */
    public LayoutChecker checker() {
        return new LayoutChecker(this);
    }
}
