package io.dgen4j.storage;

import io.dgen4j.json.JsonReader;
import io.dgen4j.json.JsonWriter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The JSON sidecar ({@code <name>.manifest.json}) that carries a file checkpoint's metadata, and
 * the identity of the data file it describes, so that data and metadata can be replaced by two
 * renames without a reader ever pairing one save's data with another's metadata
 * (docs/CHECKPOINTS.md, "Atomic replacement").
 *
 * <p>The top-level scalar fields are the metadata of the newest entry; {@code "file"} names the
 * data file (inode and size) the entry describes. While a replacement is under way the document
 * is {@code "pending"} and also holds the {@code "previous"} entry, so it describes both the old
 * data (still under the final name) and the new data (renamed into place next).
 */
final class Sidecar {
    /** Suffix of the sidecar next to its data file. */
    static final String SUFFIX = ".manifest.json";
    /** Larger documents are refused unread: a manifest is a few hundred bytes, its tensor list tens of KiB. */
    static final int MAX_BYTES = 4 << 20;
    private static final String FILE = "file";
    private static final String PENDING = "pending";
    private static final String PREVIOUS = "previous";

    private Sidecar() {}

    /**
     * One description of a data file.
     *
     * @param metadata the caller's fields (scalar: String, Long, Double or Boolean)
     * @param inode    the data file's inode, absent in manifests written before identities existed
     * @param size     the data file's size, or -1 when not recorded
     */
    record Entry(Map<String, Object> metadata, OptionalLong inode, long size) {
        Entry {
            metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
        }
    }

    /** A parsed sidecar: the newest entry, and the previous one while a replacement is pending. */
    record Doc(Entry current, boolean pending, Optional<Entry> previous) {
        /** The entry that describes the data file with this inode and size, if any. */
        Optional<Entry> describing(OptionalLong inode, long size) {
            if (inode.isPresent()) {
                if (current.inode().equals(inode)) {
                    return Optional.of(current);
                }
                if (previous.isPresent() && previous.get().inode().equals(inode)) {
                    return previous;
                }
            }
            // A manifest without identities (older dgen4j), or a committed pair copied elsewhere
            // (cp gives new inodes): the single committed entry stands if the size agrees. A
            // pending document is never matched this way: its entries are told apart by inode.
            if (!pending && (current.inode().isEmpty() || current.size() == size)) {
                return Optional.of(current);
            }
            return Optional.empty();
        }
    }

    /** The sidecar of {@code data}. */
    static Path of(Path data) {
        return data.resolveSibling(data.getFileName() + SUFFIX);
    }

    /** Reads the sidecar at {@code path}; empty when there is none. */
    static Optional<Doc> read(Path path) throws IOException {
        if (Files.exists(path) && !Files.isRegularFile(path)) {
            // a FIFO would block the open, a device feed it forever
            throw new IOException(String.format("%s is in the way of the checkpoint's manifest: it is %s, not a "
                    + "regular file", path, ConfigFiles.kind(path)));
        }
        byte[] bytes;
        try (InputStream in = Files.newInputStream(path)) {
            bytes = in.readNBytes(MAX_BYTES + 1);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        if (bytes.length > MAX_BYTES) {
            throw new IOException(String.format("%s is not a dgen4j manifest: it is larger than %d bytes",
                    path, MAX_BYTES));
        }
        return Optional.of(parse(bytes, path.toString()));
    }

    /** Parses a sidecar document; {@code where} names it in errors. */
    static Doc parse(byte[] json, String where) throws IOException {
        Object root;
        try {
            root = JsonReader.parse(json);
        } catch (JsonReader.SyntaxException e) {
            throw new IOException(String.format("%s is not valid JSON: %s", where, e.getMessage()), e);
        }
        if (!(root instanceof Map<?, ?> top)) {
            throw new IOException(where + " is not a dgen4j manifest: its JSON is not an object");
        }
        Fields f = readObject(top, where, true);
        boolean pending = Boolean.TRUE.equals(f.metadata.remove(PENDING));
        return new Doc(f.entry(), pending, Optional.ofNullable(f.previous).map(Fields::entry));
    }

    /** The JSON of a sidecar. */
    static byte[] write(Entry current, boolean pending, Optional<Entry> previous) {
        Map<String, Object> doc = object(current);
        if (pending) {
            doc.put(PENDING, true);
        }
        previous.ifPresent(p -> doc.put(PREVIOUS, object(p)));
        return (JsonWriter.LINE.write(doc) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    private static Map<String, Object> object(Entry e) {
        Map<String, Object> m = new LinkedHashMap<>();
        e.metadata().forEach((key, v) -> {
            if (key.equals(FILE) || key.equals(PENDING) || key.equals(PREVIOUS)) {
                // the reader would refuse the document (a duplicate field) or take it for the sidecar's own
                throw new IllegalArgumentException("metadata key " + key + " is the manifest's own");
            }
            switch (v) {
                case String s -> { }
                case Long l -> { }
                case Integer i -> { }
                case Boolean b -> { }
                case Double d -> {
                    if (d.isNaN() || d.isInfinite()) {
                        throw new IllegalArgumentException("metadata value of " + key + " is " + d
                                + ": JSON has no such number");
                    }
                }
                default -> throw new IllegalArgumentException("metadata value of " + key
                        + " must be a String, Long, Integer, Double or Boolean, got " + v.getClass());
            }
            m.put(key, v);
        });
        if (e.inode().isPresent()) {
            Map<String, Object> file = new LinkedHashMap<>();
            file.put("inode", e.inode().getAsLong());
            file.put("size", e.size());
            m.put(FILE, file);
        }
        return m;
    }

    /** The fields of one object level. */
    private static final class Fields {
        final Map<String, Object> metadata = new LinkedHashMap<>();
        OptionalLong inode = OptionalLong.empty();
        long size = -1;
        Fields previous;

        Entry entry() {
            return new Entry(metadata, inode, size);
        }
    }

    private static Fields readObject(Map<?, ?> object, String where, boolean top) throws IOException {
        Fields f = new Fields();
        for (Map.Entry<?, ?> e : object.entrySet()) {
            String name = (String) e.getKey();
            Object v = e.getValue();
            if (v instanceof Map<?, ?> nested) {
                if (name.equals(FILE)) {
                    readFile(nested, f, where);
                } else if (top && name.equals(PREVIOUS)) {
                    f.previous = readObject(nested, where, false);
                }
                continue; // unknown nested fields are ignored
            }
            if (v != null && !(v instanceof List<?>)) { // JSON null: as if absent; arrays are ignored
                // an integer beyond 64 bits is kept as its text, which Manifest reads as it reads any number in text
                f.metadata.put(name, v instanceof java.math.BigInteger b ? b.toString() : v);
            }
        }
        return f;
    }

    private static void readFile(Map<?, ?> file, Fields f, String where) throws IOException {
        for (String name : List.of("inode", "size")) {
            if (!file.containsKey(name)) {
                continue;
            }
            Object v = file.get(name);
            if (!(v instanceof Long n) || n < 0) {
                throw new IOException(String.format("bad manifest %s: \"file\".\"%s\" must be a non-negative "
                        + "integer, got %s", where, name, v));
            }
            if (name.equals("inode")) {
                f.inode = OptionalLong.of(n);
            } else {
                f.size = n;
            }
        }
    }
}
