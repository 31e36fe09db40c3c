package io.dgen4j.ffi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.dgen4j.nativelib.NativeLibrary;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * jextract/dgen4j.h, the symbols the built libdgen4j.so exports and the descriptors of
 * {@link dgen4j_h} agree: a function added, removed or changed on one side only fails here.
 */
class AbiAgreementTest {
    private static final Pattern PROTOTYPE = Pattern.compile(
            "^\\s*((?:const\\s+)?[A-Za-z_][A-Za-z0-9_]*(?:\\s*\\*+)?)\\s*\\b(dgen4j_[a-z0-9_]+)\\s*\\(([^)]*)\\)\\s*;",
            Pattern.MULTILINE);
    private static final Pattern DEFINE = Pattern.compile("^#define\\s+(DGEN4J_[A-Z0-9_]+)\\s+(-?\\d+)\\s*$",
            Pattern.MULTILINE);

    private static String header;

    @BeforeAll
    static void load() throws Exception {
        NativeLibrary.ensureLoaded();
        header = Files.readString(Path.of(System.getProperty("dgen4j.test.header")))
                .replaceAll("/\\*(?s:.*?)\\*/", " ");
    }

    /** The layout jextract uses for a C type of this header (LP64 Linux). */
    static Optional<MemoryLayout> layoutOf(String cType) {
        String t = cType.replace("const", "").replaceAll("\\s+", " ").trim();
        if (t.contains("*")) {
            return Optional.of(dgen4j_h.C_POINTER);
        }
        return switch (t) {
            case "void" -> Optional.empty();
            case "int32_t", "uint32_t", "int" -> Optional.of(dgen4j_h.C_INT);
            case "int64_t", "uint64_t", "size_t" -> Optional.of(dgen4j_h.C_LONG);
            case "double" -> Optional.of(dgen4j_h.C_DOUBLE);
            case "uint8_t", "char" -> Optional.of(dgen4j_h.C_CHAR);
            default -> throw new AssertionError("add a layout for C type '" + t + "' to this test");
        };
    }

    static Map<String, FunctionDescriptor> headerFunctions() {
        Map<String, FunctionDescriptor> fns = new TreeMap<>();
        Matcher m = PROTOTYPE.matcher(header);
        while (m.find()) {
            Optional<MemoryLayout> ret = layoutOf(m.group(1));
            List<MemoryLayout> args = new ArrayList<>();
            String params = m.group(3).trim();
            if (!params.equals("void") && !params.isEmpty()) {
                for (String p : params.split(",")) {
                    String decl = p.trim();
                    // drop the parameter name: the last identifier, keeping any '*'
                    String type = decl.replaceAll("([*\\s])[A-Za-z_][A-Za-z0-9_]*$", "$1").trim();
                    args.add(layoutOf(type).orElseThrow());
                }
            }
            MemoryLayout[] a = args.toArray(MemoryLayout[]::new);
            fns.put(m.group(2), ret.map(r -> FunctionDescriptor.of(r, a)).orElseGet(() -> FunctionDescriptor.ofVoid(a)));
        }
        return fns;
    }

    static Map<String, FunctionDescriptor> javaFunctions() throws Exception {
        Map<String, FunctionDescriptor> fns = new TreeMap<>();
        for (Method m : dgen4j_h.class.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && m.getName().endsWith("$descriptor")) {
                fns.put(m.getName().substring(0, m.getName().length() - "$descriptor".length()),
                        (FunctionDescriptor) m.invoke(null));
            }
        }
        return fns;
    }

    @Test
    void headerAndJavaDescribeTheSameFunctions() throws Exception {
        Map<String, FunctionDescriptor> h = headerFunctions();
        assertFalse(h.isEmpty(), "no prototypes parsed from the header");
        assertEquals(h.keySet(), javaFunctions().keySet(), "functions in dgen4j.h vs dgen4j_h.java");
        Map<String, FunctionDescriptor> j = javaFunctions();
        for (var e : h.entrySet()) {
            assertEquals(e.getValue(), j.get(e.getKey()), "descriptor of " + e.getKey());
        }
    }

    @Test
    void libraryExportsExactlyTheHeaderFunctions() throws Exception {
        Path lib = Path.of(System.getProperty("dgen4j.test.nativeLib"));
        var exported = ElfSymbols.exportedFunctions(lib).stream().filter(s -> s.startsWith("dgen4j_")).toList();
        assertEquals(List.copyOf(headerFunctions().keySet()), exported, "dgen4j.h vs symbols of " + lib);
    }

    @Test
    void theJextractArgfileIncludesExactlyTheHeaderFunctions() throws Exception {
        Path args = Path.of(System.getProperty("dgen4j.test.header")).resolveSibling("dgen4j.args");
        List<String> lines = Files.readAllLines(args).stream().map(String::trim).toList();
        List<String> included = new ArrayList<>();
        for (int i = 0; i + 1 < lines.size(); i++) {
            if (lines.get(i).equals("--include-function")) {
                included.add(lines.get(i + 1));
            }
        }
        assertEquals(List.copyOf(headerFunctions().keySet()), included.stream().sorted().toList(),
                "--include-function lines of " + args + " vs dgen4j.h");
    }

    @Test
    void everyJavaHandleResolves() throws Exception {
        for (String fn : javaFunctions().keySet()) {
            Method addr = dgen4j_h.class.getMethod(fn + "$address");
            assertFalse(((java.lang.foreign.MemorySegment) addr.invoke(null)).equals(java.lang.foreign.MemorySegment.NULL), fn);
        }
    }

    @Test
    void macrosAgree() throws Exception {
        Map<String, Integer> inHeader = new TreeMap<>();
        Matcher m = DEFINE.matcher(header);
        while (m.find()) {
            inHeader.put(m.group(1), Integer.parseInt(m.group(2)));
        }
        Map<String, Integer> inJava = new TreeMap<>();
        for (Method g : dgen4j_h.class.getDeclaredMethods()) {
            if (Modifier.isPublic(g.getModifiers()) && g.getName().startsWith("DGEN4J_") && g.getParameterCount() == 0) {
                inJava.put(g.getName(), (Integer) g.invoke(null));
            }
        }
        assertFalse(inHeader.isEmpty(), "no DGEN4J_* constants parsed from the header");
        assertEquals(inHeader, inJava, "DGEN4J_* constants in dgen4j.h vs dgen4j_h.java");
    }
}
