package io.dgen4j.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link EndpointSet#fromEnvironment}: the variables, their precedence, templates and files. */
class EndpointSetEnvironmentTest {
    @TempDir
    Path dir;

    private Map<String, String> env(String... kv) {
        Map<String, String> m = new HashMap<>();
        m.put("HOME", dir.resolve("home").toString());
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private EndpointSet set(String... kv) {
        return EndpointSet.fromEnvironment(env(kv), dir).orElseThrow();
    }

    private static List<URI> uris(String... s) {
        return java.util.Arrays.stream(s).map(URI::create).toList();
    }

    private IllegalArgumentException refused(String... kv) {
        return assertThrows(IllegalArgumentException.class, () -> EndpointSet.fromEnvironment(env(kv), dir));
    }

    @Test
    void noVariableNoSet() {
        assertEquals(Optional.empty(), EndpointSet.fromEnvironment(env(), dir));
        assertEquals(Optional.empty(), EndpointSet.fromEnvironment(env("S3_ENDPOINT_URIS", "  ",
                "S3_ENDPOINT_TEMPLATE", "", "S3_LOAD_BALANCE_STRATEGY", "rank"), dir));
        // the strategy and pin variables alone name no set, and are not read without one
        assertEquals(Optional.empty(), EndpointSet.fromEnvironment(env("S3_LOAD_BALANCE_STRATEGY", "fastest",
                "S3_PIN_UPLOAD", "maybe"), dir));
    }

    @Test
    void urisAreCommaSeparatedInOrder() {
        EndpointSet s = set("S3_ENDPOINT_URIS", " http://10.0.0.2:9000, https://gw-b:9443 ,http://10.0.0.3:9000,");
        assertEquals(uris("http://10.0.0.2:9000", "https://gw-b:9443", "http://10.0.0.3:9000"), s.endpoints());
        assertEquals(EndpointSet.Strategy.ROUND_ROBIN, s.strategy());
        assertFalse(s.pinUpload());
        assertEquals(0, s.rank());
    }

    @Test
    void aDuplicateEndpointIsRefusedNamingBothPlaces(@TempDir Path tmp) throws Exception {
        // the same endpoint however written: case, the scheme's default port, a trailing slash
        assertEquals("S3_ENDPOINT_URIS entry 3 repeats entry 1 (HTTP://GW-A/): name each endpoint once (a set with a "
                + "duplicate is refused, not merged)", refused("S3_ENDPOINT_URIS",
                "http://gw-a:80,http://gw-b:80,HTTP://GW-A/").getMessage());
        Path f = tmp.resolve("gateways");
        Files.writeString(f, "http://10.0.0.1:9000\n# comment\nhttp://10.0.0.2:9000\nhttp://10.0.0.1:9000\n");
        assertEquals("S3_ENDPOINT_FILE " + f + ":4 repeats line 1 (http://10.0.0.1:9000): name each endpoint once (a "
                + "set with a duplicate is refused, not merged)", refused("S3_ENDPOINT_FILE", f.toString()).getMessage());
        // two ranges can name one string twice: {1...11}{1...11} gives 111 as (1,11) and as (11,1)
        assertTrue(refused("S3_ENDPOINT_TEMPLATE", "http://h{1...11}{1...11}:9000").getMessage().startsWith(
                "S3_ENDPOINT_TEMPLATE 'http://h{1...11}{1...11}:9000' expansion 111 repeats expansion 11 "
                        + "(http://h111:9000)"));
        // the builder, for the library's callers
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> EndpointSet.builder()
                .endpoints(uris("http://a:1", "http://b:1", "http://a:1")).build());
        assertEquals("endpoint 3 repeats endpoint 1 (http://a:1): name each endpoint once (a set with a duplicate "
                + "is refused, not merged)", e.getMessage());
        // distinct ports of one host are distinct endpoints
        assertEquals(2, set("S3_ENDPOINT_URIS", "http://a:1,http://a:2").size());
    }

    @Test
    void aBadUriIsNamedWithItsEntryAndVariable() {
        String m = refused("S3_ENDPOINT_URIS", "http://a:1,ftp://b:2,http://c:3").getMessage();
        assertEquals("S3_ENDPOINT_URIS entry 2 must be an http:// or https:// URL with a host, got 'ftp://b:2'", m);
        assertTrue(refused("S3_ENDPOINT_URIS", "http://a:1,not a url").getMessage()
                .startsWith("S3_ENDPOINT_URIS entry 2 must be an http:// or https:// URL with a host, got 'not a url'"));
        assertEquals("S3_ENDPOINT_URIS lists no endpoint", refused("S3_ENDPOINT_URIS", ",, ,").getMessage());
        assertEquals("S3_ENDPOINT_URIS entry 1 must be an http:// or https:// URL with a host, got '10.0.0.1:9000': "
                + "write http://10.0.0.1:9000 (or https://)", refused("S3_ENDPOINT_URIS", "10.0.0.1:9000").getMessage());
        assertEquals("S3_ENDPOINT_URIS entry 1 must be an http:// or https:// URL with a host",
                refused("S3_ENDPOINT_URIS", "key:s3cr3t@10.0.0.1:9000").getMessage());
        assertEquals("S3_ENDPOINT_URIS entry 1 must be an http:// or https:// URL with a host, got 'http://'",
                refused("S3_ENDPOINT_URIS", "http://").getMessage().replaceAll(": Expected authority.*", ""));
        String creds = refused("S3_ENDPOINT_URIS", "http://a:1,http://key:s3cr3t@b:2").getMessage();
        assertEquals("S3_ENDPOINT_URIS entry 2 must not carry credentials in the URL", creds);
    }

    @Test
    void everyTemplateRangeIsExpandedInOrder() {
        assertEquals(IntStream.rangeClosed(1, 8).mapToObj(i -> "http://10.0.0." + i + ":9000").toList(),
                EndpointSet.expandTemplate("http://10.0.0.{1...8}:9000"));
        assertEquals(List.of("http://r1-n1:9000", "http://r1-n2:9000", "http://r1-n3:9000", "http://r2-n1:9000",
                "http://r2-n2:9000", "http://r2-n3:9000"), EndpointSet.expandTemplate("http://r{1...2}-n{1...3}:9000"));
        assertEquals(List.of("http://h:9000"), EndpointSet.expandTemplate("http://h:9000"));
        assertEquals(List.of("http://h7:9000"), EndpointSet.expandTemplate("http://h{7...7}:9000"));
        assertEquals(List.of("h8", "h9", "h10"), EndpointSet.expandTemplate("h{8...10}"));
        assertEquals(List.of("h0", "h1"), EndpointSet.expandTemplate("h{0...1}"));
        assertEquals(uris("http://10.0.1.5:9000", "http://10.0.1.6:9000", "http://10.0.2.5:9000",
                "http://10.0.2.6:9000"), set("S3_ENDPOINT_TEMPLATE", "http://10.0.{1...2}.{5...6}:9000").endpoints());
    }

    @Test
    void zeroPaddingIsKept() {
        List<String> sixteen = EndpointSet.expandTemplate("http://node{01...16}:9000");
        assertEquals(16, sixteen.size());
        assertEquals("http://node01:9000", sixteen.get(0));
        assertEquals("http://node09:9000", sixteen.get(8));
        assertEquals("http://node16:9000", sixteen.get(15));
        List<String> wide = EndpointSet.expandTemplate("s{001...100}");
        assertEquals(List.of("s001", "s002"), wide.subList(0, 2));
        assertEquals(List.of("s099", "s100"), wide.subList(98, 100));
        assertEquals(List.of("n08", "n09", "n10"), EndpointSet.expandTemplate("n{08...10}"));
        assertEquals(List.of("a01-b1", "a01-b2", "a02-b1", "a02-b2"), EndpointSet.expandTemplate("a{01...02}-b{1...2}"));
    }

    @Test
    void aBadRangeIsRejectedNamingIt() {
        assertEquals("S3_ENDPOINT_TEMPLATE 'http://10.0.0.{8...1}:9000': range {8...1} ends below its start",
                refused("S3_ENDPOINT_TEMPLATE", "http://10.0.0.{8...1}:9000").getMessage());
        assertEquals("S3_ENDPOINT_TEMPLATE 'http://h{a...b}:9000': '{a...b}' is not a range: write {first...last} "
                        + "with decimal numbers, e.g. {1...8} or {01...16}",
                refused("S3_ENDPOINT_TEMPLATE", "http://h{a...b}:9000").getMessage());
        assertTrue(refused("S3_ENDPOINT_TEMPLATE", "http://h{1..4}:9000").getMessage().contains("'{1..4}' is not a range"));
        assertTrue(refused("S3_ENDPOINT_TEMPLATE", "http://h{1...4:9000").getMessage().contains("'{1...4:9000' is not a range"));
        assertTrue(refused("S3_ENDPOINT_TEMPLATE", "http://h1...4}:9000").getMessage().contains("'}:9000' is not a range"));
        assertTrue(refused("S3_ENDPOINT_TEMPLATE", "http://h{-1...4}:9000").getMessage().contains("'{-1...4}'"));
        IllegalArgumentException many = assertThrows(IllegalArgumentException.class,
                () -> EndpointSet.expandTemplate("h{1...100}-{1...100}"));
        assertEquals("endpoint template 'h{1...100}-{1...100}' expands to more than 4096 endpoints", many.getMessage());
        String bad = refused("S3_ENDPOINT_TEMPLATE", "ftp://h{1...3}:21").getMessage();
        assertEquals("S3_ENDPOINT_TEMPLATE 'ftp://h{1...3}:21' expansion 1 must be an http:// or https:// URL with a "
                + "host, got 'ftp://h1:21'", bad);
    }

    @Test
    void aFileListsOneUriALine() throws IOException {
        Path f = Files.writeString(dir.resolve("endpoints.txt"), String.join("\n",
                "# the cluster's gateways", "", "http://10.0.0.1:9000", "   ", "  http://10.0.0.2:9000   # rack 2",
                "  # http://10.0.0.3:9000 (retired)", "https://gw-4:9443", ""));
        assertEquals(uris("http://10.0.0.1:9000", "http://10.0.0.2:9000", "https://gw-4:9443"),
                set("S3_ENDPOINT_FILE", f.toString()).endpoints());
        assertEquals(uris("http://10.0.0.1:9000", "http://10.0.0.2:9000", "https://gw-4:9443"),
                EndpointSet.readFile(f));
        // a relative path is the working directory's
        assertEquals(3, set("S3_ENDPOINT_FILE", "endpoints.txt").size());
    }

    @Test
    void aMissingEmptyOrUnreadableFileIsAnErrorNamingIt() throws Exception {
        Path missing = dir.resolve("none.txt");
        assertEquals("S3_ENDPOINT_FILE " + missing + ": no such file",
                refused("S3_ENDPOINT_FILE", missing.toString()).getMessage());
        Path empty = Files.writeString(dir.resolve("empty.txt"), "# nothing yet\n\n");
        assertEquals("S3_ENDPOINT_FILE " + empty + " lists no endpoint (only blank lines and comments)",
                refused("S3_ENDPOINT_FILE", empty.toString()).getMessage());
        Path zero = Files.writeString(dir.resolve("zero.txt"), "");
        assertTrue(refused("S3_ENDPOINT_FILE", zero.toString()).getMessage().contains(zero + " lists no endpoint"));
        Path folder = Files.createDirectories(dir.resolve("a-directory"));
        assertEquals("S3_ENDPOINT_FILE " + folder + " is a directory, not a regular file",
                refused("S3_ENDPOINT_FILE", folder.toString()).getMessage());
        Path binary = Files.write(dir.resolve("binary.txt"), new byte[] {(byte) 0xff, (byte) 0xfe, 10});
        assertEquals("S3_ENDPOINT_FILE " + binary + " is not UTF-8 text (a binary byte at offset 0)",
                refused("S3_ENDPOINT_FILE", binary.toString()).getMessage());
        // neither blocks nor fills the heap: refused by what they are, before being opened
        assertEquals("S3_ENDPOINT_FILE /dev/zero is a character device, not a regular file",
                refused("S3_ENDPOINT_FILE", "/dev/zero").getMessage());
        Path fifo = dir.resolve("fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        assertEquals("S3_ENDPOINT_FILE " + fifo + " is a FIFO (named pipe), not a regular file",
                refused("S3_ENDPOINT_FILE", fifo.toString()).getMessage());
        Path huge = Files.writeString(dir.resolve("huge.txt"), "#".repeat(io.dgen4j.storage.ConfigFiles.MAX_BYTES + 1));
        assertEquals("S3_ENDPOINT_FILE " + huge + " is 1048577 bytes: the limit for a settings file is 1048576 (1 MiB)",
                refused("S3_ENDPOINT_FILE", huge.toString()).getMessage());
        Path bad = Files.writeString(dir.resolve("bad.txt"), "http://a:1\n# ok\ngw3:9000\n");
        assertEquals("S3_ENDPOINT_FILE " + bad + ":3 must be an http:// or https:// URL with a host, got "
                + "'gw3:9000': write http://gw3:9000 (or https://)", refused("S3_ENDPOINT_FILE", bad.toString())
                .getMessage());
        IllegalArgumentException direct = assertThrows(IllegalArgumentException.class,
                () -> EndpointSet.readFile(missing));
        assertEquals("endpoint file " + missing + ": no such file", direct.getMessage());
    }

    @Test
    void urisWinOverTheTemplateWhichWinsOverTheFile() throws IOException {
        Path f = Files.writeString(dir.resolve("eps"), "http://from-file:1\n");
        String missing = dir.resolve("missing").toString();
        assertEquals(uris("http://from-list:1"), set("S3_ENDPOINT_URIS", "http://from-list:1",
                "S3_ENDPOINT_TEMPLATE", "http://t{1...2}:1", "S3_ENDPOINT_FILE", missing).endpoints());
        assertEquals(uris("http://t1:1", "http://t2:1"), set("S3_ENDPOINT_TEMPLATE", "http://t{1...2}:1",
                "S3_ENDPOINT_FILE", missing).endpoints());
        assertEquals(uris("http://from-file:1"), set("S3_ENDPOINT_URIS", " ", "S3_ENDPOINT_FILE", f.toString())
                .endpoints());
    }

    @Test
    void strategyPinAndRank() {
        EndpointSet s = set("S3_ENDPOINT_URIS", "http://a:1,http://b:1", "S3_LOAD_BALANCE_STRATEGY",
                "least_connections", "S3_PIN_UPLOAD", "1");
        assertEquals(EndpointSet.Strategy.LEAST_CONNECTIONS, s.strategy());
        assertTrue(s.pinUpload());
        for (String on : List.of("1", "true", "TRUE", "yes", "on")) {
            assertTrue(set("S3_ENDPOINT_URIS", "http://a:1", "S3_PIN_UPLOAD", on).pinUpload(), on);
        }
        for (String off : List.of("0", "false", "no", "off", "")) {
            assertFalse(set("S3_ENDPOINT_URIS", "http://a:1", "S3_PIN_UPLOAD", off).pinUpload(), off);
        }
        assertEquals("S3_PIN_UPLOAD=maybe: use 1 or true (on), 0 or false (off)",
                refused("S3_ENDPOINT_URIS", "http://a:1", "S3_PIN_UPLOAD", "maybe").getMessage());
        assertEquals("S3_LOAD_BALANCE_STRATEGY: unknown load-balancing strategy 'fastest': use round_robin, "
                + "least_connections or rank", refused("S3_ENDPOINT_URIS", "http://a:1",
                "S3_LOAD_BALANCE_STRATEGY", "fastest").getMessage());
        EndpointSet ranked = set("S3_ENDPOINT_URIS", "http://a:1,http://b:1,http://c:1", "S3_LOAD_BALANCE_STRATEGY",
                "RANK", "OMPI_COMM_WORLD_RANK", "5", "OMPI_COMM_WORLD_SIZE", "8");
        assertEquals(EndpointSet.Strategy.RANK, ranked.strategy());
        assertEquals(5, ranked.rank());
        assertEquals(2, set("S3_ENDPOINT_URIS", "http://a:1", "SLURM_PROCID", "2", "SLURM_NTASKS", "4").rank());
        assertTrue(refused("S3_ENDPOINT_URIS", "http://a:1", "PMI_RANK", "x", "PMI_SIZE", "2").getMessage()
                .contains("PMI_RANK=x is not a number"));
    }

    @Test
    void theSetWinsOverTheSingleEndpointInTheSettings() throws IOException {
        S3Settings single = S3Settings.fromEnvironment(env("AWS_ENDPOINT_URL", "http://single:9000"), dir);
        assertEquals(Optional.empty(), single.endpointSet());
        assertEquals(URI.create("http://single:9000"), single.endpoint().orElseThrow());

        S3Settings s = S3Settings.fromEnvironment(env("AWS_ENDPOINT_URL_S3", "http://single:9000",
                "S3_ENDPOINT_URIS", "http://gw1:9000,http://gw2:9000", "S3_LOAD_BALANCE_STRATEGY", "least-connections"),
                dir);
        EndpointSet set = s.endpointSet().orElseThrow();
        assertEquals(uris("http://gw1:9000", "http://gw2:9000"), set.endpoints());
        assertEquals(EndpointSet.Strategy.LEAST_CONNECTIONS, set.strategy());
        assertEquals(URI.create("http://gw1:9000"), s.endpoint().orElseThrow());
        assertEquals(2, s.perEndpoint().size());
        assertTrue(s.pathStyle());

        // from .env, relative file resolved in the working directory; the environment wins over .env
        Files.writeString(dir.resolve("gateways"), "http://g1:9000\nhttp://g2:9000\n");
        Files.writeString(dir.resolve(".env"), "S3_ENDPOINT_FILE=gateways\nS3_PIN_UPLOAD=true\n");
        S3Settings fromDotEnv = S3Settings.fromEnvironment(env(), dir);
        assertEquals(uris("http://g1:9000", "http://g2:9000"), fromDotEnv.endpointSet().orElseThrow().endpoints());
        assertTrue(fromDotEnv.endpointSet().orElseThrow().pinUpload());
        S3Settings overridden = S3Settings.fromEnvironment(env("S3_PIN_UPLOAD", "0",
                "S3_ENDPOINT_TEMPLATE", "http://t{1...3}:9000"), dir);
        assertEquals(3, overridden.endpointSet().orElseThrow().size(), "the template wins over the .env file's file");
        assertFalse(overridden.endpointSet().orElseThrow().pinUpload());

        assertTrue(assertThrows(IllegalArgumentException.class, () -> S3Settings.fromEnvironment(
                env("S3_ENDPOINT_URIS", "http://ok:1,gw2:9000"), dir)).getMessage().startsWith("S3_ENDPOINT_URIS entry 2"));
    }
}
