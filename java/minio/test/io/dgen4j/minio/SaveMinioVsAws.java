package io.dgen4j.minio;

import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.s3.S3Settings;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.Arrays;
import java.util.Locale;

/**
 * A measurement, not a test: the same streaming save through the {@code minio} and the {@code aws}
 * backends to one server, alternating which goes first each round. Prints elapsed and client CPU
 * seconds per GiB (this process's CPU time, generation included for both) as medians and ratios,
 * and the minio writer's copy and CRC32C times. Run by scripts/bench-s3-minio.sh.
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
        String[] backends = {"minio", "aws"};
        double[][][] runs = new double[2][rounds][];
        // one warm-up save each (class loading, JIT, connections), not counted
        for (String b : backends) {
            save(b, settings, spec, bucket, Math.min(size, 64L << 20), part, inFlight);
        }
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < 2; i++) {
                int which = (r % 2 == 0) ? i : 1 - i; // alternate the order: the server's disk lags
                runs[which][r] = save(backends[which], settings, spec, bucket, size, part, inFlight);
            }
        }
        double gib = size / (double) (1L << 30);
        System.out.printf(Locale.ROOT, "object %d MiB, parts of %d MiB, %d in flight, %d rounds (medians)%n",
                size >> 20, part >> 20, inFlight, rounds);
        System.out.printf(Locale.ROOT, "%-26s %9s %9s %14s%n", "", "elapsed s", "MiB/s", "CPU s per GiB");
        double[][] med = new double[2][];
        for (int i = 0; i < 2; i++) {
            med[i] = median(runs[i]);
            System.out.printf(Locale.ROOT, "%-26s %9.2f %9.1f %14.2f%n", "streaming save (" + backends[i] + ")",
                    med[i][0], (size >> 20) / med[i][0], med[i][1] / gib);
        }
        System.out.printf(Locale.ROOT, "throughput ratio (minio / aws): %.3f%n", med[1][0] / med[0][0]);
        System.out.printf(Locale.ROOT, "client CPU ratio (minio / aws): %.3f%n", med[0][1] / med[1][1]);
        for (int r = 0; r < rounds; r++) {
            System.out.printf(Locale.ROOT, "round %d: minio %.2f s %.2f CPU s; aws %.2f s %.2f CPU s%n", r + 1,
                    runs[0][r][0], runs[0][r][1], runs[1][r][0], runs[1][r][1]);
        }
        System.exit(0);
    }

    /** One streaming save: elapsed and process CPU seconds. */
    private static double[] save(String backend, S3Settings settings, DataSpec spec, String bucket, long size,
                                 long part, int inFlight) throws Exception {
        StreamingCheckpoint ckpt = StreamingCheckpoint.builder().chunkSize(part).buffers(inFlight + 2)
                .writersInFlight(inFlight).backend(backend).backendOptions(settings).spec(spec).build();
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        SaveResult s = ckpt.save("s3://" + bucket + "/bench/" + backend + ".bin", size);
        double[] m = {(System.nanoTime() - t0) / 1e9, (os.getProcessCpuTime() - cpu0) / 1e9};
        if (s.totalBytes() != size) {
            throw new IllegalStateException("saved " + s.totalBytes());
        }
        System.err.printf(Locale.ROOT, "  %-5s %7.2f s %6.2f CPU s, peak RSS %d MiB: %s%n", backend, m[0], m[1],
                s.peakRssBytes() >> 20, s.backend());
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
