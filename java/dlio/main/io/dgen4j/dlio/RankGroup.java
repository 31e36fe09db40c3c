package io.dgen4j.dlio;

import io.dgen4j.launch.Cluster;
import io.dgen4j.launch.CpuBudget;
import io.dgen4j.launch.LaunchInfo;
import io.dgen4j.launch.Mpi;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * The ranks of a run and what this process does among them: which ranks it runs, how it waits for
 * the others, how what rank 0 alone finds (the listing of the checkpoint folder) reaches every rank,
 * and how every rank's figures of a checkpoint reach every process. Two kinds: every rank in this
 * process ({@link #inProcess}), or this process as one rank of a launch, coordinated through MPI
 * where {@code libmpi} is present ({@link #of(Cluster)}).
 *
 * <p>{@link #barrier()}, {@link #listOnce} and {@link #exchange} are collectives under MPI: every
 * process calls each of them the same number of times, in the same order, failed or not, so that no
 * rank waits forever for one that gave up.
 */
public interface RankGroup {

    /** Ranks in the whole run. */
    int size();

    /** The ranks this process runs, ascending. */
    List<Integer> localRanks();

    /** Ranks per host (DLIO's {@code npernode}), for {@code recovery_rank_shift}. */
    int ranksPerHost();

    /** Hosts in the run. */
    default int hosts() {
        return Math.max(1, size() / ranksPerHost());
    }

    /** Whether rank 0 runs in this process (it writes summary.json and prints DLIO's lines). */
    default boolean hostsRankZero() {
        return localRanks().contains(0);
    }

    /**
     * Why the figures of other processes' ranks do not reach this one (a launched rank without MPI),
     * or empty when every rank's figures do.
     */
    Optional<String> alone();

    /** Waits until every rank of the run got here (ranks of this process are joined by the run itself). */
    void barrier();

    /**
     * Runs {@code lister} once, on rank 0's process, and gives its names to every rank; a failure there
     * reaches every rank as an {@link IOException}. Without MPI a launched rank lists itself.
     *
     * @throws IOException the lister's failure, or (on other ranks) a report of it
     */
    List<String> listOnce(Cluster.IOSupplier<List<String>> lister) throws IOException;

    /**
     * Every rank's figures of one checkpoint, indexed by rank, on every process (a collective): entries
     * of ranks whose figures do not reach this process ({@link #alone()}) are {@code null}.
     *
     * @param local the figures of this process's ranks
     */
    StepFigures[] exchange(Map<Integer, StepFigures> local);

    /**
     * Generator threads per file when none were asked for: under a launcher this rank's share of the
     * CPUs ({@link CpuBudget}); in one process the CPUs shared by the {@code together} ranks running at
     * once (0, the generator's own default, for one).
     */
    int threads(int together);

    /**
     * One rank's figures of one checkpoint.
     *
     * @param seconds from the common start to the rank's end
     * @param bytes   bytes the rank saved or loaded
     * @param ok      whether all its files were done
     */
    record StepFigures(double seconds, long bytes, boolean ok) {}

    /** Every rank in this one process, as {@code dlio run --ranks N} without a launcher runs them. */
    static RankGroup inProcess(int ranks) {
        if (ranks < 1) {
            throw new DlioConfigException("ranks", "must be at least 1, got " + ranks);
        }
        List<Integer> all = IntStream.range(0, ranks).boxed().toList();
        return new RankGroup() {
            @Override
            public int size() {
                return ranks;
            }

            @Override
            public List<Integer> localRanks() {
                return all;
            }

            @Override
            public int ranksPerHost() {
                return ranks;
            }

            @Override
            public Optional<String> alone() {
                return Optional.empty();
            }

            @Override
            public void barrier() {
                // every rank is in this process and the run joins them at each step
            }

            @Override
            public List<String> listOnce(Cluster.IOSupplier<List<String>> lister) throws IOException {
                return List.copyOf(lister.get());
            }

            @Override
            public StepFigures[] exchange(Map<Integer, StepFigures> local) {
                StepFigures[] all = new StepFigures[ranks];
                local.forEach((r, f) -> all[r] = f);
                return all;
            }

            @Override
            public int threads(int together) {
                return together <= 1 ? 0 : Math.max(1, Runtime.getRuntime().availableProcessors() / together);
            }
        };
    }

    /**
     * This process as one rank of a launch without MPI: it runs its own rank's files, does not wait for
     * the others and lists the folder itself ({@link Cluster#alone}).
     */
    static RankGroup launched(LaunchInfo launch) {
        return of(Cluster.alone(launch, "no MPI was asked for"));
    }

    /**
     * This process as rank {@link Cluster#rank()} of the cluster's launch: barriers, rank 0's listing
     * and the exchange of figures go through MPI when the cluster is {@link Cluster#coordinated()}, and
     * this rank works alone otherwise. The cluster stays the caller's to close.
     */
    static RankGroup of(Cluster cluster) {
        Objects.requireNonNull(cluster, "cluster");
        LaunchInfo launch = cluster.launch();
        List<Integer> mine = List.of(cluster.rank());
        return new RankGroup() {
            @Override
            public int size() {
                return cluster.size();
            }

            @Override
            public List<Integer> localRanks() {
                return mine;
            }

            @Override
            public int ranksPerHost() {
                return launch.localSize();
            }

            @Override
            public Optional<String> alone() {
                return cluster.coordinated() ? Optional.empty() : Optional.of(cluster.whyAlone().orElse("no MPI"));
            }

            @Override
            public void barrier() {
                cluster.barrier();
            }

            @Override
            public List<String> listOnce(Cluster.IOSupplier<List<String>> lister) throws IOException {
                return cluster.listOnce(lister);
            }

            @Override
            public StepFigures[] exchange(Map<Integer, StepFigures> local) {
                StepFigures own = local.get(cluster.rank());
                if (own == null || local.size() != 1) {
                    throw new IllegalArgumentException("rank " + cluster.rank() + " exchanges its own figures only, got "
                            + local.keySet());
                }
                StepFigures[] all = new StepFigures[cluster.size()];
                if (!cluster.coordinated()) {
                    all[cluster.rank()] = own;
                    return all;
                }
                // one all-reduce of [bytes, ok] slots and one of the seconds: each rank fills its own slots
                long[] slots = new long[2 * cluster.size()];
                slots[2 * cluster.rank()] = own.bytes();
                slots[2 * cluster.rank() + 1] = own.ok() ? 1 : 0;
                long[] figures = cluster.allreduce(slots, Mpi.Op.SUM);
                double[] seconds = cluster.gather(own.seconds());
                for (int r = 0; r < all.length; r++) {
                    all[r] = new StepFigures(seconds[r], figures[2 * r], figures[2 * r + 1] != 0);
                }
                return all;
            }

            @Override
            public int threads(int together) {
                return CpuBudget.threadsFor(launch);
            }
        };
    }
}
