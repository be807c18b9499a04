//! Writes the random-weight test networks of `reference/nets/` (issue #31): one of every structure Kairos loads,
//! from residual towers with each head to small transformers with smolgen, gating, both positional embeddings,
//! every input format and both head layouts. The weights are scaled by their fan-in so that no output
//! saturates. `reference/capture-lc0-nets.py` then records lc0's outputs for them.
//!
//! `cargo run -p nn --example make_test_nets -- reference/nets`; with `--bench DIR`, the networks of real shape
//! BENCHMARKS.md and `scripts/gpu-compare` measure; `--only NAME[,NAME…]` writes just those (the BT4-shaped
//! transformer alone is 160M parameters, 290 MB, so a GPU machine generates it, in about 5 s, rather than receiving
//! it). `scripts/gpu-compare` checks on three positions that none of the bench nets' outputs is one-hot.

use std::io::Write;
use std::path::{Path, PathBuf};

use nn::proto::{
    self, ConvBlock, EncoderLayer, Ffn, Layer, Mha, Net, NetworkFormat, PolicyHeadWeights, PolicyHeads, Residual,
    SeUnit, Smolgen, ValueHeadWeights, ValueHeads, Weights,
};
use prost::Message;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// How a net's layers are stored.
#[derive(Clone, Copy)]
enum Storage {
    Linear16,
    Float16,
    Bfloat16,
    Float32,
}

/// A residual tower.
#[derive(Clone, Copy)]
struct Tower {
    filters: usize,
    blocks: usize,
    se: bool,
}

/// A transformer body.
#[derive(Clone, Copy)]
struct Transformer {
    embedding: usize,
    layers: usize,
    heads: usize,
    dff: usize,
    smolgen: Option<SmolgenSize>,
    gating: bool,
    /// Channels of the learned dense positional embedding (`PE_DENSE`), or none (`PE_MAP`).
    dense_positional: Option<usize>,
}

#[derive(Clone, Copy)]
enum Body {
    Tower(Tower),
    Transformer(Transformer),
}

/// One test network.
#[derive(Clone, Copy)]
struct Spec {
    name: &'static str,
    /// `NetworkFormat.network` as written (older formats are upgraded by the loader).
    network: i32,
    input: i32,
    body: Body,
    policy: i32,
    policy_encoders: usize,
    wdl: bool,
    moves_left: bool,
    mish: bool,
    smolgen_activation: Option<i32>,
    ffn_activation: Option<i32>,
    /// Policy and value heads in `policy_heads`/`value_heads`, with extra heads lc0 does not play.
    multi_head: bool,
    storage: Storage,
    seed: u64,
    /// The attention policy's embedding width.
    policy_embedding: usize,
    /// The value head's channels a square.
    value_channels: usize,
}

const TOWER: Tower = Tower { filters: 16, blocks: 2, se: true };
const TRANSFORMER: Transformer = Transformer {
    embedding: 32,
    layers: 2,
    heads: 4,
    dff: 48,
    smolgen: Some(SMOLGEN),
    gating: true,
    dense_positional: None,
};
const BASE: Spec = Spec {
    name: "",
    network: 4,
    input: 1,
    body: Body::Tower(TOWER),
    policy: 1,
    policy_encoders: 0,
    wdl: true,
    moves_left: false,
    mish: false,
    smolgen_activation: None,
    ffn_activation: None,
    multi_head: false,
    storage: Storage::Float32,
    seed: 1,
    policy_embedding: 24,
    value_channels: 8,
};

const SPECS: &[Spec] = &[
    Spec { name: "se-classical-value-classical-policy", wdl: false, storage: Storage::Linear16, seed: 1, ..BASE },
    Spec {
        name: "conv-convolution-policy-mlh-mish",
        network: 3,
        input: 2,
        body: Body::Tower(Tower { se: false, ..TOWER }),
        policy: 2,
        moves_left: true,
        mish: true,
        storage: Storage::Float16,
        seed: 2,
        ..BASE
    },
    Spec { name: "se-attention-policy-mlh", input: 3, policy: 3, moves_left: true, seed: 3, ..BASE },
    Spec {
        name: "se-attention-policy-encoders",
        input: 4,
        policy: 3,
        policy_encoders: 1,
        storage: Storage::Bfloat16,
        seed: 4,
        ..BASE
    },
    Spec {
        name: "transformer-pe-map-smolgen",
        network: 6,
        input: 3,
        body: Body::Transformer(TRANSFORMER),
        policy: 3,
        moves_left: true,
        smolgen_activation: Some(proto::activation_function::SWISH),
        ffn_activation: Some(proto::activation_function::RELU_2),
        storage: Storage::Float16,
        seed: 5,
        ..BASE
    },
    Spec {
        name: "transformer-classical-input-mish",
        network: 6,
        input: 1,
        body: Body::Transformer(Transformer { smolgen: None, gating: false, ..TRANSFORMER }),
        policy: 3,
        mish: true,
        ffn_activation: Some(proto::activation_function::SELU),
        storage: Storage::Float16,
        seed: 6,
        ..BASE
    },
    Spec {
        name: "transformer-castling-plane-activations",
        network: 6,
        input: 2,
        body: Body::Transformer(TRANSFORMER),
        policy: 3,
        policy_encoders: 1,
        moves_left: true,
        smolgen_activation: Some(proto::activation_function::SIGMOID),
        ffn_activation: Some(proto::activation_function::TANH),
        seed: 7,
        ..BASE
    },
    Spec {
        name: "transformer-hectoplies-swish-none",
        network: 6,
        input: 4,
        body: Body::Transformer(TRANSFORMER),
        policy: 3,
        smolgen_activation: Some(proto::activation_function::NONE),
        ffn_activation: Some(proto::activation_function::SWISH),
        storage: Storage::Bfloat16,
        seed: 8,
        ..BASE
    },
    Spec {
        name: "transformer-old-schema-armageddon",
        network: 4,
        input: 132,
        body: Body::Transformer(TRANSFORMER),
        policy: 3,
        moves_left: true,
        storage: Storage::Linear16,
        seed: 9,
        ..BASE
    },
    Spec {
        name: "transformer-multihead-pe-dense-v2",
        network: 7,
        input: 5,
        body: Body::Transformer(Transformer { dense_positional: Some(4), ..TRANSFORMER }),
        policy: 3,
        policy_encoders: 1,
        moves_left: true,
        mish: true,
        smolgen_activation: Some(proto::activation_function::SWISH),
        ffn_activation: Some(proto::activation_function::RELU_2),
        multi_head: true,
        storage: Storage::Float16,
        seed: 10,
        ..BASE
    },
    Spec {
        name: "transformer-legacy-multihead-v2-armageddon",
        network: 134,
        input: 133,
        body: Body::Transformer(Transformer { dense_positional: Some(4), heads: 2, ..TRANSFORMER }),
        policy: 3,
        moves_left: true,
        smolgen_activation: Some(proto::activation_function::SWISH),
        ffn_activation: Some(proto::activation_function::RELU_2),
        multi_head: true,
        storage: Storage::Bfloat16,
        seed: 11,
        ..BASE
    },
];

/// Networks of real shape for BENCHMARKS.md and `scripts/gpu-compare` (`--bench`; not committed): a transformer in
/// the BT line's layout at a size two CPU cores run, one of BT4's shape and a small stand-in of the same structure
/// (for a dry run on the CPU), and SE towers of 10×128 and 20×256.
const BENCH_SPECS: &[Spec] = &[
    Spec {
        name: "bench-transformer-256x10",
        network: 7,
        // Format 4, not the V2 format (5) the BT nets use: lc0 909a4082 crashes on V2 for a FEN with a
        // non-zero fifty-move counter, as several bench positions have.
        input: 4,
        body: Body::Transformer(Transformer {
            embedding: 256,
            layers: 10,
            heads: 8,
            dff: 384,
            smolgen: Some(SmolgenSize { channels: 32, hidden: 256, generator: 256 }),
            gating: true,
            dense_positional: Some(12),
        }),
        policy: 3,
        moves_left: true,
        mish: true,
        smolgen_activation: Some(proto::activation_function::SWISH),
        ffn_activation: Some(proto::activation_function::RELU_2),
        multi_head: true,
        storage: Storage::Float16,
        seed: 100,
        policy_embedding: 256,
        value_channels: 32,
        ..BASE
    },
    // lc0's BT4-1024x15x32h-swa-6147500: embedding 1024, 15 encoder layers of 32 heads, feed-forward 1536, smolgen
    // with 32 channels a square, hidden 256 and 256 generated a head, mish throughout but swish in smolgen, a dense
    // positional embedding, gating, an attention policy over the body's width, WDL and moves left. The width of
    // the dense positional embedding (32 channels a square) is not in the net's published description: it costs one
    // 768 × 2048 product a position, a rounding error beside the encoder layers. Format 4 as above.
    Spec { name: "bench-transformer-bt4", seed: 103, policy_embedding: 1024, ..BT4_SPEC },
    Spec {
        name: "bench-transformer-bt4-standin",
        body: Body::Transformer(Transformer {
            embedding: 128,
            dff: 192,
            smolgen: Some(SmolgenSize { channels: 4, hidden: 32, generator: 32 }),
            dense_positional: Some(4),
            ..BT4
        }),
        seed: 104,
        policy_embedding: 128,
        ..BT4_SPEC
    },
    Spec {
        name: "bench-se-10x128",
        network: 4,
        input: 1,
        body: Body::Tower(Tower { filters: 128, blocks: 10, se: true }),
        policy: 2,
        moves_left: true,
        storage: Storage::Float16,
        seed: 102,
        value_channels: 32,
        ..BASE
    },
    Spec {
        name: "bench-se-20x256",
        network: 4,
        input: 1,
        body: Body::Tower(Tower { filters: 256, blocks: 20, se: true }),
        policy: 2,
        moves_left: true,
        storage: Storage::Float16,
        seed: 101,
        value_channels: 32,
        ..BASE
    },
];

/// BT4's body (see `bench-transformer-bt4`).
const BT4: Transformer = Transformer {
    embedding: 1024,
    layers: 15,
    heads: 32,
    dff: 1536,
    smolgen: Some(SmolgenSize { channels: 32, hidden: 256, generator: 256 }),
    gating: true,
    dense_positional: Some(32),
};
/// BT4's formats and heads, shared by the network of its shape and its small stand-in.
const BT4_SPEC: Spec = Spec {
    name: "",
    network: 7,
    input: 4,
    body: Body::Transformer(BT4),
    policy: 3,
    moves_left: true,
    mish: true,
    smolgen_activation: Some(proto::activation_function::SWISH),
    ffn_activation: Some(proto::activation_function::MISH),
    multi_head: true,
    storage: Storage::Float16,
    value_channels: 32,
    ..BASE
};

fn main() {
    match run(std::env::args().skip(1).collect()) {
        Ok(paths) => paths.iter().for_each(|path| println!("{}", path.display())),
        Err(message) => {
            eprintln!("make_test_nets: {message}");
            std::process::exit(2);
        }
    }
}

const USAGE: &str = "usage: make_test_nets [--bench] [--only NAME[,NAME…]] OUT_DIR";

/// Writes the networks the arguments name and returns their paths.
fn run(args: Vec<String>) -> Result<Vec<PathBuf>, String> {
    let mut bench = false;
    let mut only: Option<Vec<String>> = None;
    let mut dir = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--bench" => bench = true,
            "--only" => {
                let names = args.next().ok_or_else(|| format!("--only needs a list of names\n{USAGE}"))?;
                only = Some(names.split(',').map(str::to_string).collect());
            }
            _ if dir.is_none() && !arg.starts_with("--") => dir = Some(PathBuf::from(arg)),
            _ => return Err(format!("unexpected argument {arg:?}\n{USAGE}")),
        }
    }
    let dir = dir.ok_or_else(|| USAGE.to_string())?;
    let chosen = chosen_specs(if bench { BENCH_SPECS } else { SPECS }, only.as_deref())?;
    std::fs::create_dir_all(&dir).map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
    // The committed reference nets are compressed as well as gzip can; the large bench nets, random fp16 that
    // barely compresses, quickly.
    let level = if bench { flate2::Compression::fast() } else { flate2::Compression::best() };
    chosen
        .into_iter()
        .map(|spec| {
            let path = dir.join(format!("{}.pb.gz", spec.name));
            write_net(&path, &build(spec), level)
                .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
            Ok(path)
        })
        .collect()
}

/// The specs `--only` names, in its order (all of them without it); an unknown name is an error that lists the
/// known ones.
fn chosen_specs<'a>(specs: &'a [Spec], only: Option<&[String]>) -> Result<Vec<&'a Spec>, String> {
    let Some(names) = only else { return Ok(specs.iter().collect()) };
    names
        .iter()
        .map(|name| {
            specs.iter().find(|spec| spec.name == name).ok_or_else(|| {
                let known: Vec<&str> = specs.iter().map(|spec| spec.name).collect();
                format!("no network named {name:?} here (with --bench for the bench nets); known: {}", known.join(", "))
            })
        })
        .collect()
}

fn write_net(path: &Path, net: &Net, level: flate2::Compression) -> std::io::Result<()> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut gz = flate2::write::GzEncoder::new(file, level);
    gz.write_all(&net.encode_to_vec())?;
    gz.finish()?.flush()
}

/// Random layers, each scaled by its fan-in.
struct Layers {
    rng: ChaCha8Rng,
    storage: Storage,
}

impl Layers {
    /// `n` values uniform in ±`scale`, shifted by `center`.
    fn uniform(&mut self, n: usize, center: f32, scale: f32) -> Layer {
        let values: Vec<f32> = (0..n).map(|_| center + self.rng.random_range(-scale..scale)).collect();
        encode(&values, self.storage)
    }

    /// A weight matrix of `outputs × inputs` with variance about 1/inputs, and its bias.
    fn dense(&mut self, inputs: usize, outputs: usize) -> (Layer, Layer) {
        self.dense_with_gain(inputs, outputs, 1.0)
    }

    /// The same with the weights' scale multiplied by `gain` (for policy layers whose logits would
    /// otherwise all be near zero).
    fn dense_with_gain(&mut self, inputs: usize, outputs: usize, gain: f32) -> (Layer, Layer) {
        let scale = gain * (3.0 / inputs as f32).sqrt();
        (self.uniform(inputs * outputs, 0.0, scale), self.uniform(outputs, 0.0, 0.1))
    }

    fn projection(&mut self, inputs: usize, outputs: usize) -> Layer {
        self.uniform(inputs * outputs, 0.0, (3.0 / inputs as f32).sqrt())
    }

    fn norm(&mut self, n: usize) -> (Layer, Layer) {
        (self.uniform(n, 1.0, 0.2), self.uniform(n, 0.0, 0.1))
    }

    fn conv(&mut self, inputs: usize, outputs: usize, kernel: usize) -> ConvBlock {
        self.conv_with_gain(inputs, outputs, kernel, 1.0)
    }

    fn conv_with_gain(&mut self, inputs: usize, outputs: usize, kernel: usize, gain: f32) -> ConvBlock {
        let (weights, biases) = self.dense_with_gain(inputs * kernel * kernel, outputs, gain);
        ConvBlock {
            weights: Some(weights),
            biases: Some(biases),
            bn_means: Some(self.uniform(outputs, 0.0, 0.1)),
            bn_stddivs: Some(self.uniform(outputs, 1.0, 0.2)),
            bn_gammas: Some(self.uniform(outputs, 1.0, 0.2)),
            bn_betas: Some(self.uniform(outputs, 0.0, 0.1)),
        }
    }

    fn ffn(&mut self, width: usize, hidden: usize) -> Ffn {
        let (dense1_w, dense1_b) = self.dense(width, hidden);
        let (dense2_w, dense2_b) = self.dense(hidden, width);
        Ffn { dense1_w: Some(dense1_w), dense1_b: Some(dense1_b), dense2_w: Some(dense2_w), dense2_b: Some(dense2_b) }
    }

    fn encoder(&mut self, width: usize, heads: usize, dff: usize, smolgen: Option<SmolgenSize>) -> EncoderLayer {
        let (q_w, q_b) = self.dense(width, width);
        let (k_w, k_b) = self.dense(width, width);
        let (v_w, v_b) = self.dense(width, width);
        let (dense_w, dense_b) = self.dense(width, width);
        let smolgen = smolgen.map(|size| {
            let (dense1_w, dense1_b) = self.dense(64 * size.channels, size.hidden);
            let (ln1_gammas, ln1_betas) = self.norm(size.hidden);
            let (dense2_w, dense2_b) = self.dense(size.hidden, heads * size.generator);
            let (ln2_gammas, ln2_betas) = self.norm(heads * size.generator);
            Smolgen {
                compress: Some(self.projection(width, size.channels)),
                dense1_w: Some(dense1_w),
                dense1_b: Some(dense1_b),
                ln1_gammas: Some(ln1_gammas),
                ln1_betas: Some(ln1_betas),
                dense2_w: Some(dense2_w),
                dense2_b: Some(dense2_b),
                ln2_gammas: Some(ln2_gammas),
                ln2_betas: Some(ln2_betas),
            }
        });
        let (ln1_gammas, ln1_betas) = self.norm(width);
        let (ln2_gammas, ln2_betas) = self.norm(width);
        EncoderLayer {
            mha: Some(Mha {
                q_w: Some(q_w),
                q_b: Some(q_b),
                k_w: Some(k_w),
                k_b: Some(k_b),
                v_w: Some(v_w),
                v_b: Some(v_b),
                dense_w: Some(dense_w),
                dense_b: Some(dense_b),
                smolgen,
                ..Mha::default()
            }),
            ln1_gammas: Some(ln1_gammas),
            ln1_betas: Some(ln1_betas),
            ffn: Some(self.ffn(width, dff)),
            ln2_gammas: Some(ln2_gammas),
            ln2_betas: Some(ln2_betas),
        }
    }
}

/// Smolgen's sizes in the test transformers.
#[derive(Clone, Copy)]
struct SmolgenSize {
    channels: usize,
    hidden: usize,
    generator: usize,
}

const SMOLGEN: SmolgenSize = SmolgenSize { channels: 4, hidden: 16, generator: 8 };
const MOVES_LEFT_CHANNELS: usize = 4;

fn build(spec: &Spec) -> Net {
    let mut layers = Layers { rng: ChaCha8Rng::seed_from_u64(spec.seed), storage: spec.storage };
    let mut w = Weights::default();
    let width = match spec.body {
        Body::Tower(tower) => {
            w.input = Some(layers.conv(112, tower.filters, 3));
            w.residual = (0..tower.blocks)
                .map(|_| Residual {
                    conv1: Some(layers.conv(tower.filters, tower.filters, 3)),
                    conv2: Some(layers.conv(tower.filters, tower.filters, 3)),
                    se: tower.se.then(|| {
                        let (w1, b1) = layers.dense(tower.filters, 4);
                        let (w2, b2) = layers.dense(4, 2 * tower.filters);
                        SeUnit { w1: Some(w1), b1: Some(b1), w2: Some(w2), b2: Some(b2) }
                    }),
                })
                .collect();
            tower.filters
        }
        Body::Transformer(t) => {
            transformer(&mut layers, &mut w, t);
            t.embedding
        }
    };
    let transformer = matches!(spec.body, Body::Transformer(_));
    let (policy, shared_embedding) = policy_head(&mut layers, spec, width);
    let value = value_head(&mut layers, spec, width, transformer);
    if spec.multi_head {
        let extra_policy = policy_head(&mut layers, spec, width).0;
        let extra_value = value_head(&mut layers, spec, width, transformer);
        let (ip_pol_w, ip_pol_b) = shared_embedding.unzip();
        w.policy_heads = Some(PolicyHeads {
            ip_pol_w,
            ip_pol_b,
            vanilla: Some(policy),
            opponent: Some(extra_policy),
            ..PolicyHeads::default()
        });
        w.value_heads = Some(ValueHeads { winner: Some(value), q: Some(extra_value), ..ValueHeads::default() });
    } else {
        let (ip_pol_w, ip_pol_b) = shared_embedding.unzip();
        w.ip_pol_w = policy.ip_pol_w.or(ip_pol_w);
        w.ip_pol_b = policy.ip_pol_b.or(ip_pol_b);
        w.ip2_pol_w = policy.ip2_pol_w;
        w.ip2_pol_b = policy.ip2_pol_b;
        w.ip3_pol_w = policy.ip3_pol_w;
        w.ip3_pol_b = policy.ip3_pol_b;
        w.ip4_pol_w = policy.ip4_pol_w;
        w.pol_encoder = policy.pol_encoder;
        w.pol_headcount = policy.pol_headcount;
        w.policy1 = policy.policy1;
        w.policy = policy.policy;
        w.value = value.value;
        w.ip_val_w = value.ip_val_w;
        w.ip_val_b = value.ip_val_b;
        w.ip1_val_w = value.ip1_val_w;
        w.ip1_val_b = value.ip1_val_b;
        w.ip2_val_w = value.ip2_val_w;
        w.ip2_val_b = value.ip2_val_b;
    }
    if spec.moves_left {
        let channels = MOVES_LEFT_CHANNELS;
        if transformer {
            let (ip_mov_w, ip_mov_b) = layers.dense(width, channels);
            w.ip_mov_w = Some(ip_mov_w);
            w.ip_mov_b = Some(ip_mov_b);
        } else {
            w.moves_left = Some(layers.conv(width, channels, 1));
        }
        let (ip1_mov_w, ip1_mov_b) = layers.dense(64 * channels, 16);
        w.ip1_mov_w = Some(ip1_mov_w);
        w.ip1_mov_b = Some(ip1_mov_b);
        // A bias near 30 keeps the ReLU output positive: a moves-left estimate of some tens of plies.
        w.ip2_mov_w = Some(layers.projection(16, 1));
        w.ip2_mov_b = Some(layers.uniform(1, 30.0, 1.0));
    }
    Net {
        magic: Some(0x1c0),
        min_version: Some(proto::EngineVersion { major: Some(0), minor: Some(33), patch: Some(0) }),
        format: Some(proto::Format {
            weights_encoding: Some(proto::Encoding::Linear16 as i32),
            network_format: Some(NetworkFormat {
                input: Some(spec.input),
                output: Some(if spec.wdl { 2 } else { 1 }),
                network: Some(spec.network),
                policy: Some(spec.policy),
                value: Some(if spec.wdl { 2 } else { 1 }),
                moves_left: Some(i32::from(spec.moves_left)),
                default_activation: Some(i32::from(spec.mish)),
                smolgen_activation: spec.smolgen_activation,
                ffn_activation: spec.ffn_activation,
                input_embedding: match spec.body {
                    Body::Transformer(Transformer { dense_positional: Some(_), .. }) => {
                        Some(proto::input_embedding::PE_DENSE)
                    }
                    _ => None,
                },
            }),
        }),
        weights: Some(w),
        ..Net::default()
    }
}

fn transformer(layers: &mut Layers, w: &mut Weights, t: Transformer) {
    let positional = match t.dense_positional {
        Some(channels) => {
            let (preproc_w, preproc_b) = layers.dense(64 * 12, 64 * channels);
            w.ip_emb_preproc_w = Some(preproc_w);
            w.ip_emb_preproc_b = Some(preproc_b);
            let (gammas, betas) = layers.norm(t.embedding);
            w.ip_emb_ln_gammas = Some(gammas);
            w.ip_emb_ln_betas = Some(betas);
            w.ip_emb_ffn = Some(layers.ffn(t.embedding, t.dff));
            let (gammas, betas) = layers.norm(t.embedding);
            w.ip_emb_ffn_ln_gammas = Some(gammas);
            w.ip_emb_ffn_ln_betas = Some(betas);
            channels
        }
        None => 64,
    };
    let (ip_emb_w, ip_emb_b) = layers.dense(112 + positional, t.embedding);
    w.ip_emb_w = Some(ip_emb_w);
    w.ip_emb_b = Some(ip_emb_b);
    if t.gating {
        w.ip_mult_gate = Some(layers.uniform(64 * t.embedding, 1.0, 0.2));
        w.ip_add_gate = Some(layers.uniform(64 * t.embedding, 0.0, 0.2));
    }
    let smolgen = t.smolgen;
    w.encoder = (0..t.layers).map(|_| layers.encoder(t.embedding, t.heads, t.dff, smolgen)).collect();
    w.headcount = Some(t.heads as u32);
    if let Some(size) = t.smolgen {
        // The generated logits are added to the attention's: small, so that neither swamps the other.
        w.smolgen_w = Some(layers.uniform(64 * 64 * size.generator, 0.0, 0.1));
    }
}

/// The policy head's layers and, for an attention policy, the embedding a multi-head file shares.
fn policy_head(layers: &mut Layers, spec: &Spec, width: usize) -> (PolicyHeadWeights, Option<(Layer, Layer)>) {
    let mut head = PolicyHeadWeights::default();
    match spec.policy {
        1 => {
            head.policy = Some(layers.conv(width, 2, 1));
            let (w, b) = layers.dense_with_gain(2 * 64, 1858, 3.0);
            head.ip_pol_w = Some(w);
            head.ip_pol_b = Some(b);
            (head, None)
        }
        2 => {
            head.policy1 = Some(layers.conv(width, width, 3));
            let mut last = layers.conv_with_gain(width, 80, 3, 8.0);
            last.bn_means = None;
            last.bn_stddivs = None;
            last.bn_gammas = None;
            last.bn_betas = None;
            head.policy = Some(last);
            (head, None)
        }
        _ => {
            let embedding = spec.policy_embedding;
            let shared = layers.dense(width, embedding);
            let (ip2_w, ip2_b) = layers.dense_with_gain(embedding, embedding, 3.0);
            let (ip3_w, ip3_b) = layers.dense_with_gain(embedding, embedding, 3.0);
            head.ip2_pol_w = Some(ip2_w);
            head.ip2_pol_b = Some(ip2_b);
            head.ip3_pol_w = Some(ip3_w);
            head.ip3_pol_b = Some(ip3_b);
            head.ip4_pol_w = Some(layers.projection(embedding, 4));
            let smolgen = match spec.body {
                Body::Transformer(t) => t.smolgen,
                _ => None,
            };
            let heads = 2;
            head.pol_encoder =
                (0..spec.policy_encoders).map(|_| layers.encoder(embedding, heads, 32, smolgen)).collect();
            if spec.policy_encoders > 0 {
                head.pol_headcount = Some(heads as u32);
            }
            (head, Some(shared))
        }
    }
}

fn value_head(layers: &mut Layers, spec: &Spec, width: usize, transformer: bool) -> ValueHeadWeights {
    let mut head = ValueHeadWeights::default();
    if transformer {
        let (w, b) = layers.dense(width, spec.value_channels);
        head.ip_val_w = Some(w);
        head.ip_val_b = Some(b);
    } else {
        head.value = Some(layers.conv(width, spec.value_channels, 1));
    }
    let (w1, b1) = layers.dense(64 * spec.value_channels, 32);
    let (w2, b2) = layers.dense(32, if spec.wdl { 3 } else { 1 });
    head.ip1_val_w = Some(w1);
    head.ip1_val_b = Some(b1);
    head.ip2_val_w = Some(w2);
    head.ip2_val_b = Some(b2);
    head
}

/// Encodes values in a storage format (LINEAR16 over the layer's own range).
fn encode(values: &[f32], storage: Storage) -> Layer {
    let mut layer = Layer::default();
    let bytes: Vec<u8> = match storage {
        Storage::Float32 => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        Storage::Float16 => values.iter().flat_map(|&v| half::f16::from_f32(v).to_le_bytes()).collect(),
        Storage::Bfloat16 => values.iter().flat_map(|&v| half::bf16::from_f32(v).to_le_bytes()).collect(),
        Storage::Linear16 => {
            let min = values.iter().copied().fold(f32::INFINITY, f32::min);
            let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max).max(min + 1e-3);
            layer.min_val = Some(min);
            layer.max_val = Some(max);
            values.iter().flat_map(|&v| ((((v - min) / (max - min)) * 65535.0).round() as u16).to_le_bytes()).collect()
        }
    };
    layer.params = Some(bytes);
    layer.encoding = Some(match storage {
        Storage::Linear16 => proto::Encoding::Linear16,
        Storage::Float16 => proto::Encoding::Float16,
        Storage::Bfloat16 => proto::Encoding::Bfloat16,
        Storage::Float32 => proto::Encoding::Float32,
    } as i32);
    layer
}
