package io.dgen4j.cli.option;

import io.dgen4j.cli.Environment;
import io.dgen4j.dlio.CheckpointPlan;
import io.dgen4j.dlio.DlioConfig;
import io.dgen4j.dlio.DlioConfigReader;
import io.dgen4j.launch.LaunchInfo;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The options {@code dlio plan} and {@code dlio run} share: the config, its overrides and the number of ranks. */
public final class DlioConfigOptions {
    @Option(names = "--config", required = true, paramLabel = "FILE",
            description = "DLIO workload YAML (e.g. configs/dlio/llama3_8b.yaml).")
    public Path config;

    @Option(names = "--ranks", paramLabel = "N",
            description = "Ranks (DLIO's processes). Default: the launcher's (mpirun, srun), else 1.")
    Integer ranks;

    @Parameters(paramLabel = "OVERRIDE", arity = "0..*",
            description = "Hydra-style overrides of the config's keys, e.g. ++workload.checkpoint.checkpoint_folder=/ckpt "
                    + "or workload.model.parallelism.zero_stage=3.")
    List<String> overrides = new ArrayList<>();

    /** The config with its overrides; warnings go to {@code err}. */
    public DlioConfig read(PrintWriter err) throws IOException {
        if (!Files.exists(config)) {
            throw new IllegalArgumentException("--config: no such file: " + config);
        }
        DlioConfig c = DlioConfigReader.read(config, overrides);
        for (String w : c.warnings()) {
            err.println("dgen4j: warning: " + config + ": " + w);
        }
        err.flush();
        return c;
    }

    /** The plan of {@code c} on {@code ranks} ranks; why its files fall back to raw, if they do, goes to {@code err}. */
    public CheckpointPlan plan(DlioConfig c, int ranks, PrintWriter err) {
        CheckpointPlan plan = CheckpointPlan.of(c, ranks);
        plan.formatFallback().ifPresent(w -> err.println("dgen4j: warning: " + config + ": " + w));
        err.flush();
        return plan;
    }

    /** The launch this process is part of, as {@code env}'s launcher variables describe it. */
    public LaunchInfo launch(Environment env) {
        return LaunchInfo.fromEnvironment(env.variables());
    }

    /** The number of ranks: --ranks, else the launcher's size. */
    public int ranks(LaunchInfo launch) {
        if (ranks != null) {
            if (ranks < 1) {
                throw new IllegalArgumentException("--ranks must be at least 1, got " + ranks);
            }
            if (launch.launched() && ranks != launch.size()) {
                throw new IllegalArgumentException(String.format(Locale.ROOT,
                        "--ranks %d disagrees with the launcher's %d ranks (%s): leave --ranks out under a launcher",
                        ranks, launch.size(), launch.launcher()));
            }
            return ranks;
        }
        return launch.size();
    }
}
