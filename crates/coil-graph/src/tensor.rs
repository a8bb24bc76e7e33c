//! Host tensors: typed, strided views over shared storage, with safetensors I/O.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use half::{bf16, f16};

use crate::meta::{Dims, contiguous_strides, is_contiguous};
use crate::{DType, GraphError, TensorMeta};

/// Typed element storage.
#[derive(Clone, Debug, PartialEq)]
#[allow(missing_docs)]
pub enum Data {
    Bool(Vec<bool>),
    U8(Vec<u8>),
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    F16(Vec<f16>),
    BF16(Vec<bf16>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

impl Data {
    /// The element type.
    pub fn dtype(&self) -> DType {
        match self {
            Data::Bool(_) => DType::Bool,
            Data::U8(_) => DType::U8,
            Data::I8(_) => DType::I8,
            Data::I16(_) => DType::I16,
            Data::I32(_) => DType::I32,
            Data::I64(_) => DType::I64,
            Data::F16(_) => DType::F16,
            Data::BF16(_) => DType::BF16,
            Data::F32(_) => DType::F32,
            Data::F64(_) => DType::F64,
        }
    }

    /// Number of elements stored.
    pub fn len(&self) -> usize {
        match self {
            Data::Bool(v) => v.len(),
            Data::U8(v) => v.len(),
            Data::I8(v) => v.len(),
            Data::I16(v) => v.len(),
            Data::I32(v) => v.len(),
            Data::I64(v) => v.len(),
            Data::F16(v) => v.len(),
            Data::BF16(v) => v.len(),
            Data::F32(v) => v.len(),
            Data::F64(v) => v.len(),
        }
    }

    /// True when nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` as f64 (bools as 0/1).
    pub fn get_f64(&self, i: usize) -> f64 {
        match self {
            Data::Bool(v) => v[i] as u8 as f64,
            Data::U8(v) => v[i] as f64,
            Data::I8(v) => v[i] as f64,
            Data::I16(v) => v[i] as f64,
            Data::I32(v) => v[i] as f64,
            Data::I64(v) => v[i] as f64,
            Data::F16(v) => v[i].to_f64(),
            Data::BF16(v) => v[i].to_f64(),
            Data::F32(v) => v[i] as f64,
            Data::F64(v) => v[i],
        }
    }

    /// Builds storage of `dtype` from f64 values, with PyTorch's conversion rules (floats to ints
    /// truncate toward zero, nonzero to bool is true).
    pub fn from_f64(dtype: DType, values: impl Iterator<Item = f64>) -> Data {
        match dtype {
            DType::Bool => Data::Bool(values.map(|x| x != 0.0).collect()),
            DType::U8 => Data::U8(values.map(|x| DType::U8.wrap(x as i64) as u8).collect()),
            DType::I8 => Data::I8(values.map(|x| x as i64 as i8).collect()),
            DType::I16 => Data::I16(values.map(|x| x as i64 as i16).collect()),
            DType::I32 => Data::I32(values.map(|x| x as i32).collect()),
            DType::I64 => Data::I64(values.map(|x| x as i64).collect()),
            DType::F16 => Data::F16(values.map(f16::from_f64).collect()),
            DType::BF16 => Data::BF16(values.map(bf16::from_f64).collect()),
            DType::F32 => Data::F32(values.map(|x| x as f32).collect()),
            DType::F64 => Data::F64(values.collect()),
        }
    }

    fn to_le_bytes(&self) -> Vec<u8> {
        match self {
            Data::Bool(v) => v.iter().map(|&b| b as u8).collect(),
            Data::U8(v) => v.clone(),
            Data::I8(v) => v.iter().map(|&x| x as u8).collect(),
            Data::I16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::I32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::I64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::F16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::BF16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::F64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }

    fn from_le_bytes(dtype: DType, bytes: &[u8]) -> Data {
        fn chunks<const N: usize, T>(bytes: &[u8], f: impl Fn([u8; N]) -> T) -> Vec<T> {
            bytes
                .chunks_exact(N)
                .map(|c| f(c.try_into().expect("chunk of N bytes")))
                .collect()
        }
        match dtype {
            DType::Bool => Data::Bool(bytes.iter().map(|&b| b != 0).collect()),
            DType::U8 => Data::U8(bytes.to_vec()),
            DType::I8 => Data::I8(bytes.iter().map(|&b| b as i8).collect()),
            DType::I16 => Data::I16(chunks(bytes, i16::from_le_bytes)),
            DType::I32 => Data::I32(chunks(bytes, i32::from_le_bytes)),
            DType::I64 => Data::I64(chunks(bytes, i64::from_le_bytes)),
            DType::F16 => Data::F16(chunks(bytes, f16::from_le_bytes)),
            DType::BF16 => Data::BF16(chunks(bytes, bf16::from_le_bytes)),
            DType::F32 => Data::F32(chunks(bytes, f32::from_le_bytes)),
            DType::F64 => Data::F64(chunks(bytes, f64::from_le_bytes)),
        }
    }
}

/// A strided view over shared, immutable storage. Views (`permute`, `expand`, `slice`, ...)
/// share the `Arc`; nothing mutates storage in place.
#[derive(Clone, Debug)]
pub struct Tensor {
    data: Arc<Data>,
    sizes: Vec<usize>,
    strides: Vec<usize>,
    offset: usize,
}

impl Tensor {
    /// A contiguous tensor owning `data`.
    pub fn new(data: Data, sizes: Vec<usize>) -> Result<Tensor, GraphError> {
        let numel: usize = sizes.iter().product();
        if numel != data.len() {
            return Err(GraphError::TensorIo(format!(
                "{} elements cannot fill a tensor of shape {}",
                data.len(),
                Dims(&sizes)
            )));
        }
        let strides = contiguous_strides(&sizes);
        Ok(Tensor {
            data: Arc::new(data),
            sizes,
            strides,
            offset: 0,
        })
    }

    /// A contiguous f32 tensor.
    pub fn from_f32(values: Vec<f32>, sizes: Vec<usize>) -> Result<Tensor, GraphError> {
        Tensor::new(Data::F32(values), sizes)
    }

    /// A view of `self`'s storage with other sizes, strides and offset. Fails if the view
    /// would reach outside the storage.
    pub fn view(
        &self,
        sizes: Vec<usize>,
        strides: Vec<usize>,
        offset: usize,
    ) -> Result<Tensor, GraphError> {
        if sizes.len() != strides.len() {
            return Err(GraphError::Shape(
                "view: sizes and strides differ in length".into(),
            ));
        }
        let numel: usize = sizes.iter().product();
        if numel > 0 {
            let last: usize = offset
                + sizes
                    .iter()
                    .zip(&strides)
                    .map(|(s, st)| (s - 1) * st)
                    .sum::<usize>();
            if last >= self.data.len() {
                return Err(GraphError::Shape(format!(
                    "view of shape {} stride {} offset {offset} reaches outside a storage of {} elements",
                    Dims(&sizes),
                    Dims(&strides),
                    self.data.len()
                )));
            }
        }
        Ok(Tensor {
            data: Arc::clone(&self.data),
            sizes,
            strides,
            offset,
        })
    }

    /// `view(dtype)`: the same bytes read as `dtype`, laid out by
    /// [`crate::meta::view_dtype_layout`] (the storage is reinterpreted; its bytes not
    /// divisible into `dtype`'s elements are dropped).
    pub fn view_dtype(&self, dtype: DType) -> Result<Tensor, GraphError> {
        let (sizes, strides, offset) = crate::meta::view_dtype_layout(
            &self.sizes,
            &self.strides,
            self.offset,
            self.dtype(),
            dtype,
        )?;
        let mut bytes = self.data.to_le_bytes();
        bytes.truncate(bytes.len() / dtype.itemsize() * dtype.itemsize());
        let data = Tensor {
            data: Arc::new(Data::from_le_bytes(dtype, &bytes)),
            sizes: vec![],
            strides: vec![],
            offset: 0,
        };
        data.view(sizes, strides, offset)
    }

    /// Element type.
    pub fn dtype(&self) -> DType {
        self.data.dtype()
    }

    /// Sizes.
    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// Strides, in elements.
    pub fn strides(&self) -> &[usize] {
        &self.strides
    }

    /// Offset of element 0 in the storage.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The shared storage.
    pub fn storage(&self) -> &Arc<Data> {
        &self.data
    }

    /// True when `self` and `other` view the same storage.
    pub fn shares_storage(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.data, &other.data)
    }

    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.sizes.iter().product()
    }

    /// Dtype, sizes and strides.
    pub fn meta(&self) -> TensorMeta {
        TensorMeta {
            dtype: self.dtype(),
            sizes: self.sizes.clone(),
            strides: self.strides.clone(),
        }
    }

    /// True when the view is row-major with no offset gaps.
    pub fn is_contiguous(&self) -> bool {
        is_contiguous(&self.sizes, &self.strides)
    }

    /// Storage offsets of the elements in logical (row-major) order.
    pub fn offsets(&self) -> Vec<usize> {
        strided_offsets(&self.sizes, &self.strides, self.offset)
    }

    /// The elements in logical order as f64.
    pub fn to_f64_vec(&self) -> Vec<f64> {
        self.offsets()
            .into_iter()
            .map(|o| self.data.get_f64(o))
            .collect()
    }

    /// A contiguous copy in logical order (or `self` when already contiguous and dense).
    pub fn contiguous(&self) -> Tensor {
        if self.is_contiguous() && self.offset == 0 && self.data.len() == self.numel() {
            return self.clone();
        }
        let offs = self.offsets();
        let data = match &*self.data {
            Data::Bool(v) => Data::Bool(offs.iter().map(|&o| v[o]).collect()),
            Data::U8(v) => Data::U8(offs.iter().map(|&o| v[o]).collect()),
            Data::I8(v) => Data::I8(offs.iter().map(|&o| v[o]).collect()),
            Data::I16(v) => Data::I16(offs.iter().map(|&o| v[o]).collect()),
            Data::I32(v) => Data::I32(offs.iter().map(|&o| v[o]).collect()),
            Data::I64(v) => Data::I64(offs.iter().map(|&o| v[o]).collect()),
            Data::F16(v) => Data::F16(offs.iter().map(|&o| v[o]).collect()),
            Data::BF16(v) => Data::BF16(offs.iter().map(|&o| v[o]).collect()),
            Data::F32(v) => Data::F32(offs.iter().map(|&o| v[o]).collect()),
            Data::F64(v) => Data::F64(offs.iter().map(|&o| v[o]).collect()),
        };
        Tensor {
            data: Arc::new(data),
            sizes: self.sizes.clone(),
            strides: contiguous_strides(&self.sizes),
            offset: 0,
        }
    }

    /// A contiguous copy converted to `dtype`.
    pub fn to_dtype(&self, dtype: DType) -> Tensor {
        if dtype == self.dtype() {
            return self.contiguous();
        }
        let data = Data::from_f64(dtype, self.to_f64_vec().into_iter());
        Tensor {
            data: Arc::new(data),
            sizes: self.sizes.clone(),
            strides: contiguous_strides(&self.sizes),
            offset: 0,
        }
    }

    /// The elements in logical (row-major) order as little-endian bytes (bools as one byte).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.contiguous().data.to_le_bytes()
    }

    /// A contiguous tensor from little-endian bytes.
    pub fn from_bytes(dtype: DType, sizes: Vec<usize>, bytes: &[u8]) -> Result<Tensor, GraphError> {
        let numel: usize = sizes.iter().product();
        if bytes.len() != numel * dtype.itemsize() {
            return Err(GraphError::TensorIo(format!(
                "{} bytes cannot fill a {dtype} tensor of shape {}",
                bytes.len(),
                Dims(&sizes)
            )));
        }
        Tensor::new(Data::from_le_bytes(dtype, bytes), sizes)
    }

    /// Reads every tensor of a safetensors file, by name.
    pub fn load_safetensors(path: &Path) -> Result<BTreeMap<String, Tensor>, GraphError> {
        let bytes = std::fs::read(path)
            .map_err(|e| GraphError::TensorIo(format!("{}: {e}", path.display())))?;
        Tensor::read_safetensors(&bytes).map_err(|e| match e {
            GraphError::TensorIo(m) => GraphError::TensorIo(format!("{}: {m}", path.display())),
            other => other,
        })
    }

    /// Parses safetensors bytes.
    pub fn read_safetensors(bytes: &[u8]) -> Result<BTreeMap<String, Tensor>, GraphError> {
        let st = safetensors::SafeTensors::deserialize(bytes)
            .map_err(|e| GraphError::TensorIo(explain_safetensors(&e, bytes.len())))?;
        let mut out = BTreeMap::new();
        for (name, view) in st.tensors() {
            use safetensors::Dtype as S;
            let dtype = match view.dtype() {
                S::BOOL => DType::Bool,
                S::U8 => DType::U8,
                S::I8 => DType::I8,
                S::I16 => DType::I16,
                S::I32 => DType::I32,
                S::I64 => DType::I64,
                S::F16 => DType::F16,
                S::BF16 => DType::BF16,
                S::F32 => DType::F32,
                S::F64 => DType::F64,
                other => {
                    return Err(GraphError::TensorIo(format!(
                        "tensor '{name}': unsupported dtype {other:?}"
                    )));
                }
            };
            let data = Data::from_le_bytes(dtype, view.data());
            out.insert(name.clone(), Tensor::new(data, view.shape().to_vec())?);
        }
        Ok(out)
    }

    /// Writes tensors to a safetensors file.
    pub fn save_safetensors(path: &Path, tensors: &[(String, Tensor)]) -> Result<(), GraphError> {
        let bytes = Tensor::write_safetensors(tensors)?;
        std::fs::write(path, bytes)
            .map_err(|e| GraphError::TensorIo(format!("{}: {e}", path.display())))
    }

    /// Serializes tensors in the safetensors format.
    pub fn write_safetensors(tensors: &[(String, Tensor)]) -> Result<Vec<u8>, GraphError> {
        use safetensors::Dtype as S;
        let owned: Vec<(String, S, Vec<usize>, Vec<u8>)> = tensors
            .iter()
            .map(|(n, t)| {
                let t = t.contiguous();
                let dt = match t.dtype() {
                    DType::Bool => S::BOOL,
                    DType::U8 => S::U8,
                    DType::I8 => S::I8,
                    DType::I16 => S::I16,
                    DType::I32 => S::I32,
                    DType::I64 => S::I64,
                    DType::F16 => S::F16,
                    DType::BF16 => S::BF16,
                    DType::F32 => S::F32,
                    DType::F64 => S::F64,
                };
                (n.clone(), dt, t.sizes.clone(), t.data.to_le_bytes())
            })
            .collect();
        let views = owned
            .iter()
            .map(|(n, dt, shape, bytes)| {
                safetensors::tensor::TensorView::new(*dt, shape.clone(), bytes)
                    .map(|v| (n.clone(), v))
                    .map_err(|e| GraphError::TensorIo(e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        safetensors::serialize(views, &None).map_err(|e| GraphError::TensorIo(e.to_string()))
    }
}

/// Storage offsets of a strided view's elements, in row-major logical order.
pub fn strided_offsets(sizes: &[usize], strides: &[usize], offset: usize) -> Vec<usize> {
    let numel: usize = sizes.iter().product();
    let mut out = Vec::with_capacity(numel);
    if numel == 0 {
        return out;
    }
    let rank = sizes.len();
    let mut idx = vec![0usize; rank];
    let mut cur = offset;
    let inner_size = sizes.last().copied().unwrap_or(1);
    let inner_stride = strides.last().copied().unwrap_or(0);
    loop {
        for i in 0..inner_size {
            out.push(cur + i * inner_stride);
        }
        // Advance the outer index (all dims but the last).
        let mut d = rank.saturating_sub(1);
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            idx[d] += 1;
            cur += strides[d];
            if idx[d] < sizes[d] {
                break;
            }
            cur -= strides[d] * sizes[d];
            idx[d] = 0;
        }
    }
}

/// What a safetensors parse error means, in words (the library's error names only a variant).
fn explain_safetensors(e: &safetensors::SafeTensorError, len: usize) -> String {
    use safetensors::SafeTensorError as E;
    let what = match e {
        E::HeaderTooSmall | E::InvalidHeaderLength => {
            "the file is too short for its header: truncated, or not a safetensors file".to_string()
        }
        E::MetadataIncompleteBuffer | E::InvalidOffset(_) | E::TensorInvalidInfo => {
            "the tensors' data does not match what the header describes: the file is truncated or corrupt".to_string()
        }
        E::InvalidHeader | E::InvalidHeaderStart | E::InvalidHeaderDeserialization | E::JsonError(_) => {
            "the header is not valid safetensors JSON: not a safetensors file, or corrupt".to_string()
        }
        E::HeaderTooLarge => "the header is larger than 100 MB: not a safetensors file".to_string(),
        E::ValidationOverflow => "a tensor's size overflows: the file is corrupt".to_string(),
        other => format!("{other}"),
    };
    format!("{what} ({len} bytes; {e:?})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strided_walks_and_safetensors_round_trip() {
        let t = Tensor::from_f32((0..6).map(|x| x as f32).collect(), vec![2, 3]).unwrap();
        let tr = t.view(vec![3, 2], vec![1, 3], 0).unwrap();
        assert_eq!(tr.to_f64_vec(), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
        assert!(tr.shares_storage(&t));
        assert!(!tr.is_contiguous());
        let bytes = Tensor::write_safetensors(&[("a".into(), tr.clone())]).unwrap();
        let back = Tensor::read_safetensors(&bytes).unwrap();
        assert_eq!(back["a"].to_f64_vec(), tr.to_f64_vec());
        assert_eq!(back["a"].sizes(), &[3, 2]);
        assert!(t.view(vec![3, 3], vec![3, 1], 0).is_err());
        assert_eq!(strided_offsets(&[], &[], 4), vec![4]);
        assert_eq!(strided_offsets(&[2, 0], &[0, 1], 0), Vec::<usize>::new());
    }
}
