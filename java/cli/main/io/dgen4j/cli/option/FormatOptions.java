package io.dgen4j.cli.option;

import io.dgen4j.format.Layout;
import io.dgen4j.format.LlamaModel;
import io.dgen4j.format.Tensor;
import io.dgen4j.format.TensorList;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/** The checkpoint format options of save: --format, --tensors, --model, --crc, --alignment, --finite. */
public final class FormatOptions {
    @Option(names = "--format", defaultValue = "raw",
            description = "raw (the stream alone; default), torch (torch.save's zip, loadable by torch.load) or"
                    + " safetensors (Hugging Face's); torch and safetensors need --tensors or --model. See"
                    + " docs/FORMATS.md.")
    String format;

    @Option(names = "--tensors", paramLabel = "FILE", converter = FilePath.class,
            description = "Tensor list: one 'name dtype [d0,d1,...]' a line, '/' between nested dict keys, e.g."
                    + " 'model/layers.0.weight bfloat16 [4096,4096]'.")
    Path tensors;

    @Option(names = "--model", paramLabel = "NAME|CONFIG",
            description = "A built-in tensor list instead of --tensors: tiny (about 1MiB), mlp-1b (2GiB of bfloat16),"
                    + " llama3-8b, llama3-70b, llama3-405b (Hugging Face names and shapes); or a Hugging Face"
                    + " config.json of a LLaMA-family model, or a DLIO workload .yaml (its model section, as"
                    + " LLaMA; docs/FORMATS.md).")
    String model;

    @Option(names = "--crc", defaultValue = "crc32",
            description = "crc32 (default: each tensor's CRC-32 computed as it is generated) or none (zeros, for"
                    + " speed runs; zip readers that check CRCs then refuse the file).")
    String crc;

    @Option(names = "--finite", negatable = true,
            description = "Make every float16/bfloat16/float32/float64 value finite: the top exponent bit of each value"
                    + " is cleared (no Inf or NaN; every value below 2 in magnitude). Default: off for raw and torch"
                    + " (the stream's bytes as they are), on for safetensors (weights that loaders compute with). Needs --tensors or --model. See docs/FORMATS.md.")
    Boolean finite;


    @Option(names = "--alignment",
            description = "Where each torch record's data starts: a multiple of 64 (default) or 4096; where a"
                    + " safetensors file's data starts: a multiple of 8 (default) or 4096.")
    Integer alignment;

    @Option(names = "--max-shard-size", paramLabel = "SIZE", converter = ByteSizeConverter.class,
            description = "safetensors to a directory (TARGET an existing directory or ending in '/'): shards cut in"
                    + " tensor order at this many bytes (default 5GB; a larger tensor gets its own shard), with"
                    + " model.safetensors.index.json and, for a LLaMA model, config.json.")
    Long maxShardSize;

    /** {@code --max-shard-size}, or null when not given. */
    public Long maxShardSize() {
        return maxShardSize;
    }

    /** Whether {@code --format safetensors} was asked for. */
    public boolean safetensors() {
        return Layout.Format.parse(format) == Layout.Format.SAFETENSORS;
    }

    /** The LLaMA model of {@code --model} (a built-in llama name or a config.json), or empty. */
    public Optional<LlamaModel> llama() {
        if (model == null) {
            return Optional.empty();
        }
        if (LlamaModel.isBuiltIn(model)) {
            return Optional.of(LlamaModel.builtIn(model));
        }
        if (model.endsWith(".yaml") || model.endsWith(".yml")) {
            return Optional.of(dlioModel(Path.of(model)));
        }
        if (!model.endsWith(".json") && !model.contains("/")) {
            return Optional.empty(); // a built-in name, or a wrong one that TensorList names
        }
        try {
            return Optional.of(LlamaModel.read(Path.of(model)));
        } catch (IOException e) {
            throw new IllegalArgumentException("--model " + e.getMessage(), e);
        }
    }

    /**
     * The LLaMA model of a DLIO workload's {@code model:} section: {@code transformer} dimensions
     * (hidden_size, ffn_hidden_size, num_attention_heads, num_kv_heads, vocab_size; DLIO's defaults when unset),
     * {@code num_layers} and {@code model_datatype}; the parallelism and optimizer are not the model's.
     */
    static LlamaModel dlioModel(Path yaml) {
        io.dgen4j.dlio.DlioConfig.Model m;
        try {
            m = io.dgen4j.dlio.DlioConfigReader.read(yaml, java.util.List.of()).model();
        } catch (IOException e) {
            throw new IllegalArgumentException("--model " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--model " + yaml + ": " + e.getMessage(), e);
        }
        if (!m.isTransformer() || m.numLayers() < 1) {
            throw new IllegalArgumentException(String.format("--model %s: its model section is no transformer "
                    + "(model.type: transformer with num_layers >= 1 gives a LLaMA-shaped model)", yaml));
        }
        io.dgen4j.dlio.DlioConfig.Transformer t = m.transformer();
        try {
            return LlamaModel.shaped(t.hiddenSize(), t.ffnHiddenSize(), m.numLayers(), t.numAttentionHeads(),
                    t.numKvHeads(), t.vocabSize(), m.modelDatatype().dtype());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--model " + yaml + ": " + e.getMessage(), e);
        }
    }

    /** Whether a format other than raw, or a tensor list, was asked for. */
    public boolean laidOut() {
        return tensors != null || model != null || Layout.Format.parse(format) != Layout.Format.RAW;
    }

    /**
     * The layout asked for, or empty for a raw save of {@code --size} bytes; {@code size} is
     * {@code --size} or null when not given.
     *
     * @throws IllegalArgumentException naming the option that is missing, extra or wrong
     */
    public Optional<Layout> layout(Long size) {
        Layout.Format f = Layout.Format.parse(format);
        if (tensors != null && model != null) {
            throw new IllegalArgumentException("give --tensors or --model, not both");
        }
        if (maxShardSize != null && f != Layout.Format.SAFETENSORS) {
            throw new IllegalArgumentException("--max-shard-size cuts safetensors shards: it needs --format safetensors");
        }
        if (!crc.equals("crc32") && !crc.equals("none")) {
            throw new IllegalArgumentException("--crc must be crc32 or none, got " + crc);
        }
        if (f == Layout.Format.RAW && tensors == null && model == null) {
            if (Boolean.TRUE.equals(finite)) {
                throw new IllegalArgumentException("--finite needs --tensors or --model: their dtypes say which bytes"
                        + " are floating-point values");
            }
            if (size == null) {
                throw new IllegalArgumentException("--size is needed (or --format torch or safetensors with --tensors or --model)");
            }
            return Optional.empty();
        }
        if (tensors == null && model == null) {
            throw new IllegalArgumentException("--format " + f.label() + " needs --tensors FILE or --model NAME");
        }
        if (size != null) {
            throw new IllegalArgumentException("--size is not used with --tensors or --model: the tensors give the size");
        }
        List<Tensor> list;
        if (model != null) {
            list = llama().map(LlamaModel::tensors).orElseGet(() -> TensorList.model(model));
        } else {
            try {
                list = TensorList.read(tensors);
            } catch (NoSuchFileException e) {
                throw new IllegalArgumentException("--tensors " + tensors + ": no such file");
            } catch (IOException e) {
                throw new UncheckedIOException("--tensors " + tensors + ": " + e.getMessage(), e);
            }
        }
        int align = alignment != null ? alignment : f == Layout.Format.SAFETENSORS ? 8 : 64;
        return Optional.of(Layout.of(f, list, crc.equals("crc32"), align)
                .withFinite(finite != null ? finite : f.finiteByDefault()));
    }
}
