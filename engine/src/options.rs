//! The engine options registry: one declaration feeds UCI options, command-line flags and help.
