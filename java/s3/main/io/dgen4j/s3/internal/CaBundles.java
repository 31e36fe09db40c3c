package io.dgen4j.s3.internal;

import io.dgen4j.s3.S3Settings;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Optional;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * The trust that a CA bundle ({@code AWS_CA_BUNDLE}, a PEM file of certificates) gives, for the
 * backends whose client takes a trust manager (aws, minio; the crt trusts the system's file only).
 */
public final class CaBundles {
    private CaBundles() {}

    /**
     * A trust manager that trusts the certificates of the settings' CA bundle, or empty when they
     * name none (the client's default trust then).
     *
     * @throws IOException naming the bundle when it is missing, holds no certificate or is not PEM
     */
    public static Optional<X509TrustManager> trustManager(S3Settings s) throws IOException {
        if (s.caBundle().isEmpty()) {
            return Optional.empty();
        }
        Path pem = s.caBundle().get();
        // buffered: the certificate parser reads a plain stream a byte per system call (220,000
        // reads, 0.1-1 s of system time, for Debian's bundle, at every client's start)
        try (InputStream in = new BufferedInputStream(Files.newInputStream(pem), 1 << 16)) {
            KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
            ks.load(null, null);
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                ks.setCertificateEntry("ca-" + i++, c);
            }
            if (i == 0) {
                throw new IOException(S3Settings.CA_BUNDLE + " " + pem + " holds no certificate");
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ks);
            for (TrustManager tm : tmf.getTrustManagers()) {
                if (tm instanceof X509TrustManager x) {
                    return Optional.of(x);
                }
            }
            throw new IOException(S3Settings.CA_BUNDLE + " " + pem + ": no X.509 trust manager");
        } catch (GeneralSecurityException e) {
            throw new IOException(S3Settings.CA_BUNDLE + " " + pem + " is not a PEM file of certificates: "
                    + e.getMessage(), e);
        } catch (NoSuchFileException e) {
            throw new IOException(S3Settings.CA_BUNDLE + " " + pem + " does not exist", e);
        }
    }
}
