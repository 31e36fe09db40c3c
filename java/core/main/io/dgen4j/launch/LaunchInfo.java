package io.dgen4j.launch;

import java.util.Map;
import java.util.Optional;

/**
 * Where this process sits in a parallel launch ({@code mpirun}, {@code srun}, ...), as the launcher's
 * environment says: rank and size in the whole job, local rank and size on this host.
 *
 * {@snippet :
 * LaunchInfo launch = LaunchInfo.current();
 * if (launch.launched()) {
 *     System.out.println(launch.describe()); // "rank 1 of 4 (local 1 of 2, openmpi)"
 * }
 * }
 *
 * @param rank      this process's rank, 0-based
 * @param size      the number of ranks
 * @param localRank this process's rank among those on this host
 * @param localSize the number of ranks on this host
 * @param launcher  which variables said so: {@code openmpi}, {@code pmi} (MPICH's Hydra, Intel MPI),
 *                  {@code mvapich}, {@code slurm}, or {@code none} (a single process)
 */
public record LaunchInfo(int rank, int size, int localRank, int localSize, String launcher) {

    /** A process on its own: rank 0 of 1. */
    public static final LaunchInfo SINGLE = new LaunchInfo(0, 1, 0, 1, "none");

    /**
     * Checks the figures.
     *
     * @throws IllegalArgumentException when a rank is outside its size, a size is below 1, the local
     *                                  size exceeds the job's, or the launcher is missing
     */
    public LaunchInfo {
        if (launcher == null || launcher.isBlank()) {
            throw new IllegalArgumentException("a launch needs a launcher name ('none' for a single process)");
        }
        if (size < 1 || rank < 0 || rank >= size || localSize < 1 || localRank < 0 || localRank >= localSize
                || localSize > size) {
            throw new IllegalArgumentException(String.format("inconsistent launch: rank %d of %d, local rank %d of %d "
                    + "(%s)", rank, size, localRank, localSize, launcher));
        }
    }

    /** Whether a launcher started this process (as one rank of a job, possibly a job of one). */
    public boolean launched() {
        return !"none".equals(launcher);
    }

    /** One line for people, e.g. {@code "rank 1 of 4 (local 1 of 2, openmpi)"}. */
    public String describe() {
        return launched() ? String.format("rank %d of %d (local %d of %d, %s)", rank, size, localRank, localSize,
                launcher) : "a single process (no launcher)";
    }

    /**
     * {@link #fromEnvironment(Map)} of this process's own environment: for an embedder that is the launched
     * process; code handed an environment (the CLI's commands) calls {@link #fromEnvironment(Map)} with it.
     */
    public static LaunchInfo current() {
        return fromEnvironment(System.getenv());
    }

    /**
     * Reads the launcher's variables, first match wins:
     * <ol>
     *   <li>Open MPI: {@code OMPI_COMM_WORLD_RANK}, {@code _SIZE}, {@code _LOCAL_RANK}, {@code _LOCAL_SIZE};</li>
     *   <li>MPICH's Hydra and Intel MPI: {@code PMI_RANK}, {@code PMI_SIZE}, {@code MPI_LOCALRANKID},
     *       {@code MPI_LOCALNRANKS};</li>
     *   <li>MVAPICH2: {@code MV2_COMM_WORLD_RANK}, {@code _SIZE}, {@code _LOCAL_RANK}, {@code _LOCAL_SIZE};</li>
     *   <li>Slurm's {@code srun}: {@code SLURM_PROCID}, {@code SLURM_NTASKS}, {@code SLURM_LOCALID}, the local
     *       size from {@code SLURM_NTASKS_PER_NODE}, else this node's entry of {@code SLURM_TASKS_PER_NODE}
     *       ({@code "2(x3),1"}) at {@code SLURM_NODEID}.</li>
     * </ol>
     * A launcher counts only when both its rank and size variables are set. Missing local figures are
     * taken conservatively: a missing local size is the job's size (every rank on this host, so threads
     * are not oversubscribed), a missing local rank is the rank when that fits, else 0.
     *
     * @throws IllegalArgumentException when a variable is not a number (naming it and its value) or the
     *                                  figures disagree
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
        String r = value(env, rankVar);
        String s = value(env, sizeVar);
        if (r == null || s == null) {
            return Optional.empty();
        }
        int rank = number(r, rankVar);
        int size = number(s, sizeVar);
        String ls = value(env, localSizeVar);
        Integer localSize = ls != null ? Integer.valueOf(number(ls, localSizeVar))
                : "slurm".equals(launcher) ? slurmLocalSize(env) : null;
        String lr = value(env, localRankVar);
        int local = localSize != null ? localSize : size;
        int localRank = lr != null ? number(lr, localRankVar) : rank < local ? rank : 0;
        return Optional.of(new LaunchInfo(rank, size, localRank, local, launcher));
    }

    /** This node's task count from {@code SLURM_TASKS_PER_NODE} ({@code "4(x2),3"}) and {@code SLURM_NODEID}. */
    static Integer slurmLocalSize(Map<String, String> env) {
        String spec = value(env, "SLURM_TASKS_PER_NODE");
        String node = value(env, "SLURM_NODEID");
        if (spec == null || node == null) {
            return null;
        }
        int nodeId = number(node, "SLURM_NODEID");
        int seen = 0;
        for (String part : spec.split(",")) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)(?:\\(x(\\d+)\\))?").matcher(part.strip());
            if (!m.matches()) {
                throw new IllegalArgumentException(String.format(
                        "SLURM_TASKS_PER_NODE=%s is not a task list such as 4(x2),3 (entry '%s')", spec, part));
            }
            int tasks = number(m.group(1), "SLURM_TASKS_PER_NODE");
            int repeat = m.group(2) == null ? 1 : number(m.group(2), "SLURM_TASKS_PER_NODE");
            if (nodeId < seen + repeat) {
                return tasks;
            }
            seen += repeat;
        }
        throw new IllegalArgumentException(String.format("SLURM_NODEID=%d is beyond the %d node(s) of "
                + "SLURM_TASKS_PER_NODE=%s", nodeId, seen, spec));
    }

    private static String value(Map<String, String> env, String var) {
        String v = env.get(var);
        return v == null || v.isBlank() ? null : v.strip();
    }

    private static int number(String value, String var) {
        try {
            return Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(String.format("%s=%s is not a number", var, value), e);
        }
    }
}
