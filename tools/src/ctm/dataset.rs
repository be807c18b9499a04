//! The CTM dataset file: safetensors with `features` (u8, N × 769), `target` (f32, N: ρ from `tm-data`, or
//! the decision instability from `tm-label`) and `game` (u32, N), the header's `target_kind` naming the target
//! (none means ρ), written atomically (a temporary file in the same folder, then a rename).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use safetensors::tensor::{Dtype, SafeTensors, TensorView};
use timemgr::ctm::model_file::TARGET_KIND_KEY;
use timemgr::ctm::TargetKind;

use super::features::FEATURES;
use super::samples::Sample;
use super::CtmError;

/// The `format` metadata value of a dataset file.
pub const FORMAT: &str = "kairos-ctm-data-1";

/// Samples in columns, as stored.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dataset {
    /// Row-major N × 769 inputs (see [`super::features`]).
    pub features: Vec<u8>,
    /// The target per sample (ρ, or the instability: see `target_kind`).
    pub target: Vec<f32>,
    /// Game id per sample, for splitting by game.
    pub game: Vec<u32>,
    /// What `target` holds.
    pub target_kind: TargetKind,
}

impl Dataset {
    /// Collects samples into columns, their `rho` as the target of kind `target_kind`.
    pub fn from_samples(samples: &[Sample], target_kind: TargetKind) -> Self {
        Dataset {
            features: samples.iter().flat_map(|s| s.features).collect(),
            target: samples.iter().map(|s| s.rho).collect(),
            game: samples.iter().map(|s| s.game).collect(),
            target_kind,
        }
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.target.len()
    }

    /// Whether there are no samples.
    pub fn is_empty(&self) -> bool {
        self.target.is_empty()
    }

    /// The 769 inputs of sample `i`.
    pub fn row(&self, i: usize) -> &[u8] {
        &self.features[i * FEATURES..(i + 1) * FEATURES]
    }

    /// Writes the file atomically, with `metadata` (e.g. the filters used) and the target kind in the header.
    pub fn save(&self, path: &Path, metadata: HashMap<String, String>) -> Result<(), CtmError> {
        let n = self.len();
        let target = bytes_of_f32(&self.target);
        let game: Vec<u8> = self.game.iter().flat_map(|g| g.to_le_bytes()).collect();
        let bad = |e: safetensors::SafeTensorError| CtmError::BadFile { path: path.to_owned(), reason: e.to_string() };
        let tensors = vec![
            ("features", TensorView::new(Dtype::U8, vec![n, FEATURES], &self.features).map_err(bad)?),
            ("game", TensorView::new(Dtype::U32, vec![n], &game).map_err(bad)?),
            ("target", TensorView::new(Dtype::F32, vec![n], &target).map_err(bad)?),
        ];
        let mut metadata = metadata;
        metadata.insert("format".into(), FORMAT.into());
        metadata.insert(TARGET_KIND_KEY.into(), self.target_kind.name().into());
        let bytes = safetensors::tensor::serialize(tensors, &Some(metadata)).map_err(bad)?;
        write_atomically(path, &bytes)
    }

    /// Reads a file written by [`Dataset::save`]; one without a target kind holds ρ.
    pub fn load(path: &Path) -> Result<Self, CtmError> {
        let bytes = std::fs::read(path).map_err(|source| CtmError::Io { path: path.to_owned(), source })?;
        let bad = |reason: String| CtmError::BadFile {
            path: path.to_owned(),
            reason: format!("{reason}; not a dataset written by `kairos tm-data` or `kairos tm-label`"),
        };
        let (_, header) = SafeTensors::read_metadata(&bytes).map_err(|e| bad(e.to_string()))?;
        let header_entry = |key: &str| header.metadata().as_ref().and_then(|m| m.get(key)).map(String::as_str);
        if header_entry("format") != Some(FORMAT) {
            return Err(bad(format!("no format={FORMAT} in the header")));
        }
        let target_kind = TargetKind::from_header(header_entry(TARGET_KIND_KEY)).map_err(bad)?;
        let file = SafeTensors::deserialize(&bytes).map_err(|e| bad(e.to_string()))?;
        let column = |name: &str, dtype: Dtype| -> Result<(Vec<usize>, Vec<u8>), CtmError> {
            let view = file.tensor(name).map_err(|e| bad(format!("tensor {name}: {e}")))?;
            if view.dtype() != dtype {
                return Err(bad(format!("tensor {name} is {:?}, expected {dtype:?}", view.dtype())));
            }
            Ok((view.shape().to_vec(), view.data().to_vec()))
        };
        let (shape, features) = column("features", Dtype::U8)?;
        let (_, target) = column("target", Dtype::F32)?;
        let (_, game) = column("game", Dtype::U32)?;
        let data = Dataset {
            features,
            target: target.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
            game: game.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
            target_kind,
        };
        let n = data.target.len();
        if shape != [n, FEATURES] || data.game.len() != n {
            return Err(bad(format!("features {shape:?}, {n} targets and {} game ids disagree", data.game.len())));
        }
        Ok(data)
    }
}

/// Little-endian bytes of f32 values (safetensors' layout).
pub fn bytes_of_f32(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Writes `bytes` to a temporary file beside `path` and renames it over `path`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), CtmError> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp: PathBuf = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let io = |source| CtmError::Io { path: path.to_owned(), source };
    std::fs::write(&temp, bytes).map_err(io)?;
    std::fs::rename(&temp, path).map_err(|source| {
        let _ = std::fs::remove_file(&temp);
        CtmError::Io { path: path.to_owned(), source }
    })
}
