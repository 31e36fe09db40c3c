package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every input bounded, every refusal ours (issue 19): settings files that are not small regular text,
 * hostile YAML, sizes that overflow, endpoint URLs and variables out of range, DLIO settings that
 * would sleep forever or fail halfway. Each is one line on stderr naming the input and the limit,
 * exit 2 (3 for I/O), within seconds, with nothing written. In-process ({@link CliRun}); the cases
 * that need a working directory of their own or the launcher's heap are in
 * {@link BoundedInputsProcessTest}.
 */
class BoundedInputsCliTest {
    @TempDir
    Path dir;

    private Map<String, String> env(String... kv) {
        Map<String, String> m = new HashMap<>();
        m.put("HOME", dir.resolve("home").toString()); // no ~/.aws of the machine running the tests
        m.put("AWS_ACCESS_KEY_ID", "AKIDTEST");
        m.put("AWS_SECRET_ACCESS_KEY", "secretsecret");
        m.put("AWS_ENDPOINT_URL", "http://127.0.0.1:1"); // nothing listens: a case that got that far would fail
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    /** Runs {@code args} (within 60 s), asserting exit {@code code} and one line on stderr that starts with {@code line}. */
    private CliRun refused(int code, String line, Map<String, String> env, String... args) {
        CliRun r = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> CliRun.of(env, args));
        assertEquals(code, r.code(), String.join(" ", args) + ": " + r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().startsWith("dgen4j: " + line), "expected 'dgen4j: " + line + "...', got: " + r.err());
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), r.err());
        return r;
    }

    private String tiny() {
        return Path.of(System.getProperty("dgen4j.test.root", ".")).resolve("configs/dlio/tiny.yaml").toString();
    }

    @Test
    void anEndpointFileThatIsNotSmallRegularTextIsRefusedByWhatItIs() throws Exception {
        Path fifo = dir.resolve("fifo");
        MisuseTest.exec("mkfifo", fifo.toString());
        Path binary = Files.write(dir.resolve("bin"), new byte[] {'h', 't', 0, 1});
        Path huge = Files.writeString(dir.resolve("huge"), "#".repeat((1 << 20) + 1));
        for (var c : Map.of("/dev/zero", "S3_ENDPOINT_FILE /dev/zero is a character device, not a regular file",
                fifo.toString(), "S3_ENDPOINT_FILE " + fifo + " is a FIFO (named pipe), not a regular file",
                dir.toString(), "S3_ENDPOINT_FILE " + dir + " is a directory, not a regular file",
                binary.toString(), "S3_ENDPOINT_FILE " + binary + " is not UTF-8 text (a binary byte at offset 2)",
                huge.toString(), "S3_ENDPOINT_FILE " + huge + " is 1048577 bytes: the limit for a settings file is "
                        + "1048576 (1 MiB)").entrySet()) {
            refused(2, c.getValue(), env("S3_ENDPOINT_FILE", c.getKey()), "save", "s3://ckpt/k", "--size", "1MiB");
            refused(2, c.getValue().replace("S3_ENDPOINT_FILE", "--endpoint-file"), env(), "load", "s3://ckpt/k",
                    "--endpoint-file", c.getKey());
        }
    }

    @Test
    void theAwsFilesAreBoundedToo() throws Exception {
        Path aws = Files.createDirectories(dir.resolve("home/.aws"));
        Map<String, String> noKeys = env();
        noKeys.remove("AWS_ACCESS_KEY_ID");
        noKeys.remove("AWS_SECRET_ACCESS_KEY");
        Files.createSymbolicLink(aws.resolve("credentials"), Path.of("/dev/zero"));
        refused(2, "AWS credentials file " + aws.resolve("credentials") + " is a character device, not a regular file",
                noKeys, "save", "s3://ckpt/k", "--size", "1MiB");
        Files.delete(aws.resolve("credentials"));
        MisuseTest.exec("mkfifo", aws.resolve("config").toString());
        refused(2, "AWS config file " + aws.resolve("config") + " is a FIFO (named pipe), not a regular file", env(),
                "save", "s3://ckpt/k", "--size", "1MiB");
        Files.delete(aws.resolve("config"));
        refused(2, "AWS_CA_BUNDLE /dev/zero is a character device, not a regular file",
                env("AWS_CA_BUNDLE", "/dev/zero"), "save", "s3://ckpt/k", "--size", "1MiB");
    }

    @Test
    void endpointUrlsAreHostAndPortAlone() {
        refused(2, "AWS_ENDPOINT_URL: port 99999 of 'http://127.0.0.1:99999' is not a TCP port (1 to 65535)",
                env("AWS_ENDPOINT_URL", "http://127.0.0.1:99999"), "save", "s3://ckpt/k", "--size", "1MiB");
        refused(2, "S3_ENDPOINT_URIS entry 2: port 0 of 'http://h:0' is not a TCP port",
                env("S3_ENDPOINT_URIS", "http://h:9000,http://h:0"), "load", "s3://ckpt/k");
        for (String url : List.of("http://127.0.0.1:9000/foo", "http://127.0.0.1:9000/?x=1", "http://h:9000#f",
                "http://h:9000/bucket/")) {
            refused(2, "AWS_ENDPOINT_URL must be scheme://host[:port] alone, got '" + url + "': a path, query or "
                    + "fragment in an endpoint is not sent", env("AWS_ENDPOINT_URL", url), "save", "s3://ckpt/k",
                    "--size", "1MiB");
        }
        refused(2, "--endpoints entry 1 must be scheme://host[:port] alone", env(), "save", "s3://ckpt/k", "--size",
                "1MiB", "--endpoints", "http://127.0.0.1:9000/x");
        refused(2, "--endpoint-template 'http://h{1...2}:9000/p' expansion 1 must be scheme://host[:port] alone", env(),
                "save", "s3://ckpt/k", "--size", "1MiB", "--endpoint-template", "http://h{1...2}:9000/p");
    }

    @Test
    void messagesThatEchoWhatWasTypedMaskItsUserInfo() {
        // picocli's own refusal of an extra argument, and a library message that echoes a URL
        CliRun extra = refused(2, "unmatched argument at index 2: 's3://***@b/k'", env(), "load", "s3://ckpt/k",
                "s3://u:PLANTED-9@b/k");
        assertFalse(extra.err().contains("PLANTED-9"), extra.err());
        assertEquals("save to http://***@h/x failed: x", Errors.describe(new java.io.IOException(
                "save to http://u:PLANTED-9@h/x failed: x")));
    }

    @Test
    void theAbortWaitIsAWholeNumberOfSecondsInRange() throws Exception {
        for (String bad : List.of("abc", "-5", "1.5", "3601", "99999999999")) {
            refused(2, "DGEN4J_S3_ABORT_WAIT=" + bad + " must be a whole number of seconds from 0 to 3600",
                    env("DGEN4J_S3_ABORT_WAIT", bad), "save", dir.resolve("x.bin").toString(), "--size", "64KiB",
                    "--chunk", "64KiB");
        }
        assertFalse(Files.exists(dir.resolve("x.bin")));
        for (String ok : List.of("0", " 30 ", "3600", "")) {
            CliRun r = CliRun.of(env("DGEN4J_S3_ABORT_WAIT", ok), "save", dir.resolve("x.bin").toString(), "--size",
                    "64KiB", "--chunk", "64KiB");
            assertEquals(0, r.code(), ok + ": " + r.err());
        }
        assertEquals(0, Main.abortWaitSeconds("0"));
        assertEquals(30, Main.abortWaitSeconds(null));
    }

    @Test
    void aSizeNearLongMaxValueIsRefusedWithTheRealArithmetic() {
        refused(2, "the part size (the chunk size, 32MiB): a 8 EiB object in 32 MiB parts needs 274877906944 "
                + "parts; S3 allows 10000 parts of at most 5 GiB, so one object holds at most 48.83 TiB", env(),
                "save", "s3://ckpt/k", "--size", "9223372036854775807");
    }

    @Test
    void hostileYamlIsOneLineNamingTheLimit() throws Exception {
        Path deep = Files.writeString(dir.resolve("deep.yaml"), "model:\n  name: " + "[".repeat(5000)
                + "]".repeat(5000) + "\n");
        refused(2, "(yaml): " + deep + " nests mappings and sequences more than 64 deep (at line 2)", env(),
                "dlio", "plan", "--config", deep.toString(), "--ranks", "4");
        Path recursive = Files.writeString(dir.resolve("rec.yaml"), "model:\n  name: x\nhydra: &h\n  a: *h\n");
        refused(2, "(yaml): " + recursive + ": the alias *h at line 4 is inside the collection &h it names", env(),
                "dlio", "plan", "--config", recursive.toString(), "--ranks", "4");
        Path big = Files.writeString(dir.resolve("big.yaml"), "model:\n  name: x\n# " + "x".repeat(2 << 20) + "\n");
        refused(2, "DLIO workload " + big + " is " + Files.size(big) + " bytes: the limit for a settings file is 1048576 (1 MiB)",
                env(), "dlio", "plan", "--config", big.toString(), "--ranks", "4");
        Path binary = Files.write(dir.resolve("bin.yaml"), new byte[] {'m', 'o', 'd', (byte) 0xe9, 'l'});
        refused(2, "DLIO workload " + binary + " is not UTF-8 text (a binary byte at offset 3)", env(), "dlio", "plan",
                "--config", binary.toString(), "--ranks", "4");
        Path fifo = dir.resolve("fifo.yaml");
        MisuseTest.exec("mkfifo", fifo.toString());
        refused(2, "DLIO workload " + fifo + " is a FIFO (named pipe), not a regular file", env(), "dlio", "run",
                "--config", fifo.toString(), "--ranks", "4");
        refused(2, "DLIO workload /dev/zero is a character device, not a regular file", env(), "dlio", "plan",
                "--config", "/dev/zero");
        refused(2, "DLIO workload " + dir + " is a directory, not a regular file", env(), "dlio", "plan", "--config",
                dir.toString());
        refused(2, "--config: no such file: " + dir.resolve("none.yaml"), env(), "dlio", "plan", "--config",
                dir.resolve("none.yaml").toString());
    }

    @Test
    void dlioArithmeticIsExactAndBounded() {
        refused(2, "model: the checkpoint's sizes do not fit in 64-bit integers (num_layers 4, transformer.hidden_size "
                + "3037000500,", env(), "dlio", "plan", "--config", tiny(), "--ranks", "4",
                "++workload.model.transformer.hidden_size=3037000500");
        refused(2, "model.num_layers: must be 0 to 100000, got 1000000000", env(), "dlio", "plan", "--config", tiny(),
                "--ranks", "4", "++workload.model.num_layers=1000000000");
        refused(2, "ranks: must be 1 to 65536, got 100000", env(), "dlio", "plan", "--config", tiny(), "--ranks",
                "100000", "--json");
        refused(2, "ranks: 8 ranks of 100000 layers in 2 pipeline stages write more than 262144 files per checkpoint",
                env(), "dlio", "plan", "--config", tiny(), "--ranks", "8", "++workload.model.num_layers=100000",
                "++workload.model.parallelism.tensor=4");
    }

    @Test
    void dlioSettingsAreCheckedByPlanAndRunBeforeTheFirstByte() throws Exception {
        Path folder = dir.resolve("ckpt");
        List<List<String>> cases = List.of(
                List.of("++workload.checkpoint.streaming.compress_ratio=200",
                        "checkpoint.streaming.compress_ratio: compress ratio 200.0 is above the maximum"),
                List.of("++workload.checkpoint.time_between_checkpoints=-5",
                        "checkpoint.time_between_checkpoints: must be -1 (no pause) or 0 to 86400 seconds, got -5.0"),
                List.of("++workload.checkpoint.time_between_checkpoints=.nan",
                        "checkpoint.time_between_checkpoints: must be -1 (no pause) or 0 to 86400 seconds, got NaN"),
                List.of("++workload.checkpoint.time_between_checkpoints=1e300",
                        "checkpoint.time_between_checkpoints: must be -1 (no pause) or 0 to 86400 seconds, got 1.0E300"),
                List.of("++workload.checkpoint.num_checkpoints_write=-3",
                        "checkpoint.num_checkpoints_write: must be -1 (none) or 0 to 10000, got -3"),
                List.of("++workload.checkpoint.num_checkpoints_read=-3",
                        "checkpoint.num_checkpoints_read: must be -1 (none) or 0 to 10000, got -3"));
        for (List<String> c : cases) {
            for (String command : List.of("plan", "run")) {
                List<String> args = new ArrayList<>(List.of("dlio", command, "--config", tiny(), "--ranks", "4",
                        "++workload.checkpoint.checkpoint_folder=" + folder, c.get(0)));
                if (command.equals("run")) {
                    args.addAll(List.of("--output", dir.resolve("out").toString()));
                }
                refused(2, c.get(1), env(), args.toArray(String[]::new));
            }
        }
        assertFalse(Files.exists(folder), "nothing written");
        assertFalse(Files.exists(dir.resolve("out")), "no output folder made for a refused config");
    }

    @Test
    void dlioRunChecksItsOutputFolderFirst() throws Exception {
        Path folder = dir.resolve("ckpt");
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        refused(2, "--output " + file + " is a regular file, not a folder", env(), "dlio", "run", "--config", tiny(),
                "--ranks", "4", "++workload.checkpoint.checkpoint_folder=" + folder, "--output", file.toString());
        assertFalse(Files.exists(folder), "no checkpoint written before the output folder failed");
        assertEquals("0", MisuseTest.uid(), "the read-only case mounts a read-only tmpfs and must run as root, as CI "
                + "does");
        Path ro = Files.createDirectories(dir.resolve("ro"));
        MisuseTest.exec("mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", ro.toString());
        try {
            refused(3, "--output cannot be written, so DLIO's output files would be lost after the run: Read-only "
                    + "file system (" + ro + ")", env(), "dlio", "run", "--config", tiny(), "--ranks", "4",
                    "++workload.checkpoint.checkpoint_folder=" + folder, "--output", ro.toString());
        } finally {
            MisuseTest.exec("umount", ro.toString());
        }
        assertFalse(Files.exists(folder), "no checkpoint written before the output folder failed");
    }
}
