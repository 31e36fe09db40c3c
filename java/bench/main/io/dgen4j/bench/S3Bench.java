package io.dgen4j.bench;

import io.dgen4j.aws.AwsOptions;
import io.dgen4j.checkpoint.BufferPool;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.gen.Generator;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.local.LocalS3Proxy;
import io.dgen4j.storage.Storage;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageProvider;
import io.dgen4j.storage.StorageTarget;
import io.dgen4j.storage.StorageWriter;
import io.dgen4j.storage.WriteRequest;
import io.dgen4j.unit.ByteSize;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code ./dgen4j bench s3}: the streaming save through an S3 backend against a plain multipart
 * upload, by the same client library, of the same bytes generated in memory beforehand, to one
 * server with the same part size and parts in flight, the order alternating each round. Prints
 * per backend the medians of elapsed and client CPU seconds per GiB (this process's CPU time,
 * native client threads included), their ratios, and every round; with {@code --backend all} (the
 * default) also the minio/aws ratios of the streaming saves. {@code --endpoints} measures the
 * driver's endpoint goals instead ({@link S3EndpointsBench}).
 *
 * <p>The store: {@code AWS_ENDPOINT_URL} with {@code AWS_ACCESS_KEY_ID}, {@code AWS_SECRET_ACCESS_KEY}
 * and {@code BUCKET} (default {@code bench}) when set, else a local s3proxy started on 127.0.0.1 from
 * {@code --s3proxy}, {@code DGEN4J_S3PROXY_JAR} or {@code -Ddgen4j.s3proxy.jar} (./dgen4j names the
 * jar the bench build copies) and stopped afterwards. System properties: {@code bench.threads} (CPU
 * by thread group), {@code bench.headers} (aws: the first UploadPart's headers), {@code
 * bench.freshPool} (a new buffer pool per save).
 */
public final class S3Bench {
    /** The backends, in the order {@code all} runs them. */
    static final List<String> BACKENDS = List.of("aws", "crt", "minio");

    static final String USAGE = "usage: dgen4j bench s3 [--backend aws|crt|minio|all] [--size 512MiB] [--part 32MiB]"
            + " [--in-flight N] [--rounds N] [--sides both|plain|streaming|driver|all] [--endpoints]"
            + " [--s3proxy JAR]";

    private S3Bench() {}

    /**
     * The options of one run, checked; {@code inFlight} and {@code rounds} are 0 where each backend's
     * default applies (aws 4 and 2, crt 2 and 4, minio 4 and 3; --endpoints 4 and 3).
     */
    record Args(boolean help, List<String> backends, long size, long part, int inFlight, int rounds, String sides,
            boolean endpoints, String s3proxy) {
        int inFlightOf(String backend) {
            return inFlight > 0 ? inFlight : backend.equals("crt") && !endpoints ? 2 : 4;
        }

        int roundsOf(String backend) {
            return rounds > 0 ? rounds : endpoints ? 3 : switch (backend) {
                case "crt" -> 4;
                case "minio" -> 3;
                default -> 2;
            };
        }

        boolean plain() {
            return !sides.equals("streaming");
        }

        boolean streaming() {
            return !sides.equals("plain") && !sides.equals("driver");
        }

        boolean driver() {
            return sides.equals("driver") || sides.equals("all");
        }
    }

    /**
     * Parses and checks the command line (after {@code s3}).
     *
     * @throws IllegalArgumentException naming the option and the value it got, for the usage error
     */
    static Args parse(String[] args) {
        String backend = "all";
        String size = null;
        String part = null;
        int inFlight = 0;
        int rounds = 0;
        String sides = "both";
        boolean endpoints = false;
        String s3proxy = null;
        for (int i = 0; i < args.length; i++) {
            String opt = args[i];
            switch (opt) {
                case "-h", "--help" -> {
                    return new Args(true, List.of(), 0, 0, 0, 0, sides, false, null);
                }
                case "--endpoints" -> endpoints = true;
                case "--backend", "--size", "--part", "--in-flight", "--rounds", "--sides", "--s3proxy" -> {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException(opt + " needs a value");
                    }
                    String v = args[++i];
                    switch (opt) {
                        case "--backend" -> backend = v.trim();
                        case "--size" -> size = v;
                        case "--part" -> part = v;
                        case "--in-flight" -> inFlight = BenchMain.intArg(opt, v, 1, 256);
                        case "--rounds" -> rounds = BenchMain.intArg(opt, v, 1, 1000);
                        case "--sides" -> sides = v.trim();
                        case "--s3proxy" -> s3proxy = v;
                        default -> throw new IllegalStateException("option " + opt + " has no handler");
                    }
                }
                default -> throw new IllegalArgumentException("unknown option " + opt + " (see --help)");
            }
        }
        List<String> backends;
        if (backend.equals("all")) {
            backends = BACKENDS;
        } else if (BACKENDS.contains(backend)) {
            backends = List.of(backend);
        } else {
            throw new IllegalArgumentException("--backend must be aws, crt, minio or all, got '" + backend + "'");
        }
        if (!List.of("both", "plain", "streaming", "driver", "all").contains(sides)) {
            throw new IllegalArgumentException("--sides must be both, plain, streaming, driver or all, got '" + sides
                    + "'");
        }
        long partBytes = bytes("--part", part != null ? part : endpoints ? "8MiB" : "32MiB", 5L << 20, 5L << 30);
        long sizeBytes = bytes("--size", size != null ? size : endpoints ? "256MiB" : "512MiB", partBytes, 64L << 30);
        return new Args(false, backends, sizeBytes, partBytes, inFlight, rounds, sides, endpoints, s3proxy);
    }

    /** {@code v} as bytes in {@code [min, max]} and a multiple of 4 KiB, else a usage error naming {@code opt}. */
    private static long bytes(String opt, String v, long min, long max) {
        long n;
        try {
            n = ByteSize.parseBytes(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(opt + ": " + e.getMessage(), e);
        }
        if (n < min || n > max || n % 4096 != 0) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "%s must be a multiple of 4KiB from %s to %s,"
                    + " got '%s'", opt, ByteSize.ofBytes(min), ByteSize.ofBytes(max), v.trim()));
        }
        return n;
    }

    public static void main(String[] args) throws Exception {
        Args a;
        try {
            a = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("dgen4j bench s3: " + e.getMessage());
            System.exit(2);
            return;
        }
        if (a.help()) {
            System.out.println(USAGE);
            return;
        }
        try {
            if (a.endpoints()) {
                for (String backend : a.backends()) {
                    S3EndpointsBench.run(backend, s3proxyJar(a), a.size(), a.part(), a.inFlightOf(backend),
                            a.roundsOf(backend));
                }
            } else {
                run(a);
            }
        } catch (UsageError e) {
            System.err.println("dgen4j bench s3: " + e.getMessage());
            System.exit(2);
        }
        // the clients' event-loop threads would keep the JVM up for seconds
        System.exit(0);
    }

    /** No s3proxy jar to start, or a store named without keys: a usage error (exit 2). */
    static final class UsageError extends RuntimeException {
        UsageError(String message) {
            super(message);
        }
    }

    /** The s3proxy jar: --s3proxy, else DGEN4J_S3PROXY_JAR, else -Ddgen4j.s3proxy.jar. */
    static Path s3proxyJar(Args a) {
        String where = a.s3proxy();
        if (where == null || where.isBlank()) {
            where = System.getenv("DGEN4J_S3PROXY_JAR");
        }
        if (where == null || where.isBlank()) {
            where = System.getProperty("dgen4j.s3proxy.jar");
        }
        if (where == null || where.isBlank() || !Files.isRegularFile(Path.of(where))) {
            throw new UsageError("no S3 endpoint is configured (AWS_ENDPOINT_URL) and the s3proxy jar is "
                    + (where == null || where.isBlank() ? "not named" : "missing (" + where + ")")
                    + ": give --s3proxy JAR (org.gaul:s3proxy:4.1.0:jar-with-dependencies; ./dgen4j bench names "
                    + "java/bench/target/s3proxy/s3proxy.jar)");
        }
        return Path.of(where);
    }

    /** Save against plain upload, per backend; then the minio/aws ratios when both ran. */
    private static void run(Args a) throws Exception {
        String configured = System.getenv("AWS_ENDPOINT_URL");
        LocalS3Proxy local = null;
        try {
            URI endpoint;
            String bucket;
            String key;
            String secret;
            if (configured != null && !configured.isBlank()) {
                endpoint = URI.create(configured.strip());
                key = System.getenv("AWS_ACCESS_KEY_ID");
                secret = System.getenv("AWS_SECRET_ACCESS_KEY");
                bucket = System.getenv().getOrDefault("BUCKET", "bench");
                if (key == null || secret == null) {
                    throw new UsageError("AWS_ENDPOINT_URL is set but AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY is not");
                }
            } else {
                local = LocalS3Proxy.startTemporary(s3proxyJar(a));
                endpoint = local.endpoint();
                key = local.accessKey();
                secret = local.secretKey();
                bucket = local.createBucket("bench");
                System.err.printf(Locale.ROOT, "s3proxy on %s (filesystem backend in %s)%n", endpoint, local.dir());
            }
            S3Settings settings = S3Settings.builder().endpoint(endpoint).credentials(key, secret, null).build();
            Map<String, double[]> streaming = new LinkedHashMap<>();
            for (String backend : a.backends()) {
                double[] s = saveVsPlain(backend, a, settings, bucket, key, secret);
                if (s != null) {
                    streaming.put(backend, s);
                }
            }
            if (streaming.containsKey("minio") && streaming.containsKey("aws")) {
                double[] m = streaming.get("minio");
                double[] w = streaming.get("aws");
                System.out.printf(Locale.ROOT, "throughput ratio (minio / aws): %.3f%n", w[0] / m[0]);
                System.out.printf(Locale.ROOT, "client CPU ratio (minio / aws): %.3f%n", m[1] / w[1]);
            }
        } finally {
            if (local != null) {
                local.close();
            }
        }
    }

    /**
     * One backend: warm-ups, then the rounds; prints its table and returns the streaming save's
     * median elapsed and CPU seconds (null when it did not run).
     */
    private static double[] saveVsPlain(String backend, Args a, S3Settings settings, String bucket, String key,
                                        String secret) throws Exception {
        long size = a.size();
        long part = a.part();
        int inFlight = a.inFlightOf(backend);
        int rounds = a.roundsOf(backend);
        DataSpec spec = DataSpec.builder().size(size).seed(1).dedupRatio(1).compressRatio(1).build();
        int buffers = inFlight + (backend.equals("crt") ? 1 : 2);
        System.err.printf(Locale.ROOT, "%s: %s in parts of %s, %d in flight, %d rounds%n", backend,
                ByteSize.format(size), ByteSize.format(part), inFlight, rounds);
        // one storage session for every round: its clients are made once, as the plain side's are
        try (Arena arena = Arena.ofShared();
             PlainUpload plain = PlainUpload.open(backend, settings.endpoint().orElseThrow(), key, secret, inFlight);
             Storage storage = Storage.open()) {
            MemorySegment data = arena.allocate(size, 4096);
            double[] gen;
            try (Generator g = Generator.open(spec, Generator.Kind.AUTO, 0)) {
                g.fill(data.asSlice(0, Math.min(size, 64L << 20)), 0); // warm up
                // pre-generated: not part of the plain upload's figures; its CPU is reported apart
                gen = Measure.of(() -> g.fill(data, 0));
            }
            // One pool for every round, as a process saving many checkpoints keeps it (the plain side's
            // bytes are in memory once too); -Dbench.freshPool=true maps a new pool per save instead.
            BufferPool pool = new BufferPool(buffers, part);
            StreamingCheckpoint.Builder b = StreamingCheckpoint.builder().chunkSize(part).buffers(buffers)
                    .writersInFlight(inFlight).resetPeakRss(true).backend(backend).backendOptions(settings).spec(spec)
                    .storage(storage);
            if (backend.equals("aws")) {
                b.backendOptions(AwsOptions.overriding(o -> o.addExecutionInterceptor(
                        new PlainUpload.FirstPartHeaders("streaming"))));
            }
            boolean freshPool = Boolean.getBoolean("bench.freshPool");
            StreamingCheckpoint ckpt = (freshPool ? b : b.bufferPool(pool)).build();
            String streamingKey = "bench/" + backend + "-streaming.bin";
            String plainKey = "bench/" + backend + "-plain.bin";
            String driverKey = "bench/" + backend + "-driver.bin";
            // warm-ups (class loading, JIT, connections; the pool's buffers touched once as the plain
            // side's bytes were), not counted
            if (a.streaming()) {
                ckpt.save("s3://" + bucket + "/" + streamingKey, Math.min(size, pool.poolBytes()));
                plain.delete(bucket, streamingKey);
            }
            List<String> sides = plain.sides();
            if (a.plain()) {
                MemorySegment head = data.asSlice(0, Math.min(size, 64L << 20));
                if (plain instanceof PlainUpload.Minio m) {
                    m.hold(head, part);
                }
                for (int i = 0; i < sides.size(); i++) {
                    plain.upload(i, bucket, plainKey, head, part, inFlight);
                    plain.delete(bucket, plainKey);
                }
            }
            if (plain instanceof PlainUpload.Minio m) {
                m.hold(data, part); // before the first measured upload
            }
            System.err.println(freshPool ? "streaming: a new buffer pool per save"
                    : "streaming: one buffer pool for every round");
            double[][][] plainRuns = new double[sides.size()][rounds][];
            double[][] oursRuns = new double[rounds][];
            double[][] driverRuns = new double[rounds][];
            StorageOptions driverOptions = StorageOptions.empty().with(settings);
            for (int r = 0; r < rounds; r++) {
                List<Measure.Run> order = new ArrayList<>();
                for (int i = 0; i < sides.size(); i++) {
                    int side = i;
                    int round = r;
                    order.add(() -> {
                        if (a.plain()) {
                            plainRuns[side][round] = Measure.of(() -> plain.upload(side, bucket, plainKey, data, part,
                                    inFlight));
                            System.err.printf(Locale.ROOT, "  %s: %.2f s %.2f CPU s%n", sides.get(side),
                                    plainRuns[side][round][0], plainRuns[side][round][1]);
                            plain.delete(bucket, plainKey);
                        } else {
                            plainRuns[side][round] = new double[] {Double.NaN, Double.NaN};
                        }
                    });
                }
                int round = r;
                order.add(() -> {
                    if (!a.streaming()) {
                        oursRuns[round] = new double[] {Double.NaN, Double.NaN};
                        return;
                    }
                    SaveResult[] saved = new SaveResult[1];
                    oursRuns[round] = Measure.of(() -> saved[0] = ckpt.save("s3://" + bucket + "/" + streamingKey,
                            size));
                    SaveResult s = saved[0];
                    if (s.totalBytes() != size) {
                        throw new IllegalStateException("saved " + s.totalBytes());
                    }
                    System.err.printf(Locale.ROOT, "  streaming: total %.2f s = generation %.3f s, I/O %.2f s (in "
                            + "flight), commit %.3f s; peak RSS %d MiB; %.2f CPU s%n", s.totalSeconds(),
                            s.generationSeconds(), s.ioSeconds(), s.closeSeconds(), s.peakRssBytes() >> 20,
                            oursRuns[round][1]);
                    plain.delete(bucket, streamingKey);
                });
                if (a.driver()) {
                    driverRuns[r] = Measure.of(() -> driverUpload(storage, backend, "s3://" + bucket + "/" + driverKey,
                            data, part, inFlight, driverOptions));
                    plain.delete(bucket, driverKey);
                }
                // alternate which goes first: the server's disk is still busy with the previous run
                if (r % 2 == 1) {
                    java.util.Collections.reverse(order);
                }
                for (Measure.Run run : order) {
                    run.run();
                }
                if (!a.plain() || !a.streaming()) {
                    // one side alone: give the server's disk the time the other side would have taken
                    Thread.sleep(2000);
                }
            }
            pool.close();
            double gib = size / (double) (1L << 30);
            double mib = size >> 20;
            System.out.printf(Locale.ROOT, "%s: object %d MiB, parts of %d MiB, %d in flight, %d rounds (medians)%n",
                    backend, size >> 20, part >> 20, inFlight, rounds);
            System.out.printf(Locale.ROOT, "%-36s %9s %9s %14s%n", "", "elapsed s", "MiB/s", "CPU s per GiB");
            double[][] p = new double[sides.size()][];
            for (int i = 0; i < sides.size(); i++) {
                p[i] = Measure.median(plainRuns[i]);
                row(sides.get(i), p[i], mib, gib);
            }
            double[] o = Measure.median(oursRuns);
            row("dgen4j streaming save (" + backend + ")", o, mib, gib);
            if (a.driver()) {
                row(backend + " backend writer (mem)", Measure.median(driverRuns), mib, gib);
            }
            System.out.printf(Locale.ROOT, "%-36s %9.2f %9s %14.2f%n", "(generation alone, in memory)", gen[0], "",
                    gen[1] / gib);
            for (int i = 0; i < sides.size(); i++) {
                String vs = sides.size() == 1 ? "plain" : sides.get(i).replace("(mem) ", "");
                System.out.printf(Locale.ROOT, "throughput ratio (streaming / %s): %.3f%n", vs, p[i][0] / o[0]);
                System.out.printf(Locale.ROOT, "client CPU ratio (streaming / %s): %.3f%n", vs, o[1] / p[i][1]);
            }
            for (int r = 0; r < rounds; r++) {
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "round %d:", r + 1));
                for (int i = 0; i < sides.size(); i++) {
                    line.append(String.format(Locale.ROOT, " %s %.2f s %.2f CPU s;",
                            sides.size() == 1 ? "plain" : sides.get(i).replace("(mem) ", ""), plainRuns[i][r][0],
                            plainRuns[i][r][1]));
                }
                line.append(String.format(Locale.ROOT, " streaming %.2f s %.2f CPU s", oursRuns[r][0], oursRuns[r][1]));
                System.out.println(line);
            }
            return a.streaming() ? o : null;
        }
    }

    private static void row(String what, double[] median, double mib, double gib) {
        System.out.printf(Locale.ROOT, "%-36s %9.2f %9.1f %14.2f%n", what, median[0], mib / median[0], median[1] / gib);
    }

    /**
     * The backend's writer (the driver: pool, balancer, statistics, HEAD checks) fed the
     * pre-generated parts from {@code inFlight} threads, without the checkpoint pipeline: what the
     * backend costs apart from generation and the buffer pool.
     */
    private static void driverUpload(Storage storage, String backend, String target, MemorySegment data, long part,
                                     int inFlight, StorageOptions options) throws Exception {
        StorageTarget t = StorageTarget.parse(target);
        StorageProvider p = storage.named(backend).orElseThrow();
        int parts = (int) ((data.byteSize() + part - 1) / part);
        try (StorageWriter w = p.openWriter(new WriteRequest(t, data.byteSize(), part, Map.of(), inFlight, options))) {
            AtomicInteger next = new AtomicInteger();
            List<CompletableFuture<Void>> writers = new ArrayList<>();
            for (int i = 0; i < inFlight; i++) {
                writers.add(CompletableFuture.runAsync(() -> {
                    for (int n = next.getAndIncrement(); n < parts; n = next.getAndIncrement()) {
                        long off = n * part;
                        try {
                            w.write(off, data.asSlice(off, Math.min(part, data.byteSize() - off)));
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    }
                }, r -> Thread.ofPlatform().start(r)));
            }
            CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).join();
            w.commit();
        }
    }
}
