//! Unit tests of the expansion, on `proc_macro2` tokens.

use quote::quote;

use crate::expand::expand as expand_tokens;

fn expand(input: proc_macro2::TokenStream) -> String {
    expand_tokens(quote!(krate; #input)).to_string()
}

#[test]
fn expression_form_is_a_block_with_the_value() {
    let out = expand(quote!(f32[3,5]{1,0:T(2,2)}));
    assert!(out.starts_with("{ # [doc"), "{out}");
    assert!(out.ends_with("XlaLayout }"), "{out}");
    assert!(out.contains(r#"text : "f32[3,5]{1,0:T(2,2)}""#), "{out}");
}

/// The generated `offset_unchecked` of `text`, and its `index_of` (the library's
/// `index_of_program`, compiled from its own source file, over the generated `Inverse`), as a
/// standalone Rust file with the `$crate::__private` paths they use provided by a stand-in
/// module.
fn standalone(text: &str) -> String {
    let shape: layout_runtime::Shape = text.parse().unwrap();
    let plan = shape.as_array().unwrap().plan().unwrap();
    let x = quote!(krate::__private);
    let index = proc_macro2::Ident::new("index", proc_macro2::Span::call_site());
    let forward = crate::program::forward_body(&plan.index_program(), &index);
    let (index_of, inverse) = crate::emit::index_function(&x, &quote!(Layout), &plan);
    assert!(index_of.to_string().contains("program_index_of"), "{index_of}");
    let rank = proc_macro2::Literal::usize_unsuffixed(plan.rank());
    let library: proc_macro2::TokenStream =
        include_str!("../../../layout-runtime/src/fixed/inverse.rs").parse().unwrap();
    quote! {
        mod krate {
            pub mod __private {
                pub use core::option::Option;
                pub use crate::inverse::{index_of_program, IndexStep, Inverse};
            }
        }
        mod inverse { #library }
        #[no_mangle]
        pub fn generated_offset(index: [usize; #rank]) -> usize { #forward }
        #[no_mangle]
        pub fn generated_index_of(offset: usize) -> Option<[usize; #rank]> {
            const INVERSE: krate::__private::Inverse = #inverse;
            krate::__private::index_of_program::<#rank>(&INVERSE, offset)
        }
    }
    .to_string()
}

/// The optimized LLVM IR of a standalone file (rustc from `$RUSTC`, else the one on PATH).
fn optimized_ir(name: &str, source: &str) -> String {
    let dir = std::env::temp_dir().join(format!("xlayout-ir-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("lib.rs");
    std::fs::write(&src, source).unwrap();
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| String::from("rustc"));
    let out = std::process::Command::new(rustc)
        .args([
            "--edition",
            "2021",
            "--crate-type",
            "lib",
            "-C",
            "opt-level=3",
            "--emit",
            "llvm-ir",
        ])
        .arg("-o")
        .arg(dir.join("lib.ll"))
        .arg(&src)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ir = std::fs::read_to_string(dir.join("lib.ll")).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    ir
}

/// The body of function `name` in LLVM IR text.
fn function<'a>(ir: &'a str, name: &str) -> &'a str {
    let start = ir.find(&format!("@{name}(")).unwrap_or_else(|| panic!("no {name} in\n{ir}"));
    let end = ir[start..].find("\n}\n").unwrap();
    &ir[start..start + end]
}

#[test]
fn power_of_two_layouts_compile_to_shifts_and_masks() {
    // `offset` divides only by tile sizes: powers of two here. `index_of` also divides by
    // the tile counts of the grid, which are powers of two in the first two layouts but not
    // in the third (1280 / 8 = 160 row tiles).
    let cases = [
        ("f32[1024,1024]{1,0:T(8,128)}", true),
        ("s8[64,512]{0,1:T(32,128)(4,1)}", true),
        ("bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}", false),
    ];
    for (text, grid_is_powers_of_two) in cases {
        let ir = optimized_ir(&text.len().to_string(), &standalone(text));
        let mut functions = vec!["generated_offset"];
        if grid_is_powers_of_two {
            functions.push("generated_index_of");
        }
        for f in functions {
            let body = function(&ir, f);
            for div in ["udiv", "urem", "sdiv", "srem"] {
                assert!(!body.contains(div), "{text}: {f} has `{div}`:\n{body}");
            }
            assert!(
                body.contains("lshr") || body.contains("shl"),
                "{text}: {f} has no shift:\n{body}"
            );
        }
    }
    // The check can fail: a tile of 3 divides.
    let ir = optimized_ir("odd", &standalone("f32[30,30]{1,0:T(3,3)}"));
    assert!(function(&ir, "generated_offset").contains("udiv"));
}

#[test]
fn figure_1_offset_is_the_closed_form() {
    // f32[3,5]{1,0:T(2,2)}: offset = (i/2)*12 + (j/2)*4 + (i%2)*2 + j%2 (spec 5.2).
    let code = standalone("f32[3,5]{1,0:T(2,2)}");
    let body =
        code.split("generated_offset").nth(1).unwrap().split("generated_index_of").next().unwrap();
    let expected = "let r0 = index [0] ; let r1 = index [1] ; let r2 = r0 / 2 ; let r3 = r0 % 2 ; \
                    let r4 = r1 / 2 ; let r5 = r1 % 2 ; \
                    r2 . wrapping_mul (12) . wrapping_add (r3 . wrapping_mul (2)) . wrapping_add (r4 . wrapping_mul (4)) . wrapping_add (r5)";
    assert!(body.contains(expected), "{body}");
}

mod snapshots;

/// The hostile-input issue's inputs to the macro: each is a compile error, found quickly and
/// without deep recursion (a depth, rank or tile-level limit of the runtime parser, or the
/// macro's limit on input size), never a crash of rustc.
#[test]
fn hostile_inputs_are_compile_errors() {
    let cases = [
        (format!("{}f32[]{}", "(".repeat(2000), ")".repeat(2000)), "nested more than 64 deep"),
        (format!("f32[2]{{0:T{}}}", "(1)".repeat(20_000)), "more than 16 tile levels"),
        (format!("f32[{}]", vec!["1"; 20_000].join(",")), "more than 256 dimensions"),
        (format!("f32[{}]", "1".repeat(1 << 20)), "one invocation reads at most 65536"),
    ];
    for (text, expected) in cases {
        let out = expand(quote!(#text));
        assert!(out.contains("compile_error"), "{}", &out[..out.len().min(300)]);
        assert!(out.contains(expected), "{expected}: {}", &out[..out.len().min(300)]);
    }
}

/// The limit is on one invocation's shapes together, as the README says: a shape of exactly
/// 64 KiB passes (a dimension of `1` written with leading zeros), one byte more does not, and
/// thousands of small items past the limit stop at the item that passes it, with nothing
/// checked or generated.
#[test]
fn one_invocation_reads_at_most_64_kib() {
    let exactly = format!("f32[{}1]", "0".repeat(65536 - 6));
    assert_eq!(exactly.len(), 65536);
    let out = expand(quote!(#exactly));
    assert!(!out.contains("compile_error"), "{}", &out[..300]);
    let over = format!("f32[{}1]", "0".repeat(65536 - 5));
    assert!(expand(quote!(#over)).contains("the shape text is 65537 bytes, and one invocation"));

    let items: String =
        (0..4000).map(|k| format!("struct L{k} = \"f32[3,5]{{1,0:T(2,2)}}\";")).collect();
    let out = expand_tokens(format!("krate; {items}").parse().unwrap()).to_string();
    let expected = "this `layout!` holds 80000 bytes of shape text, and one invocation reads at \
                    most 65536 (its limit on input size; XLA's shapes are far smaller): the \
                    shapes up to this one, number 3277 of 4000, already hold 65540; split the \
                    items into several `layout!` invocations";
    assert!(out.contains(expected), "{}", &out[..out.len().min(600)]);
    assert!(!out.contains("StaticLayout"), "nothing is generated past the limit");
}

#[test]
fn an_inverse_program_past_the_library_s_registers_is_written_out() {
    // Rank 8, three tile levels: 34 registers, more than `index_of_program` has.
    let text = "f32[3,3,3,3,3,3,3,3]{7,6,5,4,3,2,1,0:T(2,2,2,2,2,2,2,2)(2,2)(2,1)}";
    let shape: layout_runtime::Shape = text.parse().unwrap();
    let plan = shape.as_array().unwrap().plan().unwrap();
    let registers = plan.inverse_program().registers;
    assert!(registers > layout_runtime::fixed::Inverse::MAX_REGISTERS, "{registers}");
    let (index_of, inverse) = crate::emit::index_function(&quote!(x), &quote!(L), &plan);
    assert!(index_of.to_string().starts_with("| _ , offset : usize |"), "{index_of}");
    assert_eq!(inverse.to_string(), "x :: Inverse :: NONE");
}
