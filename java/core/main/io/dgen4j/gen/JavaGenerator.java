package io.dgen4j.gen;

import static io.dgen4j.gen.StreamLayout.GOLDEN;
import static io.dgen4j.gen.StreamLayout.LANES;
import static io.dgen4j.gen.StreamLayout.SECTOR;
import static io.dgen4j.gen.StreamLayout.T_BLOCK;
import static io.dgen4j.gen.StreamLayout.T_SEED;
import static io.dgen4j.gen.StreamLayout.T_STRIPE;
import static io.dgen4j.gen.StreamLayout.mix64;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The pure-Java twin of the native generator: the same bytes (docs/FORMAT.md), slower.
 *
 * <p>It is what {@link Generator#open(DataSpec)} falls back to when the native core cannot load,
 * and the reference the native core is tested against. Large fills of segments that other threads
 * may access (shared, global and automatic arenas, heap arrays) are split at 64 KiB stream boundaries
 * over a fixed pool of daemon threads created once by the constructor; a confined arena's segment is
 * filled on the calling thread.
 */
public final class JavaGenerator implements Generator {
    /** Fills below this size run on the calling thread. */
    static final long PARALLEL_MIN = 256 << 10;
    /** Piece boundaries of a parallel fill are multiples of this stream offset. */
    static final long PIECE_ALIGN = 64 << 10;

    /** Never started: only asks whether a segment is usable from threads other than its owner. */
    private static final Thread OTHER_THREAD = new Thread(() -> { });

    private final DataSpec spec;
    private final long key;
    private final int stripe;
    private final int randomBytes;
    private final StreamLayout.Dedup dedup;
    private final int threads;
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
        if (spec == null) {
            throw new IllegalArgumentException("spec must not be null");
        }
        if (threads < 0) {
            throw new IllegalArgumentException("threads must be >= 0 (0 = all CPUs), got " + threads);
        }
        this.spec = spec;
        this.key = mix64(spec.seed() ^ T_SEED);
        this.stripe = Math.min(spec.blockSize(), StreamLayout.MAX_STRIPE);
        this.randomBytes = spec.randomBytesPerSector();
        this.dedup = new StreamLayout.Dedup(key, spec.blocks(), spec.distinctBlocks());
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

    @Override
    public DataSpec spec() {
        return spec;
    }

    @Override
    public String implementation() {
        return "java";
    }

    @Override
    public int threads() {
        return threads;
    }

    @Override
    public void fill(MemorySegment dst, long streamOffset, long length) {
        if (closed) {
            throw new IllegalStateException("generator is closed");
        }
        FillRange.check(spec, dst, streamOffset, length);
        // A confined arena's segment may only be touched by its owner thread: fill it here.
        if (pool == null || length < PARALLEL_MIN || !dst.isAccessibleBy(OTHER_THREAD)) {
            new StripeWriter().fill(dst, streamOffset, length);
            return;
        }
        // Pieces cut at absolute 64 KiB stream offsets, about two per thread.
        long per = Math.max(PIECE_ALIGN, (length / (threads * 2L) + PIECE_ALIGN - 1) / PIECE_ALIGN * PIECE_ALIGN);
        List<Future<?>> futures = new ArrayList<>();
        long pos = streamOffset;
        long end = streamOffset + length;
        // close() during the fill cancels the pieces not started: the fill then waits for the
        // running ones (so nothing writes into dst after it returns) and fails.
        boolean closedDuring = false;
        while (pos < end) {
            long cut = Math.min(end, (pos / PIECE_ALIGN) * PIECE_ALIGN + per);
            long from = pos;
            long n = cut - pos;
            MemorySegment piece = dst.asSlice(pos - streamOffset, n);
            try {
                futures.add(pool.submit(() -> new StripeWriter().fill(piece, from, n)));
            } catch (RejectedExecutionException e) {
                closedDuring = true;
                break;
            }
            pos = cut;
        }
        try {
            for (Future<?> f : futures) {
                try {
                    f.get();
                } catch (CancellationException e) {
                    closedDuring = true;
                }
            }
            if (closedDuring) {
                throw new IllegalStateException("generator was closed during the fill; the destination is incomplete");
            }
        } catch (InterruptedException e) {
            futures.forEach(f -> f.cancel(true));
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while filling", e);
        } catch (ExecutionException e) {
            futures.forEach(f -> f.cancel(true));
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException("fill failed", e.getCause());
        }
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

    /** Little-endian longs in a byte array. */
    private static final VarHandle LE_ARRAY = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** Per-thread scratch: one stripe. */
    private final class StripeWriter {
        private final byte[] bytes = new byte[StreamLayout.MAX_STRIPE];
        private final MemorySegment scratch = MemorySegment.ofArray(bytes);

        void fill(MemorySegment dst, long offset, long length) {
            final long blockSize = spec.blockSize();
            long pos = offset;
            long end = offset + length;
            long lastBlock = -1;
            long unique = 0;
            while (pos < end) {
                long block = pos / blockSize;
                long inBlock = pos - block * blockSize;
                long q = inBlock / stripe;
                int inStripe = (int) (inBlock - q * stripe);
                if (block != lastBlock) {
                    unique = dedup.uniqueOf(block);
                    lastBlock = block;
                }
                int n = (int) Math.min(stripe - inStripe, end - pos);
                stripe(unique, q);
                MemorySegment.copy(scratch, inStripe, dst, pos - offset, n);
                pos += n;
            }
        }

        /**
         * Writes stripe {@code q} of unique block {@code u} into {@code scratch[0, stripe)}. Lane by
         * lane: the four words of one lane's state stay in registers while it writes every eighth
         * word of the stripe (word {@code j} comes from lane {@code j mod 8}, docs/FORMAT.md).
         */
        private void stripe(long u, long q) {
            long bk = mix64(key ^ mix64(u ^ T_BLOCK));
            long x = mix64(bk ^ mix64(q ^ T_STRIPE));
            final byte[] out = bytes;
            final int steps = stripe / (8 * LANES);
            for (int l = 0; l < LANES; l++) {
                long a = mix64(x += GOLDEN);
                long b = mix64(x += GOLDEN);
                long c = mix64(x += GOLDEN);
                long d = mix64(x += GOLDEN);
                for (int t = 0, at = l * 8; t < steps; t++, at += 8 * LANES) {
                    long result = Long.rotateLeft(a + d, 23) + a;
                    long tt = b << 17;
                    c ^= a;
                    d ^= b;
                    b ^= c;
                    a ^= d;
                    c ^= tt;
                    d = Long.rotateLeft(d, 45);
                    LE_ARRAY.set(out, at, result);
                }
            }
            if (randomBytes < SECTOR) {
                for (int sec = 0; sec < stripe; sec += SECTOR) {
                    Arrays.fill(out, sec + randomBytes, sec + SECTOR, (byte) 0);
                }
            }
        }
    }
}
