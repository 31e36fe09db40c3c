package io.dgen4j.format;

import io.dgen4j.json.JsonReader;
import io.dgen4j.json.JsonWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A LLaMA-family model as Hugging Face's {@code LlamaForCausalLM} names and shapes its weights:
 * {@code model.embed_tokens.weight}, per layer {@code self_attn.{q,k,v,o}_proj} (grouped-query
 * attention: k and v have {@code num_key_value_heads} heads), {@code mlp.{gate,up,down}_proj},
 * {@code input_layernorm} and {@code post_attention_layernorm}, then {@code model.norm.weight} and
 * {@code lm_head.weight} unless the embeddings are tied. Read from a {@code config.json} or built in.
 *
 * @param config the config.json fields, in the order written (the shapes' fields and those that
 *               let {@code transformers}' LlamaConfig read it)
 */
public record LlamaModel(Map<String, Object> config) {
    /** The built-in names. */
    public static final List<String> NAMES = List.of("llama3-8b", "llama3-70b", "llama3-405b");

    /** Copies the fields. */
    public LlamaModel {
        config = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(config));
    }

    /** Whether {@code name} is a built-in LLaMA name. */
    public static boolean isBuiltIn(String name) {
        return NAMES.contains(name.strip().toLowerCase(Locale.ROOT));
    }

    /**
     * A built-in model with the Hugging Face config of Meta's release: llama3-8b and llama3-70b
     * (Meta-Llama-3-8B, -70B), llama3-405b (Llama-3.1-405B, the only 405B).
     */
    public static LlamaModel builtIn(String name) {
        return switch (name.strip().toLowerCase(Locale.ROOT)) {
            case "llama3-8b" -> meta(4096, 14336, 32, 32, 8, 8192, null);
            case "llama3-70b" -> meta(8192, 28672, 80, 64, 8, 8192, null);
            case "llama3-405b" -> meta(16384, 53248, 126, 128, 8, 131072, Map.of("factor", 8.0, "high_freq_factor", 4.0,
                    "low_freq_factor", 1.0, "original_max_position_embeddings", 8192L, "rope_type", "llama3"));
            default -> throw new IllegalArgumentException("'" + name + "' is not a built-in LLaMA model ("
                    + String.join(", ", NAMES) + ")");
        };
    }

    /**
     * A LLaMA model of these dimensions (a DLIO model section's): Meta's Llama 3 config fields, with
     * {@code vocab_size} and {@code torch_dtype} as given, the embeddings untied.
     */
    public static LlamaModel shaped(long hidden, long intermediate, long layers, long heads, long kvHeads, long vocab,
                                    DType dtype) {
        Map<String, Object> c = new LinkedHashMap<>(meta(hidden, intermediate, layers, heads, kvHeads, 8192, null)
                .config());
        c.put("torch_dtype", dtype.label());
        c.put("vocab_size", vocab);
        LlamaModel m = new LlamaModel(c);
        m.tensors(); // every dimension positive and consistent, or one line naming the field
        return m;
    }

    private static LlamaModel meta(long hidden, long intermediate, long layers, long heads, long kvHeads,
                                   long maxPositions, Map<String, Object> ropeScaling) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("architectures", List.of("LlamaForCausalLM"));
        c.put("attention_bias", false);
        c.put("attention_dropout", 0.0);
        c.put("bos_token_id", 128000L);
        c.put("eos_token_id", 128001L);
        c.put("hidden_act", "silu");
        c.put("hidden_size", hidden);
        c.put("initializer_range", 0.02);
        c.put("intermediate_size", intermediate);
        c.put("max_position_embeddings", maxPositions);
        c.put("mlp_bias", false);
        c.put("model_type", "llama");
        c.put("num_attention_heads", heads);
        c.put("num_hidden_layers", layers);
        c.put("num_key_value_heads", kvHeads);
        c.put("pretraining_tp", 1L);
        c.put("rms_norm_eps", 1e-05);
        c.put("rope_scaling", ropeScaling == null ? null : new java.util.TreeMap<>(ropeScaling));
        c.put("rope_theta", 500000.0);
        c.put("tie_word_embeddings", false);
        c.put("torch_dtype", "bfloat16");
        c.put("use_cache", true);
        c.put("vocab_size", 128256L);
        return new LlamaModel(c);
    }

    /** Reads a Hugging Face {@code config.json}; errors name the file and the field. */
    public static LlamaModel read(Path file) throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new IOException(file + ": no such file", e);
        }
        Object doc;
        try {
            doc = JsonReader.parse(bytes);
        } catch (JsonReader.SyntaxException e) {
            throw new IOException(file + " is not valid JSON: " + e.getMessage(), e);
        }
        if (!(doc instanceof Map<?, ?> top)) {
            throw new IOException(file + " is not a config.json: its JSON is not an object");
        }
        Map<String, Object> c = new LinkedHashMap<>();
        top.forEach((k, v) -> c.put((String) k, v));
        LlamaModel m = new LlamaModel(c);
        try {
            m.tensors(); // every field the shapes need, or one line naming the missing one
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
        return m;
    }

    private long field(String name) {
        Object v = config.get(name);
        if (!(v instanceof Long n) || n <= 0) {
            throw new IllegalArgumentException("config field " + name + " must be a positive integer, got " + v);
        }
        return n;
    }

    /** {@code torch_dtype} (bfloat16 when absent). */
    public DType dtype() {
        Object v = config.get("torch_dtype");
        return v == null ? DType.BFLOAT16 : DType.parse(v.toString());
    }

    /** Whether {@code lm_head} is the embedding itself ({@code tie_word_embeddings}, false when absent). */
    public boolean tied() {
        return Boolean.TRUE.equals(config.get("tie_word_embeddings"));
    }

    /** The weights in {@code LlamaForCausalLM}'s state-dict order. */
    public List<Tensor> tensors() {
        long hidden = field("hidden_size");
        long inter = field("intermediate_size");
        long layers = field("num_hidden_layers");
        long heads = field("num_attention_heads");
        long kv = config.containsKey("num_key_value_heads") ? field("num_key_value_heads") : heads;
        long vocab = field("vocab_size");
        long headDim = config.get("head_dim") != null ? field("head_dim") : hidden / heads;
        if (!config.containsKey("head_dim") && hidden % heads != 0) {
            throw new IllegalArgumentException("hidden_size " + hidden + " is not a multiple of num_attention_heads "
                    + heads);
        }
        if (heads % kv != 0) {
            throw new IllegalArgumentException("num_attention_heads " + heads + " is not a multiple of "
                    + "num_key_value_heads " + kv);
        }
        DType d = dtype();
        List<Tensor> out = new ArrayList<>();
        out.add(Tensor.of("model.embed_tokens.weight", d, vocab, hidden));
        for (long i = 0; i < layers; i++) {
            String p = "model.layers." + i + ".";
            out.add(Tensor.of(p + "self_attn.q_proj.weight", d, heads * headDim, hidden));
            out.add(Tensor.of(p + "self_attn.k_proj.weight", d, kv * headDim, hidden));
            out.add(Tensor.of(p + "self_attn.v_proj.weight", d, kv * headDim, hidden));
            out.add(Tensor.of(p + "self_attn.o_proj.weight", d, hidden, heads * headDim));
            out.add(Tensor.of(p + "mlp.gate_proj.weight", d, inter, hidden));
            out.add(Tensor.of(p + "mlp.up_proj.weight", d, inter, hidden));
            out.add(Tensor.of(p + "mlp.down_proj.weight", d, hidden, inter));
            out.add(Tensor.of(p + "input_layernorm.weight", d, hidden));
            out.add(Tensor.of(p + "post_attention_layernorm.weight", d, hidden));
        }
        out.add(Tensor.of("model.norm.weight", d, hidden));
        if (!tied()) {
            out.add(Tensor.of("lm_head.weight", d, vocab, hidden));
        }
        return List.copyOf(out);
    }

    /** The config.json to write beside the weights: the fields, 2-space indent, sorted keys, a final newline. */
    public String configJson() {
        Map<String, Object> sorted = new java.util.TreeMap<>(config);
        return indented(sorted, "") + "\n";
    }

    /** JSON with 2-space indent (Python's json.dumps(indent=2) layout, which transformers writes). */
    static String indented(Object v, String pad) {
        if (v instanceof Map<?, ?> m) {
            if (m.isEmpty()) {
                return "{}";
            }
            StringBuilder b = new StringBuilder("{\n");
            int i = 0;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                b.append(pad).append("  ").append(JsonWriter.LINE.write(e.getKey().toString())).append(": ")
                        .append(indented(e.getValue(), pad + "  ")).append(++i < m.size() ? ",\n" : "\n");
            }
            return b.append(pad).append('}').toString();
        }
        if (v instanceof List<?> l) {
            if (l.isEmpty()) {
                return "[]";
            }
            StringBuilder b = new StringBuilder("[\n");
            for (int i = 0; i < l.size(); i++) {
                b.append(pad).append("  ").append(indented(l.get(i), pad + "  ")).append(i + 1 < l.size() ? ",\n" : "\n");
            }
            return b.append(pad).append(']').toString();
        }
        if (v instanceof Double d) {
            // Python writes 1e-05 and 500000.0; Java's Double.toString writes 1.0E-5
            String s = Double.toString(d);
            if (s.contains("E")) {
                String[] p = s.split("E");
                int exp = Integer.parseInt(p[1]);
                String mant = p[0].endsWith(".0") ? p[0].substring(0, p[0].length() - 2) : p[0];
                return mant + "e" + (exp < 0 ? "-" : "+") + String.format("%02d", Math.abs(exp));
            }
            return s;
        }
        return JsonWriter.LINE.write(v);
    }
}
