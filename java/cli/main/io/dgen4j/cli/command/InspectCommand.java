package io.dgen4j.cli.command;

import io.dgen4j.checkpoint.Manifest;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.cli.Environment;
import io.dgen4j.cli.option.StorageBackendOptions;
import io.dgen4j.format.Safetensors;
import io.dgen4j.format.SafetensorsShards;
import io.dgen4j.format.TorchReader;
import io.dgen4j.json.JsonReader;
import io.dgen4j.json.JsonWriter;
import io.dgen4j.storage.StorageReader;
import io.dgen4j.storage.StorageTarget;
import java.io.EOFException;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code dgen4j inspect}: a checkpoint's tensors from the file alone (torch), or from its manifest (raw). */
@Command(name = "inspect", mixinStandardHelpOptions = true,
        description = {"List a checkpoint's tensors: name, dtype, shape, file offset and bytes.",
                "A torch.save file (ours or torch's own) is read as torch.load reads it: end records, central"
                        + " directory, data.pkl; a safetensors file from its header (a model's shards, in a directory or"
                        + " under an s3:// prefix ending in '/', from its index, grouped by shard); a raw checkpoint is"
                        + " described by its manifest. An s3:// object is read with ranged GETs, its last 64 KiB first,"
                        + " and is not downloaded."})
public final class InspectCommand implements Callable<Integer> {
    /** The bytes of an object's first GET, at its end: the end records and, mostly, the central directory. */
    static final int TAIL = 64 << 10;

    private final Environment env;

    /** An inspect that reads {@code env}'s variables (S3 settings, the backend). */
    public InspectCommand(Environment env) {
        this.env = env;
    }

    @Spec
    CommandSpec command;

    @Parameters(paramLabel = "TARGET", description = "Path, file:// or s3://bucket/key URI of the checkpoint.")
    String target;

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    boolean json;

    @Mixin
    StorageBackendOptions backend;

    /**
     * What inspect found: the format, the file's bytes, a row per tensor, for an object its GETs, and for a
     * model's shards each shard's file, bytes and tensors (else empty).
     */
    private record Listing(String format, long size, List<Map<String, Object>> rows, Reads gets,
                           List<Map<String, Object>> shards) {
        Listing(String format, long size, List<Map<String, Object>> rows, Reads gets) {
            this(format, size, rows, gets, List.of());
        }
    }

    /** The ranged GETs an object's listing took and the bytes they read. */
    record Reads(long gets, long bytes) {}

    @Override
    public Integer call() throws IOException {
        PrintWriter out = command.commandLine().getOut();
        StorageTarget where = StorageTarget.parse(target); // a malformed target is a usage error, before any request
        boolean model = ShardedSave.isModel(target) && !where.isFile();
        Listing l = model ? shards(ShardedSave.Place.of(target)) : where.isFile() ? file(where.path()) : object(where);
        String name = model ? ShardedSave.Place.of(target).shown() : where.isFile() ? where.path().toString()
                : where.toString();
        boolean finite = where.isFile() && madeFinite(where.path());
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("file", name);
            doc.put("format", l.format());
            doc.put("size", l.size());
            doc.put("tensors", l.rows());
            if (finite) { // only then: other listings keep their keys
                doc.put("finite", true);
            }
            if (l.gets() != null) {
                doc.put("gets", l.gets().gets());
                doc.put("bytesRead", l.gets().bytes());
            }
            if (!l.shards().isEmpty()) { // only a model's: other listings keep their keys
                doc.put("shards", l.shards());
            }
            out.println(JsonWriter.LINE.write(doc));
        } else {
            long bytes = l.rows().stream().mapToLong(r -> (Long) r.get("bytes")).sum();
            out.printf("%s: %s, %d tensor%s, %d bytes of tensors in %d bytes%s%n", name, l.format(), l.rows().size(),
                    l.rows().size() == 1 ? "" : "s", bytes, l.size(), (l.gets() == null ? ""
                            : String.format(" (%d ranged GET%s, %d bytes read)", l.gets().gets(),
                                    l.gets().gets() == 1 ? "" : "s", l.gets().bytes()))
                            + (finite ? ", floating-point values made finite (--finite)" : ""));
            int w = Math.max(4, l.rows().stream().mapToInt(r -> ((String) r.get("name")).length()).max().orElse(4));
            out.printf("  %-" + w + "s  %-8s  %-20s  %14s  %14s%n", "name", "dtype", "shape", "offset", "bytes");
            Object shard = null;
            for (Map<String, Object> r : l.rows()) {
                if (!l.shards().isEmpty() && !r.get("member").equals(shard)) { // a model: its tensors by shard
                    shard = r.get("member");
                    for (Map<String, Object> f : l.shards()) {
                        if (f.get("file").equals(shard)) {
                            out.printf("  %s: %d tensor%s, %d bytes of tensors in %d bytes%n", shard,
                                    f.get("tensors"), (Long) f.get("tensors") == 1 ? "" : "s", f.get("tensorBytes"),
                                    f.get("bytes"));
                        }
                    }
                }
                out.printf("  %-" + w + "s  %-8s  %-20s  %14d  %14d%n", r.get("name"), r.get("dtype"),
                        r.get("shape").toString().replace(" ", ""), r.get("offset"), r.get("bytes"));
            }
        }
        out.flush();
        return 0;
    }

    /** A local file: a torch.save file by its first bytes, else a raw checkpoint by its sidecar manifest. */
    private Listing file(Path file) throws IOException {
        if (Files.isDirectory(file)) { // safetensors shards: the index names the files, each lists its tensors
            if (!Files.exists(file.resolve(SafetensorsShards.INDEX))) {
                throw new IOException(file + " is a directory without " + SafetensorsShards.INDEX);
            }
            return shards(ShardedSave.Place.of(file.toString()));
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            TorchReader.ReadAt in = (offset, dst) -> {
                ByteBuffer b = ByteBuffer.wrap(dst);
                while (b.hasRemaining()) {
                    if (ch.read(b, offset + b.position()) < 0) {
                        throw new EOFException(file + " ends at byte " + (offset + b.position()));
                    }
                }
            };
            byte[] first = new byte[(int) Math.min(9, size)];
            in.readFully(0, first);
            if (Safetensors.looksLike(first, size)) {
                return new Listing("safetensors", size, safetensorsRows(in, size, file.toString(), null), null);
            }
            if (TorchReader.isZip(first)) {
                return new Listing("torch", size, torchRows(in, size, file.toString()), null);
            }
            return new Listing("raw", size, rawRows(rawManifest(file)), null);
        } catch (NoSuchFileException e) {
            throw new IOException(file + " does not exist", e);
        }
    }

    /**
     * An object: a dgen4j raw checkpoint from the manifest saved with it (no GET); anything else from its bytes,
     * as torch.load reads a file: the last {@value #TAIL} bytes (end records, central directory), then data.pkl
     * and each record's local header, one ranged GET each where the windows read so far do not hold them.
     */
    private Listing object(StorageTarget where) throws IOException {
        StreamingCheckpoint ckpt = backend.apply(StreamingCheckpoint.builder(), where, env).build();
        return ckpt.read(where, reader -> {
            Map<String, Object> meta = reader.metadata();
            if (!meta.isEmpty() && !Manifest.tensorsInHeader(meta)) { // else the header lists them: read below
                Manifest m = Manifest.fromMetadata(meta, "the manifest of " + where);
                if (m.layout() == null) {
                    return new Listing("raw", reader.size(), rawRows(m), new Reads(0, 0));
                }
            }
            Ranged in = new Ranged(reader, where.toString());
            in.tail();
            byte[] first = new byte[(int) Math.min(9, in.size)];
            in.readFully(0, first);
            if (Safetensors.looksLike(first, in.size)) {
                return new Listing("safetensors", in.size, safetensorsRows(in, in.size, where.toString(), null),
                        in.reads());
            }
            if (!TorchReader.isZip(first)) {
                throw new IOException(where + " is neither a torch.save nor a safetensors file, nor a dgen4j checkpoint with a manifest "
                        + "(the object has no dgen4j metadata)");
            }
            return new Listing("torch", in.size, torchRows(in, in.size, where.toString()), in.reads());
        });
    }

    private static List<Map<String, Object>> torchRows(TorchReader.ReadAt in, long size, String where)
            throws IOException {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (TorchReader.Entry e : TorchReader.tensors(in, size, where)) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("name", e.name());
            row.put("dtype", e.dtype().label());
            List<Object> shape = new ArrayList<>();
            for (long d : e.shape()) {
                shape.add(d);
            }
            row.put("shape", shape);
            row.put("offset", e.offset());
            row.put("bytes", e.bytes());
            row.put("member", e.member());
            rows.add(row);
        }
        return rows;
    }

    /** A safetensors file's tensors from its header, in data order; {@code member} the shard's file, or the dtype. */
    private static List<Map<String, Object>> safetensorsRows(TorchReader.ReadAt in, long size, String where,
                                                             String member) throws IOException {
        List<Map<String, Object>> rows = new ArrayList<>();
        Safetensors.Header h = Safetensors.read(in, size, where);
        for (Safetensors.Entry e : h.entries()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("name", e.name());
            row.put("dtype", e.dtype().label());
            List<Object> shape = new ArrayList<>();
            for (long d : e.shape()) {
                shape.add(d);
            }
            row.put("shape", shape);
            row.put("offset", h.dataStart() + e.begin());
            row.put("bytes", e.bytes());
            row.put("member", member != null ? member : Safetensors.dtypeName(e.dtype()));
            rows.add(row);
        }
        return rows;
    }

    /**
     * The tensors of the shards {@code model.safetensors.index.json} names, each row's member its file, read from
     * each shard's header (an object's with one ranged GET of its first {@value #TAIL} bytes, more for a larger
     * header); the files' bytes, and per shard its file, bytes and tensors.
     */
    private Listing shards(ShardedSave.Place place) throws IOException {
        StreamingCheckpoint ckpt = place.local() ? null
                : backend.apply(StreamingCheckpoint.builder(), place.resolve(SafetensorsShards.INDEX), env).build();
        Map<?, ?> map = place.weightMap(ckpt);
        String index = place.resolve(SafetensorsShards.INDEX).toString();
        List<Map<String, Object>> rows = new ArrayList<>();
        List<Map<String, Object>> files = new ArrayList<>();
        long size = 0;
        long gets = 0;
        long read = 0;
        for (String name : new java.util.TreeSet<>(map.values().stream().map(String::valueOf).toList())) {
            StorageTarget shard = place.resolve(name);
            String shown = place.local() ? shard.path().toString() : shard.toString();
            List<Map<String, Object>> mine;
            long bytes;
            if (place.local()) {
                try (FileChannel ch = FileChannel.open(shard.path(), StandardOpenOption.READ)) {
                    TorchReader.ReadAt in = (offset, dst) -> {
                        ByteBuffer b = ByteBuffer.wrap(dst);
                        while (b.hasRemaining()) {
                            if (ch.read(b, offset + b.position()) < 0) {
                                throw new EOFException(shown + " ends at byte " + (offset + b.position()));
                            }
                        }
                    };
                    bytes = ch.size();
                    mine = safetensorsRows(in, bytes, shown, name);
                } catch (NoSuchFileException e) {
                    throw new IOException(index + " names " + name + ", which does not exist", e);
                }
            } else {
                Ranged in;
                try {
                    in = ckpt.read(shard, reader -> {
                        Ranged r = new Ranged(reader, shown);
                        r.rows = safetensorsRows(r, r.size, shown, name);
                        return r;
                    });
                } catch (io.dgen4j.checkpoint.CheckpointException e) {
                    if (e.getCause() instanceof NoSuchFileException) {
                        throw new IOException(index + " names " + name + ", which does not exist", e);
                    }
                    throw e;
                }
                bytes = in.size;
                mine = in.rows;
                gets += in.gets;
                read += in.bytes;
            }
            for (Map<String, Object> row : mine) {
                if (!name.equals(map.get(row.get("name")))) {
                    throw new IOException(shown + " holds tensor " + row.get("name") + ", which " + index
                            + " places in " + map.get(row.get("name")));
                }
                rows.add(row);
            }
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("file", name);
            f.put("bytes", bytes);
            f.put("tensors", (long) mine.size());
            f.put("tensorBytes", mine.stream().mapToLong(r -> (Long) r.get("bytes")).sum());
            files.add(f);
            size += bytes;
        }
        if (rows.size() != map.size()) {
            throw new IOException(index + " names " + map.size() + " tensors, its shards hold " + rows.size());
        }
        return new Listing("safetensors", size, rows, place.local() ? null : new Reads(gets, read), files);
    }

    /** A raw checkpoint is one stream of bytes: one row. */
    private static List<Map<String, Object>> rawRows(Manifest m) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("name", "(stream)");
        row.put("dtype", "uint8");
        row.put("shape", List.of(m.spec().size()));
        row.put("offset", 0L);
        row.put("bytes", m.spec().size());
        row.put("member", "");
        return List.of(row);
    }

    /**
     * Whether the manifest beside {@code file}, if any, says its floating-point values were made
     * finite; a torch file is listed from its own bytes, so a sidecar it cannot read only says no.
     */
    private static boolean madeFinite(Path file) {
        if (!Files.exists(file.resolveSibling(file.getFileName() + ".manifest.json"))) {
            return false;
        }
        try {
            Manifest m = rawManifest(file);
            return m.layout() != null && m.layout().finite();
        } catch (IOException e) {
            return false;
        }
    }

    /** The manifest beside a raw checkpoint (its sidecar {@code FILE.manifest.json}). */
    private static Manifest rawManifest(Path file) throws IOException {
        Path sidecar = file.resolveSibling(file.getFileName() + ".manifest.json");
        if (!Files.exists(sidecar)) {
            throw new IOException(file + " is neither a torch.save nor a safetensors file, nor a dgen4j checkpoint with a manifest ("
                    + sidecar + " does not exist)");
        }
        Object doc;
        try {
            doc = JsonReader.parse(Files.readAllBytes(sidecar));
        } catch (JsonReader.SyntaxException e) {
            throw new IOException(sidecar + " is not valid JSON: " + e.getMessage(), e);
        }
        if (!(doc instanceof Map<?, ?> top)) {
            throw new IOException(sidecar + " is not a dgen4j manifest: its JSON is not an object");
        }
        Map<String, Object> fields = new LinkedHashMap<>();
        top.forEach((k, v) -> fields.put((String) k, v));
        return Manifest.fromMetadata(fields, sidecar.toString());
    }

    /**
     * An object read in 4 KiB-aligned windows (the reader's rule), one ranged GET each: the tail and the head
     * are kept (end records and central directory; data.pkl), and the last other window (a local header).
     */
    static final class Ranged implements TorchReader.ReadAt {
        private final StorageReader reader;
        private final String where;
        final long size;
        long gets;
        long bytes;
        private Window tail;
        private Window head;
        private Window last;
        /** A shard's rows, read while its reader was open. */
        List<Map<String, Object>> rows;

        private record Window(long start, byte[] data) {
            boolean holds(long offset, int n) {
                return offset >= start && offset + n <= start + data.length;
            }
        }

        Ranged(StorageReader reader, String where) {
            this.reader = reader;
            this.where = where;
            this.size = reader.size();
        }

        Reads reads() {
            return new Reads(gets, bytes);
        }

        /** The first GET: the object's last {@value #TAIL} bytes, where torch.load starts. */
        void tail() throws IOException {
            tail = fetch(Math.max(0, size - TAIL) & ~4095L, size);
        }

        @Override
        public void readFully(long offset, byte[] dst) throws IOException {
            if (offset < 0 || offset + dst.length > size) {
                throw new EOFException(String.format("%s ends at byte %d, before byte %d", where, size,
                        offset + dst.length));
            }
            Window w = null;
            for (Window c : new Window[] {tail, head, last}) {
                if (c != null && c.holds(offset, dst.length)) {
                    w = c;
                    break;
                }
            }
            if (w == null) {
                long start = offset & ~4095L;
                // the head's window is as large as the tail's: data.pkl and the small records follow the first header
                long end = Math.min(size, Math.max(start + (start == 0 ? TAIL : 4096),
                        (offset + dst.length + 4095) & ~4095L));
                w = fetch(start, end);
                if (start == 0) {
                    head = w;
                } else {
                    last = w;
                }
            }
            System.arraycopy(w.data(), (int) (offset - w.start()), dst, 0, dst.length);
        }

        private Window fetch(long start, long end) throws IOException {
            int n = Math.toIntExact(end - start);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment buf = arena.allocate(Math.max(4096, (n + 4095) & ~4095L), 4096);
                int got = 0;
                while (got < n) {
                    long r = reader.read(start + got, buf.asSlice(got));
                    gets++;
                    if (r <= 0) {
                        throw new EOFException(String.format("%s ends at byte %d, before byte %d", where, start + got,
                                end));
                    }
                    got += (int) r;
                }
                bytes += n;
                return new Window(start, buf.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE));
            }
        }
    }
}
