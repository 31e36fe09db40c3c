#!/usr/bin/env python3
"""A forward pass of a LLaMA model saved by `dgen4j save DIR --format safetensors --model ...`, in real torch.

Usage: forward-llama.py DIR [--tokens N]

Reads DIR/config.json (hidden_size, intermediate_size, num_hidden_layers, num_attention_heads,
num_key_value_heads, vocab_size, tie_word_embeddings, rope_theta, rms_norm_eps), the weight map of
DIR/model.safetensors.index.json and every shard (its 8-byte header length, JSON header, data region:
its own reading, not the safetensors package's), then runs N tokens through the model as transformers'
LlamaForCausalLM does (embedding; per layer RMSNorm, q/k/v projections, rotary positions, causal
attention with the key/value heads repeated for grouped queries, o_proj, residual, RMSNorm, SwiGLU MLP,
residual; final RMSNorm; lm_head or the tied embedding), in float32 from the stored dtype. Exits 1
unless every logit is finite and every tensor the model needs is there with its shape.
"""
import argparse
import json
import os
import struct
import sys

import torch

DTYPES = {"BF16": torch.bfloat16, "F16": torch.float16, "F32": torch.float32, "F64": torch.float64}


def fail(msg):
    print("FAIL: %s" % msg)
    sys.exit(1)


def read_shard(path, names):
    """The tensors of `names` in the shard at `path`, as float32."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        base = 8 + n
        out = {}
        for name in names:
            info = header.get(name)
            if info is None:
                fail("%s: no tensor %s in its header" % (path, name))
            if info["dtype"] not in DTYPES:
                fail("%s: tensor %s has dtype %s, not a float" % (path, name, info["dtype"]))
            begin, end = info["data_offsets"]
            f.seek(base + begin)
            raw = bytearray(f.read(end - begin))
            t = torch.frombuffer(raw, dtype=DTYPES[info["dtype"]]) if raw else torch.empty(0, dtype=DTYPES[info["dtype"]])
            out[name] = t.reshape(info["shape"]).float()
    return out


def rms_norm(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rotary(x, positions, theta):
    """transformers' rotate_half form: x * cos + rotate_half(x) * sin, over [tokens, heads, head_dim]."""
    d = x.shape[-1]
    inv = 1.0 / (theta ** (torch.arange(0, d, 2, dtype=torch.float32) / d))
    angles = positions[:, None].float() * inv[None, :]
    cos = torch.cat([angles.cos(), angles.cos()], -1)[:, None, :]
    sin = torch.cat([angles.sin(), angles.sin()], -1)[:, None, :]
    half = torch.cat([-x[..., d // 2:], x[..., : d // 2]], -1)
    return x * cos + half * sin


def main(argv):
    parser = argparse.ArgumentParser(description="a forward pass of a dgen4j LLaMA safetensors directory")
    parser.add_argument("dir")
    parser.add_argument("--tokens", type=int, default=8)
    a = parser.parse_args(argv[1:])
    config = json.load(open(os.path.join(a.dir, "config.json")))
    index = json.load(open(os.path.join(a.dir, "model.safetensors.index.json")))
    hidden, layers = config["hidden_size"], config["num_hidden_layers"]
    heads = config["num_attention_heads"]
    kv_heads = config.get("num_key_value_heads", heads)
    head_dim = config.get("head_dim", hidden // heads)
    vocab = config["vocab_size"]
    tied = config.get("tie_word_embeddings", False)
    eps = config.get("rms_norm_eps", 1e-6)
    theta = config.get("rope_theta", 10000.0)

    shapes = {"model.embed_tokens.weight": [vocab, hidden], "model.norm.weight": [hidden]}
    if not tied:
        shapes["lm_head.weight"] = [vocab, hidden]
    for i in range(layers):
        p = "model.layers.%d." % i
        shapes.update({p + "self_attn.q_proj.weight": [heads * head_dim, hidden],
                       p + "self_attn.k_proj.weight": [kv_heads * head_dim, hidden],
                       p + "self_attn.v_proj.weight": [kv_heads * head_dim, hidden],
                       p + "self_attn.o_proj.weight": [hidden, heads * head_dim],
                       p + "mlp.gate_proj.weight": [config["intermediate_size"], hidden],
                       p + "mlp.up_proj.weight": [config["intermediate_size"], hidden],
                       p + "mlp.down_proj.weight": [hidden, config["intermediate_size"]],
                       p + "input_layernorm.weight": [hidden],
                       p + "post_attention_layernorm.weight": [hidden]})
    missing = [n for n in shapes if n not in index["weight_map"]]
    if missing:
        fail("the index maps no file to %s" % ", ".join(missing[:5]))
    by_file = {}
    for name in shapes:
        by_file.setdefault(index["weight_map"][name], []).append(name)
    w = {}
    for file, names in sorted(by_file.items()):
        w.update(read_shard(os.path.join(a.dir, file), names))
    for name, shape in shapes.items():
        if list(w[name].shape) != shape:
            fail("%s has shape %s, the config says %s" % (name, list(w[name].shape), shape))

    torch.manual_seed(0)
    tokens = torch.randint(0, vocab, (a.tokens,))
    positions = torch.arange(a.tokens)
    mask = torch.full((a.tokens, a.tokens), float("-inf")).triu(1)
    with torch.no_grad():
        x = w["model.embed_tokens.weight"][tokens]
        for i in range(layers):
            p = "model.layers.%d." % i
            h = rms_norm(x, w[p + "input_layernorm.weight"], eps)
            q = (h @ w[p + "self_attn.q_proj.weight"].T).view(a.tokens, heads, head_dim)
            k = (h @ w[p + "self_attn.k_proj.weight"].T).view(a.tokens, kv_heads, head_dim)
            v = (h @ w[p + "self_attn.v_proj.weight"].T).view(a.tokens, kv_heads, head_dim)
            q, k = rotary(q, positions, theta), rotary(k, positions, theta)
            k = k.repeat_interleave(heads // kv_heads, dim=1)
            v = v.repeat_interleave(heads // kv_heads, dim=1)
            scores = torch.einsum("thd,shd->hts", q, k) / head_dim ** 0.5 + mask
            attn = torch.einsum("hts,shd->thd", scores.softmax(-1), v).reshape(a.tokens, heads * head_dim)
            x = x + attn @ w[p + "self_attn.o_proj.weight"].T
            h = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
            gate = torch.nn.functional.silu(h @ w[p + "mlp.gate_proj.weight"].T)
            x = x + (gate * (h @ w[p + "mlp.up_proj.weight"].T)) @ w[p + "mlp.down_proj.weight"].T
        x = rms_norm(x, w["model.norm.weight"], eps)
        logits = x @ (w["model.embed_tokens.weight"] if tied else w["lm_head.weight"]).T
    if not torch.isfinite(logits).all():
        bad = (~torch.isfinite(logits)).nonzero()[0].tolist()
        fail("logit %s is %r, not finite" % (bad, logits[bad[0], bad[1]].item()))
    print("forward pass: %d layers, %d tokens, logits %s all finite (largest |logit| %.4g), torch %s" % (
        layers, a.tokens, list(logits.shape), logits.abs().max().item(), torch.__version__))


if __name__ == "__main__":
    main(sys.argv)
