//! The positions a network backend's computation has queued, and what every such backend does with them alike:
//! encoding them into input planes with the policy indices of their moves, and turning the network's outputs into
//! evaluations with lc0's legal-move softmax (docs/lc0/network.md §5.8). One copy for the libtorch backend and the
//! ONNX Runtime backend, so that both give the search exactly the same evaluations of the same outputs.

use std::ops::Range;

use shakmaty::{Move, Position};

use crate::backend::{Added, BackendError, EvalRequest, Evaluation, HistoryEntry};
use crate::encoder::{
    copy_read_history, encode_position_into, BoardTransform, HistoryFill, InputPlanes, Plane, PLANES,
};
use crate::network::InputFormat;
use crate::policy_map::{PolicyFrame, TransposedMoves};
use crate::raw_outputs::{GatheredOutputs, PolicyGather};
use crate::softmax::move_priors;

/// How the policy head's logits become a position's move priors.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PolicyOutput {
    /// The softmax temperature.
    pub temperature: f32,
    /// The exact exponential instead of lc0's FastExp (for network checks, not for play).
    pub exact_softmax: bool,
    /// Where a transposed position's moves are looked up (canonical input formats).
    pub transposed_moves: TransposedMoves,
}

/// How a network's inputs are encoded: the input format and when empty history slots are filled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Encoding {
    /// The network's input format.
    pub input_format: InputFormat,
    /// When empty history slots are filled with copies of the first known position.
    pub history_fill: HistoryFill,
    /// Where a transposed position's moves are looked up.
    pub transposed_moves: TransposedMoves,
}

/// A batch under construction. `add` runs while the search holds its tree, so it only copies what the encoder
/// reads; encoding happens at compute time, after the search has let go (lc0 encodes outside its lock too).
#[derive(Default)]
pub struct QueuedBatch {
    /// The queued positions' histories as the encoder reads them (`copy_read_history`), one after another.
    histories: Vec<HistoryEntry>,
    /// Their moves whose priors are wanted, one position's after another.
    moves: Vec<Move>,
    /// Where each queued position's history and moves lie in the two vectors above.
    queued: Vec<(Range<usize>, Range<usize>)>,
}

impl QueuedBatch {
    /// Queues `request` unless the batch already holds `limit` positions.
    pub fn add(&mut self, request: &EvalRequest<'_>, format: InputFormat, limit: usize) -> Result<Added, BackendError> {
        if self.queued.len() >= limit {
            return Err(BackendError::BatchFull(limit));
        }
        if request.history.is_empty() {
            return Err(BackendError::Encoding("the request has an empty history".into()));
        }
        let history_start = self.histories.len();
        copy_read_history(request.history, format, &mut self.histories);
        let moves_start = self.moves.len();
        self.moves.extend_from_slice(request.moves);
        self.queued.push((history_start..self.histories.len(), moves_start..self.moves.len()));
        Ok(Added::Queued(self.queued.len() - 1))
    }

    /// How many positions are queued.
    pub fn len(&self) -> usize {
        self.queued.len()
    }

    /// Whether no position is queued.
    pub fn is_empty(&self) -> bool {
        self.queued.is_empty()
    }

    /// Every queued position's input planes, and the policy index of every queued move in the order of `moves`:
    /// one vector for the batch, where one for each position was a large share of the batch's allocations.
    pub fn encode(&self, encoding: Encoding) -> Result<(Vec<InputPlanes>, PolicyGather), BackendError> {
        let mut positions = vec![[Plane::default(); PLANES]; self.queued.len()];
        let fill = encoding.history_fill;
        let gather = self.encode_each(encoding, |index, history, format| {
            encode_position_into(history, format, fill, &mut positions[index])
        })?;
        Ok((positions, gather))
    }

    /// Encodes each queued position with `encode` (its index, its history and the input format), and gathers the
    /// policy index of every queued move in the order of `moves` in the frame of the transform `encode` returns.
    pub fn encode_each(
        &self,
        encoding: Encoding,
        mut encode: impl FnMut(usize, &[HistoryEntry], InputFormat) -> Option<BoardTransform>,
    ) -> Result<PolicyGather, BackendError> {
        let mut gather = PolicyGather {
            indices: Vec::with_capacity(self.moves.len()),
            moves: Vec::with_capacity(self.queued.len()),
        };
        for (index, (history, moves)) in self.queued.iter().enumerate() {
            let history = &self.histories[history.clone()];
            let transform = encode(index, history, encoding.input_format)
                .ok_or_else(|| BackendError::Encoding("the request has an empty history".into()))?;
            let turn = history[history.len() - 1].position.turn();
            let frame = PolicyFrame::new(turn, transform, encoding.transposed_moves);
            for m in &self.moves[moves.clone()] {
                let index =
                    frame.index(m).ok_or_else(|| BackendError::Encoding(format!("move {m:?} has no policy index")))?;
                gather.indices.push(index);
            }
            gather.moves.push(moves.len());
        }
        Ok(gather)
    }

    /// The queued positions' evaluations from their gathered outputs: win − loss and draw from each position's
    /// value outputs by `value` (whose form depends on the network implementation), moves left as given, and the
    /// priors by `policy`'s softmax over the legal moves' logits.
    pub fn evaluations(
        &self,
        raw: &GatheredOutputs,
        value: impl Fn(&[f32]) -> (f32, f32),
        policy: &PolicyOutput,
    ) -> Vec<Evaluation> {
        let value_width = raw.value.len() / self.queued.len().max(1);
        self.queued
            .iter()
            .enumerate()
            .map(|(i, (_, moves))| {
                let (wl, d) = value(&raw.value[i * value_width..(i + 1) * value_width]);
                Evaluation {
                    wl,
                    d,
                    m: raw.moves_left.as_ref().map_or(0.0, |m| m[i]),
                    policy: move_priors(&raw.logits[moves.clone()], policy.temperature, policy.exact_softmax),
                }
            })
            .collect()
    }
}
