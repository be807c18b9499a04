//! Measures the torch backend's throughput like `lc0 backendbench`:
//! `cargo run --release -p nn --example backendbench -- [cpu|cuda|auto] [fp32|bf16|fp16|auto] [sizes,...]`.

use nn::{backend_bench, BackendOptions, DeviceChoice, NnError, Precision};

fn main() -> Result<(), NnError> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let device: DeviceChoice = args.first().map_or("cpu", String::as_str).parse()?;
    let precision: Precision = args.get(1).map_or("fp32", String::as_str).parse()?;
    let sizes: Vec<usize> = args
        .get(2)
        .map_or("1,32,256", String::as_str)
        .split(',')
        .filter_map(|s| s.parse().ok())
        .collect();
    let options = BackendOptions {
        weights: concat!(env!("CARGO_MANIFEST_DIR"), "/../weights/maia-1900.pb.gz").into(),
        device,
        precision,
        ..BackendOptions::default()
    };
    println!("size,mean nps,mean ms,sdev ms,cv,max nps,median nps,min nps,first ms");
    for row in backend_bench(&options, &sizes, 20)? {
        println!(
            "{},{:.0},{:.3},{:.3},{:.3},{:.0},{:.0},{:.0},{:.3}",
            row.batch_size,
            row.mean_nps,
            row.mean_ms,
            row.sdev_ms,
            row.cv,
            row.max_nps,
            row.median_nps,
            row.min_nps,
            row.first_ms
        );
    }
    Ok(())
}
