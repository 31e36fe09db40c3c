package io.dgen4j.bench;

import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.s3.EndpointSet;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.local.LocalS3Proxy;
import io.dgen4j.storage.EndpointStatistics;
import io.dgen4j.storage.StorageTarget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code ./dgen4j bench s3 --endpoints}: the S3 driver's goals of issue 10, side by side in one run
 * through one backend against two s3proxy gateways over one directory (one store), started here on
 * 127.0.0.1.
 * <ol>
 * <li>Balancing overhead: a save through an endpoint set of one endpoint against the same save
 *     with the endpoint given alone (goal: ratio of throughputs ≥ 0.97).
 * <li>Failover: a save over both gateways (round-robin) with gateway 1 killed once a quarter is
 *     written, against the same save undisturbed (goal ≥ 0.5); the failed-over object is loaded
 *     back with verification (zero lost or corrupted bytes).
 * </ol>
 * A set naming gateway 0 twice is measured too: the driver's path over two endpoints on one server,
 * to tell the driver's cost from that of a second server sharing the machine.
 */
final class S3EndpointsBench {
    private static final String KEY = "benchkey";
    private static final String SECRET = "benchsecret-not-printed";

    private S3EndpointsBench() {}

    /** Runs the measurement through {@code backend} and prints its table. */
    static void run(String backend, Path jar, long size, long part, int inFlight, int rounds) throws Exception {
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
            // the driver's two-endpoint path on one server: tells its cost from a second server's (a set
            // refuses one endpoint named twice, so the second is gateway 0 by the name localhost)
            S3Settings twiceOne = single.toBuilder().endpointSet(EndpointSet.builder().endpoint(gw[0].endpoint())
                    .endpoint(java.net.URI.create("http://localhost:" + gw[0].endpoint().getPort()))
                    .strategy(EndpointSet.Strategy.ROUND_ROBIN).build()).build();
            DataSpec spec = DataSpec.builder().size(size).seed(1).dedupRatio(1).compressRatio(1).build();
            String target = "s3://" + bucket + "/bench/endpoints.bin";
            System.err.printf(Locale.ROOT, "gateways %s and %s over %s%n", gw[0].endpoint(), gw[1].endpoint(), dir);

            double[] plain = new double[rounds];
            double[] one = new double[rounds];
            double[] twice = new double[rounds];
            double[] calm = new double[rounds];
            double[] hit = new double[rounds];
            save(backend, single, spec, part, inFlight, target, size, null); // warm-up (JIT, clients)
            save(backend, both, spec, part, inFlight, target, size, null);
            for (int r = 0; r < rounds; r++) {
                // alternate which goes first: the server's disk is still busy with the previous run
                if (r % 2 == 0) {
                    plain[r] = save(backend, single, spec, part, inFlight, target, size, null).totalSeconds();
                    one[r] = save(backend, setOfOne, spec, part, inFlight, target, size, null).totalSeconds();
                } else {
                    one[r] = save(backend, setOfOne, spec, part, inFlight, target, size, null).totalSeconds();
                    plain[r] = save(backend, single, spec, part, inFlight, target, size, null).totalSeconds();
                }
                twice[r] = save(backend, twiceOne, spec, part, inFlight, target, size, null).totalSeconds();
                calm[r] = save(backend, both, spec, part, inFlight, target, size, null).totalSeconds();
                AtomicBoolean killed = new AtomicBoolean();
                SaveResult s = save(backend, both, spec, part, inFlight, target, size, done -> {
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
                LoadResult back = checkpoint(backend, both, spec, part, inFlight, null).load(target, true);
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
            checkpoint(backend, single, spec, part, inFlight, null).delete(StorageTarget.parse(target));
            double mib = size >> 20;
            System.out.printf(Locale.ROOT, "%s: object %d MiB, parts of %d MiB, %d in flight, %d rounds (medians)%n",
                    backend, size >> 20, part >> 20, inFlight, rounds);
            System.out.printf(Locale.ROOT, "%-44s %9s %9s%n", "", "elapsed s", "MiB/s");
            row("one endpoint, given alone", Measure.median(plain), mib);
            row("one endpoint in an endpoint set", Measure.median(one), mib);
            row("gateway 0 twice in a set, round-robin", Measure.median(twice), mib);
            row("two gateways, round-robin, undisturbed", Measure.median(calm), mib);
            row("two gateways, gateway 1 killed at 25 %", Measure.median(hit), mib);
            System.out.printf(Locale.ROOT, "balancing overhead: set of one / alone = %.3f (goal >= 0.97)%n",
                    Measure.median(plain) / Measure.median(one));
            System.out.printf(Locale.ROOT, "failover: killed mid-save / undisturbed = %.3f (goal >= 0.5)%n",
                    Measure.median(calm) / Measure.median(hit));
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
    }

    private static StreamingCheckpoint checkpoint(String backend, S3Settings s, DataSpec spec, long part,
                                                  int inFlight, java.util.function.LongConsumer progress) {
        StreamingCheckpoint.Builder b = StreamingCheckpoint.builder().chunkSize(part).buffers(inFlight + 2)
                .writersInFlight(inFlight).readersInFlight(inFlight).backend(backend).backendOptions(s).spec(spec);
        return progress == null ? b.build() : b.progress(progress).build();
    }

    private static SaveResult save(String backend, S3Settings s, DataSpec spec, long part, int inFlight,
                                   String target, long size, java.util.function.LongConsumer progress)
            throws Exception {
        SaveResult r = checkpoint(backend, s, spec, part, inFlight, progress).save(target, size);
        if (r.totalBytes() != size) {
            throw new IllegalStateException("saved " + r.totalBytes());
        }
        return r;
    }

    private static void row(String what, double seconds, double mib) {
        System.out.printf(Locale.ROOT, "%-44s %9.2f %9.1f%n", what, seconds, mib / seconds);
    }
}
