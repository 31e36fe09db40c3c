package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.s3.FaultProxy;
import io.dgen4j.s3.FaultProxy.Fault;
import io.dgen4j.s3.FaultProxy.Match;
import io.dgen4j.s3.S3ProxyExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * save --format safetensors to an s3:// prefix (a shard per object, in parts, then the index and config.json),
 * against s3proxy: the objects are byte for byte a local sharded save of the same spec, and load --verify and
 * inspect (one ranged GET per shard's header) read the prefix; a shard refused at its commit or its upload
 * (through a {@link FaultProxy}) fails the save in one line naming it, aborts the shards in flight and writes no
 * index.
 */
class SafetensorsS3CliTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @TempDir
    Path home;

    private Map<String, String> env() {
        return S3.cliEnv(home);
    }

    private CliRun run(String... args) throws Exception {
        return CliRun.hiding(S3ProxyExtension.SECRET_KEY, env(), args);
    }

    @Test
    void shardsGoToAPrefixByteForByteAsToADirectoryAndLoadAndInspectFromIt() throws Exception {
        // 2 layers, hidden 256: 21 tensors, 2,886,144 bytes of bfloat16, cut in 5 shards of at most 700,000 bytes
        // (each one part of a 5 MiB chunk)
        Path config = Files.writeString(home.resolve("config.json"), """
                {"hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 4,
                 "num_key_value_heads": 2, "vocab_size": 512, "torch_dtype": "bfloat16", "model_type": "llama"}
                """);
        String prefix = "s3://" + S3.bucket() + "/models/tiny/";
        List<String> spec = List.of("--format", "safetensors", "--model", config.toString(), "--max-shard-size",
                "700000B", "--seed", "33", "--chunk", "5MiB", "--no-progress", "--json");
        CliRun save = run(Stream.concat(Stream.of("save", prefix), spec.stream()).toArray(String[]::new));
        assertEquals(0, save.code(), save.err());
        assertTrue(save.out().contains("\"target\":\"" + prefix + "\""), save.out());
        Path local = home.resolve("local");
        CliRun saveLocal = run(Stream.concat(Stream.of("save", local + "/"), spec.stream()).toArray(String[]::new));
        assertEquals(0, saveLocal.code(), saveLocal.err());

        // every file of the directory is an object under the prefix, byte for byte (manifests aside: beside the
        // files, in the objects' metadata)
        Path objects = S3.dataDir().resolve(S3.bucket()).resolve("models/tiny");
        List<Path> files;
        try (Stream<Path> s = Files.list(local)) {
            files = s.filter(p -> !p.getFileName().toString().endsWith(".manifest.json")).sorted().toList();
        }
        List<String> names = files.stream().map(p -> p.getFileName().toString()).toList();
        assertTrue(names.contains("model.safetensors.index.json") && names.contains("config.json")
                && names.contains("model-00001-of-00005.safetensors") && names.size() == 7, names.toString());
        for (Path f : files) {
            Path o = objects.resolve(f.getFileName().toString());
            assertTrue(Files.isRegularFile(o), o + " is not an object of the prefix");
            assertArrayEquals(Files.readAllBytes(f), Files.readAllBytes(o), f.getFileName().toString());
        }

        CliRun load = run("load", prefix, "--verify", "--no-progress", "--json");
        assertEquals(0, load.code(), load.err());
        assertTrue(load.out().contains("\"verified\":true") && load.out().contains(
                "\"file\":\"model-00005-of-00005.safetensors\""), load.out());

        CliRun inspect = run("inspect", prefix, "--json");
        assertEquals(0, inspect.code(), inspect.err());
        Map<String, Object> j = JsonRead.object(inspect.out());
        assertEquals(5L, ((Number) j.get("gets")).longValue(), inspect.out()); // one ranged GET per shard's header
        assertTrue(inspect.out().contains("\"name\":\"lm_head.weight\"") && inspect.out().contains(
                "\"member\":\"model-00005-of-00005.safetensors\""), inspect.out());
        CliRun localInspect = run("inspect", local.toString(), "--json");
        assertEquals(0, localInspect.code(), localInspect.err());
        Map<String, Object> k = JsonRead.object(localInspect.out());
        assertEquals(k.get("tensors"), j.get("tensors"));
        assertEquals(k.get("size"), j.get("size"));
        assertEquals(k.get("shards"), j.get("shards"));

        CliRun text = run("inspect", prefix);
        assertEquals(0, text.code(), text.err());
        assertTrue(text.out().startsWith(prefix + ": safetensors, 21 tensors, ") && text.out().contains(
                "(5 ranged GETs, ") && text.out().contains("\n  model-00002-of-00005.safetensors: "), text.out());

        // a shard of 57 tensors: its list is more than S3's 2 KiB of metadata, so the object's metadata says its
        // header holds it, and load and inspect read it there
        Path six = Files.writeString(home.resolve("six.json"), """
                {"hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 6, "num_attention_heads": 4,
                 "num_key_value_heads": 2, "vocab_size": 128, "torch_dtype": "bfloat16", "model_type": "llama"}
                """);
        String big = "s3://" + S3.bucket() + "/models/six/";
        CliRun one = run("save", big, "--format", "safetensors", "--model", six.toString(), "--seed", "5",
                "--no-progress", "--json");
        assertEquals(0, one.code(), one.err());
        CliRun oneLoad = run("load", big, "--verify", "--no-progress", "--json");
        assertEquals(0, oneLoad.code(), oneLoad.err());
        assertTrue(oneLoad.out().contains("\"verified\":true"), oneLoad.out());
        CliRun oneInspect = run("inspect", big + "model-00001-of-00001.safetensors");
        assertEquals(0, oneInspect.code(), oneInspect.err());
        assertTrue(oneInspect.out().contains(": safetensors, 57 tensors, "), oneInspect.out());

        // a prefix without an index: one line, exit 3
        CliRun none = run("load", "s3://" + S3.bucket() + "/models/none/", "--no-progress");
        assertEquals(3, none.code(), none.err());
        assertEquals("dgen4j: s3://" + S3.bucket() + "/models/none/ holds no model.safetensors.index.json\n",
                none.err());
    }

    /** A sharded save through a proxy that refuses shard 2's commit, or else shard 3's upload. */
    private void refusedShardFailsTheSaveAndLeavesNoUploadOpen(boolean atCommit) throws Exception {
        String name = atCommit ? "model-00002-of-00005.safetensors" : "model-00003-of-00005.safetensors";
        Match refused = atCommit ? Match.completeUpload() : Match.uploadPart();
        // 2 layers, hidden 256: 5 shards of at most 700,000 bytes, each one part; shard 3's part held 1 s, so that
        // it is in flight when shard 2's commit is refused
        Path config = Files.writeString(home.resolve("config.json"), """
                {"hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 4,
                 "num_key_value_heads": 2, "vocab_size": 512, "torch_dtype": "bfloat16", "model_type": "llama"}
                """);
        String key = "models/refused-" + (atCommit ? "commit" : "upload") + "/";
        String prefix = "s3://" + S3.bucket() + "/" + key;
        try (FaultProxy proxy = FaultProxy.start(S3.endpoint());
             S3AsyncClient raw = S3AsyncClient.builder().endpointOverride(S3.endpoint()).region(Region.US_EAST_1)
                     .forcePathStyle(true).credentialsProvider(StaticCredentialsProvider.create(
                             AwsBasicCredentials.create(S3ProxyExtension.ACCESS_KEY, S3ProxyExtension.SECRET_KEY)))
                     .build()) {
            FaultProxy.Injection refusal = proxy.inject(refused.path(".*/" + name), Fault.status(403));
            FaultProxy.Injection held = proxy.inject(Match.uploadPart().path(".*/model-00003-of-00005\\.safetensors"),
                    Fault.delayRequest(Duration.ofSeconds(1)));
            Map<String, String> env = env();
            env.put("AWS_ENDPOINT_URL", proxy.endpoint().toString());
            CliRun save = CliRun.hiding(S3ProxyExtension.SECRET_KEY, env, "save", prefix, "--format", "safetensors",
                    "--model", config.toString(), "--max-shard-size", "700000B", "--chunk", "5MiB", "--no-progress");
            assertEquals(3, save.code(), save.err());
            assertTrue(refusal.fired() > 0, proxy.seen().toString());
            // at shard 2's refused commit, shard 3's part was on its way (held): its upload was aborted
            assertTrue(held.fired() > 0 || !atCommit, proxy.seen().toString());
            assertEquals(1, save.err().lines().count(), save.err());
            assertTrue(save.err().startsWith("dgen4j: ") && save.err().contains(prefix + name)
                    && save.err().contains("403"), save.err());
            assertEquals(List.of(), raw.listMultipartUploads(b -> b.bucket(S3.bucket()).prefix(key)).join().uploads(),
                    "the shards in flight were aborted");
            Path objects = S3.dataDir().resolve(S3.bucket()).resolve(key);
            assertFalse(Files.exists(objects.resolve("model.safetensors.index.json")), "no index");
            assertFalse(Files.exists(objects.resolve("config.json")), "no config.json");
            assertFalse(Files.exists(objects.resolve("model-00005-of-00005.safetensors")), "no shard after 3");
        }
    }

    @Test
    void aShardRefusedAtItsCommitFailsTheSaveAndAbortsTheNextShardsUpload() throws Exception {
        refusedShardFailsTheSaveAndLeavesNoUploadOpen(true);
    }

    @Test
    void aShardRefusedAtItsUploadFailsTheSaveBesideThePreviousShardsCommit() throws Exception {
        refusedShardFailsTheSaveAndLeavesNoUploadOpen(false);
    }
}
