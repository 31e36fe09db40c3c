package io.dgen4j.minio;

import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.gen.Generator;
import io.minio.CompleteMultipartUploadArgs;
import io.minio.CreateMultipartUploadArgs;
import io.minio.Http;
import io.minio.MinioAsyncClient;
import io.minio.RemoveObjectArgs;
import io.minio.UploadPartArgs;
import io.minio.messages.Part;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.zip.CRC32C;
import io.dgen4j.s3.S3Settings;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.Arrays;
import java.util.Locale;

/**
 * A measurement, not a test: the same streaming save through the {@code minio} and the {@code aws}
 * backends to one server, alternating which goes first each round. Prints elapsed and client CPU
 * seconds per GiB (this process's CPU time, generation included for both) as medians and ratios,
 * and the minio transport's copy and CRC32C times; and, as the baseline of the minio client itself, a
 * plain MinIO multipart upload of the same bytes held in {@code byte[]} parts beforehand, both with
 * MinIO's default hashing (a SHA-256 of every part over http) and with the headers the backend sends
 * (unsigned payload + CRC32C). Run by scripts/bench-s3-minio.sh.
 *
 * <p>Arguments: endpoint bucket accessKey secretKey [sizeMiB=512] [partMiB=32] [inFlight=4] [rounds=3]
 */
public final class SaveMinioVsAws {
    private SaveMinioVsAws() {}

    public static void main(String[] args) throws Exception {
        URI endpoint = URI.create(args[0]);
        String bucket = args[1];
        long size = (args.length > 4 ? Long.parseLong(args[4]) : 512) << 20;
        long part = (args.length > 5 ? Long.parseLong(args[5]) : 32) << 20;
        int inFlight = args.length > 6 ? Integer.parseInt(args[6]) : 4;
        int rounds = args.length > 7 ? Integer.parseInt(args[7]) : 3;
        S3Settings settings = S3Settings.builder().endpoint(endpoint).credentials(args[2], args[3], null).build();
        DataSpec spec = DataSpec.builder().size(size).seed(1).dedupRatio(1).compressRatio(1).build();
        String[] backends = {"minio", "aws", "plain-minio-default", "plain-minio-crc"};
        int kinds = backends.length;
        double[][][] runs = new double[kinds][rounds][];
        byte[][] parts = pregenerate(spec, size, part);
        MinioAsyncClient plain = MinioAsyncClient.builder().endpoint(endpoint.toString()).region("us-east-1")
                .credentials(args[2], args[3]).httpClient(new okhttp3.OkHttpClient.Builder()
                        .dispatcher(dispatcher(inFlight + 4)).build()).build();
        plain.disableVirtualStyleEndpoint();
        // one warm-up save each (class loading, JIT, connections), not counted
        for (int i = 0; i < kinds; i++) {
            run(i, backends, settings, spec, bucket, Math.min(size, 64L << 20), part, inFlight, plain,
                    Arrays.copyOf(parts, (int) Math.min(parts.length, (64L << 20) / part)));
        }
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < kinds; i++) {
                int which = (r % 2 == 0) ? i : kinds - 1 - i; // alternate the order: the server's disk lags
                runs[which][r] = run(which, backends, settings, spec, bucket, size, part, inFlight, plain, parts);
            }
        }
        double gib = size / (double) (1L << 30);
        System.out.printf(Locale.ROOT, "object %d MiB, parts of %d MiB, %d in flight, %d rounds (medians)%n",
                size >> 20, part >> 20, inFlight, rounds);
        System.out.printf(Locale.ROOT, "%-36s %9s %9s %14s%n", "", "elapsed s", "MiB/s", "CPU s per GiB");
        double[][] med = new double[kinds][];
        for (int i = 0; i < kinds; i++) {
            med[i] = median(runs[i]);
            System.out.printf(Locale.ROOT, "%-36s %9.2f %9.1f %14.2f%n", (i < 2 ? "streaming save (" : "(mem) ")
                    + backends[i] + (i < 2 ? ")" : ""), med[i][0], (size >> 20) / med[i][0], med[i][1] / gib);
        }
        System.out.printf(Locale.ROOT, "throughput ratio (minio / aws): %.3f%n", med[1][0] / med[0][0]);
        System.out.printf(Locale.ROOT, "client CPU ratio (minio / aws): %.3f%n", med[0][1] / med[1][1]);
        System.out.printf(Locale.ROOT, "throughput ratio (minio streaming / plain minio, default hashing): %.3f%n",
                med[2][0] / med[0][0]);
        System.out.printf(Locale.ROOT, "throughput ratio (minio streaming / plain minio, same headers): %.3f%n",
                med[3][0] / med[0][0]);
        for (int r = 0; r < rounds; r++) {
            StringBuilder line = new StringBuilder("round " + (r + 1) + ":");
            for (int i = 0; i < kinds; i++) {
                line.append(String.format(Locale.ROOT, " %s %.2f s %.2f CPU s;", backends[i], runs[i][r][0],
                        runs[i][r][1]));
            }
            System.out.println(line);
        }
        System.exit(0);
    }

    private static double[] run(int which, String[] names, S3Settings settings, DataSpec spec, String bucket,
                                long size, long part, int inFlight, MinioAsyncClient plain, byte[][] parts)
            throws Exception {
        if (which < 2) {
            return save(names[which], settings, spec, bucket, size, part, inFlight);
        }
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        plainUpload(plain, bucket, "bench/plain.bin", parts, inFlight, which == 3);
        double[] m = {(System.nanoTime() - t0) / 1e9, (os.getProcessCpuTime() - cpu0) / 1e9};
        System.err.printf(Locale.ROOT, "  %-5s %7.2f s %6.2f CPU s%n", names[which], m[0], m[1]);
        plain.removeObject(RemoveObjectArgs.builder().bucket(bucket).object("bench/plain.bin").build()).join();
        return m;
    }

    private static okhttp3.Dispatcher dispatcher(int n) {
        okhttp3.Dispatcher d = new okhttp3.Dispatcher();
        d.setMaxRequests(n);
        d.setMaxRequestsPerHost(n);
        return d;
    }

    /** The object's bytes in heap parts, generated beforehand (not measured). */
    private static byte[][] pregenerate(DataSpec spec, long size, long part) {
        int n = (int) ((size + part - 1) / part);
        byte[][] parts = new byte[n][];
        try (Arena arena = Arena.ofConfined(); Generator g = Generator.open(spec, Generator.Kind.AUTO, 0)) {
            MemorySegment seg = arena.allocate(part, 4096);
            for (int i = 0; i < n; i++) {
                long len = Math.min(part, size - i * part);
                g.fill(seg.asSlice(0, len), i * part);
                parts[i] = seg.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE);
            }
        }
        return parts;
    }

    /** What a user of the MinIO client alone writes: create, parts from byte[] in memory, complete. */
    private static void plainUpload(MinioAsyncClient s3, String bucket, String key, byte[][] parts, int inFlight,
                                    boolean crcHeaders) throws Exception {
        String id = s3.createMultipartUpload(CreateMultipartUploadArgs.builder().bucket(bucket).object(key).build())
                .join().result().uploadId();
        Semaphore slots = new Semaphore(inFlight);
        List<CompletableFuture<Part>> done = new ArrayList<>();
        for (int i = 0; i < parts.length; i++) {
            slots.acquire();
            int number = i + 1;
            Http.Headers h = new Http.Headers();
            if (crcHeaders) {
                CRC32C crc = new CRC32C();
                crc.update(parts[i]);
                int v = (int) crc.getValue();
                h = new Http.Headers("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD", "x-amz-checksum-crc32c",
                        Base64.getEncoder().encodeToString(new byte[] {(byte) (v >>> 24), (byte) (v >>> 16),
                            (byte) (v >>> 8), (byte) v}));
            }
            done.add(s3.uploadPart(UploadPartArgs.builder().bucket(bucket).object(key).uploadId(id).partNumber(number)
                            .data(parts[i], parts[i].length).headers(h).build())
                    .whenComplete((r, e) -> slots.release())
                    .thenApply(r -> new Part(number, r.part().etag())));
        }
        List<Part> etags = new ArrayList<>();
        for (CompletableFuture<Part> f : done) {
            etags.add(f.join());
        }
        s3.completeMultipartUpload(CompleteMultipartUploadArgs.builder().bucket(bucket).object(key).uploadId(id)
                .parts(etags.toArray(Part[]::new)).build()).join();
    }

    private static io.dgen4j.checkpoint.BufferPool pool;

    /** One pool for every save of the run (the plain sides' parts are allocated once too). */
    private static synchronized io.dgen4j.checkpoint.BufferPool pool(int buffers, long part) {
        if (pool == null) {
            pool = new io.dgen4j.checkpoint.BufferPool(buffers, part);
        }
        return pool;
    }

    /** One streaming save: elapsed and process CPU seconds. */
    private static double[] save(String backend, S3Settings settings, DataSpec spec, String bucket, long size,
                                 long part, int inFlight) throws Exception {
        StreamingCheckpoint ckpt = StreamingCheckpoint.builder().chunkSize(part).buffers(inFlight + 2)
                .writersInFlight(inFlight).resetPeakRss(true).backend(backend).backendOptions(settings).spec(spec)
                .bufferPool(pool(inFlight + 2, part)).build();
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        PartCounters counters = MinioTransportFactory.counters();
        long streamed0 = counters.streamedBytes();
        long crcNanos0 = counters.crcNanos();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        SaveResult s = ckpt.save("s3://" + bucket + "/bench/" + backend + ".bin", size);
        double[] m = {(System.nanoTime() - t0) / 1e9, (os.getProcessCpuTime() - cpu0) / 1e9};
        if (s.totalBytes() != size) {
            throw new IllegalStateException("saved " + s.totalBytes());
        }
        System.err.printf(Locale.ROOT, "  %-5s %7.2f s %6.2f CPU s, peak RSS %d MiB: %s%n", backend, m[0], m[1],
                s.peakRssBytes() >> 20, s.backend());
        if (backend.equals("minio")) {
            System.err.printf(Locale.ROOT, "        streamed from segments: %d MiB, CRC32C %.3f s%n",
                    (counters.streamedBytes() - streamed0) >> 20, (counters.crcNanos() - crcNanos0) / 1e9);
        }
        ckpt.delete(io.dgen4j.storage.StorageTarget.parse("s3://" + bucket + "/bench/" + backend + ".bin"));
        return m;
    }

    private static double[] median(double[][] runs) {
        double[] e = Arrays.stream(runs).mapToDouble(r -> r[0]).sorted().toArray();
        double[] c = Arrays.stream(runs).mapToDouble(r -> r[1]).sorted().toArray();
        return new double[] {mid(e), mid(c)};
    }

    private static double mid(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
