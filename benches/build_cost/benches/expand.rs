//! The macro's own work per layout, as it runs in a user's build: unoptimized (this crate's
//! bench profile is opt-level 0, as cargo builds proc macros by default, release included).
//! The macro's sources are compiled into this bench (`#[path]`), and its whole expansion, from
//! the invocation's tokens to the generated tokens, runs on each `layout! { pub struct L =
//! ...; }` of the build-cost fixture, against the time of only turning the same tokens into
//! a `proc_macro2` stream (the floor any macro pays), in the same run.
//!
//! `cargo bench --bench expand` in benches/build_cost.

#![allow(dead_code)] // the macro's modules, compiled for their `expand` alone

use std::hint::black_box;
use std::str::FromStr;
use std::time::Duration;

use criterion::Criterion;
use proc_macro2::TokenStream;

#[path = "../../../layout-macros/src/check.rs"]
mod check;
#[path = "../../../layout-macros/src/emit.rs"]
mod emit;
#[path = "../../../layout-macros/src/expand.rs"]
mod expand;
#[path = "../../../layout-macros/src/fallback.rs"]
mod fallback;
#[path = "../../../layout-macros/src/input.rs"]
mod input;
#[path = "../../../layout-macros/src/program.rs"]
mod program;
#[path = "../../../layout-macros/src/storage.rs"]
mod storage;
#[path = "../../../layout-macros/src/text.rs"]
mod text;
#[path = "../../../layout-macros/src/tokens.rs"]
mod tokens;

#[path = "../../common/mod.rs"]
mod common;
use common::median_ns;

const GROUP: &str = "expand";

fn main() {
    let n: usize = std::env::var("XLAYOUT_LAYOUTS").ok().and_then(|n| n.parse().ok()).unwrap_or(500);
    let texts: Vec<String> = xlayout_build_cost::specs(n)
        .iter()
        .enumerate()
        .map(|(k, s)| format!("xlayout; pub struct L{k} = {};", s.text()))
        .collect();
    let inputs: Vec<TokenStream> = texts.iter().map(|t| TokenStream::from_str(t).unwrap()).collect();
    if let Some(path) = std::env::var_os("XLAYOUT_EXPANSION_TO") {
        // The expansions as one file, for experiments on what the compiler makes of them.
        let all: Vec<String> = inputs.iter().map(|i| expand::expand(i.clone()).to_string()).collect();
        return std::fs::write(path, all.join("\n")).unwrap();
    }
    if std::env::args().any(|a| a == "--once") {
        // One pass and no more, for a profiler: `expand-* --once`.
        return inputs.iter().map(|i| expand::expand(i.clone())).for_each(drop);
    }
    for (k, out) in inputs.iter().map(|i| expand::expand(i.clone())).enumerate() {
        let error = out.into_iter().any(|t| matches!(&t, proc_macro2::TokenTree::Ident(i) if i == "compile_error"));
        assert!(!error, "{}", texts[k]);
    }
    let mut c = Criterion::default().configure_from_args();
    let mut g = c.benchmark_group(GROUP);
    g.sample_size(10).warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(10));
    g.bench_function("tokens only", |b| {
        b.iter(|| texts.iter().map(|t| TokenStream::from_str(black_box(t)).unwrap()).count())
    });
    g.bench_function("layout! expansion", |b| {
        b.iter(|| inputs.iter().map(|i| expand::expand(black_box(i.clone()))).count())
    });
    g.finish();
    c.final_summary();
    if let (Some(floor), Some(t)) =
        (median_ns(GROUP, "tokens only"), median_ns(GROUP, "layout! expansion"))
    {
        println!("\nthe macro's own work, unoptimized, {n} layouts (median):");
        println!("  tokens only         {:.3} ms per layout", floor / 1e6 / n as f64);
        println!("  layout! expansion   {:.3} ms per layout", t / 1e6 / n as f64);
    }
}
