//! Golden before/after tests, one group per rule family, each with graphs where a rule must
//! not fire. Every case also checks that eager results are unchanged.

use expect_test::{Expect, expect};

use crate::common::run;

/// Wraps statements into a readable-FX module.
fn module(sig: &str, body: &[&str], ret: &str) -> String {
    let mut s = format!("class GraphModule(torch.nn.Module):\n    def forward(self, {sig}):\n");
    for line in body {
        s.push_str(&format!("        {line}\n"));
    }
    s.push_str(&format!("        return ({ret},)\n"));
    s
}

fn check(switches: &str, sig: &str, body: &[&str], ret: &str, expect: Expect) {
    let (out, _) = run(switches, &module(sig, body, ret));
    expect.assert_eq(&out);
}

#[test]
fn noop_removes_identity_ops() {
    check(
        "noop,dce",
        r#"x: "f32[4, 8]""#,
        &[
            r#"clone: "f32[4, 8]" = torch.ops.aten.clone.default(x)"#,
            r#"alias: "f32[4, 8]" = torch.ops.aten.alias.default(clone)"#,
            r#"expand: "f32[4, 8]" = torch.ops.aten.expand.default(alias, [4, 8])"#,
            r#"view: "f32[4, 8]" = torch.ops.aten.view.default(expand, [4, 8])"#,
            r#"permute: "f32[4, 8]" = torch.ops.aten.permute.default(view, [0, 1])"#,
            r#"_to_copy: "f32[4, 8]" = torch.ops.aten._to_copy.default(permute, dtype = torch.float32)"#,
            r#"relu: "f32[4, 8]" = torch.ops.aten.relu.default(_to_copy)"#,
        ],
        "relu",
        expect![[r#"
            class GraphModule(torch.nn.Module):
                def forward(self, x: "f32[4, 8]"):
                    relu: "f32[4, 8]" = torch.ops.aten.relu.default(x);  x = None
                    return (relu,)
        "#]],
    );
}

#[test]
fn noop_keeps_ops_that_change_something() {
    check(
        "noop,dce",
        r#"x: "f32[4, 8]""#,
        &[
            r#"permute: "f32[8, 4]" = torch.ops.aten.permute.default(x, [1, 0])"#,
            r#"clone: "f32[8, 4]" = torch.ops.aten.clone.default(permute, memory_format = torch.contiguous_format)"#,
            r#"_to_copy: "f64[8, 4]" = torch.ops.aten._to_copy.default(clone, dtype = torch.float64)"#,
            r#"expand: "f64[2, 8, 4]" = torch.ops.aten.expand.default(_to_copy, [2, 8, 4])"#,
        ],
        "expand",
        expect![[r#"
            class GraphModule(torch.nn.Module):
                def forward(self, x: "f32[4, 8]"):
                    permute: "f32[8, 4]" = torch.ops.aten.permute.default(x, [1, 0]);  x = None
                    clone: "f32[8, 4]" = torch.ops.aten.clone.default(permute, memory_format = torch.contiguous_format);  permute = None
                    _to_copy: "f64[8, 4]" = torch.ops.aten._to_copy.default(clone, dtype = torch.float64);  clone = None
                    expand: "f64[2, 8, 4]" = torch.ops.aten.expand.default(_to_copy, [2, 8, 4]);  _to_copy = None
                    return (expand,)
        "#]],
    );
}

#[test]
fn views_compose() {
    check(
        "views,dce",
        r#"x: "f32[4, 6, 8]""#,
        &[
            r#"permute: "f32[6, 8, 4]" = torch.ops.aten.permute.default(x, [1, 2, 0])"#,
            r#"permute_1: "f32[8, 6, 4]" = torch.ops.aten.permute.default(permute, [1, 0, 2])"#,
            r#"reshape: "f32[24, 8]" = torch.ops.aten.reshape.default(x, [24, 8])"#,
            r#"reshape_1: "f32[192]" = torch.ops.aten.reshape.default(reshape, [192])"#,
            r#"view: "f32[4, 48]" = torch.ops.aten.view.default(x, [4, 48])"#,
            r#"view_1: "f32[2, 96]" = torch.ops.aten.view.default(view, [2, 96])"#,
            r#"unsqueeze: "f32[4, 1, 6, 8]" = torch.ops.aten.unsqueeze.default(x, 1)"#,
            r#"squeeze: "f32[4, 6, 8]" = torch.ops.aten.squeeze.dim(unsqueeze, 1)"#,
            r#"sum_1: "f32[8, 6]" = torch.ops.aten.sum.dim_IntList(permute_1, [2])"#,
            r#"sum_2: "f32[]" = torch.ops.aten.sum.default(reshape_1)"#,
            r#"sum_3: "f32[2]" = torch.ops.aten.sum.dim_IntList(view_1, [1])"#,
            r#"sum_4: "f32[4, 6]" = torch.ops.aten.sum.dim_IntList(squeeze, [2])"#,
        ],
        "sum_1, sum_2, sum_3, sum_4",
        expect![[r#"
            class GraphModule(torch.nn.Module):
                def forward(self, x: "f32[4, 6, 8]"):
                    permute: "f32[8, 6, 4]" = torch.ops.aten.permute.default(x, [2, 1, 0])
                    sum_1: "f32[8, 6]" = torch.ops.aten.sum.dim_IntList(permute, [2]);  permute = None
                    reshape: "f32[192]" = torch.ops.aten.reshape.default(x, [192])
                    sum_2: "f32[]" = torch.ops.aten.sum.default(reshape);  reshape = None
                    view: "f32[2, 96]" = torch.ops.aten.view.default(x, [2, 96])
                    sum_3: "f32[2]" = torch.ops.aten.sum.dim_IntList(view, [1]);  view = None
                    sum_4: "f32[4, 6]" = torch.ops.aten.sum.dim_IntList(x, [2]);  x = None
                    return (sum_1, sum_2, sum_3, sum_4)
        "#]],
    );
}

#[test]
fn views_do_not_merge_views_of_strided_inputs() {
    check(
        "views,dce",
        r#"x: "f32[4, 6]""#,
        &[
            r#"permute: "f32[6, 4]" = torch.ops.aten.permute.default(x, [1, 0])"#,
            r#"view: "f32[6, 2, 2]" = torch.ops.aten.view.default(permute, [6, 2, 2])"#,
            r#"view_1: "f32[3, 2, 2, 2]" = torch.ops.aten.view.default(view, [3, 2, 2, 2])"#,
        ],
        "view_1",
        expect![[r#"
            class GraphModule(torch.nn.Module):
                def forward(self, x: "f32[4, 6]"):
                    permute: "f32[6, 4]" = torch.ops.aten.permute.default(x, [1, 0]);  x = None
                    view: "f32[6, 2, 2]" = torch.ops.aten.view.default(permute, [6, 2, 2]);  permute = None
                    view_1: "f32[3, 2, 2, 2]" = torch.ops.aten.view.default(view, [3, 2, 2, 2]);  view = None
                    return (view_1,)
        "#]],
    );
}

#[test]
fn algebra_applies_exact_identities() {
    check(
        "algebra,dce",
        r#"x: "f32[4, 8]""#,
        &[
            r#"mul: "f32[4, 8]" = torch.ops.aten.mul.Tensor(x, 1)"#,
            r#"div: "f32[4, 8]" = torch.ops.aten.div.Tensor(mul, 1.0)"#,
            r#"neg: "f32[4, 8]" = torch.ops.aten.neg.default(div)"#,
            r#"neg_1: "f32[4, 8]" = torch.ops.aten.neg.default(neg)"#,
            r#"relu: "f32[4, 8]" = torch.ops.aten.relu.default(neg_1)"#,
            r#"relu_1: "f32[4, 8]" = torch.ops.aten.relu.default(relu)"#,
            r#"pow_1: "f32[4, 8]" = torch.ops.aten.pow.Tensor_Scalar(relu_1, 2)"#,
            r#"mul_1: "f32[4, 8]" = torch.ops.aten.mul.Tensor(pow_1, 1.1)"#,
            r#"mul_2: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_1, 2)"#,
            r#"div_1: "f32[4, 8]" = torch.ops.aten.div.Tensor(mul_2, 1024)"#,
        ],
        "div_1",
        expect![[r#"
            class GraphModule(torch.nn.Module):
                def forward(self, x: "f32[4, 8]"):
                    relu: "f32[4, 8]" = torch.ops.aten.relu.default(x);  x = None
                    mul: "f32[4, 8]" = torch.ops.aten.mul.Tensor(relu, relu);  relu = None
                    mul_1: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul, 0.0021484375);  mul = None
                    return (mul_1,)
        "#]],
    );
}

#[test]
fn algebra_never_breaks_ieee_semantics() {
    check(
        "algebra,dce",
        r#"x: "f32[4, 8]", i: "i64[4, 8]""#,
        &[
            r#"mul: "f32[4, 8]" = torch.ops.aten.mul.Tensor(x, 0)"#,
            r#"sub: "f32[4, 8]" = torch.ops.aten.sub.Tensor(x, x)"#,
            r#"add: "f32[4, 8]" = torch.ops.aten.add.Tensor(x, 0.0)"#,
            r#"div: "f32[4, 8]" = torch.ops.aten.div.Tensor(x, 3)"#,
            r#"mul_1: "f32[4, 8]" = torch.ops.aten.mul.Tensor(x, 3)"#,
            r#"mul_2: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_1, 5)"#,
            r#"mul_3: "f32[4, 8]" = torch.ops.aten.mul.Tensor(i, 1.0)"#,
            r#"add_1: "f32[4, 8]" = torch.ops.aten.add.Tensor(mul, sub)"#,
            r#"add_2: "f32[4, 8]" = torch.ops.aten.add.Tensor(add_1, add)"#,
            r#"add_3: "f32[4, 8]" = torch.ops.aten.add.Tensor(add_2, div)"#,
            r#"add_4: "f32[4, 8]" = torch.ops.aten.add.Tensor(add_3, mul_2)"#,
            r#"add_5: "f32[4, 8]" = torch.ops.aten.add.Tensor(add_4, mul_3)"#,
        ],
        "add_5",
        expect![[r#"
            class GraphModule(torch.nn.Module):
                def forward(self, x: "f32[4, 8]", i: "i64[4, 8]"):
                    mul: "f32[4, 8]" = torch.ops.aten.mul.Tensor(x, 0)
                    sub: "f32[4, 8]" = torch.ops.aten.sub.Tensor(x, x)
                    add_1: "f32[4, 8]" = torch.ops.aten.add.Tensor(mul, sub);  mul = sub = None
                    add: "f32[4, 8]" = torch.ops.aten.add.Tensor(x, 0.0)
                    add_2: "f32[4, 8]" = torch.ops.aten.add.Tensor(add_1, add);  add_1 = add = None
                    div: "f32[4, 8]" = torch.ops.aten.div.Tensor(x, 3)
                    add_3: "f32[4, 8]" = torch.ops.aten.add.Tensor(add_2, div);  add_2 = div = None
                    mul_1: "f32[4, 8]" = torch.ops.aten.mul.Tensor(x, 3);  x = None
                    mul_2: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_1, 5);  mul_1 = None
                    add_4: "f32[4, 8]" = torch.ops.aten.add.Tensor(add_3, mul_2);  add_3 = mul_2 = None
                    mul_3: "f32[4, 8]" = torch.ops.aten.mul.Tensor(i, 1.0);  i = None
                    add_5: "f32[4, 8]" = torch.ops.aten.add.Tensor(add_4, mul_3);  add_4 = mul_3 = None
                    return (add_5,)
        "#]],
    );
}

#[test]
fn decompose_softmax_and_log_softmax() {
    check(
        "decompose,dce",
        r#"x: "f32[4, 8]""#,
        &[
            r#"_softmax: "f32[4, 8]" = torch.ops.aten._softmax.default(x, -1, False)"#,
            r#"_log_softmax: "f32[4, 8]" = torch.ops.aten._log_softmax.default(_softmax, 1, False)"#,
        ],
        "_log_softmax",
        expect![[r#"
            class GraphModule(torch.nn.Module):
                def forward(self, x: "f32[4, 8]"):
                    amax: "f32[4, 1]" = torch.ops.aten.amax.default(x, [-1], True)
                    sub: "f32[4, 8]" = torch.ops.aten.sub.Tensor(x, amax);  x = amax = None
                    exp: "f32[4, 8]" = torch.ops.aten.exp.default(sub);  sub = None
                    sum: "f32[4, 1]" = torch.ops.aten.sum.dim_IntList(exp, [-1], True)
                    div: "f32[4, 8]" = torch.ops.aten.div.Tensor(exp, sum);  exp = sum = None
                    amax_1: "f32[4, 1]" = torch.ops.aten.amax.default(div, [1], True)
                    sub_1: "f32[4, 8]" = torch.ops.aten.sub.Tensor(div, amax_1);  div = amax_1 = None
                    exp_1: "f32[4, 8]" = torch.ops.aten.exp.default(sub_1)
                    sum_1: "f32[4, 1]" = torch.ops.aten.sum.dim_IntList(exp_1, [1], True);  exp_1 = None
                    log: "f32[4, 1]" = torch.ops.aten.log.default(sum_1);  sum_1 = None
                    sub_2: "f32[4, 8]" = torch.ops.aten.sub.Tensor(sub_1, log);  sub_1 = log = None
                    return (sub_2,)
        "#]],
    );
}

#[test]
fn decompose_layer_norm_all_three_outputs() {
    check(
        "decompose,algebra,dce",
        r#"x: "f32[2, 4, 8]", w: "f32[8]", b: "f32[8]""#,
        &[
            r#"native_layer_norm = torch.ops.aten.native_layer_norm.default(x, [8], w, b, 1e-05)"#,
            r#"getitem: "f32[2, 4, 8]" = native_layer_norm[0]"#,
            r#"getitem_1: "f32[2, 4, 1]" = native_layer_norm[1]"#,
            r#"getitem_2: "f32[2, 4, 1]" = native_layer_norm[2]"#,
            r#"add: "f32[2, 4, 1]" = torch.ops.aten.add.Tensor(getitem_1, getitem_2)"#,
            r#"mul: "f32[2, 4, 8]" = torch.ops.aten.mul.Tensor(getitem, add)"#,
        ],
        "mul",
        expect![[r#"
            class GraphModule(torch.nn.Module):
                def forward(self, x: "f32[2, 4, 8]", w: "f32[8]", b: "f32[8]"):
                    sum: "f32[2, 4, 1]" = torch.ops.aten.sum.dim_IntList(x, [2], True)
                    mul_1: "f32[2, 4, 1]" = torch.ops.aten.mul.Tensor(sum, 0.125);  sum = None
                    sub: "f32[2, 4, 8]" = torch.ops.aten.sub.Tensor(x, mul_1);  x = None
                    mul_2: "f32[2, 4, 8]" = torch.ops.aten.mul.Tensor(sub, sub)
                    sum_1: "f32[2, 4, 1]" = torch.ops.aten.sum.dim_IntList(mul_2, [2], True);  mul_2 = None
                    mul_3: "f32[2, 4, 1]" = torch.ops.aten.mul.Tensor(sum_1, 0.125);  sum_1 = None
                    add_1: "f32[2, 4, 1]" = torch.ops.aten.add.Tensor(mul_3, 1e-05);  mul_3 = None
                    rsqrt: "f32[2, 4, 1]" = torch.ops.aten.rsqrt.default(add_1);  add_1 = None
                    mul_4: "f32[2, 4, 8]" = torch.ops.aten.mul.Tensor(sub, rsqrt);  sub = None
                    mul_5: "f32[2, 4, 8]" = torch.ops.aten.mul.Tensor(mul_4, w);  mul_4 = w = None
                    add_2: "f32[2, 4, 8]" = torch.ops.aten.add.Tensor(mul_5, b);  mul_5 = b = None
                    add: "f32[2, 4, 1]" = torch.ops.aten.add.Tensor(mul_1, rsqrt);  mul_1 = rsqrt = None
                    mul: "f32[2, 4, 8]" = torch.ops.aten.mul.Tensor(add_2, add);  add_2 = add = None
                    return (mul,)
        "#]],
    );
}

#[test]
fn decompose_mean_var_var_mean() {
    check(
        "decompose,dce",
        r#"x: "f32[4, 6]""#,
        &[
            r#"mean: "f32[4, 1]" = torch.ops.aten.mean.dim(x, [1], True)"#,
            r#"var: "f32[6]" = torch.ops.aten.var.correction(x, [0], correction = 1)"#,
            r#"var_mean = torch.ops.aten.var_mean.correction(x, [1], correction = 0, keepdim = True)"#,
            r#"getitem: "f32[4, 1]" = var_mean[0]"#,
            r#"getitem_1: "f32[4, 1]" = var_mean[1]"#,
            r#"add: "f32[4, 6]" = torch.ops.aten.add.Tensor(mean, var)"#,
            r#"add_1: "f32[4, 1]" = torch.ops.aten.add.Tensor(getitem, getitem_1)"#,
            r#"mul: "f32[4, 6]" = torch.ops.aten.mul.Tensor(add, add_1)"#,
        ],
        "mul",
        expect![[r#"
            class GraphModule(torch.nn.Module):
                def forward(self, x: "f32[4, 6]"):
                    sum: "f32[4, 1]" = torch.ops.aten.sum.dim_IntList(x, [1], True)
                    div: "f32[4, 1]" = torch.ops.aten.div.Tensor(sum, 6);  sum = None
                    sum_1: "f32[1, 6]" = torch.ops.aten.sum.dim_IntList(x, [0], True)
                    div_1: "f32[1, 6]" = torch.ops.aten.div.Tensor(sum_1, 4);  sum_1 = None
                    sub: "f32[4, 6]" = torch.ops.aten.sub.Tensor(x, div_1);  div_1 = None
                    mul_1: "f32[4, 6]" = torch.ops.aten.mul.Tensor(sub, sub);  sub = None
                    sum_2: "f32[6]" = torch.ops.aten.sum.dim_IntList(mul_1, [0]);  mul_1 = None
                    div_2: "f32[6]" = torch.ops.aten.div.Tensor(sum_2, 3);  sum_2 = None
                    add: "f32[4, 6]" = torch.ops.aten.add.Tensor(div, div_2);  div_2 = None
                    sub_1: "f32[4, 6]" = torch.ops.aten.sub.Tensor(x, div);  x = None
                    mul_2: "f32[4, 6]" = torch.ops.aten.mul.Tensor(sub_1, sub_1);  sub_1 = None
                    sum_3: "f32[4, 1]" = torch.ops.aten.sum.dim_IntList(mul_2, [1], True);  mul_2 = None
                    div_3: "f32[4, 1]" = torch.ops.aten.div.Tensor(sum_3, 6);  sum_3 = None
                    add_1: "f32[4, 1]" = torch.ops.aten.add.Tensor(div_3, div);  div_3 = div = None
                    mul: "f32[4, 6]" = torch.ops.aten.mul.Tensor(add, add_1);  add = add_1 = None
                    return (mul,)
        "#]],
    );
}

#[test]
fn decompose_gelu_silu_addmm_split() {
    check(
        "decompose,dce",
        r#"x: "f32[4, 8]", w: "f32[8, 6]", b: "f32[6]""#,
        &[
            r#"gelu: "f32[4, 8]" = torch.ops.aten.gelu.default(x)"#,
            r#"gelu_1: "f32[4, 8]" = torch.ops.aten.gelu.default(gelu, approximate = 'tanh')"#,
            r#"silu: "f32[4, 8]" = torch.ops.aten.silu.default(gelu_1)"#,
            r#"addmm: "f32[4, 6]" = torch.ops.aten.addmm.default(b, silu, w)"#,
            r#"split_with_sizes = torch.ops.aten.split_with_sizes.default(addmm, [2, 4], -1)"#,
            r#"getitem: "f32[4, 2]" = split_with_sizes[0]"#,
            r#"getitem_1: "f32[4, 4]" = split_with_sizes[1]"#,
            r#"sum_1: "f32[4]" = torch.ops.aten.sum.dim_IntList(getitem, [1])"#,
            r#"sum_2: "f32[4]" = torch.ops.aten.sum.dim_IntList(getitem_1, [1])"#,
            r#"add: "f32[4]" = torch.ops.aten.add.Tensor(sum_1, sum_2)"#,
        ],
        "add",
        expect![[r#"
            class GraphModule(torch.nn.Module):
                def forward(self, x: "f32[4, 8]", w: "f32[8, 6]", b: "f32[6]"):
                    mul: "f32[4, 8]" = torch.ops.aten.mul.Tensor(x, 0.5)
                    mul_1: "f32[4, 8]" = torch.ops.aten.mul.Tensor(x, 0.7071067811865476);  x = None
                    erf: "f32[4, 8]" = torch.ops.aten.erf.default(mul_1);  mul_1 = None
                    add_1: "f32[4, 8]" = torch.ops.aten.add.Tensor(erf, 1);  erf = None
                    mul_2: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul, add_1);  mul = add_1 = None
                    mul_3: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_2, 0.5)
                    mul_4: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_2, mul_2)
                    mul_5: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_4, mul_2);  mul_4 = None
                    mul_6: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_5, 0.044715);  mul_5 = None
                    add_2: "f32[4, 8]" = torch.ops.aten.add.Tensor(mul_2, mul_6);  mul_2 = mul_6 = None
                    mul_7: "f32[4, 8]" = torch.ops.aten.mul.Tensor(add_2, 0.7978845608028654);  add_2 = None
                    tanh: "f32[4, 8]" = torch.ops.aten.tanh.default(mul_7);  mul_7 = None
                    add_3: "f32[4, 8]" = torch.ops.aten.add.Tensor(tanh, 1);  tanh = None
                    mul_8: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_3, add_3);  mul_3 = add_3 = None
                    sigmoid: "f32[4, 8]" = torch.ops.aten.sigmoid.default(mul_8)
                    mul_9: "f32[4, 8]" = torch.ops.aten.mul.Tensor(mul_8, sigmoid);  mul_8 = sigmoid = None
                    mm: "f32[4, 6]" = torch.ops.aten.mm.default(mul_9, w);  mul_9 = w = None
                    add_4: "f32[4, 6]" = torch.ops.aten.add.Tensor(mm, b);  mm = b = None
                    slice: "f32[4, 2]" = torch.ops.aten.slice.Tensor(add_4, -1, 0, 2)
                    sum_1: "f32[4]" = torch.ops.aten.sum.dim_IntList(slice, [1]);  slice = None
                    slice_1: "f32[4, 4]" = torch.ops.aten.slice.Tensor(add_4, -1, 2, 6);  add_4 = None
                    sum_2: "f32[4]" = torch.ops.aten.sum.dim_IntList(slice_1, [1]);  slice_1 = None
                    add: "f32[4]" = torch.ops.aten.add.Tensor(sum_1, sum_2);  sum_1 = sum_2 = None
                    return (add,)
        "#]],
    );
}

#[test]
fn decompose_leaves_what_it_cannot_express() {
    check(
        "decompose,dce",
        r#"x: "f32[4, 8]", w: "f32[8, 6]", b: "f32[6]""#,
        &[r#"addmm: "f32[4, 6]" = torch.ops.aten.addmm.default(b, x, w, beta = 2)"#],
        "addmm",
        expect![[r#"
            class GraphModule(torch.nn.Module):
                def forward(self, x: "f32[4, 8]", w: "f32[8, 6]", b: "f32[6]"):
                    addmm: "f32[4, 6]" = torch.ops.aten.addmm.default(b, x, w, beta = 2);  b = x = w = None
                    return (addmm,)
        "#]],
    );
}

#[test]
fn decompose_computes_16_bit_floats_in_f32_and_rounds_once() {
    // PyTorch's opmath: an f16 softmax is the f32 one on an f32 copy, rounded back at the end.
    check(
        "decompose,dce",
        r#"h: "f16[4, 8]""#,
        &[r#"_softmax: "f16[4, 8]" = torch.ops.aten._softmax.default(h, -1, False)"#],
        "_softmax",
        expect![[r#"
            class GraphModule(torch.nn.Module):
                def forward(self, h: "f16[4, 8]"):
                    to_copy: "f32[4, 8]" = torch.ops.aten._to_copy.default(h, dtype = torch.float32);  h = None
                    amax: "f32[4, 1]" = torch.ops.aten.amax.default(to_copy, [-1], True)
                    sub: "f32[4, 8]" = torch.ops.aten.sub.Tensor(to_copy, amax);  to_copy = amax = None
                    exp: "f32[4, 8]" = torch.ops.aten.exp.default(sub);  sub = None
                    sum: "f32[4, 1]" = torch.ops.aten.sum.dim_IntList(exp, [-1], True)
                    div: "f32[4, 8]" = torch.ops.aten.div.Tensor(exp, sum);  exp = sum = None
                    to_copy_1: "f16[4, 8]" = torch.ops.aten._to_copy.default(div, dtype = torch.float16);  div = None
                    return (to_copy_1,)
        "#]],
    );
}

#[test]
fn fold_constants_and_masks() {
    check(
        "fold,dce",
        r#"x: "f32[4]", m: "b8[4]""#,
        &[
            r#"full: "f32[4]" = torch.ops.aten.full.default([4], 2.0, dtype = torch.float32)"#,
            r#"mul: "f32[4]" = torch.ops.aten.mul.Tensor(full, 3.0)"#,
            r#"add: "f32[4]" = torch.ops.aten.add.Tensor(x, mul)"#,
            r#"full_1: "b8[4]" = torch.ops.aten.full.default([4], True, dtype = torch.bool)"#,
            r#"logical_and: "b8[4]" = torch.ops.aten.logical_and.default(m, full_1)"#,
            r#"where: "f32[4]" = torch.ops.aten.where.self(logical_and, add, x)"#,
        ],
        "where",
        expect![[r#"
            class GraphModule(torch.nn.Module):
                def forward(self, x: "f32[4]", m: "b8[4]"):
                    full: "f32[4]" = torch.ops.aten.full.default([4], 6.0, dtype = torch.float32)
                    add: "f32[4]" = torch.ops.aten.add.Tensor(x, full);  full = None
                    where: "f32[4]" = torch.ops.aten.where.self(m, add, x);  m = add = x = None
                    return (where,)
        "#]],
    );
}

#[test]
fn fold_respects_the_size_limit() {
    check(
        "fold,dce",
        r#"x: "f32[300, 300]""#,
        &[
            r#"full: "f32[300, 300]" = torch.ops.aten.full.default([300, 300], 2.0, dtype = torch.float32)"#,
            r#"mul: "f32[300, 300]" = torch.ops.aten.mul.Tensor(full, 3.0)"#,
            r#"add: "f32[300, 300]" = torch.ops.aten.add.Tensor(x, mul)"#,
        ],
        "add",
        expect![[r#"
            class GraphModule(torch.nn.Module):
                def forward(self, x: "f32[300, 300]"):
                    full: "f32[300, 300]" = torch.ops.aten.full.default([300, 300], 2.0, dtype = torch.float32)
                    mul: "f32[300, 300]" = torch.ops.aten.mul.Tensor(full, 3.0);  full = None
                    add: "f32[300, 300]" = torch.ops.aten.add.Tensor(x, mul);  x = mul = None
                    return (add,)
        "#]],
    );
}

#[test]
fn switches_turn_passes_off_and_reject_unknown_names() {
    let text = module(
        r#"x: "f32[4, 8]""#,
        &[r#"_softmax: "f32[4, 8]" = torch.ops.aten._softmax.default(x, -1, False)"#],
        "_softmax",
    );
    let mut cfg = coil_passes::PassConfig::default();
    cfg.apply_switches("-decompose").expect("known pass");
    let g = coil_graph::parse(&text).expect("parses");
    let (out, stats) = coil_passes::run_passes(&g, &cfg).expect("runs");
    assert!(coil_graph::print_graph(&out).contains("_softmax"));
    assert_eq!(stats.rewrites, 0);
    let err = cfg.apply_switches("-nope").unwrap_err();
    assert!(err.to_string().contains("unknown pass 'nope'"), "{err}");
}

#[test]
fn dead_code_goes() {
    check(
        "dce",
        r#"x: "f32[4]""#,
        &[
            r#"exp: "f32[4]" = torch.ops.aten.exp.default(x)"#,
            r#"relu: "f32[4]" = torch.ops.aten.relu.default(x)"#,
        ],
        "relu",
        expect![[r#"
            class GraphModule(torch.nn.Module):
                def forward(self, x: "f32[4]"):
                    relu: "f32[4]" = torch.ops.aten.relu.default(x);  x = None
                    return (relu,)
        "#]],
    );
}

#[test]
fn a_time_limit_bounds_extraction_and_keeps_the_input() {
    // Past the time limit, extraction gives up and the stage keeps the input graph, saying so.
    let text = module(
        r#"x: "f32[4, 8]""#,
        &[r#"_softmax: "f32[4, 8]" = torch.ops.aten._softmax.default(x, -1, False);  x = None"#],
        "_softmax",
    );
    let g = coil_graph::parse(&text).expect("parses");
    let config = coil_passes::PassConfig {
        time_limit: std::time::Duration::ZERO,
        ..coil_passes::PassConfig::default()
    };
    let (out, stats) = coil_passes::run_passes(&g, &config).expect("passes");
    assert!(
        stats.stop_reason.contains("time limit"),
        "{}",
        stats.stop_reason
    );
    assert_eq!(coil_graph::print_graph(&out), coil_graph::print_graph(&g));
}
