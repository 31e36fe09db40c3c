package io.dgen4j.cli.command;

import io.dgen4j.cli.Environment;
import io.dgen4j.cli.option.DlioConfigOptions;
import io.dgen4j.cli.option.StorageBackendOptions;
import io.dgen4j.cli.report.DlioPlanReport;
import io.dgen4j.dlio.CheckpointPlan;
import io.dgen4j.dlio.DlioConfig;
import io.dgen4j.dlio.DlioRun;
import io.dgen4j.json.JsonWriter;
import io.dgen4j.storage.StorageTarget;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code dgen4j dlio plan}: the files and sizes of a DLIO workload's checkpoint, nothing written. */
@Command(name = "plan", mixinStandardHelpOptions = true,
        description = "Print each rank's checkpoint files and sizes, and the total (bytes and GiB), as DLIO computes them.")
public final class DlioPlanCommand implements Callable<Integer> {
    private final Environment env;

    /** A plan whose ranks and storage settings come from {@code env} and the options. */
    public DlioPlanCommand(Environment env) {
        this.env = env;
    }

    @Spec
    CommandSpec command;

    @Mixin
    DlioConfigOptions config;

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    boolean json;

    @Option(names = "--brief", description = "One line per kind of rank (same file sizes) instead of every rank's files.")
    boolean brief;

    @Mixin
    StorageBackendOptions backend;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = command.commandLine().getOut();
        DlioConfig c = config.read(command.commandLine().getErr());
        CheckpointPlan plan = config.plan(c, config.ranks(config.launch(env)), command.commandLine().getErr());
        // what `dlio run` checks before its first byte, with the same storage settings: a plan that prints is a
        // plan that runs
        DlioRun.check(plan, DlioRun.Options.defaults().withCustomize(
                backend.resolve(StorageTarget.parse(DlioRun.folderTarget(c)), env)));
        if (json) {
            JsonWriter.ASCII_LINE.write(plan.toMap(), out); // streamed: a plan of many ranks is not held as one string
            out.println();
        } else {
            DlioPlanReport.print(out, plan, config.config, brief);
        }
        out.flush();
        return 0;
    }
}
