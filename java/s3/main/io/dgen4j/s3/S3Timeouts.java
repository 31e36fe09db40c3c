package io.dgen4j.s3;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How long any S3 request of any backend may wait, and how long a failing request is retried: the
 * bounds that make a gateway which accepts connections and never answers (or stops answering
 * mid-transfer) a failure of its own, failed over to a healthy endpoint, instead of a hang.
 *
 * <ul>
 * <li>{@code connect}: setting up a connection (TCP, and TLS where the client counts it).
 * <li>{@code firstByte}: waiting for the first byte of the answer once the request is sent.
 * <li>{@code idle}: a transfer in either direction with no byte moving (a stall, or a trickle slower
 *     than one byte per {@code idle}).
 * <li>{@code retry}: how long after its first failure a request is still sent again (to another
 *     endpoint when one is up, else to the same one after its back-off), so that a gateway's restart
 *     of a few seconds costs a pause, not the transfer. A set that no endpoint of answered for this
 *     long fails at once.
 * </ul>
 *
 * <p>Each client library times a request with one read timer for both the wait for the first byte
 * and the gaps in an answer's body (the AWS SDK's Netty read timeout, OkHttp's read timeout, the
 * CRT's connection monitor): it is set to the larger of {@code firstByte} and {@code idle}; writes
 * are timed by {@code idle}. The client libraries' own retries are off: the driver retries, within
 * {@code retry}. A lone endpoint that never answers therefore fails after {@code connect} plus the
 * larger of {@code firstByte} and {@code idle} when it never answered; one that accepts connections
 * and stops answering mid-transfer (a black hole) fails within twice that larger one plus
 * {@code retry} (30 s by default): the first attempt's wait, the retries', the last one's wait.
 *
 * @param connect   connection set-up
 * @param firstByte the wait for the answer's first byte
 * @param idle      the longest gap with no byte moving
 * @param retry     how long after its first failure a request is still retried
 */
public record S3Timeouts(Duration connect, Duration firstByte, Duration idle, Duration retry) {
    /** The longest any of them may be: one hour. */
    public static final Duration MAX = Duration.ofHours(1);
    // after MAX, which the constructor reads
    /** {@code connect=5s, first-byte=10s, idle=10s, retry=10s}. */
    public static final S3Timeouts DEFAULTS = new S3Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(10),
            Duration.ofSeconds(10), Duration.ofSeconds(10));
    /** The variable that sets them ({@code connect=5s,first-byte=10s,idle=10s,retry=10s}, any subset). */
    public static final String VAR = "DGEN4J_S3_TIMEOUTS";

    private static final Pattern ITEM = Pattern.compile("(?i)\\s*([a-z-]+)\\s*=\\s*(\\d{1,7})\\s*(ms|s|m)?\\s*");

    /** Checks each is at least 1 ms (retry: 0 or more) and at most {@link #MAX}. */
    public S3Timeouts {
        check(connect, "connect", false);
        check(firstByte, "first-byte", false);
        check(idle, "idle", false);
        check(retry, "retry", true);
    }

    private static void check(Duration d, String what, boolean zeroAllowed) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || !zeroAllowed && d.toMillis() < 1 || d.compareTo(MAX) > 0) {
            throw new IllegalArgumentException(String.format("the S3 %s timeout must be %s to 1 hour, got %s", what,
                    zeroAllowed ? "0" : "1 ms", text(d)));
        }
    }

    /** The read timer a client library gets: the larger of {@link #firstByte} and {@link #idle}. */
    public Duration read() {
        return firstByte.compareTo(idle) >= 0 ? firstByte : idle;
    }

    /**
     * How long, once a CompleteMultipartUpload has had no answer, a save still waits for the store to
     * finish assembling an object of {@code objectBytes} (the upload leaving the store's list): four times
     * {@link #read} plus 1 s per 64 MiB, at most {@link #MAX}. S3 sends spaces while it assembles;
     * s3proxy and stores like it copy every part first and send nothing, so on a busy machine a
     * 3 GiB object outlasts the 10 s read timer without any fault.
     */
    public Duration assembly(long objectBytes) {
        Duration d = read().multipliedBy(4).plusMillis(Math.max(0, objectBytes) / ((64L << 20) / 1000));
        return d.compareTo(MAX) > 0 ? MAX : d;
    }

    /**
     * {@code base} with the items of {@code spec} over it: comma-separated {@code name=value}, names
     * {@code connect}, {@code first-byte}, {@code idle} and {@code retry}, values a whole number with
     * {@code ms}, {@code s} (the default) or {@code m}.
     *
     * @param what the variable or option that gave {@code spec}, for the message
     * @throws IllegalArgumentException naming {@code what}, the item and the limits
     */
    public static S3Timeouts parse(String spec, String what, S3Timeouts base) {
        Map<String, Duration> v = new LinkedHashMap<>();
        v.put("connect", base.connect);
        v.put("first-byte", base.firstByte);
        v.put("idle", base.idle);
        v.put("retry", base.retry);
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException(String.format("%s is empty: give e.g. connect=5s,first-byte=10s,idle=10s,"
                    + "retry=10s", what));
        }
        for (String item : spec.split(",", -1)) {
            Matcher m = ITEM.matcher(item);
            String name = m.matches() ? m.group(1).toLowerCase(Locale.ROOT) : null;
            if (name == null || !v.containsKey(name)) {
                throw new IllegalArgumentException(String.format("%s: '%s' is not one of connect=, first-byte=, idle=, "
                        + "retry= with a whole number of ms, s or m (e.g. %s=connect=5s,first-byte=10s,idle=10s,"
                        + "retry=10s)", what, item.strip(), what));
            }
            long n = Long.parseLong(m.group(2));
            String unit = m.group(3) == null ? "s" : m.group(3).toLowerCase(Locale.ROOT);
            Duration d = switch (unit) {
                case "ms" -> Duration.ofMillis(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofSeconds(n);
            };
            v.put(name, d);
        }
        try {
            return new S3Timeouts(v.get("connect"), v.get("first-byte"), v.get("idle"), v.get("retry"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + "=" + spec.strip() + ": " + e.getMessage(), e);
        }
    }

    /** {@code connect=5s,first-byte=10s,idle=10s,retry=10s}, as {@link #parse} reads it. */
    @Override
    public String toString() {
        return "connect=" + text(connect) + ",first-byte=" + text(firstByte) + ",idle=" + text(idle) + ",retry="
                + text(retry);
    }

    private static String text(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }
}
