//! One-shot evaluation of a position for `kairos eval`: the network's W/D/L, Q, moves left and priors,
//! serialisable as `{"wdl":[w,d,l],"q":..,"d":..,"m":..|null,"policy":{"e2e4":p,...}}`.

use serde::ser::{SerializeMap, SerializeStruct};
use serde::{Serialize, Serializer};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, EnPassantMode, Position};

use crate::backend::{evaluate_one, EvalRequest, HistoryEntry};
use crate::error::NnError;
use crate::options::{open_backend, BackendOptions};

/// The network's verdict on one position.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalReport {
    /// Win, draw, loss for the side to move.
    pub wdl: [f32; 3],
    /// W − L.
    pub q: f32,
    /// Draw probability.
    pub d: f32,
    /// Expected plies left, when the network has a moves-left head.
    pub m: Option<f32>,
    /// Legal moves in standard UCI (castling e1g1) with their priors, highest first.
    pub policy: Vec<(String, f32)>,
}

struct PolicyMap<'a>(&'a [(String, f32)]);

impl Serialize for PolicyMap<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (uci, prior) in self.0 {
            map.serialize_entry(uci, prior)?;
        }
        map.end()
    }
}

impl Serialize for EvalReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut report = serializer.serialize_struct("EvalReport", 5)?;
        report.serialize_field("wdl", &self.wdl)?;
        report.serialize_field("q", &self.q)?;
        report.serialize_field("d", &self.d)?;
        report.serialize_field("m", &self.m)?;
        report.serialize_field("policy", &PolicyMap(&self.policy))?;
        report.end()
    }
}

/// Builds the game history from a FEN and UCI moves, counting repetitions as lc0 does.
pub fn game_history(fen: &str, moves: &[String]) -> Result<Vec<HistoryEntry>, NnError> {
    let invalid_fen = |reason: String| NnError::InvalidFen { fen: fen.into(), reason };
    let setup: Fen = fen.parse().map_err(|e: shakmaty::fen::ParseFenError| invalid_fen(e.to_string()))?;
    let mut position: Chess = crate::fen::chess_from_fen(setup).map_err(|e| invalid_fen(e.to_string()))?;
    let mut history = vec![HistoryEntry { position: position.clone(), repetitions: 0 }];
    for (number, uci) in moves.iter().enumerate() {
        let invalid = |reason: String| NnError::InvalidMove { uci: uci.clone(), number: number + 1, reason };
        let parsed: UciMove = uci.parse().map_err(|_| invalid("not UCI notation".into()))?;
        let m = parsed.to_move(&position).map_err(|_| {
            invalid(format!("illegal in position {}", Fen::from_position(&position, EnPassantMode::Legal)))
        })?;
        position.play_unchecked(m);
        let repetitions = repetitions_of(&history, &position);
        history.push(HistoryEntry { position: position.clone(), repetitions });
    }
    Ok(history)
}

/// How often `position` occurred before in `history` (same side to move, within the rule-50 window).
fn repetitions_of(history: &[HistoryEntry], position: &Chess) -> u32 {
    let hash: Zobrist64 = position.zobrist_hash(EnPassantMode::Legal);
    let window = position.halfmoves() as usize;
    history
        .iter()
        .rev()
        .take(window)
        .skip(1)
        .step_by(2)
        .find(|e| e.position.zobrist_hash::<Zobrist64>(EnPassantMode::Legal) == hash && e.position == *position)
        .map_or(0, |e| e.repetitions + 1)
}

/// Evaluates the position after `moves` from `fen` with the backend `options` describe, the policy at
/// `temperature` (1 when `None`).
pub fn evaluate_position(
    options: &BackendOptions,
    fen: &str,
    moves: &[String],
    temperature: Option<f32>,
) -> Result<EvalReport, NnError> {
    let history = game_history(fen, moves)?;
    let options = BackendOptions { policy_temperature: temperature.unwrap_or(1.0), cache_size: 0, ..options.clone() };
    let backend = open_backend(&options)?;
    let position = &history[history.len() - 1].position;
    let legal: Vec<shakmaty::Move> = position.legal_moves().into_iter().collect();
    let evaluation = evaluate_one(backend.as_ref(), &EvalRequest { history: &history, moves: &legal })?;
    let w = (1.0 + evaluation.wl - evaluation.d) / 2.0;
    let l = (1.0 - evaluation.wl - evaluation.d) / 2.0;
    let mut policy: Vec<(String, f32)> = legal
        .iter()
        // A Chess960 position's castling as king takes rook (its king's destination can be an ordinary move).
        .map(|m| m.to_uci(position.castles().mode()).to_string())
        .zip(evaluation.policy.iter().copied())
        .collect();
    policy.sort_by(|a, b| b.1.total_cmp(&a.1));
    Ok(EvalReport {
        wdl: [w, evaluation.d, l],
        q: evaluation.wl,
        d: evaluation.d,
        m: backend.attributes().has_moves_left.then_some(evaluation.m),
        policy,
    })
}
