package io.dgen4j.cli;

import io.dgen4j.cli.command.BackendsCommand;
import io.dgen4j.cli.command.BenchCommand;
import io.dgen4j.cli.command.CompareCommand;
import io.dgen4j.cli.command.DlioCommand;
import io.dgen4j.cli.command.EndpointsCommand;
import io.dgen4j.cli.command.GenerateCommand;
import io.dgen4j.cli.command.InfoCommand;
import io.dgen4j.cli.command.InspectCommand;
import io.dgen4j.cli.command.LoadCommand;
import io.dgen4j.cli.command.QuickstartCommand;
import io.dgen4j.cli.command.SaveCommand;
import io.dgen4j.storage.Storage;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code dgen4j} command line: the only part of dgen4j that prints. */
// scope INHERIT: every subcommand's --version prints the same line (versionProvider is inherited)
@Command(name = "dgen4j", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        scope = CommandLine.ScopeType.INHERIT,
        description = "Synthetic ML-checkpoint data at memory speed, with exact dedup and compression ratios.",
        footerHeading = "%nExit status:%n", footer = {
                "  0    success",
                "  1    internal error (a bug: please report it)",
                "  2    bad arguments or usage",
                "  3    I/O failure (the message names the path and, where known, the offset)",
                "  4    verification failed (load --verify found a byte that differs)",
                "  130  interrupted (Ctrl-C; SIGTERM ends with 143)"},
        subcommands = {QuickstartCommand.class, SaveCommand.class, LoadCommand.class, CompareCommand.class,
                BackendsCommand.class, DlioCommand.class,
                EndpointsCommand.class,
                GenerateCommand.class, InfoCommand.class, InspectCommand.class, BenchCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Callable<Integer> {

    /** Runs the command line and exits with its status. */
    public static void main(String[] args) {
        boolean verbose = args != null && java.util.Arrays.asList(args).contains("--verbose");
        quietLogs(verbose);
        SecretMasking.install(System.getenv()); // before any logger or client exists
        // the command's storage session, for the message of a client thread that runs out of memory
        AtomicReference<Storage> session = new AtomicReference<>();
        // No stack trace on the console from any thread: ours catch what they throw; a client
        // library's thread that dies says so in one line (its trace with --verbose).
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            System.err.println("dgen4j: thread " + t.getName() + " failed: " + Errors.describe(e, session.get()));
            if (verbose) {
                e.printStackTrace();
            }
        });
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
            // PrintWriter swallows write errors; run() asks checkError() (which asks System.out)
            // after the command, so a closed or failing stdout is reported and exits nonzero.
            PrintWriter err = new PrintWriter(System.err, true);
            Map<String, String> env = System.getenv();
            code = execute(args, new PrintWriter(System.out, true), err, new Environment(env, true), session::set);
        } finally {
            finished.countDown();
        }
        System.exit(code);
    }

    /**
     * The CLI prints its own results: dgen4j's logs show from WARN up (INFO with {@code --verbose});
     * the client libraries' (Netty, the AWS SDK and its CRT client, OkHttp), which print stack traces
     * for failures the backends already report in one line, show only with {@code --verbose} (from
     * WARN up). dgen4j's own warnings that only lead up to a failure the CLI reports in its one line, or
     * that the report repeats, show only with {@code --verbose} too ({@link #VERBOSE_WARNINGS}). A level
     * asked for with {@code -Dorg.slf4j.simpleLogger.defaultLogLevel} applies to every logger.
     */
    static void quietLogs(boolean verbose) {
        // a level asked for with -D applies to every logger, the libraries' included
        boolean asked = System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") != null;
        setIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", verbose ? "info" : "warn");
        for (String library : List.of("io.netty", "software.amazon.awssdk", "okhttp3", "io.minio", "com.azure",
                "reactor")) {
            if (!asked) {
                setIfAbsent("org.slf4j.simpleLogger.log." + library, verbose ? "warn" : "off");
            }
        }
        for (String logger : VERBOSE_WARNINGS) {
            if (!asked && !verbose) {
                setIfAbsent("org.slf4j.simpleLogger.log." + logger, "error");
            }
        }
        // OkHttp logs through java.util.logging (e.g. "A connection to ... was leaked"), and so does
        // Apache's HTTP client (the aws backend's GETs) through commons-logging, which finds no other log
        for (java.util.logging.Logger l : JUL_LOGS) {
            l.setLevel(verbose ? java.util.logging.Level.WARNING : java.util.logging.Level.OFF);
        }
    }

    /**
     * dgen4j's loggers whose warnings show only with {@code --verbose} (their errors always): an S3
     * endpoint marked down (a failed run's one line names each endpoint's cause; a run that goes on
     * reports it in its endpoint table: times down, state, last failure) and a client that failed to
     * close. The other warnings show, as they matter while the run goes on: the pure-Java generator in
     * use, stale temporary files removed, a file changed during its load, a part damaged on its way.
     */
    static final List<String> VERBOSE_WARNINGS = List.of("io.dgen4j.s3.internal.Requests",
            "io.dgen4j.s3.internal.S3Endpoints", "io.dgen4j.minio.MinioClients");

    /** Held: java.util.logging forgets the level of a logger nothing references. */
    private static final List<java.util.logging.Logger> JUL_LOGS = List.of(
            java.util.logging.Logger.getLogger("okhttp3"), java.util.logging.Logger.getLogger("org.apache.http"));

    private static void setIfAbsent(String property, String value) {
        if (System.getProperty(property) == null) {
            System.setProperty(property, value);
        }
    }

    /**
     * Runs the command line with the given output streams; returns the exit status
     * ({@link ExitCodes}). Never throws: every failure becomes one line on {@code err}. The command
     * runs with a storage session of its own, closed before this returns (after a bounded wait for the
     * uploads a failure left open: {@link #abortUploadsLeftOpen}).
     */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        return run(args, out, err, System.getenv());
    }

    /**
     * {@link #run(String[], PrintWriter, PrintWriter)} with {@code env} in place of the process's
     * environment for what the commands read from it (S3 settings, the S3 backend, the generator): for
     * tests and embedding.
     */
    public static int run(String[] args, PrintWriter out, PrintWriter err, java.util.Map<String, String> env) {
        return execute(args, out, err, new Environment(env, env.equals(System.getenv())), s -> { });
    }

    /**
     * {@link #run(String[], PrintWriter, PrintWriter, Map)} through the caller's storage session, which
     * it neither waits for nor closes (for tests that look at what a failed command left open).
     */
    static int run(String[] args, PrintWriter out, PrintWriter err, Map<String, String> env, Storage storage) {
        return execute(args, out, err, new Environment(env, env.equals(System.getenv()), storage));
    }

    /**
     * The command line with its commands made for {@code env} (they read their variables from it), for
     * tools that read the commands' options (tests, documentation); {@link #run} runs it.
     */
    static CommandLine commandLine(java.util.Map<String, String> env) {
        return commandLine(new Environment(env, env.equals(System.getenv())));
    }

    private static CommandLine commandLine(Environment env) {
        CommandLine cl = new CommandLine(new Main(), new Factory(env));
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setHelpFactory(HelpWrap.FACTORY); // lines broken at spaces, never inside a URL or a file name
        // No @argument-files: a target may start with '@', and picocli reports an unreadable
        // argument file with a stack trace.
        cl.setExpandAtFiles(false);
        return cl;
    }

    /**
     * Runs the command line with a storage session of its own (handed to {@code opened}), over the
     * environment's variables and the working directory; then, for uploads a failure left open,
     * waits and reports ({@link #abortUploadsLeftOpen}) and closes the session.
     */
    private static int execute(String[] args, PrintWriter out, PrintWriter err, Environment env,
                               java.util.function.Consumer<Storage> opened) {
        Storage storage;
        try {
            // the CLI's own variable is checked before any command runs, not when a failed save needs it
            abortWaitSeconds(env.get(ABORT_WAIT_VAR));
            storage = Storage.open(env.variables(), Path.of(""));
        } catch (Throwable t) {
            int code = fail(err, t, null);
            err.flush();
            return code;
        }
        opened.accept(storage);
        try {
            return execute(args, out, err, new Environment(env.variables(), env.isProcess(), storage));
        } finally {
            abortUploadsLeftOpen(err, storage, env.get(ABORT_WAIT_VAR));
            storage.close(Duration.ZERO); // waited for above; what is still open was reported
            err.flush();
        }
    }

    private static int execute(String[] args, PrintWriter out, PrintWriter err, Environment env) {
        int code;
        try {
            CommandLine cl = commandLine(env);
            cl.setOut(out);
            cl.setErr(err);
            cl.setParameterExceptionHandler((ex, a) -> {
                err.println("dgen4j: " + Errors.parameterMessage(ex));
                return ExitCodes.USAGE;
            });
            cl.setExecutionExceptionHandler((ex, cmd, parsed) -> fail(err, ex, env.storage()));
            code = cl.execute(args == null ? new String[0] : args);
        } catch (Throwable t) { // Errors (OutOfMemoryError, LinkageError, ...) escape picocli's handlers
            code = fail(err, t, env.storage());
        }
        out.flush();
        if (out.checkError()) {
            err.println("dgen4j: cannot write to standard output (closed, or the reader went away)");
            code = code == ExitCodes.OK ? ExitCodes.IO : code;
        }
        err.flush();
        return code;
    }

    /** Seconds the process waits, before it exits, for an S3 endpoint to abort the uploads a failure left open. */
    static final String ABORT_WAIT_VAR = Storage.ABORT_WAIT_VAR;
    /** The longest wait {@value #ABORT_WAIT_VAR} may ask for: an hour. */
    static final long MAX_ABORT_WAIT_SECONDS = Storage.MAX_ABORT_WAIT_SECONDS;

    /**
     * The wait {@value #ABORT_WAIT_VAR} asks for ({@link Storage#abortWaitSeconds}).
     *
     * @throws IllegalArgumentException naming the variable and the range
     */
    static long abortWaitSeconds(String setting) {
        return Storage.abortWaitSeconds(setting);
    }

    /**
     * A save that failed with every S3 endpoint down leaves its multipart upload open (its parts keep
     * their storage); the command's storage session aborts it in the background once an endpoint
     * answers, but only while it is open. So before closing it, the CLI waits a bounded time for that
     * ({@value #ABORT_WAIT_VAR} seconds, default 30; 0 does not wait; Ctrl-C stops the wait) and
     * says what happened: aborted, or still open with the command that aborts it.
     */
    static void abortUploadsLeftOpen(PrintWriter err, Storage storage, String waitSetting) {
        List<String> open = storage.uploadsLeftOpen();
        if (open.isEmpty()) {
            return;
        }
        long seconds;
        try {
            seconds = abortWaitSeconds(waitSetting); // refused before the command ran (execute)
        } catch (IllegalArgumentException e) {
            seconds = Storage.DEFAULT_ABORT_WAIT_SECONDS;
        }
        String which = String.join(", ", open);
        if (seconds > 0) {
            err.printf("dgen4j: waiting up to %d s for an S3 endpoint to answer, to abort %s (Ctrl-C leaves it open; "
                    + "%s sets the wait)%n", seconds, which, ABORT_WAIT_VAR);
            try {
                open = storage.awaitUploadsLeftOpen(Duration.ofSeconds(seconds));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                open = storage.uploadsLeftOpen();
            }
            if (open.isEmpty()) {
                err.println("dgen4j: aborted " + which + ": nothing is left open");
                return;
            }
        }
        List<String> commands = storage.abortCommands();
        err.println("dgen4j: still open: " + String.join(", ", open) + "; abort " + (open.size() == 1 ? "it" : "them")
                + " when a gateway is back" + (commands.isEmpty() ? "" : " with: " + String.join("; ", commands))
                + ", or let a lifecycle rule expire " + (open.size() == 1 ? "it" : "them"));
    }

    private static int fail(PrintWriter err, Throwable t, Storage storage) {
        if (t instanceof OutOfMemoryError) {
            System.gc(); // give back what the failed command held before formatting the message
        }
        err.println("dgen4j: " + Errors.describe(t, storage));
        return ExitCodes.of(t);
    }

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Read by {@link #main} before parsing (logging is set up before any command runs); declared for picocli. */
    @CommandLine.Option(names = "--verbose", scope = CommandLine.ScopeType.INHERIT,
            description = "Also show dgen4j's INFO log and the client libraries' warnings (Netty, the AWS SDK and CRT, "
                    + "OkHttp) with their stack traces on stderr.")
    boolean verbose;

    /** {@code dgen4j} without a command. */
    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing a command");
    }

    /**
     * Makes the commands (and what picocli makes for them): a class with a public constructor that takes an
     * {@link Environment} gets the command line's, every other class picocli's default.
     */
    private record Factory(Environment env) implements CommandLine.IFactory {
        @Override
        public <K> K create(Class<K> cls) throws Exception {
            for (java.lang.reflect.Constructor<?> c : cls.getConstructors()) {
                if (c.getParameterCount() == 1 && c.getParameterTypes()[0] == Environment.class) {
                    return cls.cast(c.newInstance(env));
                }
            }
            return CommandLine.defaultFactory().create(cls);
        }
    }

    /** The project version the build filtered into the jar ({@link BuildVersion}). */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {BuildVersion.line()};
        }
    }
}
