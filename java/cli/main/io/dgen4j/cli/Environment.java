package io.dgen4j.cli;

import java.util.Map;

/**
 * The variables a command reads (S3 settings, {@code DGEN4J_S3_BACKEND}, {@code DGEN4J_DATA_GEN}, a launcher's
 * ranks), handed down from {@link Main}: the process's own, or what an embedder or a test gives
 * {@link Main#run(String[], java.io.PrintWriter, java.io.PrintWriter, Map)}. Nothing below {@code Main} reads
 * {@code System.getenv}.
 *
 * @param variables the variables, copied
 * @param isProcess whether they are this process's own environment: only then does a launched rank start MPI
 *                  (its launcher's variables describe this process, not another's)
 */
public record Environment(Map<String, String> variables, boolean isProcess) {
    public Environment {
        variables = Map.copyOf(variables);
    }

    /** The value of {@code name}, or null when unset. */
    public String get(String name) {
        return variables.get(name);
    }
}
