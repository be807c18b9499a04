//! `kairos bench` and `kairos benchmark`.
