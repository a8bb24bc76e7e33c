//! No-op removal: ops that return their input unchanged (same dtype, sizes and strides).

use egg::rewrite;

use super::{Rewrite, same_meta};

/// The rules of this family.
pub fn rules() -> Vec<Rewrite> {
    vec![
        rewrite!("clone"; "(clone.default ?x ?mf)" => "?x" if same_meta("?x")),
        rewrite!("alias"; "(alias.default ?x)" => "?x"),
        rewrite!("to-copy-same"; "(_to_copy.default ?x ?dt ?l ?dev ?pin ?nb ?mf)" => "?x" if same_meta("?x")),
        rewrite!("expand-same"; "(expand.default ?x ?size ?implicit)" => "?x" if same_meta("?x")),
        rewrite!("reshape-same"; "(reshape.default ?x ?shape)" => "?x" if same_meta("?x")),
        rewrite!("view-same"; "(view.default ?x ?shape)" => "?x" if same_meta("?x")),
        rewrite!("unsafe-view-same"; "(_unsafe_view.default ?x ?shape)" => "?x" if same_meta("?x")),
        rewrite!("permute-identity"; "(permute.default ?x ?dims)" => "?x" if same_meta("?x")),
    ]
}
