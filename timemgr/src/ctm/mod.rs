//! CTM-Net, the learned time manager of Rheude's thesis (TU Darmstadt, 2021), at play time: the pieces on the
//! board ([`placement`]), the thesis's 769 inputs ([`features`], shared with `kairos tm-data`), the model file
//! that `kairos tm-train` writes ([`model_file`]) and the nets' forward pass in plain Rust ([`network`]). The
//! manager itself is [`crate::managers::ctm`].

pub mod features;
mod layers;
pub mod model_file;
pub mod network;
pub mod placement;

pub use model_file::{Architecture, ModelError, ModelFile, Normalisation, TargetKind};
pub use network::CtmNetwork;
pub use placement::{Colour, Piece, PiecePlacement, Role};
