package io.dgen4j.s3;

import io.dgen4j.launch.LaunchInfo;
import io.dgen4j.storage.ConfigFiles;
import io.dgen4j.storage.Secrets;
import java.io.IOException;
import java.net.URI;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where an {@link EndpointSet} comes from: a comma-separated list, a template with {@code {a...b}}
 * ranges, a file of one URI a line, and the variables that name them. Every message names the
 * offending entry and where it came from (the variable or option, or the file and line).
 */
final class EndpointSources {
    private static final Logger LOG = LoggerFactory.getLogger(EndpointSources.class);
    /** A template's range: {@code {a...b}}, decimal, a and b of at most 9 digits. */
    private static final Pattern RANGE = Pattern.compile("\\{\\s*(\\d{1,9})\\s*\\.\\.\\.\\s*(\\d{1,9})\\s*}");

    private EndpointSources() {}

    static Optional<EndpointSet> fromEnvironment(Map<String, String> env, Path workingDir) {
        String uris = nonBlank(env.get(EndpointSet.URIS_VAR));
        String template = nonBlank(env.get(EndpointSet.TEMPLATE_VAR));
        String file = nonBlank(env.get(EndpointSet.FILE_VAR));
        List<URI> endpoints;
        String from;
        if (uris != null) {
            endpoints = list(uris, EndpointSet.URIS_VAR);
            from = EndpointSet.URIS_VAR;
        } else if (template != null) {
            endpoints = template(template, EndpointSet.TEMPLATE_VAR);
            from = EndpointSet.TEMPLATE_VAR;
        } else if (file != null) {
            Path p = workingDir.resolve(file);
            endpoints = file(p, EndpointSet.FILE_VAR + " " + p);
            from = EndpointSet.FILE_VAR + " (" + p + ")";
        } else {
            return Optional.empty();
        }
        String strategyText = nonBlank(env.get(EndpointSet.STRATEGY_VAR));
        EndpointSet.Strategy strategy;
        try {
            strategy = strategyText == null ? EndpointSet.Strategy.ROUND_ROBIN : EndpointSet.Strategy.parse(strategyText);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(EndpointSet.STRATEGY_VAR + ": " + e.getMessage(), e);
        }
        boolean pin = flag(env.get(EndpointSet.PIN_VAR), EndpointSet.PIN_VAR);
        int rank = LaunchInfo.fromEnvironment(env).rank();
        EndpointSet set = EndpointSet.builder().endpoints(endpoints).strategy(strategy).pinUpload(pin).rank(rank)
                .build();
        if (LOG.isDebugEnabled()) {
            List<String> ignored = new ArrayList<>();
            if (from.startsWith(EndpointSet.URIS_VAR) && template != null) {
                ignored.add(EndpointSet.TEMPLATE_VAR);
            }
            if (!from.startsWith(EndpointSet.FILE_VAR) && file != null) {
                ignored.add(EndpointSet.FILE_VAR);
            }
            LOG.debug("S3 endpoint set from {}{}: {}", from, ignored.isEmpty() ? ""
                    : " (" + String.join(" and ", ignored) + " also set, ignored)", set);
        }
        return Optional.of(set);
    }

    /** The endpoints of a comma-separated list; blank entries (a trailing comma) are skipped. */
    static List<URI> list(String text, String source) {
        String[] parts = text.split(",", -1);
        List<URI> out = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < parts.length; i++) {
            if (parts[i].isBlank()) {
                continue;
            }
            // labels by concatenation, not String.format: a set of thousands is checked at every start
            String what = source + " entry " + (i + 1);
            URI u = endpoint(parts[i], what);
            Integer first = seen.putIfAbsent(identity(u), i + 1);
            if (first != null) {
                throw duplicate(what, "entry " + first, u);
            }
            out.add(u);
            if (out.size() > EndpointSet.MAX_ENDPOINTS) {
                throw new IllegalArgumentException(String.format("%s lists more than %d endpoints", source,
                        EndpointSet.MAX_ENDPOINTS));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(source + " lists no endpoint");
        }
        return out;
    }

    /** One endpoint URL, checked; {@code what} names it in messages. */
    private static URI endpoint(String text, String what) {
        String t = text.strip();
        if (!t.contains("://")) {
            // host:port without a scheme is the usual slip: say what to write (never echo a user:secret@)
            throw new IllegalArgumentException(t.contains("@")
                    ? what + " must be an http:// or https:// URL with a host"
                    : String.format("%s must be an http:// or https:// URL with a host, got '%s': write http://%s "
                            + "(or https://)", what, t, t));
        }
        return S3Settings.parseEndpoint(t, what);
    }

    /** The endpoints a template expands to, each checked. */
    static List<URI> template(String template, String source) {
        List<String> texts = expand(template, source);
        List<URI> out = new ArrayList<>(texts.size());
        Map<String, Integer> seen = new HashMap<>();
        String masked = Secrets.mask(template); // once: the labels are made for every entry
        for (int i = 0; i < texts.size(); i++) {
            String what = source + " '" + masked + "' expansion " + (i + 1);
            URI u = endpoint(texts.get(i), what);
            Integer first = seen.putIfAbsent(identity(u), i + 1);
            if (first != null) {
                throw duplicate(what, "expansion " + first, u);
            }
            out.add(u);
        }
        return out;
    }

    /**
     * Every string a template names: each {@code {a...b}} range replaced by a, a+1, ... b (zero
     * padding kept: a bound written with a leading zero pads every number to the wider bound's
     * width); with several ranges, every combination, the leftmost range varying slowest.
     */
    static List<String> expand(String template, String source) {
        String shown = Secrets.mask(template); // messages echo the template, never its user:secret@
        List<String> literals = new ArrayList<>();
        List<List<String>> ranges = new ArrayList<>();
        Matcher m = RANGE.matcher(template);
        int at = 0;
        long count = 1;
        while (m.find()) {
            literals.add(literal(template.substring(at, m.start()), shown, source));
            List<String> values = range(m.group(), m.group(1), m.group(2), shown, source);
            count *= values.size();
            if (count > EndpointSet.MAX_ENDPOINTS) {
                throw new IllegalArgumentException(String.format("%s '%s' expands to more than %d endpoints", source,
                        shown, EndpointSet.MAX_ENDPOINTS));
            }
            ranges.add(values);
            at = m.end();
        }
        literals.add(literal(template.substring(at), shown, source));
        List<String> out = new ArrayList<>();
        combine(literals, ranges, 0, new StringBuilder(), out);
        return out;
    }

    private static String literal(String text, String template, String source) {
        int open = text.indexOf('{');
        int close = text.indexOf('}');
        if (open >= 0 || close >= 0) {
            int from = open >= 0 ? open : close;
            int end = open >= 0 ? text.indexOf('}', open) : -1;
            String what = end > open && open >= 0 ? text.substring(open, end + 1) : text.substring(from);
            throw new IllegalArgumentException(String.format("%s '%s': '%s' is not a range: write {first...last} "
                    + "with decimal numbers, e.g. {1...8} or {01...16}", source, template, what));
        }
        return text;
    }

    private static List<String> range(String whole, String first, String last, String template, String source) {
        long a = Long.parseLong(first);
        long b = Long.parseLong(last);
        if (b < a) {
            throw new IllegalArgumentException(String.format("%s '%s': range %s ends below its start", source,
                    template, whole));
        }
        if (b - a + 1 > EndpointSet.MAX_ENDPOINTS) {
            throw new IllegalArgumentException(String.format("%s '%s': range %s names %d endpoints, more than %d",
                    source, template, whole, b - a + 1, EndpointSet.MAX_ENDPOINTS));
        }
        boolean padded = first.length() > 1 && first.startsWith("0") || last.length() > 1 && last.startsWith("0");
        int width = padded ? Math.max(first.length(), last.length()) : 0;
        List<String> values = new ArrayList<>((int) (b - a + 1));
        for (long v = a; v <= b; v++) {
            String s = Long.toString(v);
            values.add(s.length() < width ? "0".repeat(width - s.length()) + s : s);
        }
        return values;
    }

    private static void combine(List<String> literals, List<List<String>> ranges, int i, StringBuilder prefix,
                                List<String> out) {
        int mark = prefix.length();
        prefix.append(literals.get(i));
        if (i == ranges.size()) {
            out.add(prefix.toString());
        } else {
            for (String v : ranges.get(i)) {
                int before = prefix.length();
                prefix.append(v);
                combine(literals, ranges, i + 1, prefix, out);
                prefix.setLength(before);
            }
        }
        prefix.setLength(mark);
    }

    /**
     * The endpoints of a file: one URI a line, blank lines and {@code #} comments skipped (also
     * after an entry, following a blank). {@code source} names the file in messages, e.g.
     * {@code S3_ENDPOINT_FILE /etc/endpoints}; an entry's message adds its line ({@code :3}).
     */
    static List<URI> file(Path file, String source) {
        List<String> lines;
        try {
            // a regular UTF-8 file of at most 1 MiB: a FIFO does not block, /dev/zero does not fill the heap
            lines = ConfigFiles.read(file, source).lines().toList();
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(String.format("%s: no such file", source), e);
        } catch (IOException e) {
            throw new IllegalArgumentException(String.format("%s: cannot read it: %s", source,
                    e.getMessage() == null ? e.toString() : e.getMessage()), e);
        }
        List<URI> out = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n);
            int hash = line.indexOf('#');
            if (hash == 0 || hash > 0 && Character.isWhitespace(line.charAt(hash - 1))) {
                line = line.substring(0, hash);
            }
            if (line.isBlank()) {
                continue;
            }
            String what = source + ":" + (n + 1);
            URI u = endpoint(line, what);
            Integer first = seen.putIfAbsent(identity(u), n + 1);
            if (first != null) {
                throw duplicate(what, "line " + first, u);
            }
            out.add(u);
            if (out.size() > EndpointSet.MAX_ENDPOINTS) {
                throw new IllegalArgumentException(String.format("%s lists more than %d endpoints", source,
                        EndpointSet.MAX_ENDPOINTS));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(String.format("%s lists no endpoint (only blank lines and comments)",
                    source));
        }
        return out;
    }

    /**
     * What makes two endpoint URLs the same endpoint: the scheme and host in lower case, the port
     * (the scheme's default when none is written) and the path without a trailing slash.
     */
    static String identity(URI u) {
        String scheme = u.getScheme().toLowerCase(Locale.ROOT);
        int port = u.getPort() >= 0 ? u.getPort() : scheme.equals("https") ? 443 : 80;
        String path = u.getRawPath() == null ? "" : u.getRawPath();
        int end = path.length();
        while (end > 0 && path.charAt(end - 1) == '/') {
            end--;
        }
        return scheme + "://" + u.getHost().toLowerCase(Locale.ROOT) + ":" + port + path.substring(0, end);
    }

    /**
     * A set names each endpoint once: a repeat is refused, not merged, since the endpoint's health
     * and connections are one whatever its count, and a merge would silently move every later
     * endpoint's place (which {@code rank} balancing reads).
     */
    static IllegalArgumentException duplicate(String what, String first, URI u) {
        return new IllegalArgumentException(String.format("%s repeats %s (%s): name each endpoint once (a set "
                + "with a duplicate is refused, not merged)", what, first, u));
    }

    /** {@code 1}, {@code true}, {@code yes}, {@code on} (any case) are true; unset, blank, {@code 0}, {@code false}, {@code no}, {@code off} false. */
    static boolean flag(String value, String var) {
        String v = nonBlank(value);
        if (v == null) {
            return false;
        }
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "1", "true", "yes", "on" -> true;
            case "0", "false", "no", "off" -> false;
            default -> throw new IllegalArgumentException(String.format("%s=%s: use 1 or true (on), 0 or false (off)",
                    var, value));
        };
    }

    private static String nonBlank(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
