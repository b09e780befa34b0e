"""The Iron Arena policy/value network, in pure JAX (NCHW, like the ONNX it exports to).

Architecture (the original game's compact CNN, with residual connections):
  planes [N,22,9,9]
  stem: 3x3 conv 22->C + ReLU
  3 residual blocks, each two 3x3 convs C->C:  x = relu(x + conv(relu(conv(x))))
      (six 3x3 convs in total)
  policy head: 1x1 conv C->81 -> [N,81,9,9] (channel = to-square, spatial = from-square)
      -> transpose to [N,9,9,81] -> reshape [N,6561]: logits[n, from*81 + to]
  value head: 1x1 conv C->1 + ReLU -> flatten 81 -> dense 64 -> ReLU -> dense 1 -> tanh

The layers are written with `lax.conv_general_dilated` in NCHW/OIHW so that jax2onnx emits
plain ONNX `Conv` nodes with no layout transposes; no BatchNorm (nothing to fold).
Parameters are a flat dict of numpy/jax arrays (checkpointed as numpy .npz by train.py).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

PLANES = 22
SQUARES = 81
POLICY = SQUARES * SQUARES
DN = ("NCHW", "OIHW", "NCHW")


def init_params(key, channels: int = 64, blocks: int = 3, value_hidden: int = 64):
    """He-initialised parameters; the second conv of each residual block starts small."""
    params = {}
    keys = iter(jax.random.split(key, 4 + 2 * blocks + 8))

    def conv(name, cin, cout, k, scale=1.0):
        fan_in = cin * k * k
        std = scale * math.sqrt(2.0 / fan_in)
        params[name + ".w"] = np.asarray(
            jax.random.normal(next(keys), (cout, cin, k, k), jnp.float32) * std
        )
        params[name + ".b"] = np.zeros((cout,), np.float32)

    def dense(name, nin, nout, scale=1.0):
        std = scale * math.sqrt(2.0 / nin)
        params[name + ".w"] = np.asarray(
            jax.random.normal(next(keys), (nin, nout), jnp.float32) * std
        )
        params[name + ".b"] = np.zeros((nout,), np.float32)

    conv("stem", PLANES, channels, 3)
    for i in range(blocks):
        conv(f"block{i}.conv1", channels, channels, 3)
        conv(f"block{i}.conv2", channels, channels, 3, scale=0.1)
    conv("policy", channels, SQUARES, 1, scale=0.5)
    conv("value_conv", channels, 1, 1)
    dense("value_fc1", SQUARES, value_hidden)
    dense("value_fc2", value_hidden, 1, scale=0.5)
    return params


def num_blocks(params) -> int:
    return sum(1 for k in params if k.endswith(".conv1.w"))


def _conv(x, params, name, pad):
    y = jax.lax.conv_general_dilated(
        x, params[name + ".w"], window_strides=(1, 1), padding=pad, dimension_numbers=DN
    )
    return y + params[name + ".b"][None, :, None, None]


def apply(params, planes):
    """planes float32 [N,22,9,9] -> (policy logits [N,6561], value [N,1] in [-1,1])."""
    same = ((1, 1), (1, 1))
    x = jax.nn.relu(_conv(planes, params, "stem", same))
    for i in range(num_blocks(params)):
        h = jax.nn.relu(_conv(x, params, f"block{i}.conv1", same))
        h = _conv(h, params, f"block{i}.conv2", same)
        x = jax.nn.relu(x + h)
    n = planes.shape[0]
    p = _conv(x, params, "policy", "VALID")  # [N, 81(to), 9, 9(from)]
    policy = jnp.transpose(p, (0, 2, 3, 1)).reshape(n, POLICY)  # [N, from*81 + to]
    v = jax.nn.relu(_conv(x, params, "value_conv", "VALID")).reshape(n, SQUARES)
    v = jax.nn.relu(v @ params["value_fc1.w"] + params["value_fc1.b"])
    value = jnp.tanh(v @ params["value_fc2.w"] + params["value_fc2.b"])
    return policy, value


def param_count(params) -> int:
    return int(sum(np.prod(v.shape) for v in params.values()))


def export_onnx(params, path: str, batch: int = 1, opset: int = 17):
    """Export with a fixed batch (tract runs batch 1; use batch=8 for a batch-8 model)."""
    import onnx
    from jax2onnx import to_onnx

    frozen = jax.tree_util.tree_map(jnp.asarray, params)

    def fn(planes):
        return apply(frozen, planes)

    model = to_onnx(
        fn,
        inputs=[jax.ShapeDtypeStruct((batch, PLANES, 9, 9), jnp.float32)],
        model_name="iron_arena_net",
        opset=opset,
        input_names=["planes"],
        output_names=["policy", "value"],
    )
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return model
