//! The UCI front end.
