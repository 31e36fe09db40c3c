package example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.gen.DataSpec;
import io.dgen4j.gen.Generator;
import io.dgen4j.nativelib.NativeLibrary;
import org.junit.jupiter.api.Test;

class ConsumerTest {
    @Test
    void theInstalledJarLoadsItsNativeCoreWithNoSetup() throws Exception {
        assertTrue(NativeLibrary.isAvailable(), () -> NativeLibrary.failure().map(Throwable::getMessage).orElse("?"));
        assertEquals(NativeLibrary.resourcePath(), NativeLibrary.source().orElseThrow());
        DataSpec spec = DataSpec.builder().seed(7).size(65536).dedupRatio(2).compressRatio(3).build();
        try (Generator gen = Generator.open(spec)) {
            assertEquals("native", gen.implementation());
        }
        // docs/FORMAT.md section 6, second row
        String golden = "2e75df196fb011dad7710acd95e5647974a49ab12dda18da775727297c3eaa38";
        assertEquals(golden, Checksum.sha256(spec, Generator.Kind.NATIVE));
        assertEquals(golden, Checksum.sha256(spec, Generator.Kind.JAVA));
    }
}
