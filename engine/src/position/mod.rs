//! Game state on shakmaty: history, repetitions, draws by rule, the game ply (LC0-NOTES §4.7).

mod game;
mod history;
mod material;
mod notation;
mod packed_move;

pub use game::{GameOutcome, GameState, PositionError};
pub use history::{PositionHistory, PositionKey};
pub use material::has_mating_material;
pub use notation::{uci_move, uci_notation};
pub use packed_move::PackedMove;
