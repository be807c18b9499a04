//! `kairos tm-predict`: a trained CTM-Net's ρ̂ (the share of the remaining clock to spend) for given positions,
//! as the thesis's Table 1 lists them for ERET positions, or an instability model's ŷ (`kairos tm-label`).

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use shakmaty::{Board, Color};
use timemgr::ctm::TargetKind;

use super::dataset::Dataset;
use super::features::encode;
use super::model::CtmModel;
use super::samples::Sample;

/// Arguments of `kairos tm-predict`.
#[derive(Args, Debug, Clone)]
pub struct TmPredictArgs {
    /// A model written by `kairos tm-train`.
    #[arg(long)]
    pub model: PathBuf,
    /// An EPD or FEN file, one position per line (only the board and the side to move are read).
    #[arg(long)]
    pub epd: Option<PathBuf>,
    /// Positions as FEN or EPD strings (board and side to move at least), after those of --epd.
    pub positions: Vec<String>,
}

/// One position to predict: its board, the side to move (the player whose time is predicted) and a label.
#[derive(Clone, Debug, PartialEq)]
pub struct Position {
    /// The pieces.
    pub board: Board,
    /// Who is to move.
    pub turn: Color,
    /// The EPD `id` when there is one, else the board field.
    pub label: String,
}

/// Reads the board and side to move of a FEN or EPD line; `None` for an empty or comment line.
pub fn parse_position(line: &str) -> Result<Option<Position>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let mut fields = line.split_whitespace();
    let placement = fields.next().unwrap_or_default();
    let board: Board = placement.parse().map_err(|e| format!("board '{placement}': {e}"))?;
    let turn = match fields.next() {
        Some("w") => Color::White,
        Some("b") => Color::Black,
        other => return Err(format!("side to move {other:?}: expected w or b after the board")),
    };
    let label = line
        .split_once(" id ")
        .map(|(_, id)| id.trim().trim_end_matches(';').trim_matches('"').to_string())
        .unwrap_or_else(|| placement.to_string());
    Ok(Some(Position { board, turn, label }))
}

/// Runs `kairos tm-predict`: one line per position, ρ̂ then the label.
pub fn run_tm_predict(args: TmPredictArgs) -> anyhow::Result<()> {
    let model = CtmModel::load(&args.model)?;
    let mut positions = Vec::new();
    if let Some(path) = &args.epd {
        positions.extend(read_positions(path)?);
    }
    for (i, text) in args.positions.iter().enumerate() {
        let position = parse_position(text)
            .map_err(|e| anyhow::anyhow!("position {} on the command line: {e}", i + 1))?
            .with_context(|| format!("position {} on the command line is empty", i + 1))?;
        positions.push(position);
    }
    if positions.is_empty() {
        anyhow::bail!("no positions: give FEN strings or --epd FILE");
    }
    let samples: Vec<Sample> =
        positions.iter().map(|p| Sample { features: encode(&p.board, p.turn), rho: 0.0, game: 0 }).collect();
    let rows: Vec<usize> = (0..samples.len()).collect();
    let predictions = model.predict(&Dataset::from_samples(&samples, TargetKind::ShareOfClock), &rows);
    let predicted = match model.target_kind {
        TargetKind::ShareOfClock => "predicted share of the remaining time",
        TargetKind::Instability => "predicted decision instability (ctm maps it to base-share*y/mean)",
    };
    println!("{} ({}): {predicted}", args.model.display(), model.arch.name());
    for (position, rho) in positions.iter().zip(predictions) {
        println!("{rho:.4}  {}", position.label);
    }
    Ok(())
}

fn read_positions(path: &Path) -> anyhow::Result<Vec<Position>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut positions = Vec::new();
    for (number, line) in text.lines().enumerate() {
        match parse_position(line) {
            Ok(Some(position)) => positions.push(position),
            Ok(None) => {}
            Err(e) => anyhow::bail!("{}, line {}: {e}", path.display(), number + 1),
        }
    }
    Ok(positions)
}

#[cfg(test)]
mod tests {
    use super::parse_position;
    use shakmaty::Color;

    #[test]
    fn epd_lines_give_board_side_and_id() {
        let line = r#"r1n2N1k/2n2K1p/3pp3/5Pp1/b5R1/8/1PPP4/8 w - - bm Ng6; id "ERET 002 - Zugzwang";"#;
        let position = parse_position(line).unwrap().unwrap();
        assert_eq!(position.turn, Color::White);
        assert_eq!(position.label, "ERET 002 - Zugzwang");
        assert_eq!(position.board.occupied().count(), 16);
    }

    #[test]
    fn the_thesis_two_field_fen_is_accepted_and_bad_ones_say_why() {
        let position = parse_position("r2r2k1/1p1n1pp1/4pnp1/8/PpBRqP2/1Q2B1P1/1P5P/R5K1 b").unwrap().unwrap();
        assert_eq!(position.turn, Color::Black);
        assert_eq!(parse_position("  ").unwrap(), None);
        assert!(parse_position("5b2/p2k1p2/P3pP1p/n2pP1p/1p1P2P1/1P1KBN2/7P/8 w").unwrap_err().contains("board"));
        assert!(parse_position("8/8/8/8/8/8/8/K6k x").unwrap_err().contains("side to move"));
    }
}
