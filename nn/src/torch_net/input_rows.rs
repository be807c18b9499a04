//! A batch's input planes as the network reads them on CUDA: for each position 112 bit masks and 112 values (1.3 KB
//! instead of 28 KB of dense floats, which took 0.55 ms a batch of 256 to reach an H100), expanded on the device by
//! [`super::TorchNetwork::expand_on_device`]. A search thread writes them in page-locked memory itself, as lc0's
//! cuda backend has its search threads do: written on the network thread, they took it 0.7 µs a position of Maia's
//! while the device waited (BENCHMARKS.md, "Every graph captured at load, and one wait a batch, on an H200").

use tch::{Device, Kind, Tensor};

use super::dispatcher::page_locked_zeros;
use crate::encoder::{InputPlanes, PLANES};

/// Rows of masks and values for up to a capacity of positions in host memory, page-locked where they go to a CUDA
/// device: their copies then run at the bus's speed and need not be waited for.
pub(crate) struct InputRows {
    masks: Tensor,
    values: Tensor,
}

/// A batch's inputs as the network thread receives them.
pub(crate) enum BatchInputs {
    /// Encoded planes, which the network thread writes into rows of its own.
    Planes(Vec<InputPlanes>),
    /// Rows the caller wrote: `batch` positions, then empty ones up to `padded_batch_size(batch)`.
    Rows { rows: InputRows, batch: usize },
}

impl BatchInputs {
    /// The positions of the batch, padding left out.
    pub(crate) fn len(&self) -> usize {
        match self {
            Self::Planes(positions) => positions.len(),
            Self::Rows { batch, .. } => *batch,
        }
    }
}

impl InputRows {
    /// Zeroed rows for `capacity` positions, page-locked if `page_locked` (which needs CUDA).
    pub(crate) fn new(capacity: usize, page_locked: bool) -> Result<Self, tch::TchError> {
        let shape = [capacity as i64, PLANES as i64, 1];
        let host = |kind: Kind| match page_locked {
            true => page_locked_zeros(&shape, kind),
            false => Tensor::f_zeros(shape, (kind, Device::Cpu)),
        };
        Ok(Self { masks: host(Kind::Int64)?, values: host(Kind::Float)? })
    }

    /// How many positions the rows hold.
    pub(crate) fn capacity(&self) -> usize {
        self.masks.size()[0] as usize
    }

    /// Writes `positions`, then empty positions up to `padded` rows (rows are reused, so the padding must be
    /// cleared of the batch before).
    pub(crate) fn write(&mut self, positions: &[InputPlanes], padded: usize) {
        let (masks, values) = self.first_mut(padded);
        for (index, planes) in positions.iter().enumerate() {
            write_row(planes, index, masks, values);
        }
        clear_rows_from(positions.len(), masks, values);
    }

    /// The first `padded` rows' masks and values, to write position by position ([`write_row`]); at most the
    /// capacity.
    pub(crate) fn first_mut(&mut self, padded: usize) -> (&mut [i64], &mut [f32]) {
        let length = padded.min(self.capacity()) * PLANES;
        // SAFETY: the tensors are contiguous host memory of `capacity` rows of PLANES elements of these types, of
        // which `length` elements are in bounds; `&mut self` keeps every other reference to them away while the
        // slices live (the views `first` makes borrow `self`).
        unsafe {
            (
                std::slice::from_raw_parts_mut(self.masks.data_ptr().cast::<i64>(), length),
                std::slice::from_raw_parts_mut(self.values.data_ptr().cast::<f32>(), length),
            )
        }
    }

    /// The first `padded` rows as `[padded][112][1]` host tensors (views of the rows).
    pub(crate) fn first(&self, padded: usize) -> Result<(Tensor, Tensor), tch::TchError> {
        let rows = padded as i64;
        Ok((self.masks.f_narrow(0, 0, rows)?, self.values.f_narrow(0, 0, rows)?))
    }
}

/// Writes one position's planes as the row at `index` of `masks` and `values`.
pub(crate) fn write_row(planes: &InputPlanes, index: usize, masks: &mut [i64], values: &mut [f32]) {
    let rows = index * PLANES..(index + 1) * PLANES;
    for ((plane, mask), value) in planes.iter().zip(&mut masks[rows.clone()]).zip(&mut values[rows]) {
        *mask = plane.mask as i64;
        *value = plane.value;
    }
}

/// Clears the rows from `first` to the end of `masks` and `values`: empty positions.
pub(crate) fn clear_rows_from(first: usize, masks: &mut [i64], values: &mut [f32]) {
    masks[first * PLANES..].fill(0);
    values[first * PLANES..].fill(0.0);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoder::Plane;

    #[test]
    fn rows_hold_the_planes_and_the_rows_after_the_positions_are_empty() {
        // The rows are reused from batch to batch, so the padding must be cleared of the batch before.
        let mut position = [Plane::default(); PLANES];
        position[3] = Plane { mask: 0xff00, value: 1.0 };
        position[PLANES - 1] = Plane { mask: u64::MAX, value: 0.5 };
        let mut rows = InputRows::new(4, false).expect("host tensors");
        let (masks, values) = rows.first_mut(3);
        masks.fill(7);
        values.fill(7.0);
        rows.write(&[position], 2);
        let (masks, values) = rows.first(3).expect("views");
        let masks: Vec<i64> = Vec::try_from(masks.flatten(0, -1)).expect("i64");
        let values: Vec<f32> = Vec::try_from(values.flatten(0, -1)).expect("f32");
        assert_eq!((masks[3], values[3]), (0xff00, 1.0));
        assert_eq!((masks[PLANES - 1], values[PLANES - 1]), (-1, 0.5), "the mask's 64 bits as they are");
        assert_eq!((masks[0], values[0]), (0, 0.0));
        let second = PLANES..2 * PLANES;
        assert!(masks[second.clone()].iter().all(|&m| m == 0) && values[second].iter().all(|&v| v == 0.0));
        assert!(masks[2 * PLANES..].iter().all(|&m| m == 7), "rows past the padded batch are left alone");
    }
}
