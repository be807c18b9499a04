//! Kairos: positions and history, the PUCT search, stoppers, the UCI loop, the benchmarks, the decision probe
//! of `tm-label` (does more search change the move?) and `tm-proxy` (a Kairos time manager in front of any UCI
//! engine); the `kairos` binary (crate `kairos`) puts the command-line modes on top.

#![warn(missing_docs)]

pub mod bench;
pub mod build_info;
pub mod clock;
pub mod decision;
pub mod fault;
pub mod memory;
pub mod options;
pub mod position;
pub mod search;
pub mod tablebase;
pub mod tm_proxy;
pub mod uci;
