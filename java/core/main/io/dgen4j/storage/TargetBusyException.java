package io.dgen4j.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;

/** A save could not start because another save (another process, or a thread of this one) is writing the same target. */
public final class TargetBusyException extends IOException {
    private static final long serialVersionUID = 1L;
    private final long pid;

    TargetBusyException(Path target, Optional<Long> owner) {
        super(String.format("%s is being written by another save (%s)", target,
                owner.map(p -> p == ProcessHandle.current().pid() ? "pid " + p + ", this process" : "pid " + p)
                        .orElse("pid unknown")));
        this.pid = owner.orElse(-1L);
    }

    /** The pid of the save that holds the target, when its lock file names it. */
    public OptionalLong ownerPid() {
        return pid < 0 ? OptionalLong.empty() : OptionalLong.of(pid);
    }
}
