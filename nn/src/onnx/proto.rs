//! The messages of ONNX's `onnx.proto` (IR version 8) that a model of plain tensors and operators needs, written by
//! hand for prost as [`crate::proto`] is for lc0's weights: field numbers as in the ONNX schema, the fields this
//! exporter never writes left out (a reader skips what it does not know).

/// A whole model: the graph and the operator sets it uses.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ModelProto {
    /// The IR version the file follows.
    #[prost(int64, tag = "1")]
    pub ir_version: i64,
    /// The program that wrote it.
    #[prost(string, tag = "2")]
    pub producer_name: String,
    /// That program's version.
    #[prost(string, tag = "3")]
    pub producer_version: String,
    /// What the model is.
    #[prost(string, tag = "6")]
    pub doc_string: String,
    /// The computation.
    #[prost(message, optional, tag = "7")]
    pub graph: Option<GraphProto>,
    /// The operator sets and their versions.
    #[prost(message, repeated, tag = "8")]
    pub opset_import: Vec<OperatorSetIdProto>,
}

/// An operator set: the empty domain is ONNX's own.
#[derive(Clone, PartialEq, prost::Message)]
pub struct OperatorSetIdProto {
    /// The set's domain.
    #[prost(string, tag = "1")]
    pub domain: String,
    /// The set's version (the opset).
    #[prost(int64, tag = "2")]
    pub version: i64,
}

/// The graph: nodes in a topological order, the constant tensors they read, and the graph's inputs and outputs.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GraphProto {
    /// The operators.
    #[prost(message, repeated, tag = "1")]
    pub node: Vec<NodeProto>,
    /// The graph's name.
    #[prost(string, tag = "2")]
    pub name: String,
    /// The weights and other constants.
    #[prost(message, repeated, tag = "5")]
    pub initializer: Vec<TensorProto>,
    /// The values fed in.
    #[prost(message, repeated, tag = "11")]
    pub input: Vec<ValueInfoProto>,
    /// The values read out.
    #[prost(message, repeated, tag = "12")]
    pub output: Vec<ValueInfoProto>,
}

/// One operator applied to named values.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NodeProto {
    /// The values it reads.
    #[prost(string, repeated, tag = "1")]
    pub input: Vec<String>,
    /// The values it writes.
    #[prost(string, repeated, tag = "2")]
    pub output: Vec<String>,
    /// The node's name.
    #[prost(string, tag = "3")]
    pub name: String,
    /// The operator.
    #[prost(string, tag = "4")]
    pub op_type: String,
    /// Its attributes.
    #[prost(message, repeated, tag = "5")]
    pub attribute: Vec<AttributeProto>,
}

/// An operator's attribute: one float, one integer or a list of integers here.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AttributeProto {
    /// The attribute's name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// A float value.
    #[prost(float, tag = "2")]
    pub f: f32,
    /// An integer value.
    #[prost(int64, tag = "3")]
    pub i: i64,
    /// Integer values.
    #[prost(int64, repeated, tag = "8")]
    pub ints: Vec<i64>,
    /// Which of the fields holds the value ([`AttributeType`]).
    #[prost(int32, tag = "20")]
    pub r#type: i32,
}

/// The kinds of attribute value this exporter writes (ONNX's `AttributeType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum AttributeType {
    /// [`AttributeProto::f`].
    Float = 1,
    /// [`AttributeProto::i`].
    Int = 2,
    /// [`AttributeProto::ints`].
    Ints = 7,
}

/// A constant tensor, its elements little-endian in `raw_data`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorProto {
    /// The shape.
    #[prost(int64, repeated, tag = "1")]
    pub dims: Vec<i64>,
    /// The element type ([`ElementType`]).
    #[prost(int32, tag = "2")]
    pub data_type: i32,
    /// The tensor's name, by which nodes read it.
    #[prost(string, tag = "8")]
    pub name: String,
    /// The elements, row-major, little-endian.
    #[prost(bytes = "vec", tag = "9")]
    pub raw_data: Vec<u8>,
}

/// The element types this exporter writes (ONNX's `TensorProto.DataType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum ElementType {
    /// IEEE single precision.
    Float = 1,
    /// 64-bit signed integers (shapes, indices).
    Int64 = 7,
    /// IEEE half precision.
    Float16 = 10,
}

/// A named value of the graph's interface and its type.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueInfoProto {
    /// The value's name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Its type.
    #[prost(message, optional, tag = "2")]
    pub r#type: Option<TypeProto>,
}

/// A value's type: a tensor here.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TypeProto {
    /// The tensor type.
    #[prost(message, optional, tag = "1")]
    pub tensor_type: Option<TensorTypeProto>,
}

/// A tensor's element type and shape (`TypeProto.Tensor`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorTypeProto {
    /// The element type ([`ElementType`]).
    #[prost(int32, tag = "1")]
    pub elem_type: i32,
    /// The shape.
    #[prost(message, optional, tag = "2")]
    pub shape: Option<TensorShapeProto>,
}

/// A shape of fixed and named dimensions.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorShapeProto {
    /// The dimensions, outermost first.
    #[prost(message, repeated, tag = "1")]
    pub dim: Vec<Dimension>,
}

/// One dimension: a fixed size, or a name for a size given at run time (the batch).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Dimension {
    /// The size.
    #[prost(oneof = "DimensionValue", tags = "1, 2")]
    pub value: Option<DimensionValue>,
}

/// A dimension's size or name.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum DimensionValue {
    /// A fixed size.
    #[prost(int64, tag = "1")]
    DimValue(i64),
    /// A size named, given at run time.
    #[prost(string, tag = "2")]
    DimParam(String),
}
