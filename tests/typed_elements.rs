//! Every XLA element type written and read through `layout!`, with the exact bits it stores:
//! each of the 32 array types one element per storage item (typed `Buffer`s), and the ten
//! that pack below a byte through `E(n)` (`PackedBuffer`s). The narrow floats' expected bits
//! come from `ml_dtypes` (tests/data/minifloats.txt); every other expected value is derived in
//! a comment.

use xlayout::fixed::{InlineLayout, PackedLayout, TypedLayout};
use xlayout::{
    bf16, f16, layout, Buffer, Element, F4e2m1fn, F6e2m3fn, F6e3m2fn, F8e3m4, F8e4m3,
    F8e4m3b11fnuz, F8e4m3fn, F8e4m3fnuz, F8e5m2, F8e5m2fnuz, F8e8m0fnu, Float, PackedBuffer,
    StaticLayout, S1, S2, S4, U1, U2, U4,
};

use crate::support::minifloats as minifloat_table;

layout! {
    struct Pred = pred[3];
    struct S8 = s8[3];
    struct S16 = s16[3];
    struct S32 = s32[3];
    struct S64 = s64[3];
    struct U8 = u8[3];
    struct U16 = u16[3];
    struct U32 = u32[3];
    struct U64 = u64[3];
    struct F16 = f16[3];
    struct Bf16 = bf16[3]{0:T(2)};
    struct F32 = f32[3];
    struct F64 = f64[3];
    struct C64 = c64[3];
    struct C128 = c128[3];
    struct S4x = s4[3];
    struct U4x = u4[3];
    struct S2x = s2[3];
    struct U2x = u2[3];
    struct S1x = s1[3];
    struct U1x = u1[3];
    struct F8e5m2x = f8e5m2[3];
    struct F8e4m3x = f8e4m3[3];
    struct F8e4m3fnx = f8e4m3fn[3];
    struct F8e4m3b11fnuzx = f8e4m3b11fnuz[3];
    struct F8e3m4x = f8e3m4[3];
    struct F8e5m2fnuzx = f8e5m2fnuz[3];
    struct F8e4m3fnuzx = f8e4m3fnuz[3];
    struct F8e8m0fnux = f8e8m0fnu[3];
    struct F6e3m2fnx = f6e3m2fn[3];
    struct F6e2m3fnx = f6e2m3fn[3];
    struct F4e2m1fnx = f4e2m1fn[3];
}

/// Writes `value` at index 1 of a typed buffer of `L` and reads it back: the element, its
/// stored bits, and zeros around it.
fn round_trip<L: TypedLayout<Index = [usize; 1]> + InlineLayout>(
    value: L::Elem,
    bits: <L::Elem as Element>::Bits,
) where
    L::Elem: PartialOrd + core::fmt::Debug,
{
    let mut buf = Buffer::<L>::zeroed();
    buf[[1]] = value;
    // By value (a NaN reads back as a NaN; its bits are checked below).
    let nan = value.partial_cmp(&value).is_none();
    assert!(buf[[1]] == value || nan, "{} {:?}", L::TEXT, buf[[1]]);
    assert_eq!(buf.bits()[L::LAYOUT.offset([1])], bits, "{}", L::TEXT);
    let zeros = Buffer::<L>::zeroed();
    let zero = zeros.bits()[0];
    assert_eq!(buf.bits()[L::LAYOUT.offset([0])], zero, "{}", L::TEXT);
    assert_eq!(buf.bits()[L::LAYOUT.offset([2])], zero, "{}", L::TEXT);
}

#[test]
fn every_type_of_a_byte_or_more_and_the_unpacked_sub_byte_types() {
    // Every array type has a layout above, of its own typed element.
    let types = [
        Pred::ELEMENT_TYPE,
        S8::ELEMENT_TYPE,
        S16::ELEMENT_TYPE,
        S32::ELEMENT_TYPE,
        S64::ELEMENT_TYPE,
        U8::ELEMENT_TYPE,
        U16::ELEMENT_TYPE,
        U32::ELEMENT_TYPE,
        U64::ELEMENT_TYPE,
        F16::ELEMENT_TYPE,
        Bf16::ELEMENT_TYPE,
        F32::ELEMENT_TYPE,
        F64::ELEMENT_TYPE,
        C64::ELEMENT_TYPE,
        C128::ELEMENT_TYPE,
        S4x::ELEMENT_TYPE,
        U4x::ELEMENT_TYPE,
        S2x::ELEMENT_TYPE,
        U2x::ELEMENT_TYPE,
        S1x::ELEMENT_TYPE,
        U1x::ELEMENT_TYPE,
        F8e5m2x::ELEMENT_TYPE,
        F8e4m3x::ELEMENT_TYPE,
        F8e4m3fnx::ELEMENT_TYPE,
        F8e4m3b11fnuzx::ELEMENT_TYPE,
        F8e3m4x::ELEMENT_TYPE,
        F8e5m2fnuzx::ELEMENT_TYPE,
        F8e4m3fnuzx::ELEMENT_TYPE,
        F8e8m0fnux::ELEMENT_TYPE,
        F6e3m2fnx::ELEMENT_TYPE,
        F6e2m3fnx::ELEMENT_TYPE,
        F4e2m1fnx::ELEMENT_TYPE,
    ];
    let all: Vec<_> = xlayout::PrimitiveType::ALL.iter().filter(|t| t.is_array_type()).collect();
    assert_eq!(types.len(), all.len());
    assert!(all.iter().all(|t| types.contains(t)));

    round_trip::<Pred>(true, 1);
    round_trip::<S8>(-2, 0xfe); // two's complement
    round_trip::<S16>(-2, 0xfffe);
    round_trip::<S32>(-2, 0xffff_fffe);
    round_trip::<S64>(i64::MIN, 1 << 63);
    round_trip::<U8>(200, 200);
    round_trip::<U16>(0xbeef, 0xbeef);
    round_trip::<U32>(0xdead_beef, 0xdead_beef);
    round_trip::<U64>(u64::MAX, u64::MAX);
    // IEEE half 1.0: sign 0, exponent 15 (bias 15) = 0b01111, mantissa 0.
    round_trip::<F16>(f16::from_f32(1.0), 0x3c00);
    // bfloat16 is the top half of the f32: 1.0f32 = 0x3f80_0000. A user's own `half`
    // dependency names the same type as `xlayout::bf16`.
    round_trip::<Bf16>(half::bf16::from_f32(1.0), 0x3f80);
    round_trip::<Bf16>(bf16::from_f32(1.0), 0x3f80);
    round_trip::<Bf16>(Float::from_f32(-2.5), 0xc020); // -2.5f32 = 0xc020_0000
    round_trip::<F32>(1.5, 0x3fc0_0000); // exponent 127, mantissa .1
    round_trip::<F64>(1.5, 0x3ff8_0000_0000_0000); // exponent 1023, mantissa .1
    round_trip::<C64>([1.0, -2.0], [0x3f80_0000, 0xc000_0000]);
    round_trip::<C128>([1.0, -2.0], [0x3ff0_0000_0000_0000, 0xc000_0000_0000_0000]);
    // Sub-byte integers one per byte hold their value in the low bits, as ml_dtypes does.
    round_trip::<S4x>(S4::new(-3).unwrap(), 0x0d); // -3 = 0b1101
    round_trip::<U4x>(U4::new(9).unwrap(), 0x09);
    round_trip::<S2x>(S2::new(-1).unwrap(), 0x03);
    round_trip::<U2x>(U2::new(2).unwrap(), 0x02);
    round_trip::<S1x>(S1::new(-1).unwrap(), 0x01);
    round_trip::<U1x>(U1::new(1).unwrap(), 0x01);
}

/// `ml_dtypes`'s encoding of `x` in the type XLA names `name`.
fn ml_dtypes(name: &str, x: f32) -> u8 {
    let tables = minifloat_table::tables();
    minifloat_table::table(&tables, name).encode(x.to_bits())
}

#[test]
fn every_narrow_float_from_a_literal() {
    for x in [1.0f32, -1.5, 0.1, 3.0e4] {
        round_trip::<F8e5m2x>(F8e5m2::from_f32(x), ml_dtypes("f8e5m2", x));
        round_trip::<F8e4m3x>(F8e4m3::from_f32(x), ml_dtypes("f8e4m3", x));
        round_trip::<F8e4m3fnx>(F8e4m3fn::from_f32(x), ml_dtypes("f8e4m3fn", x));
        round_trip::<F8e4m3b11fnuzx>(F8e4m3b11fnuz::from_f32(x), ml_dtypes("f8e4m3b11fnuz", x));
        round_trip::<F8e3m4x>(F8e3m4::from_f32(x), ml_dtypes("f8e3m4", x));
        round_trip::<F8e5m2fnuzx>(F8e5m2fnuz::from_f32(x), ml_dtypes("f8e5m2fnuz", x));
        round_trip::<F8e4m3fnuzx>(F8e4m3fnuz::from_f32(x), ml_dtypes("f8e4m3fnuz", x));
        round_trip::<F6e3m2fnx>(F6e3m2fn::from_f32(x), ml_dtypes("f6e3m2fn", x));
        round_trip::<F6e2m3fnx>(F6e2m3fn::from_f32(x), ml_dtypes("f6e2m3fn", x));
        round_trip::<F4e2m1fnx>(F4e2m1fn::from_f32(x), ml_dtypes("f4e2m1fn", x));
    }
    // f8e8m0fnu has no sign: powers of two (1.0 is 2^0, encoding 127).
    for x in [1.0f32, 0.25, 2.0e30] {
        round_trip::<F8e8m0fnux>(F8e8m0fnu::from_f32(x), ml_dtypes("f8e8m0fnu", x));
    }
    assert_eq!(ml_dtypes("f8e4m3fn", 1.0), 0x38); // exponent 7 (bias 7), mantissa 0
    assert_eq!(ml_dtypes("f8e8m0fnu", 1.0), 127);
}

layout! {
    struct PredE1 = pred[9]{0:E(1)};
    struct S4E4 = s4[3]{0:E(4)};
    struct U4E4 = u4[3]{0:E(4)};
    struct S2E2 = s2[5]{0:E(2)};
    struct U2E2 = u2[5]{0:E(2)};
    struct S1E1 = s1[9]{0:E(1)};
    struct U1E1 = u1[9]{0:E(1)};
    struct F4E4 = f4e2m1fn[3]{0:E(4)};
    struct F6a = f6e3m2fn[3]{0:E(6)};
    struct F6b = f6e2m3fn[3]{0:E(6)};
}

/// Writes `value` at the last index of a packed buffer of zeros: the bytes must be
/// `expected`, and the element must read back.
fn packed<L: PackedLayout<Index = [usize; 1]> + InlineLayout>(value: L::Elem, expected: &[u8])
where
    L::Elem: PartialEq + core::fmt::Debug,
{
    let mut buf = PackedBuffer::<L>::zeroed();
    let last = L::DIMS[0] - 1;
    buf.set([last], value);
    assert_eq!(buf.read([last]), value, "{}", L::TEXT);
    assert_eq!(buf.get([0]), Some(<L::Elem as Element>::ZERO), "{}", L::TEXT);
    assert_eq!(buf.as_bytes(), expected, "{}", L::TEXT);
}

#[test]
fn every_sub_byte_type_packed() {
    // Element k sits at bits k*n.. of the little-endian bit stream (xla/packing.cc).
    packed::<PredE1>(true, &[0, 1]); // element 8: bit 0 of byte 1
    packed::<S4E4>(S4::new(-3).unwrap(), &[0, 0x0d]); // element 2: low nibble of byte 1
    packed::<U4E4>(U4::new(9).unwrap(), &[0, 0x09]);
    packed::<S2E2>(S2::new(-2).unwrap(), &[0, 0b10]); // element 4: bits 0..2 of byte 1
    packed::<U2E2>(U2::new(3).unwrap(), &[0, 0b11]);
    packed::<S1E1>(S1::new(-1).unwrap(), &[0, 1]);
    packed::<U1E1>(U1::new(1).unwrap(), &[0, 1]);
    let f4 = ml_dtypes("f4e2m1fn", -1.5); // 0b1011: sign, exponent 1, mantissa 1
    assert_eq!(f4, 0b1011);
    packed::<F4E4>(F4e2m1fn::from_f32(-1.5), &[0, f4]);
    // Element 2 of a 6-bit stream: bits 12..18, the high nibble of byte 1 and 2 bits of byte 2.
    let (a, b) = (ml_dtypes("f6e3m2fn", 3.0), ml_dtypes("f6e2m3fn", -3.0));
    packed::<F6a>(F6e3m2fn::from_f32(3.0), &[0, a << 4, a >> 4]);
    packed::<F6b>(F6e2m3fn::from_f32(-3.0), &[0, b << 4, b >> 4]);
    // The bytes hold exactly what the runtime's general bit reader reads.
    let mut buf = PackedBuffer::<S2E2>::zeroed();
    for (k, v) in [-2i8, -1, 0, 1, -2].into_iter().enumerate() {
        buf.set([k], S2::new(v).unwrap());
    }
    let shape = S2E2::TEXT.parse::<xlayout::Shape>().unwrap();
    let plan = shape.try_array().unwrap().plan().unwrap();
    for (k, v) in [-2i8, -1, 0, 1, -2].into_iter().enumerate() {
        let raw = plan.read_packed(buf.as_bytes(), &[k]).unwrap();
        assert_eq!(raw, u64::from(v as u8 & 0b11), "{k}");
    }
}
