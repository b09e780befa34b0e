#!/usr/bin/env python3
"""Train the hybrid's learned leaf score (`crates/ai/src/leafnet.rs`, issue 10).

    iron-arena leaf-data data/leaf/*.jsonl --out data/leaf.bin
    python training/train_leaf.py --data data/leaf.bin --out models/leaf.bin \
        [--hidden 32] [--steps N] [--batch B] [--lr X] [--value-mix A] [--mirror]

- Input (`iron-arena leaf-data`): per position the heuristic score (pawns, side to move),
  the game result, the search's value, and the active piece-square features.
- Model: pawns = a * heuristic + w2 . clip(b1 + sum of W1's active rows, 0, 1) + b2,
  predicted result tanh(k * pawns). k is fitted first with the heuristic alone (a = 1,
  no network) and then kept, so the model's output stays in the heuristic's pawn scale,
  which the search's margins and windows are written in.
- Target: the result, or with --value-mix A, (1-A) * result + A * search value.
  Held-out MSE (the last 10% of each file's positions, later games) is always against
  the result, beside the heuristic's own with its fitted k.
- --mirror: each batch mirrors a random half of its positions left-right (the rules'
  symmetry; `crates/engine/src/symmetry.rs`).
- Output: the `IALEAF01` file the Rust side reads, and `<out>.meta.json` (command, data,
  metrics, time, sha256), and `<out>.reference.json`: sample positions' features and
  scores, which `ai::leafnet`'s test reproduces.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import struct
import sys
import time

import numpy as np

import jax
import jax.numpy as jnp
import optax

ROLES = 19
FEATURES = 2 * ROLES * 81 + 2 * 81
PAD = FEATURES  # an always-zero row for padding
MAX_ACTIVE = 2 * 81
VALID_FRACTION = 0.10


def load(path: str):
    raw = open(path, "rb").read()
    heur, res, sv, idx = [], [], [], []
    o = 0
    n = len(raw)
    while o < n:
        h, r, s = struct.unpack_from("<fff", raw, o)
        c = raw[o + 12]
        f = np.frombuffer(raw, "<u2", c, o + 13)
        o += 13 + 2 * c
        heur.append(h)
        res.append(r)
        sv.append(s)
        row = np.full(MAX_ACTIVE, PAD, np.int32)
        row[:c] = f
        idx.append(row)
    return (np.array(heur, np.float32), np.array(res, np.float32), np.array(sv, np.float32),
            np.stack(idx))


def mirror_table():
    t = np.arange(FEATURES + 1, dtype=np.int32)
    for f in range(FEATURES):
        sq = f % 81
        t[f] = f - sq + (sq - sq % 9 + (8 - sq % 9))
    return t


def fit_k(h, y):
    best = None
    for k in np.linspace(0.02, 2.0, 199):
        m = float(np.mean((np.tanh(k * h) - y) ** 2))
        if best is None or m < best[1]:
            best = (float(k), m)
    return best


def pawns(p, h, idx):
    acc = p["b1"] + jnp.take(p["w1"], idx, axis=0).sum(axis=1)
    return p["a"] * h + jnp.clip(acc, 0.0, 1.0) @ p["w2"] + p["b2"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", action="append", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--l2", type=float, default=1e-6)
    ap.add_argument("--value-mix", type=float, default=0.0)
    ap.add_argument("--mirror", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    t0 = time.time()

    tr, va = [], []
    for path in args.data:
        d = load(path)
        cut = int(len(d[0]) * (1 - VALID_FRACTION))
        tr.append([x[:cut] for x in d])
        va.append([x[cut:] for x in d])
    tr = [np.concatenate([t[i] for t in tr]) for i in range(4)]
    va = [np.concatenate([t[i] for t in va]) for i in range(4)]
    print(f"train {len(tr[0])} positions, held out {len(va[0])} ({time.time() - t0:.0f} s)", flush=True)

    mix = args.value_mix
    ytr = (1 - mix) * tr[1] + mix * tr[2]
    k, _ = fit_k(tr[0], ytr)
    heur_valid = float(np.mean((np.tanh(k * va[0]) - va[1]) ** 2))
    print(f"k = {k:.3f}; heuristic alone: held-out MSE vs result {heur_valid:.4f}", flush=True)

    H = args.hidden
    key = jax.random.PRNGKey(args.seed)
    w1 = 0.05 * jax.random.normal(key, (FEATURES + 1, H))
    w1 = w1.at[PAD].set(0.0)
    params = {"a": jnp.array(1.0), "b2": jnp.array(0.0), "b1": jnp.full((H,), 0.5),
              "w2": jnp.zeros((H,)), "w1": w1}
    sched = optax.cosine_decay_schedule(args.lr, args.steps, 0.05)
    opt = optax.adam(sched)
    state = opt.init(params)
    pad_mask = jnp.ones((FEATURES + 1, 1)).at[PAD].set(0.0)

    def loss_fn(p, h, idx, y):
        pred = jnp.tanh(k * pawns(p, h, idx))
        return jnp.mean((pred - y) ** 2) + args.l2 * jnp.sum(p["w1"] ** 2)

    @jax.jit
    def step(p, s, h, idx, y):
        l, g = jax.value_and_grad(loss_fn)(p, h, idx, y)
        g["w1"] = g["w1"] * pad_mask
        u, s = opt.update(g, s, p)
        return optax.apply_updates(p, u), s, l

    @jax.jit
    def predict(p, h, idx):
        return jnp.tanh(k * pawns(p, h, idx))

    def valid_mse(p):
        out = []
        for i in range(0, len(va[0]), 8192):
            out.append(np.asarray(predict(p, va[0][i:i + 8192], va[3][i:i + 8192])))
        return float(np.mean((np.concatenate(out) - va[1]) ** 2))

    mt = mirror_table()
    rng = np.random.default_rng(args.seed)
    n = len(tr[0])
    curve = []
    for it in range(1, args.steps + 1):
        b = rng.integers(0, n, args.batch)
        idx = tr[3][b]
        if args.mirror:
            flip = rng.random(args.batch) < 0.5
            idx = np.where(flip[:, None], mt[idx], idx)
        params, state, l = step(params, state, tr[0][b], idx, ytr[b])
        if it % 2000 == 0 or it == args.steps:
            v = valid_mse(params)
            curve.append({"step": it, "train_loss": float(l), "valid_mse": v})
            print(f"step {it}: train {float(l):.4f} held-out {v:.4f} a={float(params['a']):.3f} "
                  f"({time.time() - t0:.0f} s)", flush=True)

    p = {k_: np.asarray(v, np.float32) for k_, v in params.items()}
    blob = b"IALEAF01" + struct.pack("<I", H)
    blob += np.array([p["a"], p["b2"]], "<f4").tobytes()
    blob += p["b1"].astype("<f4").tobytes() + p["w2"].astype("<f4").tobytes()
    blob += p["w1"][:FEATURES].astype("<f4").tobytes()
    with open(args.out, "wb") as f:
        f.write(blob)
    stem = args.out[:-4] if args.out.endswith(".bin") else args.out
    # Reference: held-out samples' features, heuristic score and the model's pawns.
    ref = []
    for i in range(0, min(len(va[0]), 4000), 500):
        feats = [int(x) for x in va[3][i] if x != PAD]
        pw = float(np.asarray(pawns(params, va[0][i:i + 1], va[3][i:i + 1]))[0])
        ref.append({"features": feats, "heuristic": float(va[0][i]), "pawns": pw})
    with open(stem + ".reference.json", "w") as f:
        json.dump(ref, f)
    final = valid_mse(params)
    meta = {
        "command": " ".join(sys.argv),
        "data": {"train_positions": int(n), "held_out_positions": int(len(va[0])), "files": args.data},
        "hidden": H, "k": k, "heuristic_weight": float(p["a"]),
        "held_out_mse_vs_result": {"heuristic_alone": heur_valid, "leaf_net": final},
        "curve": curve, "seconds": round(time.time() - t0),
        "sha256": hashlib.sha256(blob).hexdigest(), "bytes": len(blob),
    }
    with open(stem + ".meta.json", "w") as f:
        json.dump(meta, f, indent=1)
    print(json.dumps(meta["held_out_mse_vs_result"]), f"{meta['seconds']} s", flush=True)


if __name__ == "__main__":
    main()
