package io.dgen4j.dlio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.dgen4j.checkpoint.BufferPool;
import io.dgen4j.format.Layout;
import io.dgen4j.format.Tensor;
import io.dgen4j.format.TensorList;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * DLIO's state dicts (base_checkpointing.py: get_layer_state, the optimizer groups, save_checkpoint's
 * file names) as tensor lists, against values worked out by hand in the comments, and the torch
 * files of a tiny run judged by a real {@code torch.load(weights_only=True)} and {@code torch.save}.
 *
 * <p>The tiny config (configs/dlio/tiny.yaml): L 4, h 256, v 1024, f 768, 8 heads, 2 KV heads
 * (kv = 256 / 8 * 2 = 64), TP 2, PP 2, ZeRO 1, fp16 model, fp32 optimizer; at 8 ranks DP is 2.
 */
class DlioTorchTest {

    @TempDir
    Path dir;

    private DlioConfig tiny(String format) throws IOException {
        return DlioConfigReader.read(CheckpointPlanTest.root().resolve("configs/dlio/tiny.yaml"),
                List.of("++workload.checkpoint.checkpoint_folder=" + dir.resolve("ckpt"),
                        "++workload.checkpoint.streaming.format=" + format));
    }

    private static List<String> lines(List<Tensor> tensors) {
        return tensors.stream().map(Tensor::toString).toList();
    }

    @Test
    void tiny_state_dicts_are_dlios() throws IOException {
        CheckpointPlan plan = CheckpointPlan.of(tiny("raw"), 8);
        // rank 0: TP 0, PP 0, DP 0: stage 0 holds layers 0..2 (layers 1..2 of 4, plus the embedding);
        // ZeRO 1 with PP > 1: one file per layer, then the optimizer
        CheckpointPlan.RankPlan r0 = plan.rank(0);
        assertEquals(List.of("layer_0-model_0_model_states.pt", "layer_1-model_0_model_states.pt",
                "layer_2-model_0_model_states.pt", "zero_pp_rank_0_mp_rank_0_optim_states.pt"),
                r0.files().stream().map(CheckpointPlan.PlannedFile::name).toList());
        // layer 0, the embedding: h*v/t = 256*1024/2 = 131072
        assertEquals(List.of("0 float16 [131072]"), lines(r0.files().get(0).tensors()));
        // a transformer layer: h, h*(h+2kv)/t = 256*384/2, h*h/t, h, h*2f/t = 256*1536/2, h*f/t = 256*768/2
        assertEquals(List.of("0 float16 [256]", "1 float16 [49152]", "2 float16 [32768]", "3 float16 [256]",
                "4 float16 [196608]", "5 float16 [98304]"), lines(r0.files().get(1).tensors()));
        // optimizer: P = 2*1024*256 + 4*(256 + 98304 + 65536 + 256 + 393216 + 196608) + 256 = 3541248;
        // P' = P / (dp 2 * mp 4) = 442656; [P', 5h, P', 5h, P', 5h] in fp32
        assertEquals(List.of("0 float32 [442656]", "1 float32 [1280]", "2 float32 [442656]", "3 float32 [1280]",
                "4 float32 [442656]", "5 float32 [1280]"), lines(r0.files().get(3).tensors()));
        // rank 3: TP 1, PP 1: stage 1 holds layers 3, 4, then 5 (the output layer) and 6 (the final norm)
        CheckpointPlan.RankPlan r3 = plan.rank(3);
        assertEquals("layer_6-model_3_model_states.pt", r3.files().get(3).name());
        assertEquals(List.of("0 float16 [131072]"), lines(r3.files().get(2).tensors()));
        assertEquals(List.of("0 float16 [256]"), lines(r3.files().get(3).tensors()));
        // rank 4: DP 1 under ZeRO 1 holds no model state: the optimizer alone
        assertEquals(List.of("zero_pp_rank_1_mp_rank_0_optim_states.pt"),
                plan.rank(4).files().stream().map(CheckpointPlan.PlannedFile::name).toList());
        // raw: a file is its tensors' bytes (2 B per fp16, 4 per fp32)
        for (CheckpointPlan.RankPlan r : plan.rankPlans()) {
            for (CheckpointPlan.PlannedFile f : r.files()) {
                assertEquals(f.tensorBytes(), f.bytes(), f.name());
            }
        }
        assertEquals((3L * 442656 + 3 * 1280) * 4, r0.files().get(3).bytes());
    }

    @Test
    void zero3_model_file_nests_layer_dicts() throws IOException {
        CheckpointPlan plan = CheckpointPlan.of(DlioConfigReader.read(CheckpointPlanTest.root()
                .resolve("configs/dlio/llama3_8b.yaml"), List.of("++workload.checkpoint.streaming.format=torch")), 8);
        CheckpointPlan.PlannedFile model = plan.rank(0).files().get(0);
        List<Tensor> ts = model.tensors();
        // layers 0..34: the embedding, 32 layers of 6 tensors, the output layer, the final norm
        assertEquals(1 + 32 * 6 + 1 + 1, ts.size());
        assertEquals("0/0 float16 [65667072]", ts.get(0).toString()); // 128256*4096/8
        assertEquals("1/1 float16 [3145728]", ts.get(2).toString()); // 4096*6144/8
        assertEquals("34/0 float16 [512]", ts.getLast().toString());
        assertEquals(2_007_565_312L, model.tensorBytes());
        assertEquals(12_045_637_632L, plan.rank(0).files().get(1).tensorBytes());
        // torch: the size is that of the laid-out file, a little more than the tensors
        assertEquals(Layout.of(Layout.Format.TORCH, ts, true, 64).size(), model.bytes());
        assertTrue(model.bytes() > model.tensorBytes() && model.bytes() < model.tensorBytes() + (1 << 20),
                model.bytes() + " bytes");
        assertEquals("torch", plan.toMap().get("format"));
    }

    @Test
    void framework_pytorch_writes_torch_by_default_and_raw_where_torch_cannot_say_why() throws IOException {
        // the shipped llama3 8B, nothing named: torch files of torch.save's size (docs/DLIO.md's arithmetic)
        CheckpointPlan plan = CheckpointPlan.of(DlioConfigReader.read(CheckpointPlanTest.root()
                .resolve("configs/dlio/llama3_8b.yaml"), List.of()), 8);
        assertEquals(Layout.Format.TORCH, plan.format());
        assertEquals(2_007_619_961L, plan.rank(0).files().get(0).bytes());
        assertEquals(12_045_640_409L, plan.rank(0).files().get(1).bytes());
        assertEquals(8 * (2_007_619_961L + 12_045_640_409L), plan.totalBytes());
        assertEquals(112_425_623_552L, plan.tensorBytes()); // DLIO's 104.70 GiB of tensors
        assertTrue(plan.formatFallback().isEmpty());
        // named raw: the tensors' bytes alone
        CheckpointPlan raw = CheckpointPlan.of(DlioConfigReader.read(CheckpointPlanTest.root()
                .resolve("configs/dlio/llama3_8b.yaml"), List.of(CheckpointPlanTest.RAW)), 8);
        assertEquals(112_425_623_552L, raw.totalBytes());
        // tensorflow (DLIO's default framework): raw, silently (DLIO's mechanism there is not torch.save)
        DlioConfig tf = DlioConfigReader.parse("model:\n  num_layers: 2\n  type: transformer\nworkflow:\n"
                + "  checkpoint: True\n", "inline", List.of());
        assertEquals(Layout.Format.RAW, tf.streaming().format());
        assertTrue(tf.warnings().isEmpty(), tf.warnings().toString());
        // the legacy predefined tensors: raw, with a warning that says why
        DlioConfig legacy = DlioConfigReader.parse(CheckpointPlanTest.PREDEFINED, "inline", List.of());
        assertEquals(Layout.Format.RAW, legacy.streaming().format());
        assertEquals(List.of("checkpoint.streaming.format: writing raw files, not torch (the default for framework "
                + "pytorch): torch files of the legacy model.layer_parameters are not written (DLIO shares one dict "
                + "among the layers)"), legacy.warnings());
        // a split that leaves a layer without elements (8 x 8 dims, ZeRO 3 over 128 data ranks): a torch file
        // would hold an empty dict; the default falls back to raw saying so, a named torch is refused
        List<String> thin = List.of("++workload.model.parallelism.zero_stage=3", "++workload.model.parallelism.pipeline=1",
                "++workload.model.transformer.hidden_size=8", "++workload.model.transformer.ffn_hidden_size=8",
                "++workload.model.transformer.vocab_size=8");
        CheckpointPlan fallback = CheckpointPlan.of(DlioConfigReader.read(CheckpointPlanTest.root()
                .resolve("configs/dlio/tiny.yaml"), thin), 256);
        assertEquals(Layout.Format.RAW, fallback.format());
        String why = fallback.formatFallback().orElseThrow();
        assertTrue(why.startsWith("checkpoint.streaming.format: writing raw files, not torch (the default for framework "
                + "pytorch): layer 0 has no tensor with elements at this split"), why);
        assertTrue(fallback.config().warnings().contains(why), fallback.config().warnings().toString());
        List<String> named = new ArrayList<>(thin);
        named.add("++workload.checkpoint.streaming.format=torch");
        DlioConfig torch = DlioConfigReader.read(CheckpointPlanTest.root().resolve("configs/dlio/tiny.yaml"), named);
        DlioConfigException e = assertThrows(DlioConfigException.class, () -> CheckpointPlan.of(torch, 256));
        assertEquals("checkpoint.streaming.format", e.key());
        assertTrue(e.getMessage().endsWith("(a torch file would hold an empty dict): use raw"), e.getMessage());
    }

    @Test
    void torch_is_refused_where_it_cannot_be_dlios() {
        DlioConfigException e = assertThrows(DlioConfigException.class, () -> DlioConfigReader.parse(
                CheckpointPlanTest.PREDEFINED + "checkpoint:\n  streaming:\n    format: torch\n", "inline", List.of()));
        assertTrue(e.getMessage().contains("checkpoint.streaming.format: torch files of the legacy model.layer_parameters"),
                e.getMessage());
        e = assertThrows(DlioConfigException.class, () -> DlioConfigReader.parse(
                "model:\n  num_layers: 2\n  type: transformer\nframework: pytorch\nworkflow:\n  checkpoint: True\n"
                        + "checkpoint:\n  streaming:\n    format: zip\n", "inline", List.of()));
        assertTrue(e.getMessage().contains("'zip' is not a checkpoint format"), e.getMessage());
        e = assertThrows(DlioConfigException.class, () -> DlioConfigReader.parse(
                "model:\n  num_layers: 2\n  optimization_groups: [8]\nframework: pytorch\nworkflow:\n"
                        + "  checkpoint: True\ncheckpoint:\n  streaming:\n    format: torch\n", "inline", List.of()));
        assertTrue(e.getMessage().contains("model.optimization_groups are not written"), e.getMessage());
    }

    /** Debian's python3-torch installs for the system Python. */
    private static String python() throws Exception {
        for (String p : List.of("/usr/bin/python3", "python3")) {
            try {
                Process pr = new ProcessBuilder(p, "-c", "import torch").redirectErrorStream(true).start();
                if (pr.waitFor(60, TimeUnit.SECONDS) && pr.exitValue() == 0) {
                    return p;
                }
            } catch (IOException e) {
                // not there: try the next
            }
        }
        return fail("DlioTorchTest needs a python3 with torch (Debian: apt-get install python3-torch)");
    }

    /**
     * For each file: {@code torch.load(weights_only=True)} gives DLIO's keys, shapes and dtypes; its
     * {@code data.pkl} is byte for byte the one {@code torch.save} pickles for a state dict of zeros of
     * those shapes; every CRC is right ({@code zipfile.testzip}); and its size is the torch 2.x layout's
     * (docs/DLIO.md, worked here from the real pickle's length). Torch 1.13 (Debian's) writes fewer
     * members than torch 2.x, so its own file's size is compared only where it writes the 2.x members.
     */
    private static final String CHECK = """
            import io, os, sys, zipfile, torch
            def layout_size(pkl, payloads, align=64):
                members = [('data.pkl', pkl), ('.format_version', 1), ('.storage_alignment', len(str(align))),
                           ('byteorder', 6)]
                members += [('data/' + k, payloads[int(k)]) for k in sorted(str(i) for i in range(len(payloads)))]
                members += [('version', 2), ('.data/serialization_id', 40)]
                at, central = 0, 0
                for name, size in members:
                    n = len('archive/' + name)
                    big, far = size >= 0xFFFFFFFF, at >= 0xFFFFFFFF
                    z64 = (4 + 16 * big + 8 * far) if (big or far) else 0
                    start = at + 30 + n + z64 + 4
                    pad = (align - start % align) % align
                    at = start + pad + size + (24 if z64 else 16)
                    central += 46 + n + ((4 + 16 * big + 8 * far) if (big or far) else 0)
                return at + central + 56 + 20 + 22
            files = []
            for line in open(sys.argv[1]):
                f = line.split()
                if f[0] == 'FILE':
                    files.append((f[1], []))
                else:
                    files[-1][1].append((f[0].split('/'), getattr(torch, f[1]), eval(f[2])))
            def flat(d, pre=()):
                for k, v in d.items():
                    yield from flat(v, pre + (k,)) if isinstance(v, dict) else [(pre + (k,), v)]
            for path, tensors in files:
                want = {}
                for keys, dtype, shape in tensors:
                    # DLIO's keys are str(index): a new string each time, never the cached one-character
                    # string that split() returns, which the pickler would memoize as one object
                    keys = [str(int(k)) if k.isdigit() else k for k in keys]
                    d = want
                    for k in keys[:-1]:
                        d = d.setdefault(k, {})
                    d[keys[-1]] = torch.zeros(shape, dtype=dtype)
                buf = io.BytesIO()
                torch.save(want, buf)
                got = torch.load(path, weights_only=True)
                g = [(k, tuple(v.shape), v.dtype) for k, v in flat(got)]
                w = [(k, tuple(v.shape), v.dtype) for k, v in flat(want)]
                assert g == w, (path, g, w)
                theirs = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
                prefix = theirs.namelist()[0].split('/')[0]
                ours = zipfile.ZipFile(path)
                assert ours.testzip() is None, (path, ours.testzip())
                pkl = theirs.read(prefix + '/data.pkl')
                assert ours.read('archive/data.pkl') == pkl, (path, 'data.pkl differs')
                size = os.path.getsize(path)
                payloads = [v.numel() * v.element_size() for _, v in flat(want)]
                assert size == layout_size(len(pkl), payloads), (path, size, layout_size(len(pkl), payloads))
                if prefix + '/.format_version' in theirs.namelist():
                    assert size == len(buf.getvalue()), (path, size, len(buf.getvalue()))
                print(os.path.basename(path), 'keys', list(got.keys()), 'shapes',
                      [tuple(v.shape) for _, v in flat(got)][:3], 'parameters', sum(v.numel() for _, v in flat(got)),
                      'bytes', size)
            """;

    /**
     * ZeRO 1 with pipeline stages (the tiny config): one file per layer, and the optimizer files; ZeRO 0:
     * each stage's layers nested in one model file ({@code {"<i>": {"<j>": t}}}) on the first replica.
     */
    @ParameterizedTest
    @CsvSource({"1, 8", "0, 4"})
    void a_tiny_run_writes_files_torch_loads_at_torch_saves_size(int zero, int ranks) throws Exception {
        String python = python();
        DlioConfig c = DlioConfigReader.read(CheckpointPlanTest.root().resolve("configs/dlio/tiny.yaml"),
                List.of("++workload.checkpoint.checkpoint_folder=" + dir.resolve("ckpt"),
                        "++workload.checkpoint.num_checkpoints_write=1", "++workload.checkpoint.num_checkpoints_read=1",
                        "++workload.model.parallelism.zero_stage=" + zero));
        // no format named: torch is framework pytorch's default
        assertEquals(Layout.Format.TORCH, c.streaming().format());
        assertFalse(c.streaming().formatSet());
        CheckpointPlan plan = CheckpointPlan.of(c, ranks);
        if (zero == 0) {
            assertEquals("zero_pp_rank_0_mp_rank_3_model_states.pt", plan.rank(3).files().get(0).name());
            assertEquals("3/0 float16 [256]", plan.rank(3).files().get(0).tensors().get(0).toString());
        }
        DlioResult r = DlioRun.run(plan, RankGroup.inProcess(ranks), DlioRun.Options.defaults().withVerify(true));
        assertEquals(0, BufferPool.liveBytes());
        assertEquals(plan.totalBytes(), r.savedBytes());
        assertEquals(plan.totalBytes(), r.loadedBytes());
        // summary.json counts the files' bytes, framing included, and says what the tensors alone are
        assertEquals(plan.totalBytes(), r.extras().get("checkpointBytes"));
        assertEquals("torch", r.extras().get("checkpointFormat"));
        assertEquals(plan.tensorBytes(), r.extras().get("checkpointTensorBytes"));
        assertTrue(plan.totalBytes() > plan.tensorBytes());
        Path step = dir.resolve("ckpt").resolve(CheckpointPlan.stepFolder(1, 1));
        StringBuilder spec = new StringBuilder();
        int files = 0;
        for (CheckpointPlan.RankPlan rp : plan.rankPlans()) {
            for (CheckpointPlan.PlannedFile f : rp.files()) {
                Path file = step.resolve(f.name());
                assertEquals(f.bytes(), Files.size(file), f.name());
                assertTrue(f.bytes() > f.tensorBytes(), f.name());
                spec.append("FILE ").append(file).append('\n').append(TensorList.format(f.tensors()));
                files++;
            }
        }
        assertEquals(plan.fileCount(), files);
        Path specFile = dir.resolve("spec.txt");
        Files.writeString(specFile, spec.toString());
        Process pr = new ProcessBuilder(python, "-c", CHECK, specFile.toString()).redirectErrorStream(true).start();
        String out = new String(pr.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(pr.waitFor(300, TimeUnit.SECONDS), "python timed out");
        assertEquals(0, pr.exitValue(), "torch disagrees: " + out);
        List<String> printed = new ArrayList<>(out.lines().filter(l -> l.contains(".pt ")).toList());
        assertEquals(files, printed.size(), out);
        System.out.println(out);
    }
}
