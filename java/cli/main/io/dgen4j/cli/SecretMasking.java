package io.dgen4j.cli;

import io.dgen4j.s3.S3Settings;
import io.dgen4j.storage.Secrets;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Keeps secrets out of what the {@code dgen4j} process writes, at every log level (docs/CLI.md, "Logs").
 * Two parts, installed once by {@link Main#main} before any logger or client exists:
 * <ul>
 *   <li>the loggers that print signed requests or the wire are held at INFO, whatever the level
 *       asked for: the AWS SDK's SigV4 signers log each canonical request at DEBUG, with its
 *       {@code x-amz-security-token} (the session token); Netty's {@code LoggingHandler}, which the
 *       SDK adds at DEBUG, logs every header and a hex dump of every body byte (25 MB of log for a
 *       5 MiB save); the CRT's native log prints canonical requests at its {@code Info} level, so
 *       {@code -Daws.crt.log.level} is capped at {@code Warn};</li>
 *   <li>standard error, where the CLI's lines and the SLF4J log go, passes through
 *       {@link Secrets#mask}: the user info of any URL and the values of {@code AWS_SECRET_ACCESS_KEY}
 *       and {@code AWS_SESSION_TOKEN} in the environment, and Azure's key, SAS token and connection string
 *       ({@link io.dgen4j.azure.AzureSettings#secretValues}), are replaced by {@value Secrets#MASK}, line by
 *       line.</li>
 * </ul>
 */
final class SecretMasking {
    /** Loggers held at INFO: they print the session token (signers) or whole requests (the wire). */
    static final List<String> HELD_AT_INFO = List.of("io.netty.handler.logging.LoggingHandler",
            "software.amazon.awssdk.http.auth.aws.internal.signer", "software.amazon.awssdk.auth.signer",
            "software.amazon.awssdk.http.auth.aws.signer");
    /** The CRT's log levels that print canonical requests (with the session token). */
    private static final Set<String> CRT_LEVELS_WITH_REQUESTS = Set.of("info", "debug", "trace");
    /** A line longer than this is masked and written in pieces: a log line must not grow the heap. */
    private static final int MAX_LINE = 1 << 16;

    private SecretMasking() {}

    /** Sets the loggers' levels and wraps {@link System#err}; {@code env} gives the secret values. */
    static void install(Map<String, String> env) {
        for (String logger : HELD_AT_INFO) {
            System.setProperty("org.slf4j.simpleLogger.log." + logger, "info");
        }
        String crt = System.getProperty("aws.crt.log.level");
        if (crt != null && CRT_LEVELS_WITH_REQUESTS.contains(crt.strip().toLowerCase(Locale.ROOT))) {
            System.setProperty("aws.crt.log.level", "Warn");
        }
        List<String> secrets = java.util.stream.Stream.concat(java.util.stream.Stream.of(S3Settings.SECRET_ACCESS_KEY,
                S3Settings.SESSION_TOKEN).map(env::get).filter(Objects::nonNull).map(String::strip),
                io.dgen4j.azure.AzureSettings.secretValues(env).stream()).toList();
        PrintStream err = System.err;
        System.setErr(new PrintStream(new MaskingStream(err, err.charset(), secrets), true, err.charset()));
    }

    /**
     * Bytes in, the same bytes out, except that each line is masked first ({@link Secrets#mask}). A
     * line is written at its end, at a flush (a progress bar's {@code \r} updates flush), or when it
     * reaches {@link #MAX_LINE} bytes.
     */
    static final class MaskingStream extends OutputStream {
        private final OutputStream out;
        private final Charset charset;
        private final List<String> secrets;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        MaskingStream(OutputStream out, Charset charset, List<String> secrets) {
            this.out = out;
            this.charset = charset;
            this.secrets = List.copyOf(secrets);
        }

        @Override
        public synchronized void write(int b) throws IOException {
            line.write(b);
            if (b == '\n' || line.size() >= MAX_LINE) {
                emit();
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            Objects.checkFromIndexSize(off, len, b.length);
            int start = off;
            for (int i = off; i < off + len; i++) {
                if (b[i] == '\n' || line.size() + (i - start + 1) >= MAX_LINE) {
                    line.write(b, start, i - start + 1);
                    emit();
                    start = i + 1;
                }
            }
            line.write(b, start, off + len - start);
        }

        @Override
        public synchronized void flush() throws IOException {
            emit();
            out.flush();
        }

        @Override
        public synchronized void close() throws IOException {
            flush();
            out.close();
        }

        private void emit() throws IOException {
            if (line.size() == 0) {
                return;
            }
            String text = line.toString(charset);
            line.reset();
            out.write(Secrets.mask(text, secrets).getBytes(charset));
        }
    }
}
