package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.s3.S3ProxyExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code dgen4j dlio run} of the tiny config into an S3 bucket ({@code storage.storage_type: s3}) against s3proxy. */
class DlioS3CliTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @TempDir
    Path home;

    @Test
    void tinyConfigToS3WritesReadsAndVerifies() throws Exception {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", home.toString());
        env.put("AWS_ACCESS_KEY_ID", S3ProxyExtension.ACCESS_KEY);
        env.put("AWS_SECRET_ACCESS_KEY", S3ProxyExtension.SECRET_KEY);
        env.put("AWS_ENDPOINT_URL", S3.endpoint().toString());
        env.put("AWS_REGION", "us-east-1");
        String config = Path.of(System.getProperty("dgen4j.test.root", ".")).resolve("configs/dlio/tiny.yaml")
                .toString();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new String[] {"dlio", "run", "--config", config, "--ranks", "4", "--verify", "--json",
                "--backend", "aws", "--output", home.resolve("out").toString(),
                "++workload.storage.storage_type=s3", "++workload.storage.storage_root=" + S3.bucket(),
                "++workload.checkpoint.checkpoint_folder=dlio/tiny",
                "++workload.checkpoint.streaming.chunk_size=5MiB",
                "++workload.checkpoint.num_checkpoints_write=1", "++workload.checkpoint.num_checkpoints_read=1"},
                new PrintWriter(out, true), new PrintWriter(err, true), env);
        assertEquals(0, code, err.toString());
        Map<String, Object> summary = JsonRead.object(out.toString());
        @SuppressWarnings("unchecked")
        Map<String, Object> ours = (Map<String, Object>) summary.get("dgen4j");
        assertEquals("s3://" + S3.bucket() + "/dlio/tiny", ours.get("checkpointFolder"));
        assertEquals(Boolean.TRUE, ours.get("verified"));
        // tiny at 4 ranks (TP 2 x PP 2, DP 1): the 22 files of 8 ranks less data rank 1's 4 optimizer files
        assertEquals(18, ((Number) ours.get("saveFiles")).intValue());
        assertEquals(18, ((Number) ours.get("loadFiles")).intValue());
        @SuppressWarnings("unchecked")
        List<Object> files = (List<Object>) ((Map<String, Object>) JsonRead.object(
                Files.readString(home.resolve("out/0_output.json"))).get("dgen4j")).get("files");
        assertTrue(files.toString().contains("s3://" + S3.bucket() + "/dlio/tiny/global_epoch1_step1/"
                + "layer_0-model_0_model_states.pt"), files.toString());
    }

    @Test
    void aChunkTooSmallForS3PartsIsRefusedBeforeAnyObjectIsWritten() throws Exception {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", home.toString());
        env.put("AWS_ACCESS_KEY_ID", S3ProxyExtension.ACCESS_KEY);
        env.put("AWS_SECRET_ACCESS_KEY", S3ProxyExtension.SECRET_KEY);
        env.put("AWS_ENDPOINT_URL", S3.endpoint().toString());
        String config = Path.of(System.getProperty("dgen4j.test.root", ".")).resolve("configs/dlio/tiny.yaml")
                .toString();
        // tiny's own 1 MiB chunk: its 10 MiB optimizer files cannot go as whole parts of 5 MiB at least
        for (String command : List.of("plan", "run")) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            List<String> args = new java.util.ArrayList<>(List.of("dlio", command, "--config", config, "--ranks", "4",
                    "--backend", "aws", "++workload.storage.storage_type=s3", "++workload.storage.storage_root="
                            + S3.bucket(), "++workload.checkpoint.checkpoint_folder=dlio/small-chunks",
                    "++workload.checkpoint.streaming.format=raw")); // the raw file's size in the message
            if (command.equals("run")) {
                args.addAll(List.of("--output", home.resolve("out").toString()));
            }
            int code = Main.run(args.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(err, true), env);
            assertEquals(2, code, err.toString());
            assertEquals("dgen4j: checkpoint.streaming.chunk_size: zero_pp_rank_0_mp_rank_0_optim_states.pt (10639104 "
                    + "bytes) cannot be saved to s3://" + S3.bucket() + "/dlio/small-chunks in chunks of 1048576 bytes: "
                    + "chunks of 1 MiB do not fill whole parts of 5 MiB: the chunk size must be a multiple of the part "
                    + "size (S3 parts are 5 MiB at least; use chunks of 5 MiB or a multiple)\n", err.toString());
        }
        assertEquals(false, Files.exists(S3.dataDir().resolve(S3.bucket()).resolve("dlio/small-chunks")),
                "no object written");
    }

    @Test
    void theEndpointFlagsApplyToEveryRanksFiles() throws Exception {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", home.toString());
        env.put("AWS_ACCESS_KEY_ID", S3ProxyExtension.ACCESS_KEY);
        env.put("AWS_SECRET_ACCESS_KEY", S3ProxyExtension.SECRET_KEY);
        env.put("AWS_ENDPOINT_URL", "http://127.0.0.1:1"); // nothing listens: only --endpoints can make this work
        env.put("AWS_REGION", "us-east-1");
        String config = Path.of(System.getProperty("dgen4j.test.root", ".")).resolve("configs/dlio/tiny.yaml")
                .toString();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new String[] {"dlio", "run", "--config", config, "--ranks", "4", "--verify", "--json",
                "--backend", "aws", "--endpoints", S3.endpoint().toString(), "--output", home.resolve("out").toString(),
                "++workload.storage.storage_type=s3", "++workload.storage.storage_root=" + S3.bucket(),
                "++workload.checkpoint.checkpoint_folder=dlio/flags",
                "++workload.checkpoint.streaming.chunk_size=5MiB",
                "++workload.checkpoint.num_checkpoints_write=1", "++workload.checkpoint.num_checkpoints_read=1"},
                new PrintWriter(out, true), new PrintWriter(err, true), env);
        assertEquals(0, code, err.toString());
        @SuppressWarnings("unchecked")
        Map<String, Object> ours = (Map<String, Object>) JsonRead.object(out.toString()).get("dgen4j");
        assertEquals(Boolean.TRUE, ours.get("verified"));
        assertEquals(18, ((Number) ours.get("loadFiles")).intValue());
        // every file of every rank went through the flag's endpoint (the files run on the ranks' threads)
        for (int rank = 0; rank < 4; rank++) {
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> files = (List<Map<String, Object>>) ((Map<String, Object>) JsonRead.object(
                    Files.readString(home.resolve("out/" + rank + "_output.json"))).get("dgen4j")).get("files");
            for (Map<String, Object> f : files) {
                assertTrue(String.valueOf(f.get("endpoints")).contains(S3.endpoint().toString().replaceAll("/$", "")),
                        f.toString());
            }
        }

        // and an endpoint flag for a local checkpoint folder is a usage error, as for save and load
        StringWriter err2 = new StringWriter();
        int local = Main.run(new String[] {"dlio", "run", "--config", config, "--ranks", "4", "--endpoints",
                S3.endpoint().toString(), "++workload.checkpoint.checkpoint_folder=" + home.resolve("ckpt")},
                new PrintWriter(new StringWriter(), true), new PrintWriter(err2, true), env);
        assertEquals(ExitCodes.USAGE, local, err2.toString());
        assertTrue(err2.toString().contains("applies to s3:// targets, not " + home.resolve("ckpt")), err2.toString());
    }
}
