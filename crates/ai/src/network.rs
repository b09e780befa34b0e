//! The network evaluator: an ONNX policy/value model run by tract, behind [`Evaluator`].
//! The model is parsed, optimised (batch fixed at 1: a symbolic batch costs 1.6–1.9×)
//! and made runnable once; callers keep the [`Network`] for the process's or isolate's
//! life.

use std::sync::Arc;

use tract_onnx::prelude::*;

use crate::encoding::{encode_into, priors_from_logits, PLANES, POLICY, SQUARES};
use crate::evaluator::{Evaluation, Evaluator, Leaf};

type Plan = Arc<TypedRunnableModel>;

#[derive(Clone)]
pub struct Network {
    plan: Plan,
    name: String,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Network({})", self.name)
    }
}

impl Network {
    /// Loads an ONNX model (input `planes` [1, 22, 9, 9]; outputs `policy` [1, 6561]
    /// logits and `value` [1, 1] in [-1, 1]).
    pub fn load(onnx: &[u8], name: &str) -> Result<Network, String> {
        let plan = tract_onnx::onnx()
            .model_for_read(&mut std::io::Cursor::new(onnx))
            .and_then(|m| m.with_input_fact(0, f32::fact([1, PLANES, 9, 9]).into()))
            .and_then(|m| m.into_optimized())
            .and_then(|m| m.into_runnable())
            .map_err(|e| format!("model {name}: {e:#}"))?;
        Ok(Network { plan, name: name.to_owned() })
    }

    /// Runs the model on encoded planes: (6561 policy logits, value). Builds tract's run
    /// state for this call only; a [`Session`] keeps it between runs.
    pub fn run(&self, planes: &[f32]) -> Result<(Vec<f32>, f32), String> {
        let input = Tensor::from_shape(&[1, PLANES, 9, 9], planes).map_err(|e| e.to_string())?;
        let out = self.plan.run(tvec!(input.into())).map_err(|e| format!("{e:#}"))?;
        outputs(out)
    }

    /// Runs the trainer's reference samples (`<model>.reference.json`: `inputs`, `policy`,
    /// `value`, written by training/train.py) and compares tract's outputs with the
    /// trainer's. An error names the first problem: a malformed reference, a failed run,
    /// or a difference above [`REFERENCE_TOLERANCE`]. Pure (no I/O), so the CLI checks a
    /// model natively and the Workers module checks it with its own wasm build of tract.
    pub fn check_reference(&self, reference: &str) -> Result<ReferenceCheck, String> {
        let r: serde_json::Value = serde_json::from_str(reference).map_err(|e| format!("reference: {e}"))?;
        let floats = |v: &serde_json::Value| -> Vec<f32> {
            v.as_array()
                .map(|a| a.iter().filter_map(|x| x.as_f64()).map(|x| x as f32).collect())
                .unwrap_or_default()
        };
        let inputs = r["inputs"].as_array().filter(|a| !a.is_empty()).ok_or("reference has no inputs")?;
        let mut worst = 0f32;
        for (i, input) in inputs.iter().enumerate() {
            let planes = floats(input);
            if planes.len() != PLANES * SQUARES {
                return Err(format!(
                    "reference sample {i} has {} input values, expected {}",
                    planes.len(),
                    PLANES * SQUARES
                ));
            }
            let (policy, value) = self.run(&planes)?;
            let want_p = floats(&r["policy"][i]);
            let want_v = floats(&r["value"][i]);
            if want_p.len() != policy.len() || want_v.is_empty() {
                return Err(format!("reference sample {i} has the wrong shape"));
            }
            let d = policy
                .iter()
                .zip(&want_p)
                .map(|(a, b)| (a - b).abs())
                .fold(0f32, f32::max)
                .max((value - want_v[0]).abs());
            // f32::max ignores a NaN: a NaN output would pass as no difference.
            if value.is_nan() || policy.iter().any(|x| x.is_nan()) {
                return Err(format!("reference sample {i}: tract's output is not a number"));
            }
            worst = worst.max(d);
        }
        if worst > REFERENCE_TOLERANCE {
            return Err(format!(
                "tract differs from the reference by up to {worst:e} (limit {REFERENCE_TOLERANCE:e})"
            ));
        }
        Ok(ReferenceCheck { samples: inputs.len(), max_difference: worst })
    }

    /// A session: the plan with one run state (op states, value slots) kept between runs,
    /// instead of the one `run` builds and drops on every call.
    pub fn session(&self) -> Result<Session, String> {
        let state = self.plan.spawn().map_err(|e| format!("model {}: {e:#}", self.name))?;
        Ok(Session { state })
    }

    pub fn name(&self) -> &str {
        &self.name
    }
}

/// How far tract's outputs may be from the trainer's (absolute, per logit and value): the
/// float reorderings of an optimised plan give ~1e-5; a wrong layout or op gives > 1e-1.
pub const REFERENCE_TOLERANCE: f32 = 1e-3;

/// A passed [`Network::check_reference`]: samples compared, largest absolute difference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReferenceCheck {
    pub samples: usize,
    pub max_difference: f32,
}

/// A [`Network`] with its run state, for a caller that runs it many times (a search, an
/// isolate). Not shared between threads: each holds its own.
#[derive(Debug, Clone)]
pub struct Session {
    state: TypedSimpleState,
}

impl Session {
    /// Runs the model on encoded planes: (6561 policy logits, value).
    pub fn run(&mut self, planes: &[f32]) -> Result<(Vec<f32>, f32), String> {
        let input = Tensor::from_shape(&[1, PLANES, 9, 9], planes).map_err(|e| e.to_string())?;
        let out = self.state.run(tvec!(input.into())).map_err(|e| format!("{e:#}"))?;
        outputs(out)
    }
}

/// The model's outputs: (policy logits, value).
fn outputs(out: TVec<TValue>) -> Result<(Vec<f32>, f32), String> {
    let policy = out
        .first()
        .ok_or("model has no outputs")?
        .to_plain_array_view::<f32>()
        .map_err(|e| e.to_string())?
        .iter()
        .copied()
        .collect::<Vec<f32>>();
    let value = out
        .get(1)
        .ok_or("model has no value output")?
        .to_plain_array_view::<f32>()
        .map_err(|e| e.to_string())?
        .iter()
        .copied()
        .next()
        .ok_or("empty value output")?;
    if policy.len() != POLICY {
        return Err(format!("policy output has {} entries, expected {POLICY}", policy.len()));
    }
    Ok((policy, value))
}

/// The network as an [`Evaluator`]. A model that fails at run time degrades to a
/// uniform prior and a zero value for that leaf (and counts the failure) rather than
/// panicking inside a request.
#[derive(Debug, Clone)]
pub struct NetworkEvaluator {
    pub network: Network,
    pub failures: u64,
    buf: Vec<f32>,
    /// The run state kept for the evaluator's life (None if it could not be built: each
    /// run then builds its own).
    session: Option<Session>,
}

impl NetworkEvaluator {
    pub fn new(network: Network) -> NetworkEvaluator {
        let session = network.session().ok();
        NetworkEvaluator { network, failures: 0, buf: vec![0.0; PLANES * SQUARES], session }
    }
}

impl Evaluator for NetworkEvaluator {
    fn evaluate(&mut self, leaves: &[Leaf<'_>]) -> Vec<Evaluation> {
        leaves
            .iter()
            .map(|l| {
                encode_into(l.position, &mut self.buf);
                let out = match &mut self.session {
                    Some(s) => s.run(&self.buf),
                    None => self.network.run(&self.buf),
                };
                match out {
                    Ok((logits, value)) => Evaluation {
                        value: value.clamp(-1.0, 1.0),
                        priors: priors_from_logits(&logits, l.moves, l.position.turn()),
                    },
                    Err(_) => {
                        self.failures += 1;
                        let n = l.moves.len().max(1) as f32;
                        Evaluation { value: 0.0, priors: vec![1.0 / n; l.moves.len()] }
                    }
                }
            })
            .collect()
    }

    fn name(&self) -> String {
        format!("network:{}", self.network.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net_v1() -> (Network, serde_json::Value) {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/");
        let bytes = std::fs::read(format!("{dir}net-v1.onnx")).expect("models/net-v1.onnx");
        let text = std::fs::read_to_string(format!("{dir}net-v1.reference.json")).expect("its reference");
        (Network::load(&bytes, "net-v1").expect("loads"), serde_json::from_str(&text).expect("json"))
    }

    #[test]
    fn the_reference_check_passes_its_model_and_refuses_a_moved_output() {
        let (net, reference) = net_v1();
        let ok = net.check_reference(&reference.to_string()).expect("its own reference");
        assert_eq!(ok.samples, 4);
        assert!(ok.max_difference < 1e-4, "{}", ok.max_difference);

        let mut moved = reference.clone();
        moved["value"][2][0] = serde_json::json!(moved["value"][2][0].as_f64().unwrap_or(0.0) + 0.01);
        let e = net.check_reference(&moved.to_string()).expect_err("a moved value");
        assert!(e.contains("differs from the reference"), "{e}");

        let mut short = reference;
        short["inputs"][0] = serde_json::json!([0.0, 1.0]);
        let e = net.check_reference(&short.to_string()).expect_err("a short input");
        assert!(e.contains("sample 0 has 2 input values"), "{e}");
        assert!(net.check_reference("{}").expect_err("no inputs").contains("no inputs"));
    }
}
