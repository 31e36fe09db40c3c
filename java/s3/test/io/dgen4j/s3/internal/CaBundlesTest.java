package io.dgen4j.s3.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.s3.S3Settings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A CA bundle's certificates become the trust of the aws and minio backends' clients; bad bundles are one line. */
class CaBundlesTest {
    @TempDir
    Path dir;

    private static S3Settings with(Path pem) {
        return S3Settings.builder().caBundle(pem).build();
    }

    /** A PEM certificate made by the JDK's keytool. */
    private String pem(String alias) throws Exception {
        Path store = dir.resolve(alias + ".p12");
        run(List.of("-genkeypair", "-keyalg", "EC", "-alias", alias, "-dname", "CN=" + alias, "-validity", "2",
                "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", "changeit"));
        Path cert = dir.resolve(alias + ".pem");
        run(List.of("-exportcert", "-rfc", "-alias", alias, "-keystore", store.toString(), "-storepass", "changeit",
                "-file", cert.toString()));
        return Files.readString(cert);
    }

    private static void run(List<String> args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("keytool " + args.getFirst() + " failed: " + out);
        }
    }

    @Test
    void noBundleIsTheClientsDefaultTrust() throws IOException {
        assertEquals(Optional.empty(), CaBundles.trustManager(S3Settings.builder().build()));
    }

    @Test
    void everyCertificateOfTheBundleIsTrusted() throws Exception {
        Path bundle = dir.resolve("bundle.pem");
        Files.writeString(bundle, "# a comment line before the first\n" + pem("one") + pem("two") + pem("three"));
        X509TrustManager tm = CaBundles.trustManager(with(bundle)).orElseThrow();
        List<String> issuers = java.util.Arrays.stream(tm.getAcceptedIssuers())
                .map(c -> c.getSubjectX500Principal().getName()).sorted().toList();
        assertEquals(List.of("CN=one", "CN=three", "CN=two"), issuers);
    }

    @Test
    void aBundleWithoutCertificatesOrMissingIsOneLineNamingIt() throws Exception {
        Path text = Files.writeString(dir.resolve("empty.pem"), "");
        IOException e = assertThrows(IOException.class, () -> CaBundles.trustManager(with(text)));
        assertEquals("AWS_CA_BUNDLE " + text + " holds no certificate", e.getMessage());
        Path garbage = Files.writeString(dir.resolve("garbage.pem"),
                "-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n");
        e = assertThrows(IOException.class, () -> CaBundles.trustManager(with(garbage)));
        assertTrue(e.getMessage().startsWith("AWS_CA_BUNDLE " + garbage + " is not a PEM file of certificates: "),
                e.getMessage());
        Path missing = dir.resolve("missing.pem");
        e = assertThrows(IOException.class, () -> CaBundles.trustManager(with(missing)));
        assertEquals("AWS_CA_BUNDLE " + missing + " does not exist", e.getMessage());
    }
}
