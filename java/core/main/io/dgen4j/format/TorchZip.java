package io.dgen4j.format;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

/**
 * {@code torch.save}'s zip, laid out as its writer (miniz under PyTorchStreamWriter) writes it
 * front to back: every member STORED with flags 0x0808 (a data descriptor follows the data;
 * UTF-8 names), version fields, times and attributes 0, a zip64 extra (0x0001) in the local header
 * only when the size or the header's offset reaches 0xFFFFFFFF, then an "FB" extra (0x4246) of
 * {@code Z} bytes that puts the data on a multiple of the alignment; the data; a data descriptor
 * ({@code PK\7\8}, CRC-32, sizes 4+4 bytes, 8+8 after a zip64 extra). Then the central directory
 * in member order, a zip64 end record, its locator and the classic end record, always.
 * Members: {@code archive/data.pkl}, {@code .format_version}, {@code .storage_alignment},
 * {@code byteorder}, {@code data/<key>} in Python's sorted order of the keys ("0", "1", "10", "11",
 * ..., "2"), {@code version}, {@code .data/serialization_id}.
 */
final class TorchZip {
    static final String PREFIX = "archive/";
    private static final long MAX32 = 0xFFFFFFFFL;
    private static final int LOCAL = 30;
    private static final int CENTRAL = 46;

    /** One member: its name, and its bytes (framing) or the tensor (an index in file order) it holds. */
    private record Member(String name, byte[] data, int tensor, long size, long offset, long dataStart,
                          boolean zip64, long crc) {}

    private final List<Layout.Segment> segments = new ArrayList<>();
    private final List<Layout.CrcField> crcFields = new ArrayList<>();
    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
    private String pendingLabel;
    private long pendingStart;
    private long at;
    private long stream;

    private TorchZip() {}

    static Layout layout(List<Tensor> tensors, boolean crc, int alignment) {
        if (alignment != 64 && alignment != 4096) {
            throw new IllegalArgumentException("torch alignment must be 64 or 4096, got " + alignment);
        }
        TorchPickle.Result pickle = TorchPickle.of(tensors);
        List<Tensor> byKey = pickle.order();
        // torch writes data/<key> in sorted(keys) order: strings, so "10" comes before "2"
        List<String> keys = IntStream.range(0, byKey.size()).mapToObj(Integer::toString).sorted().toList();
        List<Tensor> fileOrder = keys.stream().map(k -> byKey.get(Integer.parseInt(k))).toList();
        List<String> memberNames = keys.stream().map(k -> PREFIX + "data/" + k).toList();
        return new TorchZip().build(tensors, pickle.bytes(), fileOrder, memberNames, crc, alignment);
    }

    private Layout build(List<Tensor> tensors, byte[] pickle, List<Tensor> fileOrder, List<String> memberNames,
                         boolean crc, int alignment) {
        List<Member> members = new ArrayList<>();
        members.add(record(PREFIX + "data.pkl", pickle, -1, pickle.length, alignment));
        members.add(text(PREFIX + ".format_version", "1", alignment));
        members.add(text(PREFIX + ".storage_alignment", Integer.toString(alignment), alignment));
        members.add(text(PREFIX + "byteorder", "little", alignment));
        for (int i = 0; i < fileOrder.size(); i++) {
            members.add(record(memberNames.get(i), null, i, fileOrder.get(i).bytes(), alignment));
        }
        members.add(text(PREFIX + "version", "3\n", alignment));
        members.add(text(PREFIX + ".data/serialization_id", serializationId(tensors), alignment));

        long cdStart = pos();
        for (Member m : members) {
            central(m);
        }
        long cdSize = pos() - cdStart;
        long eocd64 = pos();
        frame("the zip64 end of central directory record");
        le(0x06064b50L, 4);
        le(44, 8);
        le(0x031e, 2); // version made by, as torch's miniz writes it
        le(0x2d, 2); // version needed: 4.5, zip64
        le(0, 4);
        le(0, 4);
        le(members.size(), 8);
        le(members.size(), 8);
        le(cdSize, 8);
        le(cdStart, 8);
        frame("the zip64 end of central directory locator");
        le(0x07064b50L, 4);
        le(0, 4);
        le(eocd64, 8);
        le(1, 4);
        frame("the end of central directory record");
        le(0x06054b50L, 4);
        le(0, 2);
        le(0, 2);
        le(Math.min(members.size(), 0xFFFF), 2);
        le(Math.min(members.size(), 0xFFFF), 2);
        le(Math.min(cdSize, MAX32), 4);
        le(Math.min(cdStart, MAX32), 4);
        le(0, 2);
        flush();
        return new Layout(Layout.Format.TORCH, tensors, fileOrder, memberNames, crc, alignment, segments,
                crcFields);
    }

    private Member text(String name, String value, int alignment) {
        byte[] b = value.getBytes(StandardCharsets.UTF_8);
        return record(name, b, -1, b.length, alignment);
    }

    /** Lays out a member's local header, data and descriptor; {@code data} null for a tensor's payload. */
    private Member record(String name, byte[] data, int tensor, long size, int alignment) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        long offset = pos();
        boolean sizeBig = size >= MAX32;
        boolean offsetBig = offset >= MAX32;
        boolean zip64 = sizeBig || offsetBig;
        int zip64Len = zip64 ? 4 + (sizeBig ? 16 : 0) + (offsetBig ? 8 : 0) : 0;
        long start = offset + LOCAL + n.length + zip64Len + 4;
        int padding = (int) ((alignment - start % alignment) % alignment);
        frame("the local header of " + name);
        le(0x04034b50L, 4);
        le(0, 2); // version needed: 0, as torch writes it
        le(0x0808, 2);
        le(0, 2); // STORED
        le(0, 4); // time, date
        le(0, 4); // CRC: in the descriptor
        le(zip64 ? MAX32 : 0, 4);
        le(zip64 ? MAX32 : 0, 4);
        le(n.length, 2);
        le(zip64Len + 4 + padding, 2);
        pending.writeBytes(n);
        if (zip64) {
            le(0x0001, 2);
            le(zip64Len - 4, 2);
            if (sizeBig) {
                le(size, 8);
                le(size, 8);
            }
            if (offsetBig) {
                le(offset, 8);
            }
        }
        le('F' | 'B' << 8, 2);
        le(padding, 2);
        // One write, not a loop: a loop's back-edges made this method hot enough for a C2 compile
        // (5 MB of compiler memory) in the middle of a DLIO save, on top of its buffers.
        byte[] zeds = new byte[padding];
        Arrays.fill(zeds, (byte) 'Z');
        pending.writeBytes(zeds);
        long crc = 0;
        long dataStart = pos();
        if (data != null) {
            frame("the data of " + name);
            pending.writeBytes(data);
            crc = Crc32s.of(data);
        } else {
            flush();
            segments.add(new Layout.Segment(at, size, null, null, stream, tensor));
            at += size;
            stream += size;
            pendingStart = at;
        }
        frame("the data descriptor of " + name);
        le(0x08074b50L, 4);
        crcField(tensor, crc);
        le(size, zip64 ? 8 : 4);
        le(size, zip64 ? 8 : 4);
        return new Member(name, data, tensor, size, offset, dataStart, zip64, crc);
    }

    private void central(Member m) {
        byte[] n = m.name().getBytes(StandardCharsets.UTF_8);
        boolean sizeBig = m.size() >= MAX32;
        boolean offsetBig = m.offset() >= MAX32;
        int zip64Len = sizeBig || offsetBig ? 4 + (sizeBig ? 16 : 0) + (offsetBig ? 8 : 0) : 0;
        frame("the central directory entry of " + m.name());
        le(0x02014b50L, 4);
        le(0, 2); // version made by
        le(0, 2); // version needed
        le(0x0808, 2);
        le(0, 2);
        le(0, 4);
        crcField(m.tensor(), m.crc());
        le(sizeBig ? MAX32 : m.size(), 4);
        le(sizeBig ? MAX32 : m.size(), 4);
        le(n.length, 2);
        le(zip64Len, 2);
        le(0, 2); // comment
        le(0, 2); // disk
        le(0, 2); // internal attributes
        le(0, 4); // external attributes
        le(offsetBig ? MAX32 : m.offset(), 4);
        pending.writeBytes(n);
        if (zip64Len > 0) {
            le(0x0001, 2);
            le(zip64Len - 4, 2);
            if (sizeBig) {
                le(m.size(), 8);
                le(m.size(), 8);
            }
            if (offsetBig) {
                le(m.offset(), 8);
            }
        }
    }

    /** A CRC field: a framing member's CRC now, a tensor's once its payload is produced (zeros here). */
    private void crcField(int tensor, long crc) {
        if (tensor >= 0) {
            crcFields.add(new Layout.CrcField(pendingStart + pending.size(), tensor));
            le(0, 4);
        } else {
            le(crc, 4);
        }
    }

    /** The file offset of the next byte laid out. */
    private long pos() {
        return pendingStart + pending.size();
    }

    /** Starts a framing segment named {@code label}. */
    private void frame(String label) {
        flush();
        pendingLabel = label;
        pendingStart = at;
    }

    private void flush() {
        if (pending.size() > 0) {
            segments.add(new Layout.Segment(pendingStart, pending.size(), pending.toByteArray(), pendingLabel, -1, -1));
            at = pendingStart + pending.size();
            pending.reset();
        }
        pendingStart = at;
    }

    private void le(long v, int bytes) {
        for (int i = 0; i < bytes; i++) {
            pending.write((int) (v >>> (8 * i)) & 0xff);
        }
    }

    /**
     * 40 digits, as torch's: the digits are a function of the tensor list (torch's come from the
     * records' CRCs and names' hashes, which this file cannot reproduce before its data exists).
     */
    private static String serializationId(List<Tensor> tensors) {
        byte[] text = TensorList.format(tensors).getBytes(StandardCharsets.UTF_8);
        long a = 0xcbf29ce484222325L;
        for (byte b : text) {
            a = (a ^ (b & 0xff)) * 0x100000001b3L;
        }
        long c = Crc32s.of(text);
        return String.format("%20s%20s", Long.toUnsignedString(c), Long.toUnsignedString(a)).replace(' ', '0');
    }
}
