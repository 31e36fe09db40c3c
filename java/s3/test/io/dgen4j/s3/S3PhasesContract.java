package io.dgen4j.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.Phase;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.storage.StorageTarget;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A save's and a load's report through a backend against a real s3proxy show the client's start
 * and the store's first requests (HeadBucket and CreateMultipartUpload; HeadObject) as phases of
 * their own beside the transfer, still adding up to the total, and name S3's commit for what it
 * is (a load once showed 1-2 s of client start and HEAD folded into "open, manifest read"). A
 * backend's test extends it and names the backend.
 */
public abstract class S3PhasesContract {
    private static final long CHUNK = 5L << 20;

    @RegisterExtension
    protected static final S3ProxyExtension S3 = new S3ProxyExtension();

    /** The backend under test ({@code aws}, {@code crt}, {@code minio}). */
    protected abstract String backend();

    private StreamingCheckpoint checkpoint() {
        // a checkpoint of its own: its session starts the backend's clients anew
        return StreamingCheckpoint.builder().chunkSize(CHUNK).buffers(2).writersInFlight(1).readersInFlight(1)
                .backend(backend()).backendOptions(S3.settings()).spec(DataSpec.builder().seed(3).build()).build();
    }

    private static Map<String, Phase> byKey(List<Phase> phases, double total) {
        double sum = phases.stream().mapToDouble(Phase::seconds).sum();
        assertEquals(total, sum, 1e-6, "phases " + phases + " against the total " + total);
        phases.forEach(p -> assertTrue(p.seconds() >= 0, p.toString()));
        return phases.stream().collect(Collectors.toMap(Phase::key, Function.identity(), (a, b) -> a,
                java.util.LinkedHashMap::new));
    }

    @Test
    protected void aSavesReportShowsClientStartFirstRequestsAndTheCompletion() throws Exception {
        StorageTarget target = StorageTarget.parse("s3://" + S3.bucket() + "/phases/save.bin");
        SaveResult r = checkpoint().save(target, 2 * CHUNK + 7);
        Map<String, Phase> p = byKey(r.phases(), r.totalSeconds());
        assertEquals(List.of("startUp", "open", "clientStart", "firstRequests", "firstChunk", "io", "generationStall",
                "drain", "commit"), List.copyOf(p.keySet()));
        assertTrue(p.get("clientStart").seconds() > 0, "a new session starts its client: " + p.get("clientStart"));
        assertTrue(p.get("firstRequests").what().startsWith("HeadBucket, CreateMultipartUpload"),
                p.get("firstRequests").what());
        assertEquals("complete", p.get("commit").label());
        assertTrue(p.get("commit").what().contains("CompleteMultipartUpload"), p.get("commit").what());
        assertEquals(r.closeSeconds(), p.get("commit").seconds(), 1e-9);
    }

    @Test
    protected void aLoadsReportShowsClientStartAndTheHeadBeforeTheReads() throws Exception {
        StorageTarget target = StorageTarget.parse("s3://" + S3.bucket() + "/phases/load.bin");
        checkpoint().save(target, CHUNK + 11);
        for (boolean verify : new boolean[] {false, true}) {
            LoadResult l = checkpoint().load(target, verify);
            Map<String, Phase> p = byKey(l.phases(), l.totalSeconds());
            assertEquals(List.of("open", "clientStart", "firstRequests", "startUp", "io", "readStall", "drain",
                    "release"), List.copyOf(p.keySet()));
            assertTrue(p.get("clientStart").seconds() > 0, p.get("clientStart").toString());
            assertTrue(p.get("firstRequests").what().startsWith("HeadObject"), p.get("firstRequests").what());
            assertEquals(l.readSeconds(), p.get("io").seconds(), 1e-9);
        }
    }
}
