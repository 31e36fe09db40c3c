package io.dgen4j.dlio;

import io.dgen4j.launch.LaunchInfo;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.stream.IntStream;

/**
 * The ranks of a run and what this process does among them: which ranks it runs, how it waits for
 * the others, and how a value that rank 0 alone computes (the listing of the checkpoint folder)
 * reaches every rank. The seam where MPI coordination plugs in: an MPI group barriers with
 * {@code MPI_Barrier} and broadcasts rank 0's value.
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

    /** Whether rank 0 runs in this process (it writes summary.json). */
    default boolean hostsRankZero() {
        return localRanks().contains(0);
    }

    /** Waits until every rank of the run got here (ranks of this process are joined by the run itself). */
    void barrier() throws InterruptedException;

    /** The value rank 0 computes with {@code rootOnly}, on every rank. */
    int fromRankZero(IntSupplier rootOnly) throws InterruptedException;

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
            public void barrier() {
                // every rank is in this process and the run joins them at each step
            }

            @Override
            public int fromRankZero(IntSupplier rootOnly) {
                return rootOnly.getAsInt();
            }
        };
    }

    /**
     * This process as one rank of a launch ({@code mpirun}, {@code srun}) without MPI calls: it runs
     * its own rank's files; {@link #barrier()} returns at once and {@link #fromRankZero} computes the
     * value locally (every rank lists the folder itself) until MPI coordination replaces this group.
     */
    static RankGroup launched(LaunchInfo launch) {
        List<Integer> mine = List.of(launch.rank());
        return new RankGroup() {
            @Override
            public int size() {
                return launch.size();
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
            public void barrier() {
                // no MPI here: ranks are not synchronized (see the class comment)
            }

            @Override
            public int fromRankZero(IntSupplier rootOnly) {
                return rootOnly.getAsInt();
            }
        };
    }
}
