package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;

/**
 * One in-process run of the CLI ({@link Main#run}) with a given environment, and what it printed.
 *
 * @param code the exit code
 * @param out  standard output
 * @param err  standard error
 */
record CliRun(int code, String out, String err) {
    /** Runs {@code args} with {@code env} as the whole environment. */
    static CliRun of(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true), env);
        return new CliRun(code, out.toString(), err.toString());
    }

    /**
     * {@link #of} through the caller's storage session, which the run neither waits for nor closes: what a
     * failed save left open stays in it.
     */
    static CliRun of(io.dgen4j.storage.Storage storage, Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true), env, storage);
        return new CliRun(code, out.toString(), err.toString());
    }

    /** {@link #of}, asserting that {@code secret} appears in neither output. */
    static CliRun hiding(String secret, Map<String, String> env, String... args) {
        CliRun r = of(env, args);
        assertFalse(r.out.contains(secret), r.out);
        assertFalse(r.err.contains(secret), r.err);
        return r;
    }
}
