package io.dgen4j.storage;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A child process for the commit fault tests: runs the real CLI ({@code io.dgen4j.cli.Main}) with
 * a commit step hook taken from system properties.
 * <ul>
 * <li>{@code probe.step=NAME}: the step to act on ({@link FileStorage.CommitStep});
 * <li>{@code probe.action=halt}: stop the process dead before the step (no clean-up runs: a kill -9
 *     or a power cut between two system calls);
 * <li>{@code probe.action=block}: create the file {@code probe.marker} and wait (interruptibly, up
 *     to 60 s) until it is removed, so the parent can signal or race this process there.
 * </ul>
 */
public final class CommitProbe {
    private CommitProbe() {}

    public static void main(String[] args) {
        String step = System.getProperty("probe.step");
        String action = System.getProperty("probe.action", "halt");
        Path marker = Path.of(System.getProperty("probe.marker", "/nonexistent"));
        FileStorage.stepHook((s, target) -> {
            if (!s.name().equals(step)) {
                return;
            }
            if (action.equals("halt")) {
                Runtime.getRuntime().halt(97);
            }
            Files.writeString(marker, Long.toString(ProcessHandle.current().pid()));
            try {
                for (int i = 0; i < 600 && Files.exists(marker); i++) {
                    Thread.sleep(100);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted at commit step " + s);
            }
        });
        io.dgen4j.cli.Main.main(args);
    }

}
