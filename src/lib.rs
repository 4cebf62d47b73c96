//! xlayout: XLA's array shapes and tiled layouts in Rust.
//!
//! The text XLA prints in HLO dumps (`bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}`), parsed
//! and printed byte for byte as XLA does, validated with XLA's rules, sized with XLA's size
//! functions, and addressed with the index map of XLA's tiled layouts.
//!
//! ```
//! use xlayout::Shape;
//!
//! let s: Shape = "f32[3,5]{1,0:T(2,2)}".parse()?;
//! let a = s.as_array().unwrap();
//! assert_eq!(a.byte_size()?, 96); // XLA's ShapeUtil::ArraySize: 2x3 tiles of 2x2 f32
//!
//! let bad = "f32[3,5]{1,0:T(0,2)}".parse::<Shape>().unwrap_err();
//! assert_eq!(bad.span(), Some(15..16)); // points at the `0`
//! # Ok::<(), xlayout::Error>(())
//! ```
//!
//! This crate is the facade: it re-exports [`layout_runtime`], where all the semantics live.
#![no_std]

pub use layout_runtime::*;
