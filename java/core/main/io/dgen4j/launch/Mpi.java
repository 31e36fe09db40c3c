package io.dgen4j.launch;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MPI library of this process, bound through FFM where {@code libmpi} loads at run time:
 * {@code MPI_COMM_WORLD}'s rank and size, barrier, all-reduce and broadcast, and {@code MPI_Finalize}
 * on {@link #close()}. No MPI headers or jars are needed at build time.
 *
 * <p>{@link #initialize(LaunchInfo)} starts MPI once per process ({@code MPI_Init_thread} asking for
 * {@code MPI_THREAD_SERIALIZED}: calls may come from any thread, this class serializes them). Where MPI
 * was already initialized by someone else, it is used and left for them to finalize. Both ABIs are bound:
 * Open MPI's ({@code libmpi.so.40}, tested with 4.1) and MPICH's ({@code libmpich.so.12}, tested with 4.0;
 * Intel MPI and MVAPICH share it); the launcher's own implementation is tried first.
 *
 * {@snippet :
 * try (Mpi mpi = Mpi.initialize(LaunchInfo.current()).orElseThrow()) {
 *     double slowest = mpi.allreduce(new double[] {seconds}, Mpi.Op.MAX)[0];
 * }
 * }
 */
public final class Mpi implements AutoCloseable {
    /** Set to {@code true} to never load MPI: each rank works alone. */
    public static final String PROP_DISABLE = "dgen4j.mpi.disable";
    /**
     * The MPI library to load (a file name such as {@code libmpi.so.40}, or a path) instead of the
     * launcher's: Open MPI's {@code libmpi.so.40}, else MPICH's {@code libmpich.so.12} or {@code libmpi.so.12}.
     */
    public static final String PROP_LIBRARY = "dgen4j.mpi.library";

    private static final Logger LOG = LoggerFactory.getLogger(Mpi.class);
    /** Broadcasts move at most this many bytes per call (MPI counts are ints). */
    static final int MAX_BCAST = 1 << 30;

    /** A reduction. */
    public enum Op { SUM, MAX, MIN }

    private static final Object INIT = new Object();
    private static Mpi instance;
    private static String lastFailure;

    private final MpiBindings mpi;
    private final int rank;
    private final int size;
    private final boolean owner;
    private final String version;
    private final ReentrantLock lock = new ReentrantLock();
    private boolean closed;

    private Mpi(MpiBindings mpi, boolean owner) {
        this.mpi = mpi;
        this.owner = owner;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            check((int) mpi.commRank.invoke(mpi.commWorld, out), "MPI_Comm_rank");
            this.rank = out.get(JAVA_INT, 0);
            check((int) mpi.commSize.invoke(mpi.commWorld, out), "MPI_Comm_size");
            this.size = out.get(JAVA_INT, 0);
            MemorySegment text = arena.allocate(MpiBindings.MAX_LIBRARY_VERSION);
            check((int) mpi.libraryVersion.invokeExact(text, out), "MPI_Get_library_version");
            int len = Math.clamp(out.get(JAVA_INT, 0), 0, MpiBindings.MAX_LIBRARY_VERSION - 1);
            text.set(JAVA_BYTE, len, (byte) 0);
            this.version = text.getString(0).lines().findFirst().orElse("").split(",")[0].strip().replaceAll("\\s+", " ");
        } catch (Throwable t) {
            throw rethrow(t, "reading MPI_COMM_WORLD");
        }
    }

    /**
     * Starts MPI for a process that a launcher started; empty where this process was not launched
     * ({@link LaunchInfo#launched()}), MPI is disabled ({@value #PROP_DISABLE}) or no MPI library loads
     * ({@link #unavailable()} then says why).
     *
     * @throws IllegalStateException when MPI was already finalized in this process, when
     *                               {@code MPI_Init_thread} fails, or when dgen4j already holds this
     *                               process's MPI (use that instance)
     */
    public static Optional<Mpi> initialize(LaunchInfo launch) {
        Objects.requireNonNull(launch, "launch");
        synchronized (INIT) {
            if (!launch.launched()) {
                lastFailure = "this process was not started by a launcher (mpirun, srun)";
                return Optional.empty();
            }
            if (Boolean.getBoolean(PROP_DISABLE)) {
                lastFailure = "MPI is disabled by -D" + PROP_DISABLE + "=true";
                return Optional.empty();
            }
            if (instance != null) {
                throw new IllegalStateException(instance.isClosed()
                        ? "MPI was finalized in this process: it cannot start again"
                        : "MPI is already initialized by dgen4j in this process; use that Mpi (one per process)");
            }
            MpiBindings b;
            try {
                b = MpiBindings.load(System.getProperty(PROP_LIBRARY), MpiBindings.candidates(launch));
            } catch (LinkageError e) {
                lastFailure = e.getMessage() + " (set -D" + PROP_LIBRARY + "=/path/to/libmpi.so.40 to name one)";
                LOG.debug("no MPI: {}", lastFailure);
                return Optional.empty();
            } catch (IllegalCallerException e) {
                lastFailure = "native access is denied: run with --enable-native-access=io.dgen4j (module path) "
                        + "or --enable-native-access=ALL-UNNAMED (class path)";
                return Optional.empty();
            }
            boolean owner;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment flag = arena.allocate(JAVA_INT);
                check((int) b.finalized.invokeExact(flag), "MPI_Finalized");
                if (flag.get(JAVA_INT, 0) != 0) {
                    throw new IllegalStateException("MPI was already finalized in this process: it cannot start again");
                }
                check((int) b.initialized.invokeExact(flag), "MPI_Initialized");
                owner = flag.get(JAVA_INT, 0) == 0;
                if (owner) {
                    MemorySegment provided = arena.allocate(JAVA_INT);
                    check((int) b.initThread.invokeExact(MemorySegment.NULL, MemorySegment.NULL,
                            MpiBindings.MPI_THREAD_SERIALIZED, provided), "MPI_Init_thread");
                    // Below SERIALIZED the calls must come from the initializing thread; the CLI's do.
                    LOG.debug("MPI_Init_thread: provided thread level {}", provided.get(JAVA_INT, 0));
                }
            } catch (IllegalStateException e) {
                throw e;
            } catch (Throwable t) {
                throw rethrow(t, "MPI_Init_thread");
            }
            instance = new Mpi(b, owner);
            lastFailure = null;
            return Optional.of(instance);
        }
    }

    /** Why the last {@link #initialize} returned empty, if it did. */
    public static Optional<String> unavailable() {
        synchronized (INIT) {
            return Optional.ofNullable(lastFailure);
        }
    }

    /** This process's rank in {@code MPI_COMM_WORLD}. */
    public int rank() {
        return rank;
    }

    /** The number of ranks in {@code MPI_COMM_WORLD}. */
    public int size() {
        return size;
    }

    /** The library's version line ({@code MPI_Get_library_version}) and file, e.g. {@code "Open MPI v4.1.4 (libmpi.so.40)"}. */
    public String library() {
        return version + " (" + mpi.library + ")";
    }

    /** Waits until every rank has called it ({@code MPI_Barrier}). */
    public void barrier() {
        call(() -> check((int) mpi.barrier.invoke(mpi.commWorld), "MPI_Barrier"));
    }

    /** Element-wise {@code op} over every rank's {@code values} (all of the same length); every rank gets the result. */
    public double[] allreduce(double[] values, Op op) {
        double[] result = new double[values.length];
        call(() -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment send = arena.allocateFrom(JAVA_DOUBLE, values);
                MemorySegment recv = arena.allocate(JAVA_DOUBLE, Math.max(1, values.length));
                check((int) mpi.allreduce.invoke(send, recv, values.length, mpi.typeDouble, op(op), mpi.commWorld),
                        "MPI_Allreduce");
                MemorySegment.copy(recv, JAVA_DOUBLE, 0, result, 0, values.length);
            }
        });
        return result;
    }

    /** Element-wise {@code op} over every rank's {@code values} (64-bit integers); every rank gets the result. */
    public long[] allreduce(long[] values, Op op) {
        long[] result = new long[values.length];
        call(() -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment send = arena.allocateFrom(JAVA_LONG, values);
                MemorySegment recv = arena.allocate(JAVA_LONG, Math.max(1, values.length));
                check((int) mpi.allreduce.invoke(send, recv, values.length, mpi.typeInt64, op(op), mpi.commWorld),
                        "MPI_Allreduce");
                MemorySegment.copy(recv, JAVA_LONG, 0, result, 0, values.length);
            }
        });
        return result;
    }

    /**
     * Rank {@code root}'s bytes, on every rank ({@code MPI_Bcast} of the length, then of the bytes in
     * pieces of at most 1 GiB); {@code data} is read on the root only (others may pass {@code null}).
     */
    public byte[] broadcast(byte[] data, int root) {
        if (root < 0 || root >= size) {
            throw new IllegalArgumentException(String.format("root %d is not a rank of %d", root, size));
        }
        if (rank == root) {
            Objects.requireNonNull(data, "the root's data");
        }
        byte[][] out = new byte[1][];
        call(() -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment len = arena.allocate(JAVA_LONG);
                len.set(JAVA_LONG, 0, rank == root ? data.length : 0);
                check((int) mpi.bcast.invoke(len, 1, mpi.typeInt64, root, mpi.commWorld), "MPI_Bcast");
                long n = len.get(JAVA_LONG, 0);
                if (n < 0 || n > Integer.MAX_VALUE - 8) {
                    throw new IllegalStateException("MPI_Bcast delivered an impossible length " + n);
                }
                MemorySegment buf = arena.allocate(Math.max(1, n));
                if (rank == root) {
                    MemorySegment.copy(data, 0, buf, JAVA_BYTE, 0, data.length);
                }
                for (long off = 0; off < n; off += MAX_BCAST) {
                    int piece = (int) Math.min(MAX_BCAST, n - off);
                    check((int) mpi.bcast.invoke(buf.asSlice(off, piece), piece, mpi.typeByte, root, mpi.commWorld),
                            "MPI_Bcast");
                }
                out[0] = buf.asSlice(0, n).toArray(JAVA_BYTE);
            }
        });
        return out[0];
    }

    private boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    /** Finalizes MPI ({@code MPI_Finalize}) where this class initialized it; later calls fail. Idempotent. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            if (owner) {
                check((int) mpi.finalizeMpi.invokeExact(), "MPI_Finalize");
            }
        } catch (Throwable t) {
            throw rethrow(t, "MPI_Finalize");
        } finally {
            lock.unlock();
        }
    }

    private Object op(Op op) {
        return switch (op) {
            case SUM -> mpi.opSum;
            case MAX -> mpi.opMax;
            case MIN -> mpi.opMin;
        };
    }

    private interface MpiCall {
        void run() throws Throwable;
    }

    private void call(MpiCall c) {
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("MPI is finalized: no call can follow MPI_Finalize");
            }
            c.run();
        } catch (Throwable t) {
            throw rethrow(t, "an MPI call");
        } finally {
            lock.unlock();
        }
    }

    static void check(int rc, String function) {
        if (rc != MpiBindings.MPI_SUCCESS) {
            throw new IllegalStateException(String.format("%s failed with MPI error code %d", function, rc));
        }
    }

    private static RuntimeException rethrow(Throwable t, String what) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(what + " failed: " + t, t);
    }
}
