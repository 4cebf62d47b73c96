#![doc = include_str!("../README.md")]
//!
//! This crate is the facade: it re-exports [`layout_runtime`], where all the semantics live.
#![no_std]
#![warn(missing_docs)]

pub use layout_runtime::*;
