package io.dgen4j.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Settings files are regular, bounded UTF-8 files, and every refusal names the file; secrets are masked. */
class ConfigFilesTest {
    @TempDir
    Path dir;

    @Test
    void aRegularFileOrALinkToOneIsRead() throws Exception {
        Path f = Files.writeString(dir.resolve("a.env"), "K=v\u00e9\n");
        assertEquals("K=v\u00e9\n", ConfigFiles.read(f, ".env"));
        Path link = Files.createSymbolicLink(dir.resolve("link.env"), f);
        assertEquals("K=v\u00e9\n", ConfigFiles.read(link, ".env"));
        assertThrows(NoSuchFileException.class, () -> ConfigFiles.read(dir.resolve("none"), ".env"));
    }

    @Test
    void specialFilesAreRefusedWithoutBeingOpened() throws Exception {
        Path fifo = dir.resolve("fifo");
        new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor();
        assertRefused(fifo, "S3_ENDPOINT_FILE " + fifo + " is a FIFO (named pipe), not a regular file");
        assertRefused(Path.of("/dev/zero"), "S3_ENDPOINT_FILE /dev/zero is a character device, not a regular file");
        assertRefused(dir, "S3_ENDPOINT_FILE " + dir + " is a directory, not a regular file");
        Path linkToZero = Files.createSymbolicLink(dir.resolve(".env"), Path.of("/dev/zero"));
        assertRefused(linkToZero, "is a character device, not a regular file");
    }

    @Test
    void largeAndBinaryFilesAreRefusedNamingTheFileAndTheLimit() throws Exception {
        Path big = dir.resolve("big.yaml");
        try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(ConfigFiles.MAX_BYTES + 1L);
        }
        assertRefused(big, "S3_ENDPOINT_FILE " + big + " is 1048577 bytes: the limit for a settings file is 1048576 (1 MiB)");
        Path exact = Files.writeString(dir.resolve("exact"), "#".repeat(ConfigFiles.MAX_BYTES));
        assertEquals(ConfigFiles.MAX_BYTES, ConfigFiles.read(exact, "x").length());
        Path nul = Files.write(dir.resolve("nul"), new byte[] {'a', '=', 0, 'b'});
        assertRefused(nul, "S3_ENDPOINT_FILE " + nul + " is not UTF-8 text (a binary byte at offset 2)");
        Path latin1 = Files.write(dir.resolve("latin1"), new byte[] {'a', '=', 'b', (byte) 0xe9, 'c'});
        assertRefused(latin1, "is not UTF-8 text (a binary byte at offset 3)");
    }

    @Test
    void userInfoAndKnownSecretsAreMasked() {
        assertEquals("bad bucket in s3://***@b/k", Secrets.mask("bad bucket in s3://u:pw@b/k"));
        assertEquals("'http://***@10.0.0.{1...8}:9000' and https://***@h/x?y=a@b",
                Secrets.mask("'http://u:p@10.0.0.{1...8}:9000' and https://u@h/x?y=a@b"));
        assertEquals("file://***@localhost/tmp/x", Secrets.mask("file://a:b@c@localhost/tmp/x"));
        assertEquals("s3://bucket/key@v2 and mail admin@example.com",
                Secrets.mask("s3://bucket/key@v2 and mail admin@example.com"));
        assertEquals("s 3://***@b", Secrets.mask("s 3://u:pw@b"));
        assertEquals("token *** and key ***, id AKID",
                Secrets.mask("token TOKEN123 and key SECRET456, id AKID", List.of("TOKEN123", "SECRET456", "ab")));
        assertTrue(Secrets.hasUserInfo("http://u:p@h"));
        assertFalse(Secrets.hasUserInfo("http://h/u:p@x"));
        assertEquals(null, Secrets.mask(null));
    }

    private static void assertRefused(Path file, String message) {
        var e = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertThrows(IllegalArgumentException.class,
                () -> ConfigFiles.read(file, "S3_ENDPOINT_FILE")));
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    @Test
    void aDotEnvFileGivesItsVariablesAndAMissingOneNone() throws Exception {
        assertEquals(java.util.Map.of(), ConfigFiles.readDotEnv(dir.resolve("none")));
        java.nio.file.Path env = dir.resolve(".env");
        Files.writeString(env, String.join("\n", "# a comment", "", "export A=1", "B = two words # comment",
                "C=\"quoted \\\" # not a comment\"", "D='single'", ""));
        assertEquals(java.util.Map.of("A", "1", "B", "two words", "C", "quoted \" # not a comment", "D", "single"),
                ConfigFiles.readDotEnv(env));
        Files.writeString(env, "A=1\nsecret-value-without-equals\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ConfigFiles.readDotEnv(env));
        assertTrue(e.getMessage().contains("line 2 is not KEY=VALUE"), e.getMessage());
        assertFalse(e.getMessage().contains("secret-value"), e.getMessage());
    }
}
