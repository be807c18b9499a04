//! Game state on shakmaty: history, repetitions, draws by rule, the game ply (docs/lc0/search.md §4.7).

mod game;
mod history;
mod lc0_move_order;
mod material;
mod notation;
mod packed_move;

pub use game::{GameOutcome, GameState, PositionError};
pub use history::{PositionHistory, PositionKey};
pub use lc0_move_order::lc0_move_order;
pub use material::has_mating_material;
pub use nn::fen::chess_from_fen;
pub use notation::uci_move;
pub use packed_move::PackedMove;
