//! UCI `info` lines and verbose move statistics (LC0-NOTES §4.10).

use super::fastmath::fast_log;

/// The score of an `info` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns from the side to move's view.
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
    /// The score of the best move.
    pub score: Score,
    /// Win, draw and loss in permille.
    pub wdl: (u32, u32, u32),
    /// Playouts per second since the first batch; None until that time is positive.
    pub nps: Option<u64>,
    /// Tree memory in permille of the RAM limit (0 without a limit).
    pub hashfull: u32,
    /// The principal variation in standard UCI notation.
    pub pv: Vec<String>,
}

impl InfoLine {
    /// The line as UCI prints it; `show_wdl` adds the `wdl` field (UCI_ShowWDL).
    pub fn to_uci(&self, show_wdl: bool) -> String {
        let mut line = format!(
            "info depth {} seldepth {} time {} nodes {} score ",
            self.depth, self.seldepth, self.time_ms, self.nodes
        );
        match self.score {
            Score::Cp(cp) => line.push_str(&format!("cp {cp}")),
            Score::Mate(moves) => line.push_str(&format!("mate {moves}")),
        }
        if show_wdl {
            line.push_str(&format!(
                " wdl {} {} {}",
                self.wdl.0, self.wdl.1, self.wdl.2
            ));
        }
        if let Some(nps) = self.nps {
            line.push_str(&format!(" nps {nps}"));
        }
        line.push_str(&format!(" hashfull {}", self.hashfull));
        if !self.pv.is_empty() {
            line.push_str(" pv ");
            line.push_str(&self.pv.join(" "));
        }
        line
    }
}

/// μ of lc0's logistic WDL model (0 when W, D or L is outside (0.0001, 0.9999)).
pub fn wdl_mu(wl: f32, d: f32) -> f32 {
    let w = (1.0 + wl - d) / 2.0;
    let l = (1.0 - wl - d) / 2.0;
    let inside = |x: f32| x > 0.0001 && x < 0.9999;
    if !(inside(w) && inside(d) && inside(l)) {
        return 0.0;
    }
    let a = fast_log(1.0 / l - 1.0);
    let b = fast_log(1.0 / w - 1.0);
    (a - b) / (a + b)
}

/// lc0's default `WDL_mu` centipawn score of a (WL, D) pair.
pub fn wdl_mu_centipawns(wl: f32, d: f32, has_wdl: bool) -> i32 {
    let mu = wdl_mu(wl, d);
    let fallback = 45.0 * (1.567_280_7_f32 * wl).tan();
    if has_wdl
        && mu != 0.0
        && wl.abs() + d < 0.996
        && (mu.abs() < 1.0 || fallback.abs() < (100.0 * mu).abs())
    {
        (100.0 * mu) as i32
    } else {
        fallback as i32
    }
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

/// UCI `mate` of a proven child: ±trunc(round(M)/2 + 1) with the sign of its WL.
pub fn mate_moves(wl: f32, m: f32) -> i32 {
    let moves = (m.round() / 2.0 + 1.0) as i32;
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
        assert_eq!(mate_moves(1.0, 0.0), 1);
        assert_eq!(mate_moves(1.0, 2.0), 2);
        assert_eq!(mate_moves(-1.0, 3.0), -2);
    }

    #[test]
    fn info_line_field_order() {
        let line = InfoLine {
            depth: 3,
            seldepth: 7,
            time_ms: 12,
            nodes: 100,
            score: Score::Cp(62),
            wdl: (490, 55, 455),
            nps: Some(8333),
            hashfull: 0,
            pv: vec!["e2e4".into(), "e7e5".into()],
        };
        assert_eq!(line.to_uci(true), "info depth 3 seldepth 7 time 12 nodes 100 score cp 62 wdl 490 55 455 nps 8333 hashfull 0 pv e2e4 e7e5");
        assert_eq!(line.to_uci(false), "info depth 3 seldepth 7 time 12 nodes 100 score cp 62 nps 8333 hashfull 0 pv e2e4 e7e5");
    }
}
