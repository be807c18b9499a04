//! The 112 input planes (docs/lc0/network.md §5.9): 8 history slots of 13 planes from the side to move's view,
//! lc0's three history fills (`no`, `fen_only`, `always`) with the en-passant undo, the auxiliary planes of input
//! formats 1, 2, 3, 4, 5, 132 and 133, and the canonical formats' board transform (lc0 `src/neural/encoder.cc`,
//! `EncodePositionForNN` and `ChooseTransform`; the transforms themselves in `src/utils/bititer.h`).

use std::cmp::Ordering;
use std::iter;

use shakmaty::{Bitboard, CastlingSide, Chess, Color, File, Position, Rank, Role, Square};

use crate::backend::HistoryEntry;
use crate::network::InputFormat;

/// The number of input planes.
pub const PLANES: usize = 112;
const HISTORY_SLOTS: usize = 8;
const PLANES_PER_SLOT: usize = 13;
const AUX: usize = HISTORY_SLOTS * PLANES_PER_SLOT;
/// The first of the auxiliary planes (castling, side to move, rule-50 count, …), which follow the history's and
/// are often whole planes of one value.
pub const FIRST_AUXILIARY_PLANE: usize = AUX;
/// The last plane the canonical transform applies to (the en-passant plane); lc0 leaves the rest alone.
const LAST_TRANSFORMED: usize = AUX + 4;
const ROLES: [Role; 6] = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King];

/// One input plane: `value` on the squares of `mask` (bit = square, a1 = 0), zero elsewhere.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Plane {
    /// The squares set.
    pub mask: u64,
    /// Their value.
    pub value: f32,
}

impl Plane {
    fn ones(mask: u64) -> Self {
        Self { mask, value: 1.0 }
    }
}

/// The encoded input of one position.
pub type InputPlanes = [Plane; PLANES];

/// A symmetry of the board, in the side to move's frame, that the canonical formats apply to the planes
/// so that the network sees fewer distinct positions; the policy comes back in the same frame.
///
/// lc0 composes three reflections in a fixed order (`src/neural/encoder.cc`): files (a↔h), then ranks
/// (1↔8), then the a8–h1 diagonal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BoardTransform(u8);

impl BoardTransform {
    /// No transform: the plain side-to-move frame, as in formats 1 and 2.
    pub const IDENTITY: Self = Self(0);
    const FLIP_FILES: u8 = 1;
    const FLIP_RANKS: u8 = 2;
    const TRANSPOSE: u8 = 4;

    /// The transform with lc0's bit code (1 files, 2 ranks, 4 diagonal), as lc0's `transform_out` gives it;
    /// `None` for a code above 7.
    pub fn from_lc0_code(code: u8) -> Option<Self> {
        (code < 8).then_some(Self(code))
    }

    /// lc0's bit code of the transform, for comparing with lc0 and for logs.
    pub fn lc0_code(self) -> u8 {
        self.0
    }

    fn with(self, bit: u8) -> Self {
        Self(self.0 | bit)
    }

    fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }

    /// The squares of `bitboard` moved by the transform.
    pub fn apply(self, bitboard: Bitboard) -> Bitboard {
        let mut result = bitboard;
        if self.has(Self::FLIP_FILES) {
            result = result.flip_horizontal();
        }
        if self.has(Self::FLIP_RANKS) {
            result = result.flip_vertical();
        }
        if self.has(Self::TRANSPOSE) {
            result = result.flip_anti_diagonal();
        }
        result
    }

    /// Where lc0 909a4082's `MoveToNNIndex` moves `square`: as [`BoardTransform::apply_square`] without the
    /// transpose bit; with it, files and ranks both reversed (a half turn) whatever the other bits.
    pub fn apply_square_as_lc0_moves(self, square: Square) -> Square {
        let mut result = square;
        if self.has(Self::FLIP_RANKS) || self.has(Self::TRANSPOSE) {
            result = result.flip_vertical();
        }
        if self.has(Self::FLIP_FILES) || self.has(Self::TRANSPOSE) {
            result = result.flip_horizontal();
        }
        result
    }

    /// Where the transform moves `square`: the same map as [`BoardTransform::apply`], for policy moves.
    pub fn apply_square(self, square: Square) -> Square {
        // Every step is a bijection of the squares: one square in, one out.
        self.apply(Bitboard::from_square(square)).first().unwrap_or(square)
    }
}

/// A position's network input and the transform it was encoded under, which the policy lookup needs.
#[derive(Clone, Debug, PartialEq)]
pub struct EncodedPosition {
    /// The 112 planes.
    pub planes: InputPlanes,
    /// The board transform applied to the planes (identity outside the canonical formats).
    pub transform: BoardTransform,
}

/// When the history slots older than the first known position are filled with copies of it (lc0's `HistoryFill`,
/// `FillEmptyHistory` in `src/neural/encoder.h`): networks were trained on games whose first slots were empty at the
/// start position and filled after a FEN.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HistoryFill {
    /// Never; only a first position with an en-passant square gets one copy, its double push undone (the move
    /// before it is known).
    No,
    /// Unless the first position is the start position (lc0's default).
    #[default]
    FenOnly,
    /// Always, the start position too.
    Always,
}

impl HistoryFill {
    /// Every fill's name, as lc0's option writes it, in the order of [`HistoryFill::ALL`].
    pub const NAMES: &'static [&'static str] = &["no", "fen_only", "always"];
    /// Every fill, in the order of [`HistoryFill::NAMES`].
    pub const ALL: [Self; 3] = [Self::No, Self::FenOnly, Self::Always];

    /// How many copies of the first position may follow the game's positions.
    fn copies(self, history: &[HistoryEntry]) -> usize {
        match self {
            Self::No => usize::from(lc0_ep_square(history, 0).is_some()),
            Self::FenOnly if is_start_position(&history[0].position) => 0,
            Self::FenOnly | Self::Always => HISTORY_SLOTS,
        }
    }
}

/// How castling rights are written.
#[derive(Clone, Copy)]
enum CastlingPlanes {
    /// Format 1: four all-ones planes (our queenside, our kingside, their queenside, their kingside).
    FourRights,
    /// Formats 2 and up: the squares of the rooks that may castle, queenside then kingside.
    RookSquares,
}

/// What an input format changes, after lc0's `IsCanonicalFormat`, `IsHectopliesFormat` and
/// `IsCanonicalArmageddonFormat` (`src/neural/encoder.cc`).
#[derive(Clone, Copy)]
struct FormatRules {
    castling: CastlingPlanes,
    /// Board transform, en-passant plane instead of the side-to-move plane, and a history that stops
    /// where the transform could have changed.
    canonical: bool,
    /// The fifty-move counter divided by 100.
    hectoplies: bool,
    /// Plane 110 all ones when black is to move.
    armageddon: bool,
    /// V2: the older slots hold only repeated positions, searched back to the last capture or pawn move.
    repeats_only: bool,
}

impl FormatRules {
    fn of(format: InputFormat) -> Self {
        let canonical = |hectoplies, armageddon, repeats_only| Self {
            castling: CastlingPlanes::RookSquares,
            canonical: true,
            hectoplies,
            armageddon,
            repeats_only,
        };
        let plain =
            |castling| Self { castling, canonical: false, hectoplies: false, armageddon: false, repeats_only: false };
        match format {
            InputFormat::Classical => plain(CastlingPlanes::FourRights),
            InputFormat::CastlingPlane => plain(CastlingPlanes::RookSquares),
            InputFormat::Canonical => canonical(false, false, false),
            InputFormat::CanonicalHectoplies => canonical(true, false, false),
            InputFormat::CanonicalHectopliesArmageddon => canonical(true, true, false),
            InputFormat::CanonicalV2 => canonical(true, false, true),
            InputFormat::CanonicalV2Armageddon => canonical(true, true, true),
        }
    }
}

/// Encodes a position with its history; `None` when the history is empty.
///
/// `history` is the game from its first known position; the first entry is taken as that position (its
/// en-passant square as its FEN gave it, the source of the fill's copies, which `fill` says when to make).
///
/// Formats 5 and 133 (V2) part from lc0 909a4082 in one case. V2 skips positions that are not repetitions
/// and stops at a capture or pawn move; when its search runs past the first known position without
/// meeting one (a game from a FEN with a non-zero fifty-move counter, no zeroing move since), lc0 goes on
/// into the `fen_only` or `always` fill copies, skips each (a copy is no repetition) and never stops: its
/// history index runs down until it overflows and lc0 crashes (SIGSEGV after about 4 s, in `go` as in its Python
/// bindings). Kairos ends the search at the first known position: V2 never fills, so the older slots keep
/// only the repetitions found, as whenever lc0 does finish (and as lc0's `no` fill always does).
pub fn encode_position(history: &[HistoryEntry], format: InputFormat, fill: HistoryFill) -> Option<EncodedPosition> {
    let mut planes = [Plane::default(); PLANES];
    let transform = encode_position_into(history, format, fill, &mut planes)?;
    Some(EncodedPosition { planes, transform })
}

/// [`encode_position`] into `planes`, which it overwrites whole, returning the transform: a batch's encoder writes
/// each position in place, where returning the 1.8 KB of planes cost two copies a position.
pub fn encode_position_into(
    history: &[HistoryEntry],
    format: InputFormat,
    fill: HistoryFill,
    planes: &mut InputPlanes,
) -> Option<BoardTransform> {
    let current = &history.last()?.position;
    let rules = FormatRules::of(format);
    let transform = if rules.canonical { choose_transform(current) } else { BoardTransform::IDENTITY };
    *planes = [Plane::default(); PLANES];
    let current_ep = lc0_ep_square(history, history.len() - 1);
    write_aux_planes(planes, current, current_ep, rules);
    write_history(planes, history, rules, fill);
    // Outside the canonical formats, and in them while anyone may castle, the transform is the identity.
    if transform != BoardTransform::IDENTITY {
        for plane in &mut planes[..=LAST_TRANSFORMED] {
            plane.mask = transform.apply(Bitboard(plane.mask)).0;
        }
    }
    Some(transform)
}

/// Appends to `into` the entries of `history` that [`encode_position`] reads in `format`, so that a batch can be
/// encoded from a copy after the search has let go of its tree, as lc0 encodes outside its lock. The copy is the
/// first known position (the fill's source and the only one whose en-passant square comes from a FEN) and the
/// newest entries the format looks back over: eight, or in the V2 formats back to the last capture or pawn move.
/// It encodes as the whole history does. When the history is cut, the look-back ends before it reaches the first
/// entry, which the copy keeps so that it starts, as the game does, at the first known position.
pub fn copy_read_history(history: &[HistoryEntry], format: InputFormat, into: &mut Vec<HistoryEntry>) {
    let Some(newest) = history.last() else {
        return;
    };
    let looked_back =
        if FormatRules::of(format).repeats_only { newest.position.halfmoves() as usize + 1 } else { HISTORY_SLOTS };
    if history.len() <= looked_back + 1 {
        into.extend_from_slice(history);
    } else {
        into.push(history[0].clone());
        into.extend_from_slice(&history[history.len() - looked_back..]);
    }
}

/// The bitboard in `us`'s frame: mirrored top to bottom when black is to move.
fn side_to_move_frame(bitboard: Bitboard, us: Color) -> Bitboard {
    match us {
        Color::White => bitboard,
        Color::Black => bitboard.flip_vertical(),
    }
}

/// lc0's `ChooseTransform`: none while anyone may castle; otherwise put our king on the e–h files, and
/// without pawns also on ranks 1–4 and below the a8–h1 diagonal, breaking a tie on the diagonal by
/// comparing the transposed piece sets.
fn choose_transform(position: &Chess) -> BoardTransform {
    let us = position.turn();
    let board = position.board();
    let Some(mut king) = board.king_of(us) else {
        return BoardTransform::IDENTITY;
    };
    if position.castles().any() {
        return BoardTransform::IDENTITY;
    }
    if us == Color::Black {
        king = king.flip_vertical();
    }
    let mut transform = BoardTransform::IDENTITY;
    if king.file() <= File::D {
        transform = transform.with(BoardTransform::FLIP_FILES);
        king = king.flip_horizontal();
    }
    if board.pawns().any() {
        return transform;
    }
    if king.rank() >= Rank::Fifth {
        transform = transform.with(BoardTransform::FLIP_RANKS);
        king = king.flip_vertical();
    }
    let transposes = match (u32::from(king.file()) + u32::from(king.rank())).cmp(&7) {
        Ordering::Greater => true,
        Ordering::Equal => transposed_is_smaller(board, us, transform),
        Ordering::Less => false,
    };
    if transposes {
        transform.with(BoardTransform::TRANSPOSE)
    } else {
        transform
    }
}

/// lc0's tie-break for a king on the diagonal: the first of these piece sets that the transpose changes
/// decides, transposing if that makes its bitboard (as an integer) smaller.
fn transposed_is_smaller(board: &shakmaty::Board, us: Color, transform: BoardTransform) -> bool {
    let sets = [
        board.occupied(),
        board.by_color(us),
        board.kings(),
        board.queens(),
        board.rooks(),
        board.knights(),
        board.bishops(),
    ];
    sets.into_iter()
        .map(|set| {
            let plain = transform.apply(side_to_move_frame(set, us));
            plain.0.cmp(&plain.flip_anti_diagonal().0)
        })
        .find(|order| order.is_ne())
        == Some(Ordering::Greater)
}

/// lc0's en-passant flag of `history[index]`: as the FEN gave it for the first known position, and after
/// a move only where an enemy pawn attacks the passed square (lc0's `ChessBoard::ApplyMove`).
pub(crate) fn lc0_ep_square(history: &[HistoryEntry], index: usize) -> Option<Square> {
    let position = &history[index].position;
    if index == 0 {
        position.maybe_ep_square()
    } else {
        position.pseudo_legal_ep_square()
    }
}

/// Planes 104–111: castling, side to move or en passant, the fifty-move counter, armageddon, all ones.
fn write_aux_planes(planes: &mut InputPlanes, current: &Chess, current_ep: Option<Square>, rules: FormatRules) {
    let us = current.turn();
    let castles = current.castles();
    match rules.castling {
        CastlingPlanes::FourRights => {
            let right = |color, side| {
                if castles.has(color, side) {
                    Plane::ones(!0)
                } else {
                    Plane::default()
                }
            };
            planes[AUX] = right(us, CastlingSide::QueenSide);
            planes[AUX + 1] = right(us, CastlingSide::KingSide);
            planes[AUX + 2] = right(!us, CastlingSide::QueenSide);
            planes[AUX + 3] = right(!us, CastlingSide::KingSide);
        }
        CastlingPlanes::RookSquares => {
            let rooks = |side| {
                let squares = [Color::White, Color::Black]
                    .into_iter()
                    .filter_map(|color| castles.rook(color, side))
                    .fold(Bitboard::EMPTY, |acc, sq| acc | Bitboard::from_square(sq));
                Plane::ones(side_to_move_frame(squares, us).0)
            };
            planes[AUX] = rooks(CastlingSide::QueenSide);
            planes[AUX + 1] = rooks(CastlingSide::KingSide);
        }
    }
    if rules.canonical {
        // lc0 keeps the en-passant flag as a pawn on the far rank, on the file of the pawn that moved.
        let marker = current_ep
            .map_or(Bitboard::EMPTY, |ep| Bitboard::from_square(Square::from_coords(ep.file(), Rank::Eighth)));
        planes[AUX + 4] = Plane::ones(marker.0);
    } else if us == Color::Black {
        planes[AUX + 4] = Plane::ones(!0);
    }
    let halfmoves = current.halfmoves() as f32;
    planes[AUX + 5] = Plane { mask: !0, value: if rules.hectoplies { halfmoves / 100.0 } else { halfmoves } };
    if rules.armageddon && us == Color::Black {
        planes[AUX + 6] = Plane::ones(!0);
    }
    planes[AUX + 7] = Plane::ones(!0);
}

/// The history slots, newest first: the game's positions back from the current one, then the copies of the
/// first known position that `fill` makes, none in V2.
fn write_history(planes: &mut InputPlanes, history: &[HistoryEntry], rules: FormatRules, fill: HistoryFill) {
    let newest = history.len() - 1;
    let current = &history[newest].position;
    let us = current.turn();
    let fill = if rules.repeats_only { 0 } else { fill.copies(history) };
    let candidates = (0..=newest).rev().map(|index| (index, false)).chain(iter::repeat_n((0, true), fill));
    let mut slot = 0;
    for (index, synthesized) in candidates {
        if slot == HISTORY_SLOTS {
            break;
        }
        let entry = &history[index];
        let is_current = index == newest && !synthesized;
        if rules.canonical && crosses_transform_change(history, index, is_current, current) {
            break;
        }
        if rules.repeats_only && !is_current && entry.repetitions == 0 {
            if entry.position.halfmoves() == 0 {
                break;
            }
            continue;
        }
        write_board(planes, slot * PLANES_PER_SLOT, entry, us);
        if synthesized {
            if let Some(ep) = lc0_ep_square(history, index) {
                undo_double_push(planes, slot * PLANES_PER_SLOT, ep, entry.position.turn(), us);
            }
        }
        slot += 1;
        // A capture or pawn move: nothing older can repeat, so the canonical formats stop here.
        if rules.canonical && entry.position.halfmoves() == 0 {
            break;
        }
    }
}

/// Whether a canonical history must stop before `history[index]`: its castling rights differ from the
/// current ones, or it is an older position with an en-passant flag (either could change the transform).
fn crosses_transform_change(history: &[HistoryEntry], index: usize, is_current: bool, current: &Chess) -> bool {
    let position = &history[index].position;
    position.castles().castling_rights() != current.castles().castling_rights()
        || (!is_current && lc0_ep_square(history, index).is_some())
}

/// Writes one history slot: our six piece planes, their six, and the repetition plane.
fn write_board(planes: &mut InputPlanes, base: usize, entry: &HistoryEntry, us: Color) {
    let board = entry.position.board();
    for (offset, role) in ROLES.iter().enumerate() {
        let pieces = |color| Plane::ones(side_to_move_frame(board.by_piece(role.of(color)), us).0);
        planes[base + offset] = pieces(us);
        planes[base + 6 + offset] = pieces(!us);
    }
    if entry.repetitions >= 1 {
        planes[base + 12] = Plane::ones(!0);
    }
}

/// Puts the pawn that made the double push recorded by `ep` back on its starting square.
fn undo_double_push(planes: &mut InputPlanes, base: usize, ep: Square, turn_at_ep: Color, us: Color) {
    let pusher = !turn_at_ep;
    let (to, from) = match pusher {
        Color::White => (u32::from(ep) + 8, u32::from(ep) - 8),
        Color::Black => (u32::from(ep) - 8, u32::from(ep) + 8),
    };
    let plane = if pusher == us { base } else { base + 6 };
    let moved = side_to_move_frame(Bitboard(1 << to), us).0;
    let origin = side_to_move_frame(Bitboard(1 << from), us).0;
    planes[plane].mask = (planes[plane].mask & !moved) | origin;
}

fn is_start_position(position: &Chess) -> bool {
    let start = Chess::default();
    position.board() == start.board()
        && position.turn() == Color::White
        && position.castles().castling_rights() == start.castles().castling_rights()
        && position.maybe_ep_square().is_none()
}

/// Writes the planes as a dense `[112][8][8]` f32 tensor into `out` (length 112·64).
pub fn write_dense(planes: &InputPlanes, out: &mut [f32]) {
    for (plane, chunk) in planes.iter().zip(out.chunks_exact_mut(64)) {
        for (square, value) in chunk.iter_mut().enumerate() {
            *value = if plane.mask >> square & 1 == 1 { plane.value } else { 0.0 };
        }
    }
}

/// The positions' input planes written as `[slots][64 squares][112 planes]` into `x` (whose length gives the
/// slots), straight from their bit masks, each plane's value converted once by `convert`; slots past the positions
/// (a padded batch's) are zeros.
pub fn write_square_major_input<T: Copy>(positions: &[InputPlanes], x: &mut [T], convert: impl Fn(f32) -> T) {
    let zero = convert(0.0);
    let mut slots = x.chunks_exact_mut(64 * PLANES);
    for (planes, x) in positions.iter().zip(&mut slots) {
        let values: [T; PLANES] = std::array::from_fn(|plane| convert(planes[plane].value));
        for (square, row) in x.chunks_exact_mut(PLANES).enumerate() {
            for ((slot, plane), &value) in row.iter_mut().zip(planes).zip(&values) {
                *slot = if plane.mask >> square & 1 == 1 { value } else { zero };
            }
        }
    }
    for x in slots {
        x.fill(zero);
    }
}

#[cfg(test)]
mod tests {
    use super::{write_square_major_input, InputPlanes, Plane, PLANES};

    #[test]
    fn the_square_major_input_holds_each_squares_planes_and_zeros_past_the_positions() {
        // One position: plane 0 set on a1 and h8 (squares 0 and 63) with value 1, plane 5 on b2 (square 9) with
        // 0.5, plane 111 everywhere with 0.25; a batch of two slots, the second (padding) first filled with 7s.
        let mut planes: InputPlanes = [Plane { mask: 0, value: 0.0 }; PLANES];
        planes[0] = Plane { mask: 1 | 1 << 63, value: 1.0 };
        planes[5] = Plane { mask: 1 << 9, value: 0.5 };
        planes[111] = Plane { mask: u64::MAX, value: 0.25 };
        let mut x = vec![7.0f32; 2 * 64 * PLANES];
        write_square_major_input(&[planes], &mut x, |value| value);
        let at = |slot: usize, square: usize, plane: usize| x[(slot * 64 + square) * PLANES + plane];
        assert_eq!((at(0, 0, 0), at(0, 63, 0), at(0, 1, 0)), (1.0, 1.0, 0.0));
        assert_eq!((at(0, 9, 5), at(0, 8, 5), at(0, 10, 5)), (0.5, 0.0, 0.0));
        assert!((0..64).all(|square| at(0, square, 111) == 0.25));
        assert_eq!(x[..64 * PLANES].iter().filter(|&&v| v != 0.0).count(), 2 + 1 + 64);
        assert!(x[64 * PLANES..].iter().all(|&v| v == 0.0), "the padding slot is zeros");
    }
}
