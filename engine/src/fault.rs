//! Faults: the text of a panic, for the error a caught one becomes, and fault injection for the reliability
//! tests (#35). With `KAIROS_INJECT_FAULT=PLACE` (or `PLACE:N`) in its
//! environment the engine panics at PLACE, so that a test can show that no panic leaves a `go` unanswered:
//!
//! * `go`: the UCI session handling `go`, before the search starts;
//! * `search:N`: a search thread, in the search's N-th iteration (default 1), holding the tree lock;
//! * `bestmove`: choosing the best move, holding the search's locks;
//! * `end-of-move`: the time manager's learning after the best move was sent.
//!
//! Read when a search starts; without the variable nothing happens.

use std::any::Any;
use std::panic::panic_any;

/// The text of a panic's payload (a `&str` or a `String`, as `panic!` makes them).
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| text.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_owned())
}

/// The environment variable that names the fault.
pub const FAULT_VARIABLE: &str = "KAIROS_INJECT_FAULT";

/// Where a fault can be injected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultPlace {
    /// The UCI session's handling of `go`, before the search starts.
    Go,
    /// A search thread's iteration.
    Search,
    /// The choice of the best move.
    BestMove,
    /// The time manager's learning at the end of a move.
    EndOfMove,
}

/// The injected fault of this process, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    place: FaultPlace,
    at: u64,
}

impl Fault {
    /// The fault `KAIROS_INJECT_FAULT` names; None when it is unset or names no place.
    pub fn from_env() -> Option<Self> {
        Self::parse(&std::env::var(FAULT_VARIABLE).ok()?)
    }

    /// `PLACE` or `PLACE:N`.
    pub fn parse(text: &str) -> Option<Self> {
        let (place, at) = match text.split_once(':') {
            Some((place, at)) => (place, at.trim().parse().ok()?),
            None => (text, 1),
        };
        let place = match place.trim() {
            "go" => FaultPlace::Go,
            "search" => FaultPlace::Search,
            "bestmove" => FaultPlace::BestMove,
            "end-of-move" => FaultPlace::EndOfMove,
            _ => return None,
        };
        Some(Self { place, at })
    }

    /// Panics if this is the fault at `place` and `count` has reached its N.
    pub fn strike(this: Option<Self>, place: FaultPlace, count: u64) {
        if let Some(fault) = this.filter(|fault| fault.place == place && count >= fault.at) {
            panic_any(format!("injected fault at {:?} ({FAULT_VARIABLE})", fault.place));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_and_counts_parse_and_anything_else_is_no_fault() {
        assert_eq!(Fault::parse("search:3"), Some(Fault { place: FaultPlace::Search, at: 3 }));
        assert_eq!(Fault::parse("bestmove"), Some(Fault { place: FaultPlace::BestMove, at: 1 }));
        assert_eq!(Fault::parse("end-of-move"), Some(Fault { place: FaultPlace::EndOfMove, at: 1 }));
        assert_eq!(Fault::parse("search:x"), None);
        assert_eq!(Fault::parse("elsewhere"), None);
        let fault = Fault::parse("search:2");
        Fault::strike(fault, FaultPlace::Search, 1);
        Fault::strike(fault, FaultPlace::BestMove, 5);
        assert!(std::panic::catch_unwind(|| Fault::strike(fault, FaultPlace::Search, 2)).is_err());
    }
}
