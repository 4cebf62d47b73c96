//! Typed views against the conformance data: a storage whose every element is its own offset
//! reads back, through the view, the offset the data gives for each logical index.

use serde_json::Value;
use xlayout::{ErrorKind, Shape, View, ViewMut};

fn usizes(v: &Value) -> Vec<usize> {
    v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as usize).collect()
}

#[test]
fn views_read_every_conformance_point() {
    let doc: Value = serde_json::from_str(include_str!("data/linear_index.json")).unwrap();
    let mut checked = 0;
    for case in doc["cases"].as_array().unwrap() {
        let text = case["shape"].as_str().unwrap();
        let shape: Shape = text.parse().unwrap();
        let len = shape.as_array().unwrap().plan().unwrap().padded_len();
        // Offsets of every case are checked in index_conformance.rs; here the view's
        // indexing, over cases whose storage is small enough to allocate in a test.
        if len > 1 << 20 {
            continue;
        }
        // Each position holds its own offset, as u64: the case's element type becomes u64
        // (and E(n) goes), which leaves the layout, and so every offset, as it is.
        let layout = shape.as_array().unwrap().layout.clone().unwrap();
        let mut as_u64 = shape.as_array().unwrap().clone();
        as_u64.element_type = xlayout::PrimitiveType::U64;
        let mut l = layout.clone();
        l.element_size_in_bits = 0;
        as_u64.layout = Some(l);
        let u64_shape = Shape::Array(as_u64);
        let storage: Vec<u64> = (0..len as u64).collect();
        let view = View::new(&storage, &u64_shape).unwrap();
        for p in case.get("points").and_then(Value::as_array).into_iter().flatten() {
            let index = usizes(&p["index"]);
            let linear = p["linear"].as_u64().unwrap();
            assert_eq!(view[&index[..]], linear, "{text} {index:?}");
            assert_eq!(view.get(&index), Some(&linear), "{text} {index:?}");
            checked += 1;
        }
    }
    assert_eq!(checked, 50); // of the 56 points; the other 6 lie in grids over 2^20 elements
}

#[test]
fn view_mut_writes_where_the_plan_says() {
    let shape: Shape = "bf16[16,256]{1,0:T(8,128)(2,1)}".parse().unwrap();
    let plan = shape.as_array().unwrap().plan().unwrap();
    let mut storage = vec![0u16; plan.padded_len()];
    let mut view = ViewMut::new(&mut storage, &shape).unwrap();
    for i in 0..16 {
        for j in 0..256 {
            view[[i, j]] = (i * 256 + j) as u16;
        }
    }
    // Row pairs: (0,0) and (1,0) are adjacent, then (0,1), (1,1)...
    assert_eq!(storage[..6], [0, 256, 1, 257, 2, 258]);
    // The second 8x128 tile of row block 0 starts at element 1024 with (0,128).
    assert_eq!(storage[1024], 128);
}

#[test]
fn element_type_rules() {
    let check = |text: &str| text.parse::<Shape>().unwrap();
    // Raw bits for types without a Rust type of their own.
    assert!(View::new(&[0u8; 4], &check("f8e4m3fn[4]")).is_ok());
    assert!(View::new(&[0u8; 4], &check("s4[4]")).is_ok()); // a byte each without E(4)
    assert!(View::new(&[0u16; 4], &check("bf16[4]")).is_ok());
    assert!(View::new(&[[0f32; 2]; 4], &check("c64[4]")).is_ok());
    assert!(View::new(&[[0f64; 2]; 4], &check("c128[4]")).is_ok());
    assert!(View::new(&[false; 4], &check("pred[4]")).is_ok());
    // E(n) equal to the natural width is the same storage.
    assert!(View::new(&[0f32; 4], &check("f32[4]{0:E(32)}")).is_ok());
    for (err, kind) in [
        (View::new(&[0i8; 4], &check("u8[4]")).unwrap_err(), ErrorKind::ElementType),
        (View::new(&[0u8; 2], &check("s4[4]{0:E(4)}")).unwrap_err(), ErrorKind::ElementType),
        (View::new(&[0f32; 4], &check("(f32[4])")).unwrap_err(), ErrorKind::NotStaticArray),
        (View::new(&[0f32; 4], &check("f32[?]")).unwrap_err(), ErrorKind::NotStaticArray),
        (View::new(&[0f32; 5], &check("f32[4]")).unwrap_err(), ErrorKind::BufferLength),
        // L(8) makes the buffer 8 elements long, not 4.
        (View::new(&[0f32; 4], &check("f32[4]{0:T(2)L(8)}")).unwrap_err(), ErrorKind::BufferLength),
    ] {
        assert_eq!(err.kind(), kind, "{err}");
    }
    assert!(View::new(&[0f32; 8], &check("f32[4]{0:T(2)L(8)}")).is_ok());
    let e = View::new(&[0u8; 2], &check("s4[4]{0:E(4)}")).unwrap_err();
    assert!(e.message().contains("packed to 4 bits"), "{e}");
}

#[test]
fn half_types() {
    let shape: Shape = "bf16[2,2]{0,1}".parse().unwrap();
    let data =
        [half::bf16::from_f32(1.0), half::bf16::from_f32(2.0), half::bf16::ZERO, half::bf16::ONE];
    let view = View::new(&data, &shape).unwrap();
    assert_eq!(view[[1, 0]].to_f32(), 2.0);
    assert!(View::new(&[half::f16::ZERO; 4], &shape).is_err());
}

#[test]
#[should_panic(expected = "entry 1 is 5, dimension 1 has size 5")]
fn indexing_out_of_range_panics_like_a_slice() {
    let shape: Shape = "f32[3,5]{1,0:T(2,2)}".parse().unwrap();
    let data = [0f32; 24];
    let view = View::new(&data, &shape).unwrap();
    let _ = view[[0, 5]];
}

#[test]
#[should_panic(expected = "has 1 entries; the shape has rank 2")]
fn indexing_with_the_wrong_rank_panics() {
    let shape: Shape = "f32[3,5]".parse().unwrap();
    let mut data = [0f32; 15];
    let mut view = ViewMut::new(&mut data, &shape).unwrap();
    view[[0]] = 1.0;
}
