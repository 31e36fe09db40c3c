package io.dgen4j.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.storage.OpenTimes;
import io.dgen4j.storage.StorageTarget;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every result's phases follow one another and add up to its total (a 1 GiB save once showed
 * I/O 0.474 s, fsync+rename 0.019 s and a total of 0.692 s, with 0.2 s nowhere), for both save
 * methods and for loads, and {@code toMap()} keeps its keys and adds {@code phases}.
 */
class PhasesTest {
    private static final long SIZE = 24L << 20;

    @TempDir
    Path dir;

    @AfterEach
    void noBufferLeaks() {
        assertEquals(0, BufferPool.liveBytes(), "buffer memory left allocated after the test");
    }

    private static StreamingCheckpoint ckpt() {
        return StreamingCheckpoint.builder().chunkSize(2 << 20).buffers(2).writersInFlight(1).readersInFlight(1).build();
    }

    private static void addsUp(List<Phase> phases, double total, List<String> keys) {
        assertEquals(keys, phases.stream().map(Phase::key).toList());
        double sum = 0;
        for (Phase p : phases) {
            assertTrue(p.seconds() >= 0, p.toString());
            assertTrue(!p.label().isBlank() && !p.what().isBlank(), p.toString());
            sum += p.seconds();
        }
        assertEquals(total, sum, 1e-6, "phases " + phases + " against the total " + total);
    }

    @Test
    void aStreamingSavesPhasesAddUpToItsTotal() throws Exception {
        SaveResult r = ckpt().save(dir.resolve("a.bin").toString(), SIZE);
        addsUp(r.phases(), r.totalSeconds(),
                List.of("startUp", "open", "firstChunk", "io", "generationStall", "drain", "commit"));
        Map<String, Double> p = byKey(r.phases());
        assertEquals(r.ioSeconds(), p.get("io"), 1e-9, "the I/O phase is the time writes were in flight");
        assertEquals(r.closeSeconds(), p.get("commit"), 1e-9);
    }

    @Test
    void theOldMethodsPhasesIncludeTheAllocationAndAddUp() throws Exception {
        SaveResult r = ckpt().savePreallocated(StorageTarget.parse(dir.resolve("o.bin").toString()), SIZE);
        addsUp(r.phases(), r.totalSeconds(),
                List.of("startUp", "open", "allocation", "generation", "io", "release", "commit"));
        Map<String, Double> p = byKey(r.phases());
        assertTrue(p.get("allocation") > 0, "allocating and zeroing 24 MiB takes time: " + p);
        assertEquals(r.generationSeconds(), p.get("generation"), 1e-9);
    }

    @Test
    void aLoadsPhasesAddUpToItsTotalVerifiedOrNot() throws Exception {
        String f = dir.resolve("l.bin").toString();
        ckpt().save(f, SIZE);
        for (boolean verify : new boolean[] {false, true}) {
            LoadResult l = ckpt().load(f, verify);
            addsUp(l.phases(), l.totalSeconds(), List.of("open", "startUp", "io", "readStall", "drain", "release"));
            assertEquals(l.readSeconds(), byKey(l.phases()).get("io"), 1e-9);
        }
    }

    /** The writers stop as soon as the last chunk is written (they used to wait out a 50 ms poll). */
    @Test
    void theWritersStopAtOnceAfterTheLastWrite() throws Exception {
        double best = Double.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            SaveResult r = ckpt().save(dir.resolve("d.bin").toString(), SIZE);
            best = Math.min(best, byKey(r.phases()).get("drain"));
        }
        assertTrue(best < 0.030, "drain after the last write took " + best + " s at best of 3");
    }

    @Test
    void theMapKeepsItsKeysAndAddsThePhases() throws Exception {
        SaveResult r = ckpt().save(dir.resolve("m.bin").toString(), SIZE);
        Map<String, Object> m = r.toMap();
        for (String k : List.of("method", "target", "backend", "directIo", "totalBytes", "chunkSize", "chunks", "buffers",
                "writersInFlight", "generator", "seed", "generationSeconds", "generationGBps", "ioSeconds", "ioGBps",
                "closeSeconds", "totalSeconds", "totalGBps", "throughputRatio", "pipelineOverheadPercent", "bottleneck",
                "peakBuffersInUse", "poolBytes", "peakRssBytes", "phases")) {
            assertTrue(m.containsKey(k), k + " missing from " + m.keySet());
        }
        assertEquals(List.of("startUp", "open", "firstChunk", "io", "generationStall", "drain", "commit"),
                List.copyOf(((Map<?, ?>) m.get("phases")).keySet()));
        Map<String, Object> l = ckpt().load(dir.resolve("m.bin").toString(), true).toMap();
        assertEquals(List.of("open", "startUp", "io", "readStall", "drain", "release"),
                List.copyOf(((Map<?, ?>) l.get("phases")).keySet()));
    }

    @Test
    void resultsBuiltWithoutPhasesHoldTheTotalAsOther() {
        SaveResult r = new SaveResult("streaming", new Where("/x", "file", false), new SaveResult.Plan(1, 1, 1, 2, 1),
                new SaveResult.Data("native", "1"), new SaveResult.Times(0.1, 0.2, 0.05, 0.4),
                new SaveResult.Memory(1, 1, 1), List.of(), List.of());
        addsUp(r.phases(), 0.4, List.of("other"));
    }

    @Test
    void anOpenTimedByItsBackendIsSplitIntoClientStartRequestsAndTheRest() {
        addsUp(StreamingCheckpoint.openPhases(0.5, OpenTimes.NONE, "local"), 0.5, List.of("open"));
        List<Phase> p = StreamingCheckpoint.openPhases(2.0, new OpenTimes(1.25, 0.5, "HeadObject"), "local");
        addsUp(p, 2.0, List.of("open", "clientStart", "firstRequests"));
        assertEquals(List.of(0.25, 1.25, 0.5), p.stream().map(Phase::seconds).toList());
        assertTrue(p.get(2).what().startsWith("HeadObject"), p.get(2).what());
        // times that overrun the open (clocks read apart) are cut so that the phases still add up
        List<Phase> over = StreamingCheckpoint.openPhases(1.0, new OpenTimes(0.75, 0.5, "HeadObject"), "local");
        addsUp(over, 1.0, List.of("open", "clientStart", "firstRequests"));
        assertEquals(List.of(0.0, 0.75, 0.25), over.stream().map(Phase::seconds).toList());
    }

    private static Map<String, Double> byKey(List<Phase> phases) {
        Map<String, Double> m = new java.util.LinkedHashMap<>();
        phases.forEach(p -> m.put(p.key(), p.seconds()));
        return m;
    }
}
