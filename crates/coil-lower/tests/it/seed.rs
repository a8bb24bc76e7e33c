//! The seed model after decomposition lowers to Inductor's two buffers (golden dump), and a few
//! other dumps that pin the format: extern kernels, global reductions, cat and views.

use expect_test::{Expect, expect};

use crate::common::{graph, lower};

/// `seed_model` as coil-passes decomposes it: `mean` -> `sum` then `mul` by 1/1024.
pub(crate) const SEED_DECOMPOSED: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[1024, 1024]", bias: "f32[1024]", gamma: "f32[1024]", beta: "f32[1024]"):
        mul: "f32[1024, 1024]" = torch.ops.aten.mul.Tensor(x, 1.1);  x = None
        add: "f32[1024, 1024]" = torch.ops.aten.add.Tensor(mul, bias);  mul = bias = None
        relu: "f32[1024, 1024]" = torch.ops.aten.relu.default(add);  add = None
        mul_1: "f32[1024, 1024]" = torch.ops.aten.mul.Tensor(relu, relu)
        mul_2: "f32[1024, 1024]" = torch.ops.aten.mul.Tensor(relu, 0.1);  relu = None
        add_1: "f32[1024, 1024]" = torch.ops.aten.add.Tensor(mul_1, mul_2);  mul_1 = mul_2 = None
        sum_1: "f32[1024, 1]" = torch.ops.aten.sum.dim_IntList(add_1, [1], True)
        mul_3: "f32[1024, 1]" = torch.ops.aten.mul.Tensor(sum_1, 0.0009765625);  sum_1 = None
        sub: "f32[1024, 1024]" = torch.ops.aten.sub.Tensor(add_1, mul_3);  add_1 = mul_3 = None
        mul_4: "f32[1024, 1024]" = torch.ops.aten.mul.Tensor(sub, gamma);  sub = gamma = None
        add_2: "f32[1024, 1024]" = torch.ops.aten.add.Tensor(mul_4, beta);  mul_4 = beta = None
        return (add_2,)
"#;

fn check(text: &str, want: Expect) {
    want.assert_eq(&lower(&graph(text)).ir_pre_fusion());
}

#[test]
fn seed_model_dump() {
    check(
        SEED_DECOMPOSED,
        expect![[r#"
        buf0: ComputedBuffer
        buf0.layout = FixedLayout(torch.float32, size=[1024, 1], stride=[1, 1])
        buf0.origins = [sum_1, add_1, mul_1, relu, add, mul, mul_2]
        buf0.writes = [MemoryDep('buf0', d0, {d0: 1024})]
        buf0.reads = [
            MemoryDep('x', 1024*d0 + d1, {d0: 1024, d1: 1024}),
            MemoryDep('bias', d1, {d0: 1024, d1: 1024})]
        buf0.group.iteration = (1024, 1024)
        buf0.sizes = ([1024], [1024])
        class buf0_loop_body:
            var_ranges = {p0: 1024, p1: 1024}
            index0 = 1024*p0 + p1
            index1 = p1
            index2 = p0
            def body(self, ops):
                get_index = self.get_index('index0')
                load = ops.load('x', get_index)
                constant = ops.constant(1.1, torch.float32)
                mul = ops.mul(load, constant)
                get_index_1 = self.get_index('index1')
                load_1 = ops.load('bias', get_index_1)
                add = ops.add(mul, load_1)
                relu = ops.relu(add)
                mul_1 = ops.mul(relu, relu)
                constant_1 = ops.constant(0.1, torch.float32)
                mul_2 = ops.mul(relu, constant_1)
                add_1 = ops.add(mul_1, mul_2)
                reduction = ops.reduction(torch.float32, torch.float32, 'sum', add_1)
                get_index_2 = self.get_index('index2')
                store_reduction = ops.store_reduction('buf0', get_index_2, reduction)
                return store_reduction

        buf1: ComputedBuffer
        buf1.layout = FixedLayout(torch.float32, size=[1024, 1024], stride=[1024, 1])
        buf1.origins = [add_2, mul_4, sub, add_1, mul_1, relu, add, mul, mul_2, mul_3]
        buf1.writes = [MemoryDep('buf1', 1024*d0 + d1, {d0: 1024, d1: 1024})]
        buf1.reads = [
            MemoryDep('x', 1024*d0 + d1, {d0: 1024, d1: 1024}),
            MemoryDep('bias', d1, {d0: 1024, d1: 1024}),
            MemoryDep('buf0', d0, {d0: 1024}),
            MemoryDep('gamma', d1, {d0: 1024, d1: 1024}),
            MemoryDep('beta', d1, {d0: 1024, d1: 1024})]
        buf1.group.iteration = (1048576, 1)
        buf1.sizes = ([1024, 1024], [])
        class buf1_loop_body:
            var_ranges = {p0: 1024, p1: 1024}
            index0 = 1024*p0 + p1
            index1 = p1
            index2 = p0
            def body(self, ops):
                get_index = self.get_index('index0')
                load = ops.load('x', get_index)
                constant = ops.constant(1.1, torch.float32)
                mul = ops.mul(load, constant)
                get_index_1 = self.get_index('index1')
                load_1 = ops.load('bias', get_index_1)
                add = ops.add(mul, load_1)
                relu = ops.relu(add)
                mul_1 = ops.mul(relu, relu)
                constant_1 = ops.constant(0.1, torch.float32)
                mul_2 = ops.mul(relu, constant_1)
                add_1 = ops.add(mul_1, mul_2)
                get_index_2 = self.get_index('index2')
                load_2 = ops.load('buf0', get_index_2)
                constant_2 = ops.constant(0.0009765625, torch.float32)
                mul_3 = ops.mul(load_2, constant_2)
                sub = ops.sub(add_1, mul_3)
                get_index_3 = self.get_index('index1')
                load_3 = ops.load('gamma', get_index_3)
                mul_4 = ops.mul(sub, load_3)
                get_index_4 = self.get_index('index1')
                load_4 = ops.load('beta', get_index_4)
                add_2 = ops.add(mul_4, load_4)
                get_index_5 = self.get_index('index0')
                store = ops.store('buf1', get_index_5, add_2, None)
                return store

        graph.outputs = [buf1]
    "#]],
    );
}

#[test]
fn seed_model_recomputes_a_and_s_in_both_buffers() {
    let l = lower(&graph(SEED_DECOMPOSED));
    assert_eq!(l.buffers().len(), 2);
    // relu (`a`) and add_1 (`s`) were never realized: both buffers inline them.
    assert!(l.realized_buffer_of("relu").is_none());
    assert!(l.realized_buffer_of("add_1").is_none());
    for b in l.buffers() {
        let names: Vec<&str> = b.origins.iter().map(|o| o.node.as_str()).collect();
        assert!(
            names.contains(&"relu") && names.contains(&"add_1"),
            "{names:?}"
        );
    }
    let buf0 = &l.buffers()[0];
    assert_eq!(buf0.layout.sizes, [1024, 1]);
    assert_eq!(buf0.group(), (1024, 1024));
    let reads: Vec<String> = l.buffers()[1]
        .reads
        .iter()
        .map(|d| l.name(d.buffer()))
        .collect();
    assert_eq!(reads, ["x", "bias", "buf0", "gamma", "beta"]);
    // The vertical-fusion match the scheduler looks for: buf1 reads buf0 as buf0 writes it.
    assert!(l.buffers()[1].reads.contains(&buf0.writes[0]));
}

/// The dump without its origins lines (node names differ between graphs built apart).
fn without_origins(dump: &str) -> String {
    dump.lines()
        .filter(|l| !l.contains(".origins = "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn seed_model_through_coil_passes_lowers_to_the_same_ir() {
    let g = coil_models::find("seed_model")
        .unwrap()
        .graph(coil_models::Size::Article)
        .unwrap();
    let passed = crate::zoo::decomposed(&g);
    assert_eq!(
        without_origins(&lower(&passed).ir_pre_fusion()),
        without_origins(&lower(&graph(SEED_DECOMPOSED)).ir_pre_fusion())
    );
}

#[test]
fn seed_model_with_mean_lowers_the_same_way() {
    let g = coil_models::find("seed_model")
        .unwrap()
        .graph(coil_models::Size::Article)
        .unwrap();
    let l = lower(&g);
    assert_eq!(l.buffers().len(), 2);
    assert!(
        l.ir_pre_fusion()
            .contains("ops.truediv(load_2, constant_2)")
    );
}

#[test]
fn wall_dump() {
    check(
        coil_models::find("wall").unwrap().article,
        expect![[r#"
            buf0: ComputedBuffer
            buf0.layout = FixedLayout(torch.float32, size=[], stride=[])
            buf0.origins = [mean]
            buf0.writes = [MemoryDep('buf0', 0, {})]
            buf0.reads = [MemoryDep('x', 1024*d0 + d1, {d0: 1024, d1: 1024})]
            buf0.group.iteration = (1, 1048576)
            buf0.sizes = ([], [1024, 1024])
            class buf0_loop_body:
                var_ranges = {p0: 1024, p1: 1024}
                index0 = 1024*p0 + p1
                index1 = 0
                def body(self, ops):
                    get_index = self.get_index('index0')
                    load = ops.load('x', get_index)
                    reduction = ops.reduction(torch.float32, torch.float32, 'sum', load)
                    get_index_1 = self.get_index('index1')
                    store_reduction = ops.store_reduction('buf0', get_index_1, reduction)
                    return store_reduction

            buf1: ComputedBuffer
            buf1.layout = FixedLayout(torch.float32, size=[1024, 1024], stride=[1024, 1])
            buf1.origins = [relu, sub, mean]
            buf1.writes = [MemoryDep('buf1', 1024*d0 + d1, {d0: 1024, d1: 1024})]
            buf1.reads = [
                MemoryDep('x', 1024*d0 + d1, {d0: 1024, d1: 1024}),
                MemoryDep('buf0', 0, {})]
            buf1.group.iteration = (1048576, 1)
            buf1.sizes = ([1024, 1024], [])
            class buf1_loop_body:
                var_ranges = {p0: 1024, p1: 1024}
                index0 = 1024*p0 + p1
                index1 = 0
                def body(self, ops):
                    get_index = self.get_index('index0')
                    load = ops.load('x', get_index)
                    get_index_1 = self.get_index('index1')
                    load_1 = ops.load('buf0', get_index_1)
                    constant = ops.constant(1048576.0, torch.float32)
                    truediv = ops.truediv(load_1, constant)
                    sub = ops.sub(load, truediv)
                    relu = ops.relu(sub)
                    get_index_2 = self.get_index('index0')
                    store = ops.store('buf1', get_index_2, relu, None)
                    return store

            graph.outputs = [buf1]
        "#]],
    );
}

#[test]
fn mm_epilogue_dump() {
    check(
        coil_models::find("mm_epilogue").unwrap().article,
        expect![[r#"
            buf0: ComputedBuffer
            buf0.layout = FixedLayout(torch.float32, size=[512, 512], stride=[512, 1])
            buf0.origins = [add]
            buf0.writes = [MemoryDep('buf0', 512*d0 + d1, {d0: 512, d1: 512})]
            buf0.reads = [MemoryDep('x', 512*d0 + d1, {d0: 512, d1: 512})]
            buf0.group.iteration = (262144, 1)
            buf0.sizes = ([512, 512], [])
            class buf0_loop_body:
                var_ranges = {p0: 512, p1: 512}
                index0 = 512*p0 + p1
                def body(self, ops):
                    get_index = self.get_index('index0')
                    load = ops.load('x', get_index)
                    constant = ops.constant(1.0, torch.float32)
                    add = ops.add(load, constant)
                    get_index_1 = self.get_index('index0')
                    store = ops.store('buf0', get_index_1, add, None)
                    return store

            buf1: ExternKernelOut
            buf1.layout = FixedLayout(torch.float32, size=[512, 512], stride=[512, 1])
            buf1.origins = [mm]
            buf1.writes = [StarDep('buf1')]
            buf1.reads = [
                StarDep('buf0'),
                StarDep('w')]
            buf1.group.iteration = (262144, 1)
            buf1.kernel = extern_kernels.mm
            buf1.inputs = [
                buf0,
                w]

            buf2: ComputedBuffer
            buf2.layout = FixedLayout(torch.float32, size=[512, 512], stride=[512, 1])
            buf2.origins = [relu]
            buf2.writes = [MemoryDep('buf2', 512*d0 + d1, {d0: 512, d1: 512})]
            buf2.reads = [MemoryDep('buf1', 512*d0 + d1, {d0: 512, d1: 512})]
            buf2.group.iteration = (262144, 1)
            buf2.sizes = ([512, 512], [])
            class buf2_loop_body:
                var_ranges = {p0: 512, p1: 512}
                index0 = 512*p0 + p1
                def body(self, ops):
                    get_index = self.get_index('index0')
                    load = ops.load('buf1', get_index)
                    relu = ops.relu(load)
                    get_index_1 = self.get_index('index0')
                    store = ops.store('buf2', get_index_1, relu, None)
                    return store

            graph.outputs = [buf2]
        "#]],
    );
}

#[test]
fn cat_and_view_dump() {
    check(
        r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 6]", y: "f32[4, 2]"):
        t: "f32[6, 4]" = torch.ops.aten.t.default(x)
        view: "f32[24]" = torch.ops.aten.view.default(x, [24])
        view_1: "f32[4, 6]" = torch.ops.aten.view.default(view, [4, 6])
        slice_1: "f32[4, 3]" = torch.ops.aten.slice.Tensor(view_1, 1, 0, 6, 2)
        cat: "f32[4, 5]" = torch.ops.aten.cat.default([slice_1, y], 1)
        exp: "f32[4, 5]" = torch.ops.aten.exp.default(cat)
        return (exp, t)
"#,
        expect![[r#"
            buf0: ComputedBuffer
            buf0.layout = FixedLayout(torch.float32, size=[4, 5], stride=[5, 1])
            buf0.origins = [exp, cat]
            buf0.writes = [MemoryDep('buf0', 5*d0 + d1, {d0: 4, d1: 5})]
            buf0.reads = [
                MemoryDep('x', 6*d0 + 2*d1, {d0: 4, d1: 5}),
                MemoryDep('y', 2*d0 + d1 - 3, {d0: 4, d1: 5})]
            buf0.group.iteration = (20, 1)
            buf0.sizes = ([4, 5], [])
            class buf0_loop_body:
                var_ranges = {p0: 4, p1: 5}
                index0 = p1
                index1 = 6*p0 + 2*p1
                index2 = 2*p0 + p1 - 3
                index3 = 5*p0 + p1
                def body(self, ops):
                    get_index = self.get_index('index0')
                    index_expr = ops.index_expr(get_index, torch.int64)
                    constant = ops.constant(3, torch.int64)
                    lt = ops.lt(index_expr, constant)
                    get_index_1 = self.get_index('index1')
                    load = ops.load('x', get_index_1, mask=lt)
                    ge = ops.ge(index_expr, constant)
                    get_index_2 = self.get_index('index2')
                    load_1 = ops.load('y', get_index_2, mask=ge)
                    where = ops.where(lt, load, load_1)
                    exp = ops.exp(where)
                    get_index_3 = self.get_index('index3')
                    store = ops.store('buf0', get_index_3, exp, None)
                    return store

            graph.outputs = [
                buf0,
                ReinterpretView('x', FixedLayout(torch.float32, size=[6, 4], stride=[1, 6]))]
        "#]],
    );
}

/// Origins carry the op each node stood for before the passes: the decomposed `mean`'s `sum`
/// and scaling `mul` read as `mean`, the rest as themselves.
#[test]
fn origins_remember_the_op_before_decomposition() {
    let g = coil_models::find("seed_model")
        .unwrap()
        .graph(coil_models::Size::Article)
        .unwrap();
    let l = lower(&crate::zoo::decomposed(&g));
    let names = |b: usize| -> Vec<String> {
        let mut v: Vec<String> = l.buffers()[b]
            .origins
            .iter()
            .map(|o| format!("{:?}", o.original_op).to_lowercase())
            .collect();
        v.sort();
        v.dedup();
        v
    };
    assert_eq!(names(0), ["add", "mean", "mul", "relu"]);
    assert_eq!(names(1), ["add", "mean", "mul", "relu", "sub"]);
    // Without the passes every origin stands for its own op.
    let plain = lower(&graph(SEED_DECOMPOSED));
    assert!(
        plain
            .buffers()
            .iter()
            .flat_map(|b| &b.origins)
            .all(|o| o.op == o.original_op)
    );
}
