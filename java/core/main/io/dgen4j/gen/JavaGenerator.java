package io.dgen4j.gen;

import static io.dgen4j.gen.StreamLayout.SECTOR;
import static io.dgen4j.gen.StreamLayout.T_BLOCK;
import static io.dgen4j.gen.StreamLayout.T_SEED;
import static io.dgen4j.gen.StreamLayout.T_STRIPE;
import static io.dgen4j.gen.StreamLayout.mix64;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The pure-Java twin of the native generator: the same bytes (docs/FORMAT.md), slower.
 *
 * <p>It is what {@link Generator#open(DataSpec)} falls back to when the native core cannot load,
 * and the reference the native core is tested against. Where {@code jdk.incubator.vector} is in the
 * boot layer ({@code java --add-modules jdk.incubator.vector}; the CLI adds it), stripes are computed
 * eight lanes at a time on the Vector API ({@code "java-vector"}); otherwise lane by lane in plain
 * Java ({@code "java-scalar"}): {@link #implementation()} says which, {@link #vectorStatus()} why.
 * Large fills of segments that other threads may access (shared, global and automatic arenas, heap
 * arrays) are split at 64 KiB stream boundaries over a fixed pool of daemon threads created once by
 * the constructor; a confined arena's segment is filled on the calling thread.
 */
public final class JavaGenerator implements Generator {
    /** Fills below this size run on the calling thread. */
    static final long PARALLEL_MIN = 256 << 10;
    /** Piece boundaries of a parallel fill are multiples of this stream offset. */
    static final long PIECE_ALIGN = 64 << 10;

    /** Never started: only asks whether a segment is usable from threads other than its owner. */
    private static final Thread OTHER_THREAD = new Thread(() -> { });

    /** Which stripe kernel a twin uses. */
    public enum Kernel {
        /** The Vector API where available ({@link #vectorAvailable()}), else plain Java. */
        AUTO,
        /** The Vector API; the constructor fails with {@link IllegalStateException} where it is not available. */
        VECTOR,
        /** Plain Java, lane by lane. */
        SCALAR
    }

    private final DataSpec spec;
    private final long key;
    private final int stripe;
    private final int randomBytes;
    private final StreamLayout.Dedup dedup;
    private final int threads;
    private final Kernel kernel;
    private final String implementation;
    private final ExecutorService pool;
    private volatile boolean closed;

    /** A single-threaded twin for {@code spec}. */
    public JavaGenerator(DataSpec spec) {
        this(spec, 1);
    }

    /**
     * A twin for {@code spec} whose large fills use {@code threads} threads
     * (0 = {@link Numa#defaultThreads()}: the CPUs this process may use / MPI ranks on this host).
     */
    public JavaGenerator(DataSpec spec, int threads) {
        this(spec, threads, Kernel.AUTO);
    }

    /**
     * A twin for {@code spec} with {@code threads} threads (0 = {@link Numa#defaultThreads()}) and the
     * stripe kernel {@code kernel}.
     *
     * @throws IllegalStateException when {@code kernel} is {@link Kernel#VECTOR} and the Vector API is
     *         not available ({@link #vectorStatus()} says why)
     */
    public JavaGenerator(DataSpec spec, int threads, Kernel kernel) {
        if (spec == null || kernel == null) {
            throw new IllegalArgumentException("spec and kernel must not be null");
        }
        if (threads < 0) {
            throw new IllegalArgumentException("threads must be >= 0 (0 = all CPUs), got " + threads);
        }
        this.spec = spec;
        this.key = mix64(spec.seed() ^ T_SEED);
        this.stripe = Math.min(spec.blockSize(), StreamLayout.MAX_STRIPE);
        this.randomBytes = spec.randomBytesPerSector();
        this.dedup = new StreamLayout.Dedup(key, spec.blocks(), spec.distinctBlocks());
        this.implementation = StripeKernel.of(randomBytes, kernel).name();
        this.kernel = implementation.equals("java-vector") ? Kernel.VECTOR : Kernel.SCALAR;
        this.threads = threads == 0 ? Numa.defaultThreads() : threads;
        if (this.threads > 1) {
            AtomicInteger n = new AtomicInteger();
            this.pool = Executors.newFixedThreadPool(this.threads, r -> {
                Thread t = new Thread(r, "dgen4j-java-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        } else {
            this.pool = null;
        }
    }

    /** Whether the twin runs on the Vector API in this JVM ({@link Kernel#AUTO} picks it). */
    public static boolean vectorAvailable() {
        return VectorSupport.available();
    }

    /** Why the twin is vectorized or not, e.g. {@code "Vector API, 512-bit vectors"}. */
    public static String vectorStatus() {
        return VectorSupport.reason();
    }

    /** {@code "java-vector"} or {@code "java-scalar"}: what {@link Kernel#AUTO} gives in this JVM. */
    public static String defaultImplementation() {
        return vectorAvailable() ? "java-vector" : "java-scalar";
    }

    @Override
    public DataSpec spec() {
        return spec;
    }

    @Override
    public String implementation() {
        return implementation;
    }

    @Override
    public int threads() {
        return threads;
    }

    @Override
    public void fill(MemorySegment dst, long streamOffset, long length) {
        ensureOpen();
        FillRange.check(spec, dst, streamOffset, length);
        run(dst, streamOffset, length, null);
    }

    @Override
    public long firstMismatch(MemorySegment data, long streamOffset, long length) {
        ensureOpen();
        FillRange.checkSource(spec, data, streamOffset, length);
        return run(data, streamOffset, length, new AtomicLong(Long.MAX_VALUE));
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("generator is closed");
        }
    }

    /**
     * Fills ({@code found == null}) or verifies {@code seg[0, length)} against the stream from
     * {@code streamOffset}, on the pool when large and shareable; returns the first mismatch or -1.
     * Verify pieces skip work past a mismatch another piece already found ({@code found}).
     */
    private long run(MemorySegment seg, long streamOffset, long length, AtomicLong found) {
        // A confined arena's segment may only be touched by its owner thread: work on it here.
        if (pool == null || length < PARALLEL_MIN || !seg.isAccessibleBy(OTHER_THREAD)) {
            return new StripeWalker().run(seg, streamOffset, length, found);
        }
        // Pieces cut at absolute 64 KiB stream offsets, about two per thread.
        long per = Math.max(PIECE_ALIGN, (length / (threads * 2L) + PIECE_ALIGN - 1) / PIECE_ALIGN * PIECE_ALIGN);
        List<Future<Long>> futures = new ArrayList<>();
        long pos = streamOffset;
        long end = streamOffset + length;
        // close() during the fill cancels the pieces not started: the fill then waits for the
        // running ones (so nothing writes into dst after it returns) and fails.
        boolean closedDuring = false;
        while (pos < end) {
            long cut = Math.min(end, (pos / PIECE_ALIGN) * PIECE_ALIGN + per);
            long from = pos;
            long n = cut - pos;
            MemorySegment piece = seg.asSlice(pos - streamOffset, n);
            try {
                futures.add(pool.submit(() -> new StripeWalker().run(piece, from, n, found)));
            } catch (RejectedExecutionException e) {
                closedDuring = true;
                break;
            }
            pos = cut;
        }
        long first = -1;
        try {
            for (Future<Long> f : futures) {
                try {
                    long m = f.get();
                    if (m >= 0 && (first < 0 || m < first)) {
                        first = m;
                    }
                } catch (CancellationException e) {
                    closedDuring = true;
                }
            }
            if (closedDuring) {
                throw new IllegalStateException("generator was closed during the " + (found == null ? "fill" : "verify")
                        + "; the result is incomplete");
            }
        } catch (InterruptedException e) {
            futures.forEach(f -> f.cancel(true));
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while " + (found == null ? "filling" : "verifying"), e);
        } catch (ExecutionException e) {
            futures.forEach(f -> f.cancel(true));
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException((found == null ? "fill" : "verify") + " failed", e.getCause());
        }
        return first;
    }

    @Override
    public void close() {
        closed = true;
        if (pool != null) {
            // Pieces of a running fill that never started are cancelled, so that fill fails instead of
            // waiting forever for them.
            for (Runnable never : pool.shutdownNow()) {
                if (never instanceof Future<?> f) {
                    f.cancel(false);
                }
            }
        }
    }

    /** Walks a range stripe by stripe with one kernel and one scratch stripe (one per thread). */
    private final class StripeWalker {
        private final StripeKernel stripes = StripeKernel.of(randomBytes, kernel);
        private final MemorySegment scratch = MemorySegment.ofArray(new byte[StreamLayout.MAX_STRIPE]);

        long run(MemorySegment seg, long offset, long length, AtomicLong found) {
            final long blockSize = spec.blockSize();
            long pos = offset;
            long end = offset + length;
            long lastBlock = -1;
            long unique = 0;
            while (pos < end) {
                // Another piece found an earlier mismatch: nothing here can be the first.
                if (found != null && found.get() < pos) {
                    return -1;
                }
                long block = pos / blockSize;
                long inBlock = pos - block * blockSize;
                long q = inBlock / stripe;
                int inStripe = (int) (inBlock - q * stripe);
                if (block != lastBlock) {
                    unique = dedup.uniqueOf(block);
                    lastBlock = block;
                }
                int n = (int) Math.min(stripe - inStripe, end - pos);
                long sk = mix64(mix64(key ^ mix64(unique ^ T_BLOCK)) ^ mix64(q ^ T_STRIPE));
                long at = pos - offset;
                if (n == stripe) {
                    if (found == null) {
                        stripes.fill(sk, seg, at, stripe);
                    } else if (!stripes.matches(sk, seg, at, stripe)) {
                        return mismatchIn(sk, seg, at, 0, n, pos, found);
                    }
                } else {
                    // A stripe cut by an end of the range: only the sectors up to its end.
                    int upTo = (inStripe + n + SECTOR - 1) / SECTOR * SECTOR;
                    if (found == null) {
                        stripes.fill(sk, scratch, 0, upTo);
                        MemorySegment.copy(scratch, inStripe, seg, at, n);
                    } else {
                        long m = mismatchIn(sk, seg, at, inStripe, n, pos, found);
                        if (m >= 0) {
                            return m;
                        }
                    }
                }
                pos += n;
            }
            return -1;
        }

        /** The exact first mismatch of stripe {@code sk} bytes {@code [inStripe, inStripe + n)} at seg[at]. */
        private long mismatchIn(long sk, MemorySegment seg, long at, int inStripe, int n, long pos, AtomicLong found) {
            int upTo = (inStripe + n + SECTOR - 1) / SECTOR * SECTOR;
            stripes.fill(sk, scratch, 0, upTo);
            long m = MemorySegment.mismatch(scratch, inStripe, inStripe + n, seg, at, at + n);
            if (m < 0) {
                return -1;
            }
            long abs = pos + m;
            found.accumulateAndGet(abs, Math::min);
            return abs;
        }
    }
}
