package io.dgen4j.cli;

import io.dgen4j.checkpoint.CheckpointException;
import io.dgen4j.s3.S3StorageProvider;
import io.dgen4j.storage.Secrets;
import io.dgen4j.storage.Storage;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.List;
import picocli.CommandLine;

/** Turns any failure into the one line the CLI prints after {@code "dgen4j: "}: what, then (path, offset). */
public final class Errors {
    private Errors() {}

    /** One line describing {@code t}, without a stack trace. */
    public static String describe(Throwable t) {
        return describe(t, null);
    }

    /**
     * One line describing {@code t}, without a stack trace; running out of memory counts the S3 endpoints
     * {@code storage} (the command's session, or null) holds open.
     */
    public static String describe(Throwable t, Storage storage) {
        Throwable e = t instanceof CommandLine.ExecutionException && t.getCause() != null ? t.getCause() : t;
        // Bindings of jextract's shape wrap whatever a downcall throws in AssertionError.
        if (e instanceof AssertionError && e.getCause() instanceof RuntimeException r) {
            e = r;
        }
        String msg = switch (e) {
            case FileSystemException fs -> fileSystem(fs);
            case CheckpointException ce -> checkpoint(ce);
            case OutOfMemoryError oom -> outOfMemory(oom, storage);
            case StackOverflowError so -> "internal error: stack overflow (please report it)";
            case LinkageError le -> "cannot load a part of dgen4j: " + text(le, le.getClass().getSimpleName());
            case java.io.UncheckedIOException u when u.getCause() instanceof FileSystemException fs -> fileSystem(fs);
            case java.io.UncheckedIOException u -> text(u.getCause(), "I/O failure");
            case java.nio.file.InvalidPathException ip -> "not a valid path: " + ip.getMessage();
            case WrongThreadException w -> "internal error: " + text(w, "memory used from the wrong thread");
            case InterruptedException ie -> text(ie, "interrupted");
            case java.io.InterruptedIOException ie when ie.getMessage() == null || ie.getMessage().isBlank() ->
                    "interrupted";
            case java.io.IOException x when x.getMessage() == null || x.getMessage().isBlank() ->
                    "I/O failure" + (x.getCause() != null ? ": " + describe(x.getCause(), storage) : "");
            case Exception x when x.getMessage() == null || x.getMessage().isBlank() ->
                    "internal error: " + words(x.getClass().getSimpleName())
                            + (x.getCause() != null ? ": " + describe(x.getCause(), storage) : "");
            default -> text(e, words(e.getClass().getSimpleName()));
        };
        return oneLine(Secrets.mask(msg)); // a message that echoes a URL never shows its user:secret@
    }

    /**
     * What ran out, and only the advice that fits it: the data lives in native buffers, so a full
     * Java heap is rarely the checkpoint's size (an endpoint set's clients, a large input are); a
     * native allocation that fails is the buffers' ({@code --chunk}, {@code --buffers}).
     */
    static String outOfMemory(OutOfMemoryError oom, Storage storage) {
        String what = text(oom, "Java heap space");
        long heapMiB = Runtime.getRuntime().maxMemory() >> 20;
        if (what.startsWith("Unable to allocate") || what.startsWith("Cannot reserve")) {
            return "out of native memory for the data buffers (" + what + "): use a smaller --chunk or fewer --buffers";
        }
        StringBuilder b = new StringBuilder("out of memory: ");
        if (what.contains("heap space") || what.contains("GC overhead")) {
            b.append("the Java heap (").append(heapMiB).append(" MiB) is full (").append(what).append(')');
        } else {
            b.append(what).append(" (Java heap ").append(heapMiB).append(" MiB)");
        }
        int[] endpoints = storage == null || storage.isClosed() ? new int[] {0, 0}
                : storage.provider(S3StorageProvider.class).map(p -> p.pools().endpointsOpen()).orElse(new int[] {0, 0});
        if (endpoints[0] > 1) {
            b.append(" with ").append(endpoints[0]).append(" S3 endpoints open (").append(endpoints[1])
                    .append(" in use; each in use takes heap, see docs/ENDPOINTS.md)");
        }
        return b.append("; give the JVM more heap: dgen4j -Xmx512m ... (the launcher's default is -Xmx96m), or "
                + "DGEN4J_JAVA_OPTS").toString();
    }

    /** One line for a command-line parse error, with where to look for help. */
    static String parameterMessage(CommandLine.ParameterException ex) {
        String msg = text(ex, "bad arguments");
        if (msg.length() > 1 && Character.isUpperCase(msg.charAt(0)) && Character.isLowerCase(msg.charAt(1))) {
            msg = Character.toLowerCase(msg.charAt(0)) + msg.substring(1);
        }
        if (ex instanceof CommandLine.UnmatchedArgumentException u) {
            List<String> s = u.getSuggestions();
            if (!s.isEmpty()) {
                msg += "; did you mean " + String.join(" or ", s.subList(0, Math.min(3, s.size()))) + "?";
            }
        }
        CommandLine cl = ex.getCommandLine();
        String name = cl == null ? "dgen4j" : cl.getCommandSpec().qualifiedName();
        msg = oneLine(Secrets.mask(msg)); // picocli echoes the values it refuses
        if (msg.endsWith(".")) {
            msg = msg.substring(0, msg.length() - 1);
        }
        return msg + " (see '" + name + " --help')";
    }

    private static String checkpoint(CheckpointException ce) {
        String msg = text(ce, "checkpoint failure");
        // A wrapped file-system failure's own message is often just the path: say what happened.
        if (ce.getCause() instanceof FileSystemException fs && fs.getMessage() != null
                && msg.endsWith(fs.getMessage())) {
            msg = msg.substring(0, msg.length() - fs.getMessage().length()) + fileSystem(fs);
        }
        if (ce.offset().isPresent() && !msg.contains("offset")) {
            msg += " (at byte offset " + ce.offset().getAsLong() + ")";
        }
        return msg;
    }

    private static String fileSystem(FileSystemException fs) {
        String reason = fs.getReason();
        if (reason == null || reason.isBlank()) {
            reason = switch (fs) {
                case NoSuchFileException n -> "no such file or directory";
                case AccessDeniedException a -> "permission denied";
                case FileAlreadyExistsException f -> "file already exists";
                case NotDirectoryException n -> "not a directory";
                case DirectoryNotEmptyException d -> "directory not empty";
                default -> "file system error";
            };
        }
        String where = fs.getFile() == null ? "" : fs.getFile();
        if (fs.getOtherFile() != null) {
            where += " -> " + fs.getOtherFile();
        }
        return where.isEmpty() ? reason : reason + " (" + where + ")";
    }

    private static String text(Throwable t, String fallback) {
        String m = t == null ? null : t.getMessage();
        return m == null || m.isBlank() ? fallback : m;
    }

    /** "NullPointerException" → "null pointer exception". */
    private static String words(String className) {
        return className.replaceAll("([a-z])([A-Z])", "$1 $2").toLowerCase(java.util.Locale.ROOT);
    }

    private static String oneLine(String s) {
        // no control characters either: a garbage answer quoted in a message must not drive the terminal
        return s.replaceAll("\\s*\\R\\s*", " ").replaceAll("[\\p{Cntrl}\\uFFFD]", "?").strip();
    }
}
