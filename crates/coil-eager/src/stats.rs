//! What a run did: one record per op executed, with the memory traffic PyTorch eager would have.

/// One executed call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpStat {
    /// The node's name (`mul_1`).
    pub node: String,
    /// The overload (`aten.mul.Tensor`).
    pub op: String,
    /// Bytes of the distinct tensor arguments, each counted once at its own size (a bias that
    /// broadcasts is read at its size, not the output's). 0 for views.
    pub bytes_read: usize,
    /// Bytes of the outputs. 0 for views.
    pub bytes_written: usize,
    /// True when the op only made views of its input's storage (no data moved). A `reshape`
    /// that had to copy is not a view.
    pub is_view: bool,
}

/// Counters of a run, modelling PyTorch eager: every op is its own kernel that reads its
/// inputs from memory and writes its outputs back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EagerStats {
    /// Every call executed, in program order (`getitem` is not a call and is not listed).
    pub ops: Vec<OpStat>,
}

impl EagerStats {
    /// Calls executed (views included).
    pub fn num_ops(&self) -> usize {
        self.ops.len()
    }

    /// Calls that moved data: every op but views (factories, copies and matmuls included).
    pub fn num_kernels(&self) -> usize {
        self.ops.iter().filter(|o| !o.is_view).count()
    }

    /// Total bytes read.
    pub fn bytes_read(&self) -> usize {
        self.ops.iter().map(|o| o.bytes_read).sum()
    }

    /// Total bytes written.
    pub fn bytes_written(&self) -> usize {
        self.ops.iter().map(|o| o.bytes_written).sum()
    }

    /// Bytes read plus bytes written.
    pub fn bytes(&self) -> usize {
        self.bytes_read() + self.bytes_written()
    }
}
