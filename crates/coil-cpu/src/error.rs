//! The crate's one error type: everything that can go wrong between building LLVM IR and
//! running JIT-compiled code is a [`CpuError`] value, never a panic.

/// An error from the CPU backend's LLVM harness, math library or runtime.
#[derive(Debug, thiserror::Error)]
pub enum CpuError {
    /// LLVM could not set up code generation for this machine.
    #[error("LLVM target initialisation failed: {0}")]
    TargetInit(String),
    /// The module failed LLVM's verifier (before or after optimisation).
    #[error("LLVM verifier rejected module `{module}` ({stage}): {message}")]
    Verify {
        /// The module's name.
        module: String,
        /// `before optimisation` or `after optimisation`.
        stage: &'static str,
        /// LLVM's message.
        message: String,
    },
    /// The optimisation pipeline failed to parse or run.
    #[error("LLVM pass pipeline `{pipeline}` failed on module `{module}`: {message}")]
    Passes {
        /// The module's name.
        module: String,
        /// The pipeline text given to the pass builder.
        pipeline: String,
        /// LLVM's message.
        message: String,
    },
    /// Creating the JIT execution engine failed.
    #[error("could not create the JIT for module `{module}`: {message}")]
    Jit {
        /// The module's name.
        module: String,
        /// LLVM's message.
        message: String,
    },
    /// The optimised IR of modules compiled apart could not be parsed back or linked into one
    /// text ([`crate::link_ir`]).
    #[error("could not link the optimised IR of `{module}`: {message}")]
    Link {
        /// The linked module's name.
        module: String,
        /// What failed, and LLVM's message.
        message: String,
    },
    /// The module calls a function that is neither defined in it, an LLVM intrinsic, a coil
    /// runtime helper, nor a symbol of the running process.
    #[error("module `{module}` calls `{symbol}`, which the JIT cannot resolve")]
    UnresolvedSymbol {
        /// The module's name.
        module: String,
        /// The undefined function.
        symbol: String,
    },
    /// A function looked up in JIT-compiled code does not exist there.
    #[error("no function `{name}` in JIT module `{module}`")]
    MissingFunction {
        /// The module's name.
        module: String,
        /// The name looked up.
        name: String,
    },
    /// An LLVM IR builder call failed (e.g. the builder was not positioned in a block).
    #[error("LLVM IR builder: {0}")]
    Builder(#[from] inkwell::builder::BuilderError),
    /// An LLVM intrinsic the math library needs is unknown to this LLVM.
    #[error("LLVM intrinsic `{0}` is not available")]
    MissingIntrinsic(&'static str),
    /// A value handed to the math library has a type it does not handle.
    #[error("math function `{function}` does not take values of type {ty}")]
    UnsupportedType {
        /// The math function's name.
        function: &'static str,
        /// The LLVM type that was given.
        ty: String,
    },
    /// Arguments handed to a kernel launch do not match the kernel's signature.
    #[error("kernel `{kernel}`: {message}")]
    KernelArgs {
        /// The kernel's name.
        kernel: String,
        /// What did not match.
        message: String,
    },
    /// The kernel IR could not be translated (a construct the translator does not handle, or
    /// an inconsistent kernel).
    #[error("codegen of kernel `{kernel}`: {message}")]
    Codegen {
        /// The kernel's name.
        kernel: String,
        /// What went wrong.
        message: String,
    },
    /// A run-time request was invalid: an unknown buffer, a buffer too small for a kernel or a
    /// copy, aliased outputs, a matmul of mismatched shapes, an allocation failure.
    #[error("{0}")]
    Runtime(String),
    /// Spawning a worker thread of the parallel runtime failed.
    #[error("could not start worker thread: {0}")]
    ThreadSpawn(#[from] std::io::Error),
}
