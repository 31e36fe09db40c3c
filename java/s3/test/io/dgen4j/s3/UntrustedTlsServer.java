package io.dgen4j.s3;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

/**
 * A TLS server on 127.0.0.1 with a fresh self-signed certificate (made with the JDK's keytool) that
 * no client trusts: every handshake with it fails the way a wrong CA bundle does. In the test-jar,
 * for every S3 backend's TLS failure test.
 */
public final class UntrustedTlsServer implements AutoCloseable {
    private final SSLServerSocket server;
    private final Thread acceptor;

    /** Starts it, with its key store in {@code dir}. */
    public UntrustedTlsServer(Path dir) throws Exception {
        Path store = dir.resolve("untrusted.p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(List.of(keytool.toString(), "-genkeypair", "-keyalg", "RSA", "-keysize", "2048",
                "-alias", "s3", "-dname", "CN=127.0.0.1", "-ext", "san=ip:127.0.0.1", "-validity", "2",
                "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", "changeit", "-keypass", "changeit"))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("keytool could not make a test certificate: " + out);
        }
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, "changeit".toCharArray());
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), null, null);
        server = (SSLServerSocket) ctx.getServerSocketFactory().createServerSocket(0, 50,
                InetAddress.getByName("127.0.0.1"));
        acceptor = Thread.ofPlatform().daemon().name("untrusted-tls").start(() -> {
            while (!server.isClosed()) {
                try (SSLSocket s = (SSLSocket) server.accept()) {
                    s.startHandshake();
                } catch (IOException e) {
                    // the client refuses the certificate: expected
                }
            }
        });
    }

    /** Its https://127.0.0.1:PORT address. */
    public URI endpoint() {
        return URI.create("https://127.0.0.1:" + server.getLocalPort());
    }

    @Override
    public void close() throws Exception {
        server.close();
        acceptor.join(5000);
    }
}
