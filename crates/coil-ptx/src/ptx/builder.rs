//! [`KernelBuilder`]: emits one kernel instruction by instruction, checking operand classes,
//! and renders it on [`KernelBuilder::finish`].

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use super::MAX_STATIC_SHARED_BYTES;
use super::kernel::{ConstTable, PtxKernel};
use super::operand::*;
use crate::PtxError;
use crate::PtxTarget;

mod arith;
mod memory;

#[derive(Clone, Debug)]
struct SharedDecl {
    name: String,
    align: u32,
    bytes: u32,
}

#[derive(Clone, Debug)]
enum Stmt {
    Inst {
        guard: Option<(Reg, bool)>,
        opcode: String,
        args: Vec<Operand>,
    },
    Label(Label),
    Comment(String),
}

/// Builds one kernel (`.entry`) instruction by instruction. Every emitting method returns the
/// fresh register it defined; [`KernelBuilder::assign`] writes an existing one (loop counters,
/// values merged after a branch).
#[derive(Debug)]
pub struct KernelBuilder {
    name: String,
    target: PtxTarget,
    params: Vec<Param>,
    stmts: Vec<Stmt>,
    reg_counts: [u32; 6],
    labels: Vec<(Label, bool)>,
    shared: Vec<SharedDecl>,
    tables: Vec<ConstTable>,
    max_threads: Option<u32>,
    min_blocks_per_sm: Option<u32>,
    guard: Option<(Reg, bool)>,
    error: Option<String>,
    /// Pure integer instructions emitted inside [`KernelBuilder::with_cse`] since the last
    /// label, by their text: asked again with the same operands, the builder hands back the
    /// register that holds the result (index arithmetic repeats across a kernel's loads).
    /// Cleared where control flow joins (a label) and wherever a register is overwritten.
    cse: HashMap<String, Reg>,
    /// Registers some instruction has written.
    written: HashSet<Reg>,
    /// Inside [`KernelBuilder::with_cse`].
    cse_on: bool,
}

/// `k` when `ty` is an unsigned 32- or 64-bit integer and `b` the immediate `2^k`.
fn unsigned_power_of_two(ty: Ty, b: &Operand) -> Option<u32> {
    if !matches!(ty, Ty::U32 | Ty::U64) {
        return None;
    }
    let v = match b {
        Operand::Imm(Imm::Int(v)) if *v > 0 => *v as u64,
        Operand::Imm(Imm::Uint(v)) => *v,
        _ => return None,
    };
    v.is_power_of_two().then(|| v.trailing_zeros())
}

/// Whether an integer instruction only computes its destination from its operands.
fn pure_int_opcode(opcode: &str) -> bool {
    const PURE: &[&str] = &[
        "add.", "sub.", "mul.", "mad.", "div.", "rem.", "min.", "max.", "neg.", "abs.", "mov.",
        "and.", "or.", "xor.", "not.", "shl.", "shr.",
    ];
    PURE.iter().any(|p| opcode.starts_with(p))
}

/// The operand-check rule for an instruction.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fit {
    /// The register's class must be the type's class (bit types: any class of the same size).
    Exact,
    /// Also allow an integer type narrower than a 32-bit register (`ld.u8 %r1`, `cvt.u32.u8`).
    Widen,
}

impl KernelBuilder {
    /// Starts a kernel called `name` for `target`.
    pub fn new(name: impl Into<String>, target: PtxTarget) -> KernelBuilder {
        KernelBuilder {
            name: name.into(),
            target,
            params: Vec::new(),
            stmts: Vec::new(),
            reg_counts: [0; 6],
            labels: Vec::new(),
            shared: Vec::new(),
            tables: Vec::new(),
            max_threads: None,
            min_blocks_per_sm: None,
            guard: None,
            error: None,
            cse: HashMap::new(),
            written: HashSet::new(),
            cse_on: false,
        }
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The target being rendered for.
    pub fn target(&self) -> PtxTarget {
        self.target
    }

    /// Declares that the kernel is launched with at most `threads` threads per block
    /// (`.maxntid`), which lets ptxas budget registers.
    pub fn max_threads_per_block(&mut self, threads: u32) {
        self.max_threads = Some(threads);
    }

    /// Asks ptxas to fit at least `blocks` blocks per SM (`.minnctapersm`; needs
    /// [`KernelBuilder::max_threads_per_block`]).
    pub fn min_blocks_per_sm(&mut self, blocks: u32) {
        self.min_blocks_per_sm = Some(blocks);
    }

    // ---- errors --------------------------------------------------------------------------

    fn fail(&mut self, reason: String) {
        if self.error.is_none() {
            let at = self.stmts.len();
            self.error = Some(format!("instruction {at}: {reason}"));
        }
    }

    /// Records a generator error (the first one wins); [`KernelBuilder::finish`] returns it.
    /// For code generators that find, mid-kernel, something they cannot render.
    pub fn report_error(&mut self, reason: impl Into<String>) {
        self.fail(reason.into());
    }

    fn fits(ty: Ty, class: RegClass, fit: Fit) -> bool {
        if ty.class() == class {
            return true;
        }
        if ty.is_bits() && ty.bits() == class.bits() && class != RegClass::Pred {
            return true;
        }
        fit == Fit::Widen
            && ty.is_int()
            && ty.bits() < 32
            && matches!(class, RegClass::B32 | RegClass::B64)
    }

    fn check(&mut self, opcode: &str, ty: Ty, operand: &Operand, fit: Fit) {
        let ok = match operand {
            Operand::Reg(r) => Self::fits(ty, r.class, fit),
            Operand::Imm(Imm::F32(_)) => ty == Ty::F32 || (ty.is_bits() && ty.bits() == 32),
            Operand::Imm(Imm::F64(_)) => ty == Ty::F64 || (ty.is_bits() && ty.bits() == 64),
            Operand::Imm(Imm::Int(_) | Imm::Uint(_)) => ty.is_int(),
            Operand::Sreg(_) => ty.class() == RegClass::B32,
            Operand::Vec(regs) => regs.iter().all(|r| Self::fits(ty, r.class, fit)),
            Operand::Addr(_) | Operand::Label(_) | Operand::Symbol(_) => true,
        };
        if !ok {
            self.fail(format!(
                "{opcode}: operand {operand} does not fit type .{ty}"
            ));
        }
    }

    fn check_class(&mut self, opcode: &str, operand: &Operand, class: RegClass) {
        let ok = match operand {
            Operand::Reg(r) => r.class == class,
            Operand::Imm(Imm::Int(_) | Imm::Uint(_)) => {
                matches!(class, RegClass::B32 | RegClass::B64 | RegClass::B16)
            }
            _ => false,
        };
        if !ok {
            self.fail(format!(
                "{opcode}: operand {operand} must be a .{} value",
                class.decl_type()
            ));
        }
    }

    // ---- raw emission ---------------------------------------------------------------------

    /// A fresh register of `class`.
    pub fn reg(&mut self, class: RegClass) -> Reg {
        let slot = class.slot();
        let index = self.reg_counts[slot];
        self.reg_counts[slot] += 1;
        Reg { class, index }
    }

    /// Runs `f` with common subexpressions shared: an unguarded pure integer instruction
    /// (`add`, `mul`, `div`, `rem`, shifts, ...) that an earlier one inside `with_cse` already
    /// computed, with nothing between them joining control flow or overwriting a register,
    /// gives that one's register instead of a new instruction. For values never assigned to
    /// afterwards (index arithmetic): a register handed out twice must not be mutated.
    pub fn with_cse<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let outer = std::mem::replace(&mut self.cse_on, true);
        let r = f(self);
        self.cse_on = outer;
        r
    }

    /// Emits `opcode args;` as given, unchecked: the escape hatch for instructions this builder
    /// has no method for. The current guard (see [`KernelBuilder::guarded`]) applies. It may
    /// overwrite any register, so no earlier result is reused after it.
    pub fn emit(&mut self, opcode: impl Into<String>, args: Vec<Operand>) {
        self.cse.clear();
        self.push(opcode, args);
    }

    fn push(&mut self, opcode: impl Into<String>, args: Vec<Operand>) {
        // The destination (an instruction's first operand, when it is a register) written a
        // second time: results computed from its old value are no longer what they say.
        let dests: &[Reg] = match args.first() {
            Some(Operand::Reg(r)) => std::slice::from_ref(r),
            Some(Operand::Vec(rs)) => rs,
            _ => &[],
        };
        let mut overwritten = false;
        for r in dests {
            overwritten |= !self.written.insert(*r);
        }
        if overwritten {
            self.cse.clear();
        }
        self.stmts.push(Stmt::Inst {
            guard: self.guard,
            opcode: opcode.into(),
            args,
        });
    }

    /// Emits a `// text` comment line.
    pub fn comment(&mut self, text: impl Into<String>) {
        self.stmts.push(Stmt::Comment(text.into()));
    }

    fn def(&mut self, opcode: String, class: RegClass, srcs: Vec<Operand>) -> Reg {
        let d = self.reg(class);
        let mut args = Vec::with_capacity(srcs.len() + 1);
        args.push(Operand::Reg(d));
        args.extend(srcs);
        self.push(opcode, args);
        d
    }

    fn typed(&mut self, opcode: String, ty: Ty, srcs: Vec<Operand>) -> Reg {
        for s in &srcs {
            self.check(&opcode, ty, s, Fit::Exact);
        }
        self.def_pure(opcode, ty, srcs)
    }

    /// [`KernelBuilder::def`] of a `ty` result, computed once per straight-line stretch when it
    /// is unguarded pure integer arithmetic.
    fn def_pure(&mut self, opcode: String, ty: Ty, srcs: Vec<Operand>) -> Reg {
        if self.cse_on && self.guard.is_none() && ty.is_int() && pure_int_opcode(&opcode) {
            let key = format!("{opcode} {srcs:?}");
            if let Some(&r) = self.cse.get(&key) {
                return r;
            }
            let r = self.def(opcode, ty.class(), srcs);
            self.cse.insert(key, r);
            return r;
        }
        self.def(opcode, ty.class(), srcs)
    }

    // ---- moves ----------------------------------------------------------------------------

    /// `mov.ty d, a`: a fresh register holding `a` (a register, an immediate, or a symbol's
    /// address).
    pub fn mov(&mut self, ty: Ty, a: impl Into<Operand>) -> Reg {
        self.typed(format!("mov.{ty}"), ty, vec![a.into()])
    }

    /// The value in a register: `v` itself when it is one, else a `mov` of the immediate.
    pub fn materialize(&mut self, ty: Ty, v: Val) -> Reg {
        match v {
            Val::Reg(r) => r,
            Val::Imm(_) => self.mov(ty, v),
        }
    }

    /// `mov.ty dst, a`: overwrites an existing register (PTX registers are not SSA).
    pub fn assign(&mut self, ty: Ty, dst: Reg, a: impl Into<Operand>) {
        let op = format!("mov.{ty}");
        let a = a.into();
        self.check(&op, ty, &Operand::Reg(dst), Fit::Exact);
        self.check(&op, ty, &a, Fit::Exact);
        self.cse.clear();
        self.push(op, vec![Operand::Reg(dst), a]);
    }

    /// Reinterprets the bits of `a` as a `to` value (`mov.b32 %r1, %f1`).
    pub fn bitcast(&mut self, to: Ty, a: Reg) -> Reg {
        if to.bits() != a.class.bits() || to == Ty::Pred {
            self.fail(format!("bitcast of {a} to .{to}: sizes differ"));
        }
        let op = format!("mov.b{}", to.bits());
        self.def(op, to.class(), vec![a.into()])
    }

    /// Reads a special register into a fresh `.u32`.
    pub fn sreg(&mut self, s: Sreg) -> Reg {
        self.def("mov.u32".into(), RegClass::B32, vec![Operand::Sreg(s)])
    }

    /// The address of a variable (shared array or const table) as a `.u64`.
    pub fn address_of(&mut self, s: &Symbol) -> Reg {
        self.def("mov.u64".into(), RegClass::B64, vec![s.into()])
    }

    /// The address of a shared array as a `.u32` shared-window address (cheaper arithmetic;
    /// valid as `[%r]` in `ld.shared`/`st.shared`).
    pub fn shared_address32(&mut self, s: &Symbol) -> Reg {
        self.def("mov.u32".into(), RegClass::B32, vec![s.into()])
    }

    /// The low 32 bits of a 64-bit register (`cvt.u32.u64`).
    pub fn low32(&mut self, a: Reg) -> Reg {
        self.cvt(Ty::U32, Ty::U64, None, a)
    }

    // ---- control flow -------------------------------------------------------------------

    /// A new label (not yet placed).
    pub fn label(&mut self, hint: &str) -> Label {
        let l = Label {
            id: self.labels.len() as u32,
            hint: sanitize(hint),
        };
        self.labels.push((l.clone(), false));
        l
    }

    /// Places `label` here. A label may be placed once.
    pub fn place(&mut self, label: &Label) {
        let problem = match self.labels.get_mut(label.id as usize) {
            Some((l, placed)) if l == label => {
                let twice = *placed;
                *placed = true;
                twice.then(|| format!("label {label} placed twice"))
            }
            _ => Some(format!("label {label} does not belong to this kernel")),
        };
        if let Some(msg) = problem {
            self.fail(msg);
        }
        // Control flow joins here: a result computed before may not have been on every path.
        self.cse.clear();
        self.stmts.push(Stmt::Label(label.clone()));
    }

    /// `bra label`.
    pub fn bra(&mut self, label: &Label) {
        self.push("bra", vec![Operand::Label(label.clone())]);
    }

    /// `@p bra label`.
    pub fn bra_if(&mut self, p: Reg, label: &Label) {
        self.guarded(p, false, |b| b.bra(label));
    }

    /// `@!p bra label`.
    pub fn bra_unless(&mut self, p: Reg, label: &Label) {
        self.guarded(p, true, |b| b.bra(label));
    }

    /// `ret`.
    pub fn ret(&mut self) {
        self.push("ret", vec![]);
    }

    /// Emits what `body` emits under the guard `@p` (or `@!p` when `negate`). Guards do not
    /// nest.
    pub fn guarded(&mut self, p: Reg, negate: bool, body: impl FnOnce(&mut Self)) {
        if p.class != RegClass::Pred {
            self.fail(format!("guard {p} is not a predicate"));
        }
        if self.guard.is_some() {
            self.fail("guarded blocks do not nest".into());
        }
        let saved = self.guard.replace((p, negate));
        body(self);
        self.guard = saved;
    }

    /// A loop `for i in (start..end).step_by(step)` over `ty` integers, tested at the top:
    /// the body sees the counter register (do not assign to it).
    pub fn counted_loop(
        &mut self,
        ty: Ty,
        start: impl Into<Operand>,
        end: impl Into<Operand>,
        step: impl Into<Operand>,
        body: impl FnOnce(&mut Self, Reg),
    ) {
        let (end, step) = (end.into(), step.into());
        let i = self.mov(ty, start);
        let top = self.label("loop");
        let done = self.label("loop_end");
        let exit = self.setp(Cmp::Ge, ty, i, end.clone());
        self.bra_if(exit, &done);
        self.place(&top);
        body(self, i);
        let next = self.add(ty, i, step);
        self.assign(ty, i, next);
        let more = self.setp(Cmp::Lt, ty, i, end);
        self.bra_if(more, &top);
        self.place(&done);
    }

    /// The global thread index `ctaid.x * ntid.x + tid.x` as a `.u64`.
    pub fn global_thread_index(&mut self) -> Reg {
        let block = self.sreg(Sreg::CtaidX);
        let threads = self.sreg(Sreg::NtidX);
        let tid = self.sreg(Sreg::TidX);
        let base = self.mul_wide(Ty::U32, block, threads);
        let tid = self.cvt(Ty::U64, Ty::U32, None, tid);
        self.add(Ty::U64, base, tid)
    }

    /// A grid-stride loop over `0..n` (`n` a `.u64`): each thread starts at its global index
    /// and steps by the grid's thread count, so any grid size covers any `n`.
    pub fn grid_stride_loop(&mut self, n: impl Into<Operand>, body: impl FnOnce(&mut Self, Reg)) {
        let n = n.into();
        let start = self.global_thread_index();
        let grid = self.sreg(Sreg::NctaidX);
        let threads = self.sreg(Sreg::NtidX);
        let stride = self.mul_wide(Ty::U32, grid, threads);
        self.counted_loop(Ty::U64, start, n, stride, body);
    }

    // ---- finishing ----------------------------------------------------------------------

    /// Verifies the kernel (no recorded error, every label placed, shared memory within
    /// [`MAX_STATIC_SHARED_BYTES`]), appends `ret` if missing, and renders it.
    pub fn finish(mut self) -> Result<PtxKernel, PtxError> {
        if let Some((l, _)) = self.labels.iter().find(|(_, placed)| !placed) {
            let msg = format!("label {l} is never placed");
            self.fail(msg);
        }
        let shared_bytes: u32 = self
            .shared
            .iter()
            .map(|s| s.bytes.next_multiple_of(s.align.max(1)))
            .sum();
        if shared_bytes > MAX_STATIC_SHARED_BYTES {
            self.fail(format!(
                "{shared_bytes} bytes of shared memory exceed the static limit of {MAX_STATIC_SHARED_BYTES}"
            ));
        }
        if self.min_blocks_per_sm.is_some() && self.max_threads.is_none() {
            self.fail(".minnctapersm needs .maxntid".into());
        }
        if let Some(reason) = self.error.take() {
            return Err(PtxError {
                kernel: self.name,
                reason,
            });
        }
        let ends_in_ret = matches!(self.stmts.last(), Some(Stmt::Inst { opcode, guard: None, .. }) if opcode == "ret");
        if !ends_in_ret {
            self.guard = None;
            self.ret();
        }
        let entry = self.render_entry();
        Ok(PtxKernel {
            name: self.name,
            target: self.target,
            params: self.params,
            shared_bytes,
            max_threads: self.max_threads,
            tables: self.tables,
            entry,
        })
    }

    fn render_entry(&self) -> String {
        let mut s = String::new();
        let _ = write!(s, ".visible .entry {}(", self.name);
        for (i, p) in self.params.iter().enumerate() {
            s.push_str(if i == 0 { "\n" } else { ",\n" });
            let ty = match p.ty {
                ParamTy::Ptr { align } => format!(".u64 .ptr.global.align {align}"),
                other => format!(".{}", other.ty()),
            };
            let _ = write!(s, "    .param {ty} {}", p.name);
        }
        s.push_str("\n)\n");
        if let Some(t) = self.max_threads {
            let _ = writeln!(s, ".maxntid {t}, 1, 1");
        }
        if let Some(k) = self.min_blocks_per_sm {
            let _ = writeln!(s, ".minnctapersm {k}");
        }
        s.push_str("{\n");
        for class in RegClass::ALL {
            let n = self.reg_counts[class.slot()];
            if n > 0 {
                let _ = writeln!(
                    s,
                    "    .reg .{} %{}<{n}>;",
                    class.decl_type(),
                    class.prefix()
                );
            }
        }
        for sh in &self.shared {
            let _ = writeln!(
                s,
                "    .shared .align {} .b8 {}[{}];",
                sh.align, sh.name, sh.bytes
            );
        }
        s.push('\n');
        for stmt in &self.stmts {
            match stmt {
                Stmt::Label(l) => {
                    let _ = writeln!(s, "{l}:");
                }
                Stmt::Comment(c) => {
                    let _ = writeln!(s, "    // {c}");
                }
                Stmt::Inst {
                    guard,
                    opcode,
                    args,
                } => {
                    s.push_str("    ");
                    if let Some((p, neg)) = guard {
                        let _ = write!(s, "@{}{p} ", if *neg { "!" } else { "" });
                    }
                    s.push_str(opcode);
                    for (i, a) in args.iter().enumerate() {
                        s.push_str(if i == 0 { " " } else { ", " });
                        let _ = write!(s, "{a}");
                    }
                    s.push_str(";\n");
                }
            }
        }
        s.push_str("}\n");
        s
    }
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

fn sanitize(hint: &str) -> String {
    let s: String = hint
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() { "l".into() } else { s }
}
