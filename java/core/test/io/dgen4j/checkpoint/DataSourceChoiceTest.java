package io.dgen4j.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.gen.Generator;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** One set of generator names: {@link Generator.Kind} for the stream, {@link DataSource} adding the jdk-random baseline. */
class DataSourceChoiceTest {
    @Test
    void everyKindIsASourceAndBack() {
        for (Generator.Kind k : Generator.Kind.values()) {
            DataSource d = DataSource.of(k);
            assertEquals(Optional.of(k), d.kind());
            assertEquals(k.label(), d.label());
            assertEquals(d, DataSource.parse(k.label()));
            assertEquals(k, Generator.Kind.parse(" " + k.label().toUpperCase(java.util.Locale.ROOT) + " "));
            assertTrue(d.verifiable(), d.label());
        }
        assertEquals(Optional.empty(), DataSource.JDK_RANDOM.kind());
        assertFalse(DataSource.JDK_RANDOM.verifiable());
        assertEquals("auto native java jdk-random", String.join(" ", java.util.Arrays.stream(DataSource.values())
                .map(DataSource::toString).toList()));
        assertEquals(DataSource.JDK_RANDOM, DataSource.parse("JDK_RANDOM"));
        assertEquals(DataSource.JDK_RANDOM, DataSource.parse(" jdk-random"));
    }

    @Test
    void unknownNamesAreRefusedNamingTheChoices() {
        assertEquals("'numpy' is not a generator (auto, native, java)",
                assertThrows(IllegalArgumentException.class, () -> Generator.Kind.parse("numpy")).getMessage());
        assertEquals("'jdk-random' is not a generator (auto, native, java)",
                assertThrows(IllegalArgumentException.class, () -> Generator.Kind.parse("jdk-random")).getMessage(),
                "the baseline fills checkpoints, it is no stream generator");
        assertEquals("'numpy' is not a generator (auto, native, java, jdk-random)",
                assertThrows(IllegalArgumentException.class, () -> DataSource.parse("numpy")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> Generator.Kind.parse(null));
    }
}
