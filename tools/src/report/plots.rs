//! Line charts in PNG and SVG with plotters.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

/// One named line of (x, y) points.
pub type Series = (String, Vec<(f64, f64)>);

/// What a chart shows.
pub struct Chart<'a> {
    /// Title above the plot.
    pub title: &'a str,
    /// X-axis label.
    pub x_label: &'a str,
    /// Y-axis label.
    pub y_label: &'a str,
    /// The lines, one per engine.
    pub series: &'a [Series],
}

const SIZE: (u32, u32) = (960, 600);

/// A chart that could not be drawn or written.
#[derive(Debug, thiserror::Error)]
#[error("plot {path}: {reason} (text needs a system font such as DejaVu Sans)")]
pub struct PlotError {
    /// The file being written.
    pub path: PathBuf,
    /// What plotters reported.
    pub reason: String,
}

/// Writes `<stem>.png` and `<stem>.svg` into `dir`.
pub fn write_chart(dir: &Path, stem: &str, chart: &Chart) -> Result<(), PlotError> {
    let png = dir.join(format!("{stem}.png"));
    let svg = dir.join(format!("{stem}.svg"));
    let failed = |path: &Path, reason: String| PlotError { path: path.to_owned(), reason };
    {
        let root = BitMapBackend::new(&png, SIZE).into_drawing_area();
        draw(&root, chart).and_then(|()| root.present()).map_err(|e| failed(&png, e.to_string()))?;
    }
    let root = SVGBackend::new(&svg, SIZE).into_drawing_area();
    draw(&root, chart).and_then(|()| root.present()).map_err(|e| failed(&svg, e.to_string()))
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &Chart,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let points = chart.series.iter().flat_map(|(_, p)| p.iter());
    let (x_max, y_max) = points.fold((1.0f64, 1.0f64), |(x, y), &(px, py)| (x.max(px), y.max(py)));
    let mut context = ChartBuilder::on(root)
        .caption(chart.title, ("sans-serif", 24))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..x_max * 1.02, 0.0..y_max * 1.05)?;
    context.configure_mesh().x_desc(chart.x_label).y_desc(chart.y_label).draw()?;
    for (index, (name, points)) in chart.series.iter().enumerate() {
        let colour = Palette99::pick(index).to_rgba();
        context
            .draw_series(LineSeries::new(points.iter().copied(), colour.stroke_width(2)))?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
    }
    context.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw()?;
    Ok(())
}
