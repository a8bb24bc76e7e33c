//! Fuzzing: random and mutated text never makes the parser panic, and whatever it accepts
//! prints and parses back to the same graph.

use coil_graph::{parse, print_graph};
use proptest::prelude::*;
use proptest::sample::Index;

use crate::zoo::zoo_files;

/// Parses, and when the text is accepted, checks that printing round-trips.
fn check(text: &str) -> Result<(), TestCaseError> {
    if let Ok(g) = parse(text) {
        let printed = print_graph(&g);
        let back = parse(&printed);
        prop_assert!(
            back.is_ok(),
            "printed text fails to parse: {:?}\n{}",
            back,
            printed
        );
        prop_assert!(
            back.ok() == Some(g),
            "round trip changed the graph:\n{}",
            printed
        );
    }
    Ok(())
}

/// Snippets worth inserting: delimiters, quotes, numbers, names, keywords, and non-ASCII.
const SNIPPETS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    ",",
    ":",
    "=",
    ";",
    ".",
    "-",
    "#",
    "'",
    "\"",
    "\\",
    " ",
    "\n",
    "\t",
    "\r",
    "0",
    "1",
    "-1",
    "9223372036854775808",
    "1e-05",
    "1e",
    "inf",
    "nan",
    "None",
    "True",
    "x",
    "relu",
    "getitem",
    "[0]",
    "[9]",
    "return",
    "self",
    "torch",
    "torch.ops.aten.",
    "é",
    "€",
    "🦀",
    "\u{0}",
    "\u{feff}",
    "Sym(s0)",
    "s0",
    "f32[",
    "b8[]",
    "= None",
    ";  x = None",
    "device(type='cpu')",
    "torch.float32",
    "[[[[",
    "]]]]",
    "99999999999999999999",
];

#[derive(Clone, Debug)]
enum Edit {
    /// Deletes up to this many characters.
    Delete(usize),
    Insert(&'static str),
    /// Swaps the line at the position with the next one.
    SwapLines,
    /// Duplicates the line at the position.
    DuplicateLine,
}

fn edit() -> impl Strategy<Value = (Index, Edit)> {
    let kind = prop_oneof![
        (1usize..6).prop_map(Edit::Delete),
        prop::sample::select(SNIPPETS).prop_map(Edit::Insert),
        Just(Edit::SwapLines),
        Just(Edit::DuplicateLine),
    ];
    (any::<Index>(), kind)
}

fn apply(text: &str, (at, edit): &(Index, Edit)) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let pos = at.index(chars.len() + 1);
    match edit {
        Edit::Delete(n) => {
            let end = (pos + n).min(chars.len());
            chars.drain(pos..end);
        }
        Edit::Insert(s) => {
            chars.splice(pos..pos, s.chars());
        }
        Edit::SwapLines | Edit::DuplicateLine => {
            let mut lines: Vec<&str> = text.split('\n').collect();
            let i = at.index(lines.len());
            match edit {
                Edit::SwapLines if i + 1 < lines.len() => lines.swap(i, i + 1),
                Edit::DuplicateLine => lines.insert(i, lines[i]),
                _ => {}
            }
            return lines.join("\n");
        }
    }
    chars.into_iter().collect()
}

/// The tiny models (small enough to fuzz quickly) and a text using every argument form.
fn seeds() -> Vec<String> {
    let mut seeds: Vec<String> = zoo_files()
        .into_iter()
        .filter(|(name, _)| name.starts_with("tiny/"))
        .map(|(_, text)| text)
        .collect();
    seeds.push(crate::zoo::module(
        r#", x: "f32[4, 6]", flag: "b8[]""#,
        &[
            "split = torch.ops.aten.split_with_sizes.default(x, [2, 4], -1)",
            r#"getitem: "f32[4, 2]" = split[0];  split = None"#,
            r#"full: "f64[4, 2]" = torch.ops.aten.full.default([4, 2], nan, dtype = torch.float64, device = device(type='cuda', index=0), pin_memory = False)"#,
            r#"s: "f32[]" = torch.ops.aten.scalar_tensor.default(-inf, dtype = torch.float32)"#,
            r#"w: "f32[4, 2]" = torch.ops.aten.where.self(flag, getitem, s);  flag = getitem = s = None"#,
            r#"c: "f32[4, 2]" = torch.ops.aten.clone.default(w, memory_format = torch.contiguous_format);  w = None"#,
            r#"g: "f32[4, 2]" = torch.ops.aten.gelu.default(c, approximate = 'tanh');  c = None"#,
            r#"t: "f64[4, 2]" = torch.ops.aten._to_copy.default(g, dtype = torch.float64);  g = None"#,
            r#"m: "f64[4, 2]" = torch.ops.aten.mul.Tensor(t, full);  t = full = None"#,
            "return (m, x)",
        ],
    ));
    seeds
}

/// Fragments for token soup after a valid header.
const TOKENS: &[&str] = &[
    "x",
    "y",
    "add",
    "split",
    "getitem",
    "=",
    ":",
    "(",
    ")",
    "[",
    "]",
    ",",
    ";",
    "None",
    "True",
    "1",
    "-2",
    "0.5",
    "-inf",
    "nan",
    "'tanh'",
    "\"f32[3]\"",
    "\"f32[]\"",
    "\"b8[3]\"",
    "torch.ops.aten.add.Tensor",
    "torch.ops.aten.relu.default",
    "torch.ops.aten.mul.Tensor",
    "torch.ops.aten.split_with_sizes.default",
    "torch.ops.aten.view.default",
    "torch.ops.aten.full.default",
    "torch.ops.aten.cat.default",
    "torch.float32",
    "torch.strided",
    "device(type='cpu')",
    "dtype",
    "alpha",
    "return",
    "\n        ",
    "\n",
    "\n    ",
    "#",
    "split[0]",
    "split[1]",
];

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 500,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn mutated_graphs_never_panic(
        seed in any::<Index>(),
        edits in prop::collection::vec(edit(), 1..6),
    ) {
        let seeds = seeds();
        let mut text = seed.get(&seeds).clone();
        for e in &edits {
            text = apply(&text, e);
        }
        check(&text)?;
    }

    #[test]
    fn token_soup_never_panics(tokens in prop::collection::vec(prop::sample::select(TOKENS), 0..40)) {
        let mut text = String::from(
            "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[3]\", y: \"f32[3]\"):\n        ",
        );
        for t in tokens {
            text.push_str(t);
            text.push(' ');
        }
        check(&text)?;
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC*") {
        check(&text)?;
    }

    #[test]
    fn arbitrary_bytes_as_text_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        check(&String::from_utf8_lossy(&bytes))?;
    }
}
