//! The Syzygy tables as Kairos probes them, against python-chess's independent prober on the same committed
//! files (reference/syzygy-probes.json, written by reference/capture-syzygy-probes.py), and lc0's root ranking
//! (`root_probe`, `root_probe_wdl` in lc0's src/syzygy/syzygy.cc) worked by hand on the recorded probes.

use std::path::PathBuf;

use engine::tablebase::{RootProbe, Tablebases};
use serde_json::Value;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position};

fn reference_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../reference")
}

fn tables() -> Tablebases {
    let loaded = Tablebases::load(reference_dir().join("syzygy").to_str().unwrap());
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems.iter().map(|p| p.to_string()).collect::<Vec<_>>());
    loaded.tablebases.expect("the committed tables load")
}

fn reference() -> Value {
    let text = std::fs::read_to_string(reference_dir().join("syzygy-probes.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn position(fen: &str) -> Chess {
    fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
}

fn uci(mv: &Move) -> String {
    mv.to_uci(CastlingMode::Standard).to_string()
}

fn sorted(mut moves: Vec<String>) -> Vec<String> {
    moves.sort();
    moves
}

#[test]
fn the_committed_tables_load_with_their_counts() {
    let tables = tables();
    assert_eq!(tables.max_pieces(), 5, "KBNvKN is the one five-piece table");
    assert_eq!(tables.summary(), "Found 36 WDL and 36 DTZ tablebase files, up to 5 pieces.");
}

#[test]
fn wdl_and_dtz_equal_python_chess_on_4000_random_positions() {
    let tables = tables();
    let reference = reference();
    let records = reference["random"].as_array().unwrap();
    assert_eq!(records.len(), 4000);
    let mut en_passant = 0;
    for record in records {
        let fen = record["fen"].as_str().unwrap();
        let board = position(fen);
        en_passant += usize::from(board.ep_square(shakmaty::EnPassantMode::Legal).is_some());
        let wdl = tables.probe_wdl_after_zeroing(&board).map(i32::from);
        assert_eq!(wdl, Some(record["wdl"].as_i64().unwrap() as i32), "WDL of {fen}");
        assert_eq!(tables.probe_dtz(&board), Some(record["dtz"].as_i64().unwrap() as i32), "DTZ of {fen}");
    }
    assert_eq!(en_passant, 400, "the en-passant positions keep their capture");
}

/// Each hand-picked root: the probes of every reached position equal python-chess's, and the moves lc0's
/// ranking keeps are the ones worked out by hand below from those probes.
#[test]
fn root_moves_are_ranked_as_lc0_ranks_them() {
    let tables = tables();
    let reference = reference();
    // (root, DTZ-optimal ranking, moves kept, the DTZ from the root of the kept moves) — worked by hand from
    // the recorded probes: a reached position's DTZ d (not zeroing) is −d ± 1 from the root, a zeroing move
    // gets ±1 (±101 for cursed) from its WDL, a mate 1; a win ranks 1000 while DTZ + counter ≤ 99, else
    // 1000 − (DTZ + counter); a loss ranks −1000 unless 2·|DTZ| + counter ≥ 100.
    let expected: &[(&str, bool, &[&str], &[i32])] = &[
        // 27 moves: Qc7 and Qf4 stalemate, the other 25 win within 9 plies.
        (
            "stalemate-trap",
            false,
            &[
                "b6a5", "b6a6", "b6b5", "b6c5", "b6c6", "b6c7", "c1a1", "c1a3", "c1b1", "c1b2", "c1c2", "c1c3", "c1c4",
                "c1c5", "c1c6", "c1c8", "c1d1", "c1d2", "c1e1", "c1e3", "c1f1", "c1g1", "c1g5", "c1h1", "c1h6",
            ],
            &[],
        ),
        // With fast play only the mate (DTZ 1) is left.
        ("stalemate-trap", true, &["c1c8"], &[1]),
        // Bg3 is the only win, cursed: DTZ 151 + 1 = 152 from the root, rank 1000 − 152 = 848 beats the draws.
        ("cursed-win", false, &["h2g3"], &[152]),
        // Black loses after every move; Nc4 loses latest (white's DTZ 150, −151 from the root, rank −849).
        ("blessed-loss", false, &["b2c4"], &[-151]),
        // Counter 36: wins of DTZ 60 and 62 fit (≤ 63), those of 64 and 66 do not.
        ("fifty-move-edge", false, &["a1b1", "c1b3", "d1a4", "d1b3", "d1g4"], &[]),
        // Counter 95: no win fits; the shortest (Bb3, DTZ 60, rank 845) is ranked best.
        ("fifty-move-lost", false, &["d1b3"], &[60]),
        // Both pawn moves zero the counter and win (DTZ 1); the king moves draw.
        ("en-passant", false, &["e5d6", "e5e6"], &[1, 1]),
        // Kb2 wins (white's DTZ −1 after it); cxd3 e.p. only draws, Kd3 loses.
        ("en-passant-only-move", false, &["c3b2"], &[2]),
        ("losing-side", false, &["a1a2"], &[-2]),
        // Rook moves along the first rank (DTZ 7) and Ka2 (DTZ 5) win; Rxc2+, Re1 and Rb1 draw, Rd1 loses.
        ("rook-draw-or-win", false, &["a1a2", "c1f1", "c1g1", "c1h1"], &[]),
        ("rook-draw-or-win", true, &["a1a2"], &[5]),
    ];
    let roots = reference["root"].as_array().unwrap();
    for &(name, dtz_optimal, kept, kept_dtz) in expected {
        let root = roots.iter().find(|r| r["name"] == name).unwrap();
        let board = position(root["fen"].as_str().unwrap());
        for recorded in root["moves"].as_array().unwrap() {
            let mv = recorded["uci"].as_str().unwrap().parse::<UciMove>().unwrap().to_move(&board).unwrap();
            let mut next = board.clone();
            next.play_unchecked(mv);
            let (wdl, dtz) = if next.is_checkmate() {
                (Some(-2), Some(-1))
            } else {
                (tables.probe_wdl_after_zeroing(&next).map(i32::from), tables.probe_dtz(&next))
            };
            assert_eq!(wdl, Some(recorded["wdl"].as_i64().unwrap() as i32), "{name}: WDL after {mv}");
            assert_eq!(dtz, Some(recorded["dtz"].as_i64().unwrap() as i32), "{name}: DTZ after {mv}");
        }
        let ranks = tables.rank_root_moves(&board, dtz_optimal).expect("every move probes");
        assert_eq!(ranks.probe, RootProbe::Dtz, "{name}: the DTZ tables are there");
        assert_eq!(ranks.moves.len(), root["moves"].as_array().unwrap().len());
        let best: Vec<String> = ranks.best_moves().iter().map(uci).collect();
        assert_eq!(sorted(best.clone()), sorted(kept.iter().map(|m| m.to_string()).collect()), "{name}");
        if !kept_dtz.is_empty() {
            let mut scores: Vec<(String, i32)> =
                ranks.moves.iter().filter(|m| best.contains(&uci(&m.mv))).map(|m| (uci(&m.mv), m.score)).collect();
            scores.sort();
            assert_eq!(scores.iter().map(|s| s.1).collect::<Vec<_>>(), kept_dtz, "{name}");
        }
    }
}

#[test]
fn without_dtz_tables_the_wdl_ranking_splits_wins_by_the_fifty_move_rule() {
    // Only the WDL files: the cursed win's Bg3 ranks 899 (cursed) against 0 for the draws.
    let dir = std::env::temp_dir().join(format!("kairos-wdl-only-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(reference_dir().join("syzygy")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rtbw") {
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
        }
    }
    let loaded = Tablebases::load(dir.to_str().unwrap());
    let tables = loaded.tablebases.unwrap();
    assert_eq!(tables.summary(), "Found 36 WDL and 0 DTZ tablebase files, up to 5 pieces.");
    let ranks = tables.rank_root_moves(&position("8/8/8/8/8/8/1n5B/2K1N2k w - - 0 1"), false).unwrap();
    assert_eq!(ranks.probe, RootProbe::Wdl);
    assert_eq!(ranks.best_moves().iter().map(uci).collect::<Vec<_>>(), ["h2g3"]);
    let bg3 = ranks.moves.iter().find(|m| uci(&m.mv) == "h2g3").unwrap();
    assert_eq!((bg3.score, bg3.rank), (1, 899));
    // The stalemate trap: every win ranks 1000, the two stalemates 0.
    let ranks = tables.rank_root_moves(&position("k7/8/1K6/8/8/8/8/2Q5 w - - 0 1"), false).unwrap();
    assert_eq!(ranks.best_moves().len(), 25);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn positions_outside_the_tables_are_not_ranked() {
    let tables = tables();
    // Castling rights: Syzygy holds none.
    assert!(tables.rank_root_moves(&position("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"), false).is_none());
    // Six pieces: more than the largest table.
    assert!(tables.rank_root_moves(&position("4k3/8/8/8/8/8/PPPP4/4K3 w - - 0 1"), false).is_none());
    // Five pieces without their table (KQRvKR).
    assert!(tables.rank_root_moves(&position("4k3/4r3/8/8/8/8/8/QR2K3 w - - 0 1"), false).is_none());
}
