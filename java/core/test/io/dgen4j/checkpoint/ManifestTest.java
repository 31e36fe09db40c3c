package io.dgen4j.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.gen.DataSpec;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The manifest is read by a real JSON parser: top-level keys only, unknown ones ignored, bad JSON refused, size bounded. */
class ManifestTest {
    private static final long SIZE = 1_000_003;

    @TempDir
    Path dir;

    private Path saved(String name) throws Exception {
        Path f = dir.resolve(name);
        StreamingCheckpoint.builder().chunkSize(1 << 20).spec(DataSpec.builder().seed(5).compressRatio(2).build())
                .build().save(f.toString(), SIZE);
        return f;
    }

    private static StreamingCheckpoint reader() {
        return StreamingCheckpoint.builder().chunkSize(1 << 20).build();
    }

    private static String error(Path f) {
        return assertThrows(CheckpointException.class, () -> reader().load(f.toString(), true)).getMessage();
    }

    /** The sidecar that holds the manifest of the checkpoint file {@code f} (docs/CHECKPOINTS.md). */
    static Path sidecar(Path f) {
        return f.resolveSibling(f.getFileName() + ".manifest.json");
    }

    @Test
    void theManifestIsJsonWithTheSpecAtTopLevelAndTheFileItDescribes() throws Exception {
        Path f = saved("a.bin");
        String json = Files.readString(sidecar(f));
        assertTrue(json.startsWith("{\"dgen4j\":\"checkpoint\",\"formatVersion\":1,\"size\":1000003,\"seed\":\"5\","),
                json);
        assertTrue(json.contains("\"file\":{\"inode\":" + Files.getAttribute(f, "unix:ino") + ",\"size\":1000003}"),
                json);
    }

    @Test
    void unknownAndNestedFieldsAreIgnoredOnlyTopLevelKeysCount() throws Exception {
        Path f = saved("b.bin");
        Path m = sidecar(f);
        String json = Files.readString(m);
        // A nested "seed" (inside an unknown object) must not replace the real one; unknown keys are ignored.
        json = json.replace("{\"dgen4j\"", "{\"note\":{\"seed\":\"999\",\"size\":1},\"tags\":[1,{\"seed\":\"7\"}],"
                + "\"future\":true,\"dgen4j\"");
        Files.writeString(m, json);
        assertTrue(reader().load(f.toString(), true).verified());
    }

    @Test
    void invalidJsonIsRefusedAsSuch() throws Exception {
        Path f = saved("c.bin");
        Path m = sidecar(f);
        String good = Files.readString(m);
        Files.writeString(m, good.substring(0, good.length() / 2));
        assertTrue(error(f).contains("is not valid JSON"), error(f));
        Files.writeString(m, good.replace("\"seed\":\"5\"", "\"seed\":\"5\",\"seed\":\"6\""));
        assertTrue(error(f).contains("is not valid JSON") && error(f).contains("Duplicate field 'seed'"), error(f));
        Files.writeString(m, "[1,2,3]");
        assertTrue(error(f).contains("its JSON is not an object"), error(f));
        Files.writeString(m, good.trim() + " {}");
        assertTrue(error(f).contains("text follows the object"), error(f));
        // The old regex "parser" matched keys anywhere, even inside strings: such text is no manifest.
        Files.writeString(m, "\"dgen4j\":\"checkpoint\",\"size\":1000003");
        assertTrue(error(f).contains("is not valid JSON") || error(f).contains("not an object"), error(f));
    }

    @Test
    void aHugeManifestIsRefusedWithoutBeingRead() throws Exception {
        Path f = saved("d.bin");
        Path m = sidecar(f);
        try (RandomAccessFile raf = new RandomAccessFile(m.toFile(), "rw")) {
            raf.setLength(256L << 20); // sparse: 256 MiB that would not fit the CLI's 128 MiB heap
        }
        assertTrue(error(f).contains("larger than " + (4 << 20) + " bytes"), error(f));
    }

    @Test
    void wrongTypesAndMissingKeysNameTheKey() throws Exception {
        Path f = saved("e.bin");
        Path m = sidecar(f);
        String good = Files.readString(m);
        Files.writeString(m, good.replace("\"blockSize\":4096", "\"blockSize\":\"big\""));
        assertTrue(error(f).contains("\"blockSize\" must be an integer"), error(f));
        Files.writeString(m, good.replace("\"generator\":\"native\",", ""));
        assertTrue(error(f).contains("lacks \"generator\""), error(f));
        Files.writeString(m, good.replace("\"dgen4j\":\"checkpoint\"", "\"dgen4j\":\"other\""));
        assertTrue(error(f).contains("is not a dgen4j checkpoint manifest"), error(f));
    }

    @Test
    void aCopiedCheckpointStillLoads() throws Exception {
        Path f = saved("orig.bin");
        Path copies = Files.createDirectories(dir.resolve("copies"));
        Path g = copies.resolve("orig.bin");
        Files.copy(f, g);
        Files.copy(sidecar(f), sidecar(g));
        assertTrue(reader().load(g.toString(), true).verified(), "cp gives a new inode; the size still matches");
        // A file of another size under the name is not what the manifest describes.
        try (RandomAccessFile raf = new RandomAccessFile(g.toFile(), "rw")) {
            raf.setLength(SIZE - 1);
        }
        assertTrue(error(g).contains("is not the file its manifest"), error(g));
    }

    @Test
    void aManifestFromBeforeFileIdentitiesLoads() throws Exception {
        Path f = saved("legacy.bin");
        // The format the first dgen4j wrote: no "file" object.
        Files.writeString(sidecar(f), "{\"dgen4j\":\"checkpoint\",\"formatVersion\":1,"
                + "\"size\":1000003,\"seed\":\"5\",\"blockSize\":4096,\"dedup\":1.0,\"compress\":2.0,"
                + "\"generator\":\"native\",\"chunkSize\":1048576}\n", StandardCharsets.UTF_8);
        assertTrue(reader().load(f.toString(), true).verified());
        assertEquals(SIZE, Files.size(f));
    }
}
