//! A decorator that appends every evaluation its backend computes to a record file (`RecordFile`), for
//! `Backend=replay` to answer the same search later without the network: the search's own cost on a real network's
//! trees, measured at the search's speed (lc0's `recordreplay` backend's `record_file`).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::backend::{
    Added, Backend, BackendAttributes, BackendError, Computation, EvalRequest, Evaluation, QueuedKeys,
};
use crate::record_file::{open_for_append, record_key, write_record, RecordFileError, RecordedAttributes};

/// A backend whose computed evaluations are appended to a file.
pub struct RecordingBackend {
    inner: Arc<dyn Backend>,
    path: PathBuf,
    file: Mutex<BufWriter<File>>,
}

impl RecordingBackend {
    /// Records `inner`'s evaluations into `path` (created, or appended to if it holds a recording of a backend with
    /// the same attributes).
    pub fn new(inner: Arc<dyn Backend>, path: &Path) -> Result<Self, RecordFileError> {
        let file = open_for_append(path, RecordedAttributes::of(&inner.attributes()))?;
        Ok(Self { inner, path: path.to_owned(), file: Mutex::new(BufWriter::new(file)) })
    }

    /// Appends a batch's records under one lock and flushes them, so that a killed process loses no whole batch.
    fn append(&self, keys: &[u64], evaluations: &[Evaluation]) -> Result<(), BackendError> {
        let mut file = self.file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let written = keys
            .iter()
            .zip(evaluations)
            .try_for_each(|(&key, evaluation)| write_record(&mut *file, key, evaluation))
            .and_then(|()| file.flush());
        written.map_err(|e| BackendError::Compute(format!("cannot write the record file {}: {e}", self.path.display())))
    }
}

impl Backend for RecordingBackend {
    fn attributes(&self) -> BackendAttributes {
        self.inner.attributes()
    }

    fn new_computation(&self) -> Box<dyn Computation + '_> {
        Box::new(RecordingComputation {
            backend: self,
            inner: self.inner.new_computation(),
            keys: QueuedKeys::default(),
        })
    }

    fn clear_cache(&self) {
        self.inner.clear_cache();
    }
}

struct RecordingComputation<'a> {
    backend: &'a RecordingBackend,
    inner: Box<dyn Computation + 'a>,
    /// The record key of each queued position.
    keys: QueuedKeys,
}

impl Computation for RecordingComputation<'_> {
    fn add(&mut self, request: &EvalRequest<'_>) -> Result<Added, BackendError> {
        let key =
            record_key(request).ok_or_else(|| BackendError::Encoding("the request has an empty history".into()))?;
        let added = self.inner.add(request)?;
        self.keys.note(&added, key)?;
        Ok(added)
    }

    fn queued(&self) -> usize {
        self.inner.queued()
    }

    fn compute(self: Box<Self>) -> Result<Vec<Evaluation>, BackendError> {
        let results = self.inner.compute()?;
        self.backend.append(self.keys.keys(), &results)?;
        Ok(results)
    }
}
