package io.dgen4j.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HexFormat;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The golden values of docs/FORMAT.md section 6, from both implementations. */
class GoldenValuesTest {

    static Stream<Arguments> golden() {
        return Stream.of(
                Arguments.of(7L, 65536L, 4096, 1.0, 1.0, 0L, 65536L,
                        "f4f5c255b62585875437eb3bf62bde19b261e2ada5221992a0a7debeb3bc89cf"),
                Arguments.of(7L, 65536L, 4096, 2.0, 3.0, 0L, 65536L,
                        "2e75df196fb011dad7710acd95e5647974a49ab12dda18da775727297c3eaa38"),
                Arguments.of(7L, 65536L, 4096, 2.0, 3.0, 1000L, 3000L,
                        "cdd4added3f16ab62687eacb46fbebd00c74fdcf80e6f7a9c8b5593bbea0520f"),
                Arguments.of(42L, 100000L, 512, 1.5, 1.0, 0L, 100000L,
                        "078d32a9d391542abfaa4180529f33cc49fafe065c9f3d7445d7b252a4a44ff9"),
                Arguments.of(0L, 300000L, 65536, 3.0, 8.0, 0L, 300000L,
                        "6c804e3608a18b4147ef56ff037d662d681a9bccf24661ff1e79ef68a702bcbb"),
                Arguments.of(-1L, 40960L, 1024, 7.3, 2.5, 123L, 40000L,
                        "55ee8dfe19845cfa49ee4f008ae74bca638777aa32677d1acda42480a3a97b3b"));
    }

    @ParameterizedTest(name = "seed {0} size {1} block {2} dedup {3} compress {4} [{5}+{6}) {7}")
    @MethodSource("golden")
    void javaTwinMatchesFormatDoc(long seed, long size, int block, double dedup, double compress,
                                  long offset, long length, String sha) {
        DataSpec spec = spec(seed, size, block, dedup, compress);
        try (Generator gen = Generator.open(spec, Generator.Kind.JAVA, 1)) {
            assertEquals(sha, Streams.sha256(Streams.bytes(gen, offset, length)));
        }
    }

    @ParameterizedTest(name = "seed {0} size {1} block {2} dedup {3} compress {4} [{5}+{6}) {7}")
    @MethodSource("golden")
    void bothTwinKernelsMatchFormatDoc(long seed, long size, int block, double dedup, double compress,
                                       long offset, long length, String sha) {
        DataSpec spec = spec(seed, size, block, dedup, compress);
        for (JavaGenerator.Kernel k : new JavaGenerator.Kernel[] {JavaGenerator.Kernel.VECTOR, JavaGenerator.Kernel.SCALAR}) {
            try (Generator gen = new JavaGenerator(spec, 2, k)) {
                assertEquals(sha, Streams.sha256(Streams.bytes(gen, offset, length)), gen.implementation());
            }
        }
    }

    @ParameterizedTest(name = "seed {0} size {1} block {2} dedup {3} compress {4} [{5}+{6}) {7}")
    @MethodSource("golden")
    void nativeCoreMatchesFormatDoc(long seed, long size, int block, double dedup, double compress,
                                    long offset, long length, String sha) {
        DataSpec spec = spec(seed, size, block, dedup, compress);
        try (Generator gen = Generator.open(spec, Generator.Kind.NATIVE, 2)) {
            assertEquals(sha, Streams.sha256(Streams.bytes(gen, offset, length)));
        }
    }

    @Test
    void firstSixteenBytes() {
        DataSpec spec = spec(7, 65536, 4096, 1, 1);
        for (Generator.Kind kind : new Generator.Kind[] {Generator.Kind.JAVA, Generator.Kind.NATIVE}) {
            try (Generator gen = Generator.open(spec, kind, 1)) {
                assertEquals("36f52e8a8e74212d8df3a674d4910b3b", HexFormat.of().formatHex(Streams.bytes(gen, 0, 16)),
                        kind.toString());
            }
        }
    }

    static DataSpec spec(long seed, long size, int block, double dedup, double compress) {
        return DataSpec.builder().seed(seed).size(size).blockSize(block).dedupRatio(dedup).compressRatio(compress).build();
    }
}
