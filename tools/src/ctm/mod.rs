//! CTM-Net, the learned time manager of Rheude's thesis (TU Darmstadt, 2021): human clock data from PGNs
//! ([`clock_pgn`], [`samples`], [`features`], [`dataset`]) and the three network architectures trained on it
//! with tch ([`model`], [`train`], [`plot`]); [`command`] holds the `tm-data` and `tm-train` front ends, [`predict`] `tm-predict`.
//! A second target needs no human data: [`label`] (`tm-label`) labels [`positions`] by how much more of Kairos's
//! own search changes the decision ([`instability`]).

pub mod clock_pgn;
pub mod command;
pub mod dataset;
pub mod features;
pub mod instability;
pub mod label;
pub mod model;
pub mod plot;
pub mod positions;
pub mod predict;
pub mod samples;
pub mod train;

use std::path::PathBuf;

/// Everything that can go wrong while building a CTM dataset or training a net.
#[derive(Debug, thiserror::Error)]
pub enum CtmError {
    /// A file could not be opened, read or written (the operating system's reason follows as the source).
    #[error("{path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A game could not be used; the message names the game and the way out.
    #[error("{path}, game {game}{site}: {reason}")]
    BadGame {
        /// The PGN file.
        path: PathBuf,
        /// 1-based number of the game in its file.
        game: usize,
        /// ` (Site)` when the game has one, else empty.
        site: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A dataset or model file is not what this code writes.
    #[error("{path}: {reason}")]
    BadFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A flag's value or a combination of inputs cannot be used.
    #[error("{0}")]
    Invalid(String),
    /// A model file that timemgr's reader refuses; the message names the file and the way out.
    #[error(transparent)]
    Model(#[from] timemgr::ctm::ModelError),
    /// libtorch reported an error.
    #[error("libtorch: {0}")]
    Torch(#[from] tch::TchError),
}
