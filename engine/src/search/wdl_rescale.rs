//! lc0's WDL rescaling (`WDLRescale` in src/search/classic/search.cc 223–259) and its parameters from the
//! contempt options (`GetContempt`, `AccurateWDLRescaleParams`, `SimplifiedWDLRescaleParams` in
//! src/search/classic/params.cc 57–175): a network's (W, D, L) is read as a logistic distribution of the game's
//! outcome with centre μ and width s, made sharper or softer (ratio) and moved towards one side (diff, from an
//! Elo advantage) before the search uses it; the display inverts it.

use super::fastmath::{fast_log, fast_log2, fast_logistic};
use shakmaty::Color;

/// How the search reshapes every evaluation: the width ratio and the centre shift from the contempt options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RescaleParams {
    /// New width over old (1: unchanged): from `WDLDrawRateTarget` or `WDLCalibrationElo`.
    pub ratio: f32,
    /// The centre's shift per s² (0: none): from `Contempt`/`UCI_RatingAdv`.
    pub diff: f32,
}

/// lc0's `WDLRescale` of a (WL, D) pair from the view of the player it belongs to; `sign` is +1 when that player
/// is the one contempt favours, −1 otherwise; `invert` undoes the transform (the display). Returns the new
/// (WL, D) and the new μ; outside W, D, L ∈ (0.0001, 0.9999) the pair is kept and μ is 0.
pub fn wdl_rescale(v: f32, d: f32, params: RescaleParams, sign: f32, invert: bool, max_s: f32) -> (f32, f32, f32) {
    let (ratio, diff) = if invert { (1.0 / params.ratio, -params.diff) } else { (params.ratio, params.diff) };
    let w = (1.0 + v - d) / 2.0;
    let l = (1.0 - v - d) / 2.0;
    let eps = 0.0001f32;
    let inside = |x: f32| x > eps && x < 1.0 - eps;
    if !(inside(w) && inside(d) && inside(l)) {
        return (v, d, 0.0);
    }
    // a = ln2·log2(1/l − 1) and b likewise; lc0's build fuses a's product into a + b and a − b (docs/lc0/search.md
    // §4.15).
    let a_log2 = fast_log2(1.0 / l - 1.0);
    let b = fast_log(1.0 / w - 1.0);
    let sum = std::f32::consts::LN_2.mul_add(a_log2, b);
    let mut s = 2.0 / sum;
    if !invert {
        s = s.min(max_s);
    }
    let mu = std::f32::consts::LN_2.mul_add(a_log2, -b) / sum;
    let mut s_new = s * ratio;
    if invert {
        std::mem::swap(&mut s, &mut s_new);
        s = s.min(max_s);
    }
    let mu_new = (sign * s * s).mul_add(diff, mu);
    let w_new = fast_logistic((-1.0 + mu_new) / s_new);
    let l_new = fast_logistic((-1.0 - mu_new) / s_new);
    (w_new - l_new, (1.0 - w_new - l_new).max(0.0), mu_new)
}

/// Why a `Contempt` list cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("contempt entry '{0}' is not a number or name=number (e.g. 50 or stockfish=100,lc0=-20)")]
pub struct BadContempt(pub String);

/// lc0's `GetContempt`: `UCI_RatingAdv`, replaced by a plain number in `Contempt`, or by the first
/// `name=value` entry whose name occurs (case-insensitively) in `UCI_Opponent`; every entry must be well formed.
pub fn contempt(opponent: &str, contempt: &str, rating_advantage: f32) -> Result<f32, BadContempt> {
    let mut value = rating_advantage;
    let opponent = opponent.to_ascii_lowercase();
    for entry in contempt.split(',').filter(|entry| !entry.is_empty()) {
        let number = |text: &str| text.trim().parse::<f32>().map_err(|_| BadContempt(entry.to_string()));
        match entry.split('=').collect::<Vec<_>>()[..] {
            [plain] => value = number(plain)?,
            [name, given] => {
                // Checked even when the name does not match (lc0 would only fail once it did).
                let given = number(given)?;
                if opponent.contains(&name.to_ascii_lowercase()) {
                    value = given;
                    break;
                }
            }
            _ => return Err(BadContempt(entry.to_string())),
        }
    }
    Ok(value)
}

/// lc0's `AccurateWDLRescaleParams` (without `WDLCalibrationElo`): the width from the target draw rate
/// relative to the network's, the shift from the contempt clamped to ±`contempt_max`.
pub fn accurate_params(
    contempt: f32,
    draw_rate_target: f32,
    draw_rate_reference: f32,
    book_exit_bias: f32,
    contempt_max: f32,
    attenuation: f32,
) -> RescaleParams {
    let draw_rate_target = if draw_rate_target > 0.0 && draw_rate_target < 0.001 { 0.001 } else { draw_rate_target };
    let scale = |rate: f32| 1.0 / ((1.0 + rate) / (1.0 - rate)).ln();
    let scale_reference = scale(draw_rate_reference);
    let scale_target = if draw_rate_target == 0.0 { scale_reference } else { scale(draw_rate_target) };
    let ratio = scale_target / scale_reference;
    // std::pow(std::cosh(x), 2) and std::log(10) are double in lc0, so the rest of the product is too.
    let sech2 = |x: f32| 1.0 / f64::from(x.cosh()).powi(2);
    let spread =
        sech2(0.5 * (1.0 - book_exit_bias) / scale_target) + sech2(0.5 * (1.0 + book_exit_bias) / scale_target);
    let diff = f64::from(scale_target / (scale_reference * scale_reference)) / spread * 10f64.ln() / 200.0
        * f64::from(contempt.clamp(-contempt_max, contempt_max))
        * f64::from(attenuation);
    let diff = diff as f32;
    RescaleParams { ratio, diff }
}

/// lc0's `SimplifiedWDLRescaleParams` (with `WDLCalibrationElo`): width and shift from both sides' Elo.
pub fn simplified_params(
    contempt: f32,
    draw_rate_reference: f32,
    elo_active: f32,
    contempt_max: f32,
    attenuation: f32,
) -> RescaleParams {
    const SCALE_ZERO: f32 = 15.0;
    const ELO_SLOPE: f32 = 425.0;
    const OFFSET: f32 = 6.75;
    let scale_reference = 1.0 / ((1.0 + draw_rate_reference) / (1.0 - draw_rate_reference)).ln();
    let elo_opponent = game_pair_elo(elo_active - contempt.clamp(-contempt_max, contempt_max));
    let elo_active = game_pair_elo(elo_active);
    let scale = |elo: f32| 1.0 / (1.0 / SCALE_ZERO + (elo / ELO_SLOPE - OFFSET).exp());
    let (scale_active, scale_opponent) = (scale(elo_active), scale(elo_opponent));
    let scale_target = (scale_active.mul_add(scale_active, scale_opponent * scale_opponent) / 2.0).sqrt();
    // In double from std::log(10) on, as lc0 computes it.
    let mu = |elo: f32| {
        (-10f64.ln() / 200.0
            * f64::from(SCALE_ZERO)
            * f64::from(ELO_SLOPE)
            * f64::from((1.0 + (-elo / ELO_SLOPE + OFFSET).exp() / SCALE_ZERO).ln())) as f32
    };
    let diff = 1.0 / (scale_reference * scale_reference) * (mu(elo_active) - mu(elo_opponent)) * attenuation;
    RescaleParams { ratio: scale_target / scale_reference, diff }
}

/// lc0's `ConvertRegularToGamePairElo`.
fn game_pair_elo(elo: f32) -> f32 {
    const SHARPNESS: f32 = 250.0;
    const MIDPOINT: f32 = 2737.0;
    (0.5 * SHARPNESS).mul_add((1.0 + ((MIDPOINT - elo) / SHARPNESS).exp()).ln(), elo)
}

/// `ContemptMode`: whose side the contempt favours.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ContemptMode {
    /// The side to move at the root of each search (off for `go infinite`, as lc0).
    #[default]
    Play,
    /// White, for analysis.
    WhiteSideAnalysis,
    /// Black, for analysis.
    BlackSideAnalysis,
    /// No contempt (the width ratio still applies).
    Disable,
}

impl ContemptMode {
    /// The option's values, as lc0 names them, in the order of [`ContemptMode::ALL`].
    pub const NAMES: &'static [&'static str] = &["play", "white_side_analysis", "black_side_analysis", "disable"];
    /// Every mode, in the order of [`ContemptMode::NAMES`].
    pub const ALL: [Self; 4] = [Self::Play, Self::WhiteSideAnalysis, Self::BlackSideAnalysis, Self::Disable];
}

/// One search's rescaling with lc0's perspective resolved (search.cc 178–197): which side contempt favours.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchContempt {
    params: RescaleParams,
    max_s: f32,
    objectivity: f32,
    /// The side contempt favours, if any.
    side: Option<Color>,
    /// Whether the side to move at the root is the favoured one (lc0's root_stm).
    root_is_favoured: bool,
}

impl SearchContempt {
    /// The rescaling of a search of a root with `root_turn` to move, from the search's contempt settings
    /// (`mode`, the rescaling, the cap of s and the evaluation's objectivity); `infinite` turns `play` off.
    pub fn new(
        mode: ContemptMode,
        rescale: RescaleParams,
        max_s: f32,
        objectivity: f32,
        root_turn: Color,
        infinite: bool,
    ) -> Self {
        let side = match mode {
            ContemptMode::Play if infinite => None,
            ContemptMode::Play => Some(root_turn),
            ContemptMode::WhiteSideAnalysis => Some(Color::White),
            ContemptMode::BlackSideAnalysis => Some(Color::Black),
            ContemptMode::Disable => None,
        };
        Self {
            params: rescale,
            max_s,
            objectivity,
            side,
            // lc0: (mode == BLACK) == root is black to move; without a side, mode NONE counts as not black.
            root_is_favoured: (side == Some(Color::Black)) == (root_turn == Color::Black),
        }
    }

    fn diff(&self) -> f32 {
        if self.side.is_some() {
            self.params.diff
        } else {
            0.0
        }
    }

    /// Whether evaluations are reshaped at all.
    pub fn reshapes_evaluations(&self) -> bool {
        self.params.ratio != 1.0 || self.diff() != 0.0
    }

    /// A new leaf's (WL, D), from the view of the player who moved into it, `plies` below the root.
    pub fn leaf(&self, v: f32, d: f32, plies: usize) -> (f32, f32) {
        // lc0 counts the root as depth 1; the leaf belongs to the favoured side when that parity says so.
        let odd_depth = (plies + 1) % 2 == 1;
        let sign = if self.root_is_favoured != odd_depth { 1.0 } else { -1.0 };
        let params = RescaleParams { ratio: self.params.ratio, diff: self.diff() };
        let (v, d, _) = wdl_rescale(v, d, params, sign, false, self.max_s);
        (v, d)
    }

    /// Whether `info` shows the objective (inverted) values whatever the score type (lc0: contempt is on).
    pub fn shows_objective_values(&self) -> bool {
        self.diff() != 0.0
    }

    /// A root move's (WL, D) as lc0 displays it, with μ: the rescaling inverted with `WDLEvalObjectivity`.
    pub fn display(&self, wl: f32, d: f32) -> (f32, f32, f32) {
        let sign = if self.root_is_favoured { 1.0 } else { -1.0 };
        let params = RescaleParams { ratio: self.params.ratio, diff: self.diff() * self.objectivity };
        wdl_rescale(wl, d, params, sign, true, self.max_s)
    }
}

impl Default for SearchContempt {
    /// No rescaling (the display still goes through lc0's transform).
    fn default() -> Self {
        Self {
            params: RescaleParams { ratio: 1.0, diff: 0.0 },
            max_s: 1.4,
            objectivity: 1.0,
            side: None,
            root_is_favoured: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f32, b: f64) -> bool {
        (f64::from(a) - b).abs() < 1e-5 * b.abs().max(1.0)
    }

    #[test]
    fn contempt_comes_from_the_rating_advantage_a_plain_number_or_the_opponents_entry() {
        let list = "lc0=-20,stockfish=100";
        assert_eq!(contempt("Stockfish 16 by the Stockfish developers", list, 30.0), Ok(100.0));
        assert_eq!(contempt("Leela", list, 30.0), Ok(30.0), "no name matches: UCI_RatingAdv");
        assert_eq!(contempt("anyone", "50", 30.0), Ok(50.0));
        assert_eq!(contempt("x engine", "50,x=70,x=90", 0.0), Ok(70.0), "the first matching name wins");
        assert_eq!(contempt("", "", -12.5), Ok(-12.5));
        assert!(contempt("", "fifty", 0.0).is_err());
        assert!(contempt("", "a=b=c", 0.0).is_err());
    }

    /// Hand-worked from lc0's formulas (params.cc 92–175) in double precision.
    #[test]
    fn rescaling_parameters_equal_the_hand_worked_values() {
        // No contempt, no target: nothing changes.
        assert_eq!(accurate_params(0.0, 0.0, 0.5, 0.65, 420.0, 1.0), RescaleParams { ratio: 1.0, diff: 0.0 });
        // s_ref = 1/ln 3; diff = (1/s_ref)/(sech²(0.175/s_ref) + sech²(0.825/s_ref)) · ln 10/200 · 100
        //      = 1.0986123/1.4464243 · 0.0115129 · 100 = 0.8744489.
        let with_contempt = accurate_params(100.0, 0.0, 0.5, 0.65, 420.0, 1.0);
        assert_eq!(with_contempt.ratio, 1.0);
        assert!(close(with_contempt.diff, 0.874_448_924), "{with_contempt:?}");
        // Contempt is capped at ContemptMaxValue: 1000 counts as 420.
        assert!(close(accurate_params(1000.0, 0.0, 0.5, 0.65, 420.0, 1.0).diff, 3.672_685_483));
        // Draw rate 0.6 against the reference 0.5: ratio ln 3 / ln 4 = 0.7924813.
        assert!(close(accurate_params(0.0, 0.6, 0.5, 0.65, 420.0, 1.0).ratio, 0.792_481_250));
        // WDLCalibrationElo 2000 against 1850 (contempt 150): both Elos to game-pair Elo, the widths and μ from
        // lc0's sigmoid fit: ratio 3.1349668, diff 3.0738354.
        let simplified = simplified_params(150.0, 0.5, 2000.0, 420.0, 1.0);
        assert!(close(simplified.ratio, 3.134_966_814) && close(simplified.diff, 3.073_835_414), "{simplified:?}");
    }

    #[test]
    fn rescaling_moves_the_centre_towards_the_favoured_side_and_the_display_undoes_it() {
        let params = RescaleParams { ratio: 1.0, diff: 0.874_448_9 };
        // W 0.3, D 0.5, L 0.2: s = 2/(ln 4 + ln 7/3) = 0.896, under the cap of 1.4.
        let (v, d, mu) = wdl_rescale(0.1, 0.5, params, 1.0, false, 1.4);
        assert!(v > 0.1 && mu > 0.0, "the favoured side looks better: {v} {mu}");
        let (v_against, _, _) = wdl_rescale(0.1, 0.5, params, -1.0, false, 1.4);
        assert!(v_against < 0.1, "{v_against}");
        let (back, d_back, _) = wdl_rescale(v, d, params, 1.0, true, 1.4);
        // Up to lc0's fast logarithm and logistic.
        assert!((back - 0.1).abs() < 5e-3 && (d_back - 0.5).abs() < 5e-3, "{back} {d_back}");
        // Outside (0.0001, 0.9999) nothing changes.
        assert_eq!(wdl_rescale(1.0, 0.0, params, 1.0, false, 1.4), (1.0, 0.0, 0.0));
    }
}
