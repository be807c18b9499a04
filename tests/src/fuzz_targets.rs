//! The fuzz targets' bodies (#35 item 2), one function per parser that meets outside input, shared by the
//! cargo-fuzz crate (`fuzz/`, coverage-guided on nightly) and its stable twin in the test suite
//! (`tests/tests/integration/fuzz_regressions.rs`: the seeds, every crasher found, and a short mutation run). Each returns
//! normally for any input; a panic is the bug.

use std::path::Path;

/// Any line a GUI may send: a command or an error.
pub fn uci_line(data: &[u8]) {
    if let Ok(line) = std::str::from_utf8(data) {
        let _ = engine::uci::parse_command(line);
    }
}

/// A FEN (standard or Chess960) on the first line and UCI moves after it, as `position fen … moves …` gives
/// them: a game or an error.
pub fn fen_and_moves(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let mut lines = text.splitn(2, '\n');
        let fen = lines.next().unwrap_or("");
        let moves: Vec<&str> = lines.next().unwrap_or("").split_whitespace().collect();
        let _ = engine::position::GameState::from_uci(Some(fen), &moves);
        if let Ok(setup) = fen.parse::<shakmaty::fen::Fen>() {
            let _ = nn::fen::chess_from_fen(setup);
        }
    }
}

/// Any `TimeManager` string: a configuration whose manager builds, or an error. Strings naming a model file
/// are left out (the fuzzer would read arbitrary files); the model files have their own target.
pub fn time_manager_option(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        if text.contains("model") {
            return;
        }
        if let Ok(config) = timemgr::TimeManagerConfig::parse(text) {
            let _ = config.to_string();
            let _ = timemgr::build_time_manager(&config);
        }
    }
}

/// Any weights file, gzip or not: a network or a typed problem, and no allocation beyond what the file holds.
pub fn network_file(data: &[u8]) {
    let _ = nn::parse_network(data);
}

/// Any CTM-Net model file: a model or an error naming the file.
pub fn ctm_model_file(data: &[u8]) {
    if let Ok(model) = timemgr::ctm::ModelFile::from_bytes(Path::new("fuzz.safetensors"), data) {
        let _ = timemgr::ctm::CtmNetwork::from_file(&model);
    }
}

/// Any PGN given to `kairos tm-data`: games with clocks and their samples, or an error.
pub fn clock_pgn(data: &[u8]) {
    if let Ok((games, _)) = tools::ctm::clock_pgn::read_games_from(data, Path::new("fuzz.pgn"), true) {
        let _ = tools::ctm::samples::extract(&games, &tools::ctm::samples::Filters::default(), true);
    }
}

/// Any text given to `kairos tune --import openbench`: a manager string or an error.
pub fn openbench_import(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = tools::tune::import_values("smooth(preset=kairos)", text);
    }
}

/// Any record file given to `Backend=replay`: a header and evaluations, or what is wrong with them.
pub fn record_file(data: &[u8]) {
    let _ = nn::record_file::parse_records(data);
}

/// A target: its name (its folder under `fuzz/seeds` and `fuzz/regressions`) and its body.
pub type Target = (&'static str, fn(&[u8]));

/// Every target.
pub const TARGETS: &[Target] = &[
    ("uci_line", uci_line),
    ("fen_and_moves", fen_and_moves),
    ("time_manager_option", time_manager_option),
    ("network_file", network_file),
    ("ctm_model_file", ctm_model_file),
    ("clock_pgn", clock_pgn),
    ("openbench_import", openbench_import),
    ("record_file", record_file),
];
