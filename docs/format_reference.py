#!/usr/bin/env python3
"""Executable reference of docs/FORMAT.md (dgen4j stream format, version 1).

Slow on purpose: every step is written the way FORMAT.md states it, so that the
Rust core and the Java twin can be checked against an independent third reading.
Usage: format_reference.py SEED SIZE BLOCK DEDUP COMPRESS [OFFSET LEN]  -> sha256 of the bytes
"""
import hashlib
import math
import sys

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
T_SEED = 0x6467656E346A2D31    # "dgen4j-1"
T_PERM = 0x7065726D2D6B6579    # "perm-key"
T_BLOCK = 0x626C6F636B2D6964   # "block-id"
T_STRIPE = 0x7374726970652D23  # "stripe-#"
SECTOR = 512
LANES = 8


def mix64(z):
    z &= M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


class SplitMix64:
    def __init__(self, state):
        self.x = state & M64

    def next(self):
        self.x = (self.x + GOLDEN) & M64
        return mix64(self.x)


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & M64


def xoshiro_next(s):
    result = (rotl((s[0] + s[3]) & M64, 23) + s[0]) & M64
    t = (s[1] << 17) & M64
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = rotl(s[3], 45)
    return result


class Spec:
    def __init__(self, seed, size, block, dedup, compress):
        assert 512 <= block <= 64 << 20 and block & (block - 1) == 0
        assert dedup >= 1.0 and 1.0 <= compress <= SECTOR / 3.5 and size >= 0
        self.seed, self.size, self.block = seed & M64, size, block
        self.key = mix64(self.seed ^ T_SEED)
        self.blocks = -(-size // block)
        n = self.blocks
        self.distinct = min(max(int(math.floor(n / dedup + 0.5)), 1), n) if n else 0
        self.stripe = min(block, 4096)
        if compress == 1.0:
            self.random_bytes = SECTOR
        else:
            self.random_bytes = max(int(math.floor(SECTOR / compress + 0.5)) - 3, 1)
        k = 2
        while (1 << k) < n:
            k += 2
        self.half = k // 2
        sm = SplitMix64(self.key ^ T_PERM)
        self.round_keys = [sm.next() for _ in range(4)]

    def feistel(self, x):
        h, mask = self.half, (1 << self.half) - 1
        left, right = x >> h, x & mask
        for rk in self.round_keys:
            left, right = right, left ^ (mix64(right ^ rk) & mask)
        return (left << h) | right

    def unique_of(self, i):
        if self.distinct == self.blocks:
            return i
        y = self.feistel(i)
        while y >= self.blocks:
            y = self.feistel(y)
        return y % self.distinct

    def stripe_bytes(self, u, k):
        bk = mix64(self.key ^ mix64(u ^ T_BLOCK))
        sk = mix64(bk ^ mix64(k ^ T_STRIPE))
        sm = SplitMix64(sk)
        lanes = [[sm.next() for _ in range(4)] for _ in range(LANES)]
        out = bytearray()
        for j in range(self.stripe // 8):
            out += xoshiro_next(lanes[j % LANES]).to_bytes(8, "little")
        r = self.random_bytes
        for s in range(0, self.stripe, SECTOR):
            out[s + r:s + SECTOR] = bytes(SECTOR - r)
        return bytes(out)

    def block_bytes(self, i):
        u = self.unique_of(i)
        data = b"".join(self.stripe_bytes(u, k) for k in range(self.block // self.stripe))
        return data[:min(self.block, self.size - i * self.block)]

    def read(self, offset, length):
        assert 0 <= offset and offset + length <= self.size
        out = bytearray()
        i = offset // self.block
        while len(out) < length:
            b = self.block_bytes(i)
            start = offset + len(out) - i * self.block
            out += b[start:start + length - len(out)]
            i += 1
        return bytes(out)


if __name__ == "__main__":
    a = sys.argv[1:]
    spec = Spec(int(a[0]), int(a[1]), int(a[2]), float(a[3]), float(a[4]))
    off = int(a[5]) if len(a) > 5 else 0
    ln = int(a[6]) if len(a) > 6 else spec.size - off
    data = spec.read(off, ln)
    print(hashlib.sha256(data).hexdigest(), data[:16].hex())
