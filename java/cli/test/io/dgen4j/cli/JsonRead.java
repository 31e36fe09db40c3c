package io.dgen4j.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict reader for the CLI's JSON in tests: exactly one document (nothing after it), no NaN or
 * other extensions (jackson-core's defaults), into maps, lists, strings, Long/BigInteger, Double,
 * Boolean and null.
 */
public final class JsonRead {
    private static final JsonFactory FACTORY = new JsonFactory();

    private JsonRead() {}

    public static Object parse(String json) {
        try (JsonParser p = FACTORY.createParser(json)) {
            JsonToken t = p.nextToken();
            if (t == null) {
                throw new AssertionError("no JSON document in: '" + json + "'");
            }
            Object v = value(p, t);
            JsonToken after = p.nextToken();
            if (after != null) {
                throw new AssertionError("more than one JSON document (then " + after + ") in: " + json);
            }
            return v;
        } catch (IOException e) {
            throw new AssertionError("not valid JSON (" + e.getMessage() + "): " + json, e);
        }
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> object(String json) {
        Object v = parse(json);
        if (!(v instanceof Map)) {
            throw new AssertionError("not a JSON object: " + json);
        }
        return (Map<String, Object>) v;
    }

    private static Object value(JsonParser p, JsonToken t) throws IOException {
        return switch (t) {
            case START_OBJECT -> {
                Map<String, Object> m = new LinkedHashMap<>();
                for (JsonToken k = p.nextToken(); k != JsonToken.END_OBJECT; k = p.nextToken()) {
                    String name = p.currentName();
                    if (m.containsKey(name)) {
                        throw new AssertionError("duplicate key " + name);
                    }
                    m.put(name, value(p, p.nextToken()));
                }
                yield m;
            }
            case START_ARRAY -> {
                List<Object> l = new ArrayList<>();
                for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
                    l.add(value(p, e));
                }
                yield l;
            }
            case VALUE_STRING -> p.getText();
            case VALUE_NUMBER_INT -> p.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? p.getBigIntegerValue()
                    : p.getLongValue();
            case VALUE_NUMBER_FLOAT -> p.getDoubleValue();
            case VALUE_TRUE -> true;
            case VALUE_FALSE -> false;
            case VALUE_NULL -> null;
            default -> throw new AssertionError("unexpected token " + t);
        };
    }
}
