//! [`KernelBuilder`]'s parameters and memory: kernel parameters, shared arrays, constant
//! tables, loads and stores (vector widths, cache operators), atomics, shuffles and barriers.

use super::*;

impl KernelBuilder {
    /// Declares a kernel parameter; read it with [`KernelBuilder::load_param`].
    pub fn param(&mut self, name: impl Into<String>, ty: ParamTy) -> Param {
        let name = name.into();
        if !is_identifier(&name) {
            self.fail(format!("parameter name '{name}' is not a PTX identifier"));
        }
        if self.params.iter().any(|p| p.name == name) {
            self.fail(format!("parameter '{name}' declared twice"));
        }
        let p = Param { name, ty };
        self.params.push(p.clone());
        p
    }

    /// `ld.param` of a declared parameter.
    pub fn load_param(&mut self, p: Param) -> Reg {
        let ty = p.ty.ty();
        self.def(
            format!("ld.param.{ty}"),
            ty.class(),
            vec![Operand::Addr(Addr::symbol(&Symbol(p.name)))],
        )
    }

    /// Declares a global-pointer parameter aligned to `align` bytes, loads it and converts it to
    /// a global address (`cvta.to.global.u64`): the register to index from.
    pub fn ptr_param(&mut self, name: impl Into<String>, align: u32) -> Reg {
        let p = self.param(name, ParamTy::Ptr { align });
        let generic = self.load_param(p);
        self.def(
            "cvta.to.global.u64".into(),
            RegClass::B64,
            vec![generic.into()],
        )
    }

    /// Declares a shared array of `bytes` bytes, `align`-aligned; the name is made unique.
    pub fn shared_array(&mut self, hint: &str, align: u32, bytes: u32) -> Symbol {
        let name = format!("{}_{}", sanitize(hint), self.shared.len());
        self.shared.push(SharedDecl {
            name: name.clone(),
            align,
            bytes,
        });
        Symbol(name)
    }

    /// Declares (once per name) a module-scope constant table of `.b32` or `.b64` values.
    /// Kernels of one module that declare the same table share it.
    pub fn const_table(&mut self, name: &str, ty: Ty, values: &[u64]) -> Symbol {
        if !matches!(ty, Ty::B32 | Ty::B64) {
            self.fail(format!("const table {name}: type must be .b32 or .b64"));
        }
        if !self.tables.iter().any(|t| t.name == name) {
            self.tables.push(ConstTable {
                name: name.to_string(),
                ty,
                values: values.to_vec(),
            });
        }
        Symbol(name.to_string())
    }

    fn mem_op(space: Space, cache: Cache, store: bool, width: u32, ty: Ty) -> String {
        let mut op = format!("{}.{}", if store { "st" } else { "ld" }, space.name());
        if let Some(c) = cache.op {
            op.push('.');
            op.push_str(c.name());
        }
        if cache.non_coherent {
            op.push_str(".nc");
        }
        if width > 1 {
            let _ = write!(op, ".v{width}");
        }
        let _ = write!(op, ".{ty}");
        op
    }

    fn check_cache(&mut self, space: Space, cache: Cache, store: bool) {
        if cache.non_coherent && (store || space != Space::Global) {
            self.fail("the .nc hint is for global loads only".into());
        }
        if let Some(c) = cache.op {
            let ok = if store {
                matches!(c, CacheOp::Wb | CacheOp::Cg | CacheOp::Cs | CacheOp::Wt)
            } else {
                matches!(
                    c,
                    CacheOp::Ca | CacheOp::Cg | CacheOp::Cs | CacheOp::Lu | CacheOp::Cv
                )
            };
            let nc_compatible = matches!(c, CacheOp::Ca | CacheOp::Cg | CacheOp::Cs);
            let ok = ok && (nc_compatible || !cache.non_coherent);
            if !ok {
                self.fail(format!(
                    "cache operator .{} is not valid on a {}",
                    c.name(),
                    if store { "store" } else { "load" }
                ));
            }
        }
    }

    /// A scalar load. Integer types narrower than 32 bits load into a `.b32` register.
    pub fn ld(&mut self, space: Space, ty: Ty, addr: Addr, cache: Cache) -> Reg {
        self.check_cache(space, cache, false);
        let op = Self::mem_op(space, cache, false, 1, ty);
        let class = if ty.is_int() && ty.bits() < 32 {
            RegClass::B32
        } else {
            ty.class()
        };
        self.def(op, class, vec![Operand::Addr(addr)])
    }

    /// A vector load of `width` (2 or 4) elements: `ld.global.nc.v4.f32 {..}, [a]`. The address
    /// must be aligned to the vector's size.
    pub fn ld_vec(
        &mut self,
        space: Space,
        ty: Ty,
        addr: Addr,
        width: u32,
        cache: Cache,
    ) -> Vec<Reg> {
        self.check_cache(space, cache, false);
        if !matches!(width, 2 | 4) || ty.bits() * width > 128 {
            self.fail(format!(
                "ld.v{width}.{ty}: vectors are 2 or 4 wide, at most 128 bits"
            ));
        }
        let op = Self::mem_op(space, cache, false, width, ty);
        let regs: Vec<Reg> = (0..width).map(|_| self.reg(ty.class())).collect();
        self.push(op, vec![Operand::Vec(regs.clone()), Operand::Addr(addr)]);
        regs
    }

    /// A scalar store.
    pub fn st(
        &mut self,
        space: Space,
        ty: Ty,
        addr: Addr,
        value: impl Into<Operand>,
        cache: Cache,
    ) {
        self.check_cache(space, cache, true);
        let op = Self::mem_op(space, cache, true, 1, ty);
        let value = value.into();
        self.check(&op, ty, &value, Fit::Widen);
        self.push(op, vec![Operand::Addr(addr), value]);
    }

    /// A vector store of 2 or 4 registers: `st.global.v4.f32 [a], {..}`.
    pub fn st_vec(&mut self, space: Space, ty: Ty, addr: Addr, values: &[Reg], cache: Cache) {
        self.check_cache(space, cache, true);
        let width = values.len() as u32;
        if !matches!(width, 2 | 4) || ty.bits() * width > 128 {
            self.fail(format!(
                "st.v{width}.{ty}: vectors are 2 or 4 wide, at most 128 bits"
            ));
        }
        let op = Self::mem_op(space, cache, true, width, ty);
        let v = Operand::Vec(values.to_vec());
        self.check(&op, ty, &v, Fit::Exact);
        self.push(op, vec![Operand::Addr(addr), v]);
    }

    /// `atom.space.op.ty d, [a], b`: the old value.
    pub fn atom(
        &mut self,
        space: Space,
        op: AtomOp,
        ty: Ty,
        addr: Addr,
        value: impl Into<Operand>,
    ) -> Reg {
        let opcode = format!("atom.{}.{}.{ty}", space.name(), op.name());
        let value = value.into();
        self.check(&opcode, ty, &value, Fit::Exact);
        self.def(opcode, ty.class(), vec![Operand::Addr(addr), value])
    }

    /// `red.space.op.ty [a], b`: an atomic update whose old value is not needed.
    pub fn red(&mut self, space: Space, op: AtomOp, ty: Ty, addr: Addr, value: impl Into<Operand>) {
        let opcode = format!("red.{}.{}.{ty}", space.name(), op.name());
        let value = value.into();
        self.check(&opcode, ty, &value, Fit::Exact);
        self.push(opcode, vec![Operand::Addr(addr), value]);
    }

    /// `shfl.sync.mode.b32 d, a, b, c, 0xffffffff` over the full warp: `b` is the lane offset
    /// or mask (see [`Shfl`]); `a` is any 32-bit register.
    pub fn shfl(&mut self, mode: Shfl, a: Reg, b: impl Into<Operand>) -> Reg {
        let (name, clamp) = match mode {
            Shfl::Bfly => ("bfly", 31),
            Shfl::Down => ("down", 31),
            Shfl::Up => ("up", 0),
            Shfl::Idx => ("idx", 31),
        };
        let op = format!("shfl.sync.{name}.b32");
        let b = b.into();
        self.check(&op, Ty::B32, &Operand::Reg(a), Fit::Exact);
        self.check(&op, Ty::U32, &b, Fit::Exact);
        self.def(
            op,
            a.class,
            vec![a.into(), b, Imm::Uint(clamp).into(), Imm::Int(-1).into()],
        )
    }

    /// `bar.sync id`: waits for every thread of the block.
    pub fn bar_sync(&mut self, id: u32) {
        self.push("bar.sync", vec![Imm::Uint(id.into()).into()]);
    }

    /// `membar.gl`: this thread's writes to global memory are visible to the whole device
    /// before any write it makes after the fence (a split reduction's partial before the
    /// counter that says it is there).
    pub fn membar_gl(&mut self) {
        self.push("membar.gl", vec![]);
    }
}
