//! What a network computes for a batch, on the host: the raw policy logits, value and moves-left outputs
//! that every network implementation returns, and those of them the backend reads to make evaluations (the legal
//! moves' logits only).

use crate::policy_map::POLICY_SIZE;

/// Raw outputs of one batch, on the host.
#[derive(Clone, Debug, PartialEq)]
pub struct RawOutputs {
    /// `[batch][1858]` policy logits.
    pub policy: Vec<f32>,
    /// `[batch][3]` WDL logits, or `[batch][1]` pre-tanh values.
    pub value: Vec<f32>,
    /// `[batch]` moves left, when the network has the head.
    pub moves_left: Option<Vec<f32>>,
}

impl RawOutputs {
    /// Drops the outputs of every position after the first `batch` of `computed`.
    pub(crate) fn keep_first(&mut self, batch: usize, computed: usize) {
        if batch == computed {
            return;
        }
        let value_outputs = self.value.len() / computed;
        self.policy.truncate(batch * POLICY_SIZE);
        self.value.truncate(batch * value_outputs);
        if let Some(moves_left) = &mut self.moves_left {
            moves_left.truncate(batch);
        }
    }
}

/// Which logits of a batch's policy rows its evaluations read: each position's legal moves' policy indices, one
/// position's after another. Read where the rows are (the network thread, from the buffer the device copied them
/// to), so that the 1,858 logits a position are neither copied nor allocated again (BENCHMARKS.md, "A second cut
/// of the host work a position").
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolicyGather {
    /// The policy indices, in the order of the positions and of each position's moves.
    pub indices: Vec<usize>,
    /// How many of `indices` belong to each position.
    pub moves: Vec<usize>,
}

impl PolicyGather {
    /// The logits at `indices` from `[position][1858]` rows (of at least as many positions as `moves` has), in the
    /// order of `indices`, as f32: the rows may be in the precision the network computed them in (f16 or bf16 from a
    /// network in half precision, half the bytes of f32 to copy off the device), widened, exactly, only where read.
    pub fn logits<T: Copy + Into<f32>>(&self, rows: &[T]) -> Vec<f32> {
        let mut logits = Vec::with_capacity(self.indices.len());
        let mut start = 0;
        for (position, &count) in self.moves.iter().enumerate() {
            let row = &rows[position * POLICY_SIZE..(position + 1) * POLICY_SIZE];
            logits.extend(self.indices[start..start + count].iter().map(|&index| row[index].into()));
            start += count;
        }
        logits
    }
}

/// A batch's outputs as its evaluations read them: of the policy, only the gathered logits.
#[derive(Clone, Debug, PartialEq)]
pub struct GatheredOutputs {
    /// The logits [`PolicyGather::logits`] reads.
    pub logits: Vec<f32>,
    /// `[batch][3]` WDL logits, or `[batch][1]` pre-tanh values.
    pub value: Vec<f32>,
    /// `[batch]` moves left, when the network has the head.
    pub moves_left: Option<Vec<f32>>,
}

impl RawOutputs {
    /// The outputs with the policy rows reduced to the logits `gather` reads.
    pub fn gathered(self, gather: &PolicyGather) -> GatheredOutputs {
        GatheredOutputs { logits: gather.logits(&self.policy), value: self.value, moves_left: self.moves_left }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each position's logits come from its own row, at its own moves' indices, in their order; later rows (a padded
    /// batch's) are not read.
    #[test]
    fn gathered_logits_are_each_positions_own_at_its_moves() {
        let rows: Vec<f32> = (0..3 * POLICY_SIZE).map(|i| i as f32).collect();
        let gather = PolicyGather { indices: vec![1857, 0, 400, 7, 7], moves: vec![3, 0, 2] };
        let second_row = POLICY_SIZE as f32;
        let third_row = 2.0 * POLICY_SIZE as f32;
        assert_eq!(gather.logits(&rows), [1857.0, 0.0, 400.0, third_row + 7.0, third_row + 7.0]);
        let padded: Vec<f32> = rows.iter().copied().chain([f32::NAN; POLICY_SIZE]).collect();
        assert_eq!(gather.logits(&padded), gather.logits(&rows));
        let one = PolicyGather { indices: vec![5], moves: vec![0, 1] };
        assert_eq!(one.logits(&rows), [second_row + 5.0]);
    }

    /// Rows in half precision are read as the same values in f32: f16's largest finite value, its smallest subnormal
    /// and bf16's range beyond f16's, each exactly.
    #[test]
    fn half_precision_rows_are_widened_exactly_where_gathered() {
        let gather = PolicyGather { indices: vec![3, 1857, 0], moves: vec![2, 1] };
        let mut rows = vec![half::f16::ZERO; 2 * POLICY_SIZE];
        rows[3] = half::f16::from_bits(0x7bff);
        rows[1857] = half::f16::from_bits(0x0001);
        rows[POLICY_SIZE] = half::f16::from_bits(0xbc00);
        assert_eq!(gather.logits(&rows), [65504.0, 2f32.powi(-24), -1.0]);
        let mut rows = vec![half::bf16::ZERO; 2 * POLICY_SIZE];
        rows[3] = half::bf16::from_bits(0x4780);
        rows[1857] = half::bf16::from_bits(0xc2f7);
        rows[POLICY_SIZE] = half::bf16::from_bits(0x3e20);
        assert_eq!(gather.logits(&rows), [65536.0, -123.5, 0.15625]);
    }
}
