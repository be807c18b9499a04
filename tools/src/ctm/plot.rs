//! The training curves as a PNG: MSE on the left, R² on the right, training and validation per epoch.

use std::path::Path;

use plotters::prelude::*;

use super::train::EpochStats;
use super::CtmError;

/// Draws `history` into `path` (PNG) under `title`.
pub fn write_curves(path: &Path, title: &str, history: &[EpochStats]) -> Result<(), CtmError> {
    let failed = |e: String| CtmError::BadFile {
        path: path.to_owned(),
        reason: format!("plot: {e} (text needs a system font such as DejaVu Sans)"),
    };
    let root = BitMapBackend::new(path, (1200, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| failed(e.to_string()))?;
    let root = root.titled(title, ("sans-serif", 22)).map_err(|e| failed(e.to_string()))?;
    let (left, right) = root.split_horizontally(600);
    type Pick = fn(&EpochStats) -> f64;
    let panels: [(&_, &str, Pick, Pick); 2] =
        [(&left, "MSE (z-scored rho)", |s| s.train_mse, |s| s.val_mse), (&right, "R2", |s| s.train_r2, |s| s.val_r2)];
    for (area, label, train, val) in panels {
        draw_panel(area, label, history, train, val).map_err(failed)?;
    }
    root.present().map_err(|e| failed(e.to_string()))
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    label: &str,
    history: &[EpochStats],
    train: fn(&EpochStats) -> f64,
    val: fn(&EpochStats) -> f64,
) -> Result<(), String> {
    let values = history.iter().flat_map(|s| [train(s), val(s)]).filter(|v| v.is_finite());
    let (low, high) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| (l.min(v), h.max(v)));
    let (low, high) = if low.is_finite() { (low, high.max(low + 1e-6)) } else { (0.0, 1.0) };
    let pad = (high - low) * 0.05;
    let epochs = history.len().max(2) as f64;
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(1.0..epochs, (low - pad)..(high + pad))
        .map_err(|e| e.to_string())?;
    chart.configure_mesh().x_desc("epoch").y_desc(label).draw().map_err(|e| e.to_string())?;
    for (name, pick, colour) in [("train", train, BLUE), ("validation", val, RED)] {
        let points: Vec<(f64, f64)> = history.iter().map(|s| (s.epoch as f64, pick(s))).collect();
        chart
            .draw_series(LineSeries::new(points, colour.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())
}
