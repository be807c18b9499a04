//! Game state on shakmaty: history, repetitions, draws by rule, the game ply (LC0-NOTES §4.7).

mod game;
mod history;
mod material;
mod packed_move;

pub use game::{GameOutcome, GameState, PositionError};
pub use history::{PositionHistory, PositionKey};
pub use material::has_mating_material;
pub use packed_move::PackedMove;
