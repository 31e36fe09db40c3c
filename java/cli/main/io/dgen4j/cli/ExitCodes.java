package io.dgen4j.cli;

import io.dgen4j.checkpoint.VerifyException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedByInterruptException;
import picocli.CommandLine;

/** The exit status of every command: one code per class of failure (docs/CLI.md, {@code --help} footer). */
public final class ExitCodes {
    /** The command did what it was asked. */
    public static final int OK = 0;
    /** A bug: a failure that no user input explains. */
    static final int INTERNAL = 1;
    /** Bad arguments: unknown option, malformed value, value out of range, impossible combination. */
    static final int USAGE = 2;
    /** An I/O failure: missing or unwritable path, full disk, failed read, write or fsync, closed stdout. */
    public static final int IO = 3;
    /** {@code load --verify} found a byte that differs from the regenerated stream. */
    static final int VERIFY = 4;
    /** Interrupted (SIGINT, SIGTERM): 128 + SIGINT, as shells report it. */
    public static final int INTERRUPTED = 130;

    private ExitCodes() {}

    /** The code for a failure that reached the command line. */
    public static int of(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            // a SocketTimeoutException is an InterruptedIOException too, but a timeout (exit 3)
            if (c instanceof InterruptedException || c instanceof InterruptedIOException
                    && !(c instanceof java.net.SocketTimeoutException)
                    || c instanceof ClosedByInterruptException) {
                return INTERRUPTED;
            }
            if (c.getCause() == c) {
                break;
            }
        }
        Throwable e = t instanceof CommandLine.ExecutionException && t.getCause() != null ? t.getCause() : t;
        if (e instanceof AssertionError && e.getCause() instanceof RuntimeException r) {
            e = r; // a downcall's exception, wrapped by the bindings
        }
        return switch (e) {
            case VerifyException v -> VERIFY;
            case IOException io -> IO;
            case UncheckedIOException io -> IO;
            case CommandLine.ParameterException p -> USAGE;
            case CommandLine.TypeConversionException p -> USAGE;
            case IllegalArgumentException a -> USAGE;
            default -> INTERNAL;
        };
    }
}
