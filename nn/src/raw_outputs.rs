//! What a network computes for a batch, on the host: the raw policy logits, value and moves-left outputs
//! that every network implementation returns and the backend turns into evaluations.

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
