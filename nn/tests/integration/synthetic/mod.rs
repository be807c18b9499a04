//! Tiny networks written in the weights schema with prost, and an independent f64 forward pass over the
//! same (unfolded) values, for checking the loader and the libtorch network.

#![allow(dead_code)]

use nn::proto::{self, ConvBlock, Layer, Net, Residual, SeUnit, Weights};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// How layers are stored.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Storage {
    Linear16,
    Float16,
    Bfloat16,
    Float32,
}

/// What the synthetic network has.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub filters: usize,
    pub blocks: usize,
    pub se: bool,
    pub mish: bool,
    pub policy: i32,
    pub wdl: bool,
    pub moves_left: bool,
    pub storage: Storage,
    pub betas: bool,
}

/// A layer's values as the network sees them after decoding, and its proto form.
pub struct Values {
    pub generator: ChaCha8Rng,
    pub storage: Storage,
}

impl Values {
    pub fn new(storage: Storage, seed: u64) -> Self {
        Self { generator: ChaCha8Rng::seed_from_u64(seed), storage }
    }

    /// A layer of `n` values in `[low, high)`, returned with the values a decoder must produce.
    pub fn layer(&mut self, n: usize, low: f32, high: f32) -> (Layer, Vec<f64>) {
        let raw: Vec<f32> = (0..n).map(|_| self.generator.random_range(low..high)).collect();
        encode(&raw, self.storage)
    }
}

/// Encodes values; returns the layer and the exactly decoded values.
pub fn encode(raw: &[f32], storage: Storage) -> (Layer, Vec<f64>) {
    let mut layer = Layer::default();
    let (bytes, decoded): (Vec<u8>, Vec<f64>) = match storage {
        Storage::Float32 => {
            (raw.iter().flat_map(|v| v.to_le_bytes()).collect(), raw.iter().map(|&v| f64::from(v)).collect())
        }
        Storage::Float16 => {
            let h: Vec<half::f16> = raw.iter().map(|&v| half::f16::from_f32(v)).collect();
            (h.iter().flat_map(|v| v.to_le_bytes()).collect(), h.iter().map(|v| v.to_f64()).collect())
        }
        Storage::Bfloat16 => {
            let h: Vec<half::bf16> = raw.iter().map(|&v| half::bf16::from_f32(v)).collect();
            (h.iter().flat_map(|v| v.to_le_bytes()).collect(), h.iter().map(|v| v.to_f64()).collect())
        }
        Storage::Linear16 => {
            let (min, max) = (-2.0f32, 2.0f32);
            layer.min_val = Some(min);
            layer.max_val = Some(max);
            let q: Vec<u16> = raw.iter().map(|&v| (((v - min) / (max - min)) * 65535.0).round() as u16).collect();
            let decoded = q
                .iter()
                .map(|&q| {
                    let theta = f32::from(q) / 65535.0;
                    f64::from(min * (1.0 - theta) + max * theta)
                })
                .collect();
            (q.iter().flat_map(|v| v.to_le_bytes()).collect(), decoded)
        }
    };
    layer.params = Some(bytes);
    layer.encoding = match storage {
        Storage::Linear16 => None,
        Storage::Float16 => Some(proto::Encoding::Float16 as i32),
        Storage::Bfloat16 => Some(proto::Encoding::Bfloat16 as i32),
        Storage::Float32 => Some(proto::Encoding::Float32 as i32),
    };
    (layer, decoded)
}

/// Batch-norm means, variances, gammas and betas.
pub type BatchNorm = (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>);
/// A residual block: two convolutions and an optional SE unit.
pub type RefBlock = (RefConv, RefConv, Option<(RefDense, RefDense)>);

/// A convolution with batch norm, in reference form.
pub struct RefConv {
    pub out: usize,
    pub inp: usize,
    pub k: usize,
    pub w: Vec<f64>,
    pub bias: Vec<f64>,
    pub bn: Option<BatchNorm>,
}

pub struct RefDense {
    pub out: usize,
    pub inp: usize,
    pub w: Vec<f64>,
    pub b: Vec<f64>,
}

pub struct Reference {
    pub spec: Spec,
    pub input: RefConv,
    pub blocks: Vec<RefBlock>,
    pub policy_convs: Vec<RefConv>,
    pub policy_dense: Vec<RefDense>,
    pub promotion: Vec<f64>,
    pub value: (RefConv, RefDense, RefDense),
    pub moves_left: Option<(RefConv, RefDense, RefDense)>,
}

fn conv_block(v: &mut Values, out: usize, inp: usize, k: usize, bn: bool, betas: bool) -> (ConvBlock, RefConv) {
    let (w, wv) = v.layer(out * inp * k * k, -0.5, 0.5);
    let (b, bv) = v.layer(out, -0.2, 0.2);
    let mut block = ConvBlock { weights: Some(w), biases: Some(b), ..Default::default() };
    let bn_values = bn.then(|| {
        let (m, mv) = v.layer(out, -0.3, 0.3);
        let (s, sv) = v.layer(out, 0.5, 1.5);
        let (g, gv) = v.layer(out, 0.5, 1.5);
        let (be, bev) = v.layer(out, -0.3, 0.3);
        block.bn_means = Some(m);
        block.bn_stddivs = Some(s);
        if betas {
            block.bn_gammas = Some(g);
            block.bn_betas = Some(be);
            (mv, sv, gv, bev)
        } else {
            (mv, sv, vec![1.0; out], vec![0.0; out])
        }
    });
    (block, RefConv { out, inp, k, w: wv, bias: bv, bn: bn_values })
}

fn dense(v: &mut Values, out: usize, inp: usize, bias: bool) -> (Option<Layer>, Option<Layer>, RefDense) {
    let (w, wv) = v.layer(out * inp, -0.5, 0.5);
    let (b, bv) = if bias {
        let (l, lv) = v.layer(out, -0.2, 0.2);
        (Some(l), lv)
    } else {
        (None, vec![0.0; out])
    };
    (Some(w), b, RefDense { out, inp, w: wv, b: bv })
}

/// Builds a network message and its reference.
pub fn build(spec: Spec, seed: u64) -> (Net, Reference) {
    let mut v = Values::new(spec.storage, seed);
    let f = spec.filters;
    let mut weights = Weights::default();
    let (input_block, input) = conv_block(&mut v, f, 112, 3, true, spec.betas);
    weights.input = Some(input_block);
    let mut blocks = Vec::new();
    for _ in 0..spec.blocks {
        let (c1, r1) = conv_block(&mut v, f, f, 3, true, spec.betas);
        let (c2, r2) = conv_block(&mut v, f, f, 3, true, spec.betas);
        let (se, se_ref) = if spec.se {
            let (w1, b1, d1) = dense(&mut v, 2, f, true);
            let (w2, b2, d2) = dense(&mut v, 2 * f, 2, true);
            (Some(SeUnit { w1, b1, w2, b2 }), Some((d1, d2)))
        } else {
            (None, None)
        };
        weights.residual.push(Residual { conv1: Some(c1), conv2: Some(c2), se });
        blocks.push((r1, r2, se_ref));
    }
    let mut policy_convs = Vec::new();
    let mut policy_dense = Vec::new();
    let mut promotion = Vec::new();
    match spec.policy {
        1 => {
            let (c, r) = conv_block(&mut v, 3, f, 1, true, spec.betas);
            weights.policy = Some(c);
            policy_convs.push(r);
            let (w, b, d) = dense(&mut v, 1858, 3 * 64, true);
            (weights.ip_pol_w, weights.ip_pol_b) = (w, b);
            policy_dense.push(d);
        }
        2 => {
            let (c1, r1) = conv_block(&mut v, f, f, 3, true, spec.betas);
            let (c2, r2) = conv_block(&mut v, 80, f, 3, false, spec.betas);
            weights.policy1 = Some(c1);
            weights.policy = Some(c2);
            policy_convs.extend([r1, r2]);
        }
        _ => {
            let (w, b, e) = dense(&mut v, 6, f, true);
            (weights.ip_pol_w, weights.ip_pol_b) = (w, b);
            let (w, b, q) = dense(&mut v, 5, 6, true);
            (weights.ip2_pol_w, weights.ip2_pol_b) = (w, b);
            let (w, b, k) = dense(&mut v, 5, 6, true);
            (weights.ip3_pol_w, weights.ip3_pol_b) = (w, b);
            let (w, _, p) = dense(&mut v, 4, 5, false);
            weights.ip4_pol_w = w;
            promotion = p.w;
            policy_dense.extend([e, q, k]);
        }
    }
    let (vc, vr) = conv_block(&mut v, 2, f, 1, true, spec.betas);
    weights.value = Some(vc);
    let (w, b, v1) = dense(&mut v, 8, 2 * 64, true);
    (weights.ip1_val_w, weights.ip1_val_b) = (w, b);
    let (w, b, v2) = dense(&mut v, if spec.wdl { 3 } else { 1 }, 8, true);
    (weights.ip2_val_w, weights.ip2_val_b) = (w, b);
    let moves_left = spec.moves_left.then(|| {
        let (mc, mr) = conv_block(&mut v, 2, f, 1, true, spec.betas);
        weights.moves_left = Some(mc);
        let (w, b, m1) = dense(&mut v, 4, 2 * 64, true);
        (weights.ip1_mov_w, weights.ip1_mov_b) = (w, b);
        let (w, b, m2) = dense(&mut v, 1, 4, true);
        (weights.ip2_mov_w, weights.ip2_mov_b) = (w, b);
        (mr, m1, m2)
    });
    let format = proto::Format {
        weights_encoding: Some(proto::Encoding::Linear16 as i32),
        network_format: Some(proto::NetworkFormat {
            input: Some(1),
            output: Some(if spec.wdl { 2 } else { 1 }),
            network: Some(if spec.se { 4 } else { 3 }),
            policy: Some(spec.policy),
            value: Some(if spec.wdl { 2 } else { 1 }),
            moves_left: Some(i32::from(spec.moves_left)),
            default_activation: Some(i32::from(spec.mish)),
            ..proto::NetworkFormat::default()
        }),
    };
    let net = Net {
        magic: Some(0x1c0),
        min_version: Some(proto::EngineVersion { major: Some(0), minor: Some(30), patch: Some(0) }),
        format: Some(format),
        weights: Some(weights),
        ..Default::default()
    };
    let reference =
        Reference { spec, input, blocks, policy_convs, policy_dense, promotion, value: (vr, v1, v2), moves_left };
    (net, reference)
}

fn act(spec: &Spec, x: f64) -> f64 {
    if spec.mish {
        x * (x.exp().ln_1p()).tanh()
    } else {
        x.max(0.0)
    }
}

fn conv(c: &RefConv, x: &[f64]) -> Vec<f64> {
    let pad = (c.k / 2) as isize;
    let mut out = vec![0.0; c.out * 64];
    for o in 0..c.out {
        for sq in 0..64isize {
            let (r, f) = (sq / 8, sq % 8);
            let mut sum = c.bias[o];
            for i in 0..c.inp {
                for kr in 0..c.k as isize {
                    for kf in 0..c.k as isize {
                        let (rr, ff) = (r + kr - pad, f + kf - pad);
                        if (0..8).contains(&rr) && (0..8).contains(&ff) {
                            sum += c.w[((o * c.inp + i) * c.k + kr as usize) * c.k + kf as usize]
                                * x[i * 64 + (rr * 8 + ff) as usize];
                        }
                    }
                }
            }
            if let Some((mean, var, gamma, beta)) = &c.bn {
                sum = (sum - mean[o]) / (var[o] + 1e-5).sqrt() * gamma[o] + beta[o];
            }
            out[o * 64 + sq as usize] = sum;
        }
    }
    out
}

fn linear(d: &RefDense, x: &[f64]) -> Vec<f64> {
    (0..d.out).map(|o| d.b[o] + (0..d.inp).map(|i| d.w[o * d.inp + i] * x[i]).sum::<f64>()).collect()
}

fn selu(x: f64) -> f64 {
    1.0507009873554805 * if x > 0.0 { x } else { 1.6732632423543772 * (x.exp() - 1.0) }
}

/// Outputs of the reference: 1858 policy logits, raw value outputs, moves left.
pub fn forward(r: &Reference, input: &[f32]) -> (Vec<f64>, Vec<f64>, Option<f64>) {
    let s = &r.spec;
    let x: Vec<f64> = input.iter().map(|&v| f64::from(v)).collect();
    let mut x: Vec<f64> = conv(&r.input, &x).into_iter().map(|v| act(s, v)).collect();
    for (c1, c2, se) in &r.blocks {
        let y: Vec<f64> = conv(c1, &x).into_iter().map(|v| act(s, v)).collect();
        let mut z = conv(c2, &y);
        if let Some((d1, d2)) = se {
            let f = s.filters;
            let pooled: Vec<f64> = (0..f).map(|c| z[c * 64..(c + 1) * 64].iter().sum::<f64>() / 64.0).collect();
            let hidden: Vec<f64> = linear(d1, &pooled).into_iter().map(|v| act(s, v)).collect();
            let gb = linear(d2, &hidden);
            for c in 0..f {
                let gate = 1.0 / (1.0 + (-gb[c]).exp());
                for sq in 0..64 {
                    z[c * 64 + sq] = z[c * 64 + sq] * gate + gb[f + c];
                }
            }
        }
        x = z.iter().zip(&x).map(|(a, b)| act(s, a + b)).collect();
    }
    let policy = match s.policy {
        1 => {
            let p: Vec<f64> = conv(&r.policy_convs[0], &x).into_iter().map(|v| act(s, v)).collect();
            linear(&r.policy_dense[0], &p)
        }
        2 => {
            let p: Vec<f64> = conv(&r.policy_convs[0], &x).into_iter().map(|v| act(s, v)).collect();
            let p = conv(&r.policy_convs[1], &p);
            let map = nn::policy_map::conv_policy_map();
            let mut logits = vec![0.0; 1858];
            for (slot, &index) in map.iter().enumerate() {
                if index >= 0 {
                    logits[index as usize] = p[slot];
                }
            }
            logits
        }
        _ => attention_policy(r, &x),
    };
    let head = |(c, d1, d2): &(RefConv, RefDense, RefDense)| {
        let v: Vec<f64> = conv(c, &x).into_iter().map(|v| act(s, v)).collect();
        let h: Vec<f64> = linear(d1, &v).into_iter().map(|v| act(s, v)).collect();
        linear(d2, &h)
    };
    let value = head(&r.value);
    let moves_left = r.moves_left.as_ref().map(|m| head(m)[0].max(0.0));
    (policy, value, moves_left)
}

fn attention_policy(r: &Reference, x: &[f64]) -> Vec<f64> {
    let f = r.spec.filters;
    let (e, q, k) = (&r.policy_dense[0], &r.policy_dense[1], &r.policy_dense[2]);
    let squares: Vec<Vec<f64>> = (0..64)
        .map(|sq| {
            let features: Vec<f64> = (0..f).map(|c| x[c * 64 + sq]).collect();
            linear(e, &features).into_iter().map(selu).collect()
        })
        .collect();
    let queries: Vec<Vec<f64>> = squares.iter().map(|h| linear(q, h)).collect();
    let keys: Vec<Vec<f64>> = squares.iter().map(|h| linear(k, h)).collect();
    let depth = q.out;
    let logit = |from: usize, to: usize| {
        queries[from].iter().zip(&keys[to]).map(|(a, b)| a * b).sum::<f64>() / (depth as f64).sqrt()
    };
    let mut flat: Vec<f64> = (0..4096).map(|i| logit(i / 64, i % 64)).collect();
    for from_file in 0..8 {
        for to_file in 0..8 {
            let offsets: Vec<f64> =
                (0..4).map(|p| (0..depth).map(|d| r.promotion[p * depth + d] * keys[56 + to_file][d]).sum()).collect();
            for piece in 0..3 {
                flat.push(logit(48 + from_file, 56 + to_file) + offsets[piece] + offsets[3]);
            }
        }
    }
    let map = nn::policy_map::attention_policy_map();
    let mut logits = vec![0.0; 1858];
    for (slot, &index) in map.iter().enumerate() {
        if index >= 0 {
            logits[index as usize] = flat[slot];
        }
    }
    logits
}
