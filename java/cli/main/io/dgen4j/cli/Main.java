package io.dgen4j.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code dgen4j} command line: the only part of dgen4j that prints. */
// scope INHERIT: every subcommand's --version prints the same line (versionProvider is inherited)
@Command(name = "dgen4j", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        scope = CommandLine.ScopeType.INHERIT,
        description = "Synthetic ML-checkpoint data at memory speed, with exact dedup and compression ratios.",
        subcommands = {QuickstartCommand.class, SaveCommand.class, LoadCommand.class, CompareCommand.class,
                GenerateCommand.class, InfoCommand.class, CommandLine.HelpCommand.class})
public final class Main {

    /** Runs the command line and exits with its status. */
    public static void main(String[] args) {
        // The CLI prints its own results; the library's logs show from WARN up unless asked otherwise.
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        // Ctrl-C (SIGINT/SIGTERM) interrupts the command, whose cleanup removes partial files and
        // frees buffers; the JVM waits for it a few seconds before exiting.
        Thread main = Thread.currentThread();
        java.util.concurrent.CountDownLatch finished = new java.util.concurrent.CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            main.interrupt();
            try {
                finished.await(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "dgen4j-interrupt"));
        int code;
        try {
            code = run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true));
        } finally {
            finished.countDown();
        }
        System.exit(code);
    }

    /** Runs the command line with the given output streams; returns the exit status. */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(out);
        cl.setErr(err);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            cmd.getErr().println("dgen4j: " + describe(ex));
            return 1;
        });
        return cl.execute(args);
    }

    static String describe(Throwable ex) {
        String msg = ex.getMessage();
        return msg == null || msg.isBlank() ? ex.toString() : msg;
    }

    /** The project version the build filtered into the jar ({@link BuildVersion}). */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {BuildVersion.line()};
        }
    }
}
