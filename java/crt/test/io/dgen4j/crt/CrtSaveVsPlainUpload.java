package io.dgen4j.crt;

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
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * A measurement, not a test: the streaming save through the crt backend against a plain multipart
 * upload through the same CRT-based client (same settings) of the same bytes generated in memory
 * beforehand, to one server, with the same part size and parts in flight; the order alternates
 * each round. Prints elapsed and client CPU seconds per GiB (this process's CPU time, the CRT's
 * native threads included) and their ratios. Run by {@code scripts/bench-s3-crt.sh plain}.
 *
 * <p>Arguments: endpoint bucket accessKey secretKey [sizeMiB=512] [partMiB=32] [inFlight=2] [rounds=4]
 */
public final class CrtSaveVsPlainUpload {
    private CrtSaveVsPlainUpload() {}

    private interface Run {
        void run() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        URI endpoint = URI.create(args[0]);
        String bucket = args[1];
        long size = (args.length > 4 ? Long.parseLong(args[4]) : 512) << 20;
        long part = (args.length > 5 ? Long.parseLong(args[5]) : 32) << 20;
        int inFlight = args.length > 6 ? Integer.parseInt(args[6]) : 2;
        int rounds = args.length > 7 ? Integer.parseInt(args[7]) : 4;
        S3Settings settings = S3Settings.builder().endpoint(endpoint).credentials(args[2], args[3], null).build();
        DataSpec spec = DataSpec.builder().size(size).seed(1).dedupRatio(1).compressRatio(1).build();
        try (Arena arena = Arena.ofShared();
             S3AsyncClient plain = CrtClients.open(settings, inFlight, "plain upload")) {
            MemorySegment data = arena.allocate(size, 4096);
            double[] gen;
            try (Generator g = Generator.open(spec, Generator.Kind.AUTO, 0)) {
                g.fill(data.asSlice(0, Math.min(size, 64L << 20)), 0); // warm up
                gen = measure(() -> g.fill(data, 0)); // not part of the plain upload's figures
            }
            // One pool for every round (the plain side's bytes are mapped once too), touched by a warm-up save.
            io.dgen4j.checkpoint.BufferPool pool = new io.dgen4j.checkpoint.BufferPool(inFlight + 1, part);
            StreamingCheckpoint ckpt = StreamingCheckpoint.builder().chunkSize(part).buffers(inFlight + 1)
                    .writersInFlight(inFlight).backend("crt").backendOptions(settings).spec(spec).bufferPool(pool)
                    .build();
            ckpt.save("s3://" + bucket + "/bench/warmup.bin", Math.min(size, pool.poolBytes()));
            ckpt.delete(io.dgen4j.storage.StorageTarget.parse("s3://" + bucket + "/bench/warmup.bin"));
            double[][] plainRuns = new double[rounds][];
            double[][] oursRuns = new double[rounds][];
            for (int r = 0; r < rounds; r++) {
                Run plainRun = () -> plainUpload(plain, bucket, "bench/plain.bin", data, part, inFlight);
                Run oursRun = () -> {
                    SaveResult s = ckpt.save("s3://" + bucket + "/bench/streaming.bin", size);
                    if (s.totalBytes() != size) {
                        throw new IllegalStateException("saved " + s.totalBytes());
                    }
                };
                // alternate which goes first: the server's disk is still busy with the previous run
                if (r % 2 == 0) {
                    plainRuns[r] = measure(plainRun);
                    oursRuns[r] = measure(oursRun);
                } else {
                    oursRuns[r] = measure(oursRun);
                    plainRuns[r] = measure(plainRun);
                }
                plain.deleteObject(b -> b.bucket(bucket).key("bench/plain.bin")).join();
                plain.deleteObject(b -> b.bucket(bucket).key("bench/streaming.bin")).join();
            }
            double gib = size / (double) (1L << 30);
            double[] p = median(plainRuns);
            double[] o = median(oursRuns);
            System.out.printf(Locale.ROOT, "object %d MiB, parts of %d MiB, %d in flight, %d rounds (medians)%n",
                    size >> 20, part >> 20, inFlight, rounds);
            System.out.printf(Locale.ROOT, "%-30s %9s %9s %14s%n", "", "elapsed s", "MiB/s", "CPU s per GiB");
            System.out.printf(Locale.ROOT, "%-30s %9.2f %9.1f %14.2f%n", "plain CRT multipart (memory)", p[0],
                    (size >> 20) / p[0], p[1] / gib);
            System.out.printf(Locale.ROOT, "%-30s %9.2f %9.1f %14.2f%n", "dgen4j streaming save (crt)", o[0],
                    (size >> 20) / o[0], o[1] / gib);
            System.out.printf(Locale.ROOT, "%-30s %9.2f %9s %14.2f%n", "(generation alone, in memory)", gen[0], "",
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

    /** Elapsed and process CPU seconds of one run. */
    private static double[] measure(Run run) throws Exception {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        run.run();
        return new double[] {(System.nanoTime() - t0) / 1e9, (os.getProcessCpuTime() - cpu0) / 1e9};
    }

    private static double[] median(double[][] runs) {
        return new double[] {mid(Arrays.stream(runs).mapToDouble(r -> r[0]).sorted().toArray()),
            mid(Arrays.stream(runs).mapToDouble(r -> r[1]).sorted().toArray())};
    }

    private static double mid(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** What a user of the CRT client alone writes: create, parts from the in-memory data, complete. */
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
