package io.dgen4j.launch;

import java.util.Map;
import java.util.Optional;

/**
 * Where this process sits in a parallel launch ({@code mpirun}, {@code srun}, ...), as the launcher's
 * environment says: rank and size in the whole job, local rank and size on this host.
 *
 * @param rank      this process's rank, 0-based
 * @param size      the number of ranks
 * @param localRank this process's rank among those on this host
 * @param localSize the number of ranks on this host
 * @param launcher  which variables said so: {@code openmpi}, {@code pmi}, {@code mpich}, {@code mvapich},
 *                  {@code slurm}, or {@code none} (a single process)
 */
public record LaunchInfo(int rank, int size, int localRank, int localSize, String launcher) {

    /** A process on its own: rank 0 of 1. */
    public static final LaunchInfo SINGLE = new LaunchInfo(0, 1, 0, 1, "none");

    public LaunchInfo {
        if (size < 1 || rank < 0 || rank >= size || localSize < 1 || localRank < 0 || localRank >= localSize) {
            throw new IllegalArgumentException(String.format("inconsistent launch: rank %d of %d, local rank %d of %d "
                    + "(%s)", rank, size, localRank, localSize, launcher));
        }
    }

    /** Whether a launcher started this process as one rank of several. */
    public boolean launched() {
        return !"none".equals(launcher);
    }

    /**
     * Reads the launcher's variables, first match wins: Open MPI ({@code OMPI_COMM_WORLD_RANK},
     * {@code _SIZE}, {@code _LOCAL_RANK}, {@code _LOCAL_SIZE}), MPICH/Hydra ({@code PMI_RANK},
     * {@code PMI_SIZE}, {@code MPI_LOCALRANKID}, {@code MPI_LOCALNRANKS}), MVAPICH2
     * ({@code MV2_COMM_WORLD_RANK}, {@code _SIZE}, {@code _LOCAL_RANK}, {@code _LOCAL_SIZE}), Slurm
     * ({@code SLURM_PROCID}, {@code SLURM_NTASKS}, {@code SLURM_LOCALID}, local size from
     * {@code SLURM_NTASKS_PER_NODE} or the whole job). Missing local figures default to the job's.
     *
     * @throws IllegalArgumentException when a variable is not a number or the figures disagree
     */
    public static LaunchInfo fromEnvironment(Map<String, String> env) {
        return read(env, "openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
                "OMPI_COMM_WORLD_LOCAL_SIZE")
                .or(() -> read(env, "pmi", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"))
                .or(() -> read(env, "mvapich", "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_LOCAL_RANK",
                        "MV2_COMM_WORLD_LOCAL_SIZE"))
                .or(() -> read(env, "slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"))
                .orElse(SINGLE);
    }

    private static Optional<LaunchInfo> read(Map<String, String> env, String launcher, String rankVar, String sizeVar,
                                             String localRankVar, String localSizeVar) {
        String r = env.get(rankVar);
        String s = env.get(sizeVar);
        if (r == null || s == null || r.isBlank() || s.isBlank()) {
            return Optional.empty();
        }
        int rank = number(r, rankVar);
        int size = number(s, sizeVar);
        String lr = env.get(localRankVar);
        String ls = env.get(localSizeVar);
        boolean hasLocal = lr != null && !lr.isBlank() && ls != null && !ls.isBlank() && ls.strip().matches("\\d+");
        int localRank = hasLocal ? number(lr, localRankVar) : rank;
        int localSize = hasLocal ? number(ls, localSizeVar) : size;
        return Optional.of(new LaunchInfo(rank, size, localRank, localSize, launcher));
    }

    private static int number(String value, String var) {
        try {
            return Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(String.format("%s=%s is not a number", var, value), e);
        }
    }
}
