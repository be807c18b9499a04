//! `kairos tm-data` and `kairos tm-train`.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use timemgr::ctm::{Architecture, TargetKind};

use super::clock_pgn::read_games;
use super::dataset::Dataset;
use super::samples::{extract, format_table, Ending, Filters, TimeControlFilter};
use super::train::{format_history, train, TrainConfig};

/// Arguments of `kairos tm-data`.
#[derive(Args, Debug, Clone)]
pub struct TmDataArgs {
    /// PGN files with a `[%clk h:mm:ss]` comment after every move (Lichess exports).
    #[arg(required = true)]
    pub pgn: Vec<PathBuf>,
    /// The dataset file to write (safetensors: features u8 N×769, target f32, game u32).
    #[arg(long)]
    pub out: PathBuf,
    /// How the game ended: checkmate (the thesis) or any decisive result.
    #[arg(long, value_enum, default_value = "checkmate")]
    pub ending: Ending,
    /// Both players rated at least this (0 also accepts unrated games).
    #[arg(long, default_value_t = 2000)]
    pub min_rating: u32,
    /// Time controls kept, BASE+INC in seconds, comma-separated, or `any`.
    #[arg(long, default_value = "60+0")]
    pub time_control: TimeControlFilter,
    /// Drop games where a ply took more than this share of the base time (`inf` keeps all).
    #[arg(long, default_value_t = 0.15)]
    pub max_ply_share: f64,
    /// Leave out games with malformed clock comments, a bad FEN or illegal moves instead of stopping.
    #[arg(long)]
    pub skip_bad_games: bool,
}

/// Runs `kairos tm-data`: reads the games, prints what each filter leaves, writes the dataset.
pub fn run_tm_data(args: TmDataArgs) -> anyhow::Result<()> {
    let mut games = Vec::new();
    let mut malformed = 0;
    for path in &args.pgn {
        let (read, skipped) = read_games(path, args.skip_bad_games)?;
        games.extend(read);
        malformed += skipped;
    }
    if games.len() > u32::MAX as usize {
        anyhow::bail!("{} games do not fit the u32 game ids; split the input", games.len());
    }
    let filters = Filters {
        ending: args.ending,
        min_rating: args.min_rating,
        time_control: args.time_control.clone(),
        max_ply_share: args.max_ply_share,
    };
    let (samples, rows) = extract(&games, &filters, args.skip_bad_games)?;
    if malformed > 0 {
        println!("{malformed} games with malformed clock comments left out (--skip-bad-games)");
    }
    print!("{}", format_table(&rows));
    if samples.is_empty() {
        anyhow::bail!(
            "no samples survive the filters; relax them, e.g. --min-rating 0 --time-control any --ending any --max-ply-share inf"
        );
    }
    let mut rho: Vec<f32> = samples.iter().map(|s| s.rho).collect();
    rho.sort_by(f32::total_cmp);
    let mean = rho.iter().map(|&r| f64::from(r)).sum::<f64>() / rho.len() as f64;
    println!("rho: mean {mean:.4}, median {:.4}, max {:.4}", rho[rho.len() / 2], rho[rho.len() - 1]);
    let sources: Vec<String> = args.pgn.iter().map(|p| p.display().to_string()).collect();
    let metadata = HashMap::from([
        ("sources".to_string(), sources.join(",")),
        ("ending".to_string(), format!("{:?}", filters.ending).to_lowercase()),
        ("min_rating".to_string(), filters.min_rating.to_string()),
        ("time_control".to_string(), filters.time_control.to_string()),
        ("max_ply_share".to_string(), filters.max_ply_share.to_string()),
    ]);
    Dataset::from_samples(&samples, TargetKind::ShareOfClock).save(&args.out, metadata)?;
    println!("wrote {} samples to {}", samples.len(), args.out.display());
    Ok(())
}

/// Arguments of `kairos tm-train`.
#[derive(Args, Debug, Clone)]
pub struct TmTrainArgs {
    /// The architecture: ctm-1.0 (MLP), ctm-2.0 (CNN) or ctm-2.1 (CNN with 3 residual blocks).
    #[arg(long, value_parser = parse_architecture)]
    pub arch: Architecture,
    /// A dataset written by `kairos tm-data` (target ρ) or `kairos tm-label` (target: decision instability).
    #[arg(long)]
    pub data: PathBuf,
    /// The model file to write (safetensors: weights and normalisation).
    #[arg(long)]
    pub out: PathBuf,
    /// The training curves (PNG); default: the model's path with extension .png.
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// The CNNs' convolution size: 3 (padding 1) or 5 (padding 2).
    #[arg(long, default_value_t = 3)]
    pub kernel: i64,
    /// Adam's learning rate.
    #[arg(long, default_value_t = 3e-4)]
    pub lr: f64,
    /// Samples per step.
    #[arg(long, default_value_t = 2048)]
    pub batch: usize,
    /// The most epochs.
    #[arg(long, default_value_t = 50)]
    pub max_epochs: usize,
    /// Early stopping: epochs without a better validation MSE before stopping.
    #[arg(long, default_value_t = 10)]
    pub patience: usize,
    /// Share of the games held out for validation.
    #[arg(long, default_value_t = 0.25)]
    pub validation: f64,
    /// Seeds the split, the initial weights, the batch order and dropout.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// libtorch threads; 1 makes runs reproducible bit for bit.
    #[arg(long, default_value_t = 1)]
    pub threads: i32,
}

/// Runs `kairos tm-train`: trains, prints the epoch table, writes the model and the PNG.
pub fn run_tm_train(args: TmTrainArgs) -> anyhow::Result<()> {
    if !(0.0..1.0).contains(&args.validation) || args.validation <= 0.0 {
        anyhow::bail!("--validation {} must be between 0 and 1", args.validation);
    }
    let data = Dataset::load(&args.data)?;
    let config = TrainConfig {
        arch: args.arch,
        kernel: args.kernel,
        learning_rate: args.lr,
        batch_size: args.batch,
        max_epochs: args.max_epochs,
        patience: args.patience,
        validation_fraction: args.validation,
        seed: args.seed,
        threads: args.threads,
        progress: true,
    };
    let kind = data.target_kind.name();
    println!("{}: {} samples from {} (target: {kind})", args.arch.name(), data.len(), args.data.display());
    let trained = train(&data, &config, |s| {
        println!(
            "epoch {:>3}: train MSE {:.4} R2 {:.4}, val MSE {:.4} R2 {:.4}",
            s.epoch, s.train_mse, s.train_r2, s.val_mse, s.val_r2
        )
    })?;
    let (train_games, val_games) = trained.games;
    let (train_samples, val_samples) = trained.samples;
    println!("train: {train_samples} samples of {train_games} games; validation: {val_samples} samples of {val_games} games\n");
    print!("{}", format_history(&trained.history, trained.best_epoch));
    let best = trained.history.iter().find(|s| s.epoch == trained.best_epoch).context("no epoch was trained")?;
    println!("best epoch {}: val MSE {:.4}, val R2 {:.4} (kept)", best.epoch, best.val_mse, best.val_r2);
    println!("baseline, the training mean {kind} everywhere: val R2 {:.4}", trained.mean_baseline_val_r2);
    let metadata = HashMap::from([
        ("data".to_string(), args.data.display().to_string()),
        ("seed".to_string(), args.seed.to_string()),
        ("best_epoch".to_string(), best.epoch.to_string()),
        ("val_r2".to_string(), format!("{:.6}", best.val_r2)),
    ]);
    trained.model.save(&args.out, metadata)?;
    let plot = args.plot.unwrap_or_else(|| args.out.with_extension("png"));
    let title = format!("{} on {}", args.arch.name(), args.data.display());
    super::plot::write_curves(&plot, &title, &trained.history)?;
    println!("wrote {} and {}", args.out.display(), plot.display());
    Ok(())
}

/// `--arch`'s value, or which names it takes.
fn parse_architecture(name: &str) -> Result<Architecture, String> {
    Architecture::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Architecture::ALL.iter().map(|arch| arch.name()).collect();
        format!("expected one of {}", names.join(", "))
    })
}
