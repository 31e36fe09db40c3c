package io.dgen4j.format;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Tensor lists as text, one tensor a line: {@code name dtype shape}, e.g.
 * {@code model/layers.0.weight bfloat16 [4096,4096]} ({@code []} for a scalar); blank lines and
 * lines starting with {@code #} are ignored. The same text travels in a checkpoint's manifest.
 */
public final class TensorList {
    /** Names of the built-in models ({@link #model}). */
    public static final List<String> MODELS = List.of("tiny", "mlp-1b", "llama3-8b", "llama3-70b", "llama3-405b");

    private TensorList() {}

    /** Reads a tensor list file; errors name the file and line. */
    public static List<Tensor> read(Path file) throws IOException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (java.nio.charset.MalformedInputException e) {
            throw new IOException(file + " is not UTF-8 text", e);
        }
        return parse(text, file.toString());
    }

    /** Parses tensor-list text; {@code where} names it in errors (with the line). */
    public static List<Tensor> parse(String text, String where) {
        List<Tensor> out = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\\s+");
            try {
                if (f.length != 3) {
                    throw new IllegalArgumentException("expected 'name dtype [d0,d1,...]', got '" + line + "'");
                }
                out.add(Tensor.of(f[0], DType.parse(f[1]), shape(f[2])));
            } catch (IllegalArgumentException | ArithmeticException e) {
                throw new IllegalArgumentException(where + " line " + (i + 1) + ": " + e.getMessage(), e);
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(where + " lists no tensors");
        }
        checkTree(out, where);
        return List.copyOf(out);
    }

    /** The text of {@code tensors}, one line each, that {@link #parse} reads back. */
    public static String format(List<Tensor> tensors) {
        StringBuilder b = new StringBuilder();
        for (Tensor t : tensors) {
            b.append(t).append('\n');
        }
        return b.toString();
    }

    /**
     * A built-in model's tensors: {@code tiny} (a 2-layer model and its Adam state, about 1 MiB,
     * for tests), {@code mlp-1b} (16 layers of 16384x4096 bfloat16 weights and their biases, 2 GiB),
     * {@code llama3-8b}, {@code llama3-70b}, {@code llama3-405b} (Hugging Face names: {@link LlamaModel}).
     */
    public static List<Tensor> model(String name) {
        if (LlamaModel.isBuiltIn(name)) {
            return LlamaModel.builtIn(name).tensors();
        }
        List<Tensor> out = new ArrayList<>();
        switch (name.strip().toLowerCase(Locale.ROOT)) {
            case "tiny" -> {
                out.add(Tensor.of("model/embed.weight", DType.FLOAT32, 1000, 64));
                for (int l = 0; l < 2; l++) {
                    out.add(Tensor.of("model/layers." + l + ".weight", DType.FLOAT32, 64, 64));
                    out.add(Tensor.of("model/layers." + l + ".bias", DType.FLOAT32, 64));
                    out.add(Tensor.of("model/layers." + l + ".norm", DType.BFLOAT16, 64));
                }
                out.add(Tensor.of("model/head.weight", DType.FLOAT16, 10, 64));
                out.add(Tensor.of("optimizer/step", DType.INT64));
                out.add(Tensor.of("optimizer/exp_avg", DType.FLOAT32, 1000 * 64));
                out.add(Tensor.of("optimizer/exp_avg_sq", DType.FLOAT32, 1000 * 64));
            }
            case "mlp-1b" -> {
                for (int l = 0; l < 16; l++) {
                    out.add(Tensor.of("model/layers." + l + ".up.weight", DType.BFLOAT16, 4 * 4096, 4096));
                    out.add(Tensor.of("model/layers." + l + ".up.bias", DType.BFLOAT16, 4 * 4096));
                }
            }
            default -> throw new IllegalArgumentException("'" + name + "' is not a built-in model ("
                    + String.join(", ", MODELS) + ")");
        }
        return List.copyOf(out);
    }

    /** Total payload bytes. */
    public static long bytes(List<Tensor> tensors) {
        long n = 0;
        for (Tensor t : tensors) {
            n = Math.addExact(n, t.bytes());
        }
        return n;
    }

    private static long[] shape(String s) {
        if (!s.startsWith("[") || !s.endsWith("]")) {
            throw new IllegalArgumentException("shape '" + s + "' must be written [d0,d1,...] ([] for a scalar)");
        }
        String inner = s.substring(1, s.length() - 1).strip();
        if (inner.isEmpty()) {
            return new long[0];
        }
        String[] parts = inner.split(",");
        long[] dims = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                dims[i] = Long.parseLong(parts[i].strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("shape '" + s + "' has a dimension that is no integer: '"
                        + parts[i].strip() + "'");
            }
        }
        return dims;
    }

    /** Refuses a name twice, and a name that is both a tensor and a dict of others. */
    private static void checkTree(List<Tensor> tensors, String where) {
        Map<String, Boolean> seen = new HashMap<>(); // path -> is a tensor (true) or a dict (false)
        for (Tensor t : tensors) {
            List<String> p = t.path();
            for (int i = 1; i <= p.size(); i++) {
                String prefix = String.join("/", p.subList(0, i));
                boolean leaf = i == p.size();
                Boolean before = seen.putIfAbsent(prefix, leaf);
                if (before != null && (before || leaf)) {
                    throw new IllegalArgumentException(where + ": " + (before && leaf ? "tensor " + prefix
                            + " is listed twice" : prefix + " is both a tensor and a dict of tensors"));
                }
            }
        }
    }
}
