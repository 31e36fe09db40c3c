package io.dgen4j.dlio;

import java.util.LinkedHashMap;
import java.util.Map;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

/**
 * Hydra-style command-line overrides as DLIO takes them: {@code ++workload.a.b=v} (set, adding the
 * key if missing), {@code +workload.a.b=v} (add), {@code workload.a.b=v} (set) and
 * {@code ~workload.a.b} (remove). The {@code workload.} prefix may be left out. Values are read as
 * YAML scalars, so {@code 3} is an integer, {@code True} a boolean and {@code /mnt/x} a string.
 */
final class Overrides {
    private Overrides() {}

    /** Applies one override to the document (nested maps, mutable). */
    static void apply(Map<String, Object> doc, String override) {
        String o = override.strip();
        boolean remove = o.startsWith("~");
        String body = o.startsWith("++") ? o.substring(2) : o.startsWith("+") || remove ? o.substring(1) : o;
        int eq = body.indexOf('=');
        if (!remove && eq < 0) {
            throw new DlioConfigException(override, "an override is key=value, e.g. "
                    + "++workload.checkpoint.checkpoint_folder=/mnt/ckpt");
        }
        String path = remove ? (eq < 0 ? body : body.substring(0, eq)) : body.substring(0, eq);
        path = path.strip();
        if (path.startsWith("workload.")) {
            path = path.substring("workload.".length());
        }
        if (path.isEmpty() || path.startsWith(".") || path.endsWith(".") || path.contains("..")) {
            throw new DlioConfigException(override, "the key path is empty or malformed");
        }
        String[] keys = path.split("\\.");
        if (keys.length > YamlText.MAX_DEPTH) {
            throw new DlioConfigException(override, String.format("the key path is %d keys deep: the limit is %d",
                    keys.length, YamlText.MAX_DEPTH));
        }
        Map<String, Object> at = doc;
        for (int i = 0; i < keys.length - 1; i++) {
            Object next = at.get(keys[i]);
            if (next == null && !remove) {
                next = new LinkedHashMap<String, Object>();
                at.put(keys[i], next);
            }
            if (next == null) {
                return;
            }
            if (!(next instanceof Map<?, ?>)) {
                throw new DlioConfigException(String.join(".", java.util.Arrays.copyOf(keys, i + 1)),
                        "is not a mapping, so " + override + " cannot set a key under it");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> m = (Map<String, Object>) next;
            at = m;
        }
        String last = keys[keys.length - 1];
        if (remove) {
            at.remove(last);
        } else {
            at.put(last, scalar(body.substring(eq + 1), override));
        }
    }

    private static Object scalar(String text, String override) {
        if (text.isBlank()) {
            return null;
        }
        try {
            return YamlText.load(text, "the value");
        } catch (YamlText.YamlLimitException e) {
            throw new DlioConfigException(override, e.getMessage());
        } catch (YamlEngineException e) {
            throw new DlioConfigException(override, "the value is not valid YAML");
        }
    }
}
