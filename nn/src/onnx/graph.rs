//! A small ONNX graph builder: each operator is a node whose one output carries the node's name, weights become
//! initializers in the model's element type, and the layers of [`crate::network`] (dense, convolution, layer norm,
//! activation) are built from opset-17 operators.

use std::collections::HashSet;

use super::proto::{
    AttributeProto, AttributeType, Dimension, DimensionValue, ElementType, GraphProto, NodeProto, TensorProto,
    TensorShapeProto, TensorTypeProto, TypeProto, ValueInfoProto,
};
use super::DataType;
use crate::network::{Activation, Conv, Dense, LayerNorm, Projection};

/// SELU's α and λ as libtorch and lc0 write them (ONNX's defaults are the same values rounded to f32).
const SELU_ALPHA: f32 = 1.673_263_2;
const SELU_GAMMA: f32 = 1.050_701;

/// The graph under construction.
pub(super) struct Graph {
    data_type: DataType,
    nodes: Vec<NodeProto>,
    initializers: Vec<TensorProto>,
    inputs: Vec<ValueInfoProto>,
    outputs: Vec<ValueInfoProto>,
    names: HashSet<String>,
}

/// An operator's attribute.
pub(super) enum Attribute {
    /// One float.
    Float(&'static str, f32),
    /// One integer.
    Int(&'static str, i64),
    /// A list of integers.
    Ints(&'static str, Vec<i64>),
}

impl Attribute {
    fn proto(self) -> AttributeProto {
        match self {
            Attribute::Float(name, f) => {
                AttributeProto { name: name.into(), f, r#type: AttributeType::Float as i32, ..Default::default() }
            }
            Attribute::Int(name, i) => {
                AttributeProto { name: name.into(), i, r#type: AttributeType::Int as i32, ..Default::default() }
            }
            Attribute::Ints(name, ints) => {
                AttributeProto { name: name.into(), ints, r#type: AttributeType::Ints as i32, ..Default::default() }
            }
        }
    }
}

/// A tensor type of the graph's interface: `dims` with `None` for the batch.
fn value_info(name: &str, element: ElementType, dims: &[Option<i64>]) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|d| Dimension {
            value: Some(match d {
                Some(size) => DimensionValue::DimValue(*size),
                None => DimensionValue::DimParam("batch".into()),
            }),
        })
        .collect();
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            tensor_type: Some(TensorTypeProto { elem_type: element as i32, shape: Some(TensorShapeProto { dim }) }),
        }),
    }
}

/// `[rows][columns]` row-major to `[columns][rows]`.
pub(super) fn transposed(values: &[f32], rows: usize, columns: usize) -> Vec<f32> {
    let mut out = vec![0.0; values.len()];
    for row in 0..rows {
        for column in 0..columns {
            out[column * rows + row] = values[row * columns + column];
        }
    }
    out
}

impl Graph {
    pub fn new(data_type: DataType) -> Self {
        Self {
            data_type,
            nodes: Vec::new(),
            initializers: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            names: HashSet::new(),
        }
    }

    /// The element type of the network's tensors.
    fn element(&self) -> ElementType {
        match self.data_type {
            DataType::F32 => ElementType::Float,
            DataType::F16 => ElementType::Float16,
        }
    }

    /// Claims a value name; two values of one name would be one value to ONNX, so a repeat is a bug here.
    fn claim(&mut self, name: &str) -> String {
        assert!(self.names.insert(name.to_string()), "the ONNX value name {name} is used twice");
        name.to_string()
    }

    /// A graph input in the network's element type.
    pub fn input(&mut self, name: &str, dims: &[Option<i64>]) -> String {
        let info = value_info(name, self.element(), dims);
        self.inputs.push(info);
        self.claim(name)
    }

    /// Declares the value `name` a graph output in the network's element type.
    pub fn output(&mut self, name: &str, dims: &[Option<i64>]) {
        let info = value_info(name, self.element(), dims);
        self.outputs.push(info);
    }

    /// An operator writing one value, named `name`.
    pub fn node(&mut self, op: &str, name: &str, inputs: &[&str], attributes: Vec<Attribute>) -> String {
        let output = self.claim(name);
        self.nodes.push(NodeProto {
            input: inputs.iter().map(|i| i.to_string()).collect(),
            output: vec![output.clone()],
            name: name.into(),
            op_type: op.into(),
            attribute: attributes.into_iter().map(Attribute::proto).collect(),
        });
        output
    }

    /// A constant in the network's element type (f16 rounded to nearest, as lc0's converter does).
    pub fn weights(&mut self, name: &str, values: &[f32], dims: &[i64]) -> String {
        assert_eq!(values.len() as i64, dims.iter().product::<i64>(), "{name}: elements against shape {dims:?}");
        let raw_data = match self.data_type {
            DataType::F32 => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
            DataType::F16 => values.iter().flat_map(|v| half::f16::from_f32(*v).to_le_bytes()).collect(),
        };
        let data_type = self.element() as i32;
        self.initializers.push(TensorProto { dims: dims.to_vec(), data_type, name: name.into(), raw_data });
        self.claim(name)
    }

    /// A constant of 64-bit integers (a shape, indices, slice bounds).
    pub fn integers(&mut self, name: &str, values: &[i64]) -> String {
        let raw_data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let dims = vec![values.len() as i64];
        self.initializers.push(TensorProto { dims, data_type: ElementType::Int64 as i32, name: name.into(), raw_data });
        self.claim(name)
    }

    /// `a + b`, broadcasting.
    pub fn add(&mut self, name: &str, a: &str, b: &str) -> String {
        self.node("Add", name, &[a, b], vec![])
    }

    /// `a · b`, element-wise, broadcasting.
    pub fn mul(&mut self, name: &str, a: &str, b: &str) -> String {
        self.node("Mul", name, &[a, b], vec![])
    }

    /// `x · factor`.
    pub fn scale(&mut self, name: &str, x: &str, factor: f32) -> String {
        let factor = self.weights(&format!("{name}/factor"), &[factor], &[1]);
        self.mul(name, x, &factor)
    }

    /// `x` in the shape `shape` (−1 for the batch).
    pub fn reshape(&mut self, name: &str, x: &str, shape: &[i64]) -> String {
        let shape = self.integers(&format!("{name}/shape"), shape);
        self.node("Reshape", name, &[x, &shape], vec![])
    }

    /// `x`'s axes permuted.
    pub fn transpose(&mut self, name: &str, x: &str, permutation: &[i64]) -> String {
        self.node("Transpose", name, &[x], vec![Attribute::Ints("perm", permutation.to_vec())])
    }

    /// `x[.., start..end, ..]` along each of `axes`.
    pub fn slice(&mut self, name: &str, x: &str, axes: &[i64], starts: &[i64], ends: &[i64]) -> String {
        let starts = self.integers(&format!("{name}/starts"), starts);
        let ends = self.integers(&format!("{name}/ends"), ends);
        let axes = self.integers(&format!("{name}/axes"), axes);
        self.node("Slice", name, &[x, &starts, &ends, &axes], vec![])
    }

    /// `x · W` for a constant `W` of `[inputs][outputs]`.
    pub fn matmul(&mut self, name: &str, x: &str, weights: &[f32], inputs: usize, outputs: usize) -> String {
        let w = self.weights(&format!("{name}/w"), weights, &[inputs as i64, outputs as i64]);
        self.node("MatMul", name, &[x, &w], vec![])
    }

    /// A dense layer `x·Wᵀ + b` along `x`'s last axis.
    pub fn dense(&mut self, name: &str, x: &str, dense: &Dense) -> String {
        let w = transposed(&dense.weights, dense.outputs, dense.inputs);
        let product = self.matmul(&format!("{name}/matmul"), x, &w, dense.inputs, dense.outputs);
        let b = self.weights(&format!("{name}/b"), &dense.biases, &[dense.outputs as i64]);
        self.add(name, &product, &b)
    }

    /// A projection `x·Wᵀ` along `x`'s last axis.
    pub fn projection(&mut self, name: &str, x: &str, projection: &Projection) -> String {
        let w = transposed(&projection.weights, projection.outputs, projection.inputs);
        self.matmul(name, x, &w, projection.inputs, projection.outputs)
    }

    /// A dense layer followed by `activation`.
    pub fn dense_activated(&mut self, name: &str, x: &str, dense: &Dense, activation: Activation) -> String {
        let y = self.dense(name, x, dense);
        self.activation(&format!("{name}/{}", activation.name()), &y, activation)
    }

    /// A convolution of NCHW planes, padded to keep the board's 8×8.
    pub fn conv(&mut self, name: &str, x: &str, conv: &Conv) -> String {
        let k = conv.kernel as i64;
        let shape = [conv.out_channels as i64, conv.in_channels as i64, k, k];
        let w = self.weights(&format!("{name}/w"), &conv.weights, &shape);
        let b = self.weights(&format!("{name}/b"), &conv.biases, &[conv.out_channels as i64]);
        let pad = k / 2;
        let attributes =
            vec![Attribute::Ints("kernel_shape", vec![k, k]), Attribute::Ints("pads", vec![pad, pad, pad, pad])];
        self.node("Conv", name, &[x, &w, &b], attributes)
    }

    /// Layer normalisation over the last axis.
    pub fn layer_norm(&mut self, name: &str, x: &str, norm: &LayerNorm) -> String {
        let width = norm.gammas.len() as i64;
        let gammas = self.weights(&format!("{name}/gammas"), &norm.gammas, &[width]);
        let betas = self.weights(&format!("{name}/betas"), &norm.betas, &[width]);
        let attributes = vec![Attribute::Int("axis", -1), Attribute::Float("epsilon", norm.epsilon)];
        self.node("LayerNormalization", name, &[x, &gammas, &betas], attributes)
    }

    /// `LN(scale·y + skip)`: a residual sum and its layer norm.
    pub fn skip_layer_norm(&mut self, name: &str, y: &str, scale: f32, skip: &str, norm: &LayerNorm) -> String {
        let scaled = if scale == 1.0 { y.to_string() } else { self.scale(&format!("{name}/alpha"), y, scale) };
        let sum = self.add(&format!("{name}/skip"), &scaled, skip);
        self.layer_norm(name, &sum, norm)
    }

    /// `activation(x)`; opset 17 has no Mish, Swish or squared ReLU, so those are built from primitives.
    pub fn activation(&mut self, name: &str, x: &str, activation: Activation) -> String {
        match activation {
            Activation::None => x.to_string(),
            Activation::Relu => self.node("Relu", name, &[x], vec![]),
            Activation::Tanh => self.node("Tanh", name, &[x], vec![]),
            Activation::Sigmoid => self.node("Sigmoid", name, &[x], vec![]),
            Activation::Selu => self.node(
                "Selu",
                name,
                &[x],
                vec![Attribute::Float("alpha", SELU_ALPHA), Attribute::Float("gamma", SELU_GAMMA)],
            ),
            Activation::Mish => {
                let softplus = self.node("Softplus", &format!("{name}/softplus"), &[x], vec![]);
                let tanh = self.node("Tanh", &format!("{name}/tanh"), &[&softplus], vec![]);
                self.mul(name, x, &tanh)
            }
            Activation::Swish => {
                let sigmoid = self.node("Sigmoid", &format!("{name}/sigmoid"), &[x], vec![]);
                self.mul(name, x, &sigmoid)
            }
            Activation::Relu2 => {
                let relu = self.node("Relu", &format!("{name}/relu"), &[x], vec![]);
                self.mul(name, &relu, &relu)
            }
        }
    }

    /// The finished graph.
    pub fn finish(self, name: &str) -> GraphProto {
        GraphProto {
            node: self.nodes,
            name: name.into(),
            initializer: self.initializers,
            input: self.inputs,
            output: self.outputs,
        }
    }
}
