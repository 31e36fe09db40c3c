package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.s3.EndpointSet;
import io.dgen4j.s3.internal.FakeTransport;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.S3StorageProvider;
import io.dgen4j.storage.Storage;
import org.junit.jupiter.api.Test;

/**
 * An {@link OutOfMemoryError} is reported as what ran out: the Java heap with its size, or the
 * native memory of the data buffers; with the S3 endpoints open when there is a set, and never the
 * advice to use a smaller {@code --size} (the data lives outside the heap).
 */
class OutOfMemoryMessageTest {
    private static final long HEAP_MIB = Runtime.getRuntime().maxMemory() >> 20;

    @Test
    void aFullHeapNamesTheHeapAndItsSizeNotTheCheckpointSize() {
        String advice = "; give the JVM more heap: dgen4j -Xmx512m ... (the launcher's default is -Xmx96m), or "
                + "DGEN4J_JAVA_OPTS";
        String m = Errors.describe(new OutOfMemoryError("Java heap space"));
        assertTrue(m.startsWith("out of memory: the Java heap (" + HEAP_MIB + " MiB) is full (Java heap space)"), m);
        assertTrue(m.endsWith(advice), m);
        assertFalse(m.contains("--size"), m);
        String meta = Errors.describe(new OutOfMemoryError("Metaspace"));
        assertTrue(meta.startsWith("out of memory: Metaspace (Java heap " + HEAP_MIB + " MiB)") && meta.endsWith(advice),
                meta);
    }

    @Test
    void nativeMemoryForTheBuffersNamesTheBufferOptions() {
        assertEquals("out of native memory for the data buffers (Unable to allocate 1073741824 bytes): use a smaller "
                + "--chunk or fewer --buffers", Errors.describe(new OutOfMemoryError("Unable to allocate 1073741824 bytes")));
    }

    @Test
    void theEndpointsOpenAreCounted() throws Exception {
        FakeTransport.Cluster c = new FakeTransport.Cluster("oom", false);
        S3Settings s = S3Settings.builder().credentials("key", "secret", null)
                .endpointSet(EndpointSet.builder().endpoints(c.endpoints(250)).build()).build();
        try (Storage storage = Storage.open()) {
            storage.provider(S3StorageProvider.class).orElseThrow().pools().pool(c, s, null);
            String m = Errors.describe(new OutOfMemoryError("Java heap space"), storage);
            assertTrue(m.startsWith("out of memory: the Java heap (" + HEAP_MIB + " MiB) is full (Java heap space) "
                    + "with 250 S3 endpoints open (0 in use; each in use takes heap, see docs/ENDPOINTS.md); give the "
                    + "JVM more heap: "), m);
            // the count is the session's: another session's pools are not in it
            try (Storage other = Storage.open()) {
                assertFalse(Errors.describe(new OutOfMemoryError("Java heap space"), other).contains("endpoints open"));
            }
        }
    }
}
