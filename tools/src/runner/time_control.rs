//! Time controls and the runner's own clock for one side.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How much thinking one side gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TimeControl {
    /// `[moves/]base+increment` in seconds: base time per period of `moves_to_go` moves (or the whole game),
    /// plus `increment_ms` after every move (Fischer).
    Fischer {
        /// Moves per period; `None` for sudden death.
        moves_to_go: Option<u32>,
        /// Time per period in ms.
        base_ms: u64,
        /// Time added after each move in ms.
        increment_ms: u64,
    },
    /// `base~delay`: Bronstein delay, the clock gets back the time used, at most `delay_ms`.
    Bronstein {
        /// Time for the game in ms.
        base_ms: u64,
        /// Largest refund per move in ms.
        delay_ms: u64,
    },
    /// `movetime=ms` as a time-control value: a fixed time per move.
    MoveTime(u64),
    /// `nodes=N`: a fixed node count per move, no clock.
    Nodes(u64),
}

/// A time-control string that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "bad time control '{0}': use base+inc in seconds (10+0.1), moves/base+inc (40/60+0), base~delay (60~2), \
     movetime=MS or nodes=N"
)]
pub struct TimeControlError(pub String);

fn seconds_to_ms(text: &str, whole: &str) -> Result<u64, TimeControlError> {
    let seconds: f64 = text.trim().parse().map_err(|_| TimeControlError(whole.to_owned()))?;
    if !(seconds.is_finite() && seconds >= 0.0) {
        return Err(TimeControlError(whole.to_owned()));
    }
    Ok((seconds * 1000.0).round() as u64)
}

impl FromStr for TimeControl {
    type Err = TimeControlError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || TimeControlError(text.to_owned());
        if let Some(ms) = text.strip_prefix("movetime=") {
            return ms.parse().map(TimeControl::MoveTime).map_err(|_| bad());
        }
        if let Some(nodes) = text.strip_prefix("nodes=") {
            return nodes.parse().ok().filter(|&n| n > 0).map(TimeControl::Nodes).ok_or_else(bad);
        }
        if let Some((base, delay)) = text.split_once('~') {
            return Ok(TimeControl::Bronstein {
                base_ms: seconds_to_ms(base, text)?,
                delay_ms: seconds_to_ms(delay, text)?,
            });
        }
        let (moves_to_go, clock) = match text.split_once('/') {
            Some((moves, clock)) => (Some(moves.parse::<u32>().ok().filter(|&m| m > 0).ok_or_else(bad)?), clock),
            None => (None, text),
        };
        let (base, increment) = clock.split_once('+').unwrap_or((clock, "0"));
        let base_ms = seconds_to_ms(base, text)?;
        if base_ms == 0 {
            return Err(bad());
        }
        Ok(TimeControl::Fischer { moves_to_go, base_ms, increment_ms: seconds_to_ms(increment, text)? })
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = |ms: u64| ms as f64 / 1000.0;
        match *self {
            TimeControl::Fischer { moves_to_go: Some(m), base_ms, increment_ms } => {
                write!(f, "{m}/{}+{}", s(base_ms), s(increment_ms))
            }
            TimeControl::Fischer { moves_to_go: None, base_ms, increment_ms } => {
                write!(f, "{}+{}", s(base_ms), s(increment_ms))
            }
            TimeControl::Bronstein { base_ms, delay_ms } => write!(f, "{}~{}", s(base_ms), s(delay_ms)),
            TimeControl::MoveTime(ms) => write!(f, "movetime={ms}"),
            TimeControl::Nodes(n) => write!(f, "nodes={n}"),
        }
    }
}

/// The runner's clock for one side of one game.
#[derive(Clone, Debug)]
pub struct SideClock {
    control: TimeControl,
    remaining_ms: i64,
    moves_made: u32,
}

/// The `go` limits one side is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoLimits {
    /// Clock time left, increment and moves to the next time control.
    Clock {
        /// Time left in ms.
        remaining_ms: u64,
        /// Increment in ms.
        increment_ms: u64,
        /// Moves to the next time control, if any.
        moves_to_go: Option<u32>,
    },
    /// `go movetime`.
    MoveTime(u64),
    /// `go nodes`.
    Nodes(u64),
}

impl SideClock {
    /// A full clock at the start of a game.
    pub fn new(control: TimeControl) -> Self {
        let remaining_ms = match control {
            TimeControl::Fischer { base_ms, .. } | TimeControl::Bronstein { base_ms, .. } => base_ms as i64,
            TimeControl::MoveTime(ms) => ms as i64,
            TimeControl::Nodes(_) => 0,
        };
        SideClock { control, remaining_ms, moves_made: 0 }
    }

    /// Whether this side can lose on time (fixed-node searches cannot).
    pub fn is_timed(&self) -> bool {
        !matches!(self.control, TimeControl::Nodes(_))
    }

    /// Whether this side has a running clock (Fischer or Bronstein) whose time left is worth recording.
    pub fn has_clock(&self) -> bool {
        matches!(self.control, TimeControl::Fischer { .. } | TimeControl::Bronstein { .. })
    }

    /// Time left in ms (the move time for fixed-time moves, 0 for fixed nodes).
    pub fn remaining_ms(&self) -> i64 {
        self.remaining_ms
    }

    /// What the next `go` command says.
    pub fn go_limits(&self) -> GoLimits {
        let remaining_ms = self.remaining_ms.max(0) as u64;
        match self.control {
            TimeControl::Fischer { moves_to_go, increment_ms, .. } => GoLimits::Clock {
                remaining_ms,
                increment_ms,
                moves_to_go: moves_to_go.map(|m| m - self.moves_made % m),
            },
            TimeControl::Bronstein { .. } => GoLimits::Clock { remaining_ms, increment_ms: 0, moves_to_go: None },
            TimeControl::MoveTime(ms) => GoLimits::MoveTime(ms),
            TimeControl::Nodes(n) => GoLimits::Nodes(n),
        }
    }

    /// Charges `used_ms` for one move; returns false (a time loss) when it exceeds the time left plus `margin_ms`.
    pub fn charge(&mut self, used_ms: u64, margin_ms: u64) -> bool {
        let used = used_ms as i64;
        let in_time = used <= self.remaining_ms + margin_ms as i64;
        self.moves_made += 1;
        match self.control {
            TimeControl::Fischer { moves_to_go, base_ms, increment_ms } => {
                self.remaining_ms -= used;
                if in_time {
                    self.remaining_ms += increment_ms as i64;
                    if moves_to_go.is_some_and(|m| self.moves_made.is_multiple_of(m)) {
                        self.remaining_ms += base_ms as i64;
                    }
                }
            }
            TimeControl::Bronstein { delay_ms, .. } => {
                self.remaining_ms -= used;
                if in_time {
                    self.remaining_ms += used.min(delay_ms as i64);
                }
            }
            TimeControl::MoveTime(_) | TimeControl::Nodes(_) => {}
        }
        in_time || !self.is_timed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form() {
        assert_eq!(
            "10+0.1".parse(),
            Ok(TimeControl::Fischer { moves_to_go: None, base_ms: 10_000, increment_ms: 100 })
        );
        assert_eq!(
            "40/60+0".parse(),
            Ok(TimeControl::Fischer { moves_to_go: Some(40), base_ms: 60_000, increment_ms: 0 })
        );
        assert_eq!("5".parse(), Ok(TimeControl::Fischer { moves_to_go: None, base_ms: 5000, increment_ms: 0 }));
        assert_eq!("60~2".parse(), Ok(TimeControl::Bronstein { base_ms: 60_000, delay_ms: 2000 }));
        assert_eq!("movetime=250".parse(), Ok(TimeControl::MoveTime(250)));
        assert_eq!("nodes=800".parse(), Ok(TimeControl::Nodes(800)));
        for bad in ["", "x+1", "0+1", "-1+0", "0/10+0", "nodes=0", "10+inf"] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad} should not parse");
        }
    }

    #[test]
    fn fischer_adds_increment_and_period_time() {
        let mut clock = SideClock::new("2/10+1".parse().unwrap());
        assert_eq!(
            clock.go_limits(),
            GoLimits::Clock { remaining_ms: 10_000, increment_ms: 1000, moves_to_go: Some(2) }
        );
        assert!(clock.charge(3000, 0));
        assert_eq!(clock.remaining_ms(), 8000);
        assert_eq!(clock.go_limits(), GoLimits::Clock { remaining_ms: 8000, increment_ms: 1000, moves_to_go: Some(1) });
        assert!(clock.charge(4000, 0));
        assert_eq!(clock.remaining_ms(), 15_000);
    }

    #[test]
    fn bronstein_never_gains_more_than_the_time_used() {
        let mut clock = SideClock::new("10~2".parse().unwrap());
        assert!(clock.charge(500, 0));
        assert_eq!(clock.remaining_ms(), 10_000);
        assert!(clock.charge(3000, 0));
        assert_eq!(clock.remaining_ms(), 9000);
    }

    #[test]
    fn overrun_beyond_the_margin_is_a_time_loss() {
        let mut clock = SideClock::new("1+0".parse().unwrap());
        assert!(clock.charge(1050, 50));
        let mut clock = SideClock::new("1+0".parse().unwrap());
        assert!(!clock.charge(1051, 50));
        assert!(clock.remaining_ms() < 0);
        let mut nodes = SideClock::new("nodes=100".parse().unwrap());
        assert!(nodes.charge(1_000_000, 0));
    }
}
