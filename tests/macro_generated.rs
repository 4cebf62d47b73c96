//! The macro against the runtime over many layouts: every case of tests/data/linear_index.json
//! (all of them are arrays a static layout can hold), 160 layouts from a fixed-seed generator
//! (odd sizes, size 0 and 1 dimensions, permutations, up to three tile levels with tiles
//! shorter and longer than the shape, `*`, sub-byte `E(n)`, `L`), and 80 more from the same
//! generator over the ten element types that pack below a byte.
//!
//! Besides offsets, the storage of every layout is checked: the tiles of each `TiledLayout`
//! against the layout's own offsets, and every element of each `PackedLayout` against the
//! runtime's `read_packed` / `write_packed`.
//!
//! The `layout!` items, in macro_generated/generated.rs, are written by `generated_items` (in
//! this file) and checked in; `generated_items_are_current` fails when they no longer match
//! the data or the generator. Regenerate with
//! `XLAYOUT_REGENERATE=1 cargo test --test macro_generated`.

use serde_json::Value;
use xlayout::fixed::StaticLayout;
use xlayout::{layout, Plan, Shape};

use xlayout_test_support::storage as storage_checks;
use xlayout_test_support::storage_checks;

/// `[agrees::<A>, agrees::<B>, ..]`.
macro_rules! agrees {
    ($($t:ident),* $(,)?) => { [$(agrees::<$t>),*] };
}

mod generated;

use generated::{conformance_offset, CONFORMANCE, GENERATED, PACKED, STORAGE};
/// Every static layout of this file, as a checking function.
type Check = fn() -> (&'static str, usize);

/// Runs every check of `L` against the runtime plan of its text: the offset of every logical
/// index (of every tenth one beyond 2^16), `index_of` of every grid position, memory order.
/// Returns the text and how many indices were compared.
fn agrees<L: StaticLayout>() -> (&'static str, usize) {
    let layout = L::LAYOUT;
    let shape: Shape = L::TEXT.parse().unwrap();
    let plan: Plan = shape.as_array().unwrap().plan().unwrap();
    assert_eq!(
        (L::GRID_LEN, L::PADDED_LEN, L::BYTE_LEN),
        (plan.grid_len(), plan.padded_len(), plan.byte_len())
    );
    let logical: usize = plan.dims().iter().product();
    let mut compared = 0;
    let mut compare = |index: &[usize], offset: usize| {
        let ix = L::Index::try_from(index).ok().unwrap();
        assert_eq!(layout.offset(ix), offset, "{} {index:?}", L::TEXT);
        assert_eq!(layout.index_of(offset), Some(ix), "{} @{offset}", L::TEXT);
        compared += 1;
    };
    if logical > 1 << 16 {
        // Too many to walk in a test: 65536 indices spread over the array.
        let step = logical / (1 << 16);
        for k in (0..logical).step_by(step) {
            let mut rest = k;
            let mut index = vec![0; plan.rank()];
            for (i, &d) in index.iter_mut().zip(plan.dims()).rev() {
                *i = rest % d;
                rest /= d;
            }
            compare(&index, plan.offset(&index).unwrap());
        }
        return (L::TEXT, compared);
    }
    let mut it = plan.row_major();
    while let Some((index, offset)) = it.next_ref() {
        compare(index, offset);
    }
    let mut it = plan.memory_order();
    let mut ours = layout.memory_order();
    while let Some(theirs) = it.next_ref() {
        let mine = ours.next().unwrap();
        assert_eq!(mine.as_ref().map(|i| i.as_ref()), theirs, "{}", L::TEXT);
    }
    assert!(ours.next().is_none());
    (L::TEXT, compared)
}

/// The `linear` points of the conformance data, by canonical text.
fn conformance_points() -> Vec<(String, Vec<usize>, usize)> {
    let doc: Value = serde_json::from_str(include_str!("data/linear_index.json")).unwrap();
    let mut points = Vec::new();
    for case in doc["cases"].as_array().unwrap() {
        let text = case["shape"].as_str().unwrap().parse::<Shape>().unwrap().to_string();
        for p in case.get("points").and_then(Value::as_array).into_iter().flatten() {
            let index = p["index"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as usize);
            points.push((text.clone(), index.collect(), p["linear"].as_u64().unwrap() as usize));
        }
    }
    points
}

#[test]
fn conformance_cases_agree_with_the_runtime_and_the_data() {
    let mut texts = Vec::new();
    for check in CONFORMANCE {
        texts.push(check().0);
    }
    assert_eq!(texts.len(), 46);
    // The data's own offsets, through the macro: each point is checked by `agrees` (every
    // index of the case against the plan, which index_conformance.rs holds to the data), and
    // here directly, for the cases the data gives points of.
    let points = conformance_points();
    assert_eq!(points.len(), 56);
    for (text, index, linear) in points {
        assert!(texts.contains(&text.as_str()), "{text}");
        assert_eq!(conformance_offset(&text, &index), Some(linear), "{text} {index:?}");
    }
}

#[test]
fn generated_layouts_agree_with_the_runtime() {
    let mut compared = 0;
    for check in GENERATED {
        compared += check().1;
    }
    assert_eq!(GENERATED.len(), 160);
    assert!(compared > 10_000, "{compared}");
}

#[test]
fn packed_generated_layouts_agree_with_the_runtime() {
    for check in PACKED {
        check();
    }
    assert_eq!(PACKED.len(), 80);
}

#[test]
fn storage_of_every_layout_agrees_with_its_offsets() {
    let (mut tiled, mut packed, mut elements) = (0, 0, 0);
    for check in STORAGE {
        match check() {
            storage_checks::Checked::Tiles(n) => (tiled, elements) = (tiled + 1, elements + n),
            storage_checks::Checked::Packed(n) => (packed, elements) = (packed + 1, elements + n),
            storage_checks::Checked::Nothing => {}
        }
    }
    assert_eq!(STORAGE.len(), 46 + 160 + 80);
    // Every P layout packs; the C and G layouts add their own packed and tiled ones.
    assert!(packed > 80, "{packed}");
    assert!(tiled > 50, "{tiled}");
    assert!(elements > 20_000, "{elements}");
}

/// A tiny deterministic generator (64-bit LCG), so the layouts are the same on every machine.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// Element types of the generated layouts; `:n` adds `E(n)`.
const TYPES: &[&str] =
    &["f32", "bf16", "s8", "u8", "pred", "s4", "s4:4", "u2:2", "f6e3m2fn:6", "c64", "u4:4"];

/// The element types that pack below a byte, each at its own width.
const PACKED_TYPES: &[&str] = &[
    "pred:1",
    "s4:4",
    "u4:4",
    "s2:2",
    "u2:2",
    "s1:1",
    "u1:1",
    "f4e2m1fn:4",
    "f6e3m2fn:6",
    "f6e2m3fn:6",
];

/// `n` distinct layouts of `types` from the generator seeded with `seed`, each one a test can
/// walk quickly and the runtime takes as a static array.
fn random_layouts(seed: u64, types: &[&str], n: usize) -> Vec<String> {
    let mut rng = Lcg(seed);
    let mut layouts = Vec::new();
    while layouts.len() < n {
        let text = random_layout(&mut rng, types);
        let Ok(shape) = text.parse::<Shape>() else { continue };
        let Ok(plan) = shape.as_array().unwrap().plan() else { continue };
        if plan.grid_len() <= 4096 && !layouts.contains(&text) {
            layouts.push(text);
        }
    }
    layouts
}

/// One random layout text of one of `types`, valid and holdable by a static layout.
fn random_layout(rng: &mut Lcg, types: &[&str]) -> String {
    let pick = types[rng.next(types.len() as u64) as usize];
    let (ty, bits) = match pick.split_once(':') {
        Some((t, b)) => (t, Some(b)),
        None => (pick, None),
    };
    let rank = rng.next(5) as usize;
    let dims: Vec<u64> = (0..rank)
        .map(|_| match rng.next(12) {
            0 => 0,
            1 | 2 => 1,
            _ => 2 + rng.next(8),
        })
        .collect();
    let mut m2m: Vec<usize> = (0..rank).collect();
    for i in (1..rank).rev() {
        m2m.swap(i, rng.next(i as u64 + 1) as usize);
    }
    let mut fields = String::new();
    let levels = rng.next(4);
    if levels > 0 {
        fields.push('T');
        for _ in 0..levels {
            let n = 1 + rng.next(4) as usize;
            let entries: Vec<String> = (0..n)
                .map(|k| {
                    if k + 1 < n && rng.next(4) == 0 {
                        "*".to_string()
                    } else {
                        (1 + rng.next(5)).to_string()
                    }
                })
                .collect();
            fields += &format!("({})", entries.join(","));
        }
    }
    if rng.next(6) == 0 {
        fields += &format!("L({})", 2 + rng.next(7));
    }
    if let Some(b) = bits {
        fields += &format!("E({b})");
    }
    let dims: Vec<String> = dims.iter().map(u64::to_string).collect();
    let m2m: Vec<String> = m2m.iter().rev().map(usize::to_string).collect();
    let colon = if fields.is_empty() { "" } else { ":" };
    format!("{ty}[{}]{{{}{colon}{fields}}}", dims.join(","), m2m.join(","))
}

const GENERATED_FILE: &str = "tests/macro_generated/generated.rs";

/// `name![A, B, ..]`, eight names a line.
fn name_list(out: &mut String, name: &str, items: &[String]) {
    *out += &format!("{name}![\n");
    for chunk in items.chunks(8) {
        *out += &format!("    {},\n", chunk.join(", "));
    }
    *out += "];\n";
}

/// macro_generated/generated.rs, from the data and the generator.
fn generated_items() -> String {
    let doc: Value = serde_json::from_str(include_str!("data/linear_index.json")).unwrap();
    let conformance: Vec<String> = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["shape"].as_str().unwrap().to_string())
        .collect();
    let generated = random_layouts(0x5EED_1A70, TYPES, 160);
    let packed = random_layouts(0x5EED_0BAD, PACKED_TYPES, 80);
    let mut out = String::from(
        "// @generated by generated_items() in tests/macro_generated.rs: do not edit by hand.\n\
         #![cfg_attr(rustfmt, rustfmt::skip)]\n\nuse super::*;\n\nlayout! {\n",
    );
    let mut names = |prefix: &str, texts: &[String]| -> Vec<String> {
        for (i, t) in texts.iter().enumerate() {
            out += &format!("    struct {prefix}{i} = \"{t}\";\n");
        }
        (0..texts.len()).map(|i| format!("{prefix}{i}")).collect()
    };
    let c = names("C", &conformance);
    let g = names("G", &generated);
    let p = names("P", &packed);
    out += "}\n\npub const CONFORMANCE: &[Check] = &";
    name_list(&mut out, "agrees", &c);
    out += "\npub const GENERATED: &[Check] = &";
    name_list(&mut out, "agrees", &g);
    out += "\npub const PACKED: &[Check] = &";
    name_list(&mut out, "agrees", &p);
    out += "\npub const STORAGE: &[fn() -> storage_checks::Checked] = &";
    name_list(&mut out, "storage_checks", &[c.clone(), g, p].concat());
    out += "\n/// The offset of `index` in the conformance layout printed as `text`.\n";
    out +=
        "pub fn conformance_offset(text: &str, index: &[usize]) -> Option<usize> {\n    match text {\n";
    for (i, t) in conformance.iter().enumerate() {
        let canonical = t.parse::<Shape>().unwrap().to_string();
        out += &format!(
            "        {canonical:?} => C{i}.checked_offset(<C{i} as StaticLayout>::Index::try_from(index).ok()?),\n"
        );
    }
    out += "        _ => None,\n    }\n}\n";
    out
}

#[test]
fn generated_items_are_current() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(GENERATED_FILE);
    let expected = generated_items();
    if include_str!("macro_generated/generated.rs") != expected {
        if std::env::var_os("XLAYOUT_REGENERATE").is_some() {
            std::fs::write(path, &expected).unwrap();
        }
        panic!(
            "the generated items are stale: XLAYOUT_REGENERATE=1 cargo test --test macro_generated"
        );
    }
}
