//! Game state on shakmaty: history, repetitions, draws by rule, the game ply.
