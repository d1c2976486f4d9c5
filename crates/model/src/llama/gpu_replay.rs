//! A decode step recorded once and replayed (issue 33): cubecl 0.11's graph capture
//! (`graph_prepare`, `start_capture`, `stop_capture`, `Graph::replay`) on wgpu and CUDA.
//! A launch through cubecl costs the host tens of microseconds (its pipeline lookup,
//! binding resolution, metadata upload, bind-group creation); a step is ~270 of them. A
//! replay re-encodes the recorded dispatches from prebuilt state (wgpu) or launches one
//! CUDA graph, so the host's cost of a step is the replay plus three small writes.
//!
//! What makes one recording serve every position: the kernels read the position from a
//! buffer ([`Position`], rewritten before each replay), attention's and RoPE's launch
//! shapes do not depend on it, and the step's input row is a buffer of its own (the
//! token's embedding row, written from the host). The recording writes the cache's
//! stores in place, so it is valid only while those stores are the ones it was recorded
//! with, held by this cache alone, with room for the next row:
//! - any step that grows the stores or finds them shared forgets the recording (the next
//!   decode step records anew); a prompt keeps it only when it writes the stores in place
//!   (held by this cache alone, with room for it), so a generation that continues a
//!   cached prompt replays the previous one's recording;
//! - a cloned cache starts without one ([`StepReplay`]'s `Clone`);
//! - a recording is replayed only for the model (its [`ModelId`]) that recorded it.
//!
//! Every buffer the recorded launches write (intermediates, the logits) is held by the
//! recording ([`Held`]), so nothing else is ever placed in memory a replay writes. The
//! logits are copied out of the recording's buffer after each replay (one launch): a
//! step's logits stay valid however long the caller keeps them.
//!
//! `ESPALIER_GPU_REPLAY=0` turns replay off at load (A/B measurements:
//! `scripts/check-gpu-lavapipe.sh`). A backend that refuses a capture (cubecl answers an
//! error) is remembered per cache ([`StepReplay::Refused`]) and never asked again.

use burn::backend::Cube;
use burn::tensor::{Tensor, TensorData};
use burn_cubecl::tensor::CubeTensor;
use cubecl::bytes::Bytes;
use cubecl::client::Graph;
use cubecl::prelude::*;

use super::gpu_tensor::{arg, cube, empty, tensor, Position};
use super::{KvCache, Llama, ModelError, ModelId, ReplayState};

/// The tensors a pass's launches wrote, kept alive (see the module) when recording (and
/// in the warm-up before, so that it leaves the pools what the recording allocates);
/// otherwise a pass frees each as soon as it is used (a prompt's intermediates are large).
pub(crate) struct Held(Option<Vec<CubeTensor>>);

impl Held {
    /// Keeps what it is given.
    pub(crate) fn keeping() -> Self {
        Self(Some(Vec::new()))
    }

    /// Keeps nothing.
    pub(crate) fn nothing() -> Self {
        Self(None)
    }

    /// Keeps `x`'s buffer alive as long as this holds it (if it keeps).
    pub(crate) fn hold<const D: usize>(&mut self, x: &Tensor<D>) {
        if let Some(kept) = &mut self.0 {
            if let Ok(x) = x.clone().try_into_primitive::<Cube>() {
                kept.push(x);
            }
        }
    }
}

/// A recorded decode step and the buffers it reads and writes.
pub(crate) struct StepGraph {
    graph: Graph,
    model: ModelId,
    /// `[1, hidden]`: the token's embedding row, written before each replay.
    input: CubeTensor,
    /// The position, written before each replay.
    position: CubeTensor,
    /// `[1, vocab]`: what each replay writes.
    logits: CubeTensor,
    _held: Held,
    /// Steps replayed (after the one recorded).
    replays: usize,
}

/// A cache's recorded decode step, if any.
#[derive(Default)]
pub(crate) enum StepReplay {
    #[default]
    None,
    Recorded(Box<StepGraph>),
    /// The backend refused a capture (its error): steps run launch by launch.
    Refused(String),
}

impl Clone for StepReplay {
    /// A clone has no recording (it would write the original's stores), but remembers a
    /// refusal.
    fn clone(&self) -> Self {
        match self {
            Self::Refused(why) => Self::Refused(why.clone()),
            _ => Self::None,
        }
    }
}

impl std::fmt::Debug for StepReplay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::None => f.write_str("None"),
            Self::Recorded(g) => write!(f, "Recorded({:?})", g.model),
            Self::Refused(why) => write!(f, "Refused({why:?})"),
        }
    }
}

impl StepReplay {
    /// What the cache's owner sees of it.
    pub(crate) fn state(&self) -> ReplayState {
        match self {
            Self::None => ReplayState::None,
            Self::Recorded(g) => ReplayState::Recorded { replays: g.replays },
            Self::Refused(why) => ReplayState::Refused(why.clone()),
        }
    }
}

/// Whether replay is on for models loaded now (`ESPALIER_GPU_REPLAY=0` turns it off).
pub(crate) fn replay_enabled() -> bool {
    std::env::var("ESPALIER_GPU_REPLAY").map_or(true, |v| v != "0")
}

impl Llama {
    /// The decode step of `tokens` (one token) at `past` (= `cache.len()`) by replaying
    /// the cache's recording (recording it first when there is none): the logits,
    /// `[1, vocab]`, or `None` when this step runs launch by launch (replay refused or
    /// off, a prompt, the stores lacking room or shared; in the second and third cases the
    /// recording is forgotten, and a prompt keeps it only when it is written in place:
    /// stores held alone with room for it). Does not advance the cache.
    pub(super) fn replayed_step(
        &self,
        tokens: &[u32],
        past: usize,
        cache: &mut KvCache,
    ) -> Result<Option<Tensor<2>>, ModelError> {
        if matches!(cache.replay, StepReplay::Refused(_)) {
            return Ok(None);
        }
        if !(self.step_replay && cache.device_stores_ready(past + tokens.len())) {
            cache.replay = StepReplay::None;
            return Ok(None);
        }
        if tokens.len() > 1 {
            // A prompt runs launch by launch; the stores are held by this cache alone and
            // have room for it, so it writes them in place and the recording stays valid.
            return Ok(None);
        }
        let mut row = vec![0f32; self.config.hidden];
        self.embedding.row_f32(tokens[0] as usize, &mut row);
        match &mut cache.replay {
            StepReplay::Recorded(g) if g.model == self.id => g.run(row, past).map(Some),
            _ => self.record_step(row, past, cache),
        }
    }

    /// Records the decode step at `past` into `cache` and runs it; `None` (and the
    /// refusal remembered) when the backend refuses the capture.
    fn record_step(
        &self,
        row: Vec<f32>,
        past: usize,
        cache: &mut KvCache,
    ) -> Result<Option<Tensor<2>>, ModelError> {
        cache.replay = StepReplay::None;
        let hidden = self.config.hidden;
        let input: Tensor<2> = Tensor::from_data(TensorData::new(row, [1, hidden]), &self.device);
        let position = Position::upload(past, &self.device);
        let client = cube(input.clone(), "recording a step")?.client;
        let refuse = |cache: &mut KvCache, what: &str, e: &dyn std::fmt::Debug| {
            cache.replay = StepReplay::Refused(format!("{what}: {e:?}"));
            Ok(None)
        };
        if let Err(e) = client.graph_prepare() {
            return refuse(cache, "graph_prepare", &e);
        }
        // The warm-up run leaves the pools holding what the recorded run allocates (the
        // capture allocates nothing new); it also computes this step, which the replay
        // below repeats (the same rows written to the stores).
        let warm = self.step_pass(input.clone(), &position, cache, &mut Held::keeping());
        if let Err(e) = warm {
            let _ = client.stop_capture();
            return Err(e);
        }
        drop(warm);
        if let Err(e) = client.start_capture() {
            let _ = client.stop_capture();
            return refuse(cache, "start_capture", &e);
        }
        let mut held = Held::keeping();
        let logits = self.step_pass(input.clone(), &position, cache, &mut held);
        let graph = client.stop_capture();
        let (logits, graph) = match (logits, graph) {
            (Err(e), _) => return Err(e),
            (_, Err(e)) => return refuse(cache, "stop_capture", &e),
            (Ok(logits), Ok(graph)) => (logits, graph),
        };
        let step = StepGraph {
            graph,
            model: self.id,
            input: cube(input, "recording a step")?,
            position: position.cube("recording a step")?,
            logits: cube(logits, "recording a step")?,
            _held: held,
            replays: 0,
        };
        let out = step.replay()?;
        cache.replay = StepReplay::Recorded(Box::new(step));
        Ok(Some(out))
    }

    /// One step's launches over `input` (`[1, hidden]`) at `position`: the blocks, the
    /// final norm and the output product (one launch where it takes the norm as its
    /// prologue); every tensor they write is held by `held`.
    fn step_pass(
        &self,
        input: Tensor<2>,
        position: &Position,
        cache: &mut KvCache,
        held: &mut Held,
    ) -> Result<Tensor<2>, ModelError> {
        let x = self.blocks_forward_gpu(input, position, cache, held)?;
        let logits = self.normed_product(&self.output, x, &self.output_norm, held)?;
        held.hold(&logits);
        Ok(logits)
    }
}

impl StepGraph {
    /// Writes the step's inputs (`row` at `past`), replays, and returns its logits.
    fn run(&mut self, row: Vec<f32>, past: usize) -> Result<Tensor<2>, ModelError> {
        let client = &self.input.client;
        client.write(&self.input.handle, Bytes::from_elems(row));
        client.write(&self.position.handle, Bytes::from_elems(vec![past as f32]));
        self.replays += 1;
        self.replay()
    }

    /// Replays the recording and copies its logits out (see the module).
    fn replay(&self) -> Result<Tensor<2>, ModelError> {
        // SAFETY: every buffer the recording reads or writes is alive: the weights are
        // the model's (replayed only for the model with this id, which is alive: the
        // caller is its method), the stores are the cache's (held by it alone: checked
        // by `device_stores_ready`), the inputs and everything the launches wrote are
        // held by `self`. Writes, the replay and the reads are on this thread's stream.
        unsafe { self.graph.replay() }
            .map_err(|e| ModelError::Execution(format!("replaying the decode step: {e:?}")))?;
        let out = empty(&self.logits, self.logits.meta.shape());
        let n = super::gpu_tensor::len(&self.logits);
        let units = 256u32;
        // SAFETY: both buffers hold n f32 elements; unit i < n copies element i.
        unsafe {
            copy_elems::launch_unchecked(
                &out.client,
                CubeCount::Static(n.div_ceil(units as usize) as u32, 1, 1),
                CubeDim::new_1d(units),
                arg(&self.logits),
                arg(&out),
                n,
            )
        };
        Ok(tensor(out))
    }
}

/// `out[i] = x[i]` for `i < n`.
#[cube(launch_unchecked)]
fn copy_elems(x: &[f32], out: &mut [f32], n: usize) {
    let i = usize::cast_from(ABSOLUTE_POS);
    if i < n {
        out[i] = x[i];
    }
}
