package io.dgen4j.format;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a {@code torch.save} file the way torch.load does: the end records and the central
 * directory first, then each record's local header, then {@code data.pkl}, whose tensors name the
 * records holding their bytes. Errors are one line naming the file and the record.
 */
public final class TorchReader {
    private static final long MAX32 = 0xFFFFFFFFL;
    /** data.pkl larger than this is refused (a state dict of millions of tensors is not a checkpoint we read). */
    private static final int MAX_PICKLE = 256 << 20;
    private static final int MAX_DIRECTORY = 256 << 20;

    /** Reads {@code dst.length} bytes at {@code offset}, or throws {@link java.io.EOFException}. */
    @FunctionalInterface
    public interface ReadAt {
        void readFully(long offset, byte[] dst) throws IOException;
    }

    /** A zip member: its name, where its local header and its data start, its size and CRC-32. */
    public record Member(String name, long header, long data, long size, long crc) {}

    /**
     * A tensor as the pickle describes it and where its bytes are.
     *
     * @param name   the keys from the top-level dict down, joined by {@code /}
     * @param member the record holding its storage
     * @param offset the file offset of its first byte
     * @param bytes  its bytes
     */
    public record Entry(String name, DType dtype, long[] shape, String member, long offset, long bytes) {}

    private TorchReader() {}

    /** Whether the first bytes are a zip's local header. */
    public static boolean isZip(byte[] first4) {
        return first4.length >= 4 && first4[0] == 'P' && first4[1] == 'K' && first4[2] == 3 && first4[3] == 4;
    }

    /** The members of the zip of {@code size} bytes, from its end records and central directory. */
    public static List<Member> members(ReadAt in, long size, String where) throws IOException {
        if (size < 22) {
            throw new IOException(where + " is truncated: its " + size + " bytes cannot hold the end of central "
                    + "directory record");
        }
        byte[] eocd = read(in, size - 22, 22);
        if (u32(eocd, 0) != 0x06054b50L) {
            throw new IOException(where + " has no end of central directory record in its last 22 bytes: it is "
                    + "truncated, or not a torch.save file");
        }
        long entries = u16(eocd, 10);
        long cdSize = u32(eocd, 12);
        long cdOffset = u32(eocd, 16);
        long end = size - 22;
        if (size >= 22 + 20 + 56) {
            byte[] loc = read(in, size - 42, 20);
            if (u32(loc, 0) == 0x07064b50L) {
                long at = u64(loc, 8);
                if (at < 0 || at + 56 > size - 42) {
                    throw new IOException(where + ": bad zip64 end of central directory locator: it points at byte "
                            + at + " of " + size);
                }
                byte[] e64 = read(in, at, 56);
                if (u32(e64, 0) != 0x06064b50L) {
                    throw new IOException(where + ": bad zip64 end of central directory record at byte " + at
                            + " (no signature)");
                }
                entries = u64(e64, 32);
                cdSize = u64(e64, 40);
                cdOffset = u64(e64, 48);
                end = at;
            }
        }
        if (cdOffset < 0 || cdSize < 0 || cdOffset + cdSize > end) {
            throw new IOException(String.format("%s: bad central directory: bytes %d to %d run past its end records "
                    + "at byte %d (truncated?)", where, cdOffset, cdOffset + cdSize, end));
        }
        if (cdSize > MAX_DIRECTORY) {
            throw new IOException(where + ": its central directory of " + cdSize + " bytes exceeds " + MAX_DIRECTORY);
        }
        byte[] cd = read(in, cdOffset, (int) cdSize);
        List<Member> out = new ArrayList<>();
        int p = 0;
        for (long i = 0; i < entries; i++) {
            if (p + 46 > cd.length || u32(cd, p) != 0x02014b50L) {
                throw new IOException(String.format("%s: bad central directory entry %d at byte %d (no signature)",
                        where, i, cdOffset + p));
            }
            int method = u16(cd, p + 10);
            long crc = u32(cd, p + 16);
            long comp = u32(cd, p + 20);
            long uncomp = u32(cd, p + 24);
            int nlen = u16(cd, p + 28);
            int elen = u16(cd, p + 30);
            int clen = u16(cd, p + 32);
            long local = u32(cd, p + 42);
            if (p + 46 + nlen + elen + clen > cd.length) {
                throw new IOException(String.format("%s: central directory entry %d at byte %d runs past the "
                        + "directory", where, i, cdOffset + p));
            }
            String name = new String(cd, p + 46, nlen, StandardCharsets.UTF_8);
            for (int e = p + 46 + nlen; e + 4 <= p + 46 + nlen + elen; ) {
                int id = u16(cd, e);
                int len = u16(cd, e + 2);
                if (id == 1) { // zip64: the values that are 0xFFFFFFFF above, in this order
                    int q = e + 4;
                    if (uncomp == MAX32) {
                        uncomp = u64(cd, q);
                        q += 8;
                    }
                    if (comp == MAX32) {
                        comp = u64(cd, q);
                        q += 8;
                    }
                    if (local == MAX32) {
                        local = u64(cd, q);
                    }
                }
                e += 4 + len;
            }
            if (method != 0 || comp != uncomp) {
                throw new IOException(String.format("%s: member %s is compressed (method %d): torch.save stores every "
                        + "record", where, name, method));
            }
            byte[] lh = local + 30 <= size ? read(in, local, 30) : new byte[30];
            if (u32(lh, 0) != 0x04034b50L) {
                throw new IOException(String.format("%s: bad local header of %s at byte %d (no signature)", where,
                        name, local));
            }
            long data = local + 30 + u16(lh, 26) + u16(lh, 28);
            if (data + uncomp > cdOffset) {
                throw new IOException(String.format("%s: the data of %s (bytes %d to %d) runs into the central "
                        + "directory at byte %d", where, name, data, data + uncomp, cdOffset));
            }
            out.add(new Member(name, local, data, uncomp, crc));
            p += 46 + nlen + elen + clen;
        }
        return out;
    }

    /** The tensors of a torch.save file, in the order its pickle names them. */
    public static List<Entry> tensors(ReadAt in, long size, String where) throws IOException {
        List<Member> members = members(in, size, where);
        Member pkl = members.stream().filter(m -> m.name().endsWith("/data.pkl") || m.name().equals("data.pkl"))
                .findFirst().orElseThrow(() -> new IOException(where + " has no data.pkl record: not a torch.save file"));
        String prefix = pkl.name().substring(0, pkl.name().length() - "data.pkl".length());
        if (pkl.size() > MAX_PICKLE) {
            throw new IOException(where + ": its data.pkl of " + pkl.size() + " bytes exceeds " + MAX_PICKLE);
        }
        Map<String, Member> byName = new HashMap<>();
        members.forEach(m -> byName.put(m.name(), m));
        Object root = new Unpickler(read(in, pkl.data(), (int) pkl.size()), where + " " + pkl.name()).load();
        List<Entry> out = new ArrayList<>();
        walk(root, "", prefix, byName, out, where);
        return out;
    }

    private static void walk(Object o, String path, String prefix, Map<String, Member> byName, List<Entry> out,
                             String where) throws IOException {
        if (o instanceof Map<?, ?> d) {
            for (Map.Entry<?, ?> e : d.entrySet()) {
                walk(e.getValue(), path.isEmpty() ? String.valueOf(e.getKey()) : path + "/" + e.getKey(), prefix,
                        byName, out, where);
            }
        } else if (o instanceof TensorRef t) {
            Member m = byName.get(prefix + "data/" + t.key());
            if (m == null) {
                throw new IOException(where + ": tensor " + path + " names storage " + t.key() + " but there is no "
                        + prefix + "data/" + t.key() + " record");
            }
            long n = 1;
            for (long d : t.shape()) {
                n *= d;
            }
            long bytes = n * t.dtype().itemSize();
            long start = m.data() + t.storageOffset() * t.dtype().itemSize();
            out.add(new Entry(path, t.dtype(), t.shape(), m.name(), start, bytes));
        } else {
            throw new IOException(where + ": " + (path.isEmpty() ? "the top object" : path)
                    + " is neither a dict nor a tensor");
        }
    }

    private record Global(String module, String name) {}

    private record TensorRef(String key, DType dtype, long storageOffset, long[] shape) {}

    /** The pickle opcodes torch.save's protocol 2 uses, building dicts and tensor references only. */
    private static final class Unpickler {
        private static final Object MARK = new Object();
        private final byte[] b;
        private final String where;
        private int p;
        private final ArrayList<Object> stack = new ArrayList<>();
        private final Map<Long, Object> memo = new HashMap<>();

        Unpickler(byte[] b, String where) {
            this.b = b;
            this.where = where;
        }

        Object load() throws IOException {
            try {
                while (true) {
                    int op = b[p++] & 0xff;
                    switch (op) {
                        case 0x80 -> p++; // PROTO
                        case '}' -> stack.add(new LinkedHashMap<Object, Object>());
                        case '(' -> stack.add(MARK);
                        case 'X' -> {
                            int n = (int) u32(b, p);
                            stack.add(new String(b, p + 4, n, StandardCharsets.UTF_8));
                            p += 4 + n;
                        }
                        case 'c' -> {
                            String module = line();
                            stack.add(new Global(module, line()));
                        }
                        case 'q' -> memo.put((long) (b[p++] & 0xff), top());
                        case 'r' -> {
                            memo.put(u32(b, p), top());
                            p += 4;
                        }
                        case 'h' -> stack.add(memo(b[p++] & 0xff));
                        case 'j' -> {
                            stack.add(memo(u32(b, p)));
                            p += 4;
                        }
                        case ')' -> stack.add(List.of());
                        case 't' -> stack.add(popMark());
                        case 0x85, 0x86, 0x87 -> {
                            int n = op - 0x84;
                            List<Object> t = new ArrayList<>(stack.subList(stack.size() - n, stack.size()));
                            stack.subList(stack.size() - n, stack.size()).clear();
                            stack.add(t);
                        }
                        case 'K' -> stack.add((long) (b[p++] & 0xff));
                        case 'M' -> {
                            stack.add((long) u16(b, p));
                            p += 2;
                        }
                        case 'J' -> {
                            stack.add((long) (int) u32(b, p));
                            p += 4;
                        }
                        case 0x8a -> {
                            int n = b[p++] & 0xff;
                            long v = 0;
                            for (int i = 0; i < n; i++) {
                                v |= (long) (b[p + i] & 0xff) << (8 * i);
                            }
                            if (n < 8 && n > 0 && (b[p + n - 1] & 0x80) != 0) {
                                v |= -1L << (8 * n);
                            }
                            p += n;
                            stack.add(v);
                        }
                        case 'N' -> stack.add(null);
                        case 0x88 -> stack.add(Boolean.TRUE);
                        case 0x89 -> stack.add(Boolean.FALSE);
                        case 'Q' -> stack.add(persistent(pop()));
                        case 'R' -> {
                            Object args = pop();
                            stack.add(reduce(pop(), args));
                        }
                        case 's' -> {
                            Object v = pop();
                            Object k = pop();
                            dict(top()).put(k, v);
                        }
                        case 'u' -> {
                            List<Object> kv = popMark();
                            Map<Object, Object> d = dict(top());
                            for (int i = 0; i + 1 < kv.size(); i += 2) {
                                d.put(kv.get(i), kv.get(i + 1));
                            }
                        }
                        case '.' -> {
                            return pop();
                        }
                        default -> throw bad(String.format("opcode 0x%02x at byte %d is not one torch.save writes",
                                op, p - 1));
                    }
                }
            } catch (IndexOutOfBoundsException | ClassCastException | java.util.NoSuchElementException e) {
                throw bad("malformed pickle near byte " + p);
            }
        }

        private IOException bad(String what) {
            return new IOException(where + ": " + what);
        }

        private String line() {
            int s = p;
            while (b[p] != '\n') {
                p++;
            }
            return new String(b, s, p++ - s, StandardCharsets.US_ASCII);
        }

        private Object top() {
            return stack.getLast();
        }

        private Object pop() {
            return stack.removeLast();
        }

        private Object memo(long i) throws IOException {
            if (!memo.containsKey(i)) {
                throw bad("memo slot " + i + " is fetched before it is set");
            }
            return memo.get(i);
        }

        private List<Object> popMark() throws IOException {
            int m = stack.lastIndexOf(MARK);
            if (m < 0) {
                throw bad("no MARK before byte " + p);
            }
            List<Object> items = new ArrayList<>(stack.subList(m + 1, stack.size()));
            stack.subList(m, stack.size()).clear();
            return items;
        }

        @SuppressWarnings("unchecked")
        private Map<Object, Object> dict(Object o) throws IOException {
            if (o instanceof Map<?, ?> d) {
                return (Map<Object, Object>) d;
            }
            throw bad("SETITEM on something that is not a dict near byte " + p);
        }

        /** ('storage', torch.XStorage, key, location, numel): the storage's key and dtype. */
        private Object persistent(Object pid) throws IOException {
            if (pid instanceof List<?> t && t.size() == 5 && "storage".equals(t.get(0)) && t.get(1) instanceof Global g
                    && t.get(2) instanceof String key) {
                for (DType d : DType.values()) {
                    if (d.torchStorage().equals(g.name())) {
                        return new TensorRef(key, d, 0, new long[0]);
                    }
                }
                throw bad("storage " + key + " has type " + g.module() + "." + g.name() + ", which dgen4j does not know");
            }
            throw bad("a persistent id that is not a torch storage near byte " + p);
        }

        private Object reduce(Object f, Object args) throws IOException {
            if (!(f instanceof Global g) || !(args instanceof List<?> a)) {
                throw bad("REDUCE of something that is not a global near byte " + p);
            }
            String name = g.module() + "." + g.name();
            switch (name) {
                case "collections.OrderedDict" -> {
                    return new LinkedHashMap<Object, Object>();
                }
                case "torch._utils._rebuild_tensor_v2" -> {
                    if (a.size() < 4 || !(a.get(0) instanceof TensorRef s) || !(a.get(1) instanceof Long off)
                            || !(a.get(2) instanceof List<?> shape)) {
                        throw bad("_rebuild_tensor_v2 with unexpected arguments near byte " + p);
                    }
                    long[] dims = new long[shape.size()];
                    for (int i = 0; i < dims.length; i++) {
                        dims[i] = (Long) shape.get(i);
                    }
                    return new TensorRef(s.key(), s.dtype(), off, dims);
                }
                default -> throw bad("global " + name + " is not one torch.load(weights_only=True) allows here");
            }
        }
    }

    private static byte[] read(ReadAt in, long offset, int n) throws IOException {
        byte[] b = new byte[n];
        in.readFully(offset, b);
        return b;
    }

    private static int u16(byte[] b, int p) {
        return (b[p] & 0xff) | (b[p + 1] & 0xff) << 8;
    }

    private static long u32(byte[] b, int p) {
        return (u16(b, p) | (long) u16(b, p + 2) << 16) & 0xffffffffL;
    }

    private static long u64(byte[] b, int p) {
        return u32(b, p) | u32(b, p + 4) << 32;
    }
}
