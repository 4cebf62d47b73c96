//! Every case of tests/data/primitive_types.json: each of XLA's 36 element types by enum
//! value and text name, with its bit and byte width, and whether the parser takes it.

use serde_json::Value;
use xlayout::{PrimitiveType, Shape};

#[test]
fn every_primitive_type_matches_xla() {
    let doc: Value = serde_json::from_str(include_str!("data/primitive_types.json")).unwrap();
    let cases = doc["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 36);
    assert_eq!(PrimitiveType::ALL.len(), 36);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let value = case["enum"].as_i64().unwrap() as i32;
        let t = PrimitiveType::from_enum_value(value).unwrap_or_else(|| panic!("enum {value}"));
        assert_eq!(t.name(), name);
        assert_eq!(t.enum_value(), value);
        assert_eq!(t.to_string(), name);
        let array_type = case["array_type"].as_bool().unwrap();
        assert_eq!(t.is_array_type(), array_type, "{name}");
        if array_type {
            assert_eq!(u64::from(t.bit_width()), case["bit_width"].as_u64().unwrap(), "{name}");
            assert_eq!(u64::from(t.byte_width()), case["byte_width"].as_u64().unwrap(), "{name}");
            let packable = case["sub_byte_packable"].as_bool().unwrap();
            assert_eq!(t.is_sub_byte(), packable, "{name}");
            assert_eq!(name.parse::<PrimitiveType>(), Ok(t));
        }
        // `name[3]` parses exactly for array types; `name[]` for token and opaque.
        let accepts = case["parser_accepts"].as_bool().unwrap_or(false);
        let array = format!("{name}[3]");
        assert_eq!(array.parse::<Shape>().is_ok(), accepts, "{array}");
        if let Some(scalar_form) = case["parser_accepts_scalar_form"].as_bool() {
            let scalar = format!("{name}[]");
            assert_eq!(scalar.parse::<Shape>().is_ok(), scalar_form, "{scalar}");
            if scalar_form {
                assert_eq!(scalar.parse::<Shape>().unwrap().to_string(), scalar);
            }
        }
    }
    // Text names are lower case only, and `opaque_type` is not one.
    for bad in ["F32", "Bf16", "opaque_type", "tuple", "buffer", "invalid"] {
        assert_eq!(PrimitiveType::from_name(bad), None, "{bad}");
    }
}
