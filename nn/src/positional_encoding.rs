//! lc0's fixed positional encoding for attention bodies without a learned one (`kPosEncoding` in lc0
//! `src/neural/tables/attention_policy_map.h`, used by `PE_MAP` nets): for each square, 64 channels, one per
//! square, holding −1 for the square itself, 1 for every square a queen or a knight could reach from it on an
//! empty board, and 0 elsewhere. Generated from that rule rather than stored.

/// The encoding as `[square][channel]`, a1 = 0.
pub fn positional_encoding() -> Vec<f32> {
    (0..64).flat_map(|from: i32| (0..64).map(move |to: i32| channel_value(from, to))).collect()
}

fn channel_value(from: i32, to: i32) -> f32 {
    if from == to {
        return -1.0;
    }
    let files = (from % 8 - to % 8).abs();
    let ranks = (from / 8 - to / 8).abs();
    let queen_line = files == 0 || ranks == 0 || files == ranks;
    let knight_jump = files.min(ranks) == 1 && files.max(ranks) == 2;
    if queen_line || knight_jump {
        1.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::positional_encoding;

    #[test]
    fn a1_sees_its_rank_file_diagonal_and_two_knight_squares() {
        let map = positional_encoding();
        let a1: Vec<usize> = (0..64).filter(|&c| map[c] == 1.0).collect();
        // b1–h1, a2–a8, b2 c3 … h8, and the knight squares c2 (10) and b3 (17): 7 + 7 + 7 + 2.
        let mut expected: Vec<usize> = (1..8).chain((1..8).map(|r| r * 8)).chain((1..8).map(|d| d * 9)).collect();
        expected.extend([10, 17]);
        expected.sort_unstable();
        assert_eq!(a1, expected);
        assert_eq!(map[0], -1.0);
        // d4 (27) reaches 27 squares as a queen and 8 as a knight.
        let d4 = &map[27 * 64..28 * 64];
        assert_eq!(d4.iter().filter(|&&v| v == 1.0).count(), 27 + 8);
    }
}
