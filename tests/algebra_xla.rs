//! XLA's own tests of its layout-pair functions (`tests/data/algebra/xla_tests.json`,
//! transcribed from `shape_util_test.cc`, `permutation_util_test.cc`, `util_test.cc`,
//! `layout_util_test.cc`), every expectation as the test states it. The predicates run twice:
//! as XLA wrote them (`algebra::xla`) and tile-aware (`algebra`), which must agree on these
//! untiled cases.

use serde_json::Value;
use xlayout::algebra::{self, xla, Decomposition};
use xlayout::ArrayShape;

use crate::support;

fn shape(v: &Value) -> ArrayShape {
    v.as_str().unwrap().parse().unwrap()
}

fn usizes(v: &Value) -> Vec<usize> {
    v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as usize).collect()
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect()
}

fn pairs(v: &Value) -> Vec<(usize, usize)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_u64().unwrap() as usize, p[1].as_u64().unwrap() as usize))
        .collect()
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    let mut out = vec![(0..n).collect::<Vec<_>>()];
    loop {
        // The next permutation in lexicographic order, as absl::c_next_permutation.
        let mut p = out.last().unwrap().clone();
        let Some(i) = (1..n).rev().find(|&i| p[i - 1] < p[i]) else { return out };
        let j = (i..n).rev().find(|&j| p[j] > p[i - 1]).unwrap();
        p.swap(i - 1, j);
        p[i..].reverse();
        out.push(p);
    }
}

/// Runs one case; returns the function's name for the tally.
fn run(case: &Value) -> String {
    let f = case["function"].as_str().unwrap();
    let name = case["test"].as_str().unwrap();
    let expected = &case["expected"];
    let ignore = case["ignore_element_type"].as_bool().unwrap_or(false);
    match f {
        "ReshapeIsBitcast" => {
            let (a, b) = (shape(&case["input"]), shape(&case["output"]));
            let want = expected.as_bool().unwrap();
            assert_eq!(xla::reshape_is_bitcast(&a, &b, ignore).unwrap(), want, "{name}");
            assert_eq!(algebra::reshape_is_bitcast(&a, &b, ignore).unwrap(), want, "{name}");
        }
        "TransposeIsBitcast" => {
            let (a, b) = (shape(&case["input"]), shape(&case["output"]));
            let dims = usizes(&case["dimensions"]);
            let want = expected.as_bool().unwrap();
            assert_eq!(xla::transpose_is_bitcast(&a, &b, &dims, ignore).unwrap(), want, "{name}");
            assert_eq!(
                algebra::transpose_is_bitcast(&a, &b, &dims, ignore).unwrap(),
                want,
                "{name}"
            );
        }
        "IsReshapeOrTransposeBitcast" => {
            let (a, b) = (shape(&case["input"]), shape(&case["output"]));
            let got = xla::is_reshape_or_transpose_bitcast(&a, &b, ignore).unwrap();
            assert_eq!(got, expected.as_bool().unwrap(), "{name}");
        }
        "DimensionsUnmodifiedByReshape" => {
            let (a, b) = (shape(&case["input"]), shape(&case["output"]));
            assert_eq!(
                xla::dimensions_unmodified_by_reshape(&a, &b),
                Some(pairs(expected)),
                "{name}"
            );
        }
        "HasDegenerateDimensions" => {
            assert_eq!(
                xla::has_degenerate_dimensions(&shape(&case["input"])),
                expected.as_bool().unwrap()
            );
        }
        "PermuteDimensionsIgnoringLayout" => {
            let mut s = shape(&case["input"]);
            if case["clear_layout"].as_bool() == Some(true) {
                s.layout = None;
            }
            let p =
                xla::permute_dimensions_ignoring_layout(&usizes(&case["permutation"]), &s).unwrap();
            assert_eq!(p.to_string(), expected.as_str().unwrap(), "{name}");
        }
        "PermuteDimensionsLayout" => {
            // Every layout of the shape and every permutation: the permuted shape's layout
            // makes the transpose a bitcast, by XLA's rule and physically.
            let base = shape(&case["input"]);
            let mut checked = 0;
            for layout in permutations(3) {
                let s = base
                    .clone()
                    .with_layout(xlayout::Layout::new(layout.iter().map(|&d| d as i64)));
                for p in permutations(3) {
                    let t = xla::permute_dimensions(&p, &s).unwrap();
                    assert!(
                        xla::transpose_is_bitcast(&s, &t, &p, false).unwrap(),
                        "{name}: {s} {p:?}"
                    );
                    assert!(
                        algebra::transpose_is_bitcast(&s, &t, &p, false).unwrap(),
                        "{name}: {s} {p:?}"
                    );
                    checked += 1;
                }
            }
            assert_eq!(checked, 36);
        }
        "PrependMajorDimension" => {
            let s = xla::prepend_major_dimension(
                case["bound"].as_u64().unwrap(),
                &shape(&case["input"]),
            )
            .unwrap();
            assert_eq!(s.to_string(), expected.as_str().unwrap(), "{name}");
        }
        "AppendMinorDimension" => {
            let s = xla::append_minor_dimension(
                case["bound"].as_u64().unwrap(),
                &shape(&case["input"]),
            )
            .unwrap();
            assert_eq!(s.to_string(), expected.as_str().unwrap(), "{name}");
        }
        "InsertDimensionsAtIndex" => {
            let index = case["index"].as_u64().unwrap() as usize;
            let s = xla::insert_dimensions_at_index(
                &shape(&case["input"]),
                index,
                &u64s(&case["bounds"]),
            )
            .unwrap();
            assert_eq!(s.to_string(), expected.as_str().unwrap(), "{name}");
        }
        "MoveDimToMajor" => {
            let s = xla::move_shape_dim_to_major(
                &shape(&case["input"]),
                case["dimension"].as_u64().unwrap() as usize,
            );
            assert_eq!(s.to_string(), expected.as_str().unwrap(), "{name}");
        }
        "LayoutMoveDimToMajor" => {
            let layout = xlayout::Layout::new(usizes(&case["layout"]).iter().map(|&d| d as i64));
            let moved = xla::move_dim_to_major(&layout, case["dimension"].as_i64().unwrap());
            let want: Vec<i64> = usizes(expected).iter().map(|&d| d as i64).collect();
            assert_eq!(moved.minor_to_major, want, "{name}");
        }
        "DeleteDimensions" => {
            let s = xla::delete_dimensions(&usizes(&case["dimensions"]), &shape(&case["input"]))
                .unwrap();
            assert_eq!(s.to_string(), expected.as_str().unwrap(), "{name}");
        }
        "MakeShapeWithDescendingLayoutAndSamePhysicalLayout" => {
            let s = xla::make_shape_with_descending_layout_and_same_physical_layout(&shape(
                &case["input"],
            ))
            .unwrap();
            assert_eq!(s.to_string(), expected.as_str().unwrap(), "{name}");
        }
        "DeduceTransposeDimensionsForBitcast" => {
            let (a, b) = (shape(&case["input"]), shape(&case["output"]));
            let want = if expected.is_null() { None } else { Some(usizes(expected)) };
            assert_eq!(
                xla::deduce_transpose_dimensions_for_bitcast(&a, &b).unwrap(),
                want,
                "{name}"
            );
        }
        "IsEffectivelyMostMajorDimension" => {
            let d = case["dimension"].as_u64().unwrap() as usize;
            let got = xla::is_effectively_most_major_dimension(&shape(&case["input"]), d).unwrap();
            assert_eq!(got, expected.as_bool().unwrap(), "{name}");
        }
        "DecomposeBitcast" => {
            let (a, b) = (shape(&case["input"]), shape(&case["output"]));
            let got = algebra::decompose_bitcast(&a, &b).unwrap();
            match (expected["kind"].as_str(), got) {
                (None, None) => assert!(expected.is_null(), "{name}"),
                (Some("reshape"), Some(Decomposition::Reshape)) => {}
                (Some("transpose"), Some(Decomposition::Transpose { dimensions })) => {
                    assert_eq!(dimensions, usizes(&expected["dimensions"]), "{name}")
                }
                (
                    Some("trt"),
                    Some(Decomposition::TransposeReshapeTranspose {
                        transpose1_dimensions,
                        transpose1_shape,
                        reshape_shape,
                        transpose2_dimensions,
                    }),
                ) => {
                    assert_eq!(
                        transpose1_dimensions,
                        usizes(&expected["transpose1_dimensions"]),
                        "{name}"
                    );
                    assert_eq!(
                        transpose1_shape.to_string(),
                        expected["transpose1_shape"].as_str().unwrap()
                    );
                    assert_eq!(
                        reshape_shape.to_string(),
                        expected["reshape_shape"].as_str().unwrap()
                    );
                    assert_eq!(
                        transpose2_dimensions,
                        usizes(&expected["transpose2_dimensions"]),
                        "{name}"
                    );
                    let identity = |p: &[usize]| algebra::is_identity_permutation(p);
                    assert_eq!(
                        identity(&transpose1_dimensions),
                        expected["transpose1_identity"].as_bool().unwrap()
                    );
                    assert_eq!(
                        identity(&transpose2_dimensions),
                        expected["transpose2_identity"].as_bool().unwrap()
                    );
                }
                (kind, got) => panic!("{name}: expected {kind:?}, got {got:?}"),
            }
        }
        "IsDecomposableBitcast" => {
            // XLA: both have layouts and the same element count; such a pair of untiled
            // shapes always decomposes.
            let (a, b) = (shape(&case["input"]), shape(&case["output"]));
            let got = algebra::decompose_bitcast(&a, &b).unwrap().is_some();
            assert_eq!(got, expected.as_bool().unwrap(), "{name}");
        }
        "ReorderLogicalDimensions" => {
            let s = xla::reorder_logical_dimensions(
                &shape(&case["input"]),
                &usizes(&case["permutation"]),
            )
            .unwrap();
            assert_eq!(s.to_string(), expected.as_str().unwrap(), "{name}");
        }
        "AlignLayouts" => {
            let (a, b) = (shape(&case["input"]), shape(&case["output"]));
            let got = xla::align_layouts(&a, &b).unwrap();
            match expected.as_str() {
                None => assert_eq!(got, None, "{name}"),
                Some(want) => {
                    let got = got.unwrap_or_else(|| panic!("{name}: no layout"));
                    if want != "some" {
                        assert_eq!(got.to_string(), want, "{name}");
                    }
                    assert!(xla::reshape_is_bitcast(&a, &got, false).unwrap(), "{name}");
                    assert!(algebra::reshape_is_bitcast(&a, &got, false).unwrap(), "{name}");
                    // The tile-aware search finds XLA's answer first.
                    let searched = algebra::reshape_bitcast_layout(&a, &b).unwrap().unwrap();
                    assert_eq!(searched, got, "{name}");
                }
            }
            if expected.is_null() {
                // XLA finds no layout; nor does the search over every order.
                assert_eq!(algebra::reshape_bitcast_layout(&a, &b).unwrap(), None, "{name}");
            }
        }
        "InsertedOrDeleted1SizedDimensions" => {
            let (a, b) = (shape(&case["input"]), shape(&case["output"]));
            let got = xla::inserted_or_deleted_1_sized_dimensions(&a, &b).is_some();
            assert_eq!(got, expected.as_bool().unwrap(), "{name}");
        }
        "IsPermutation" => {
            // A negative entry is never part of a permutation.
            let p: Vec<i64> = case["permutation"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap())
                .collect();
            let got = p.iter().all(|&x| x >= 0)
                && algebra::is_permutation(&p.iter().map(|&x| x as usize).collect::<Vec<_>>());
            assert_eq!(got, expected.as_bool().unwrap(), "{name}: {p:?}");
        }
        "IsIdentityPermutation" => match case["permutation"].as_str() {
            Some("all_but_identity_of_4") => {
                let all = permutations(4);
                assert_eq!(all.len(), 24);
                for p in &all[1..] {
                    assert!(!algebra::is_identity_permutation(p), "{name}: {p:?}");
                }
            }
            _ => assert_eq!(
                algebra::is_identity_permutation(&usizes(&case["permutation"])),
                expected.as_bool().unwrap(),
                "{name}"
            ),
        },
        "PermuteInverse" => {
            let input: Vec<&str> =
                case["input"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect();
            let want: Vec<&str> =
                expected.as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect();
            assert_eq!(
                algebra::permute_inverse(&input, &usizes(&case["permutation"])),
                Some(want),
                "{name}"
            );
        }
        "InversePermutation" => {
            assert_eq!(
                algebra::inverse_permutation(&usizes(&case["permutation"])),
                Some(usizes(expected))
            );
        }
        "ComposePermutations" => {
            let got = algebra::compose_permutations(&usizes(&case["p1"]), &usizes(&case["p2"]));
            assert_eq!(got, Some(usizes(expected)), "{name}");
        }
        "ComposeAndInversePermutations" => {
            for p in permutations(4) {
                let inv = algebra::inverse_permutation(&p).unwrap();
                assert_eq!(
                    algebra::compose_permutations(&inv, &p),
                    Some(usizes(expected)),
                    "{name}: {p:?}"
                );
            }
        }
        "MoveSingleElement" => {
            let mut v = usizes(&case["input"]);
            let (from, to) =
                (case["from"].as_u64().unwrap() as usize, case["to"].as_u64().unwrap() as usize);
            assert!(algebra::move_single_element(&mut v, from, to));
            assert_eq!(v, usizes(expected), "{name}");
        }
        "CommonFactors" => {
            let got = algebra::common_factors(&u64s(&case["a"]), &u64s(&case["b"]));
            assert_eq!(got, Some(pairs(expected)), "{name}: {case}");
        }
        "IsUntiledLayout" => {
            // LayoutUtil::IsUntiledLayout: the tiling leaves the memory order of the untiled
            // layout, without padding; here, the same index map and size as untiled.
            let s = shape(&case["input"]);
            let mut untiled = s.clone();
            untiled.layout.as_mut().unwrap().tiles.clear();
            let got = algebra::reshape_is_bitcast(&s, &untiled, false).unwrap();
            assert_eq!(got, expected.as_bool().unwrap(), "{name}");
        }
        other => panic!("{name}: no runner for {other}"),
    }
    f.to_string()
}

#[test]
fn every_ported_xla_case_passes_as_xla_states_it() {
    let cases = support::cases(&support::data_text("algebra/xla_tests.json"));
    let mut tests = std::collections::BTreeSet::new();
    for case in &cases {
        run(case);
        tests.insert(case["test"].as_str().unwrap().to_string());
    }
    assert_eq!((cases.len(), tests.len()), (114, 51));
}
