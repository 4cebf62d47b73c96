//! The narrow float types against XLA's `ml_dtypes`, through tests/data/minifloats.txt
//! (written by tests/data/minifloats.py, which says how): `to_f32` of every encoding, and
//! `from_f32` of every one of the 2^32 `f32` patterns. The table records `from_f32` as runs of
//! patterns with the same result; this test checks both ends and the middle of every run, and
//! a million patterns drawn at random per type, each against its run.

use xlayout::{
    F4e2m1fn, F6e2m3fn, F6e3m2fn, F8e3m4, F8e4m3, F8e4m3b11fnuz, F8e4m3fn, F8e4m3fnuz, F8e5m2,
    F8e5m2fnuz, F8e8m0fnu,
};

use crate::support::minifloats as minifloat_table;
use minifloat_table::{table, tables};

/// A type under test: its conversions as plain functions of bits.
struct Conversions {
    name: &'static str,
    from_bits_to_f32: fn(u8) -> u32,
    round_trip_bits: fn(u8) -> u8,
    from_f32: fn(u32) -> u8,
}

macro_rules! conversions {
    ($($ty:ident = $name:literal,)*) => {
        [$(Conversions {
            name: $name,
            from_bits_to_f32: |b| $ty::from_bits(b).to_f32().to_bits(),
            round_trip_bits: |b| $ty::from_bits(b).to_bits(),
            from_f32: |x| $ty::from_f32(f32::from_bits(x)).to_bits(),
        },)*]
    };
}

fn all() -> [Conversions; 11] {
    conversions! {
        F8e5m2 = "f8e5m2",
        F8e4m3 = "f8e4m3",
        F8e4m3fn = "f8e4m3fn",
        F8e4m3b11fnuz = "f8e4m3b11fnuz",
        F8e3m4 = "f8e3m4",
        F8e5m2fnuz = "f8e5m2fnuz",
        F8e4m3fnuz = "f8e4m3fnuz",
        F8e8m0fnu = "f8e8m0fnu",
        F6e3m2fn = "f6e3m2fn",
        F6e2m3fn = "f6e2m3fn",
        F4e2m1fn = "f4e2m1fn",
    }
}

#[test]
fn the_table_covers_every_narrow_float() {
    let tables = tables();
    let names: Vec<&str> = tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, all().map(|c| c.name));
    for t in &tables {
        let ty = xlayout::PrimitiveType::from_name(&t.name).unwrap();
        let width = xlayout::element_packed_bits(ty).unwrap_or(ty.bit_width());
        assert_eq!(t.bits, width, "{}", t.name);
        assert_eq!(t.to_f32.len(), 1 << t.bits, "{}", t.name);
    }
}

#[test]
fn to_f32_of_every_encoding() {
    let tables = tables();
    for c in all() {
        let t = table(&tables, c.name);
        for (code, &expected) in t.to_f32.iter().enumerate() {
            let code = code as u8;
            let got = (c.from_bits_to_f32)(code);
            assert_eq!(
                got, expected,
                "{} {code:#04x}: {got:#010x}, ml_dtypes {expected:#010x}",
                c.name
            );
            assert_eq!((c.round_trip_bits)(code), code, "{}", c.name);
        }
    }
}

#[test]
fn from_f32_at_both_ends_and_the_middle_of_every_run() {
    let tables = tables();
    for c in all() {
        let t = table(&tables, c.name);
        for (i, &(start, byte)) in t.runs.iter().enumerate() {
            let end = t.runs.get(i + 1).map_or(u32::MAX, |r| r.0 - 1);
            for x in [start, start + (end - start) / 2, end] {
                let got = (c.from_f32)(x);
                assert_eq!(
                    got,
                    byte,
                    "{} from_f32({x:#010x} = {:e}): {got:#04x}, ml_dtypes {byte:#04x}",
                    c.name,
                    f32::from_bits(x)
                );
            }
        }
    }
}

#[test]
fn from_f32_of_a_million_random_patterns_per_type() {
    let tables = tables();
    for c in all() {
        let t = table(&tables, c.name);
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..1 << 20 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let x = (state >> 16) as u32;
            assert_eq!((c.from_f32)(x), t.encode(x), "{} from_f32({x:#010x})", c.name);
        }
    }
}
