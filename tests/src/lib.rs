//! Shared helpers for the end-to-end tests (paths to the binary, the network and the reference data).
