package io.dgen4j.launch;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The ranks of a launch working together: where this process sits ({@link LaunchInfo}), and, where MPI
 * is present, the collectives a benchmark run needs (start together, sum and compare figures, rank 0
 * lists a target once and tells the others).
 *
 * <p>Without MPI ({@link #coordinated()} false) every collective sees this process alone, as a
 * communicator of one: {@link #barrier()} returns at once, reductions return the rank's own values,
 * {@link #gather(double)} returns the rank's own value only, {@link #listOnce} lists on every rank.
 * {@link #rank()} and {@link #size()} still report the launcher's figures (shard names and seeds depend
 * on them), and {@link #whyAlone()} says why MPI is absent.
 *
 * {@snippet :
 * try (Cluster cluster = Cluster.open(LaunchInfo.current())) {
 *     List<String> names = cluster.listOnce(() -> listTheFolder()); // rank 0 lists, every rank gets the names
 *     cluster.barrier();
 *     double[] seconds = cluster.gather(mySeconds); // one value per rank, on every rank
 * }
 * }
 */
public final class Cluster implements AutoCloseable {
    /** Something that produces a value or fails with an {@link IOException}. */
    @FunctionalInterface
    public interface IOSupplier<T> {
        /**
         * Produces the value.
         *
         * @throws IOException when it cannot
         */
        T get() throws IOException;
    }

    private final LaunchInfo launch;
    private final Mpi mpi;
    private final String alone;

    private Cluster(LaunchInfo launch, Mpi mpi, String alone) {
        this.launch = launch;
        this.mpi = mpi;
        this.alone = alone;
    }

    /**
     * The cluster of this launch: MPI where a launcher started this process and {@code libmpi} loads,
     * each rank alone otherwise.
     *
     * @throws IllegalStateException when MPI's rank or size differs from the launcher's variables, or
     *                               MPI cannot start ({@link Mpi#initialize})
     */
    public static Cluster open(LaunchInfo launch) {
        Objects.requireNonNull(launch, "launch");
        if (!launch.launched()) {
            return alone(launch, "this process was not started by a launcher");
        }
        Optional<Mpi> mpi = Mpi.initialize(launch);
        if (mpi.isEmpty()) {
            return alone(launch, Mpi.unavailable().orElse("MPI is not available"));
        }
        Mpi m = mpi.get();
        if (m.rank() != launch.rank() || m.size() != launch.size()) {
            String msg = String.format("MPI says rank %d of %d, but the launcher's variables say %s: the environment "
                    + "does not belong to this MPI job", m.rank(), m.size(), launch.describe());
            m.close();
            throw new IllegalStateException(msg);
        }
        return new Cluster(launch, m, null);
    }

    /** This process alone, for {@code why} (no MPI, or MPI not wanted). */
    public static Cluster alone(LaunchInfo launch, String why) {
        return new Cluster(Objects.requireNonNull(launch, "launch"), null, Objects.requireNonNull(why, "why"));
    }

    /** Where this process sits in its launch. */
    public LaunchInfo launch() {
        return launch;
    }

    /** The launcher's rank of this process. */
    public int rank() {
        return launch.rank();
    }

    /** The launcher's number of ranks. */
    public int size() {
        return launch.size();
    }

    /** Whether this is rank 0, the one that lists and reports. */
    public boolean isRoot() {
        return launch.rank() == 0;
    }

    /** Whether MPI binds the ranks (collectives span every rank). */
    public boolean coordinated() {
        return mpi != null;
    }

    /** The MPI library in use, e.g. {@code "Open MPI v4.1.4 (libmpi.so.40)"}, when {@link #coordinated()}. */
    public Optional<String> mpiLibrary() {
        return mpi == null ? Optional.empty() : Optional.of(mpi.library());
    }

    /** Why the ranks are not coordinated, when they are not. */
    public Optional<String> whyAlone() {
        return Optional.ofNullable(alone);
    }

    /** Waits for every rank (returns at once without MPI). */
    public void barrier() {
        if (mpi != null) {
            mpi.barrier();
        }
    }

    /** Element-wise {@code op} of every rank's {@code values} (this rank's own values without MPI). */
    public double[] allreduce(double[] values, Mpi.Op op) {
        return mpi != null ? mpi.allreduce(values, op) : values.clone();
    }

    /** Element-wise {@code op} of every rank's {@code values} (this rank's own values without MPI). */
    public long[] allreduce(long[] values, Mpi.Op op) {
        return mpi != null ? mpi.allreduce(values, op) : values.clone();
    }

    /** {@code op} of every rank's {@code value}. */
    public double allreduce(double value, Mpi.Op op) {
        return allreduce(new double[] {value}, op)[0];
    }

    /** {@code op} of every rank's {@code value}. */
    public long allreduce(long value, Mpi.Op op) {
        return allreduce(new long[] {value}, op)[0];
    }

    /**
     * Every rank's {@code value}, indexed by rank, on every rank (an all-reduce sum of a size-long array in
     * which each rank fills its slot); without MPI, this rank's value alone.
     */
    public double[] gather(double value) {
        if (mpi == null) {
            return new double[] {value};
        }
        double[] slots = new double[mpi.size()];
        slots[mpi.rank()] = value;
        return mpi.allreduce(slots, Mpi.Op.SUM);
    }

    /** Every rank's {@code value}, indexed by rank, on every rank; without MPI, this rank's value alone. */
    public long[] gather(long value) {
        if (mpi == null) {
            return new long[] {value};
        }
        long[] slots = new long[mpi.size()];
        slots[mpi.rank()] = value;
        return mpi.allreduce(slots, Mpi.Op.SUM);
    }

    /** Rank 0's bytes on every rank ({@code data} is read on rank 0 only); without MPI, {@code data}. */
    public byte[] broadcast(byte[] data) {
        if (mpi == null) {
            return Objects.requireNonNull(data, "data").clone();
        }
        return mpi.broadcast(data, 0);
    }

    /** Rank 0's string on every rank. */
    public String broadcast(String text) {
        byte[] b = broadcast(isRoot() || mpi == null ? text.getBytes(StandardCharsets.UTF_8) : null);
        return new String(b, StandardCharsets.UTF_8);
    }

    /** Rank 0's number on every rank. */
    public long broadcast(long value) {
        if (mpi == null) {
            return value;
        }
        long[] slot = new long[] {isRoot() ? value : 0};
        return mpi.allreduce(slot, Mpi.Op.SUM)[0];
    }

    /**
     * Runs {@code action} on rank 0 alone and gives its bytes to every rank; without MPI, runs it here.
     * A failure on rank 0 reaches every rank: rank 0 rethrows it, the others throw an {@link IOException}
     * with its message (nobody waits forever for bytes that will not come).
     *
     * @throws IOException the action's failure (on rank 0), or a report of it (on the others)
     */
    public byte[] onceAndBroadcast(IOSupplier<byte[]> action) throws IOException {
        if (mpi == null) {
            return action.get();
        }
        byte[] message = null;
        Exception failure = null;
        if (isRoot()) {
            try {
                byte[] payload = Objects.requireNonNull(action.get(), "the action's bytes");
                message = new byte[payload.length + 1];
                System.arraycopy(payload, 0, message, 1, payload.length);
            } catch (IOException | RuntimeException e) {
                failure = e;
                byte[] text = String.valueOf(e.getMessage() != null ? e.getMessage() : e.toString())
                        .getBytes(StandardCharsets.UTF_8);
                message = new byte[text.length + 1];
                message[0] = 1;
                System.arraycopy(text, 0, message, 1, text.length);
            }
        }
        byte[] got = mpi.broadcast(message, 0);
        if (failure instanceof IOException e) {
            throw e;
        }
        if (failure instanceof RuntimeException e) {
            throw e;
        }
        if (got.length == 0) {
            throw new IllegalStateException("rank 0 broadcast an empty message");
        }
        if (got[0] != 0) {
            throw new IOException("rank 0 failed: " + new String(got, 1, got.length - 1, StandardCharsets.UTF_8));
        }
        return Arrays.copyOfRange(got, 1, got.length);
    }

    /**
     * Runs {@code lister} on rank 0 alone (one LIST of a bucket or folder instead of one per rank) and
     * gives its names, in its order, to every rank; without MPI, lists here.
     *
     * @throws IOException the lister's failure (on rank 0) or a report of it (on the others)
     */
    public List<String> listOnce(IOSupplier<List<String>> lister) throws IOException {
        if (mpi == null) {
            return List.copyOf(lister.get());
        }
        return decode(onceAndBroadcast(() -> encode(lister.get())));
    }

    /**
     * How some rank's facts differ from rank 0's: the first such rank, how many ranks differ, and the
     * facts of rank 0 and of that rank, each in its own order.
     */
    public record Disagreement(int rank, int ranks, Map<String, String> root, Map<String, String> theirs) {
        public Disagreement {
            root = Collections.unmodifiableMap(new LinkedHashMap<>(root));
            theirs = Collections.unmodifiableMap(new LinkedHashMap<>(theirs));
        }

        /** The first name whose value differs (absent on one side counts), in rank 0's order, then theirs. */
        public String firstDifference() {
            Set<String> names = new LinkedHashSet<>(root.keySet());
            names.addAll(theirs.keySet());
            return names.stream().filter(n -> !Objects.equals(root.get(n), theirs.get(n))).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no difference between " + root + " and " + theirs));
        }
    }

    /**
     * Compares every rank's {@code facts} (what it was asked to run: names and values, in an order that
     * is the same on every rank) with rank 0's.
     * Call it first, before any other collective: ranks started with different commands would
     * otherwise wait in different collectives forever. Ranks that agree exchange a 64-bit digest (one
     * all-reduce of two numbers); when the digests differ, rank 0's facts are broadcast, each rank
     * compares its own, and the first differing rank's facts are broadcast, so that every rank returns
     * the same disagreement. Without MPI: empty.
     */
    public Optional<Disagreement> agree(Map<String, String> facts) {
        if (mpi == null) {
            return Optional.empty();
        }
        List<String> flat = new ArrayList<>();
        facts.forEach((k, v) -> {
            flat.add(k);
            flat.add(v);
        });
        byte[] mine = encode(flat);
        long d = digest(mine);
        long[] min = mpi.allreduce(new long[] {d, ~d}, Mpi.Op.MIN); // the least digest, and the greatest inverted
        if (min[0] == ~min[1]) {
            return Optional.empty();
        }
        byte[] root = mpi.broadcast(isRoot() ? mine : null, 0);
        long[] differs = new long[mpi.size()];
        differs[mpi.rank()] = Arrays.equals(root, mine) ? 0 : 1;
        differs = mpi.allreduce(differs, Mpi.Op.SUM);
        int first = -1;
        int count = 0;
        for (int r = differs.length - 1; r >= 0; r--) {
            if (differs[r] != 0) {
                first = r;
                count++;
            }
        }
        if (first < 0) {
            return Optional.empty(); // the digests differ, the facts do not: cannot happen
        }
        byte[] theirs = mpi.broadcast(mpi.rank() == first ? mine : null, first);
        try {
            return Optional.of(new Disagreement(first, count, unflatten(decode(root)), unflatten(decode(theirs))));
        } catch (IOException e) {
            throw new IllegalStateException("the ranks' facts came back damaged: " + e.getMessage(), e);
        }
    }

    private static Map<String, String> unflatten(List<String> flat) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            m.put(flat.get(i), flat.get(i + 1));
        }
        return m;
    }

    /** The first 64 bits of the bytes' SHA-256. */
    private static long digest(byte[] data) {
        try {
            return ByteBuffer.wrap(MessageDigest.getInstance("SHA-256").digest(data)).getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e); // every Java SE platform has it
        }
    }

    /** Finalizes MPI where this cluster started it. */
    @Override
    public void close() {
        if (mpi != null) {
            mpi.close();
        }
    }

    /** Names as a count, then each name's UTF-8 length and bytes (names may hold any character, newlines too). */
    static byte[] encode(List<String> names) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(names.size());
            for (String n : names) {
                byte[] b = n.getBytes(StandardCharsets.UTF_8);
                out.writeInt(b.length);
                out.write(b);
            }
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail
        }
    }

    static List<String> decode(byte[] data) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
        int n = in.readInt();
        if (n < 0 || n > data.length / 4) {
            throw new IOException("a name list of " + n + " entries cannot fit in " + data.length + " bytes");
        }
        List<String> names = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int len = in.readInt();
            if (len < 0 || len > in.available()) {
                throw new IOException(String.format("name %d claims %d bytes, %d are left", i, len, in.available()));
            }
            names.add(new String(in.readNBytes(len), StandardCharsets.UTF_8));
        }
        return List.copyOf(names);
    }
}
