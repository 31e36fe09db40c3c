package io.dgen4j.cli.command;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code dgen4j dlio}: DLIO benchmark workloads (plan, run). */
@Command(name = "dlio", mixinStandardHelpOptions = true,
        description = {"DLIO benchmark workloads: the checkpoint phase of a DLIO workload YAML.",
                "Files are sized, named and reported as DLIO does, written with streaming checkpoints."
                + " With framework pytorch each file is what torch.save writes for DLIO's state dict"
                + " (checkpoint.streaming.format torch, the default there); format raw writes the tensors' bytes"
                + " alone. DLIO's \"GB\" are GiB (2^30 bytes)."},
        subcommands = {DlioPlanCommand.class, DlioRunCommand.class})
public final class DlioCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing a command: plan or run");
    }
}
