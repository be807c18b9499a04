//! `kairos tm-label`: a CTM dataset whose target needs no human clocks (issue #11 item 5). Each position is
//! searched by Kairos to N visits and on to factor·N in the same tree ([`engine::decision`]); the label is
//! how much the extra search changed the decision ([`super::instability`]). The file is tm-data's format with
//! `target_kind` = `instability`, so `kairos tm-train` trains on it unchanged.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;
use engine::decision::DecisionProbe;
use engine::options::{Choice, EngineOptions};
use engine::position::GameState;
use indicatif::{ProgressBar, ProgressStyle};
use shakmaty::Position;
use timemgr::ctm::TargetKind;

use super::dataset::Dataset;
use super::features::encode;
use super::instability::{instability, LabelRule};
use super::positions::{candidates, read_inputs, Candidate, Line};
use super::samples::Sample;
use super::CtmError;

/// Arguments of `kairos tm-label`.
#[derive(Args, Debug, Clone)]
pub struct TmLabelArgs {
    /// Files of positions: PGN games (extension .pgn; every position of every game) or EPD/FEN lines.
    #[arg(long, required = true, num_args = 1..)]
    pub positions: Vec<PathBuf>,
    /// The dataset file to write (tm-data's format, target_kind = instability).
    #[arg(long)]
    pub out: PathBuf,
    /// N: the visits of the first search.
    #[arg(long, default_value_t = 100)]
    pub nodes: u64,
    /// The second search goes on to factor·N visits in the same tree.
    #[arg(long, default_value_t = 8)]
    pub factor: u64,
    /// Label a seeded sample of this many positions instead of all of them.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Seeds the sample of --limit.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// blend: 1 if the best move changed, else |Q(factor·N) − Q(N)| / q-scale capped at 1; flip: 1 or 0.
    #[arg(long, value_enum, default_value = "blend")]
    pub label: LabelRule,
    /// The Q shift that counts as much as a changed move (blend).
    #[arg(long, default_value_t = 0.2)]
    pub q_scale: f64,
    /// The Lc0 network (default: the installed Maia-1900, found as the engine finds it).
    #[arg(long)]
    pub weights: Option<String>,
    /// The network backend: torch, or uniform/random (no network; for tests).
    #[arg(long, default_value = EngineOptions::default().backend.name())]
    pub backend: String,
}

/// The search settings of a labelling run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LabelSettings {
    /// N.
    pub nodes: u64,
    /// The second search's visits are factor·N.
    pub factor: u64,
    /// How a decision change becomes a label.
    pub rule: LabelRule,
    /// The |ΔQ| that counts as a changed move.
    pub q_scale: f64,
}

impl LabelSettings {
    /// Checks the ranges, naming the flag to change.
    pub fn check(&self) -> Result<(), CtmError> {
        if self.nodes == 0 {
            return Err(CtmError::Invalid("--nodes 0: the first search needs at least 1 visit".into()));
        }
        if self.factor < 2 {
            let reason = format!("--factor {}: the second search must search more; use 2 or more", self.factor);
            return Err(CtmError::Invalid(reason));
        }
        if !(self.q_scale > 0.0 && self.q_scale.is_finite()) {
            return Err(CtmError::Invalid(format!("--q-scale {}: give a positive number such as 0.2", self.q_scale)));
        }
        Ok(())
    }
}

/// One labelled position.
#[derive(Clone, Debug, PartialEq)]
pub struct Labelled {
    /// Features from the side to move's view, the label as the target, the game id.
    pub sample: Sample,
    /// Whether the best move at factor·N differs from the one at N (false when not searched).
    pub best_move_changed: bool,
    /// Whether it was searched (a position with one legal move is labelled 0 without a search).
    pub searched: bool,
    /// The root's visits when each search stopped (a batch in flight lands after the limit); 0 if not searched.
    pub visits: (u64, u64),
}

/// The game state of a candidate: the line's start and the moves before it, so the search sees the history.
fn game_state(line: &Line, ply: usize) -> GameState {
    let mut game = GameState::new(line.start.clone());
    for mv in &line.moves[..ply] {
        game.play(*mv);
    }
    game
}

/// Labels one position of a line.
pub fn label_position(
    probe: &mut DecisionProbe,
    line: &Line,
    ply: usize,
    settings: &LabelSettings,
) -> Result<Labelled, CtmError> {
    let game = game_state(line, ply);
    let position = game.position();
    let features = encode(position.board(), position.turn());
    let sample = Sample { features, rho: 0.0, game: line.game };
    if position.legal_moves().len() == 1 {
        return Ok(Labelled { sample, best_move_changed: false, searched: false, visits: (0, 0) });
    }
    let change = probe
        .probe(&game, settings.nodes, settings.factor)
        .map_err(|e| CtmError::Invalid(format!("search of game {} at ply {ply}: {e:#}", line.game)))?
        .ok_or_else(|| CtmError::Invalid(format!("game {} at ply {ply} has no legal move to label", line.game)))?;
    Ok(Labelled {
        sample: Sample { rho: instability(&change, settings.rule, settings.q_scale), ..sample },
        best_move_changed: change.best_move_changed(),
        searched: true,
        visits: (change.early.visits, change.late.visits),
    })
}

/// Labels the candidates in order; `on_each` sees every result as it comes.
pub fn label_candidates(
    probe: &mut DecisionProbe,
    lines: &[Line],
    chosen: &[Candidate],
    settings: &LabelSettings,
    mut on_each: impl FnMut(&Labelled),
) -> Result<Vec<Labelled>, CtmError> {
    settings.check()?;
    let mut labelled = Vec::with_capacity(chosen.len());
    for candidate in chosen {
        let result = label_position(probe, &lines[candidate.line], candidate.ply, settings)?;
        on_each(&result);
        labelled.push(result);
    }
    Ok(labelled)
}

/// The summary lines: positions, how many were forced, the share with a changed move, the mean label, speed.
pub fn format_summary(labelled: &[Labelled], elapsed: Duration) -> String {
    let searched = labelled.iter().filter(|l| l.searched).count();
    let changed = labelled.iter().filter(|l| l.best_move_changed).count();
    let mean = labelled.iter().map(|l| f64::from(l.sample.rho)).sum::<f64>() / labelled.len().max(1) as f64;
    let unstable = labelled.iter().filter(|l| l.sample.rho > 0.0).count();
    let mean_visits = |stage: fn(&Labelled) -> u64| {
        labelled.iter().filter(|l| l.searched).map(|l| stage(l) as f64).sum::<f64>() / searched.max(1) as f64
    };
    format!(
        "{} positions ({} searched, {} with one legal move labelled 0)\n\
         root visits at the stops: mean {:.1} and {:.1}\n\
         best move changed: {changed} ({:.1} % of those searched)\n\
         label: mean {mean:.4}, above 0 in {unstable} ({:.1} %)\n\
         {:.1} s in all, {:.3} s per searched position\n",
        labelled.len(),
        searched,
        labelled.len() - searched,
        mean_visits(|l| l.visits.0),
        mean_visits(|l| l.visits.1),
        100.0 * changed as f64 / searched.max(1) as f64,
        100.0 * unstable as f64 / labelled.len().max(1) as f64,
        elapsed.as_secs_f64(),
        elapsed.as_secs_f64() / searched.max(1) as f64,
    )
}

/// Runs `kairos tm-label`: reads the positions, labels them with a progress bar, prints a summary, writes the
/// dataset.
pub fn run_tm_label(args: TmLabelArgs) -> anyhow::Result<()> {
    let settings = LabelSettings { nodes: args.nodes, factor: args.factor, rule: args.label, q_scale: args.q_scale };
    settings.check()?;
    if args.limit == Some(0) {
        anyhow::bail!("--limit 0 labels nothing; give a positive number of positions or leave --limit out for all");
    }
    let inputs = read_inputs(&args.positions)?;
    if inputs.skipped_games > 0 {
        let skipped = inputs.skipped_games;
        println!("{skipped} PGN games left out (malformed clock comments, a bad FEN header or an illegal move)");
    }
    let chosen = candidates(&inputs.lines, args.limit, args.seed);
    if chosen.is_empty() {
        let files = args.positions.len();
        anyhow::bail!("no position with a legal move in {files} file(s); give PGN games or EPD positions");
    }
    let games = chosen.iter().map(|c| c.line).collect::<std::collections::BTreeSet<_>>().len();
    println!(
        "labelling {} positions of {games} games or EPD lines: best move and Q at {} and {} visits, label {}",
        chosen.len(),
        settings.nodes,
        settings.nodes.saturating_mul(settings.factor),
        settings.rule.name()
    );
    let mut options = EngineOptions::default();
    if let Some(weights) = &args.weights {
        options.set("WeightsFile", weights)?;
    }
    options.set("Backend", &args.backend)?;
    let mut probe = DecisionProbe::open(&options)?;
    let bar = ProgressBar::new(chosen.len() as u64);
    let template = "{bar:30} {pos}/{len} positions {elapsed_precise} eta {eta} {msg}";
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    let started = Instant::now();
    let (mut changed, mut total) = (0u64, 0.0f64);
    let labelled = label_candidates(&mut probe, &inputs.lines, &chosen, &settings, |l| {
        changed += u64::from(l.best_move_changed);
        total += f64::from(l.sample.rho);
        bar.inc(1);
        bar.set_message(format!("changed {changed}, mean label {:.3}", total / bar.position() as f64));
    })?;
    bar.finish_and_clear();
    print!("{}", format_summary(&labelled, started.elapsed()));
    let samples: Vec<Sample> = labelled.into_iter().map(|l| l.sample).collect();
    let weights = options.resolve_weights_path();
    let weights = weights.map_or_else(|_| options.weights_file.clone(), |path| path.display().to_string());
    let sources: Vec<String> = args.positions.iter().map(|p| p.display().to_string()).collect();
    let metadata = HashMap::from([
        ("sources".to_string(), sources.join(",")),
        ("nodes".to_string(), settings.nodes.to_string()),
        ("factor".to_string(), settings.factor.to_string()),
        ("label".to_string(), settings.rule.name().to_string()),
        ("q_scale".to_string(), settings.q_scale.to_string()),
        ("limit".to_string(), args.limit.map_or_else(|| "all".to_string(), |l| l.to_string())),
        ("seed".to_string(), args.seed.to_string()),
        ("weights".to_string(), weights),
        ("backend".to_string(), options.backend.name().to_string()),
    ]);
    Dataset::from_samples(&samples, TargetKind::Instability).save(&args.out, metadata)?;
    println!("wrote {} samples to {}", samples.len(), args.out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labelled(label: f32, best_move_changed: bool, visits: (u64, u64)) -> Labelled {
        let sample = Sample { features: [0; crate::ctm::features::FEATURES], rho: label, game: 0 };
        Labelled { sample, best_move_changed, searched: visits.0 > 0, visits }
    }

    #[test]
    fn the_summary_counts_forced_changed_and_the_mean_label() {
        let all = [labelled(0.0, false, (0, 0)), labelled(1.0, true, (60, 420)), labelled(0.25, false, (50, 400))];
        let summary = format_summary(&all, Duration::from_secs(1));
        for line in [
            "3 positions (2 searched, 1 with one legal move labelled 0)",
            "root visits at the stops: mean 55.0 and 410.0",
            "best move changed: 1 (50.0 % of those searched)",
            "label: mean 0.4167, above 0 in 2 (66.7 %)",
            "1.0 s in all, 0.500 s per searched position",
        ] {
            assert!(summary.contains(line), "{line} missing from:\n{summary}");
        }
    }

    #[test]
    fn settings_out_of_range_name_the_flag() {
        let good = LabelSettings { nodes: 100, factor: 8, rule: LabelRule::Blend, q_scale: 0.2 };
        assert!(good.check().is_ok());
        for (bad, flag) in [
            (LabelSettings { nodes: 0, ..good }, "--nodes 0"),
            (LabelSettings { factor: 1, ..good }, "--factor 1"),
            (LabelSettings { q_scale: 0.0, ..good }, "--q-scale 0"),
        ] {
            let error = bad.check().unwrap_err().to_string();
            assert!(error.contains(flag), "{error}");
        }
    }
}
