package io.dgen4j.aws;

import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.s3.EndpointSet;
import io.dgen4j.s3.local.LocalS3Proxy;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.storage.EndpointStatistics;
import io.dgen4j.storage.StorageTarget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A measurement, not a test: the S3 driver's goals of issue 10, side by side in one run against two
 * s3proxy gateways over one directory (one store), started here on 127.0.0.1.
 * <ol>
 * <li>Balancing overhead: a save through an endpoint set of one endpoint against the same save
 *     with the endpoint given alone (goal: ratio of throughputs ≥ 0.97).
 * <li>Failover: a save over both gateways (round-robin) with gateway 1 killed once a quarter is
 *     written, against the same save undisturbed (goal ≥ 0.5); the failed-over object is loaded
 *     back with verification (zero lost or corrupted bytes).
 * </ol>
 * A set naming gateway 0 twice is measured too: the driver's path over two endpoints on one server,
 * to tell the driver's cost from that of a second server sharing the machine.
 * Run by scripts/bench-s3-endpoints.sh. Arguments: s3proxyJar [sizeMiB=256] [partMiB=8] [inFlight=4] [rounds=3]
 */
public final class EndpointsBench {
    private static final String KEY = "benchkey";
    private static final String SECRET = "benchsecret-not-printed";

    private EndpointsBench() {}

    public static void main(String[] args) throws Exception {
        Path jar = Path.of(args[0]);
        long size = (args.length > 1 ? Long.parseLong(args[1]) : 256) << 20;
        long part = (args.length > 2 ? Long.parseLong(args[2]) : 8) << 20;
        int inFlight = args.length > 3 ? Integer.parseInt(args[3]) : 4;
        int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 3;
        Path dir = Files.createTempDirectory("dgen4j-bench-endpoints-");
        LocalS3Proxy[] gw = new LocalS3Proxy[2];
        try {
            gw[0] = LocalS3Proxy.start(jar, dir, KEY, SECRET, 0);
            gw[1] = LocalS3Proxy.start(jar, dir, KEY, SECRET, 0);
            String bucket = gw[0].createBucket("bench");
            S3Settings single = S3Settings.builder().endpoint(gw[0].endpoint()).credentials(KEY, SECRET, null)
                    .region(S3Settings.DEFAULT_REGION).partSize(part).build();
            S3Settings setOfOne = single.toBuilder().endpointSet(EndpointSet.of(gw[0].endpoint())).build();
            S3Settings both = single.toBuilder().endpointSet(EndpointSet.builder().endpoint(gw[0].endpoint())
                    .endpoint(gw[1].endpoint()).strategy(EndpointSet.Strategy.ROUND_ROBIN).build()).build();
            // the driver's two-endpoint path on one server: tells its cost from a second server's
            S3Settings twiceOne = single.toBuilder().endpointSet(EndpointSet.builder().endpoint(gw[0].endpoint())
                    .endpoint(gw[0].endpoint()).strategy(EndpointSet.Strategy.ROUND_ROBIN).build()).build();
            DataSpec spec = DataSpec.builder().size(size).seed(1).dedupRatio(1).compressRatio(1).build();
            String target = "s3://" + bucket + "/bench/endpoints.bin";
            System.err.printf(Locale.ROOT, "gateways %s and %s over %s%n", gw[0].endpoint(), gw[1].endpoint(), dir);

            double[] plain = new double[rounds];
            double[] one = new double[rounds];
            double[] twice = new double[rounds];
            double[] calm = new double[rounds];
            double[] hit = new double[rounds];
            save(single, spec, part, inFlight, target, size, null); // warm-up (JIT, clients)
            save(both, spec, part, inFlight, target, size, null);
            for (int r = 0; r < rounds; r++) {
                // alternate which goes first: the server's disk is still busy with the previous run
                if (r % 2 == 0) {
                    plain[r] = save(single, spec, part, inFlight, target, size, null).totalSeconds();
                    one[r] = save(setOfOne, spec, part, inFlight, target, size, null).totalSeconds();
                } else {
                    one[r] = save(setOfOne, spec, part, inFlight, target, size, null).totalSeconds();
                    plain[r] = save(single, spec, part, inFlight, target, size, null).totalSeconds();
                }
                twice[r] = save(twiceOne, spec, part, inFlight, target, size, null).totalSeconds();
                calm[r] = save(both, spec, part, inFlight, target, size, null).totalSeconds();
                AtomicBoolean killed = new AtomicBoolean();
                SaveResult s = save(both, spec, part, inFlight, target, size, done -> {
                    if (done >= size / 4 && killed.compareAndSet(false, true)) {
                        try {
                            gw[1].kill();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                });
                hit[r] = s.totalSeconds();
                EndpointStatistics dead = s.endpoints().get(1);
                LoadResult back = checkpoint(both, spec, part, inFlight, null).load(target, true);
                if (!killed.get() || !back.verified() || back.totalBytes() != size || dead.markedDown() < 1) {
                    throw new IllegalStateException("the failover run did not fail over, or its object did not "
                            + "verify: " + s.endpoints() + " / " + back);
                }
                System.err.printf(Locale.ROOT, "  round %d: failover save %.2f s (gateway 1: %d requests, %d errors, "
                        + "marked down %d times; gateway 0: %d MiB, gateway 1: %d MiB); load --verify %.2f s: OK%n",
                        r + 1, hit[r], dead.requests(), dead.errors(), dead.markedDown(),
                        s.endpoints().get(0).bytes() >> 20, dead.bytes() >> 20, back.totalSeconds());
                gw[1] = gw[1].restart();
                Thread.sleep(11_000); // past the longest back-off: the next save probes gateway 1 and uses it again
            }
            checkpoint(single, spec, part, inFlight, null).delete(StorageTarget.parse(target));
            double mib = size >> 20;
            System.out.printf(Locale.ROOT, "object %d MiB, parts of %d MiB, %d in flight, %d rounds (medians)%n",
                    size >> 20, part >> 20, inFlight, rounds);
            System.out.printf(Locale.ROOT, "%-44s %9s %9s%n", "", "elapsed s", "MiB/s");
            row("one endpoint, given alone", median(plain), mib);
            row("one endpoint in an endpoint set", median(one), mib);
            row("gateway 0 twice in a set, round-robin", median(twice), mib);
            row("two gateways, round-robin, undisturbed", median(calm), mib);
            row("two gateways, gateway 1 killed at 25 %", median(hit), mib);
            System.out.printf(Locale.ROOT, "balancing overhead: set of one / alone = %.3f (goal >= 0.97)%n",
                    median(plain) / median(one));
            System.out.printf(Locale.ROOT, "failover: killed mid-save / undisturbed = %.3f (goal >= 0.5)%n",
                    median(calm) / median(hit));
            for (int r = 0; r < rounds; r++) {
                System.out.printf(Locale.ROOT, "round %d: alone %.2f s, set of one %.2f s, gateway 0 twice %.2f s, two "
                        + "%.2f s, killed %.2f s%n", r + 1, plain[r], one[r], twice[r], calm[r], hit[r]);
            }
        } finally {
            for (LocalS3Proxy g : gw) {
                if (g != null) {
                    g.kill();
                }
            }
            LocalS3Proxy.deleteTree(dir);
        }
        System.exit(0);
    }

    private static StreamingCheckpoint checkpoint(S3Settings s, DataSpec spec, long part, int inFlight,
                                                  java.util.function.LongConsumer progress) {
        StreamingCheckpoint.Builder b = StreamingCheckpoint.builder().chunkSize(part).buffers(inFlight + 2)
                .writersInFlight(inFlight).readersInFlight(inFlight).backend("aws").backendOptions(s).spec(spec);
        return progress == null ? b.build() : b.progress(progress).build();
    }

    private static SaveResult save(S3Settings s, DataSpec spec, long part, int inFlight, String target, long size,
                                   java.util.function.LongConsumer progress) throws Exception {
        SaveResult r = checkpoint(s, spec, part, inFlight, progress).save(target, size);
        if (r.totalBytes() != size) {
            throw new IllegalStateException("saved " + r.totalBytes());
        }
        return r;
    }

    private static void row(String what, double seconds, double mib) {
        System.out.printf(Locale.ROOT, "%-44s %9.2f %9.1f%n", what, seconds, mib / seconds);
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }
}
