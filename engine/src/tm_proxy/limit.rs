//! One move under the Kairos time manager: the limit the wrapped engine gets instead of the clock, the `go`
//! line that carries it, and what the manager learns when the move ends.

use timemgr::search_stats::{UNLIMITED_PLAYOUTS, UNLIMITED_TIME_MS};
use timemgr::{
    build_stopper_chain, CommonStopperOptions, GoParams, Hints, IterationStats, MoveContext, MoveTrace, Stopper,
    TimeManager,
};

use crate::uci::GoCommand;

/// The limit the wrapped engine searches to instead of its clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveLimit {
    /// `go movetime T`: the manager planned a time.
    MoveTime {
        /// The time in ms (at least 1: `movetime 0` means "no limit" to some engines).
        ms: u64,
    },
    /// `go nodes N movetime T`: the manager planned a node target; its time limit stays as the safety net.
    Nodes {
        /// The node target (at least 1).
        nodes: u64,
        /// The manager's time limit for the move in ms.
        ms: u64,
    },
    /// `go depth 1`: the clock is within the move overhead, so the manager has no time left to give and even
    /// `movetime 1` costs the engine a millisecond or more a move; a game without increment would flag.
    FastestMove,
}

impl MoveLimit {
    /// The time the move may take, in ms.
    pub fn time_ms(&self) -> u64 {
        match *self {
            MoveLimit::MoveTime { ms } | MoveLimit::Nodes { ms, .. } => ms,
            MoveLimit::FastestMove => 1,
        }
    }
}

/// A move the manager planned: its stopper chain, kept until the move ends, and the limit read from it.
pub struct ManagedMove {
    chain: Box<dyn Stopper>,
    /// What the wrapped engine is told.
    pub limit: MoveLimit,
}

impl ManagedMove {
    /// Asks the manager for the move's stopper chain (the clock of `go` only, no generic stoppers) and reads
    /// the limit from one poll at the move's start: the time limit the chain announces (the deadline, plus any
    /// allowance granted from the start) and, when it announces remaining playouts, a node target; the fastest
    /// move when the mover's clock is no more than the move overhead. None when the manager plans nothing (no
    /// clock for the side to move).
    pub fn plan(manager: &mut dyn TimeManager, go: &GoParams, ctx: &MoveContext) -> Option<Self> {
        let clock = GoParams {
            wtime: go.wtime,
            btime: go.btime,
            winc: go.winc,
            binc: go.binc,
            movestogo: go.movestogo,
            ..GoParams::default()
        };
        let mut chain = build_stopper_chain(Some(manager), &clock, ctx, &CommonStopperOptions::go_limits_only());
        let mut hints = Hints::default();
        chain.should_stop(&IterationStats::default(), &mut hints);
        let time_ms = hints.remaining_time_ms();
        if time_ms >= UNLIMITED_TIME_MS {
            return None;
        }
        let ms = time_ms.max(1) as u64;
        let movers_clock_ms = if ctx.white_to_move { go.wtime } else { go.btime };
        let limit = match hints.remaining_playouts() {
            _ if movers_clock_ms.is_some_and(|clock| clock <= ctx.move_overhead_ms) => MoveLimit::FastestMove,
            nodes if nodes < UNLIMITED_PLAYOUTS => MoveLimit::Nodes { nodes, ms },
            _ => MoveLimit::MoveTime { ms },
        };
        Some(Self { chain, limit })
    }

    /// Ends the move: with the nodes known, one last poll gives the chain the move's final statistics (the
    /// NPS sample of managers that learn it); then the manager learns from the move. Returns its traces.
    pub fn finish(
        mut self,
        manager: &mut dyn TimeManager,
        stats: &IterationStats,
        nodes_known: bool,
    ) -> Vec<MoveTrace> {
        if nodes_known {
            self.chain.should_stop(stats, &mut Hints::default());
        }
        drop(self.chain);
        manager.end_of_move(stats);
        manager.drain_trace()
    }
}

/// The final statistics of a move as the proxy knows them: the time it measured and the nodes reported.
pub fn final_stats(elapsed_ms: u64, nodes: Option<u64>) -> IterationStats {
    let elapsed_ms = i64::try_from(elapsed_ms).unwrap_or(i64::MAX);
    let nodes = nodes.unwrap_or(0);
    IterationStats {
        time_since_movestart_ms: elapsed_ms,
        time_since_first_batch_ms: elapsed_ms,
        total_nodes: nodes,
        nodes_since_movestart: nodes,
        ..IterationStats::default()
    }
}

/// The wrapped engine's `go`: the GUI's `go` without its clock, with `limit` (none while pondering). The
/// GUI's own limits stay (the engine stops at the first reached); of two movetimes or node counts the
/// smaller is sent.
pub fn limited_go(go: &GoCommand, limit: Option<MoveLimit>) -> String {
    let mut params =
        GoParams { wtime: None, btime: None, winc: None, binc: None, movestogo: None, ..go.params.clone() };
    let smaller = |given: Option<u64>, planned: u64| Some(given.map_or(planned, |given| given.min(planned)));
    match limit {
        Some(MoveLimit::MoveTime { ms }) => {
            params.movetime = smaller(params.movetime.map(|t| t.max(0) as u64), ms).map(|t| t as i64);
        }
        Some(MoveLimit::Nodes { nodes, ms }) => {
            params.nodes = smaller(params.nodes, nodes);
            params.movetime = smaller(params.movetime.map(|t| t.max(0) as u64), ms).map(|t| t as i64);
        }
        Some(MoveLimit::FastestMove) => params.depth = Some(1),
        None => {}
    }
    go_line(&params, &go.searchmoves)
}

/// A `go` line with every field that is set, in the order UCI lists them.
pub fn go_line(params: &GoParams, searchmoves: &[String]) -> String {
    let mut line = String::from("go");
    if !searchmoves.is_empty() {
        line.push_str(" searchmoves ");
        line.push_str(&searchmoves.join(" "));
    }
    if params.ponder {
        line.push_str(" ponder");
    }
    let numbers = [
        ("wtime", params.wtime),
        ("btime", params.btime),
        ("winc", params.winc),
        ("binc", params.binc),
        ("movestogo", params.movestogo.map(i64::from)),
        ("depth", params.depth.map(i64::from)),
        ("nodes", params.nodes.map(|n| i64::try_from(n).unwrap_or(i64::MAX))),
        ("mate", params.mate.map(i64::from)),
        ("movetime", params.movetime),
    ];
    for (field, value) in numbers {
        if let Some(value) = value {
            line.push_str(&format!(" {field} {value}"));
        }
    }
    if params.infinite {
        line.push_str(" infinite");
    }
    line
}

/// A `go` line as the GUI's parser reads it, for the tests of the proxy's modules.
#[cfg(test)]
pub(super) fn parse_go(line: &str) -> GoCommand {
    match crate::uci::parse_command(line) {
        Ok(Some(crate::uci::UciCommand::Go(go))) => go,
        other => panic!("{line}: {other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_go as go;
    use super::*;

    #[test]
    fn the_clock_gives_way_to_the_limit_and_the_guis_own_limits_stay() {
        let clocked = go("go wtime 10000 btime 9000 winc 100 binc 100 movestogo 20");
        assert_eq!(limited_go(&clocked, Some(MoveLimit::MoveTime { ms: 284 })), "go movetime 284");
        assert_eq!(limited_go(&clocked, Some(MoveLimit::Nodes { nodes: 5000, ms: 900 })), "go nodes 5000 movetime 900");
        let with_limits = go("go searchmoves e2e4 d2d4 wtime 10000 btime 10000 depth 9 movetime 100 nodes 80000");
        assert_eq!(
            limited_go(&with_limits, Some(MoveLimit::Nodes { nodes: 5000, ms: 900 })),
            "go searchmoves e2e4 d2d4 depth 9 nodes 5000 movetime 100"
        );
        assert_eq!(limited_go(&go("go ponder wtime 10000 btime 10000"), None), "go ponder");
    }

    #[test]
    fn go_lines_write_back_what_they_parse_from() {
        let line = "go searchmoves e7e8q ponder wtime 1 btime 2 winc 3 binc 4 movestogo 5 depth 6 nodes 7 mate 8 movetime 9 infinite";
        let parsed = go(line);
        assert_eq!(go_line(&parsed.params, &parsed.searchmoves), line);
    }

    #[test]
    fn a_deadline_manager_plans_its_deadline_as_movetime() {
        let mut manager = timemgr::time_manager_from_str("simple").unwrap();
        let params = go("go wtime 10000 btime 10000 winc 100 binc 100").params;
        let ctx = MoveContext { white_to_move: true, move_overhead_ms: 200, legal_moves: 20, ..MoveContext::default() };
        let planned = ManagedMove::plan(manager.as_mut(), &params, &ctx).unwrap();
        // simple at ply 0: (10000 − 200) × (1.4 % + 1.5 × 100/10000) = 9800 × 0.029 = 284.2 ms.
        assert_eq!(planned.limit, MoveLimit::MoveTime { ms: 284 });
        let traces = planned.finish(manager.as_mut(), &final_stats(290, Some(300_000)), true);
        assert_eq!(traces.len(), 1);
        assert_eq!(
            (traces[0].deadline_ms, traces[0].move_time_ms, traces[0].final_nodes),
            (284, Some(290), Some(300_000))
        );
    }

    #[test]
    fn a_node_target_manager_plans_nodes_with_its_time_cap() {
        let mut manager = timemgr::time_manager_from_str("smooth(limit=nodes)").unwrap();
        let params = go("go wtime 60000 btime 60000").params;
        let ctx = MoveContext { white_to_move: true, move_overhead_ms: 0, legal_moves: 20, ..MoveContext::default() };
        let planned = ManagedMove::plan(manager.as_mut(), &params, &ctx).unwrap();
        assert!(matches!(planned.limit, MoveLimit::Nodes { nodes, ms } if nodes > 1 && ms > 1), "{:?}", planned.limit);
    }

    #[test]
    fn a_clock_within_the_move_overhead_asks_for_the_fastest_move() {
        let mut manager = timemgr::time_manager_from_str("legacy").unwrap();
        let ctx =
            MoveContext { white_to_move: false, move_overhead_ms: 200, legal_moves: 20, ..MoveContext::default() };
        let low = go("go wtime 9000 btime 200");
        let planned = ManagedMove::plan(manager.as_mut(), &low.params, &ctx).unwrap();
        assert_eq!(planned.limit, MoveLimit::FastestMove);
        assert_eq!(limited_go(&low, Some(planned.limit)), "go depth 1");
        // One millisecond more than the overhead and the manager's own plan applies again.
        let above = go("go wtime 9000 btime 201").params;
        let planned = ManagedMove::plan(manager.as_mut(), &above, &ctx).unwrap();
        assert_eq!(planned.limit, MoveLimit::MoveTime { ms: 1 });
    }

    #[test]
    fn without_the_movers_clock_nothing_is_planned() {
        let mut manager = timemgr::time_manager_from_str("legacy").unwrap();
        let params = go("go btime 10000").params;
        let ctx = MoveContext { white_to_move: true, ..MoveContext::default() };
        assert!(ManagedMove::plan(manager.as_mut(), &params, &ctx).is_none());
    }
}
