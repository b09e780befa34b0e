#!/usr/bin/env bash
# Checks ONNX models with the tract that ships: the Workers module (build/, made by
# scripts/build-worker.sh) runs each model on its trainer's reference samples in workerd
# (`workerd test`, no server, no wrangler) and must reproduce the outputs within 1e-3
# (src/net.rs `check_model`, ai::network::Network::check_reference). CI checks every model
# of models/ and the training smoke's model this way, on the wasm (simd128) build of
# tract that plays, so no native tract is built for CI (~175 CPU-s). The CLI's
# `iron-arena check-model` (feature `onnx`) checks with native tract.
#   scripts/check-model.sh MODEL.onnx [MODEL.onnx ...]   each against MODEL.reference.json
set -euo pipefail
source "$(dirname "$0")/env.sh"
[ $# -gt 0 ] || { echo "usage: scripts/check-model.sh MODEL.onnx [MODEL.onnx ...]" >&2; exit 2; }
for f in build/index.js build/index_bg.wasm; do
    [ -f "$ROOT/$f" ] || { echo "$f is missing: run scripts/build-worker.sh first" >&2; exit 1; }
done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# capnp's `embed` takes paths relative to the config: everything is linked beside it.
ln -s "$ROOT/build" "$dir/build"
ln -s "$ROOT/scripts/check-model.mjs" "$dir/check.mjs"
quote() { python3 -c 'import json, sys; print(json.dumps(sys.argv[1]))' "$1"; }
modules="(name = \"check.mjs\", esModule = embed \"check.mjs\"),
    (name = \"index.js\", esModule = embed \"build/index.js\"),
    (name = \"index_bg.wasm\", wasm = embed \"build/index_bg.wasm\")"
for snippet in $(cd "$ROOT/build" && find snippets -name '*.js' | sort); do
    modules+=",
    (name = \"$snippet\", esModule = embed \"build/$snippet\")"
done
bindings=""
i=0
for model in "$@"; do
    reference="${model%.onnx}.reference.json"
    for f in "$model" "$reference"; do
        [ -f "$f" ] || { echo "$f: no such file" >&2; exit 1; }
    done
    ln -s "$(realpath "$model")" "$dir/model-$i.onnx"
    ln -s "$(realpath "$reference")" "$dir/reference-$i.json"
    bindings+="(name = \"NAME_$i\", text = $(quote "$model")),
    (name = \"MODEL_$i\", data = embed \"model-$i.onnx\"),
    (name = \"REFERENCE_$i\", text = embed \"reference-$i.json\"),
    "
    i=$((i + 1))
done
date=$(sed -n 's/^compatibility_date = "\(.*\)"/\1/p' "$ROOT/wrangler.toml")
cat >"$dir/config.capnp" <<CAPNP
using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (services = [(name = "check-model", worker = .checker)]);
const checker :Workerd.Worker = (
  compatibilityDate = "$date",
  modules = [
    $modules
  ],
  bindings = [
    ${bindings}(name = "COUNT", text = "$i")
  ],
);
CAPNP
"$ROOT/node_modules/.bin/workerd" test "$dir/config.capnp"
