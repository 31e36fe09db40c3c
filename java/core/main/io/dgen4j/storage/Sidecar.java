package io.dgen4j.storage;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
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
    /** Larger documents are refused unread: a manifest is a few hundred bytes. */
    static final int MAX_BYTES = 64 * 1024;
    private static final String FILE = "file";
    private static final String PENDING = "pending";
    private static final String PREVIOUS = "previous";
    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(16).maxStringLength(4096).build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

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
        try (JsonParser p = JSON.createParser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException(where + " is not a dgen4j manifest: its JSON is not an object");
            }
            Fields top = readObject(p, where, true);
            if (p.nextToken() != null) {
                throw new IOException(where + " is not valid JSON: text follows the object at "
                        + p.currentLocation().offsetDescription());
            }
            boolean pending = Boolean.TRUE.equals(top.metadata.remove(PENDING));
            return new Doc(top.entry(), pending, Optional.ofNullable(top.previous).map(Fields::entry));
        } catch (JsonParseException e) {
            throw new IOException(String.format("%s is not valid JSON: %s", where, e.getOriginalMessage()), e);
        } catch (com.fasterxml.jackson.core.exc.StreamConstraintsException e) {
            throw new IOException(String.format("%s is not a dgen4j manifest: %s", where, e.getOriginalMessage()), e);
        }
    }

    /** The JSON of a sidecar. */
    static byte[] write(Entry current, boolean pending, Optional<Entry> previous) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            writeEntry(g, current);
            if (pending) {
                g.writeBooleanField(PENDING, true);
            }
            if (previous.isPresent()) {
                g.writeFieldName(PREVIOUS);
                g.writeStartObject();
                writeEntry(g, previous.get());
                g.writeEndObject();
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException("writing JSON to memory failed", e);
        }
        out.write('\n');
        return out.toByteArray();
    }

    private static void writeEntry(JsonGenerator g, Entry e) throws IOException {
        for (Map.Entry<String, Object> f : e.metadata().entrySet()) {
            switch (f.getValue()) {
                case String s -> g.writeStringField(f.getKey(), s);
                case Long l -> g.writeNumberField(f.getKey(), l);
                case Integer i -> g.writeNumberField(f.getKey(), i);
                case Double d -> g.writeNumberField(f.getKey(), d);
                case Boolean b -> g.writeBooleanField(f.getKey(), b);
                default -> throw new IllegalArgumentException("metadata value of " + f.getKey()
                        + " must be a String, Long, Integer, Double or Boolean, got " + f.getValue().getClass());
            }
        }
        if (e.inode().isPresent()) {
            g.writeObjectFieldStart(FILE);
            g.writeNumberField("inode", e.inode().getAsLong());
            g.writeNumberField("size", e.size());
            g.writeEndObject();
        }
    }

    /** The fields of one object level; the parser stands on its START_OBJECT. */
    private static final class Fields {
        final Map<String, Object> metadata = new LinkedHashMap<>();
        OptionalLong inode = OptionalLong.empty();
        long size = -1;
        Fields previous;

        Entry entry() {
            return new Entry(metadata, inode, size);
        }
    }

    private static Fields readObject(JsonParser p, String where, boolean top) throws IOException {
        Fields f = new Fields();
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            if (v == JsonToken.START_OBJECT) {
                if (name.equals(FILE)) {
                    readFile(p, f, where);
                } else if (top && name.equals(PREVIOUS)) {
                    f.previous = readObject(p, where, false);
                } else {
                    p.skipChildren(); // unknown nested fields are ignored
                }
                continue;
            }
            if (v == JsonToken.START_ARRAY) {
                p.skipChildren();
                continue;
            }
            Object value = switch (v) {
                case VALUE_STRING -> p.getText();
                case VALUE_NUMBER_INT -> p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                        ? p.getText() : (Object) p.getLongValue();
                case VALUE_NUMBER_FLOAT -> p.getDoubleValue();
                case VALUE_TRUE -> Boolean.TRUE;
                case VALUE_FALSE -> Boolean.FALSE;
                default -> null; // JSON null: as if absent
            };
            if (value != null) {
                f.metadata.put(name, value);
            }
        }
        if (t != JsonToken.END_OBJECT) {
            throw new IOException(where + " is not valid JSON: the object is not closed");
        }
        return f;
    }

    private static void readFile(JsonParser p, Fields f, String where) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            if (v.isStructStart()) {
                p.skipChildren();
            } else if (name.equals("inode") || name.equals("size")) {
                if (v != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                        || p.getLongValue() < 0) {
                    throw new IOException(String.format("bad manifest %s: \"file\".\"%s\" must be a non-negative "
                            + "integer, got %s", where, name, p.getText()));
                }
                if (name.equals("inode")) {
                    f.inode = OptionalLong.of(p.getLongValue());
                } else {
                    f.size = p.getLongValue();
                }
            }
        }
    }
}
