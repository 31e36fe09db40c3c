package io.dgen4j.cli.command;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code dgen4j bench}: listed so that {@code dgen4j --help} shows the benchmarks. They are the
 * {@code java/bench} module's (JMH, S3 clients), not in the CLI jar: the {@code ./dgen4j} launcher
 * runs them when its first argument is {@code bench}; this jar run directly says so.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Run the benchmarks of java/bench through the ./dgen4j launcher (not in the CLI jar).",
                "./dgen4j bench --quick times native against pure-Java generation and memory fills with JMH;"
                        + " ./dgen4j bench s3 compares the S3 clients; ./dgen4j bench --help lists their options"
                        + " (docs/PERFORMANCE.md)."})
public final class BenchCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "ARG", arity = "0..*", description = "Arguments of the benchmarks (see above).")
    List<String> args;

    /** The benchmarks' options (--quick, --json, ...), taken as they come: the message is the same. */
    @CommandLine.Unmatched
    List<String> options;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(),
                "the benchmarks run through the launcher: ./dgen4j bench ... (java/bench is not in the CLI jar)");
    }
}
