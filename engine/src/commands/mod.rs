//! The command-line modes of the kairos binary.
