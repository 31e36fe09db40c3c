package io.dgen4j.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The twin in a JVM with and one without {@code jdk.incubator.vector}: the vector kernel where the
 * module is in the boot layer, the scalar one (no {@code NoClassDefFoundError}) where it is not, and
 * the golden bytes and verify results either way.
 */
class VectorTwinTest {
    private static final String GOLDEN = "2e75df196fb011dad7710acd95e5647974a49ab12dda18da775727297c3eaa38";

    static String run(String... jvmArgs) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Ddgen4j.native.disable=true");
        cmd.addAll(List.of(jvmArgs));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(VectorTwinProbe.class.getName());
        Process p = new ProcessBuilder(cmd).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "probe JVM did not finish");
        assertEquals(0, p.exitValue(), out + err);
        return out;
    }

    static String value(String out, String key) {
        return out.lines().filter(l -> l.startsWith(key + "=")).map(l -> l.substring(key.length() + 1))
                .findFirst().orElseThrow(() -> new AssertionError("no " + key + " in:\n" + out));
    }

    @Test
    void withoutTheModuleTheScalarTwinRuns() throws Exception {
        String out = run();
        assertEquals("false", value(out, "available"));
        assertTrue(value(out, "status").contains("jdk.incubator.vector is not in the boot layer"), out);
        assertEquals("java-scalar", value(out, "impl"));
        assertEquals(GOLDEN, value(out, "sha"));
        assertEquals("-1", value(out, "equal"));
        assertEquals("40000", value(out, "flipped"));
        assertTrue(value(out, "forced").startsWith("the Vector API twin is not available: "), out);
    }

    @Test
    void withTheModuleTheVectorTwinRuns() throws Exception {
        String out = run("--add-modules=jdk.incubator.vector");
        assertEquals("true", value(out, "available"), out);
        assertEquals("java-vector", value(out, "impl"));
        assertEquals(GOLDEN, value(out, "sha"));
        assertEquals("-1", value(out, "equal"));
        assertEquals("40000", value(out, "flipped"));
        assertEquals("java-vector", value(out, "forced"));
    }

    @Test
    void theSwitchKeepsTheTwinScalar() throws Exception {
        String out = run("--add-modules=jdk.incubator.vector", "-D" + VectorSupport.PROP_DISABLE + "=true");
        assertEquals("java-scalar", value(out, "impl"));
        assertEquals(GOLDEN, value(out, "sha"));
    }
}
