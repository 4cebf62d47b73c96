//! Unit tests of the expansion, on `proc_macro2` tokens.

use quote::quote;

use crate::expand_tokens;

fn expand(input: proc_macro2::TokenStream) -> String {
    expand_tokens(quote!(krate; #input)).to_string()
}

#[test]
fn expression_form_is_a_block_with_the_value() {
    let out = expand(quote!(f32[3,5]{1,0:T(2,2)}));
    assert!(out.starts_with("{ # [doc"), "{out}");
    assert!(out.ends_with("XlaLayout }"), "{out}");
    assert!(out.contains(r#"const TEXT : & 'static str = "f32[3,5]{1,0:T(2,2)}""#), "{out}");
}
