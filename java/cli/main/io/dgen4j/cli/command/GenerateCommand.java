package io.dgen4j.cli.command;

import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.cli.Environment;
import io.dgen4j.cli.option.ByteSizeConverter;
import io.dgen4j.cli.option.DataOptions;
import io.dgen4j.cli.option.Limits;
import io.dgen4j.cli.option.ProgressOptions;
import io.dgen4j.cli.report.Progress;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.gen.Generator;
import io.dgen4j.gen.NodeBuffers;
import io.dgen4j.gen.Numa;
import io.dgen4j.gen.StreamCursor;
import io.dgen4j.json.JsonWriter;
import io.dgen4j.unit.ByteSize;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code dgen4j generate}: writes a stream to a file, to stdout, or nowhere (to time generation). */
@Command(name = "generate", mixinStandardHelpOptions = true,
        description = {"Generate a data stream with exact dedup and compression ratios.",
                "Writes to --out FILE, to stdout with --out -, or only fills memory without --out.",
                "Prints the generation rate and the seed (give --seed to reproduce a run)."})
public final class GenerateCommand implements Callable<Integer> {
    private final Environment env;

    /** A generation whose generator, without {@code --generator}, is {@code env}'s {@code DGEN4J_DATA_GEN}. */
    public GenerateCommand(Environment env) {
        this.env = env;
    }

    @Spec
    CommandSpec command;

    @Option(names = "--size", required = true, converter = ByteSizeConverter.class,
            description = "Stream size, e.g. 1GiB, 256MiB, 10GB.")
    long size;

    @Mixin
    DataOptions data;

    @Option(names = "--chunk", defaultValue = StreamingCheckpoint.DEFAULT_CHUNK, converter = ByteSizeConverter.class,
            description = "Buffer filled and written per step (default ${DEFAULT-VALUE}).")
    long chunk;

    @Option(names = "--out", paramLabel = "FILE|-", description = "Output file, or - for stdout.")
    String out;

    @Option(names = "--generator", description = "auto (default; or DGEN4J_DATA_GEN), native or java.")
    Generator.Kind generator;

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    boolean json;

    @Mixin
    ProgressOptions progressOptions;

    @Option(names = "--numa-node", paramLabel = "N",
            description = "Bind the run to NUMA node N: workers pinned to its CPUs, buffers allocated on it.")
    Integer numaNode;

    @Option(names = "--numa-mode", defaultValue = "auto",
            description = "Worker pinning: auto (default; pin with several nodes or --numa-node), force, off.")
    Numa.Mode numaMode;

    @Override
    public Integer call() throws IOException {
        Limits.chunk(chunk);
        Limits.threads(data.threads);
        Limits.memory(Math.min(chunk, size), "the --chunk buffer", "use a smaller --chunk");
        DataSpec spec = data.spec().size(size).build();
        Generator.Kind kind = generator != null ? generator : kindFromEnvironment(env);
        boolean toStdout = "-".equals(out);
        // With data on stdout, the report goes to stderr.
        PrintWriter report = toStdout ? command.commandLine().getErr() : command.commandLine().getOut();

        long fillNanos = 0;
        long start = System.nanoTime();
        if (numaNode != null && numaNode < 0) {
            throw new IllegalArgumentException("--numa-node must be a node id >= 0, got " + numaNode);
        }
        int node = numaNode == null ? -1 : numaNode;
        Path file = toStdout || out == null ? null : outputPath(out);
        boolean complete = false;
        try (Generator gen = Generator.open(spec, kind, data.threads, numaMode, node);
             Arena arena = Arena.ofConfined();
             WritableByteChannel ch = openOutput(toStdout, file);
             Progress progress = progressOptions.bar("generate", size)) {
            // Untouched until filled; on the node of the run when it is bound to one.
            Numa.Plan plan = gen.placement().orElse(null);
            MemorySegment buf = NodeBuffers.allocate(arena, Math.max(1, Math.min(chunk, Math.max(size, 1))),
                    plan != null ? node : -1);
            StreamCursor cursor = gen.cursor();
            while (cursor.hasRemaining()) {
                long t0 = System.nanoTime();
                long n = cursor.next(buf);
                fillNanos += System.nanoTime() - t0;
                if (ch != null) {
                    ByteBuffer bb = buf.asSlice(0, n).asByteBuffer();
                    long at = cursor.position() - n;
                    try {
                        while (bb.hasRemaining()) {
                            ch.write(bb);
                        }
                    } catch (IOException e) {
                        throw new IOException(String.format("writing %s failed at byte offset %d: %s",
                                toStdout ? "standard output" : file, at + bb.position(), reason(e)), e);
                    }
                }
                progress.update(cursor.position());
            }
            double total = (System.nanoTime() - start) / 1e9;
            progress.close(); // erased before the report, which may go to the same terminal (--out -)
            double fill = fillNanos / 1e9;
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("bytes", size);
            r.put("seed", spec.seedString());
            r.put("seedRandom", spec.seedIsRandom());
            r.put("dedup", spec.dedupRatio());
            r.put("compress", spec.compressRatio());
            r.put("blockSize", spec.blockSize());
            r.put("distinctBlocks", spec.distinctBlocks());
            r.put("generator", gen.implementation());
            r.put("threads", gen.threads());
            r.put("numaNode", numaNode);
            r.put("pinned", plan != null && plan.pinned());
            r.put("out", out == null ? null : out);
            r.put("fillSeconds", round(fill));
            r.put("fillGBps", round(fill > 0 ? size / fill / 1e9 : 0));
            r.put("totalSeconds", round(total));
            r.put("totalGBps", round(total > 0 ? size / total / 1e9 : 0));
            if (json) {
                report.println(JsonWriter.ASCII_LINE.write(r));
            } else {
                report.printf(Locale.ROOT, "generated %s (%d bytes) with the %s generator, %d thread(s)%n",
                        ByteSize.format(size), size, gen.implementation(), gen.threads());
                if (plan != null && plan.pinned()) {
                    StringBuilder where = new StringBuilder();
                    for (Numa.Group g : plan.groups()) {
                        where.append(where.isEmpty() ? "" : ", ").append(g.threads()).append(" on node ")
                                .append(g.node().orElse(-1)).append(" cpus ").append(g.cpus());
                    }
                    report.printf(Locale.ROOT, "  workers pinned: %s%s%n", where,
                            numaNode == null ? "" : " (buffer on node " + numaNode + ")");
                }
                report.printf(Locale.ROOT, "  seed %s%s  (reproduce with --seed %s)%n", spec.seedString(),
                        spec.seedIsRandom() ? " (random)" : "", spec.seedString());
                report.printf(Locale.ROOT, "  dedup %s (%d distinct of %d blocks of %d B), compress %s%n",
                        spec.dedupRatio(), spec.distinctBlocks(), spec.blocks(), spec.blockSize(), spec.compressRatio());
                report.printf(Locale.ROOT, "  generation %.3f s = %.2f GB/s (fill time only)%n", fill,
                        fill > 0 ? size / fill / 1e9 : 0);
                report.printf(Locale.ROOT, "  total      %.3f s = %.2f GB/s%s%n", total,
                        total > 0 ? size / total / 1e9 : 0, out == null ? "" : " (including writes to " + out + ")");
            }
            report.flush();
            complete = true;
        } finally {
            if (!complete && file != null) {
                // A partial stream is not a stream: do not leave one that looks like output.
                Files.deleteIfExists(file);
            }
        }
        return 0;
    }

    /** The output file, checked before anything is generated. */
    private static Path outputPath(String out) throws IOException {
        if (out.isEmpty() || out.endsWith("/")) {
            throw new IllegalArgumentException("--out must name a file (or - for stdout), got '" + out + "'");
        }
        Path p;
        try {
            p = Path.of(out).toAbsolutePath();
        } catch (java.nio.file.InvalidPathException e) {
            throw new IllegalArgumentException("--out " + out + " is not a valid path: " + e.getReason(), e);
        }
        io.dgen4j.storage.StorageTarget.checkNameLength(p, 0);
        if (Files.isDirectory(p)) {
            throw new java.nio.file.FileSystemException(p.toString(), null, "--out is a directory: it must name a file");
        }
        Path dir = p.getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            throw new java.nio.file.NoSuchFileException(p.toString(), null, "the directory of --out does not exist");
        }
        return p;
    }

    private static String reason(IOException e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private WritableByteChannel openOutput(boolean toStdout, Path file) throws IOException {
        if (toStdout) {
            return new StdoutChannel();
        }
        if (file == null) {
            return null;
        }
        return FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
    }

    /**
     * Writes to file descriptor 1 and never closes it: closing a channel of
     * {@code FileDescriptor.out} would close fd 1, which the JVM may have reused for one of its own
     * files when the process was started with stdout closed.
     */
    private static final class StdoutChannel implements WritableByteChannel {
        private final FileChannel channel = new FileOutputStream(java.io.FileDescriptor.out).getChannel();
        private boolean open = true;

        @Override
        public int write(ByteBuffer src) throws IOException {
            if (!open) {
                throw new java.nio.channels.ClosedChannelException();
            }
            return channel.write(src);
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public void close() {
            open = false;
        }
    }

    private static double round(double v) {
        return Math.round(v * 1000.0) / 1000.0;
    }

    /** The generator {@code DGEN4J_DATA_GEN} names, or AUTO. */
    /** The generator {@code env}'s {@code DGEN4J_DATA_GEN} names, or AUTO. */
    private static Generator.Kind kindFromEnvironment(Environment env) {
        String v = env.get("DGEN4J_DATA_GEN");
        if (v == null || v.isBlank()) {
            return Generator.Kind.AUTO;
        }
        try {
            return Generator.Kind.parse(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("DGEN4J_DATA_GEN=" + v + " is not one of auto, native, java");
        }
    }
}
