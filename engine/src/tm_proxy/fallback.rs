//! What a time manager reads that a foreign engine does not report, and what it does without it.
//!
//! The proxy gives the manager the clock, the position (side to move, ply, legal moves, pieces, moves since
//! the book) and, after each move, the time the proxy measured and the nodes the engine reported. It cannot
//! give what lives inside a search: the root's visit counts, the search's own requests for time, a network's
//! moves-left head, the visits of a reused tree. Every feature that needs one of them falls back to its
//! off-state, which is what the manager does anyway when the input is absent:
//!
//! * `mlh` → its fallback estimator (the manager's default, e.g. `mle-legacy`);
//! * smooth's visits-trend watcher (`trend-nps-update-period-ms` > 0) → never extends a move;
//! * smooth's `need-more-time` → never fires;
//! * smooth's `theta` < 1 → the best move's share stays 1, so nodes count as with `theta=1`;
//! * smooth's tree reuse → reused visits count 0, and the learned reuse falls towards 0;
//! * `smooth(limit=nodes)` → its smart pruning (root visits) is off; the target goes out as `go nodes`;
//! * smooth's `force-piggybank-ms` → the allowance is granted from the move's start, so it is in the movetime.
//!
//! The generic stoppers of Kairos's search (smart pruning, KLD gain) need root visits too and are not used.

use timemgr::options::ParamValue;
use timemgr::TimeManagerConfig;

/// One sentence per feature of `config` that needs an input the wrapped engine cannot report, saying what it
/// does instead; empty when the manager needs nothing beyond the clock, the position, time and nodes.
pub fn missing_inputs(config: &TimeManagerConfig) -> Vec<String> {
    let mut notes = Vec::new();
    if config.estimator.as_ref().is_some_and(|estimator| estimator.spec().name == "mlh") {
        let fallback = config.default_estimator().map_or("mle-legacy", |default| default.spec().name);
        notes.push(format!("mlh needs a network's moves-left head; it falls back to {fallback}"));
    }
    if config.name() != "smooth" {
        return notes;
    }
    let manager = &config.manager;
    notes.push("tree reuse is invisible in a foreign engine: reused visits count 0".to_owned());
    if matches!(manager.get("trend-nps-update-period-ms"), Some(ParamValue::Int(period)) if period > 0) {
        notes.push("the visits-trend watcher needs the root's visit counts; it never extends a move".to_owned());
    }
    if manager.get("need-more-time") == Some(ParamValue::Bool(true)) {
        notes.push("need-more-time needs the search's own request for time; it never fires".to_owned());
    }
    if matches!(manager.get("theta"), Some(ParamValue::Float(theta)) if theta < 1.0) {
        notes.push("theta needs the best move's share of the root visits; it stays 1, as with theta=1".to_owned());
    }
    if manager.get("limit") == Some(ParamValue::Choice("nodes")) {
        notes.push(
            "limit=nodes prunes on root visits; smart pruning is off and the target is sent as go nodes".to_owned(),
        );
    }
    if matches!(manager.get("force-piggybank-ms"), Some(ParamValue::Int(window)) if window >= 0) {
        notes.push(
            "force-piggybank-ms: the allowance is granted from the move's start and sent in the movetime".to_owned(),
        );
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notes(spec: &str) -> Vec<String> {
        missing_inputs(&TimeManagerConfig::parse(spec).unwrap())
    }

    #[test]
    fn managers_that_read_only_the_clock_need_nothing_more() {
        for spec in ["legacy", "simple", "alphazero", "geometric", "expected-length"] {
            assert_eq!(notes(spec), Vec::<String>::new(), "{spec}");
        }
    }

    #[test]
    fn each_feature_that_reads_the_search_is_named() {
        assert_eq!(notes("legacy(mlh)"), vec!["mlh needs a network's moves-left head; it falls back to mle-legacy"]);
        assert_eq!(notes("smooth").len(), 1, "tree reuse only");
        let lc0 = notes("smooth(preset=lc0)");
        for feature in ["tree reuse", "visits-trend", "need-more-time", "force-piggybank-ms"] {
            assert!(lc0.iter().any(|note| note.contains(feature)), "{feature} in {lc0:?}");
        }
        let nodes = notes("smooth(limit=nodes,theta=0.5)");
        assert!(
            nodes.iter().any(|note| note.starts_with("theta"))
                && nodes.iter().any(|note| note.starts_with("limit=nodes"))
        );
    }
}
