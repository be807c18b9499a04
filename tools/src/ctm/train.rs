//! Training as in the thesis: z-scored inputs and target, Adam, MSE, batches of 2048, a validation split by
//! game, MSE and R² after every epoch, and early stopping that keeps the best epoch's weights.

use std::collections::BTreeSet;
use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressStyle};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tch::nn::{ModuleT, OptimizerConfig};
use tch::{Device, Kind, Reduction, Tensor};

use super::dataset::Dataset;
use timemgr::ctm::Architecture;

use super::model::{fit_normalisation, network_inputs, normalised_targets, CtmModel};
use super::CtmError;

/// The training settings; [`TrainConfig::thesis`] gives the thesis's.
#[derive(Clone, Debug)]
pub struct TrainConfig {
    /// Which net.
    pub arch: Architecture,
    /// The CNNs' convolution size, 3 or 5.
    pub kernel: i64,
    /// Adam's learning rate.
    pub learning_rate: f64,
    /// Samples per step.
    pub batch_size: usize,
    /// The most epochs.
    pub max_epochs: usize,
    /// Stop after this many epochs without a better validation MSE.
    pub patience: usize,
    /// Share of the games held out for validation.
    pub validation_fraction: f64,
    /// Seeds the split, the initial weights, the batch order and dropout.
    pub seed: u64,
    /// libtorch's intra-op threads (1 keeps runs bit-reproducible).
    pub threads: i32,
    /// Show a progress bar on stderr.
    pub progress: bool,
}

impl TrainConfig {
    /// The thesis's settings for `arch` (lr 3e-4, batch 2048, about 10 epochs of patience).
    pub fn thesis(arch: Architecture) -> Self {
        TrainConfig {
            arch,
            kernel: 3,
            learning_rate: 3e-4,
            batch_size: 2048,
            max_epochs: 50,
            patience: 10,
            validation_fraction: 0.25,
            seed: 1,
            threads: 1,
            progress: false,
        }
    }
}

/// One epoch's numbers; MSE is of the z-scored ρ (the loss), R² is the same in any units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochStats {
    /// 1-based epoch.
    pub epoch: usize,
    /// Training-set MSE, evaluated after the epoch without dropout.
    pub train_mse: f64,
    /// Validation-set MSE.
    pub val_mse: f64,
    /// Training-set R².
    pub train_r2: f64,
    /// Validation-set R².
    pub val_r2: f64,
}

/// A finished training run.
pub struct Trained {
    /// The model with the best epoch's weights.
    pub model: CtmModel,
    /// Every epoch's numbers.
    pub history: Vec<EpochStats>,
    /// The epoch whose weights were kept.
    pub best_epoch: usize,
    /// Training and validation samples.
    pub samples: (usize, usize),
    /// Training and validation games.
    pub games: (usize, usize),
    /// Validation R² of predicting the training mean ρ everywhere: below 0 when the two sets' means differ,
    /// so it, not 0, is what a net has to beat.
    pub mean_baseline_val_r2: f64,
}

/// Splits the sample indices into training and validation by game: a seeded shuffle of the distinct game
/// ids, the first `fraction` of them (at least one, and never all) held out.
pub fn split_by_game(games: &[u32], fraction: f64, seed: u64) -> Result<(Vec<usize>, Vec<usize>), CtmError> {
    let mut ids: Vec<u32> = games.iter().copied().collect::<BTreeSet<_>>().into_iter().collect();
    if ids.len() < 2 {
        return Err(CtmError::Invalid(format!(
            "the dataset has {} game(s); a split by game needs at least 2 (relax the tm-data filters)",
            ids.len()
        )));
    }
    ids.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let held = ((fraction * ids.len() as f64).round() as usize).clamp(1, ids.len() - 1);
    let validation: BTreeSet<u32> = ids[..held].iter().copied().collect();
    let (mut train, mut val) = (Vec::new(), Vec::new());
    for (i, game) in games.iter().enumerate() {
        if validation.contains(game) {
            val.push(i)
        } else {
            train.push(i)
        }
    }
    Ok((train, val))
}

/// Coefficient of determination 1 − SS_res / SS_tot (0 predicts the mean; negative is worse than that).
pub fn r_squared(prediction: &[f64], target: &[f64]) -> f64 {
    let mean = target.iter().sum::<f64>() / target.len().max(1) as f64;
    let ss_res: f64 = prediction.iter().zip(target).map(|(p, t)| (t - p) * (t - p)).sum();
    let ss_tot: f64 = target.iter().map(|t| (t - mean) * (t - mean)).sum();
    if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else {
        0.0
    }
}

/// MSE and R² of the net on prepared inputs and normalised targets.
fn evaluate(model: &CtmModel, inputs: &Tensor, targets: &Tensor) -> (f64, f64) {
    let _guard = tch::no_grad_guard();
    let n = inputs.size()[0];
    let chunks: Vec<Tensor> =
        (0..n).step_by(8192).map(|s| model.net.forward_t(&inputs.narrow(0, s, (n - s).min(8192)), false)).collect();
    let to_vec = |t: &Tensor| Vec::<f64>::try_from(&t.to_kind(Kind::Double).view([-1])).unwrap_or_default();
    let (prediction, target) = (to_vec(&Tensor::cat(&chunks, 0)), to_vec(targets));
    let mse = prediction.iter().zip(&target).map(|(p, t)| (p - t) * (p - t)).sum::<f64>() / target.len().max(1) as f64;
    (mse, r_squared(&prediction, &target))
}

/// Copies of the weights, to keep the best epoch.
fn snapshot(model: &CtmModel) -> Vec<(String, Tensor)> {
    model.vs.variables().into_iter().map(|(name, t)| (name, t.detach().copy())).collect()
}

fn restore(model: &CtmModel, weights: &[(String, Tensor)]) {
    let _guard = tch::no_grad_guard();
    let mut variables = model.vs.variables();
    for (name, value) in weights {
        if let Some(var) = variables.get_mut(name) {
            var.copy_(value);
        }
    }
}

/// libtorch's random generator (initial weights, batch order, dropout) is one per process: runs hold this
/// lock so that two trainings in one process (tests run in threads) do not draw from it in turn.
static TORCH_GENERATOR: Mutex<()> = Mutex::new(());

/// Trains a net on `data`; `on_epoch` sees each epoch's numbers as they come.
pub fn train(data: &Dataset, config: &TrainConfig, mut on_epoch: impl FnMut(&EpochStats)) -> Result<Trained, CtmError> {
    if config.batch_size == 0 || config.max_epochs == 0 {
        return Err(CtmError::Invalid("batch size and epochs must be at least 1".into()));
    }
    let _generator = TORCH_GENERATOR.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    tch::set_num_threads(config.threads.max(1));
    tch::manual_seed(config.seed as i64);
    let (train_rows, val_rows) = split_by_game(&data.game, config.validation_fraction, config.seed)?;
    let norm = fit_normalisation(data, &train_rows, config.arch);
    let val_rho: Vec<f64> = val_rows.iter().map(|&i| f64::from(data.target[i])).collect();
    let mean_baseline_val_r2 = r_squared(&vec![f64::from(norm.target_mean); val_rho.len()], &val_rho);
    let mut model = CtmModel::new(config.arch, config.kernel, data.target_kind, norm)?;
    let (train_x, train_y) = (
        network_inputs(&model.norm, data, &train_rows, config.arch),
        normalised_targets(&model.norm, data, &train_rows),
    );
    let (val_x, val_y) =
        (network_inputs(&model.norm, data, &val_rows, config.arch), normalised_targets(&model.norm, data, &val_rows));
    let mut optimizer = tch::nn::Adam::default().build(&model.vs, config.learning_rate)?;

    let n = train_rows.len() as i64;
    let batch = config.batch_size as i64;
    let steps = (n + batch - 1) / batch;
    let bar = if config.progress {
        ProgressBar::new((steps as usize * config.max_epochs) as u64)
    } else {
        ProgressBar::hidden()
    };
    if let Ok(style) = ProgressStyle::with_template("{bar:30} epoch {msg} {elapsed_precise} eta {eta}") {
        bar.set_style(style);
    }
    let (mut history, mut best, mut best_epoch) = (Vec::new(), None::<Vec<(String, Tensor)>>, 0);
    let mut best_mse = f64::INFINITY;
    for epoch in 1..=config.max_epochs {
        bar.set_message(format!("{epoch}/{}", config.max_epochs));
        let order = Tensor::randperm(n, (Kind::Int64, Device::Cpu));
        for step in 0..steps {
            let index = order.narrow(0, step * batch, batch.min(n - step * batch));
            let prediction = model.net.forward_t(&train_x.index_select(0, &index), true);
            let loss = prediction.mse_loss(&train_y.index_select(0, &index), Reduction::Mean);
            optimizer.backward_step(&loss);
            bar.inc(1);
        }
        let (train_mse, train_r2) = evaluate(&model, &train_x, &train_y);
        let (val_mse, val_r2) = evaluate(&model, &val_x, &val_y);
        let stats = EpochStats { epoch, train_mse, val_mse, train_r2, val_r2 };
        bar.suspend(|| on_epoch(&stats));
        history.push(stats);
        if val_mse < best_mse {
            (best_mse, best_epoch, best) = (val_mse, epoch, Some(snapshot(&model)));
        } else if epoch - best_epoch >= config.patience {
            break;
        }
    }
    bar.finish_and_clear();
    if let Some(weights) = &best {
        restore(&model, weights);
    }
    model.vs.freeze();
    let games = |rows: &[usize]| rows.iter().map(|&i| data.game[i]).collect::<BTreeSet<_>>().len();
    Ok(Trained {
        games: (games(&train_rows), games(&val_rows)),
        samples: (train_rows.len(), val_rows.len()),
        model,
        history,
        best_epoch,
        mean_baseline_val_r2,
    })
}

/// The per-epoch table as `tm-train` prints it.
pub fn format_history(history: &[EpochStats], best_epoch: usize) -> String {
    let mut out =
        format!("{:>5}  {:>10}  {:>10}  {:>9}  {:>9}\n", "epoch", "train MSE", "val MSE", "train R2", "val R2");
    for s in history {
        let mark = if s.epoch == best_epoch { "  *" } else { "" };
        out.push_str(&format!(
            "{:>5}  {:>10.4}  {:>10.4}  {:>9.4}  {:>9.4}{mark}\n",
            s.epoch, s.train_mse, s.val_mse, s.train_r2, s.val_r2
        ));
    }
    out
}
