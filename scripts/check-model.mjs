// The model check's entry in workerd (scripts/check-model.sh writes the config): for each
// model of its bindings, the Workers module's own tract (build/index.js's `checkModel`,
// src/net.rs) runs the trainer's reference samples and must reproduce its outputs. A
// `test` handler, so `workerd test` reports it and fails when it throws.
import * as module from "./index.js";

export default {
  async test(_controller, env) {
    const failed = [];
    for (let i = 0; i < Number(env.COUNT); i++) {
      const name = env[`NAME_${i}`];
      try {
        console.log(module.checkModel(new Uint8Array(env[`MODEL_${i}`]), env[`REFERENCE_${i}`], name));
      } catch (e) {
        console.error(`FAILED ${e}`);
        failed.push(name);
      }
    }
    if (failed.length) throw new Error(`the module's tract failed the check of: ${failed.join(", ")}`);
  },
};
