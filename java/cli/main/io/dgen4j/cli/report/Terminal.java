package io.dgen4j.cli.report;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether a standard stream of this process is a terminal, asked of the file descriptor itself.
 *
 * <p>{@code System.console()} cannot answer for stderr: since JDK 22 it exists even when the
 * streams are redirected, and {@code Console.isTerminal()} describes stdin and stdout, not
 * stderr, where the progress bar goes. So this calls libc's {@code isatty(3)} through FFM, and
 * where that cannot be linked (native access denied) reads {@code /proc/self/fd/N}'s target.
 */
final class Terminal {
    static final int STDERR = 2;

    private static final MethodHandle ISATTY = isattyHandle();

    private Terminal() {}

    /** True when stderr is a terminal (a bar drawn there reaches a person). */
    public static boolean stderrIsTerminal() {
        return isTerminal(STDERR);
    }

    /** True when file descriptor {@code fd} of this process is a terminal. */
    static boolean isTerminal(int fd) {
        if (ISATTY != null) {
            try {
                return (int) ISATTY.invokeExact(fd) == 1;
            } catch (Throwable t) {
                // isatty cannot throw; a failed call only means "no terminal known": fall through
            }
        }
        return procLinkIsTerminal(fd);
    }

    /** The Linux fallback: the descriptor's /proc link names a terminal device. */
    static boolean procLinkIsTerminal(int fd) {
        try {
            return isTerminalDevice(Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString());
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return false; // no /proc (not Linux) or a closed descriptor: no bar
        }
    }

    /** Pseudo-terminals, virtual consoles and serial terminals; pipes, files and /dev/null are not. */
    static boolean isTerminalDevice(String target) {
        return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty") || target.equals("/dev/console");
    }

    private static MethodHandle isattyHandle() {
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find("isatty")
                    .map(a -> linker.downcallHandle(a, FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT)))
                    .orElse(null);
        } catch (IllegalCallerException | UnsupportedOperationException e) {
            return null; // native access denied (--illegal-native-access=deny) or no native linker
        }
    }
}
