//! A row struct serialized field by field into named [`Cell`]s: the TSV and CSV rows and
//! the table's columns, named as the JSON keys of the same struct.

use std::fmt;

use serde::ser::{self, Impossible, Serialize, SerializeMap, SerializeSeq, SerializeStruct};
use xlayout::hlo::{Percent, Ratio};

use super::super::io::Failure;
use super::cell::Cell;

/// The fields of a row (a struct or map of scalars and lists of scalars), in order: the
/// keys as serde names them, the values as [`Cell`]s.
pub fn flat<T: Serialize + ?Sized>(row: &T) -> Result<Vec<(String, Cell)>, Failure> {
    let mut cells = Vec::new();
    row.serialize(Flat(&mut cells)).map_err(|e| Failure::Output(std::io::Error::other(e.0)))?;
    Ok(cells)
}

/// Why a value is not a flat row.
#[derive(Debug)]
pub struct NotFlat(String);

impl fmt::Display for NotFlat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotFlat {}

impl ser::Error for NotFlat {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        NotFlat(msg.to_string())
    }
}

fn not_flat<T>(what: &str) -> Result<T, NotFlat> {
    Err(NotFlat(format!("a row field holds {what}, which no cell can")))
}

/// Serializes a row: a struct's fields, or a map's entries (what `#[serde(flatten)]`
/// makes), into `(key, cell)` pairs.
struct Flat<'c>(&'c mut Vec<(String, Cell)>);

macro_rules! not_a_row {
    ($($method:ident($($arg:ty),*)),* $(,)?) => {
        $(fn $method(self, $(_: $arg),*) -> Result<(), NotFlat> { not_flat("a scalar as a whole row") })*
    };
}

impl<'c> ser::Serializer for Flat<'c> {
    type Ok = ();
    type Error = NotFlat;
    type SerializeSeq = Impossible<(), NotFlat>;
    type SerializeTuple = Impossible<(), NotFlat>;
    type SerializeTupleStruct = Impossible<(), NotFlat>;
    type SerializeTupleVariant = Impossible<(), NotFlat>;
    type SerializeMap = FlatMap<'c>;
    type SerializeStruct = FlatMap<'c>;
    type SerializeStructVariant = Impossible<(), NotFlat>;

    not_a_row!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), NotFlat> {
        value.serialize(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), NotFlat> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), NotFlat> {
        not_flat("an enum with data")
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, NotFlat> {
        not_flat("a list as a whole row")
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, NotFlat> {
        not_flat("a tuple")
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, NotFlat> {
        not_flat("a tuple")
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, NotFlat> {
        not_flat("an enum with data")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<FlatMap<'c>, NotFlat> {
        Ok(FlatMap { cells: self.0, key: None })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<FlatMap<'c>, NotFlat> {
        Ok(FlatMap { cells: self.0, key: None })
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, NotFlat> {
        not_flat("an enum with data")
    }
}

/// The fields of a row being serialized.
struct FlatMap<'c> {
    cells: &'c mut Vec<(String, Cell)>,
    key: Option<String>,
}

impl SerializeMap for FlatMap<'_> {
    type Ok = ();
    type Error = NotFlat;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), NotFlat> {
        match key.serialize(ToCell)? {
            Cell::Text(k) => self.key = Some(k),
            _ => return not_flat("a key that is not text"),
        }
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), NotFlat> {
        let key = self.key.take().unwrap_or_default();
        self.cells.push((key, value.serialize(ToCell)?));
        Ok(())
    }
    fn end(self) -> Result<(), NotFlat> {
        Ok(())
    }
}

impl SerializeStruct for FlatMap<'_> {
    type Ok = ();
    type Error = NotFlat;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), NotFlat> {
        self.cells.push((key.to_string(), value.serialize(ToCell)?));
        Ok(())
    }
    fn end(self) -> Result<(), NotFlat> {
        Ok(())
    }
}

/// Serializes one field's value into a [`Cell`].
struct ToCell;

impl ser::Serializer for ToCell {
    type Ok = Cell;
    type Error = NotFlat;
    type SerializeSeq = CellList;
    type SerializeTuple = Impossible<Cell, NotFlat>;
    type SerializeTupleStruct = Impossible<Cell, NotFlat>;
    type SerializeTupleVariant = Impossible<Cell, NotFlat>;
    type SerializeMap = Impossible<Cell, NotFlat>;
    type SerializeStruct = Impossible<Cell, NotFlat>;
    type SerializeStructVariant = Impossible<Cell, NotFlat>;

    fn serialize_bool(self, v: bool) -> Result<Cell, NotFlat> {
        Ok(Cell::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Cell, NotFlat> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<Cell, NotFlat> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<Cell, NotFlat> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<Cell, NotFlat> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_u8(self, v: u8) -> Result<Cell, NotFlat> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<Cell, NotFlat> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<Cell, NotFlat> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<Cell, NotFlat> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_f32(self, v: f32) -> Result<Cell, NotFlat> {
        Ok(Cell::Float(v.into()))
    }
    fn serialize_f64(self, v: f64) -> Result<Cell, NotFlat> {
        Ok(Cell::Float(v))
    }
    fn serialize_char(self, v: char) -> Result<Cell, NotFlat> {
        Ok(Cell::Text(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Cell, NotFlat> {
        Ok(Cell::Text(v.to_string()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Cell, NotFlat> {
        Ok(Cell::Text(String::from_utf8_lossy(v).into_owned()))
    }
    fn serialize_none(self) -> Result<Cell, NotFlat> {
        Ok(Cell::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Cell, NotFlat> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Cell, NotFlat> {
        Ok(Cell::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Cell, NotFlat> {
        Ok(Cell::Null)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Cell, NotFlat> {
        Ok(Cell::Text(variant.to_string()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<Cell, NotFlat> {
        let inner = value.serialize(ToCell)?;
        Ok(match (name, inner) {
            (Ratio::SERDE_NAME, Cell::Float(x)) => Cell::Ratio(x),
            (Percent::SERDE_NAME, Cell::Float(x)) => Cell::Percent(x),
            (_, other) => other,
        })
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Cell, NotFlat> {
        not_flat("an enum with data")
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<CellList, NotFlat> {
        Ok(CellList(Vec::new()))
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, NotFlat> {
        not_flat("a tuple")
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, NotFlat> {
        not_flat("a tuple")
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, NotFlat> {
        not_flat("an enum with data")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, NotFlat> {
        not_flat("an object")
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, NotFlat> {
        not_flat("an object")
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, NotFlat> {
        not_flat("an enum with data")
    }
}

/// A list field's elements.
struct CellList(Vec<Cell>);

impl SerializeSeq for CellList {
    type Ok = Cell;
    type Error = NotFlat;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), NotFlat> {
        match value.serialize(ToCell)? {
            Cell::List(_) => not_flat("a list of lists"),
            cell => {
                self.0.push(cell);
                Ok(())
            }
        }
    }
    fn end(self) -> Result<Cell, NotFlat> {
        Ok(Cell::List(self.0))
    }
}

/// The keys of a row type, for a test to compare with its columns.
#[cfg(test)]
pub fn keys<T: Serialize>(row: &T) -> Vec<String> {
    flat(row).unwrap().into_iter().map(|(k, _)| k).collect()
}

#[cfg(test)]
mod tests {
    use super::super::super::args::Format;
    use super::super::cell::{record, tsv_escape};
    use super::*;

    #[test]
    fn cells_and_escapes() {
        #[derive(serde::Serialize)]
        struct Inner {
            n: u64,
        }
        #[derive(serde::Serialize)]
        struct Row<'a> {
            text: &'a str,
            none: Option<u64>,
            yes: bool,
            list: Vec<u32>,
            words: Vec<&'a str>,
            #[serde(flatten)]
            inner: Inner,
        }
        let row = Row {
            text: "=1+2\t\0x",
            none: None,
            yes: true,
            list: vec![1, 0],
            words: vec!["a,b", "c"],
            inner: Inner { n: 7 },
        };
        let cells = flat(&row).unwrap();
        let keys: Vec<&str> = cells.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["text", "none", "yes", "list", "words", "n"]);
        let values: Vec<Cell> = cells.into_iter().map(|(_, v)| v).collect();
        assert_eq!(record(Format::Tsv, &values), "=1+2\\t\\x00x\t-\tyes\t1,0\ta,b; c\t7\n");
        assert_eq!(record(Format::Csv, &values), "\"'=1+2\\t\\x00x\",-,yes,\"1,0\",\"a,b; c\",7\n");
        // Line ends, NUL, a lone `\r` before a formula, backslashes: escaped in CSV as in TSV.
        let hostile = [Cell::Text("a\nb\0c\u{1b}\\d".into()), Cell::Text("\r=cmd".into())];
        assert_eq!(record(Format::Csv, &hostile), "a\\nb\\x00c\\x1b\\\\d,\\r=cmd\n");
        assert_eq!(record(Format::Tsv, &hostile), "a\\nb\\x00c\\x1b\\\\d\t\\r=cmd\n");
        let plain = [Cell::Text("-".into()), Cell::Null, Cell::Text("@x".into()), Cell::Int(-1)];
        assert_eq!(record(Format::Csv, &plain), "\"'-\",-,\"'@x\",-1\n");
        let mut s = String::new();
        tsv_escape("a\u{7f}\u{85}\\", &mut s);
        assert_eq!(s, "a\\x7f\\u{0085}\\\\");
    }
}
