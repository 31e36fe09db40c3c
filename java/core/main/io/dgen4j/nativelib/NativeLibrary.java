package io.dgen4j.nativelib;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Finds, extracts and loads the bundled {@code libdgen4j.so}, once per class loader.
 *
 * <p>Where the library comes from, in order:
 * <ol>
 *   <li>{@value #PROP_DISABLE}{@code =true}: nothing is loaded; callers use the pure-Java twin.</li>
 *   <li>{@value #PROP_PATH}: that file, and nothing else.</li>
 *   <li>the jar resource {@code /io/dgen4j/native/<os>-<arch>/libdgen4j.so}, copied into a private
 *       directory under {@value #PROP_TMPDIR} (default {@code java.io.tmpdir}), loaded, and
 *       deleted again (the mapping outlives the file, so nothing is left behind).</li>
 * </ol>
 * The library is opened with {@link SymbolLookup#libraryLookup(Path, Arena)} in the global arena
 * (it stays mapped for the life of the process), and the bindings ({@code io.dgen4j.ffi}) find their
 * symbols in that lookup ({@link #symbols()}), not in the class loader's: nothing else in the
 * process can shadow or be shadowed by them. A failure is kept as one {@link LinkageError} that
 * names the platform, what was tried and the two properties; {@link #ensureLoaded()} throws it,
 * {@link #failure()} returns it.
 *
 * {@snippet :
 * if (NativeLibrary.isAvailable()) {
 *     System.out.println("native core from " + NativeLibrary.source());
 * }
 * }
 */
public final class NativeLibrary {
    /** Set to {@code true} to use the pure-Java generator and never load native code. */
    public static final String PROP_DISABLE = "dgen4j.native.disable";
    /** Path of a {@code libdgen4j.so} to load instead of the bundled one. */
    public static final String PROP_PATH = "dgen4j.native.path";
    /** Directory under which the bundled library is extracted (default {@code java.io.tmpdir}). */
    public static final String PROP_TMPDIR = "dgen4j.native.tmpdir";
    /** Set to {@code true} to make a failed load an error instead of a fallback to the twin. */
    public static final String PROP_REQUIRE = "dgen4j.native.require";

    /** The C contract version this class was written against ({@code dgen4j_abi_version()}). */
    public static final int ABI_VERSION = 1;
    /** The stream format version the bundled core must produce ({@code docs/FORMAT.md}). */
    public static final int FORMAT_VERSION = 1;

    private NativeLibrary() {}

    private record State(SymbolLookup symbols, String source, LinkageError failure, boolean disabled) {
        boolean loaded() {
            return symbols != null;
        }
    }

    /** Finds nothing: the symbols of a library that did not load. */
    private static final SymbolLookup NONE = name -> Optional.empty();

    private static final class Holder {
        static final State STATE = load();
    }

    /**
     * The symbols of the loaded library, for the bindings; a lookup that finds nothing when it did
     * not load (the bindings then fail with {@link UnsatisfiedLinkError}, but callers check
     * {@link #ensureLoaded()} first).
     */
    public static SymbolLookup symbols() {
        State s = Holder.STATE;
        return s.loaded() ? s.symbols() : NONE;
    }

    /** Whether the native core is loaded and usable. */
    public static boolean isAvailable() {
        return Holder.STATE.loaded();
    }

    /** Whether {@value #PROP_DISABLE} asked for the pure-Java twin. */
    public static boolean isDisabled() {
        return Holder.STATE.disabled();
    }

    /** Whether {@value #PROP_REQUIRE} demands the native core. */
    public static boolean isRequired() {
        return Boolean.getBoolean(PROP_REQUIRE);
    }

    /** Where the loaded library came from (a path or a jar resource), if it loaded. */
    public static Optional<String> source() {
        return Holder.STATE.loaded() ? Optional.of(Holder.STATE.source()) : Optional.empty();
    }

    /** Why the native core is not available, if it is not. */
    public static Optional<LinkageError> failure() {
        return Optional.ofNullable(Holder.STATE.failure());
    }

    /**
     * Loads the library if it is not loaded yet.
     *
     * @throws LinkageError when it cannot be loaded (or was disabled), with the reason
     */
    public static void ensureLoaded() {
        State s = Holder.STATE;
        if (!s.loaded()) {
            LinkageError e = new LinkageError(s.failure().getMessage(), s.failure().getCause());
            throw e;
        }
    }

    /** The platform directory name used for the bundled resource, e.g. {@code linux-x86_64}. */
    public static String platform() {
        String os = System.getProperty("os.name", "unknown").toLowerCase(Locale.ROOT);
        String osName = os.startsWith("linux") ? "linux"
                : os.startsWith("mac") || os.startsWith("darwin") ? "darwin"
                : os.startsWith("windows") ? "windows" : os.replaceAll("[^a-z0-9]", "");
        String arch = System.getProperty("os.arch", "unknown").toLowerCase(Locale.ROOT);
        String archName = switch (arch) {
            case "amd64", "x86_64", "x64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch64";
            default -> arch.replaceAll("[^a-z0-9_]", "");
        };
        return osName + "-" + archName;
    }

    /** The jar resource that holds the library for this platform. */
    public static String resourcePath() {
        return "/io/dgen4j/native/" + platform() + "/" + System.mapLibraryName("dgen4j");
    }

    private static State load() {
        if (Boolean.getBoolean(PROP_DISABLE)) {
            return new State(null, null, new LinkageError(
                    "dgen4j: the native core is disabled by -D" + PROP_DISABLE + "=true"), true);
        }
        List<String> tried = new ArrayList<>();
        String explicit = System.getProperty(PROP_PATH);
        try {
            if (explicit != null && !explicit.isBlank()) {
                Path p = Path.of(explicit).toAbsolutePath();
                tried.add(PROP_PATH + "=" + p);
                if (!Files.isRegularFile(p)) {
                    throw new IOException("no such file: " + p);
                }
                return new State(checkVersions(open(p)), p.toString(), null, false);
            }
            String resource = resourcePath();
            tried.add("jar resource " + resource);
            try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IOException("this jar has no native library for " + platform());
                }
                Path base = Path.of(System.getProperty(PROP_TMPDIR, System.getProperty("java.io.tmpdir")));
                Files.createDirectories(base);
                Path dir = Files.createTempDirectory(base, "dgen4j-",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                Path lib = dir.resolve(System.mapLibraryName("dgen4j"));
                SymbolLookup symbols;
                try {
                    Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
                    symbols = open(lib);
                } finally {
                    // The loaded mapping stays valid after unlink: leave no file behind.
                    Files.deleteIfExists(lib);
                    Files.deleteIfExists(dir);
                }
                return new State(checkVersions(symbols), resource, null, false);
            }
        } catch (IOException | UnsatisfiedLinkError | SecurityException | IllegalStateException
                 | IllegalArgumentException | UnsupportedOperationException e) {
            String msg = String.format(
                    "dgen4j: cannot load the native core for %s (os.name=%s, os.arch=%s); tried %s: %s. "
                            + "Set -D%s=/path/to/libdgen4j.so to load another build, or -D%s=true to use "
                            + "the pure-Java generator (same bytes, slower).",
                    platform(), System.getProperty("os.name"), System.getProperty("os.arch"),
                    String.join(", ", tried), e.getMessage(), PROP_PATH, PROP_DISABLE);
            return new State(null, null, new LinkageError(msg, e), false);
        }
    }

    /**
     * Opens the library for the life of the process.
     *
     * @throws IllegalArgumentException when it cannot be opened (the message is the dynamic loader's)
     */
    private static SymbolLookup open(Path lib) {
        return SymbolLookup.libraryLookup(lib, Arena.global());
    }

    /**
     * Checks that the library speaks this jar's C ABI and stream format, calling the two version
     * functions through {@code symbols} directly: the bindings' class must not initialise before the
     * library it binds has loaded.
     */
    private static SymbolLookup checkVersions(SymbolLookup symbols) {
        int abi = version(symbols, "dgen4j_abi_version");
        int format = version(symbols, "dgen4j_format_version");
        if (abi != ABI_VERSION || format != FORMAT_VERSION) {
            throw new IllegalStateException(String.format(
                    "the library speaks C ABI %d and format %d, this jar expects ABI %d and format %d",
                    abi, format, ABI_VERSION, FORMAT_VERSION));
        }
        return symbols;
    }

    private static int version(SymbolLookup symbols, String function) {
        MemorySegment address = symbols.find(function)
                .orElseThrow(() -> new UnsatisfiedLinkError("the library has no symbol " + function));
        try {
            return (int) Linker.nativeLinker().downcallHandle(address, FunctionDescriptor.of(ValueLayout.JAVA_INT))
                    .invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("calling " + function + " failed: " + t, t);
        }
    }
}
