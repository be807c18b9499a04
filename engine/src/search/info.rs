//! UCI `info` lines and the values they show (docs/lc0/search.md §4.10, §4.11).

use super::wdl_rescale::SearchContempt;
use crate::position::uci_move;
use shakmaty::Move;

/// The score of an `info` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns (or the unit of the chosen [`ScoreType`]) from the side to move's view.
    Cp(i32),
    /// Moves to a proven mate; negative when the side to move gets mated.
    Mate(i32),
}

/// One UCI `info` line.
#[derive(Clone, Debug, PartialEq)]
pub struct InfoLine {
    /// max(1, cumulative depth ÷ playouts).
    pub depth: u32,
    /// The deepest playout.
    pub seldepth: u32,
    /// Milliseconds since the move clock started.
    pub time_ms: i64,
    /// Playouts plus the reused root's visits.
    pub nodes: u64,
    /// The score of this line's first move.
    pub score: Score,
    /// Win, draw and loss in permille.
    pub wdl: (u32, u32, u32),
    /// Expected moves left in the game, only with a moves-left head.
    pub moves_left: Option<u32>,
    /// Tree memory in permille of the RAM limit, only when one is set (lc0 has no such field).
    pub hashfull: Option<u32>,
    /// Playouts per second since the first batch; None until that time is positive.
    pub nps: Option<u64>,
    /// Network evaluations per second since the first batch, likewise.
    pub eps: Option<u64>,
    /// Tablebase probes that gave a result: the root's ranking and every position the search ended there.
    pub tb_hits: u64,
    /// The line's rank among the best moves, only with MultiPV above 1.
    pub multipv: Option<usize>,
    /// The principal variation.
    pub pv: Vec<Move>,
}

/// Which optional fields the GUI asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InfoFields {
    /// `wdl` (UCI_ShowWDL).
    pub wdl: bool,
    /// `movesleft` (UCI_ShowMovesLeft).
    pub moves_left: bool,
    /// `eps` (UCI_ShowEPS).
    pub eps: bool,
    /// Castling written as king takes rook (UCI_Chess960).
    pub chess960: bool,
}

impl InfoLine {
    /// The line of a ponder search (rooted before the opponent's `predicted` move) as the engine's own: the
    /// score and W/D/L from the engine's side, depth and seldepth one less, and the PV after the predicted move,
    /// none when the line does not start with it (lc0's `UciPonderForwarder`, `engine.cc` 99–127).
    pub fn as_ponder_line(mut self, predicted: &Move) -> Self {
        self.score = match self.score {
            Score::Cp(cp) => Score::Cp(-cp),
            Score::Mate(moves) => Score::Mate(-moves),
        };
        self.wdl = (self.wdl.2, self.wdl.1, self.wdl.0);
        self.depth = if self.depth > 1 { self.depth - 1 } else { self.depth };
        self.seldepth = if self.seldepth > 1 { self.seldepth - 1 } else { self.seldepth };
        self.pv = if self.pv.first() == Some(predicted) { self.pv.split_off(1) } else { Vec::new() };
        self
    }

    /// The line as lc0 prints it, in lc0's field order.
    pub fn to_uci(&self, fields: InfoFields) -> String {
        let mut line = format!(
            "info depth {} seldepth {} time {} nodes {} score ",
            self.depth, self.seldepth, self.time_ms, self.nodes
        );
        match self.score {
            Score::Cp(cp) => line.push_str(&format!("cp {cp}")),
            Score::Mate(moves) => line.push_str(&format!("mate {moves}")),
        }
        if fields.wdl {
            line.push_str(&format!(" wdl {} {} {}", self.wdl.0, self.wdl.1, self.wdl.2));
        }
        if let (true, Some(moves_left)) = (fields.moves_left, self.moves_left) {
            line.push_str(&format!(" movesleft {moves_left}"));
        }
        if let Some(hashfull) = self.hashfull {
            line.push_str(&format!(" hashfull {hashfull}"));
        }
        if let Some(nps) = self.nps {
            line.push_str(&format!(" nps {nps}"));
        }
        if let (true, Some(eps)) = (fields.eps, self.eps) {
            line.push_str(&format!(" eps {eps}"));
        }
        line.push_str(&format!(" tbhits {}", self.tb_hits));
        if let Some(rank) = self.multipv {
            line.push_str(&format!(" multipv {rank}"));
        }
        if !self.pv.is_empty() {
            line.push_str(" pv");
            for mv in &self.pv {
                line.push(' ');
                line.push_str(&uci_move(mv, fields.chess960));
            }
        }
        line
    }
}

/// What the `score cp` field shows (lc0's `ScoreType`); Q is WL plus `DrawScore` times D.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ScoreType {
    /// `90·tan(1.5637541897·WL)`.
    Centipawn,
    /// The same from Q.
    CentipawnWithDrawScore,
    /// `295·WL / (1 − 0.976953126·WL¹⁴)`.
    Centipawn2019,
    /// `290.680623072·tan(1.548090806·WL)`.
    Centipawn2018,
    /// `5000·WL + 5000`, in hundredths of a percent.
    WinPercentage,
    /// `10000·Q`.
    Q,
    /// `10000·WL`.
    WinMinusLoss,
    /// 100·μ of the logistic WDL model where it is meaningful, else `45·tan(1.56728071628·WL)` (lc0's default).
    #[default]
    WdlMu,
}

impl ScoreType {
    /// Every score type by its lc0 name, in the order of [`ScoreType::ALL`].
    pub const NAMES: &'static [&'static str] = &[
        "centipawn", "centipawn_with_drawscore", "centipawn_2019", "centipawn_2018", "win_percentage", "Q", "W-L",
        "WDL_mu",
    ];

    /// Every score type, in the order of [`ScoreType::NAMES`].
    pub const ALL: [ScoreType; 8] = [
        Self::Centipawn,
        Self::CentipawnWithDrawScore,
        Self::Centipawn2019,
        Self::Centipawn2018,
        Self::WinPercentage,
        Self::Q,
        Self::WinMinusLoss,
        Self::WdlMu,
    ];

    /// The score type of an lc0 name (case-insensitive), if it is one.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::NAMES.iter().position(|known| known.eq_ignore_ascii_case(name.trim())).map(|index| Self::ALL[index])
    }
}

/// What lc0 shows for one root move that is not a proven mate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShownValue {
    /// The `score cp` value.
    pub score: i32,
    /// The WL the `wdl` field is computed from: with `WDL_mu`, lc0's display transform of the input.
    pub wl: f32,
    /// The D the `wdl` field is computed from.
    pub d: f32,
}

/// The score and displayed (WL, D) of a root move's (WL, D), computed as lc0's `SendUciInfo` does (in
/// double where it uses double, truncated to an integer).
pub fn shown_value(
    score_type: ScoreType,
    wl: f32,
    d: f32,
    q: f32,
    has_wdl: bool,
    contempt: &SearchContempt,
) -> ShownValue {
    let tan_score = |scale: f64, slope: f64, x: f32| (scale * (slope * f64::from(x)).tan()) as f32;
    let (wl, d, mu) = if score_type == ScoreType::WdlMu || contempt.shows_objective_values() {
        contempt.display(wl, d)
    } else {
        (wl, d, 0.0)
    };
    let score = match score_type {
        ScoreType::Centipawn => tan_score(90.0, 1.563_754_189_7, wl),
        ScoreType::CentipawnWithDrawScore => tan_score(90.0, 1.563_754_189_7, q),
        ScoreType::Centipawn2019 => {
            (f64::from(295.0 * wl) / (-0.976_953_126_f64).mul_add(f64::from(wl).powf(14.0), 1.0)) as f32
        }
        ScoreType::Centipawn2018 => tan_score(290.680_623_072, 1.548_090_806, wl),
        ScoreType::WinPercentage => wl.mul_add(5000.0, 5000.0),
        ScoreType::Q => q * 10000.0,
        ScoreType::WinMinusLoss => wl * 10000.0,
        ScoreType::WdlMu => {
            let fallback = tan_score(45.0, 1.567_280_716_28, wl);
            let use_mu =
                has_wdl && mu != 0.0 && wl.abs() + d < 0.996 && (mu.abs() < 1.0 || fallback.abs() < (100.0 * mu).abs());
            if use_mu {
                100.0 * mu
            } else {
                fallback
            }
        }
    };
    ShownValue { score: score as i32, wl, d }
}

/// lc0's display transform of a (WL, D) pair, and μ: the logistic WDL model fitted with FastLog and evaluated
/// back with FastLogistic (lc0's `WDLRescale` inverted, without contempt, where the sharpness cap has no
/// effect). It reproduces the input up to those approximations; outside W, D, L ∈ (0.0001, 0.9999) the pair is
/// kept and μ is 0.
pub fn wdl_display(wl: f32, d: f32) -> (f32, f32, f32) {
    SearchContempt::default().display(wl, d)
}

/// μ of lc0's logistic WDL model (0 when W, D or L is outside (0.0001, 0.9999)).
pub fn wdl_mu(wl: f32, d: f32) -> f32 {
    wdl_display(wl, d).2
}

/// lc0's default `WDL_mu` centipawn score of a (WL, D) pair.
pub fn wdl_mu_centipawns(wl: f32, d: f32, has_wdl: bool) -> i32 {
    shown_value(ScoreType::WdlMu, wl, d, wl, has_wdl, &SearchContempt::default()).score
}

/// Win, draw and loss in permille, rounded so they add up to 1000.
pub fn wdl_permille(wl: f32, d: f32) -> (u32, u32, u32) {
    let w = (500.0 * (1.0 + wl - d)).round().max(0.0) as i32;
    let l = (500.0 * (1.0 - wl - d)).round().max(0.0) as i32;
    let rest = 1000 - w - l;
    if rest < 0 {
        let w = (w + rest / 2).clamp(0, 1000);
        (w as u32, 0, (1000 - w) as u32)
    } else {
        (w as u32, rest as u32, l as u32)
    }
}

/// UCI `mate` of a proven child: ±trunc(round(M)/2 + 1) with the sign of its WL; lc0 adds 100 for a result
/// from the tablebases (a win, not a mate in that many moves), so a GUI still sorts it below a real mate.
pub fn mate_moves(wl: f32, m: f32, tablebase: bool) -> i32 {
    let moves = (m.round() / 2.0 + if tablebase { 101.0 } else { 1.0 }) as i32;
    if wl < 0.0 {
        -moves
    } else {
        moves
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wdl_permille_adds_up() {
        assert_eq!(wdl_permille(0.033732, 0.054669), (490, 54, 456));
        assert_eq!(wdl_permille(1.0, 0.0), (1000, 0, 0));
        assert_eq!(wdl_permille(0.0, 1.0), (0, 1000, 0));
    }

    #[test]
    fn mate_counts_moves_not_plies() {
        assert_eq!(mate_moves(1.0, 0.0, false), 1);
        assert_eq!(mate_moves(1.0, 2.0, false), 2);
        assert_eq!(mate_moves(-1.0, 3.0, false), -2);
        // lc0: copysign(round(M)/2 + 101, wl) for a tablebase result: M 7 rounds to 7, 3.5 + 101 = 104.5 → 104.
        assert_eq!(mate_moves(1.0, 7.0, true), 104);
        assert_eq!(mate_moves(-1.0, 0.0, true), -101);
    }

    #[test]
    fn a_ponder_line_is_the_engines_own_after_the_predicted_move() {
        let game = crate::position::GameState::from_uci(None, &["e2e4", "e7e5", "g1f3"]).unwrap();
        let (e4, e5, nf3) = (game.moves()[0], game.moves()[1], game.moves()[2]);
        let line = InfoLine {
            depth: 4,
            seldepth: 9,
            time_ms: 5,
            nodes: 80,
            score: Score::Cp(-35),
            wdl: (200, 500, 300),
            moves_left: None,
            hashfull: None,
            nps: None,
            eps: None,
            tb_hits: 0,
            multipv: None,
            pv: vec![e4, e5, nf3],
        };
        // lc0's UciPonderForwarder: score and W/D/L from the other side, depth and seldepth one less, the PV
        // after the predicted move.
        let shown = line.clone().as_ponder_line(&e4);
        assert_eq!((shown.score, shown.wdl, shown.depth, shown.seldepth), (Score::Cp(35), (300, 500, 200), 3, 8));
        assert_eq!(shown.pv, vec![e5, nf3]);
        assert_eq!(InfoLine { score: Score::Mate(-2), ..line.clone() }.as_ponder_line(&e4).score, Score::Mate(2));
        let elsewhere = line.clone().as_ponder_line(&e5);
        assert!(elsewhere.pv.is_empty(), "a line that does not start with the predicted move shows no PV");
        let shallow = InfoLine { depth: 1, seldepth: 1, ..line }.as_ponder_line(&e4);
        assert_eq!((shallow.depth, shallow.seldepth), (1, 1), "lc0 lowers only what is above 1");
    }

    #[test]
    fn info_line_has_lc0s_field_order() {
        let mut line = InfoLine {
            depth: 3,
            seldepth: 7,
            time_ms: 12,
            nodes: 100,
            score: Score::Cp(62),
            wdl: (490, 55, 455),
            moves_left: Some(41),
            hashfull: None,
            nps: Some(8333),
            eps: Some(7000),
            tb_hits: 0,
            multipv: None,
            pv: {
                let game =
                    crate::position::GameState::from_uci(None, &["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"])
                        .unwrap();
                let castle =
                    shakmaty::Position::legal_moves(game.position()).into_iter().find(|mv| mv.is_castle()).unwrap();
                vec![game.moves()[0], game.moves()[1], castle]
            },
        };
        let all = InfoFields { wdl: true, moves_left: true, eps: true, chess960: false };
        assert_eq!(line.to_uci(all), "info depth 3 seldepth 7 time 12 nodes 100 score cp 62 wdl 490 55 455 movesleft 41 nps 8333 eps 7000 tbhits 0 pv e2e4 e7e5 e1g1");
        assert_eq!(
            line.to_uci(InfoFields::default()),
            "info depth 3 seldepth 7 time 12 nodes 100 score cp 62 nps 8333 tbhits 0 pv e2e4 e7e5 e1g1"
        );
        let chess960 = InfoFields { chess960: true, ..InfoFields::default() };
        assert!(line.to_uci(chess960).ends_with(" pv e2e4 e7e5 e1h1"), "UCI_Chess960 writes king takes rook");
        line.hashfull = Some(17);
        line.multipv = Some(2);
        line.moves_left = None;
        line.score = Score::Mate(-3);
        line.tb_hits = 21;
        assert_eq!(line.to_uci(all), "info depth 3 seldepth 7 time 12 nodes 100 score mate -3 wdl 490 55 455 hashfull 17 nps 8333 eps 7000 tbhits 21 multipv 2 pv e2e4 e7e5 e1g1");
    }

    #[test]
    fn display_transform_reproduces_lc0s_verbose_output_for_the_start_position() {
        // docs/lc0/search.md §4.11: Maia-1900's raw (WL, D) = (0.033732, 0.054669) at the start position is shown by
        // lc0 as (0.03279, 0.052); μ is the value behind its `score cp 62`.
        let (wl, d, mu) = wdl_display(0.033732, 0.054669);
        assert!((wl - 0.03279).abs() < 5e-6, "{wl}");
        assert!((d - 0.052).abs() < 5e-4, "{d}");
        assert!((mu - 0.626_588).abs() < 1e-6, "{mu}");
        assert_eq!(wdl_display(1.0, 0.0), (1.0, 0.0, 0.0), "a proven win is outside the model");
    }

    #[test]
    fn score_types_by_hand() {
        let shown = |score_type, wl| shown_value(score_type, wl, 0.2, wl, true, &SearchContempt::default()).score;
        // 90·tan(1.5637541897·0.5) = 90·tan(0.78187709485) = 89.368…
        assert_eq!(shown(ScoreType::Centipawn, 0.5), 89);
        assert_eq!(shown(ScoreType::CentipawnWithDrawScore, -0.5), -89);
        // 295·0.5 / (1 − 0.976953126·0.5¹⁴) = 147.5 / 0.99994037… = 147.5088
        assert_eq!(shown(ScoreType::Centipawn2019, 0.5), 147);
        // 290.680623072·tan(1.548090806·0.5) = 290.680623072·tan(0.774045403) = 284.154…
        assert_eq!(shown(ScoreType::Centipawn2018, 0.5), 284);
        assert_eq!(shown(ScoreType::WinPercentage, 0.25), 6250);
        assert_eq!(shown(ScoreType::Q, -0.25), -2500);
        assert_eq!(shown(ScoreType::WinMinusLoss, 0.125), 1250);
        let raw = shown_value(ScoreType::Q, 0.033732, 0.054669, 0.033732, true, &SearchContempt::default());
        assert_eq!((raw.wl, raw.d), (0.033732, 0.054669), "only WDL_mu transforms the shown W/D/L");
    }

    #[test]
    fn score_type_names_round_trip() {
        for (name, score_type) in ScoreType::NAMES.iter().zip(ScoreType::ALL) {
            assert_eq!(ScoreType::from_name(name), Some(score_type));
            assert_eq!(ScoreType::from_name(&name.to_lowercase()), Some(score_type));
        }
        assert_eq!(ScoreType::from_name("cp"), None);
        assert_eq!(ScoreType::default(), ScoreType::WdlMu);
    }
}
