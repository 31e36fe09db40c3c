package io.dgen4j.cli.command;

import io.dgen4j.checkpoint.Manifest;
import io.dgen4j.cli.option.FilePath;
import io.dgen4j.format.Safetensors;
import io.dgen4j.format.SafetensorsShards;
import io.dgen4j.format.TorchReader;
import io.dgen4j.json.JsonReader;
import io.dgen4j.json.JsonWriter;
import java.io.EOFException;
import java.io.IOException;
import java.io.PrintWriter;
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
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code dgen4j inspect}: a checkpoint's tensors from the file alone (torch), or from its manifest (raw). */
@Command(name = "inspect", mixinStandardHelpOptions = true,
        description = {"List a checkpoint's tensors: name, dtype, shape, file offset and bytes.",
                "A torch.save file (ours or torch's own) is read as torch.load reads it: end records, central"
                        + " directory, data.pkl; a safetensors file from its header; a raw checkpoint is described"
                        + " by its manifest."})
public final class InspectCommand implements Callable<Integer> {
    @Spec
    CommandSpec command;

    @Parameters(paramLabel = "FILE", converter = FilePath.class, description = "Path of the checkpoint.")
    Path file;

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    boolean json;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = command.commandLine().getOut();
        List<Map<String, Object>> rows = new ArrayList<>();
        String format;
        long size;
        if (Files.isDirectory(file)) { // safetensors shards: the index names the files, each lists its tensors
            format = "safetensors";
            size = shards(rows);
        } else try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            size = ch.size();
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
                format = "safetensors";
                Safetensors.Header h = Safetensors.read(in, size, file.toString());
                for (Safetensors.Entry e : h.entries()) {
                    rows.add(row(e.name(), e.dtype().label(), e.shape(), h.dataStart() + e.begin(), e.bytes(),
                            Safetensors.dtypeName(e.dtype())));
                }
            } else if (TorchReader.isZip(first)) {
                format = "torch";
                for (TorchReader.Entry e : TorchReader.tensors(in, size, file.toString())) {
                    rows.add(row(e.name(), e.dtype().label(), e.shape(), e.offset(), e.bytes(), e.member()));
                }
            } else {
                format = "raw";
                Manifest m = rawManifest();
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("name", "(stream)");
                row.put("dtype", "uint8");
                row.put("shape", List.of(m.spec().size()));
                row.put("offset", 0L);
                row.put("bytes", m.spec().size());
                row.put("member", "");
                rows.add(row);
            }
        } catch (NoSuchFileException e) {
            throw new IOException(file + " does not exist", e);
        }
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("file", file.toString());
            doc.put("format", format);
            doc.put("size", size);
            doc.put("tensors", rows);
            out.println(JsonWriter.LINE.write(doc));
        } else {
            long bytes = rows.stream().mapToLong(r -> (Long) r.get("bytes")).sum();
            out.printf("%s: %s, %d tensor%s, %d bytes of tensors in %d bytes%n", file, format, rows.size(),
                    rows.size() == 1 ? "" : "s", bytes, size);
            int w = Math.max(4, rows.stream().mapToInt(r -> ((String) r.get("name")).length()).max().orElse(4));
            out.printf("  %-" + w + "s  %-8s  %-20s  %14s  %14s%n", "name", "dtype", "shape", "offset", "bytes");
            for (Map<String, Object> r : rows) {
                out.printf("  %-" + w + "s  %-8s  %-20s  %14d  %14d%n", r.get("name"), r.get("dtype"),
                        r.get("shape").toString().replace(" ", ""), r.get("offset"), r.get("bytes"));
            }
        }
        out.flush();
        return 0;
    }

    /** The tensors of the shards {@code model.safetensors.index.json} names, each row's member its file; the files' bytes. */
    private long shards(List<Map<String, Object>> rows) throws IOException {
        Path index = file.resolve(SafetensorsShards.INDEX);
        if (!Files.exists(index)) {
            throw new IOException(file + " is a directory without " + SafetensorsShards.INDEX);
        }
        Object doc;
        try {
            doc = JsonReader.parse(Files.readAllBytes(index));
        } catch (JsonReader.SyntaxException e) {
            throw new IOException(index + " is not valid JSON: " + e.getMessage(), e);
        }
        if (!(doc instanceof Map<?, ?> top) || !(top.get("weight_map") instanceof Map<?, ?> map)) {
            throw new IOException(index + " has no weight_map object");
        }
        long size = 0;
        for (Object name : new java.util.TreeSet<>(map.values().stream().map(String::valueOf).toList())) {
            Path shard = file.resolve((String) name);
            try (FileChannel ch = FileChannel.open(shard, StandardOpenOption.READ)) {
                TorchReader.ReadAt in = (offset, dst) -> {
                    ByteBuffer b = ByteBuffer.wrap(dst);
                    while (b.hasRemaining()) {
                        if (ch.read(b, offset + b.position()) < 0) {
                            throw new EOFException(shard + " ends at byte " + (offset + b.position()));
                        }
                    }
                };
                Safetensors.Header h = Safetensors.read(in, ch.size(), shard.toString());
                for (Safetensors.Entry e : h.entries()) {
                    if (!name.equals(map.get(e.name()))) {
                        throw new IOException(shard + " holds tensor " + e.name() + ", which " + index + " places in "
                                + map.get(e.name()));
                    }
                    rows.add(row(e.name(), e.dtype().label(), e.shape(), h.dataStart() + e.begin(), e.bytes(),
                            (String) name));
                }
                size += ch.size();
            } catch (NoSuchFileException e) {
                throw new IOException(index + " names " + name + ", which does not exist", e);
            }
        }
        if (rows.size() != map.size()) {
            throw new IOException(index + " names " + map.size() + " tensors, its shards hold " + rows.size());
        }
        return size;
    }

    /** One tensor's row; {@code member} is the torch record, or the safetensors dtype. */
    private static Map<String, Object> row(String name, String dtype, long[] dims, long offset, long bytes,
                                           String member) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("name", name);
        row.put("dtype", dtype);
        List<Object> shape = new ArrayList<>();
        for (long d : dims) {
            shape.add(d);
        }
        row.put("shape", shape);
        row.put("offset", offset);
        row.put("bytes", bytes);
        row.put("member", member);
        return row;
    }

    /** The manifest beside a raw checkpoint (its sidecar {@code FILE.manifest.json}). */
    private Manifest rawManifest() throws IOException {
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
}
