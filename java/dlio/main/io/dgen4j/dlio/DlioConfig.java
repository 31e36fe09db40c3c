package io.dgen4j.dlio;

import java.util.List;
import java.util.Optional;

/**
 * A DLIO workload, as much of it as the checkpoint phase reads, with DLIO's defaults for what the
 * YAML leaves out ({@link DlioConfigReader} reads it).
 *
 * @param framework  {@code pytorch} (files end in {@code .pt}) or {@code tensorflow} ({@code .pb})
 * @param model      the model and how it is split
 * @param workflow   which phases the workload asks for (only the checkpoint phase is run)
 * @param checkpoint the checkpoint phase's settings
 * @param streaming  ours: how each file is streamed ({@code checkpoint.streaming.*})
 * @param storage    where the checkpoint folder lives
 * @param outputFolder {@code output.folder}, empty when unset
 * @param warnings   what was ignored or doubtful (unknown keys with their path, ...), for the caller to show
 */
public record DlioConfig(String framework, Model model, Workflow workflow, Checkpoint checkpoint, Streaming streaming,
                         Storage storage, Optional<String> outputFolder, List<String> warnings) {

    public DlioConfig {
        warnings = List.copyOf(warnings);
    }

    /** The checkpoint files' extension: DLIO's PyTorch mechanism writes {@code .pt}, TensorFlow's {@code .pb}. */
    public String extension() {
        return "tensorflow".equals(framework) ? "pb" : "pt";
    }

    /**
     * The model section.
     *
     * @param name               {@code model.name} (DLIO's default {@code default})
     * @param type               {@code model.type}, empty when unset (then the legacy {@code model_size_bytes}
     *                           state is written, as DLIO does)
     * @param numLayers          {@code model.num_layers}; -1 (DLIO's default) means no transformer layers
     * @param modelDatatype      {@code model.model_datatype} (default fp16)
     * @param optimizerDatatype  {@code model.optimizer_datatype} (default fp32)
     * @param modelSizeBytes     {@code model.model_size_bytes} (default 10240), the legacy single-tensor model
     * @param optimizationGroups {@code model.optimization_groups}: predefined optimizer tensors (legacy)
     * @param layerParameters    {@code model.layer_parameters}: predefined per-layer tensors (legacy)
     * @param parallelism        {@code model.parallelism}
     * @param transformer        {@code model.transformer}
     */
    public record Model(String name, Optional<String> type, int numLayers, Datatype modelDatatype,
                        Datatype optimizerDatatype, long modelSizeBytes, List<Long> optimizationGroups,
                        List<Long> layerParameters, Parallelism parallelism, Transformer transformer) {
        public Model {
            optimizationGroups = List.copyOf(optimizationGroups);
            layerParameters = List.copyOf(layerParameters);
        }

        /** Whether {@code model.type} is {@code transformer} (no legacy model state then). */
        public boolean isTransformer() {
            return type.filter("transformer"::equals).isPresent();
        }
    }

    /**
     * {@code model.parallelism}.
     *
     * @param tensor    tensor-parallel degree (default 1)
     * @param pipeline  pipeline stages (default 1)
     * @param data      data-parallel degree, -1 when unset (default mode derives it from the ranks)
     * @param zeroStage ZeRO stage 0 to 3 (default 0)
     */
    public record Parallelism(int tensor, int pipeline, int data, int zeroStage) {
        /** Ranks of one model replica: tensor × pipeline. */
        public int modelParallelism() {
            return tensor * pipeline;
        }
    }

    /** {@code model.transformer}: the dimensions the parameter count comes from (DLIO's defaults when unset). */
    public record Transformer(long vocabSize, long hiddenSize, long ffnHiddenSize, long numAttentionHeads,
                              long numKvHeads) {}

    /** {@code workflow}: which phases the workload names. */
    public record Workflow(boolean generateData, boolean train, boolean checkpoint) {}

    /** {@code checkpoint.mode}. */
    public enum Mode {
        /** Every rank of {@code ranks / (tensor × pipeline)} replicas checkpoints. */
        DEFAULT,
        /** The ranks run are a subset of {@code data × tensor × pipeline}. */
        SUBSET
    }

    /**
     * The checkpoint section.
     *
     * @param folder                 {@code checkpoint.checkpoint_folder} (default {@code ./checkpoints}, trailing
     *                               slashes removed as DLIO does)
     * @param mode                   {@code checkpoint.mode}
     * @param fsync                  {@code checkpoint.fsync}: fsync each file before it counts as written
     * @param timeBetweenCheckpoints seconds slept before each save and each load ({@code -1}: none)
     * @param numCheckpointsWrite    saves ({@code -1}: none)
     * @param numCheckpointsRead     loads ({@code -1}: none)
     * @param rankSync               wait for every rank at the end of each save and load
     * @param recoveryRankShift      a rank reads the files of the rank one host further on
     */
    public record Checkpoint(String folder, Mode mode, boolean fsync, double timeBetweenCheckpoints,
                             int numCheckpointsWrite, int numCheckpointsRead, boolean rankSync,
                             boolean recoveryRankShift) {}

    /**
     * Ours ({@code checkpoint.streaming.*}; no DLIO version reads it): how each file is streamed.
     *
     * @param chunkSize     bytes per write (default 32 MiB)
     * @param numBuffers    buffers in each file's pool (default 2)
     * @param writers       writes in flight per file (default 1)
     * @param backend       the storage backend by name, empty for the best for the folder's scheme
     * @param dedupRatio    dedup ratio of the data (default 1: all blocks distinct, as DLIO's random tensors)
     * @param compressRatio compression ratio of the data (default 1: incompressible)
     * @param format        the files' format ({@code checkpoint.streaming.format}): {@code torch}
     *                      ({@code torch.save}'s file of DLIO's state dict; the default for framework pytorch) or
     *                      {@code raw} (the tensors' bytes alone; the default for tensorflow)
     * @param formatSet     whether the YAML or an override named the format: a default torch format falls back to
     *                      raw where a plan's state dict cannot be a torch file, a named one is refused there
     */
    public record Streaming(long chunkSize, int numBuffers, int writers, Optional<String> backend, double dedupRatio,
                            double compressRatio, io.dgen4j.format.Layout.Format format, boolean formatSet) {
        /** The settings with the raw format, named. */
        public Streaming(long chunkSize, int numBuffers, int writers, Optional<String> backend, double dedupRatio,
                         double compressRatio) {
            this(chunkSize, numBuffers, writers, backend, dedupRatio, compressRatio, io.dgen4j.format.Layout.Format.RAW,
                    true);
        }

        /** These settings in {@code other} format, as if named. */
        public Streaming withFormat(io.dgen4j.format.Layout.Format other) {
            return new Streaming(chunkSize, numBuffers, writers, backend, dedupRatio, compressRatio, other, true);
        }
    }

    /**
     * The storage section.
     *
     * @param type {@code storage.storage_type}: {@code local_fs} (default), {@code parallel_fs} or {@code s3}
     * @param root {@code storage.storage_root} (default {@code ./}): the bucket for s3
     */
    public record Storage(String type, String root) {}
}
