//! Syzygy through UCI, as a GUI sets it up: `SyzygyPath` with several directories, what `isready` reports,
//! bad directories and files named while the engine goes on, and `tbhits` in the search's info lines.

use std::path::PathBuf;
use std::time::Duration;

use kairos_tests::{workspace_root, UciSession};

const LIMIT: Duration = Duration::from_secs(60);

fn tables_dir() -> PathBuf {
    workspace_root().join("reference/syzygy")
}

fn engine() -> UciSession {
    UciSession::start(&["--backend=uniform", "--threads=1"])
}

#[test]
fn isready_reports_the_tables_and_names_every_bad_directory() {
    let mut engine = engine();
    let missing = std::env::temp_dir().join("kairos-no-such-syzygy-dir");
    engine.send(&format!("setoption name SyzygyPath value {}:{}", missing.display(), tables_dir().display()));
    engine.send("isready");
    let lines = engine.read_until("readyok", LIMIT);
    assert!(
        lines.iter().any(|l| l.starts_with("info string error Syzygy directory")
            && l.contains("kairos-no-such-syzygy-dir")
            && l.contains("fix SyzygyPath")),
        "{lines:?}"
    );
    assert!(
        lines.contains(&"info string Found 36 WDL and 36 DTZ tablebase files, up to 5 pieces.".to_string()),
        "{lines:?}"
    );
    // A second isready with the same path loads nothing again.
    engine.send("isready");
    assert_eq!(engine.read_until("readyok", LIMIT), ["readyok"]);
}

#[test]
fn corrupt_tables_are_named_and_left_out_and_the_engine_plays_on() {
    let dir = std::env::temp_dir().join(format!("kairos-corrupt-syzygy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = std::fs::read(tables_dir().join("KQvK.rtbw")).unwrap();
    std::fs::write(dir.join("KQvK.rtbw"), &good[..good.len() - 10]).unwrap();
    let mut wrong_header = std::fs::read(tables_dir().join("KRvK.rtbw")).unwrap();
    wrong_header[0] ^= 0xff;
    std::fs::write(dir.join("KRvK.rtbw"), wrong_header).unwrap();
    std::fs::copy(tables_dir().join("KPvK.rtbw"), dir.join("KPvK.rtbw")).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a table").unwrap();

    let mut engine = engine();
    engine.send(&format!("setoption name SyzygyPath value {}", dir.display()));
    engine.send("isready");
    let lines = engine.read_until("readyok", LIMIT);
    let error_for = |file: &str| {
        lines
            .iter()
            .any(|l| l.starts_with("info string error Syzygy table") && l.contains(file) && l.contains("corrupt"))
    };
    assert!(error_for("KQvK.rtbw") && error_for("KRvK.rtbw"), "{lines:?}");
    assert!(!lines.iter().any(|l| l.contains("notes.txt")), "other files are not tables: {lines:?}");
    assert!(
        lines.contains(&"info string Found 1 WDL and 0 DTZ tablebase files, up to 3 pieces.".to_string()),
        "{lines:?}"
    );
    engine.send("position fen k7/8/1K6/8/8/8/8/2Q5 w - - 0 1");
    engine.send("go nodes 20");
    let lines = engine.read_until("bestmove", LIMIT);
    assert!(lines.last().unwrap().starts_with("bestmove c1"), "{lines:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_table_position_reports_its_hits_and_avoids_the_stalemates() {
    let mut engine = engine();
    engine.send(&format!("setoption name SyzygyPath value {}", tables_dir().display()));
    engine.send("position fen k7/8/1K6/8/8/8/8/2Q5 w - - 0 1");
    engine.send("go nodes 200");
    let lines = engine.read_until("bestmove", LIMIT);
    let info = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
    assert!(info.contains(" tbhits 1 "), "{info}");
    let best = lines.last().unwrap();
    assert!(best != "bestmove c1c7" && best != "bestmove c1f4", "{best}");
    // Without tables the same search counts none.
    engine.send("setoption name SyzygyPath value ");
    engine.send("position fen k7/8/1K6/8/8/8/8/2Q5 w - - 0 1");
    engine.send("go nodes 20");
    let lines = engine.read_until("bestmove", LIMIT);
    assert!(lines.iter().filter(|l| l.starts_with("info depth")).all(|l| l.contains(" tbhits 0 ")), "{lines:?}");
}
