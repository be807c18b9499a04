//! lc0's root filter (`src/syzygy/syzygy.cc` `root_probe`, `root_probe_wdl`; docs/syzygy.md): every root
//! move is ranked by the DTZ tables (else the WDL tables) and only the equal best may be searched and played.

use shakmaty::{Chess, Move, Position};
use shakmaty_syzygy::Wdl;

use super::Tablebases;

/// Which tables ranked the root's moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootProbe {
    /// The DTZ tables: the ranking keeps the win within the fifty-move rule, and lc0 then stops probing WDL
    /// in the search (the root filter already decides the result).
    Dtz,
    /// The WDL tables only (a DTZ table is missing): the search still probes WDL below the root.
    Wdl,
}

/// One root move with what the tables say of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankedMove {
    /// The move.
    pub mv: Move,
    /// With [`RootProbe::Dtz`], the DTZ in plies counted from the root (lc0's convention: positive wins,
    /// beyond ±100 cursed or blessed, 1 for a mate); with [`RootProbe::Wdl`], the WDL from −2 to 2.
    pub score: i32,
    /// lc0's rank: higher is better, and only the moves of the best rank stay.
    pub rank: i32,
}

/// The root's moves ranked by the tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootMoveRanks {
    /// Which tables ranked them.
    pub probe: RootProbe,
    /// Every legal move, in move-generation order.
    pub moves: Vec<RankedMove>,
}

impl RootMoveRanks {
    /// The moves lc0 keeps: those of the best rank.
    pub fn best_moves(&self) -> Vec<Move> {
        let best = self.moves.iter().map(|m| m.rank).max().unwrap_or(i32::MIN);
        self.moves.iter().filter(|m| m.rank == best).map(|m| m.mv).collect()
    }
}

impl Tablebases {
    /// lc0's root filter: the DTZ ranking, else the WDL ranking; None when neither could probe every move
    /// (or the position has castling rights or too many pieces). `dtz_optimal` is lc0's `has_repeated`: a
    /// repetition since the last zeroing move, or `SyzygyFastPlay`, ranks winning moves by DTZ alone.
    pub fn rank_root_moves(&self, position: &Chess, dtz_optimal: bool) -> Option<RootMoveRanks> {
        if !self.covers(position) {
            return None;
        }
        self.rank_by_dtz(position, dtz_optimal)
            .map(|moves| RootMoveRanks { probe: RootProbe::Dtz, moves })
            .or_else(|| self.rank_by_wdl(position).map(|moves| RootMoveRanks { probe: RootProbe::Wdl, moves }))
    }

    /// `root_probe`: the DTZ after each move counted from the root, ranked so that wins within the
    /// fifty-move rule are equal (unless `dtz_optimal`) and a draw by the rule is sought when losing.
    fn rank_by_dtz(&self, position: &Chess, dtz_optimal: bool) -> Option<Vec<RankedMove>> {
        let cnt50 = position.halfmoves() as i32;
        let mut ranked = Vec::new();
        for mv in position.legal_moves() {
            let mut next = position.clone();
            next.play_unchecked(mv);
            let mut dtz = if next.halfmoves() == 0 {
                dtz_before_zeroing(-self.probe_wdl_after_zeroing(&next)?)
            } else {
                let dtz = -self.probe_dtz(&next)?;
                dtz + dtz.signum()
            };
            if dtz == 2 && next.is_checkmate() {
                dtz = 1;
            }
            let rank = if dtz > 0 {
                if dtz + cnt50 <= 99 && !dtz_optimal {
                    1000
                } else {
                    1000 - (dtz + cnt50)
                }
            } else if dtz < 0 {
                if -dtz * 2 + cnt50 < 100 {
                    -1000
                } else {
                    -1000 + (-dtz + cnt50)
                }
            } else {
                0
            };
            ranked.push(RankedMove { mv, score: dtz, rank });
        }
        Some(ranked)
    }

    /// `root_probe_wdl`: the WDL after each move, losses and wins each split by the fifty-move rule.
    fn rank_by_wdl(&self, position: &Chess) -> Option<Vec<RankedMove>> {
        let mut ranked = Vec::new();
        for mv in position.legal_moves() {
            let mut next = position.clone();
            next.play_unchecked(mv);
            let wdl = -self.probe_wdl_after_zeroing(&next)?;
            let rank = match wdl {
                Wdl::Loss => -1000,
                Wdl::BlessedLoss => -899,
                Wdl::Draw => 0,
                Wdl::CursedWin => 899,
                Wdl::Win => 1000,
            };
            ranked.push(RankedMove { mv, score: i32::from(wdl), rank });
        }
        Some(ranked)
    }
}

/// lc0's `dtz_before_zeroing`: the DTZ of a zeroing move from the WDL of the position it reaches (the DTZ
/// tables hold no value for it): ±1 for a win or loss, ±101 for a cursed win or blessed loss.
fn dtz_before_zeroing(wdl: Wdl) -> i32 {
    match wdl {
        Wdl::Loss => -1,
        Wdl::BlessedLoss => -101,
        Wdl::Draw => 0,
        Wdl::CursedWin => 101,
        Wdl::Win => 1,
    }
}
