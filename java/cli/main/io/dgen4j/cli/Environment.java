package io.dgen4j.cli;

import io.dgen4j.storage.Storage;
import java.util.Map;

/**
 * The variables a command reads (S3 settings, {@code DGEN4J_S3_BACKEND}, {@code DGEN4J_DATA_GEN}, a launcher's
 * ranks), handed down from {@link Main}: the process's own, or what an embedder or a test gives
 * {@link Main#run(String[], java.io.PrintWriter, java.io.PrintWriter, Map)}. Nothing below {@code Main} reads
 * {@code System.getenv}. It also carries the command's storage session, which {@link Main} opens over these
 * variables for each command and closes after it: every save and load of the command goes through it.
 *
 * @param variables the variables, copied
 * @param isProcess whether they are this process's own environment: only then does a launched rank start MPI
 *                  (its launcher's variables describe this process, not another's)
 * @param storage   the command's storage session, or null (then each save or load opens its own)
 */
public record Environment(Map<String, String> variables, boolean isProcess, Storage storage) {
    public Environment {
        variables = Map.copyOf(variables);
    }

    /** The variables, with no storage session. */
    public Environment(Map<String, String> variables, boolean isProcess) {
        this(variables, isProcess, null);
    }

    /** The value of {@code name}, or null when unset. */
    public String get(String name) {
        return variables.get(name);
    }
}
