package io.dgen4j.aws;

import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.gen.Generator;
import io.dgen4j.s3.S3Settings;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * A measurement, not a test: the streaming save through the aws backend against a plain SDK
 * multipart upload of the same bytes generated in memory beforehand, to one server, with the same
 * part size and parts in flight. Prints elapsed and client CPU seconds per GiB (this process's CPU
 * time) and their ratios. Run by scripts/bench-s3-aws.sh.
 *
 * <p>Arguments: endpoint bucket accessKey secretKey [sizeMiB=512] [partMiB=32] [inFlight=4] [rounds=2]
 * [sides=both|plain|streaming] (one side alone: to profile it, e.g. with JFR)
 */
public final class SaveVsPlainUpload {
    private SaveVsPlainUpload() {}

    public static void main(String[] args) throws Exception {
        URI endpoint = URI.create(args[0]);
        String bucket = args[1];
        String key = args[2];
        String secret = args[3];
        long size = (args.length > 4 ? Long.parseLong(args[4]) : 512) << 20;
        long part = (args.length > 5 ? Long.parseLong(args[5]) : 32) << 20;
        int inFlight = args.length > 6 ? Integer.parseInt(args[6]) : 4;
        int rounds = args.length > 7 ? Integer.parseInt(args[7]) : 2;
        String sides = args.length > 8 ? args[8] : "both";
        boolean doPlain = !sides.equals("streaming");
        boolean doOurs = !sides.equals("plain");
        S3Settings settings = S3Settings.builder().endpoint(endpoint).credentials(key, secret, null).build();
        DataSpec spec = DataSpec.builder().size(size).seed(1).dedupRatio(1).compressRatio(1).build();

        try (Arena arena = Arena.ofShared();
             S3AsyncClient plain = S3AsyncClient.builder().endpointOverride(endpoint).region(Region.US_EAST_1)
                     .forcePathStyle(true)
                     .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret)))
                     .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                     .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                     .httpClientBuilder(NettyNioAsyncHttpClient.builder().maxConcurrency(inFlight + 4)).build()) {
            MemorySegment data = arena.allocate(size, 4096);
            double[] gen;
            try (Generator g = Generator.open(spec, Generator.Kind.AUTO, 0)) {
                g.fill(data.asSlice(0, Math.min(size, 64L << 20)), 0); // warm up
                // pre-generated: not part of the plain upload's figures; its CPU is reported apart
                gen = measure(() -> g.fill(data, 0));
            }
            StreamingCheckpoint ckpt = StreamingCheckpoint.builder().chunkSize(part).buffers(inFlight + 2)
                    .writersInFlight(inFlight).backend("aws").backendOptions(settings).spec(spec).build();
            double[][] plainRuns = new double[rounds][];
            double[][] oursRuns = new double[rounds][];
            for (int r = 0; r < rounds; r++) {
                Run plainRun = () -> {
                    if (doPlain) {
                        plainUpload(plain, bucket, "bench/plain.bin", data, part, inFlight);
                    }
                };
                Run oursRun = () -> {
                    if (!doOurs) {
                        return;
                    }
                    SaveResult s = ckpt.save("s3://" + bucket + "/bench/streaming.bin", size);
                    if (s.totalBytes() != size) {
                        throw new IllegalStateException("saved " + s.totalBytes());
                    }
                    System.err.printf(Locale.ROOT, "  streaming: total %.2f s = generation %.3f s, I/O %.2f s (in flight),"
                            + " commit %.3f s; peak RSS %d MiB%n", s.totalSeconds(), s.generationSeconds(),
                            s.ioSeconds(), s.closeSeconds(), s.peakRssBytes() >> 20);
                };
                // alternate which goes first: the server's disk is still busy with the previous run
                if (r % 2 == 0) {
                    plainRuns[r] = measure(plainRun);
                    oursRuns[r] = measure(oursRun);
                } else {
                    oursRuns[r] = measure(oursRun);
                    plainRuns[r] = measure(plainRun);
                }
                if (!doPlain || !doOurs) {
                    // one side alone: give the server's disk the time the other side would have taken
                    Thread.sleep(2000);
                }
                plain.deleteObject(b -> b.bucket(bucket).key("bench/plain.bin")).join();
                plain.deleteObject(b -> b.bucket(bucket).key("bench/streaming.bin")).join();
            }
            double gib = size / (double) (1L << 30);
            System.out.printf(Locale.ROOT, "object %d MiB, parts of %d MiB, %d in flight, %d rounds (medians)%n",
                    size >> 20, part >> 20, inFlight, rounds);
            double[] p = median(plainRuns);
            double[] o = median(oursRuns);
            System.out.printf(Locale.ROOT, "%-28s %9s %9s %14s%n", "", "elapsed s", "MiB/s", "CPU s per GiB");
            System.out.printf(Locale.ROOT, "%-28s %9.2f %9.1f %14.2f%n", "plain SDK multipart (mem)", p[0],
                    (size >> 20) / p[0], p[1] / gib);
            System.out.printf(Locale.ROOT, "%-28s %9.2f %9.1f %14.2f%n", "dgen4j streaming save (aws)", o[0],
                    (size >> 20) / o[0], o[1] / gib);
            System.out.printf(Locale.ROOT, "%-28s %9.2f %9s %14.2f%n", "(generation alone, in memory)", gen[0], "",
                    gen[1] / gib);
            System.out.printf(Locale.ROOT, "throughput ratio (streaming / plain): %.3f%n", p[0] / o[0]);
            System.out.printf(Locale.ROOT, "client CPU ratio (streaming / plain): %.3f%n", o[1] / p[1]);
            for (int r = 0; r < rounds; r++) {
                System.out.printf(Locale.ROOT, "round %d: plain %.2f s %.2f CPU s; streaming %.2f s %.2f CPU s%n", r + 1,
                        plainRuns[r][0], plainRuns[r][1], oursRuns[r][0], oursRuns[r][1]);
            }
        }
        System.exit(0);
    }

    private interface Run {
        void run() throws Exception;
    }

    /** Elapsed and process CPU seconds of one run; with {@code -Dbench.threads=true}, CPU by thread group too. */
    private static double[] measure(Run run) throws Exception {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        boolean threads = Boolean.getBoolean("bench.threads");
        java.util.Map<String, Long> before = threads ? threadTicks() : null;
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        run.run();
        double[] r = {(System.nanoTime() - t0) / 1e9, (os.getProcessCpuTime() - cpu0) / 1e9};
        if (threads) {
            java.util.Map<String, Long> after = threadTicks();
            StringBuilder sb = new StringBuilder("  CPU by thread group (user+sys ticks of 10 ms):");
            after.entrySet().stream().map(e -> java.util.Map.entry(e.getKey(), e.getValue()
                            - before.getOrDefault(e.getKey(), 0L))).filter(e -> e.getValue() > 0)
                    .sorted(java.util.Map.Entry.<String, Long>comparingByValue().reversed())
                    .forEach(e -> sb.append(' ').append(e.getKey()).append('=').append(e.getValue()));
            System.err.println(sb);
        }
        return r;
    }

    /**
     * User+system clock ticks of this process's threads, summed by name without digits ({@code /proc}, Linux),
     * exited threads included in the process's totals only: a thread group that shrinks shows as less.
     */
    private static java.util.Map<String, Long> threadTicks() throws java.io.IOException {
        java.util.Map<String, Long> m = new java.util.TreeMap<>();
        try (var tasks = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/task"))) {
            for (var t : tasks.toList()) {
                try {
                    String stat = java.nio.file.Files.readString(t.resolve("stat"));
                    int open = stat.indexOf('(');
                    int close = stat.lastIndexOf(')');
                    String name = stat.substring(open + 1, close).replaceAll("[0-9]+", "#");
                    String[] f = stat.substring(close + 2).split(" ");
                    m.merge(name, Long.parseLong(f[11]) + Long.parseLong(f[12]), Long::sum);
                } catch (java.io.IOException e) {
                    // the thread exited meanwhile
                }
            }
        }
        return m;
    }

    /** Median elapsed and median CPU seconds, each taken apart. */
    private static double[] median(double[][] runs) {
        double[] e = java.util.Arrays.stream(runs).mapToDouble(r -> r[0]).sorted().toArray();
        double[] c = java.util.Arrays.stream(runs).mapToDouble(r -> r[1]).sorted().toArray();
        return new double[] {mid(e), mid(c)};
    }

    private static double mid(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** What a user of the SDK alone writes: create, parts from the in-memory data, complete. */
    private static void plainUpload(S3AsyncClient s3, String bucket, String key, MemorySegment data, long part,
                                    int inFlight) throws Exception {
        String id = s3.createMultipartUpload(b -> b.bucket(bucket).key(key)).join().uploadId();
        int parts = (int) ((data.byteSize() + part - 1) / part);
        Semaphore slots = new Semaphore(inFlight);
        List<CompletableFuture<CompletedPart>> done = new ArrayList<>();
        for (int n = 1; n <= parts; n++) {
            slots.acquire();
            long off = (n - 1) * part;
            long len = Math.min(part, data.byteSize() - off);
            int number = n;
            done.add(s3.uploadPart(b -> b.bucket(bucket).key(key).uploadId(id).partNumber(number).contentLength(len),
                            AsyncRequestBody.fromRemainingByteBufferUnsafe(data.asSlice(off, len).asByteBuffer()))
                    .whenComplete((r, e) -> slots.release())
                    .thenApply(r -> CompletedPart.builder().partNumber(number).eTag(r.eTag()).build()));
        }
        List<CompletedPart> etags = new ArrayList<>();
        for (CompletableFuture<CompletedPart> f : done) {
            etags.add(f.join());
        }
        s3.completeMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(id).multipartUpload(u -> u.parts(etags)))
                .join();
    }
}
