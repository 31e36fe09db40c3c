package io.dgen4j.json;

import java.math.BigInteger;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Strict JSON (RFC 8259) for small documents such as the manifest sidecar, so that the core artifact
 * needs no JSON library: documents are a few hundred bytes, read into a tree of {@link LinkedHashMap}
 * (duplicate keys refused), {@link List}, {@link String}, {@link Long} (integers beyond a long:
 * {@link BigInteger}), {@link Double}, {@link Boolean} and {@code null}, with depth and string length bounded.
 * {@link JsonWriter} writes what it reads.
 */
public final class JsonReader {
    /** Why a document is refused, with the offset where it went wrong. */
    public static final class SyntaxException extends Exception {
        SyntaxException(String message) {
            super(message);
        }
    }

    /** Deeper documents are refused: a manifest nests two levels. */
    public static final int MAX_DEPTH = 16;
    /** Longer strings are refused: a manifest's longest is its tensor list (a 405B model's: about 70 KiB). */
    public static final int MAX_STRING = 1 << 20;

    private final String text;
    private int pos;

    private JsonReader(String text) {
        this.text = text;
    }

    /** Parses one JSON value that fills {@code utf8} (whitespace around it allowed). */
    public static Object parse(byte[] utf8) throws SyntaxException {
        String s;
        try {
            s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(java.nio.ByteBuffer.wrap(utf8)).toString();
        } catch (CharacterCodingException e) {
            throw new SyntaxException("it is not UTF-8");
        }
        JsonReader p = new JsonReader(s);
        p.skipSpace();
        Object v = p.value(0);
        p.skipSpace();
        if (p.pos < s.length()) {
            throw new SyntaxException("text follows the object at " + p.where());
        }
        return v;
    }

    private String where() {
        return "character offset " + pos;
    }

    private SyntaxException error(String what) {
        return new SyntaxException(what + " at " + where());
    }

    private void skipSpace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            pos++;
        }
    }

    private Object value(int depth) throws SyntaxException {
        if (pos >= text.length()) {
            throw error("unexpected end of input");
        }
        char c = text.charAt(pos);
        return switch (c) {
            case '{' -> object(depth + 1);
            case '[' -> array(depth + 1);
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> {
                if (c == '-' || c >= '0' && c <= '9') {
                    yield number();
                }
                throw error("unexpected character '" + c + "'");
            }
        };
    }

    private Object literal(String word, Object v) throws SyntaxException {
        if (!text.startsWith(word, pos)) {
            throw error("unexpected token");
        }
        pos += word.length();
        return v;
    }

    private Map<String, Object> object(int depth) throws SyntaxException {
        if (depth > MAX_DEPTH) {
            throw error("nesting deeper than " + MAX_DEPTH);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        pos++;
        skipSpace();
        if (pos < text.length() && text.charAt(pos) == '}') {
            pos++;
            return m;
        }
        while (true) {
            skipSpace();
            if (pos >= text.length() || text.charAt(pos) != '"') {
                throw error(pos >= text.length() ? "unexpected end of input: the object is not closed"
                        : "expected a field name");
            }
            String key = string();
            if (m.containsKey(key)) {
                throw error("Duplicate field '" + key + "'");
            }
            skipSpace();
            expect(':');
            skipSpace();
            m.put(key, value(depth));
            skipSpace();
            if (pos >= text.length()) {
                throw error("unexpected end of input: the object is not closed");
            }
            char c = text.charAt(pos++);
            if (c == '}') {
                return m;
            }
            if (c != ',') {
                pos--;
                throw error("expected ',' or '}'");
            }
        }
    }

    private List<Object> array(int depth) throws SyntaxException {
        if (depth > MAX_DEPTH) {
            throw error("nesting deeper than " + MAX_DEPTH);
        }
        List<Object> list = new ArrayList<>();
        pos++;
        skipSpace();
        if (pos < text.length() && text.charAt(pos) == ']') {
            pos++;
            return list;
        }
        while (true) {
            skipSpace();
            list.add(value(depth));
            skipSpace();
            if (pos >= text.length()) {
                throw error("unexpected end of input: the array is not closed");
            }
            char c = text.charAt(pos++);
            if (c == ']') {
                return list;
            }
            if (c != ',') {
                pos--;
                throw error("expected ',' or ']'");
            }
        }
    }

    private void expect(char c) throws SyntaxException {
        if (pos >= text.length() || text.charAt(pos) != c) {
            throw error("expected '" + c + "'");
        }
        pos++;
    }

    private String string() throws SyntaxException {
        pos++; // the opening quote
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw error("unexpected end of input in a string");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                return sb.toString();
            }
            if (c < 0x20) {
                pos--;
                throw error("unescaped control character in a string");
            }
            if (c == '\\') {
                if (pos >= text.length()) {
                    throw error("unexpected end of input in a string");
                }
                char e = text.charAt(pos++);
                switch (e) {
                    case '"', '\\', '/' -> sb.append(e);
                    case 'b' -> sb.append('\b');
                    case 'f' -> sb.append('\f');
                    case 'n' -> sb.append('\n');
                    case 'r' -> sb.append('\r');
                    case 't' -> sb.append('\t');
                    case 'u' -> {
                        if (pos + 4 > text.length()) {
                            throw error("truncated \\u escape");
                        }
                        try {
                            sb.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                        } catch (NumberFormatException x) {
                            throw error("bad \\u escape");
                        }
                        pos += 4;
                    }
                    default -> {
                        pos--;
                        throw error("bad escape '\\" + e + "'");
                    }
                }
            } else {
                sb.append(c);
            }
            if (sb.length() > MAX_STRING) {
                throw error("a string longer than " + MAX_STRING + " characters");
            }
        }
    }

    private Object number() throws SyntaxException {
        int start = pos;
        if (text.charAt(pos) == '-') {
            pos++;
        }
        if (pos >= text.length() || !digit(text.charAt(pos))) {
            throw error("bad number");
        }
        if (text.charAt(pos) == '0') {
            pos++;
            if (pos < text.length() && digit(text.charAt(pos))) {
                throw error("a number with a leading zero");
            }
        } else {
            digits();
        }
        boolean integer = true;
        if (pos < text.length() && text.charAt(pos) == '.') {
            integer = false;
            pos++;
            if (pos >= text.length() || !digit(text.charAt(pos))) {
                throw error("bad number");
            }
            digits();
        }
        if (pos < text.length() && (text.charAt(pos) == 'e' || text.charAt(pos) == 'E')) {
            integer = false;
            pos++;
            if (pos < text.length() && (text.charAt(pos) == '+' || text.charAt(pos) == '-')) {
                pos++;
            }
            if (pos >= text.length() || !digit(text.charAt(pos))) {
                throw error("bad number");
            }
            digits();
        }
        String n = text.substring(start, pos);
        if (!integer) {
            return Double.parseDouble(n);
        }
        BigInteger b = new BigInteger(n);
        return b.bitLength() < 64 ? (Object) b.longValue() : b;
    }

    private void digits() {
        while (pos < text.length() && digit(text.charAt(pos))) {
            pos++;
        }
    }

    private static boolean digit(char c) {
        return c >= '0' && c <= '9';
    }
}
