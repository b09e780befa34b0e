#!/usr/bin/env python3
"""Train the Iron Arena policy/value network on `iron-arena selfplay` records, export ONNX.

    python training/train.py --data 'data/*.jsonl' --out models/net.onnx \
        [--steps N] [--batch B] [--lr X] [--checkpoint training/checkpoints/net.npz] [--resume]

- Records (JSON lines): {"planes": base64 of 22*81 bytes, "policy": [[key, weight], ...],
  "value": -1|0|1, "search_value": -1..1 (optional), "matchup": "south-north"}. Parsed
  once and cached as `<file>.cache.npz`.
- Value target: the game result, or with `--value-mix A` (1-A)*result + A*search value
  (the root value of the search that made the record; records without one use the
  result). Held-out value MSE is always against the game result, so runs compare.
- `--init CKPT`: start from another run's weights (a new generation fine-tuned from the
  previous best), with a fresh optimiser and schedule.
- The last 10% of each data file (later games) is held out for validation.
- Loss: cross-entropy of softmax over all 6561 policy logits against the sparse target
  + MSE of the value + L2 (1e-4 by default) on the weights.
- Checkpoints (params, optimiser state, step) every --checkpoint-every steps and on
  SIGINT/SIGTERM; `--resume` continues from the checkpoint (same data order).
- Export: a fixed-batch ONNX (opset 17, input `planes` [B,22,9,9], outputs `policy`
  [B,6561] and `value` [B,1]) checked against onnxruntime on 8 held-out samples, plus
  `<out minus .onnx>.reference.json` (4 samples) and `.meta.json` (training summary).
"""

from __future__ import annotations

import argparse
import base64
import glob
import hashlib
import json
import math
import os
import signal
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import optax  # noqa: E402

import net  # noqa: E402

VALID_FRACTION = 0.10
CACHE_VERSION = 2


# ----------------------------------------------------------------------------- data


def load_file(path: str):
    """Parse one JSONL file into (planes uint8 [N,1782], keys int32 [N,K], weights f32 [N,K],
    value f32 [N], search value f32 [N]); cached next to the file, keyed by size and mtime."""
    st = os.stat(path)
    cache = path + ".cache.npz"
    stamp = np.array([CACHE_VERSION, st.st_size, int(st.st_mtime_ns)], np.int64)
    if os.path.exists(cache):
        try:
            with np.load(cache) as z:
                if np.array_equal(z["stamp"], stamp):
                    return z["planes"], z["keys"], z["weights"], z["value"], z["search_value"]
        except Exception:
            pass
    planes, keys, weights, values, searched = [], [], [], [], []
    plane_bytes = net.PLANES * net.SQUARES
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            r = json.loads(line)
            p = np.frombuffer(base64.b64decode(r["planes"]), np.uint8)
            if p.size != plane_bytes:
                raise ValueError(f"{path}: planes has {p.size} bytes, expected {plane_bytes}")
            planes.append(p)
            keys.append([k for k, _ in r["policy"]])
            weights.append([w for _, w in r["policy"]])
            values.append(float(r["value"]))
            searched.append(float(r.get("search_value", r["value"])))
    n = len(planes)
    kmax = max([len(k) for k in keys] + [1])
    K = np.zeros((n, kmax), np.int32)
    W = np.zeros((n, kmax), np.float32)
    for i, (k, w) in enumerate(zip(keys, weights)):
        K[i, : len(k)] = k
        W[i, : len(w)] = w
    P = np.stack(planes) if n else np.zeros((0, plane_bytes), np.uint8)
    V = np.asarray(values, np.float32)
    S = np.asarray(searched, np.float32)
    if n and (K.max() >= net.POLICY or K.min() < 0):
        raise ValueError(f"{path}: policy key out of range")
    try:
        tmp = cache + ".tmp.npz"
        np.savez(tmp, stamp=stamp, planes=P, keys=K, weights=W, value=V, search_value=S)
        os.replace(tmp, cache)
    except OSError:
        pass
    return P, K, W, V, S


def pad_cat(arrs, width):
    return np.concatenate([np.pad(a, ((0, 0), (0, width - a.shape[1]))) for a in arrs])


def load_data(patterns: list[str]):
    files = sorted({f for p in patterns for f in glob.glob(p) if f.endswith(".jsonl")})
    if not files:
        sys.exit(f"no .jsonl files match {patterns!r}")
    train, valid = [], []
    for f in files:
        P, K, W, V, S = load_file(f)
        n = len(V)
        nv = int(round(n * VALID_FRACTION)) if n >= 10 else 0
        cut = n - nv
        train.append((P[:cut], K[:cut], W[:cut], V[:cut], S[:cut]))
        valid.append((P[cut:], K[cut:], W[cut:], V[cut:], S[cut:]))
        print(f"data: {f}: {n} positions ({cut} train, {nv} held out)", flush=True)

    def merge(parts):
        kmax = max(p[1].shape[1] for p in parts)
        return {
            "planes": np.concatenate([p[0] for p in parts]),
            "keys": pad_cat([p[1] for p in parts], kmax),
            "weights": pad_cat([p[2] for p in parts], kmax),
            "value": np.concatenate([p[3] for p in parts]),
            "search_value": np.concatenate([p[4] for p in parts]),
        }

    return files, merge(train), merge(valid)


def batch_of(data, idx):
    return (
        data["planes"][idx].astype(np.float32).reshape(-1, net.PLANES, 9, 9),
        data["keys"][idx],
        data["weights"][idx],
        data["value"][idx],
    )


# ----------------------------------------------------------------------------- training


def losses(params, x, keys, weights, value):
    logits, v = net.apply(params, x)
    logp = jax.nn.log_softmax(logits, axis=-1)
    ce = -jnp.sum(weights * jnp.take_along_axis(logp, keys, axis=1), axis=-1)
    mse = (v[:, 0] - value) ** 2
    return logits, ce, mse


def l2_of(params):
    return sum(jnp.sum(w * w) for k, w in params.items() if k.endswith(".w"))


def make_fns(optimizer, l2, value_weight=1.0):
    def loss_fn(params, x, keys, weights, value):
        _, ce, mse = losses(params, x, keys, weights, value)
        ce, mse = ce.mean(), mse.mean()
        reg = l2 * l2_of(params)
        return ce + value_weight * mse + reg, (ce, mse, reg)

    @jax.jit
    def train_step(params, opt_state, x, keys, weights, value):
        (loss, aux), grads = jax.value_and_grad(loss_fn, has_aux=True)(
            params, x, keys, weights, value
        )
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, aux

    @jax.jit
    def eval_step(params, x, keys, weights, value):
        logits, ce, mse = losses(params, x, keys, weights, value)
        pred = jnp.argmax(logits, axis=-1)
        best = jnp.take_along_axis(keys, jnp.argmax(weights, axis=-1)[:, None], axis=1)[:, 0]
        # top-1 restricted to the target's support (the searched legal moves)
        masked = jnp.where(weights > 0, jnp.take_along_axis(logits, keys, axis=1), -jnp.inf)
        pred_legal = jnp.take_along_axis(keys, jnp.argmax(masked, axis=-1)[:, None], axis=1)[:, 0]
        # entropy of the target: the floor of the cross-entropy
        ent = -jnp.sum(jnp.where(weights > 0, weights * jnp.log(jnp.maximum(weights, 1e-30)), 0.0), -1)
        return (
            jnp.sum(ce),
            jnp.sum(mse),
            jnp.sum(pred == best),
            jnp.sum(pred_legal == best),
            jnp.sum(ent),
        )

    return train_step, eval_step


def evaluate(eval_step, params, data, limit=4096, batch=256):
    n = min(limit, len(data["value"]))
    if n == 0:
        return None
    tot = np.zeros(5)
    for s in range(0, n, batch):
        idx = np.arange(s, min(n, s + batch))
        tot += np.array([float(t) for t in eval_step(params, *batch_of(data, idx))])
    ce, mse, top1, top1_legal, ent = tot / n
    return {"n": n, "policy_ce": ce, "value_mse": mse, "top1": top1,
            "top1_legal": top1_legal, "target_entropy": ent}


def fmt_eval(e):
    return (f"policy CE {e['policy_ce']:.3f} (target entropy {e['target_entropy']:.3f}) "
            f"top-1 {100 * e['top1']:.1f}% (among legal {100 * e['top1_legal']:.1f}%) "
            f"value MSE {e['value_mse']:.3f}  [n={e['n']}]")


def save_checkpoint(path, state):
    """Writes the pytree's leaves (params, optimiser state, step) as one .npz, atomically.
    The tree's structure is not stored: `load_checkpoint` takes it from a template built
    the same way (plain numpy instead of a framework's serialiser: nothing else needed)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    leaves = jax.tree_util.tree_leaves(state)
    with open(tmp, "wb") as f:
        np.savez(f, *[np.asarray(leaf) for leaf in leaves])
    os.replace(tmp, path)


def load_checkpoint(path, template):
    """The checkpoint at `path` in the shape of `template`; refuses one whose leaves do not
    match it (another architecture or optimiser) instead of loading garbage."""
    treedef = jax.tree_util.tree_structure(template)
    want = jax.tree_util.tree_leaves(template)
    with np.load(path) as z:
        leaves = [z[f"arr_{i}"] for i in range(len(z.files))]
    if len(leaves) != len(want) or any(
            np.shape(a) != np.shape(b) for a, b in zip(leaves, want)):
        raise SystemExit(f"checkpoint {path} does not match this model/optimiser "
                         f"({len(leaves)} arrays, expected {len(want)})")
    return jax.tree_util.tree_unflatten(treedef, leaves)


# ----------------------------------------------------------------------------- export


def export(params, out, data, batch, info):
    import onnxruntime as ort

    os.makedirs(os.path.dirname(os.path.abspath(out)) or ".", exist_ok=True)
    t0 = time.time()
    net.export_onnx(params, out, batch=batch)
    size = os.path.getsize(out)
    print(f"export: {out} ({size} bytes, batch {batch}, opset 17) in {time.time() - t0:.1f}s",
          flush=True)

    n_check = 8
    avail = len(data["value"])
    idx = np.arange(min(n_check, avail)) if avail else np.arange(0)
    x = batch_of(data, idx)[0] if avail else np.zeros((0, net.PLANES, 9, 9), np.float32)
    if len(x) < n_check:  # too little data: pad with random 0/1 planes
        rng = np.random.default_rng(0)
        extra = rng.integers(0, 2, (n_check - len(x), net.PLANES, 9, 9)).astype(np.float32)
        x = np.concatenate([x, extra])
    jp, jv = net.apply(params, jnp.asarray(x))
    jp, jv = np.asarray(jp), np.asarray(jv)
    sess = ort.InferenceSession(out, providers=["CPUExecutionProvider"])
    op, ov = [], []
    for s in range(0, n_check, batch):
        p, v = sess.run(["policy", "value"], {"planes": x[s : s + batch]})
        op.append(p)
        ov.append(v)
    op, ov = np.concatenate(op), np.concatenate(ov)
    diff = max(float(np.abs(op - jp).max()), float(np.abs(ov - jv).max()))
    print(f"export: onnxruntime vs JAX on {n_check} samples: max abs diff {diff:.2e}", flush=True)
    if not diff < 1e-4:
        sys.exit(f"export: ONNX output differs from JAX by {diff} (>= 1e-4)")

    base = out[:-5] if out.endswith(".onnx") else out
    ref = base + ".reference.json"
    with open(ref, "w") as f:
        json.dump({
            "inputs": [x[i].reshape(-1).tolist() for i in range(4)],
            "policy": [jp[i].tolist() for i in range(4)],
            "value": [jv[i].tolist() for i in range(4)],
        }, f)
    print(f"export: wrote {ref} (4 samples)", flush=True)
    with open(out, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    meta = dict(info, onnx=os.path.basename(out), sha256=sha, bytes=size, batch=batch,
                opset=17, parameters=net.param_count(params), blocks=net.num_blocks(params),
                channels=int(params["stem.w"].shape[0]),
                inputs="planes [B,22,9,9] float32", outputs="policy [B,6561] logits "
                "(from*81+to), value [B,1] tanh, side to move")
    with open(base + ".meta.json", "w") as f:
        json.dump(meta, f, indent=1)
    return diff


# ----------------------------------------------------------------------------- mirror


# `--mirror`: the rules are invariant under the left-right mirror (file a <-> i, ranks
# kept; crates/engine/tests/mirror.rs). In the side-to-move's view (row = rank from the
# own back rank, column = file) it maps view index r*9+f to r*9+(8-f): a flip of the
# planes' last axis, and policy keys from*81+to with both squares mapped (the same
# permutation as `ai::encoding::mirror_key`). The value is unchanged.
MIRROR_VIEW = np.array([r * 9 + 8 - f for r in range(9) for f in range(9)], np.int32)
MIRROR_KEY = (MIRROR_VIEW[:, None] * 81 + MIRROR_VIEW[None, :]).reshape(-1).astype(np.int32)


def mirror_half(batch, seed, step):
    """Mirrors a random half of the batch (chosen from (seed, step): deterministic)."""
    x, keys, weights, value = batch
    n = len(value)
    pick = np.random.default_rng([seed, step, 0x4D49]).permutation(n)[: n // 2]
    x, keys = x.copy(), keys.copy()
    x[pick] = x[pick][..., ::-1]
    keys[pick] = MIRROR_KEY[keys[pick]]
    return x, keys, weights, value


def mirror_self_check(binary):
    """Seconds: the permutation is an involution; planes rows are ranks (so the last axis
    is the file) in a real `selfplay` record; and on positions from random play, the
    engine's legal (from, to)/(to, ability square) pairs of the mirrored IAPN are exactly
    the MIRROR_KEY images of the position's, for both sides to move."""
    import re
    import subprocess
    import tempfile

    assert np.array_equal(MIRROR_KEY[MIRROR_KEY], np.arange(net.POLICY))
    if not binary or not os.path.exists(binary):
        print(f"mirror: {binary} not found, engine check skipped", flush=True)
        return

    def cli(*a):
        return subprocess.run([binary, *a], check=True, capture_output=True, text=True).stdout

    def msq(s):
        return chr(ord("a") + ord("i") - ord(s[0])) + s[1]

    def mirror_iapn(t):
        f = t.split(" ")
        rows = ["".join(str(len(g)) if g[0] == "." else g for g in re.findall(
            r"\.+|[^.]+", "".join("." * int(c) if c.isdigit() else c for c in r)[::-1]))
            for r in f[2].split("/")]
        ch = f[4] if f[4] == "-" else ",".join(
            sorted((msq(s) for s in f[4].split(",")), key=lambda s: (-int(s[1]), s[0])))
        return " ".join(f[:2] + ["/".join(rows), f[3], ch, f[5]])

    def pairs(t):
        north = t.split(" ")[3] == "n"
        v = lambda s: ((8 - (int(s[1]) - 1)) if north else int(s[1]) - 1) * 9 + ord(s[0]) - 97
        out = set()
        for m in cli("moves", t).split():
            base, _, ab = m.partition("/")
            out.add(v(base[:2]) * 81 + v(base[2:4]))
            for s in re.findall(r"[a-i][1-9]", ab) or [base[2:4]]:
                out.add(v(base[2:4]) * 81 + v(s))
        return out

    with tempfile.TemporaryDirectory() as d:
        cli("selfplay", "--games", "1", "--engine", "uniform:2", "--seed", "1", "--out", d + "/r")
        with open(d + "/r") as f:
            r = json.loads(f.readline())
    own = np.frombuffer(base64.b64decode(r["planes"]), np.uint8).reshape(net.PLANES, 9, 9)[:7]
    rows = own.sum(axis=(0, 2))  # an early record: own pieces on view rows 0 and 1
    assert rows[0] >= 7 and rows[1] >= 7 and rows[2:].sum() <= 4, rows

    rng = np.random.default_rng(7)
    checked = 0
    for mu in ("clockwork axiom", "blades clockwork", "axiom blades"):
        t = cli("start", *mu.split()).splitlines()[0]
        for ply in range(16):
            if ply % 3 == 2:
                a, b = pairs(t), pairs(mirror_iapn(t))
                assert {int(MIRROR_KEY[k]) for k in a} == b, t
                checked += 1
            ms = cli("moves", t).split()
            if not ms:
                break
            t = cli("apply", t, ms[rng.integers(len(ms))]).splitlines()[0]
    print(f"mirror: key map is an involution, planes are [plane, rank, file], and matches "
          f"the engine's mirrored legal moves on {checked} positions", flush=True)


# ----------------------------------------------------------------------------- main


def check_layout(binary):
    """The input/policy layout is defined once, in Rust (`iron-arena layout`): refuse to
    train a network whose shapes drifted from it. Returns the layout version (or None)."""
    import subprocess

    if not binary or not os.path.exists(binary):
        print(f"layout: {binary} not found, layout check skipped", flush=True)
        return None
    layout = json.loads(subprocess.run([binary, "layout"], check=True, capture_output=True,
                                       text=True).stdout)
    want = {"planes": net.PLANES, "squares": net.SQUARES, "policy_size": net.POLICY}
    got = {k: layout.get(k) for k in want}
    if got != want:
        sys.exit(f"layout: {binary} says {got}, the network expects {want}")
    print(f"layout: version {layout.get('layout_version')} matches "
          f"({net.PLANES} planes, {net.POLICY} policy logits)", flush=True)
    return layout.get("layout_version")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, action="append",
                    help="glob of selfplay .jsonl files (quote it); repeat for several")
    ap.add_argument("--out", required=True, help="ONNX path to export to")
    ap.add_argument("--steps", type=int, default=2000, help="total optimiser steps (incl. resumed)")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=2e-3, help="peak learning rate (warmup + cosine)")
    ap.add_argument("--l2", type=float, default=1e-4)
    ap.add_argument("--value-weight", type=float, default=1.0, help="weight of the value MSE")
    ap.add_argument("--value-mix", type=float, default=0.0,
                    help="value target = (1-A)*game result + A*search value")
    ap.add_argument("--init", help="start from this checkpoint's weights (fresh optimiser)")
    ap.add_argument("--channels", type=int, default=64)
    ap.add_argument("--blocks", type=int, default=3, help="residual blocks (2 convs each)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mirror", action="store_true",
                    help="augment: mirror (file a<->i) a random half of each batch")
    ap.add_argument("--checkpoint", default="training/checkpoints/net.npz")
    ap.add_argument("--checkpoint-every", type=int, default=250)
    ap.add_argument("--resume", action="store_true", help="continue from --checkpoint if present")
    ap.add_argument("--log-every", type=int, default=50)
    ap.add_argument("--eval-every", type=int, default=500)
    ap.add_argument("--eval-limit", type=int, default=4096, help="held-out positions per eval")
    ap.add_argument("--export-batch", type=int, default=1, help="fixed batch of the ONNX")
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "target", "release", "iron-arena"),
        help="iron-arena binary whose `layout` is checked against the network")
    args = ap.parse_args()
    layout_version = check_layout(args.bin)
    if args.mirror:
        mirror_self_check(args.bin)

    t_load = time.time()
    files, train, valid = load_data(args.data)
    n_train = len(train["value"])
    if n_train == 0:
        sys.exit("no training positions")
    if not 0.0 <= args.value_mix <= 1.0:
        sys.exit("--value-mix must be within 0..1")
    train["value"] = ((1.0 - args.value_mix) * train["value"]
                      + args.value_mix * train["search_value"]).astype(np.float32)
    print(f"data: {n_train} train / {len(valid['value'])} held-out positions "
          f"(loaded in {time.time() - t_load:.1f}s)", flush=True)

    warmup = min(200, max(1, args.steps // 10))
    schedule = optax.warmup_cosine_decay_schedule(
        args.lr * 0.05, args.lr, warmup_steps=warmup, decay_steps=max(args.steps, warmup + 1),
        end_value=args.lr * 0.02)
    optimizer = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(schedule))

    params = jax.tree_util.tree_map(
        jnp.asarray, net.init_params(jax.random.PRNGKey(args.seed), args.channels, args.blocks))
    if args.init and not (args.resume and os.path.exists(args.checkpoint)):
        # Only the weights: a new generation gets its own optimiser and schedule.
        template = {"params": params, "opt_state": optimizer.init(params), "step": 0}
        params = jax.tree_util.tree_map(jnp.asarray, load_checkpoint(args.init, template)["params"])
        print(f"init: weights from {args.init}", flush=True)
    opt_state = optimizer.init(params)
    step = 0
    if args.resume and os.path.exists(args.checkpoint):
        state = load_checkpoint(
            args.checkpoint, {"params": params, "opt_state": opt_state, "step": 0})
        params = jax.tree_util.tree_map(jnp.asarray, state["params"])
        opt_state = state["opt_state"]
        step = int(state["step"])
        print(f"resume: {args.checkpoint} at step {step}", flush=True)
    print(f"model: {net.param_count(params)} parameters "
          f"({4 * net.param_count(params) / 1e6:.2f} MB f32), {args.blocks} residual blocks "
          f"x {args.channels} channels", flush=True)

    train_step, eval_step = make_fns(optimizer, args.l2, args.value_weight)

    def ckpt():
        save_checkpoint(args.checkpoint, {"params": params, "opt_state": opt_state, "step": step})

    stop = {"flag": False}

    def on_signal(signum, _frame):
        stop["flag"] = True
        print(f"signal {signum}: checkpointing and stopping", flush=True)

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    B = min(args.batch, n_train)
    steps_per_epoch = max(1, n_train // B)
    perm_epoch, perm = -1, None
    acc = np.zeros(3)
    acc_n = 0
    t_window = time.time()
    t_start = time.time()
    samples_done = 0
    history = []
    while step < args.steps and not stop["flag"]:
        epoch, i = divmod(step, steps_per_epoch)
        if epoch != perm_epoch:
            perm = np.random.default_rng([args.seed, epoch]).permutation(n_train)
            perm_epoch = epoch
        idx = np.sort(perm[i * B : (i + 1) * B])
        batch = batch_of(train, idx)
        if args.mirror:
            batch = mirror_half(batch, args.seed, step)
        params, opt_state, aux = train_step(params, opt_state, *batch)
        step += 1
        samples_done += B
        acc += np.array([float(a) for a in aux])
        acc_n += 1
        if step % args.log_every == 0 or step == args.steps:
            dt = time.time() - t_window
            ce, mse, reg = acc / acc_n
            print(f"step {step:6d}  epoch {step * B / n_train:6.2f}  policy CE {ce:.4f}  "
                  f"value MSE {mse:.4f}  L2 {reg:.4f}  lr {float(schedule(step)):.2e}  "
                  f"{acc_n * B / dt:.0f} samples/s", flush=True)
            history.append({"step": step, "policy_ce": ce, "value_mse": mse})
            acc[:] = 0
            acc_n = 0
            t_window = time.time()
        if step % args.eval_every == 0 and step < args.steps:
            e = evaluate(eval_step, params, valid, args.eval_limit)
            if e:
                print(f"eval  {step:6d}  held-out: {fmt_eval(e)}", flush=True)
            t_window = time.time()
        if step % args.checkpoint_every == 0:
            ckpt()
    ckpt()
    elapsed = time.time() - t_start
    if samples_done:
        print(f"train: {samples_done} samples in {elapsed:.1f}s "
              f"({samples_done / elapsed:.0f} samples/s incl. compile/eval), step {step}", flush=True)
    if stop["flag"]:
        print(f"stopped at step {step}; checkpoint {args.checkpoint}; rerun with --resume", flush=True)
        return

    results = {}
    for name, d in (("train", train), ("held_out", valid)):
        e = evaluate(eval_step, params, d, args.eval_limit)
        if e:
            print(f"final {name}: {fmt_eval(e)}", flush=True)
            results[name] = e
    export(params, args.out, valid if len(valid["value"]) >= 8 else train, args.export_batch,
           {"data": [os.path.basename(f) for f in files], "train_positions": n_train,
            "held_out_positions": int(len(valid["value"])), "steps": step, "train_batch": B,
            "lr": args.lr, "l2": args.l2, "value_weight": args.value_weight, "value_mix": args.value_mix, "mirror": args.mirror,
            "init": args.init and os.path.basename(args.init), "layout_version": layout_version, "eval": results,
            "curve": history})


if __name__ == "__main__":
    main()
