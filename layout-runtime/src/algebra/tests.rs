//! The canonical form against the index map itself, element by element, on every small
//! layout: two layouts of the same element count have equal forms exactly when every
//! element sits at the same offset in both.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::build::form_of;
use super::form::{eval, Item};
use crate::{ArrayShape, Plan};

/// Every list of `rank` dimensions (entries ≥ 1) with product `n`.
fn factorizations(n: usize, rank: usize) -> Vec<Vec<usize>> {
    if rank == 0 {
        return if n == 1 { vec![Vec::new()] } else { Vec::new() };
    }
    let mut out = Vec::new();
    for d in (1..=n).filter(|d| n % d == 0) {
        for mut rest in factorizations(n / d, rank - 1) {
            rest.insert(0, d);
            out.push(rest);
        }
    }
    out
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, n - 1);
            out.push(q);
        }
    }
    out
}

/// Tilings of every kind the model has: one level and several, shorter and longer than the
/// shape, dividing and padding, nested tiles that pad inside a tile, `*`.
const TILINGS: &[&str] = &[
    "",
    "T(2)",
    "T(3)",
    "T(4)",
    "T(2,2)",
    "T(2,1)",
    "T(1,2)",
    "T(3,2)",
    "T(2,3)",
    "T(4,2)",
    "T(2,4)(2,1)",
    "T(4)(2)",
    "T(3)(2)",
    "T(2,2)(2,1,1)",
    "T(2)(2,2)",
    "T(*,2)",
    "T(2,*,2)",
    "T(*,3)",
    "T(2,2,2)",
    "T(4,4)(2,1)",
    "T(1,2)(2)",
    "T(2)(3)",
];

fn layouts(n: usize) -> Vec<String> {
    let mut out = Vec::new();
    for rank in 1..=3 {
        for dims in factorizations(n, rank) {
            let dims_text: Vec<String> = dims.iter().map(|d| format!("{d}")).collect();
            for perm in permutations(rank) {
                let m2m: Vec<String> = perm.iter().map(|d| format!("{d}")).collect();
                for t in TILINGS {
                    let sep = if t.is_empty() { "" } else { ":" };
                    out.push(format!("f32[{}]{{{}{sep}{t}}}", dims_text.join(","), m2m.join(",")));
                }
            }
        }
    }
    out
}

#[test]
fn equal_forms_are_equal_maps_on_every_small_layout() {
    let mut with_form = 0;
    let mut without = 0;
    for n in 1..=24 {
        // For each index map (the offsets in row-major order), the forms that gave it, and
        // for each form the maps: both must be one-to-one.
        let mut forms_of_map: BTreeMap<Vec<usize>, BTreeSet<Vec<Item>>> = BTreeMap::new();
        let mut maps_of_form: BTreeMap<Vec<Item>, BTreeSet<Vec<usize>>> = BTreeMap::new();
        for text in layouts(n) {
            let shape: ArrayShape = text.parse().unwrap();
            let Ok(plan) = shape.check().and_then(|c| Plan::untabulated(&c)) else {
                continue; // a trailing `*` on this rank
            };
            let map: Vec<usize> = plan.row_major_offsets().collect();
            let Some(form) = form_of(plan.space()) else {
                without += 1;
                assert!(text.contains('*'), "{text} has no form");
                continue;
            };
            with_form += 1;
            for (k, &offset) in map.iter().enumerate() {
                assert_eq!(eval(&form, k), offset, "{text} at {k}: {form:?}");
            }
            forms_of_map.entry(map.clone()).or_default().insert(form.clone());
            maps_of_form.entry(form).or_default().insert(map);
        }
        for (map, forms) in &forms_of_map {
            assert_eq!(forms.len(), 1, "one map {map:?}, several forms {forms:?}");
        }
        for (form, maps) in &maps_of_form {
            assert_eq!(maps.len(), 1, "one form {form:?}, several maps {maps:?}");
        }
    }
    // Almost every layout has a form: only `*` over dimensions in transposed order lacks one.
    assert!(with_form > 20 * without, "{with_form} with a form, {without} without");
}

#[test]
fn the_forms_of_a_padded_row_say_why() {
    // jax-ml/jax#24404: four rows of 128 share one (8,128) tile; with a size-1 dimension
    // between them each row gets a tile of its own.
    let form = |t: &str| form_of(t.parse::<ArrayShape>().unwrap().plan().unwrap().space()).unwrap();
    let lin = |extent, stride| Item::Lin { extent, stride };
    assert_eq!(form("f32[4,128]{1,0:T(8,128)}"), [lin(512, 1)]);
    assert_eq!(form("f32[1,4,128]{2,1,0:T(8,128)}"), [lin(512, 1)]);
    assert_eq!(form("f32[4,1,128]{2,1,0:T(8,128)}"), [lin(4, 1024), lin(128, 1)]);
    // f32[3,5] under 2x2 tiles (the tiled-layout document's Figure 1): both dimensions pad.
    let t = |bound, items| Item::Trunc { bound, items };
    assert_eq!(
        form("f32[3,5]{1,0:T(2,2)}"),
        [t(3, vec![lin(2, 12), lin(2, 2)]), t(5, vec![lin(3, 4), lin(2, 1)])]
    );
}
