package io.dgen4j.cli;

import io.dgen4j.cli.s3.TransportFactories;
import io.dgen4j.s3.EndpointSet;
import io.dgen4j.s3.RangedReader;
import io.dgen4j.s3.S3Endpoints;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Measures, in a JVM of its own (nothing else on its heap), the heap each endpoint of a set takes
 * once in use: a pool over the endpoints of a file, each endpoint given one ranged GET of an object
 * (its transport made, its connection open, its figures kept), the heap measured after full GCs
 * while the pool is open. Prints {@code heap-per-endpoint-kib <value> endpoints <n>}. Run by
 * {@link ThousandEndpointsCliTest}.
 */
public final class EndpointHeapProbe {
    private EndpointHeapProbe() {}

    /**
     * @param args backend, endpoint file (one URI a line), {@code s3://bucket/key} of an object of at
     *             least 4 KiB per endpoint; credentials from the environment's AWS variables
     */
    public static void main(String[] args) throws Exception {
        String backend = args[0];
        List<URI> endpoints = Files.readAllLines(Path.of(args[1])).stream().filter(l -> !l.isBlank()
                && !l.startsWith("#")).map(URI::create).toList();
        S3Location where = S3Location.parse(args[2]);
        S3Settings set = S3Settings.builder().credentials(System.getenv("AWS_ACCESS_KEY_ID"),
                System.getenv("AWS_SECRET_ACCESS_KEY"), null).region("us-east-1").endpoint(endpoints.getFirst())
                .endpointSet(EndpointSet.builder().endpoints(endpoints).build()).build();
        int n = endpoints.size();
        long before = heapAfterGc();
        try (S3Endpoints pool = S3Endpoints.open(TransportFactories.choose(backend), set);
             RangedReader r = RangedReader.open(pool, where);
             Arena arena = Arena.ofShared()) {
            MemorySegment page = arena.allocate(4096);
            for (int i = 0; i < n; i++) {
                if (r.read(i * 4096L, page) != 4096) {
                    throw new IllegalStateException("short read at " + i * 4096L);
                }
            }
            long used = r.endpointStatistics().stream().filter(e -> e.requests() > 0).count();
            if (used != n) {
                throw new IllegalStateException(used + " of " + n + " endpoints took a request");
            }
            double kib = (heapAfterGc() - before) / 1024.0 / n;
            System.out.printf(Locale.ROOT, "heap-per-endpoint-kib %.1f endpoints %d%n", kib, n);
        }
        System.exit(0); // the clients' threads are daemons, but do not wait for their pools to drain
    }

    private static long heapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
