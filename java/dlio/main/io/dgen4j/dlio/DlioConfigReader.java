package io.dgen4j.dlio;

import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.format.Layout;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.storage.ConfigFiles;
import io.dgen4j.unit.ByteSize;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

/**
 * Reads a DLIO workload YAML the way DLIO's {@code LoadConfig} does: each known key replaces a
 * default, Hydra-style overrides ({@code ++workload.checkpoint.fsync=True},
 * {@code workload.model.parallelism.zero_stage=3}) apply on top, unknown keys are reported in
 * {@link DlioConfig#warnings()} with their path, and values of the wrong type or that DLIO's own
 * checks refuse throw a {@link DlioConfigException} naming the key.
 *
 * <p>The rules that depend on the number of ranks are in {@link #checkRanks(DlioConfig, int)}.
 */
public final class DlioConfigReader {

    /** Sections DLIO knows that the checkpoint phase does not read: accepted silently. */
    private static final Set<String> OTHER_SECTIONS = Set.of("dataset", "reader", "train", "evaluation", "profiling",
            "metric", "hydra");
    private static final Set<String> TOP = Set.of("model", "framework", "workflow", "checkpoint", "storage",
            "output");
    private static final Set<String> MODEL = Set.of("name", "type", "num_layers", "model_datatype",
            "optimizer_datatype", "model_size_bytes", "model_size", "optimization_groups", "layer_parameters",
            "parallelism", "transformer");
    private static final Set<String> PARALLELISM = Set.of("tensor", "pipeline", "data", "zero_stage");
    private static final Set<String> TRANSFORMER = Set.of("vocab_size", "hidden_size", "ffn_hidden_size",
            "num_attention_heads", "num_kv_heads");
    private static final Set<String> WORKFLOW = Set.of("generate_data", "train", "checkpoint", "evaluation",
            "profiling", "debug", "query");
    // DLIO's checkpoint keys; the epoch/step schedule and the tensor options do not apply to a
    // checkpoint-only run of streamed bytes, and are accepted without effect.
    private static final Set<String> CHECKPOINT = Set.of("checkpoint_folder", "mode", "fsync",
            "time_between_checkpoints", "num_checkpoints_write", "num_checkpoints_read", "rank_sync",
            "recovery_rank_shift", "checkpoint_after_epoch", "epochs_between_checkpoints", "steps_between_checkpoints",
            "type", "checkpoint_mechanism_classname", "randomize_tensor", "ksm", "model_size", "streaming");
    private static final Set<String> STREAMING = Set.of("chunk_size", "num_buffers", "writers", "backend",
            "dedup_ratio", "compress_ratio", "format");
    private static final Set<String> STORAGE = Set.of("storage_type", "storage_root", "storage_options");
    private static final Set<String> OUTPUT = Set.of("folder", "log_file", "metric", "keep_files", "log_level");

    /** The most ranks a plan takes (and so the largest tensor, pipeline and data degree). */
    public static final int MAX_RANKS = 1 << 16;
    /** The most transformer layers ({@code model.num_layers}); DLIO's largest shipped model has 128. */
    public static final int MAX_LAYERS = 100_000;
    /** The most saves or loads ({@code checkpoint.num_checkpoints_write}, {@code num_checkpoints_read}). */
    public static final int MAX_CHECKPOINTS = 10_000;
    /** The longest pause before each save and load ({@code checkpoint.time_between_checkpoints}): one day. */
    public static final double MAX_PAUSE_SECONDS = 86_400;
    /** The most writes in flight per file ({@code checkpoint.streaming.writers}), as the CLI's --writers. */
    public static final int MAX_WRITERS = 256;
    /** The most buffers per file's pool ({@code checkpoint.streaming.num_buffers}), as the CLI's --buffers. */
    public static final int MAX_BUFFERS = 1024;

    private final List<String> warnings = new ArrayList<>();

    private DlioConfigReader() {}

    /**
     * Reads {@code yaml} with {@code overrides} applied in order.
     *
     * @throws IOException         when the file cannot be read
     * @throws DlioConfigException when the YAML, an override or a value is refused (the key is named)
     */
    public static DlioConfig read(Path yaml, List<String> overrides) throws IOException {
        // a regular UTF-8 file of at most 1 MiB: a FIFO does not block, /dev/zero does not fill the heap
        String text = ConfigFiles.read(yaml, "DLIO workload");
        return parse(text, yaml.toString(), overrides);
    }

    /** Reads the YAML {@code text} ({@code source} names it in messages) with {@code overrides} applied. */
    public static DlioConfig parse(String text, String source, List<String> overrides) {
        Object root;
        try {
            root = YamlText.load(text, source);
        } catch (YamlText.YamlLimitException e) {
            throw new DlioConfigException("(yaml)", e.getMessage());
        } catch (YamlEngineException e) {
            throw new DlioConfigException("(yaml)", source + " is not valid YAML: " + firstLine(e.getMessage()));
        }
        Map<String, Object> doc = root == null ? new LinkedHashMap<>() : mutable(map(root, "(top level)"));
        // a Hydra run config nests the workload under `workload:`; the workload files do not
        if (doc.size() == 1 && doc.get("workload") instanceof Map<?, ?> w) {
            doc = mutable(map(w, "workload"));
        }
        for (String o : overrides) {
            Overrides.apply(doc, o);
        }
        return new DlioConfigReader().build(doc);
    }

    /**
     * DLIO's checks that need the number of ranks: in default mode {@code ranks} must be a multiple of
     * tensor × pipeline; in subset mode at most data × tensor × pipeline.
     *
     * @throws DlioConfigException naming the key at fault ({@code ranks} when it is not positive)
     */
    public static void checkRanks(DlioConfig config, int ranks) {
        if (ranks < 1 || ranks > MAX_RANKS) {
            throw new DlioConfigException("ranks", String.format(Locale.ROOT, "must be 1 to %d, got %d", MAX_RANKS,
                    ranks));
        }
        DlioConfig.Parallelism p = config.model().parallelism();
        if (config.checkpoint().mode() == DlioConfig.Mode.DEFAULT) {
            if (ranks % p.modelParallelism() != 0) {
                throw new DlioConfigException("model.parallelism", String.format(Locale.ROOT,
                        "%d ranks are not a multiple of tensor x pipeline = %d x %d = %d", ranks, p.tensor(),
                        p.pipeline(), p.modelParallelism()));
            }
        } else if ((long) p.data() * p.modelParallelism() < ranks) {
            throw new DlioConfigException("model.parallelism.data", String.format(Locale.ROOT,
                    "%d ranks are more than data x tensor x pipeline = %d x %d x %d", ranks, p.data(), p.tensor(),
                    p.pipeline()));
        }
    }

    private DlioConfig build(Map<String, Object> doc) {
        for (String k : doc.keySet()) {
            if (!TOP.contains(k) && !OTHER_SECTIONS.contains(k)) {
                warnings.add("unknown key '" + k + "' (ignored)");
            }
        }
        if (!doc.containsKey("model") || doc.get("model") == null) {
            throw new DlioConfigException("model", "missing: a checkpoint workload needs the model section");
        }
        // DLIO's `model: unet3d` form names the model and nothing else
        Map<String, Object> model = doc.get("model") instanceof String s ? Map.of("name", s) : section(doc, "model",
                "model", MODEL);
        Map<String, Object> par = section(model, "parallelism", "model.parallelism", PARALLELISM);
        Map<String, Object> tr = section(model, "transformer", "model.transformer", TRANSFORMER);
        Map<String, Object> wf = section(doc, "workflow", "workflow", WORKFLOW);
        Map<String, Object> ck = section(doc, "checkpoint", "checkpoint", CHECKPOINT);
        Map<String, Object> st = section(ck, "streaming", "checkpoint.streaming", STREAMING);
        Map<String, Object> sto = section(doc, "storage", "storage", STORAGE);
        Map<String, Object> out = section(doc, "output", "output", OUTPUT);

        String framework = string(doc, "framework", "framework", "tensorflow");
        if (!framework.equals("pytorch") && !framework.equals("tensorflow")) {
            throw new DlioConfigException("framework", "must be pytorch or tensorflow, got '" + framework + "'");
        }

        int numLayers = integer(model, "num_layers", "model.num_layers", -1);
        if (model.containsKey("num_layers") && (numLayers < 0 || numLayers > MAX_LAYERS)) {
            throw new DlioConfigException("model.num_layers", String.format(Locale.ROOT, "must be 0 to %d, got %d",
                    MAX_LAYERS, numLayers));
        }
        int tensor = integer(par, "tensor", "model.parallelism.tensor", 1);
        int pipeline = integer(par, "pipeline", "model.parallelism.pipeline", 1);
        int data = integer(par, "data", "model.parallelism.data", -1);
        int zero = integer(par, "zero_stage", "model.parallelism.zero_stage", 0);
        inRange(tensor, 1, MAX_RANKS, "model.parallelism.tensor");
        inRange(pipeline, 1, MAX_RANKS, "model.parallelism.pipeline");
        if ((long) tensor * pipeline > MAX_RANKS) {
            throw new DlioConfigException("model.parallelism", String.format(Locale.ROOT, "tensor x pipeline = %d x "
                    + "%d = %d ranks per model replica: the most a plan takes is %d", tensor, pipeline,
                    (long) tensor * pipeline, MAX_RANKS));
        }
        if (par.containsKey("data") && (data < 1 || data > MAX_RANKS)) {
            throw new DlioConfigException("model.parallelism.data", String.format(Locale.ROOT,
                    "must be 1 to %d when set, got %d", MAX_RANKS, data));
        }
        if (zero < 0 || zero > 3) {
            throw new DlioConfigException("model.parallelism.zero_stage", "must be 0, 1, 2 or 3, got " + zero);
        }
        DlioConfig.Transformer transformer = new DlioConfig.Transformer(
                longValue(tr, "vocab_size", "model.transformer.vocab_size", 32000),
                longValue(tr, "hidden_size", "model.transformer.hidden_size", 2048),
                longValue(tr, "ffn_hidden_size", "model.transformer.ffn_hidden_size", 8192),
                longValue(tr, "num_attention_heads", "model.transformer.num_attention_heads", 32),
                longValue(tr, "num_kv_heads", "model.transformer.num_kv_heads", 8));
        positive(transformer.vocabSize(), "model.transformer.vocab_size");
        positive(transformer.hiddenSize(), "model.transformer.hidden_size");
        positive(transformer.ffnHiddenSize(), "model.transformer.ffn_hidden_size");
        positive(transformer.numAttentionHeads(), "model.transformer.num_attention_heads");
        positive(transformer.numKvHeads(), "model.transformer.num_kv_heads");
        long modelSize = model.containsKey("model_size_bytes")
                ? longValue(model, "model_size_bytes", "model.model_size_bytes", 10240)
                : longValue(model, "model_size", "model.model_size", 10240);
        if (modelSize < 0) {
            throw new DlioConfigException("model.model_size_bytes", "must not be negative, got " + modelSize);
        }
        DlioConfig.Model m = new DlioConfig.Model(string(model, "name", "model.name", "default"),
                Optional.ofNullable(string(model, "type", "model.type", null)), numLayers,
                datatype(model, "model_datatype", "model.model_datatype", Datatype.FP16),
                datatype(model, "optimizer_datatype", "model.optimizer_datatype", Datatype.FP32), modelSize,
                longs(model, "optimization_groups", "model.optimization_groups"),
                longs(model, "layer_parameters", "model.layer_parameters"),
                new DlioConfig.Parallelism(tensor, pipeline, data, zero), transformer);

        DlioConfig.Workflow workflow = new DlioConfig.Workflow(
                bool(wf, "generate_data", "workflow.generate_data", false),
                bool(wf, "train", "workflow.train", true),
                bool(wf, "checkpoint", "workflow.checkpoint", false));

        String modeName = string(ck, "mode", "checkpoint.mode", "default");
        DlioConfig.Mode mode = switch (modeName) {
            case "default" -> DlioConfig.Mode.DEFAULT;
            case "subset" -> DlioConfig.Mode.SUBSET;
            default -> throw new DlioConfigException("checkpoint.mode", "must be default or subset, got '"
                    + modeName + "'");
        };
        String folder = string(ck, "checkpoint_folder", "checkpoint.checkpoint_folder", "./checkpoints/");
        folder = folder.length() > 1 ? folder.replaceAll("/+$", "") : folder;
        if (folder.isEmpty()) {
            throw new DlioConfigException("checkpoint.checkpoint_folder", "must not be empty");
        }
        // DLIO's -1 means "none" for the pause and the counts; other values must be real amounts
        double pause = number(ck, "time_between_checkpoints", "checkpoint.time_between_checkpoints", -1);
        if (pause != -1 && !(pause >= 0 && pause <= MAX_PAUSE_SECONDS)) {
            throw new DlioConfigException("checkpoint.time_between_checkpoints", String.format(Locale.ROOT,
                    "must be -1 (no pause) or 0 to %.0f seconds, got %s", MAX_PAUSE_SECONDS, pause));
        }
        DlioConfig.Checkpoint checkpoint = new DlioConfig.Checkpoint(folder, mode,
                bool(ck, "fsync", "checkpoint.fsync", false), pause,
                count(ck, "num_checkpoints_write", "checkpoint.num_checkpoints_write"),
                count(ck, "num_checkpoints_read", "checkpoint.num_checkpoints_read"),
                bool(ck, "rank_sync", "checkpoint.rank_sync", false),
                bool(ck, "recovery_rank_shift", "checkpoint.recovery_rank_shift", false));

        long chunk = size(st, "chunk_size", "checkpoint.streaming.chunk_size", StreamingCheckpoint.DEFAULT_CHUNK_SIZE);
        if (chunk <= 0 || chunk % 4096 != 0 || chunk > (1L << 31)) {
            throw new DlioConfigException("checkpoint.streaming.chunk_size",
                    "must be a positive multiple of 4096 bytes up to 2 GiB, got " + chunk);
        }
        int writers = integer(st, "writers", "checkpoint.streaming.writers", 1);
        inRange(writers, 1, MAX_WRITERS, "checkpoint.streaming.writers");
        int buffers = integer(st, "num_buffers", "checkpoint.streaming.num_buffers", Math.max(2, writers + 1));
        if (buffers <= writers) {
            throw new DlioConfigException("checkpoint.streaming.num_buffers", String.format(Locale.ROOT,
                    "must exceed checkpoint.streaming.writers (%d): one buffer is always being filled, got %d",
                    writers, buffers));
        }
        inRange(buffers, 2, MAX_BUFFERS, "checkpoint.streaming.num_buffers");
        double dedup = number(st, "dedup_ratio", "checkpoint.streaming.dedup_ratio", 1);
        double compress = number(st, "compress_ratio", "checkpoint.streaming.compress_ratio", 1);
        // the data model's own bounds (finite, at least 1; compression at most 1024/7), checked now, not at the
        // first save
        try {
            DataSpec.builder().dedupRatio(dedup);
        } catch (IllegalArgumentException e) {
            throw new DlioConfigException("checkpoint.streaming.dedup_ratio", e.getMessage());
        }
        try {
            DataSpec.builder().compressRatio(compress);
        } catch (IllegalArgumentException e) {
            throw new DlioConfigException("checkpoint.streaming.compress_ratio", e.getMessage());
        }
        String formatName = string(st, "format", "checkpoint.streaming.format", null);
        Layout.Format format;
        try {
            format = formatName == null ? defaultFormat(framework, m) : Layout.Format.parse(formatName);
        } catch (IllegalArgumentException e) {
            throw new DlioConfigException("checkpoint.streaming.format", e.getMessage());
        }
        if (format == Layout.Format.SAFETENSORS) {
            throw new DlioConfigException("checkpoint.streaming.format", "DLIO writes no safetensors files: use raw or "
                    + "torch (dgen4j save --format safetensors writes them)");
        }
        if (format == Layout.Format.TORCH && "tensorflow".equals(framework)) {
            throw new DlioConfigException("checkpoint.streaming.format", "torch files are DLIO's pytorch mechanism; "
                    + "framework is tensorflow (use raw, or framework: pytorch)");
        }
        if (format == Layout.Format.TORCH && !m.layerParameters().isEmpty()) {
            // DLIO shares one layer dict among all layers there: torch.save pickles it once, which a tensor list
            // cannot say
            throw new DlioConfigException("checkpoint.streaming.format", "torch files " + LEGACY_LAYERS + ": use raw");
        }
        if (format == Layout.Format.TORCH && !m.optimizationGroups().isEmpty()) {
            // DLIO's literal 'a' and 'b' keys are one object each, which torch.save pickles once per file
            throw new DlioConfigException("checkpoint.streaming.format", "torch files " + LEGACY_GROUPS + ": use raw");
        }
        DlioConfig.Streaming streaming = new DlioConfig.Streaming(chunk, buffers, writers,
                Optional.ofNullable(string(st, "backend", "checkpoint.streaming.backend", null)), dedup, compress,
                format, formatName != null);

        String storageType = string(sto, "storage_type", "storage.storage_type", "local_fs");
        if (!Set.of("local_fs", "parallel_fs", "s3").contains(storageType)) {
            throw new DlioConfigException("storage.storage_type", "must be local_fs, parallel_fs or s3, got '"
                    + storageType + "'");
        }
        DlioConfig.Storage storage = new DlioConfig.Storage(storageType,
                string(sto, "storage_root", "storage.storage_root", "./"));

        DlioConfig config = new DlioConfig(framework, m, workflow, checkpoint, streaming, storage,
                Optional.ofNullable(string(out, "folder", "output.folder", null)), warnings);
        checkRules(config, model.containsKey("num_layers"));
        return config;
    }

    private static final String LEGACY_LAYERS = "of the legacy model.layer_parameters are not written (DLIO shares "
            + "one dict among the layers)";
    private static final String LEGACY_GROUPS = "of the legacy model.optimization_groups are not written (their 'a' "
            + "and 'b' keys are shared objects)";

    /**
     * The format when {@code checkpoint.streaming.format} is unset: torch for {@code framework: pytorch} (DLIO's
     * default mechanism there is {@code torch.save}), raw for tensorflow and, with a warning saying why, for the
     * legacy predefined tensors a torch file cannot describe.
     */
    private Layout.Format defaultFormat(String framework, DlioConfig.Model m) {
        if (!"pytorch".equals(framework)) {
            return Layout.Format.RAW;
        }
        String why = !m.layerParameters().isEmpty() ? LEGACY_LAYERS
                : !m.optimizationGroups().isEmpty() ? LEGACY_GROUPS : null;
        if (why != null) {
            warnings.add("checkpoint.streaming.format: writing raw files, not torch (the default for framework "
                    + "pytorch): torch files " + why);
            return Layout.Format.RAW;
        }
        return Layout.Format.TORCH;
    }

    /** DLIO's own checks (ConfigArguments.validate) that do not need the number of ranks. */
    private static void checkRules(DlioConfig c, boolean layersSet) {
        DlioConfig.Parallelism p = c.model().parallelism();
        if (c.model().numLayers() > 0 && c.model().numLayers() < p.pipeline()) {
            throw new DlioConfigException("model.num_layers", String.format(Locale.ROOT,
                    "%d layers cannot fill %d pipeline stages (model.parallelism.pipeline)", c.model().numLayers(),
                    p.pipeline()));
        }
        if (p.pipeline() > 1 && p.zeroStage() == 3) {
            throw new DlioConfigException("model.parallelism.zero_stage",
                    "ZeRO stage 3 is not compatible with pipeline parallelism (model.parallelism.pipeline "
                            + p.pipeline() + ")");
        }
        if (c.checkpoint().mode() == DlioConfig.Mode.DEFAULT && p.data() > 0) {
            throw new DlioConfigException("model.parallelism.data",
                    "must not be set in default checkpoint mode (it follows from the ranks); set checkpoint.mode: subset");
        }
        if (c.checkpoint().mode() == DlioConfig.Mode.SUBSET && p.data() <= 0) {
            throw new DlioConfigException("model.parallelism.data",
                    "subset checkpointing needs a target data parallelism");
        }
        int writes = c.checkpoint().numCheckpointsWrite();
        if (writes > 0 && c.checkpoint().numCheckpointsRead() > writes) {
            throw new DlioConfigException("checkpoint.num_checkpoints_read", String.format(Locale.ROOT,
                    "%d reads cannot exceed %d writes (checkpoint.num_checkpoints_write)",
                    c.checkpoint().numCheckpointsRead(), writes));
        }
    }

    private Map<String, Object> section(Map<String, Object> parent, String name, String path, Set<String> known) {
        Object v = parent.get(name);
        if (v == null) {
            return Map.of();
        }
        if (!(v instanceof Map<?, ?> m)) {
            throw new DlioConfigException(path, "must be a mapping, got " + describe(v));
        }
        Map<String, Object> s = map(m, path);
        for (String k : s.keySet()) {
            if (!known.contains(k)) {
                warnings.add("unknown key '" + path + "." + k + "' (ignored)");
            }
        }
        return s;
    }

    private static Map<String, Object> map(Object v, String path) {
        if (!(v instanceof Map<?, ?> m)) {
            throw new DlioConfigException(path, "must be a mapping, got " + describe(v));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : m.entrySet()) {
            out.put(String.valueOf(e.getKey()), e.getValue());
        }
        return out;
    }

    private static Map<String, Object> mutable(Map<String, Object> m) {
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k, v instanceof Map<?, ?> sub ? mutable(map(sub, k)) : v));
        return out;
    }

    private static String string(Map<String, Object> m, String key, String path, String dflt) {
        Object v = m.get(key);
        if (v == null) {
            return dflt;
        }
        if (v instanceof String s) {
            return s;
        }
        throw new DlioConfigException(path, "must be a string, got " + describe(v));
    }

    private static boolean bool(Map<String, Object> m, String key, String path, boolean dflt) {
        Object v = m.get(key);
        if (v == null) {
            return dflt;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        throw new DlioConfigException(path, "must be True or False, got " + describe(v));
    }

    private static long longValue(Map<String, Object> m, String key, String path, long dflt) {
        Object v = m.get(key);
        if (v == null) {
            return dflt;
        }
        return toLong(v, path);
    }

    private static long toLong(Object v, String path) {
        if (v instanceof Integer || v instanceof Long) {
            return ((Number) v).longValue();
        }
        if (v instanceof BigInteger b) {
            throw new DlioConfigException(path, "is too large: " + b);
        }
        throw new DlioConfigException(path, "must be an integer, got " + describe(v));
    }

    private static int integer(Map<String, Object> m, String key, String path, int dflt) {
        long v = longValue(m, key, path, dflt);
        if (v != (int) v) {
            throw new DlioConfigException(path, "is too large: " + v);
        }
        return (int) v;
    }

    private static double number(Map<String, Object> m, String key, String path, double dflt) {
        Object v = m.get(key);
        if (v == null) {
            return dflt;
        }
        if (v instanceof Number n && !(v instanceof BigInteger)) {
            return n.doubleValue();
        }
        throw new DlioConfigException(path, "must be a number, got " + describe(v));
    }

    private static Datatype datatype(Map<String, Object> m, String key, String path, Datatype dflt) {
        String s = string(m, key, path, null);
        if (s == null) {
            return dflt;
        }
        try {
            return Datatype.parse(s);
        } catch (IllegalArgumentException e) {
            throw new DlioConfigException(path, e.getMessage());
        }
    }

    private static List<Long> longs(Map<String, Object> m, String key, String path) {
        Object v = m.get(key);
        if (v == null) {
            return List.of();
        }
        if (!(v instanceof List<?> list)) {
            throw new DlioConfigException(path, "must be a list of integers, got " + describe(v));
        }
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            out.add(toLong(list.get(i), path + "[" + i + "]"));
        }
        return out;
    }

    /**
     * A byte count: a YAML integer, or a string in the one size grammar of {@link ByteSize} ({@code 32MiB};
     * {@code 32MB} is 32,000,000), read exactly as the options and variables read it.
     */
    private static long size(Map<String, Object> m, String key, String path, long dflt) {
        Object v = m.get(key);
        if (v == null) {
            return dflt;
        }
        // an integer is its digits (a negative or huge one is refused as the grammar refuses it); a YAML float is
        // refused: its text is gone (1e3 and 1000.0 arrive alike), and a size is written in bytes or with a unit
        String text = v instanceof Integer || v instanceof Long || v instanceof BigInteger ? v.toString()
                : v instanceof String s ? s : null;
        if (text == null) {
            throw new DlioConfigException(path, "must be a size such as 33554432, 32MiB or 32MB, got " + describe(v));
        }
        try {
            return ByteSize.parseBytes(text);
        } catch (IllegalArgumentException e) {
            throw new DlioConfigException(path, e.getMessage());
        }
    }

    /** A count of saves or loads: DLIO's -1 (none, the default) or 0 to {@link #MAX_CHECKPOINTS}. */
    private static int count(Map<String, Object> m, String key, String path) {
        int n = integer(m, key, path, -1);
        if (n < -1 || n > MAX_CHECKPOINTS) {
            throw new DlioConfigException(path, String.format(Locale.ROOT, "must be -1 (none) or 0 to %d, got %d",
                    MAX_CHECKPOINTS, n));
        }
        return n;
    }

    private static void inRange(long v, long min, long max, String path) {
        if (v < min || v > max) {
            throw new DlioConfigException(path, String.format(Locale.ROOT, "must be %d to %d, got %d", min, max, v));
        }
    }

    private static void positive(long v, String path) {
        if (v < 1) {
            throw new DlioConfigException(path, "must be at least 1, got " + v);
        }
    }

    static String describe(Object v) {
        if (v instanceof String s) {
            return "the string '" + s + "'";
        }
        if (v instanceof Map<?, ?>) {
            return "a mapping";
        }
        if (v instanceof List<?>) {
            return "a list";
        }
        if (v instanceof Boolean b) {
            return b ? "True" : "False";
        }
        return String.valueOf(v);
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
