//! What the wrapped engine's `info` lines tell the time manager: how many nodes its search made, and how fast.

/// The last `nodes` and `nps` the wrapped engine reported during one search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchCounts {
    /// `nodes` of the last `info` line that had one.
    pub nodes: Option<u64>,
    /// `nps` of the last `info` line that had one.
    pub nps: Option<u64>,
}

impl SearchCounts {
    /// Takes `nodes` and `nps` from an `info` line (the fields before `string` or `pv`); other lines and
    /// values that are no numbers change nothing.
    pub fn absorb(&mut self, line: &str) {
        let mut words = line.split_whitespace();
        if words.next() != Some("info") {
            return;
        }
        while let Some(word) = words.next() {
            match word {
                "string" | "pv" => break,
                "nodes" => self.nodes = words.next().and_then(|value| value.parse().ok()).or(self.nodes),
                "nps" => self.nps = words.next().and_then(|value| value.parse().ok()).or(self.nps),
                _ => {}
            }
        }
    }

    /// The search's nodes after `elapsed_ms`: the last count, else the last speed times the time.
    pub fn nodes_after(&self, elapsed_ms: u64) -> Option<u64> {
        self.nodes.or_else(|| self.nps.map(|nps| nps.saturating_mul(elapsed_ms) / 1000))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_count_wins_and_strings_and_pvs_are_not_read() {
        let mut counts = SearchCounts::default();
        counts.absorb(
            "info depth 12 seldepth 18 multipv 1 score cp 31 nodes 48213 nps 963000 hashfull 12 time 50 pv e2e4",
        );
        counts.absorb("info depth 13 currmove e2e4 currmovenumber 1");
        counts.absorb("info string nodes 7 nps 9");
        counts.absorb("info depth 14 pv e2e4 nodes 5");
        counts.absorb("bestmove e2e4 nodes 3");
        assert_eq!(counts, SearchCounts { nodes: Some(48213), nps: Some(963000) });
        counts.absorb("info nodes many nps 1200000");
        assert_eq!(counts, SearchCounts { nodes: Some(48213), nps: Some(1_200_000) });
    }

    #[test]
    fn without_a_count_the_speed_gives_the_nodes() {
        let speed_only = SearchCounts { nodes: None, nps: Some(800_000) };
        assert_eq!(speed_only.nodes_after(250), Some(200_000));
        assert_eq!(SearchCounts { nodes: Some(10), nps: Some(800_000) }.nodes_after(250), Some(10));
        assert_eq!(SearchCounts::default().nodes_after(250), None);
    }
}
