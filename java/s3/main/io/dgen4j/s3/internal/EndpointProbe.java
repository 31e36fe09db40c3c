package io.dgen4j.s3.internal;

import io.dgen4j.s3.S3Settings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;

/**
 * A TCP connect to a custom endpoint before a backend's first request, so that a dead endpoint is
 * one clear line within seconds, whatever the client library's connection pool does with a refused
 * connection (the SDK's Netty pool was seen waiting out its acquisition timeout instead).
 */
public final class EndpointProbe {

    private EndpointProbe() {}

    /**
     * Connects to the settings' custom endpoint, if there is one, and closes at once.
     *
     * @param what the operation and object, for the message ({@code "HeadBucket of s3://b/k"})
     * @throws IOException "{what}: cannot connect to the S3 endpoint {endpoint}: {reason}"
     */
    public static void check(S3Settings settings, String what) throws IOException {
        if (settings.endpoint().isEmpty()) {
            return; // AWS's own endpoints: the client's errors say enough
        }
        URI e = settings.endpoint().get();
        int port = e.getPort() > 0 ? e.getPort() : "https".equalsIgnoreCase(e.getScheme()) ? 443 : 80;
        int timeout = (int) Math.min(Integer.MAX_VALUE, settings.timeouts().connect().toMillis());
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(e.getHost(), port), timeout);
        } catch (java.net.UnknownHostException ex) {
            // its message is the bare host name, and the transports quote the root cause's message:
            // the root says what it is (the JDK's exception adds nothing else)
            java.net.UnknownHostException named = new java.net.UnknownHostException("unknown host " + e.getHost());
            throw new IOException(String.format("%s: cannot connect to the S3 endpoint %s: %s", what,
                    settings.endpointDescription(), named.getMessage()), named);
        } catch (IOException ex) {
            throw new IOException(String.format("%s: cannot connect to the S3 endpoint %s: %s", what,
                    settings.endpointDescription(), ex.getMessage() == null ? ex.toString() : ex.getMessage()), ex);
        }
    }
}
