//! Errors: every malformed input is reported with its line and column (1-based, columns in
//! characters), unsupported ops and rejected calls name the op or node and the line, and no
//! input makes the parser panic.

use coil_graph::{GraphError, parse};
use expect_test::expect;

use crate::zoo::module;

const X3: &str = r#", x: "f32[3]""#;
const SPLIT: &str = "split = torch.ops.aten.split_with_sizes.default(x, [1, 2])";

/// (what, text, line, column, a fragment of the message)
fn malformed_cases() -> Vec<(&'static str, String, usize, usize, &'static str)> {
    let relu = "relu = torch.ops.aten.relu.default(x)";
    let nested = format!(
        "view = torch.ops.aten.view.default(x, {}{})",
        "[".repeat(40),
        "]".repeat(40)
    );
    vec![
        (
            "unknown name",
            module(
                X3,
                &["relu = torch.ops.aten.relu.default(y)", "return (relu,)"],
            ),
            3,
            44,
            "unknown name 'y'",
        ),
        (
            "duplicate definition",
            module(X3, &[relu, relu, "return (relu,)"]),
            4,
            9,
            "'relu' is already defined at line 3",
        ),
        (
            "duplicate input",
            module(r#", x: "f32[3]", x: "f32[3]""#, &["return (x,)"]),
            2,
            36,
            "'x' is already defined at line 2",
        ),
        (
            "unterminated list",
            module(
                X3,
                &[
                    "view = torch.ops.aten.view.default(x, [3, 1",
                    "return (view,)",
                ],
            ),
            3,
            47,
            "unterminated list",
        ),
        (
            "unterminated call",
            module(
                X3,
                &["relu = torch.ops.aten.relu.default(x", "return (relu,)"],
            ),
            3,
            43,
            "unterminated argument list",
        ),
        (
            "unterminated string",
            module(
                X3,
                &["gelu = torch.ops.aten.gelu.default(x, approximate = 'tanh)"],
            ),
            3,
            61,
            "unterminated string",
        ),
        (
            "unknown annotation dtype",
            module(r#", x: "q8[3]""#, &["return (x,)"]),
            2,
            27,
            "unknown dtype 'q8'",
        ),
        (
            "symbolic size",
            module(r#", x: "f32[s0, 4]""#, &["return (x,)"]),
            2,
            31,
            "symbolic size 's0': a graph with symbolic sizes is read for one binding",
        ),
        (
            "symbolic input",
            module(r#", x: "f32[4]", n: "Sym(s0)""#, &["return (x,)"]),
            2,
            40,
            "symbolic value annotation",
        ),
        (
            "malformed annotation",
            module(r#", x: "f32[3,,4]""#, &["return (x,)"]),
            2,
            33,
            "empty size",
        ),
        (
            "annotation without sizes",
            module(r#", x: "f32""#, &["return (x,)"]),
            2,
            27,
            "bad annotation \"f32\"",
        ),
        (
            "huge annotation",
            module(
                r#", x: "f32[1099511627776, 1099511627776]""#,
                &["return (x,)"],
            ),
            2,
            27,
            "more than 2^60 elements",
        ),
        (
            "input without annotation",
            module(", x", &["return (x,)"]),
            2,
            24,
            "input 'x' needs a type annotation",
        ),
        (
            "missing return",
            module(X3, &[relu]),
            3,
            46,
            "missing return statement",
        ),
        (
            "statement after return",
            module(X3, &["return (x,)", relu]),
            4,
            9,
            "statement after return",
        ),
        (
            "empty return",
            module(X3, &["return ()"]),
            3,
            9,
            "at least one value",
        ),
        (
            "returning an unknown name",
            module(X3, &["return (y,)"]),
            3,
            17,
            "unknown name 'y'",
        ),
        (
            "returning a multi-output value",
            module(X3, &[SPLIT, "return (split,)"]),
            4,
            17,
            "return one of them with split[i]",
        ),
        (
            "module attribute",
            module(
                X3,
                &["_tensor_constant0 = self._tensor_constant0", "return (x,)"],
            ),
            3,
            29,
            "'self._tensor_constant0': module attributes",
        ),
        (
            "annotation with the wrong sizes",
            module(
                X3,
                &[
                    r#"relu: "f32[4]" = torch.ops.aten.relu.default(x)"#,
                    "return (relu,)",
                ],
            ),
            3,
            15,
            "annotation f32[4] does not match f32[3], which aten.relu.default gives for 'relu'",
        ),
        (
            "annotation with the wrong dtype",
            module(
                X3,
                &[
                    r#"relu: "i64[3]" = torch.ops.aten.relu.default(x)"#,
                    "return (relu,)",
                ],
            ),
            3,
            15,
            "annotation i64[3] does not match f32[3]",
        ),
        (
            "annotation on a getitem",
            module(X3, &[SPLIT, r#"g: "f32[2]" = split[0]"#, "return (g,)"]),
            4,
            12,
            "annotation f32[2] does not match f32[1], which the getitem gives for 'g'",
        ),
        (
            "annotation on a multi-output value",
            module(
                X3,
                &[
                    r#"split: "f32[3]" = torch.ops.aten.split_with_sizes.default(x, [1, 2])"#,
                    "return (x,)",
                ],
            ),
            3,
            16,
            "takes no annotation",
        ),
        (
            "indexing a single tensor",
            module(X3, &[relu, "g = relu[0]", "return (g,)"]),
            4,
            13,
            "'relu' is a single tensor and cannot be indexed",
        ),
        (
            "index out of range",
            module(X3, &[SPLIT, "g = split[2]", "return (g,)"]),
            4,
            19,
            "index 2 is out of range: 'split' has 2 outputs",
        ),
        (
            "negative index",
            module(X3, &[SPLIT, "g = split[-1]", "return (g,)"]),
            4,
            19,
            "non-negative integer index",
        ),
        (
            "multi-output value used as a tensor",
            module(
                X3,
                &[
                    SPLIT,
                    "relu = torch.ops.aten.relu.default(split)",
                    "return (relu,)",
                ],
            ),
            4,
            44,
            "'split' returns several values; read one with split[i]",
        ),
        (
            "use after the clean-up released it",
            module(
                X3,
                &[
                    "relu = torch.ops.aten.relu.default(x);  x = None",
                    "neg = torch.ops.aten.neg.default(x)",
                    "return (neg,)",
                ],
            ),
            4,
            42,
            "'x' was set to None at line 3",
        ),
        (
            "clean-up of an unknown name",
            module(
                X3,
                &[
                    "relu = torch.ops.aten.relu.default(x);  y = None",
                    "return (relu,)",
                ],
            ),
            3,
            49,
            "unknown name 'y'",
        ),
        (
            "malformed clean-up",
            module(
                X3,
                &[
                    "relu = torch.ops.aten.relu.default(x);  x = 3",
                    "return (relu,)",
                ],
            ),
            3,
            53,
            "expected 'name = None' after ';', found integer 3",
        ),
        (
            "integer out of range",
            module(
                X3,
                &[
                    "add = torch.ops.aten.add.Tensor(x, 9223372036854775808)",
                    "return (add,)",
                ],
            ),
            3,
            44,
            "does not fit in int64",
        ),
        (
            "malformed number",
            module(
                X3,
                &["add = torch.ops.aten.add.Tensor(x, 1.5.2)", "return (add,)"],
            ),
            3,
            47,
            "expected ',' or ')' in the argument list, found '.'",
        ),
        (
            "op without overload",
            module(X3, &["add = torch.ops.aten.add(x, x)", "return (add,)"]),
            3,
            15,
            "'torch.ops.aten.add' has no overload",
        ),
        (
            "nested op call",
            module(
                X3,
                &[
                    "c = torch.ops.aten.relu.default(torch.ops.aten.neg.default(x))",
                    "return (c,)",
                ],
            ),
            3,
            41,
            "cannot be nested",
        ),
        (
            "not a call",
            module(X3, &["y = x.relu()", "return (y,)"]),
            3,
            13,
            "expected torch.ops.aten.<op>.<overload>(...) or name[index], found 'x.relu'",
        ),
        (
            "alias of an unknown name",
            module(X3, &["y = z", "return (y,)"]),
            3,
            13,
            "unknown name 'z'",
        ),
        (
            "value of an op that returns nothing",
            module(
                X3,
                &[
                    "a = torch.ops.aten._assert_tensor_metadata.default(x, None, None, torch.float32)",
                    "return (a,)",
                ],
            ),
            4,
            17,
            "'a' is the result of an op that returns nothing and holds no value",
        ),
        (
            "missing '='",
            module(
                X3,
                &["relu torch.ops.aten.relu.default(x)", "return (relu,)"],
            ),
            3,
            14,
            "expected '=' after 'relu', found 'torch'",
        ),
        (
            "positional after keyword",
            module(
                X3,
                &[
                    "add = torch.ops.aten.add.Tensor(x, alpha = 2, x)",
                    "return (add,)",
                ],
            ),
            3,
            55,
            "positional argument follows keyword argument",
        ),
        (
            "repeated keyword",
            module(
                X3,
                &[
                    "add = torch.ops.aten.add.Tensor(x, x, alpha = 2, alpha = 3)",
                    "return (add,)",
                ],
            ),
            3,
            58,
            "keyword argument 'alpha' is repeated",
        ),
        (
            "unknown torch constant",
            module(
                X3,
                &[
                    "c = torch.ops.aten._to_copy.default(x, dtype = torch.complex64)",
                    "return (c,)",
                ],
            ),
            3,
            56,
            "unsupported constant 'torch.complex64'",
        ),
        (
            "malformed device",
            module(
                X3,
                &["full = torch.ops.aten.full.default([2], 1.0, device = device(kind='cpu'))"],
            ),
            3,
            63,
            "device(...) takes type='cpu'",
        ),
        (
            "arguments nested too deeply",
            module(X3, &[&nested, "return (view,)"]),
            3,
            79,
            "nest more than 32 levels",
        ),
        (
            "non-ASCII name",
            module(X3, &["é = torch.ops.aten.relu.default(x)", "return (x,)"]),
            3,
            9,
            "unexpected character 'é'",
        ),
        (
            "columns count characters, not bytes",
            module(
                X3,
                &[
                    "relu = torch.ops.aten.relu.default(x, 'ünï', €)",
                    "return (relu,)",
                ],
            ),
            3,
            54,
            "unexpected character '€'",
        ),
        (
            "reserved word as a name",
            module(
                X3,
                &["None = torch.ops.aten.relu.default(x)", "return (x,)"],
            ),
            3,
            9,
            "'None' cannot be used as a value name",
        ),
        (
            "keyword as a name",
            module(r#", lambda: "f32[3]""#, &["return (lambda,)"]),
            2,
            23,
            "'lambda' cannot be used as a value name",
        ),
        (
            "body indentation changes",
            module(
                X3,
                &[relu, "  neg = torch.ops.aten.neg.default(x)", "return (x,)"],
            ),
            4,
            11,
            "unexpected indentation",
        ),
        (
            "tab indentation",
            "class GraphModule(torch.nn.Module):\n    def forward(self):\n\treturn ()\n".into(),
            3,
            1,
            "tabs are not supported",
        ),
        (
            "missing class line",
            "def forward(self):\n".into(),
            1,
            1,
            "expected 'class GraphModule(torch.nn.Module):'",
        ),
        (
            "indented class line",
            "  class GraphModule(torch.nn.Module):\n".into(),
            1,
            3,
            "must not be indented",
        ),
        (
            "class of another base",
            "class GraphModule(nn.Module):\n".into(),
            1,
            19,
            "must derive from torch.nn.Module, not nn.Module",
        ),
        ("empty input", String::new(), 1, 1, "empty input"),
        (
            "only comments",
            "   \n# only a comment\n".into(),
            2,
            17,
            "empty input",
        ),
        (
            "missing def",
            "class GraphModule(torch.nn.Module):\n".into(),
            1,
            36,
            "missing 'def forward(self, ...):'",
        ),
        (
            "def without self",
            "class GraphModule(torch.nn.Module):\n    def forward(x):\n".into(),
            2,
            17,
            "expected 'self' as the first parameter of forward, found 'x'",
        ),
    ]
}

#[test]
fn malformed_text_reports_line_and_column() {
    let mut messages = String::new();
    for (what, text, line, col, fragment) in malformed_cases() {
        match parse(&text) {
            Err(GraphError::Parse {
                line: l,
                col: c,
                msg,
            }) => {
                assert_eq!((l, c), (line, col), "{what}: {msg}\n{text}");
                assert!(msg.contains(fragment), "{what}: {msg:?} lacks {fragment:?}");
                messages.push_str(&format!(
                    "{what}: {}\n",
                    GraphError::Parse {
                        line: l,
                        col: c,
                        msg
                    }
                ));
            }
            other => panic!("{what}: expected a parse error, got {other:?}\n{text}"),
        }
    }
    // The messages as a user reads them.
    expect![[r#"
        unknown name: line 3, column 44: unknown name 'y'
        duplicate definition: line 4, column 9: 'relu' is already defined at line 3
        duplicate input: line 2, column 36: 'x' is already defined at line 2
        unterminated list: line 3, column 47: unterminated list: this '[' is not closed before the end of the line
        unterminated call: line 3, column 43: unterminated argument list: this '(' is not closed before the end of the line
        unterminated string: line 3, column 61: unterminated string: the quote is not closed before the end of the line
        unknown annotation dtype: line 2, column 27: unknown dtype 'q8' in annotation (expected one of b8, i32, i64, f16, bf16, f32, f64)
        symbolic size: line 2, column 31: symbolic size 's0': a graph with symbolic sizes is read for one binding of them (coil run-model binds them to the sizes of --inputs; coil_graph::bind_inputs and parse_bound)
        symbolic input: line 2, column 40: symbolic value annotation "Sym(s0)": a graph with symbolic sizes is read for one binding of them (coil run-model binds them to the sizes of --inputs)
        malformed annotation: line 2, column 33: bad annotation "f32[3,,4]": empty size
        annotation without sizes: line 2, column 27: bad annotation "f32": expected an annotation such as "f32[4, 8]" (dtype, then static sizes)
        huge annotation: line 2, column 27: a tensor of size [1099511627776, 1099511627776] has more than 2^60 elements
        input without annotation: line 2, column 24: input 'x' needs a type annotation such as "f32[4, 8]"
        missing return: line 3, column 46: missing return statement at the end of forward
        statement after return: line 4, column 9: statement after return: return must be the last statement of forward
        empty return: line 3, column 9: forward must return at least one value
        returning an unknown name: line 3, column 17: unknown name 'y'
        returning a multi-output value: line 4, column 17: 'split' returns several values; return one of them with split[i]
        module attribute: line 3, column 29: 'self._tensor_constant0': module attributes (constants, parameters, submodules) are not supported; pass them as inputs of forward
        annotation with the wrong sizes: line 3, column 15: annotation f32[4] does not match f32[3], which aten.relu.default gives for 'relu'
        annotation with the wrong dtype: line 3, column 15: annotation i64[3] does not match f32[3], which aten.relu.default gives for 'relu'
        annotation on a getitem: line 4, column 12: annotation f32[2] does not match f32[1], which the getitem gives for 'g'
        annotation on a multi-output value: line 3, column 16: 'split' returns several values and takes no annotation (FX writes none)
        indexing a single tensor: line 4, column 13: 'relu' is a single tensor and cannot be indexed (only multi-output values such as split_with_sizes can)
        index out of range: line 4, column 19: index 2 is out of range: 'split' has 2 outputs
        negative index: line 4, column 19: expected a non-negative integer index
        multi-output value used as a tensor: line 4, column 44: 'split' returns several values; read one with split[i] in its own statement
        use after the clean-up released it: line 4, column 42: 'x' was set to None at line 3 and cannot be used after that
        clean-up of an unknown name: line 3, column 49: unknown name 'y'
        malformed clean-up: line 3, column 53: expected 'name = None' after ';', found integer 3
        integer out of range: line 3, column 44: integer 9223372036854775808 does not fit in int64
        malformed number: line 3, column 47: expected ',' or ')' in the argument list, found '.'
        op without overload: line 3, column 15: 'torch.ops.aten.add' has no overload: write torch.ops.aten.add.<overload>, e.g. torch.ops.aten.add.default
        nested op call: line 3, column 41: op calls cannot be nested in arguments; give the call its own statement
        not a call: line 3, column 13: expected torch.ops.aten.<op>.<overload>(...) or name[index], found 'x.relu'
        alias of an unknown name: line 3, column 13: unknown name 'z'
        value of an op that returns nothing: line 4, column 17: 'a' is the result of an op that returns nothing and holds no value
        missing '=': line 3, column 14: expected '=' after 'relu', found 'torch'
        positional after keyword: line 3, column 55: positional argument follows keyword argument
        repeated keyword: line 3, column 58: keyword argument 'alpha' is repeated
        unknown torch constant: line 3, column 56: unsupported constant 'torch.complex64' (expected a dtype such as torch.float32, torch.strided, or a memory format such as torch.contiguous_format)
        malformed device: line 3, column 63: device(...) takes type='cpu' and optionally index=0
        arguments nested too deeply: line 3, column 79: arguments nest more than 32 levels deep
        non-ASCII name: line 3, column 9: unexpected character 'é'
        columns count characters, not bytes: line 3, column 54: unexpected character '€'
        reserved word as a name: line 3, column 9: 'None' cannot be used as a value name
        keyword as a name: line 2, column 23: 'lambda' cannot be used as a value name
        body indentation changes: line 4, column 11: unexpected indentation: the body of forward is indented by 8 spaces
        tab indentation: line 3, column 1: tabs are not supported for indentation; indent with spaces
        missing class line: line 1, column 1: expected 'class GraphModule(torch.nn.Module):', found 'def'
        indented class line: line 1, column 3: the class line must not be indented
        class of another base: line 1, column 19: the graph class must derive from torch.nn.Module, not nn.Module
        empty input: line 1, column 1: empty input: expected 'class GraphModule(torch.nn.Module):'
        only comments: line 2, column 17: empty input: expected 'class GraphModule(torch.nn.Module):'
        missing def: line 1, column 36: missing 'def forward(self, ...):' after the class line
        def without self: line 2, column 17: expected 'self' as the first parameter of forward, found 'x'
    "#]].assert_eq(&messages);
}

#[test]
fn unknown_ops_name_the_op_and_line() {
    let text = module(
        X3,
        &[
            "relu = torch.ops.aten.relu.default(x)",
            "foo = torch.ops.aten.foo.bar(relu)",
            "return (foo,)",
        ],
    );
    let err = parse(&text).unwrap_err();
    assert_eq!(
        err,
        GraphError::UnsupportedOp {
            op: "aten.foo.bar".into(),
            line: Some(4)
        }
    );
    assert_eq!(err.to_string(), "unsupported op aten.foo.bar at line 4");
    let text = module(
        X3,
        &[
            "c = torch.ops.prims.convert_element_type.default(x, torch.float64)",
            "return (c,)",
        ],
    );
    assert_eq!(
        parse(&text).unwrap_err().to_string(),
        "unsupported op prims.convert_element_type.default at line 3"
    );
}

/// The error of a call the op rejects: `(node, line, message of the cause)`.
fn node_error(params: &str, body: &[&str]) -> (String, Option<usize>, GraphError) {
    match parse(&module(params, body)) {
        Err(GraphError::AtNode { node, line, source }) => (node, line, *source),
        other => panic!("expected an error at a node, got {other:?}"),
    }
}

#[test]
fn shape_errors_name_the_node_and_line() {
    let body = [
        "relu = torch.ops.aten.relu.default(x)",
        "add = torch.ops.aten.add.Tensor(relu, y)",
        "return (add,)",
    ];
    let params = r#", x: "f32[3]", y: "f32[4]""#;
    let (node, line, cause) = node_error(params, &body);
    assert_eq!((node.as_str(), line), ("add", Some(4)));
    assert!(matches!(cause, GraphError::Shape(_)), "{cause:?}");
    let message = parse(&module(params, &body)).unwrap_err().to_string();
    expect!["add at line 4: shape error: shapes [3] and [4] cannot be broadcast: the size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0"].assert_eq(&message);
}

#[test]
fn argument_errors_name_the_node_and_line() {
    let cases = [
        (
            "relu = torch.ops.aten.relu.default(x, x)",
            "takes 1 positional arguments but 2 were given",
        ),
        (
            "relu = torch.ops.aten.relu.default(x, foo = 1)",
            "got an unexpected keyword argument 'foo'",
        ),
        (
            "relu = torch.ops.aten.add.Tensor(x)",
            "missing required argument 'other'",
        ),
        (
            "relu = torch.ops.aten.view.default(x, 3.5)",
            "argument 'size': expected a list of ints, got float 3.5",
        ),
        (
            "relu = torch.ops.aten.add.Tensor(x, x, x)",
            "takes 2 positional arguments but 3 were given",
        ),
        (
            "relu = torch.ops.aten.add.Tensor(x, x, alpha = 'two')",
            "argument 'alpha': expected a number",
        ),
    ];
    for (line, fragment) in cases {
        let (node, at, cause) = node_error(X3, &[line, "return (relu,)"]);
        assert_eq!((node.as_str(), at), ("relu", Some(3)), "{line}");
        match cause {
            GraphError::Arg { msg, .. } => assert!(msg.contains(fragment), "{msg:?}"),
            other => panic!("{line}: {other:?}"),
        }
    }
}

#[test]
fn dtype_errors_name_the_node_and_line() {
    let (node, line, cause) = node_error(
        r#", x: "i64[3]""#,
        &["mean = torch.ops.aten.mean.default(x)", "return (mean,)"],
    );
    assert_eq!((node.as_str(), line), ("mean", Some(3)));
    assert!(matches!(cause, GraphError::DType(_)), "{cause:?}");
}

#[test]
fn absurd_sizes_are_errors_not_overflows() {
    let big = 1u64 << 40;
    let cases = [
        format!("r = torch.ops.aten.full.default([{big}, {big}, {big}], 1.0)"),
        format!("r = torch.ops.aten.expand.default(x, [{big}, {big}, 3])"),
        format!("r = torch.ops.aten.view.default(x, [{big}, {big}, {big}, 0])"),
        format!("r = torch.ops.aten.reshape.default(x, [-1, {big}, {big}, {big}])"),
        "r = torch.ops.aten.arange.start(-1e308, 1e308)".to_string(),
        "r = torch.ops.aten.arange.default(1e300)".to_string(),
        "r = torch.ops.aten.split_with_sizes.default(x, [9223372036854775807, 9223372036854775807, 5])"
            .to_string(),
        format!("r = torch.ops.aten.slice.Tensor(x, 0, 0, {}, 9223372036854775807)", i64::MAX),
        format!("r = torch.ops.aten.slice.Tensor(x, 0, {}, {}, 1)", i64::MIN, i64::MAX),
        format!("r = torch.ops.aten.select.int(x, 0, {})", i64::MIN),
        format!("r = torch.ops.aten.unsqueeze.default(x, {})", i64::MIN),
        format!("r = torch.ops.aten.permute.default(x, [{}])", i64::MIN),
    ];
    for line in &cases {
        // Either an error or, for the slices, a valid small result: never a panic.
        let _ = parse(&module(X3, &[line, "return (r,)"]));
    }
    let full = parse(&module(X3, &[&cases[0], "return (r,)"])).unwrap_err();
    assert!(
        full.to_string().contains("more than 2^60 elements"),
        "{full}"
    );
    let slice = parse(&module(X3, &[&cases[7], "return (r,)"])).unwrap();
    assert_eq!(slice.node(slice.outputs()[0]).meta().sizes, vec![1]);
}

#[test]
fn inferred_results_obey_the_element_cap() {
    // 2^31 x 2 @ 2 x 2^31 is 2^62 elements: an error at the node, not a meta that prints
    // as text the parser then rejects.
    let params = r#", a: "f32[2147483648, 2]", b: "f32[2, 2147483648]""#;
    let body = ["mm = torch.ops.aten.mm.default(a, b)", "return (mm,)"];
    let (node, line, cause) = node_error(params, &body);
    assert_eq!((node.as_str(), line), ("mm", Some(3)));
    assert!(
        cause.to_string().contains("has more than 2^60 elements"),
        "{cause}"
    );
}

#[test]
fn truncated_or_corrupt_safetensors_say_so_and_name_the_file() {
    let t = coil_graph::Tensor::from_f32(vec![1.0; 16], vec![4, 4]).expect("tensor");
    let bytes = coil_graph::Tensor::write_safetensors(&[("input.x".into(), t)]).expect("writes");
    let dir = std::env::temp_dir().join(format!("coil-st-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let cases = [
        (
            "truncated.safetensors",
            bytes[..bytes.len() - 7].to_vec(),
            "truncated or corrupt",
        ),
        (
            "short.safetensors",
            bytes[..5].to_vec(),
            "too short for its header",
        ),
        (
            "text.safetensors",
            b"\x10\0\0\0\0\0\0\0not json at all!".to_vec(),
            "not valid safetensors JSON",
        ),
    ];
    for (name, data, says) in cases {
        let path = dir.join(name);
        std::fs::write(&path, data).expect("writes");
        let err = coil_graph::Tensor::load_safetensors(&path)
            .unwrap_err()
            .to_string();
        assert!(err.contains(says), "{err}");
        assert!(err.contains(name), "{err}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn convolution_backward_checks_its_gradient_mask_and_dtypes() {
    let params = r#", dy: "f32[2, 6, 5, 5]", x: "f32[2, 4, 9, 9]", w: "f32[6, 4, 3, 3]", h: "f16[2, 6, 5, 5]""#;
    let call = |dy: &str, mask: &str| {
        format!(
            "cb = torch.ops.aten.convolution_backward.default({dy}, x, w, [6], [2, 2], [1, 1], \
             [1, 1], False, [0, 0], 1, {mask})"
        )
    };
    let ok = module(
        params,
        &[
            &call("dy", "[True, True, False]"),
            "g = cb[1]",
            "return (g,)",
        ],
    );
    let g = parse(&ok).unwrap();
    let metas: Vec<String> = g
        .nodes()
        .flat_map(|(_, n)| &n.outputs)
        .map(|m| m.to_string())
        .collect();
    assert!(metas.contains(&"f32[6, 4, 3, 3]".to_string()), "{metas:?}");
    let cases = [
        (
            "x",
            "[True, True, True]",
            "expected grad_output of size [2, 6, 5, 5]",
        ),
        ("dy", "[True, True]", "output_mask must have 3 bools, got 2"),
        ("dy", "[1, 1, 1]", "expected a list of bools"),
        (
            "h",
            "[True, True, True]",
            "must have the same floating-point dtype",
        ),
    ];
    for (dy, mask, fragment) in cases {
        let text = module(params, &[&call(dy, mask), "g = cb[0]", "return (g,)"]);
        let message = parse(&text).unwrap_err().to_string();
        assert!(message.contains(fragment), "{dy} {mask}: {message}");
        assert!(message.contains("line 3"), "{message}");
    }
}
