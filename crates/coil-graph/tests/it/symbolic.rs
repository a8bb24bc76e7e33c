//! Graph files with symbolic sizes as PyTorch prints them (`make_fx(..., tracing_mode=
//! "symbolic")`): bound to their inputs' sizes, read as static graphs whose every size is the
//! binding's; size expressions as sympy prints them; and the errors: a symbol unbound, inputs
//! that disagree, a size check that fails, symbolic sizes read without a binding.

use coil_graph::{Bindings, GraphError, bind_inputs, eval_size, is_symbolic, parse, parse_bound};

/// `relu(x @ w).reshape(2 * x.shape[0], -1).softmax(-1) + 1` and a column sum, as
/// `make_fx(..., tracing_mode="symbolic")` prints it (the CLI's test runs the same file).
const DYNAMIC: &str = include_str!("../data/symbolic_mm_softmax.py");

/// A size input and a check on it, as Dynamo's graphs carry them.
const CHECKED: &str = r#"class GraphModule(torch.nn.Module):
    def forward(self, s0: "Sym(s0)", x: "f32[s0, 3]"):
        ge: "Sym(s0 >= 2)" = s0 >= 2
        _assert_scalar = torch.ops.aten._assert_scalar.default(ge, "Runtime assertion failed for expression s0 >= 2 on node 'ge'");  ge = _assert_scalar = None
        full: "f32[s0, 3]" = torch.ops.aten.full.default([s0, 3], 2.0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        mul: "f32[s0, 3]" = torch.ops.aten.mul.Tensor(x, full);  x = full = None
        return (mul,)
"#;

#[test]
fn a_dynamic_graph_reads_as_the_static_graph_of_each_binding() {
    assert!(is_symbolic(DYNAMIC) && is_symbolic(CHECKED));
    for (rows, k, n) in [(6, 8, 4), (1, 3, 10), (13, 7, 2), (2, 0, 6)] {
        let b = bind_inputs(DYNAMIC, &[vec![rows, k], vec![k, n]]).expect("binds");
        assert_eq!(b.get("s75"), Some(rows as i64));
        assert_eq!(b.get("s96"), Some(k as i64));
        let g = parse_bound(DYNAMIC, &b).unwrap_or_else(|e| panic!("{b}: {e}"));
        let outs: Vec<Vec<usize>> = g
            .outputs()
            .iter()
            .map(|&o| g.node(o).meta().sizes.clone())
            .collect();
        assert_eq!(outs, vec![vec![2 * rows, n / 2], vec![n]], "{b}");
        // The inputs are the tensors alone.
        assert_eq!(g.inputs().len(), 2);
    }
}

#[test]
fn size_inputs_are_constants_of_the_binding_and_their_checks_run() {
    let b = bind_inputs(CHECKED, &[vec![5, 3]]).expect("binds");
    let g = parse_bound(CHECKED, &b).expect("parses");
    assert_eq!(g.inputs().len(), 1, "the Sym input is the binding's number");
    assert_eq!(g.node(g.outputs()[0]).meta().sizes, vec![5, 3]);
    let b = bind_inputs(CHECKED, &[vec![1, 3]]).expect("binds");
    let e = parse_bound(CHECKED, &b).unwrap_err().to_string();
    assert!(
        e.contains("a size check fails for s0=1") && e.contains("s0 >= 2"),
        "{e}"
    );
}

#[test]
fn size_expressions_evaluate_as_sympy_prints_them() {
    let mut b = Bindings::new();
    b.insert("s0", 7);
    b.insert("s1", 3);
    for (expr, want) in [
        ("s0", 7),
        ("2*s0 + 1", 15),
        ("(s0//2)", 3),
        ("s0*s1 - s1", 18),
        ("Max(1, s0 - 10)", 1),
        ("Min(s0, s1)", 3),
        ("s0 % s1", 1),
        ("-s1 + s0", 4),
        ("s0 >= 8", 0),
        ("Eq", -1),
    ] {
        match eval_size(expr, &b) {
            Ok(v) => assert_eq!(v, want, "{expr}"),
            Err(e) => assert!(want == -1 && e.contains("no value"), "{expr}: {e}"),
        }
    }
    assert!(
        eval_size("s0 // 0", &b)
            .unwrap_err()
            .contains("division by zero")
    );
    assert!(eval_size("s0 $ 2", &b).unwrap_err().contains("unexpected"));
}

#[test]
fn inputs_that_disagree_on_a_symbol_are_an_error_naming_it() {
    let e = bind_inputs(DYNAMIC, &[vec![6, 8], vec![9, 4]])
        .unwrap_err()
        .to_string();
    assert!(e.contains("s96 is 8 in an earlier input but 9 here"), "{e}");
    let e = bind_inputs(DYNAMIC, &[vec![6, 8, 1], vec![8, 4]])
        .unwrap_err()
        .to_string();
    assert!(e.contains("is 2-d") && e.contains("3-d"), "{e}");
    let e = bind_inputs(DYNAMIC, &[vec![6, 8]]).unwrap_err();
    assert!(matches!(e, GraphError::Shape(_)), "{e}");
}

#[test]
fn symbolic_sizes_without_a_binding_are_an_error_saying_how_to_bind() {
    let e = parse(DYNAMIC).unwrap_err().to_string();
    assert!(e.contains("symbolic size 's75'"), "{e}");
    assert!(e.contains("--inputs"), "{e}");
}
