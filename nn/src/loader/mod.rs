//! Reading an Lc0 weights file: gzip, `pblczero.Net`, header checks, format upgrade and the assembly of
//! a [`Network`] with sizes inferred and checked (docs/lc0/network.md §5.1–5.7; lc0 `src/neural/loader.cc`,
//! `network_legacy.cc`). One module per part: the format, the bodies, the heads.

mod attention;
pub mod format;
mod heads;
mod residual;

use std::io::Read;
use std::path::Path;

use prost::Message;

use crate::error::{NetworkProblem, NnError};
use crate::network::{Body, Network};
use crate::proto;
use format::{BodyKind, NetFormat};

/// The engine version whose networks this crate runs (lc0 0.33.0).
const ENGINE_VERSION: u64 = 33_000;
/// `min_version` 97.98.99 marks test networks and is never too new.
const SENTINEL_VERSION: u64 = 97_098_099;

/// Loads a network from a `.pb.gz` (or uncompressed `.pb`) file.
pub fn load_network(path: &Path) -> Result<Network, NnError> {
    let (net, _) = read_net(path)?;
    build_network(&net).map_err(|reason| NnError::InvalidNetwork { path: path.to_path_buf(), reason })
}

/// Reads and decodes a weights file without assembling the network; also returns the file's size in bytes.
pub fn read_net(path: &Path) -> Result<(proto::Net, usize), NnError> {
    let bytes = std::fs::read(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => NnError::WeightsNotFound { path: path.to_path_buf() },
        _ => NnError::Io { path: path.to_path_buf(), source },
    })?;
    let net = decode_net(&bytes).map_err(|reason| NnError::InvalidNetwork { path: path.to_path_buf(), reason })?;
    Ok((net, bytes.len()))
}

/// Parses the bytes of a weights file (gzip-compressed or not).
pub fn parse_network(bytes: &[u8]) -> Result<Network, NetworkProblem> {
    build_network(&decode_net(bytes)?)
}

/// Decodes the `pblczero.Net` message of a weights file's bytes (gzip-compressed or not).
pub fn decode_net(bytes: &[u8]) -> Result<proto::Net, NetworkProblem> {
    let raw = if bytes.starts_with(&[0x1f, 0x8b]) { gunzip_bounded(bytes)? } else { bytes.to_vec() };
    if let [version @ (b'1' | b'2'), b'\n', ..] = raw.as_slice() {
        return Err(NetworkProblem::TextFormat(char::from(*version)));
    }
    proto::Net::decode(raw.as_slice()).map_err(|e| NetworkProblem::Protobuf(e.to_string()))
}

/// The largest expansion of deflate (RFC 1951): 258 bytes from a 2-bit code, about 1032 to 1.
const MAX_DEFLATE_RATIO: usize = 1032;

/// Inflates a gzip file into no more than the size its trailer gives (ISIZE, the last four bytes): memory is
/// reserved for that size only, and a stream that inflates beyond it (a corrupt file, or one built to exhaust
/// memory) is refused rather than followed.
fn gunzip_bounded(bytes: &[u8]) -> Result<Vec<u8>, NetworkProblem> {
    let trailer: [u8; 4] = bytes
        .get(bytes.len().saturating_sub(4)..)
        .and_then(|tail| tail.try_into().ok())
        .filter(|_| bytes.len() >= 18)
        .ok_or_else(|| NetworkProblem::Gzip("the file is too short to be gzip (truncated?)".into()))?;
    let claimed = u32::from_le_bytes(trailer) as usize;
    // Deflate cannot expand a byte into more than 1032: a larger claim is false, refused before allocating.
    if claimed > bytes.len().saturating_mul(MAX_DEFLATE_RATIO) {
        return Err(NetworkProblem::Gzip(format!(
            "its trailer claims {claimed} bytes, more than {} compressed bytes can hold; the file is corrupt",
            bytes.len()
        )));
    }
    let mut out = Vec::with_capacity(claimed);
    flate2::read::GzDecoder::new(bytes)
        .take(claimed as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| NetworkProblem::Gzip(e.to_string()))?;
    if out.len() > claimed {
        return Err(NetworkProblem::Gzip(format!(
            "the stream inflates beyond the {claimed} bytes its trailer gives; the file is corrupt, download it again"
        )));
    }
    Ok(out)
}

/// Checks the header of a decoded message and assembles its network.
pub fn build_network(net: &proto::Net) -> Result<Network, NetworkProblem> {
    let magic = net.magic.unwrap_or(0);
    if magic != 0x1c0 {
        return Err(NetworkProblem::Magic(magic));
    }
    let version = net.min_version.as_ref().map(|v| {
        let (major, minor, patch) = (v.major.unwrap_or(0), v.minor.unwrap_or(0), v.patch.unwrap_or(0));
        (u64::from(major) * 1_000_000 + u64::from(minor) * 1_000 + u64::from(patch), format!("{major}.{minor}.{patch}"))
    });
    if let Some((number, text)) = &version {
        if *number > ENGINE_VERSION && *number != SENTINEL_VERSION {
            return Err(NetworkProblem::TooNew(text.clone()));
        }
    }
    if net.onnx_model.is_some() {
        return Err(NetworkProblem::UnsupportedFormat(
            "ONNX models are not supported: use the Lc0 weights (.pb.gz) of the net".into(),
        ));
    }
    let weights =
        net.weights.as_ref().ok_or_else(|| NetworkProblem::UnsupportedFormat("the file holds no weights".into()))?;
    let format = net.format.as_ref();
    if version.as_ref().is_some_and(|(number, _)| *number < ENGINE_VERSION)
        && format.and_then(|f| f.weights_encoding) != Some(proto::Encoding::Linear16 as i32)
    {
        return Err(NetworkProblem::Encoding {
            layer: "format".into(),
            problem: "a min_version below 0.33.0 without weights_encoding LINEAR16".into(),
        });
    }
    let format = NetFormat::from_proto(format.and_then(|f| f.network_format.as_ref()), weights)?;
    assemble(&format, weights)
}

fn assemble(format: &NetFormat, w: &proto::Weights) -> Result<Network, NetworkProblem> {
    let chosen = heads::choose(w)?;
    let body = match format.body {
        BodyKind::Residual => {
            if !w.encoder.is_empty() || w.ip_emb_w.is_some() {
                return Err(NetworkProblem::UnsupportedFormat(
                    "encoder layers in a residual-tower network: only network formats 6, 7 and 134 have an attention body"
                        .into(),
                ));
            }
            Body::Residual(residual::tower(w)?)
        }
        BodyKind::Attention => {
            if !w.residual.is_empty() {
                return Err(NetworkProblem::UnsupportedFormat(
                    "a residual tower in front of an attention body is not supported (no Lc0 network has one, and lc0's blas backend feeds its embedding the wrong buffer)"
                        .into(),
                ));
            }
            Body::Attention(Box::new(attention::body(w, format)?))
        }
    };
    let width = body.width();
    let mut network = Network {
        input_format: format.input,
        activation: format.activation,
        policy: heads::policy(&chosen.policy, format, width)?,
        value: heads::value(&chosen.value, format, width)?,
        moves_left: if format.moves_left { Some(heads::moves_left(w, format, width)?) } else { None },
        body,
        smolgen_global: None,
    };
    network.smolgen_global = attention::smolgen_global(w, &network)?;
    Ok(network)
}
