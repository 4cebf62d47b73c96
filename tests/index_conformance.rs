//! The index map against the conformance data: every point of tests/data/linear_index.json
//! (`linear`, and the inverse), every `all_linear_row_major`, `expanded_shape` and
//! `memory_order`; every grid of tests/data/doc_examples.json; every `nested_model_bytes`
//! of tests/data/byte_size.json.

use serde_json::Value;
use xlayout::{ErrorKind, Plan, Shape};

fn usizes(v: &Value) -> Vec<usize> {
    v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as usize).collect()
}

fn plan_of(text: &str) -> Plan {
    let shape: Shape = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    shape.as_array().unwrap().plan().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Every logical index of `dims` in row-major order (last index fastest).
fn row_major_indices(dims: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = dims.iter().product();
    (0..n)
        .map(|mut k| {
            let mut ix = vec![0; dims.len()];
            for (i, &d) in dims.iter().enumerate().rev() {
                ix[i] = k % d;
                k /= d;
            }
            ix
        })
        .collect()
}

#[test]
fn linear_index_cases() {
    let cases = crate::support::cases(include_str!("data/linear_index.json"));
    assert_eq!(cases.len(), 46);
    let (mut points, mut grids, mut memory) = (0, 0, 0);
    for case in &cases {
        let text = case["shape"].as_str().unwrap();
        let plan = plan_of(text);
        assert_eq!(plan.expanded_shape(), usizes(&case["expanded_shape"]), "{text}");
        assert_eq!(plan.grid_len(), plan.expanded_shape().iter().product::<usize>(), "{text}");

        for p in case.get("points").and_then(Value::as_array).into_iter().flatten() {
            let index = usizes(&p["index"]);
            let linear = p["linear"].as_u64().unwrap() as usize;
            assert_eq!(plan.offset(&index).unwrap(), linear, "{text} {index:?}");
            assert_eq!(plan.offset_unchecked(&index), linear, "{text} {index:?}");
            assert_eq!(plan.index_of(linear), Some(index.clone()), "{text} @{linear}");
            points += 1;
        }

        if let Some(all) = case.get("all_linear_row_major") {
            let all = usizes(all);
            let indices = row_major_indices(plan.dims());
            assert_eq!(indices.len(), all.len(), "{text}");
            let by_offset: Vec<usize> = indices.iter().map(|i| plan.offset(i).unwrap()).collect();
            assert_eq!(by_offset, all, "{text}: offset()");
            let iterated: Vec<usize> = plan.row_major_offsets().collect();
            assert_eq!(iterated, all, "{text}: row_major_offsets()");
            let pairs: Vec<(Vec<usize>, usize)> = plan.row_major().collect();
            assert_eq!(pairs, indices.into_iter().zip(all).collect::<Vec<_>>(), "{text}");
            grids += 1;
        }

        if let Some(order) = case.get("memory_order") {
            let expected: Vec<Option<Vec<usize>>> = order
                .as_array()
                .unwrap()
                .iter()
                .map(|v| if v.is_null() { None } else { Some(usizes(v)) })
                .collect();
            assert_eq!(expected.len(), plan.grid_len(), "{text}");
            let iterated: Vec<Option<Vec<usize>>> = plan.memory_order().collect();
            assert_eq!(iterated, expected, "{text}: memory_order()");
            let direct: Vec<Option<Vec<usize>>> =
                (0..plan.grid_len()).map(|o| plan.index_of(o)).collect();
            assert_eq!(direct, expected, "{text}: index_of()");
            assert_eq!(plan.index_of(plan.grid_len()), None, "{text}");
            memory += 1;
        }
    }
    // Every case carries either points or whole grids; count what was checked.
    assert_eq!((points, grids, memory), (56, 32, 32));
}

#[test]
fn doc_example_grids() {
    let cases = crate::support::cases(include_str!("data/doc_examples.json"));
    assert_eq!(cases.len(), 3);
    for case in &cases {
        let text = case["shape"].as_str().unwrap();
        let plan = plan_of(text);
        assert_eq!(plan.expanded_shape(), usizes(&case["expanded_shape"]), "{text}");
        assert_eq!(plan.grid_len() as u64, case["allocated_elements"].as_u64().unwrap(), "{text}");
        for (r, row) in case["grid"].as_array().unwrap().iter().enumerate() {
            for (c, &linear) in usizes(row).iter().enumerate() {
                assert_eq!(plan.offset(&[r, c]).unwrap(), linear, "{text} ({r},{c})");
                assert_eq!(plan.index_of(linear), Some(vec![r, c]), "{text} @{linear}");
            }
        }
    }
}

#[test]
fn nested_model_bytes() {
    let cases = crate::support::cases(include_str!("data/byte_size.json"));
    assert_eq!(cases.len(), 85);
    let (mut checked, mut trailing, mut not_arrays) = (0, 0, 0);
    for case in &cases {
        let text = case["shape"].as_str().unwrap();
        let shape: Shape = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
        match case.get("nested_model_bytes").filter(|v| !v.is_null()) {
            Some(bytes) => {
                let a = shape.as_array().unwrap();
                assert_eq!(a.nested_byte_size().unwrap(), bytes.as_u64().unwrap(), "{text}");
                let plan = a.plan().unwrap();
                assert_eq!(plan.byte_len() as u64, bytes.as_u64().unwrap(), "{text}");
                assert_eq!(a.nested_element_count().unwrap(), plan.padded_len() as u64, "{text}");
                checked += 1;
            }
            // No value: a tuple, token or opaque (no array), or a trailing `*`.
            None => match shape.as_array() {
                None => not_arrays += 1,
                Some(a) => {
                    let e = a.nested_byte_size().unwrap_err();
                    assert_eq!(e.kind(), ErrorKind::TrailingCombine, "{text}");
                    trailing += 1;
                }
            },
        }
    }
    assert_eq!((checked, trailing, not_arrays), (79, 1, 5));
}

#[test]
fn nested_differs_from_array_size_where_the_data_says() {
    let size = |t: &str| t.parse::<Shape>().unwrap().as_array().unwrap().nested_byte_size();
    assert_eq!(size("f32[3,5]{1,0:L(64)}").unwrap(), 256);
    assert_eq!(size("f32[4,4]{1,0:T(2,4)(3,1)}").unwrap(), 96);
    assert_eq!(size("f32[150,200,100]{0,1,2:T(8,128)SC(0:30)(1:40,130)}").unwrap(), 20_480_000);
}
