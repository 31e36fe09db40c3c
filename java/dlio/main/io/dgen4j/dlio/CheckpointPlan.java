package io.dgen4j.dlio;

import io.dgen4j.format.DType;
import io.dgen4j.format.Layout;
import io.dgen4j.format.Tensor;
import io.dgen4j.format.TensorList;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The files each rank writes for one checkpoint and their exact sizes, computed as DLIO's
 * {@code BaseCheckpointing} does, in its order and with its integer (floor) divisions: the
 * parameter count from the transformer dimensions, each rank's (tensor, pipeline, data)
 * coordinates, the layers of its pipeline stage, the tensors split by tensor parallelism (norms
 * replicated) and by data parallelism under ZeRO-3, which ranks hold model state per ZeRO stage, and
 * the optimizer state (six tensors: 3·P' + 15·h elements). docs/DLIO.md walks through it.
 *
 * <p>Each file holds DLIO's state dict for its rank and kind ({@link PlannedFile#tensors()}). Its size
 * is the bytes of its tensors in the raw format (the MLPerf Storage version of DLIO streams the
 * tensors' bytes with no container around them), or exactly what {@code torch.save} writes for that
 * state dict in the torch format ({@code checkpoint.streaming.format: torch}; docs/DLIO.md).
 */
public final class CheckpointPlan {

    /** What a file holds. */
    public enum Kind {
        /** Model state of a whole pipeline stage (ZeRO 0 and 3, or ZeRO 1/2 without pipeline stages). */
        MODEL,
        /** Model state of one layer (ZeRO 1/2 with pipeline stages). */
        LAYER,
        /** Optimizer state. */
        OPTIMIZER,
        /** The legacy single tensor of {@code model.model_size_bytes} (non-transformer models). */
        LEGACY_MODEL
    }

    /**
     * One file of one checkpoint.
     *
     * @param name  the file name inside the checkpoint's step folder
     * @param bytes its exact size
     * @param kind  what it holds
     * @param tensors its state dict as DLIO builds it, as tensors whose paths are the dict keys (in the
     *                order torch.save meets them)
     */
    public record PlannedFile(String name, long bytes, Kind kind, List<Tensor> tensors) {
        public PlannedFile {
            tensors = List.copyOf(tensors);
        }

        /** The bytes of its tensors alone (a raw file's size). */
        public long tensorBytes() {
            return TensorList.bytes(tensors);
        }
    }

    /** Where each record's data starts in the torch files of a plan (torch.save's own alignment). */
    public static final int TORCH_ALIGNMENT = 64;

    /**
     * One rank's part.
     *
     * @param rank          the rank
     * @param tensorRank    rank % tensor
     * @param pipelineRank  (rank / tensor) % pipeline
     * @param dataRank      rank / (tensor × pipeline)
     * @param modelRank     rank % (tensor × pipeline)
     * @param firstLayer    first layer index of its stage (0 is the embedding), or -1 when it holds none
     * @param lastLayer     last layer index (num_layers + 1 is the output layer, + 2 the final norm)
     * @param files         what it writes, in DLIO's order; empty when it writes nothing
     */
    public record RankPlan(int rank, int tensorRank, int pipelineRank, int dataRank, int modelRank, int firstLayer,
                           int lastLayer, List<PlannedFile> files) {
        public RankPlan {
            files = List.copyOf(files);
        }

        /** Bytes this rank writes per checkpoint. */
        public long bytes() {
            return files.stream().mapToLong(PlannedFile::bytes).sum();
        }
    }

    private final DlioConfig config;
    private final int ranks;
    private final int dataParallelism;
    private final long parameters;
    private final List<RankPlan> plans;
    private final long modelBytes;
    private final long optimizerBytes;
    private final long dlioLoggedBytes;
    private final long tensorBytes;
    private final Optional<String> formatFallback;

    private CheckpointPlan(DlioConfig config, int ranks, int dataParallelism, long parameters, List<RankPlan> plans,
                           long modelBytes, long optimizerBytes, long dlioLoggedBytes, Optional<String> formatFallback) {
        this.config = config;
        this.formatFallback = formatFallback;
        this.ranks = ranks;
        this.dataParallelism = dataParallelism;
        this.parameters = parameters;
        this.plans = List.copyOf(plans);
        this.modelBytes = modelBytes;
        this.optimizerBytes = optimizerBytes;
        this.dlioLoggedBytes = dlioLoggedBytes;
        long n = 0;
        for (RankPlan r : this.plans) {
            for (PlannedFile f : r.files()) {
                n = Math.addExact(n, f.tensorBytes());
            }
        }
        this.tensorBytes = n;
    }

    /** The most files one checkpoint of a plan may have, over all ranks (a plan holds them all in memory). */
    public static final int MAX_FILES = 1 << 18;

    /**
     * The plan of {@code config} run on {@code ranks} ranks. Sizes are computed in exact 64-bit
     * integers: a model whose sizes do not fit is refused, as is a plan of more than {@link #MAX_FILES}
     * files, before it is built.
     *
     * @throws DlioConfigException when the ranks do not fit the parallelism ({@link DlioConfigReader#checkRanks}),
     *         a size overflows 64 bits, or the plan has more than {@link #MAX_FILES} files per checkpoint
     */
    public static CheckpointPlan of(DlioConfig config, int ranks) {
        DlioConfigReader.checkRanks(config, ranks);
        try {
            try {
                return new Planner(config, ranks, Optional.empty()).plan();
            } catch (DlioConfigException e) {
                DlioConfig.Streaming s = config.streaming();
                if (s.formatSet() || s.format() != Layout.Format.TORCH
                        || !"checkpoint.streaming.format".equals(e.key())) {
                    throw e;
                }
                // torch is only framework pytorch's default here: a state dict no torch file holds falls back to
                // the raw files, saying why, where a named torch format is refused
                String why = "checkpoint.streaming.format: writing raw files, not torch (the default for framework "
                        + "pytorch): " + e.getMessage().substring(e.key().length() + 2).replaceFirst(": use raw$", "");
                List<String> warnings = new ArrayList<>(config.warnings());
                warnings.add(why);
                DlioConfig raw = new DlioConfig(config.framework(), config.model(), config.workflow(),
                        config.checkpoint(), s.withFormat(Layout.Format.RAW), config.storage(), config.outputFolder(),
                        warnings);
                return new Planner(raw, ranks, Optional.of(why)).plan();
            }
        } catch (ArithmeticException e) {
            DlioConfig.Model m = config.model();
            DlioConfig.Transformer t = m.transformer();
            throw new DlioConfigException("model", String.format(Locale.ROOT, "the checkpoint's sizes do not fit in "
                    + "64-bit integers (num_layers %d, transformer.hidden_size %d, ffn_hidden_size %d, vocab_size %d, "
                    + "num_attention_heads %d, num_kv_heads %d, model_size_bytes %d): DLIO's sizes are exact byte "
                    + "counts, at most %d", m.numLayers(), t.hiddenSize(), t.ffnHiddenSize(), t.vocabSize(),
                    t.numAttentionHeads(), t.numKvHeads(), m.modelSizeBytes(), Long.MAX_VALUE));
        }
    }

    /** The folder of one checkpoint inside the checkpoint folder: {@code global_epoch{epoch}_step{step}}. */
    public static String stepFolder(int epoch, int step) {
        return "global_epoch" + epoch + "_step" + step;
    }

    /** The config planned. */
    public DlioConfig config() {
        return config;
    }

    /** The files' format ({@code checkpoint.streaming.format}): raw, or torch.save's files of DLIO's state dicts. */
    public Layout.Format format() {
        return config.streaming().format();
    }

    /**
     * Why this plan's files are raw although framework pytorch's default is torch (a state dict at these ranks that
     * no torch file holds, such as an empty layer dict), for the caller to show; empty otherwise.
     */
    public Optional<String> formatFallback() {
        return formatFallback;
    }

    /** Ranks planned. */
    public int ranks() {
        return ranks;
    }

    /** Data-parallel degree: ranks / (tensor × pipeline), or {@code model.parallelism.data} in subset mode. */
    public int dataParallelism() {
        return dataParallelism;
    }

    /** Parameters of the whole model (0 without transformer layers). */
    public long parameters() {
        return parameters;
    }

    /** Every rank's part, by rank. */
    public List<RankPlan> rankPlans() {
        return plans;
    }

    /** One rank's part. */
    public RankPlan rank(int rank) {
        return plans.get(rank);
    }

    /** Bytes of one checkpoint over all ranks (what is written). */
    public long totalBytes() {
        return modelBytes + optimizerBytes;
    }

    /** Bytes of the files' tensors alone over all ranks: {@link #totalBytes()} less the torch files' framing. */
    public long tensorBytes() {
        return tensorBytes;
    }

    /** Bytes of model state (layers, or the legacy model tensor) over all ranks. */
    public long modelBytes() {
        return modelBytes;
    }

    /** Bytes of optimizer state over all ranks. */
    public long optimizerBytes() {
        return optimizerBytes;
    }

    /**
     * The checkpoint size DLIO logs ("Total checkpoint size") and divides by the duration for its
     * throughput. It equals {@link #totalBytes()} except where DLIO counts state it does not write
     * (ZeRO-2 model state on data-parallel ranks other than 0; the legacy {@code model_size_bytes} counted
     * once for all ranks; predefined {@code layer_parameters} not counted).
     */
    public long dlioLoggedBytes() {
        return dlioLoggedBytes;
    }

    /** Files of one checkpoint over all ranks. */
    public int fileCount() {
        return plans.stream().mapToInt(p -> p.files().size()).sum();
    }

    /** Bytes in GiB (DLIO's "GB"). */
    public static double gib(long bytes) {
        return bytes / 1024.0 / 1024.0 / 1024.0;
    }

    /**
     * The plan as an ordered map (for JSON): totals, then every rank with its files. The ranks' maps
     * are made as a writer reaches them, so a plan of many ranks is not held twice.
     */
    public java.util.Map<String, Object> toMap() {
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        DlioConfig.Parallelism p = config.model().parallelism();
        m.put("model", config.model().name());
        m.put("ranks", ranks);
        m.put("parameters", parameters);
        m.put("tensor", p.tensor());
        m.put("pipeline", p.pipeline());
        m.put("data", dataParallelism);
        m.put("zeroStage", p.zeroStage());
        m.put("modelDatatype", config.model().modelDatatype().yamlName());
        m.put("optimizerDatatype", config.model().optimizerDatatype().yamlName());
        m.put("checkpointFolder", config.checkpoint().folder());
        m.put("stepFolder", stepFolder(1, 1));
        m.put("format", format().label());
        m.put("filesPerCheckpoint", fileCount());
        m.put("modelBytes", modelBytes);
        m.put("optimizerBytes", optimizerBytes);
        m.put("totalBytes", totalBytes());
        m.put("totalGiB", gib(totalBytes()));
        m.put("tensorBytes", tensorBytes());
        m.put("dlioLoggedBytes", dlioLoggedBytes);
        m.put("rankPlans", new java.util.AbstractList<Object>() {
            @Override
            public Object get(int i) {
                return rankMap(plans.get(i));
            }

            @Override
            public int size() {
                return plans.size();
            }
        });
        return m;
    }

    private static java.util.Map<String, Object> rankMap(RankPlan r) {
        java.util.Map<String, Object> rm = new java.util.LinkedHashMap<>();
        rm.put("rank", r.rank());
        rm.put("tensorRank", r.tensorRank());
        rm.put("pipelineRank", r.pipelineRank());
        rm.put("dataRank", r.dataRank());
        rm.put("modelRank", r.modelRank());
        rm.put("firstLayer", r.firstLayer());
        rm.put("lastLayer", r.lastLayer());
        rm.put("bytes", r.bytes());
        List<Object> fs = new ArrayList<>();
        for (PlannedFile f : r.files()) {
            java.util.Map<String, Object> fm = new java.util.LinkedHashMap<>();
            fm.put("name", f.name());
            fm.put("bytes", f.bytes());
            fm.put("kind", f.kind().name().toLowerCase(Locale.ROOT));
            fs.add(fm);
        }
        rm.put("files", fs);
        return rm;
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%s at %d ranks: %d files, %d bytes (%.2f GiB)", config.model().name(),
                ranks, fileCount(), totalBytes(), gib(totalBytes()));
    }

    /** DLIO's arithmetic, one rank at a time. */
    private static final class Planner {
        private final DlioConfig c;
        private final DlioConfig.Model m;
        private final DlioConfig.Parallelism p;
        private final DlioConfig.Transformer t;
        private final int ranks;
        private final int mp;
        private final int dp;
        private final String ext;
        private final Layout.Format format;
        private final Optional<String> fallback;
        private final Map<Integer, List<Tensor>> layers = new HashMap<>();
        private final Map<Integer, List<Tensor>> stages = new HashMap<>();
        /** File bytes by tensor list: the lists are shared, so each distinct file is laid out once. */
        private final Map<List<Tensor>, Long> fileBytes = new IdentityHashMap<>();
        private List<Tensor> optimizer;
        private List<Tensor> legacy;

        Planner(DlioConfig c, int ranks, Optional<String> fallback) {
            this.c = c;
            this.fallback = fallback;
            this.m = c.model();
            this.p = m.parallelism();
            this.t = m.transformer();
            this.ranks = ranks;
            this.mp = p.tensor() * p.pipeline();
            this.dp = p.data() < 0 ? ranks / mp : p.data();
            this.ext = "." + c.extension();
            this.format = c.streaming().format();
        }

        CheckpointPlan plan() {
            long params = parameters();
            List<RankPlan> out = new ArrayList<>(ranks);
            long model = 0;
            long optim = 0;
            double loggedModel = 0; // DLIO sums sizes as floats; exact here below 2^53
            long loggedOptim = 0;
            long fileCount = 0;
            boolean legacyModel = m.modelSizeBytes() > 0 && !m.isTransformer();
            for (int rank = 0; rank < ranks; rank++) {
                int tpRank = rank % p.tensor();
                int ppRank = (rank / p.tensor()) % p.pipeline();
                int dpRank = rank / mp;
                int mpRank = rank % mp;
                // ZeRO 0: only the first replica checkpoints; ranks past it stand in for rank 0
                boolean checkpoints = p.zeroStage() != 0 || rank < mp;
                List<PlannedFile> files = new ArrayList<>();
                int[] layers = layerRange(ppRank);
                if (!checkpoints) {
                    out.add(new RankPlan(rank, tpRank, ppRank, dpRank, mpRank, -1, -1, files));
                    continue;
                }
                if (legacyModel) {
                    List<Tensor> ts = legacyModel();
                    long b = bytes(ts);
                    files.add(new PlannedFile("model_states-" + rank + ext, b, Kind.LEGACY_MODEL, ts));
                    model = Math.addExact(model, b);
                }
                // the layers this rank holds: each layer's tensors ("<j>", DLIO's get_layer_state) by layer index
                List<Integer> held = new ArrayList<>();
                if (!m.layerParameters().isEmpty()) {
                    for (int i = layers[0]; i <= layers[1]; i++) {
                        held.add(i);
                    }
                } else if (m.numLayers() > 0 && !(p.zeroStage() == 1 && dpRank != 0)) {
                    for (int i = layers[0]; i <= layers[1]; i++) {
                        held.add(i);
                    }
                    loggedModel += rawBytes(stageModel(ppRank, layers));
                }
                if (!held.isEmpty()) {
                    if (p.zeroStage() > 0 && p.zeroStage() < 3) {
                        if (dpRank == 0 && m.numLayers() > 0) {
                            if (p.pipeline() > 1) {
                                checkFiles(rank, fileCount + files.size() + held.size());
                                for (int i : held) {
                                    List<Tensor> ts = layer(i);
                                    long b = bytes(ts);
                                    files.add(new PlannedFile("layer_" + i + "-model_" + mpRank + "_model_states"
                                            + ext, b, Kind.LAYER, ts));
                                    model = Math.addExact(model, b);
                                }
                            } else {
                                List<Tensor> ts = stageModel(ppRank, layers);
                                long b = bytes(ts);
                                files.add(new PlannedFile("model_" + mpRank + "_model_states" + ext, b, Kind.MODEL, ts));
                                model = Math.addExact(model, b);
                            }
                        }
                    } else {
                        List<Tensor> ts = stageModel(ppRank, layers);
                        long b = bytes(ts);
                        files.add(new PlannedFile("zero_pp_rank_" + dpRank + "_mp_rank_" + mpRank + "_model_states"
                                + ext, b, Kind.MODEL, ts));
                        model = Math.addExact(model, b);
                    }
                }
                List<Tensor> opt = optimizer(params);
                if (opt != null) {
                    long o = bytes(opt);
                    files.add(new PlannedFile("zero_pp_rank_" + dpRank + "_mp_rank_" + mpRank + "_optim_states" + ext,
                            o, Kind.OPTIMIZER, opt));
                    optim = Math.addExact(optim, o);
                    if (m.optimizationGroups().isEmpty()) {
                        loggedOptim = Math.addExact(loggedOptim, rawBytes(opt));
                    }
                }
                fileCount += files.size();
                checkFiles(rank, fileCount);
                out.add(new RankPlan(rank, tpRank, ppRank, dpRank, mpRank, layers[0], layers[1], files));
            }
            long logged = Math.addExact(legacyModel ? m.modelSizeBytes() : (long) loggedModel, loggedOptim);
            return new CheckpointPlan(c, ranks, dp, params, out, model, optim, logged, fallback);
        }

        /** Refuses a plan that reaches more than {@link #MAX_FILES} files per checkpoint by {@code rank}. */
        private void checkFiles(int rank, long files) {
            if (files > MAX_FILES) {
                throw new DlioConfigException("ranks", String.format(Locale.ROOT, "%d ranks of %d layers in %d "
                        + "pipeline stages write more than %d files per checkpoint (reached by rank %d), the most one "
                        + "plan holds: use fewer ranks or layers", ranks, m.numLayers(), p.pipeline(), MAX_FILES, rank));
            }
        }

        /**
         * Layer {@code i}'s state dict as DLIO's get_layer_state builds it: {@code str(j)} for each of its
         * tensors with elements, flat, in the model datatype ({@code model.layer_parameters}: int8 of
         * {@code state // tensor}). One list per layer, shared by every file that holds it.
         */
        List<Tensor> layer(int i) {
            return layers.computeIfAbsent(i, k -> {
                List<Tensor> out = new ArrayList<>();
                if (!m.layerParameters().isEmpty()) {
                    List<Long> states = m.layerParameters();
                    for (int j = 0; j < states.size(); j++) {
                        if (states.get(j) > 0) {
                            out.add(Tensor.of(Integer.toString(j), DType.INT8, states.get(j) / p.tensor()));
                        }
                    }
                } else {
                    long[] counts = layerParameters(k);
                    for (int j = 0; j < counts.length; j++) {
                        if (counts[j] > 0) {
                            out.add(Tensor.of(Integer.toString(j), m.modelDatatype().dtype(), counts[j]));
                        }
                    }
                }
                return List.copyOf(out);
            });
        }

        /** A pipeline stage's layer state: {@code str(i)} -> layer i's dict, for its layers in order; one list per stage. */
        List<Tensor> stageModel(int ppRank, int[] range) {
            return stages.computeIfAbsent(ppRank, k -> {
                List<Tensor> out = new ArrayList<>();
                for (int i = range[0]; i <= range[1]; i++) {
                    List<Tensor> l = layer(i);
                    if (l.isEmpty() && format == Layout.Format.TORCH) {
                        // torch.save would write an empty dict there, which a tensor list cannot hold
                        throw new DlioConfigException("checkpoint.streaming.format", String.format(Locale.ROOT,
                                "layer %d has no tensor with elements at this split (a torch file would hold an empty "
                                        + "dict): use raw", i));
                    }
                    for (Tensor t : l) {
                        List<String> path = new ArrayList<>();
                        path.add(Integer.toString(i));
                        path.addAll(t.path());
                        out.add(new Tensor(path, t.dtype(), t.shape()));
                    }
                }
                return List.copyOf(out);
            });
        }

        /**
         * The optimizer state DLIO builds ({@code str(j)} for each of its six groups with elements, in the
         * optimizer datatype; predefined {@code optimization_groups}: {@code {'a', 'b'}} int8 per group, then
         * {@code combined}), or null when a rank has none. One list, shared by every rank.
         */
        List<Tensor> optimizer(long params) {
            if (optimizer == null) {
                optimizer = optimizerTensors(params);
            }
            return optimizer.isEmpty() ? null : optimizer;
        }

        private List<Tensor> optimizerTensors(long params) {
            List<Tensor> out = new ArrayList<>();
            if (!m.optimizationGroups().isEmpty()) {
                long sum = 0;
                List<Long> groups = m.optimizationGroups();
                for (int j = 0; j < groups.size(); j++) {
                    if (groups.get(j) > 0) {
                        out.add(Tensor.of(j + "/a", DType.INT8, groups.get(j)));
                        out.add(Tensor.of(j + "/b", DType.INT8, groups.get(j)));
                        sum = Math.addExact(sum, groups.get(j));
                    }
                }
                out.add(Tensor.of("combined", DType.INT8, sum)); // DLIO writes the file even when every group is empty
                return List.copyOf(out);
            }
            if (m.numLayers() <= 0) {
                return List.of();
            }
            long perRank = p.zeroStage() > 0 ? params / ((long) dp * mp) : params / mp;
            if (perRank <= 0) {
                return List.of();
            }
            // [P', 5h, P', 5h, P', 5h]: three parameter-sized tensors and three of 5 x hidden
            long five = Math.multiplyExact(5, t.hiddenSize());
            long[] groups = {perRank, five, perRank, five, perRank, five};
            for (int j = 0; j < groups.length; j++) {
                out.add(Tensor.of(Integer.toString(j), m.optimizerDatatype().dtype(), groups[j]));
            }
            return List.copyOf(out);
        }

        /** The legacy model state: {@code {'a': int8 tensor of model_size_bytes}}. */
        List<Tensor> legacyModel() {
            if (legacy == null) {
                legacy = List.of(Tensor.of("a", DType.INT8, m.modelSizeBytes()));
            }
            return legacy;
        }

        /** A file's bytes in the plan's format: its tensors' bytes (raw), or what torch.save writes (torch). */
        long bytes(List<Tensor> tensors) {
            Long b = fileBytes.get(tensors);
            if (b == null) {
                b = format == Layout.Format.TORCH ? Layout.of(format, tensors, true, TORCH_ALIGNMENT).size()
                        : rawBytes(tensors);
                fileBytes.put(tensors, b);
            }
            return b;
        }

        private static long rawBytes(List<Tensor> tensors) {
            return TensorList.bytes(tensors);
        }

        /** DLIO's get_num_parameters: embedding + layers × (norm, QKV, dense, norm, gated MLP up, down) + final norm + output. */
        long parameters() {
            if (m.numLayers() <= 0) {
                return 0;
            }
            long h = t.hiddenSize();
            long headSize = h / t.numAttentionHeads();
            long dimKv = Math.multiplyExact(headSize, t.numKvHeads());
            long embedding = Math.multiplyExact(t.vocabSize(), h);
            long qkv = Math.multiplyExact(h, Math.addExact(h, Math.multiplyExact(2, dimKv)));
            long dense = Math.multiplyExact(h, h);
            long up = Math.multiplyExact(Math.multiplyExact(t.ffnHiddenSize(), 2), h);
            long down = Math.multiplyExact(t.ffnHiddenSize(), h);
            long perLayer = sum(new long[] {h, qkv, dense, h, up, down});
            return Math.addExact(Math.addExact(embedding, Math.multiplyExact(perLayer, m.numLayers())),
                    Math.addExact(h, embedding));
        }

        /** DLIO's get_layer_parameters(i): element counts of layer i's tensors on this rank. */
        long[] layerParameters(int i) {
            long h = t.hiddenSize();
            long dimKv = Math.multiplyExact(h / t.numAttentionHeads(), t.numKvHeads());
            long tp = p.tensor();
            long shard = p.zeroStage() < 3 ? 1 : dp;
            if (i == 0 || i == m.numLayers() + 1) {
                return new long[] {Math.multiplyExact(h, t.vocabSize()) / tp / shard}; // embedding, output layer
            }
            if (i == m.numLayers() + 2) {
                return new long[] {h / shard}; // final norm
            }
            return new long[] {
                h / shard, // input norm
                Math.multiplyExact(h, Math.addExact(h, Math.multiplyExact(2, dimKv))) / tp / shard, // QKV, grouped KV heads
                Math.multiplyExact(h, h) / tp / shard, // attention output projection
                h / shard, // post-attention norm
                Math.multiplyExact(Math.multiplyExact(h, 2), t.ffnHiddenSize()) / tp / shard, // gated MLP up (2 for the gate)
                Math.multiplyExact(h, t.ffnHiddenSize()) / tp / shard, // MLP down
            };
        }

        /** DLIO's get_layer_index: stage s holds its share of layers 1..L; stage 0 also 0, the last also L+1, L+2. */
        int[] layerRange(int ppRank) {
            int layers = m.numLayers();
            if (layers <= 0 && m.layerParameters().isEmpty()) {
                return new int[] {-1, -1}; // no transformer layers: no layer state
            }
            int stages = p.pipeline();
            int per = Math.floorDiv(layers, stages);
            int rem = Math.floorMod(layers, stages);
            int start;
            int end;
            if (ppRank < rem) {
                start = ppRank * (per + 1) + 1;
                end = start + per;
            } else {
                start = rem * (per + 1) + (ppRank - rem) * per + 1;
                end = start + per - 1;
            }
            if (m.layerParameters().isEmpty()) {
                if (ppRank == stages - 1) {
                    end = layers + 2;
                }
                if (ppRank == 0) {
                    start = 0;
                }
            }
            return new int[] {start, end};
        }

        private static long sum(long[] values) {
            long s = 0;
            for (long v : values) {
                if (v > 0) {
                    s = Math.addExact(s, v);
                }
            }
            return s;
        }
    }
}
