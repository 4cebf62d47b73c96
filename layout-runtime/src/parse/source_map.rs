//! Where each part of a parsed shape stands in its text.

use alloc::collections::BTreeMap;
use core::ops::Range;

use crate::{Error, Location, Path};

/// Where each part of a parsed shape stands in its text: the byte range of every element
/// type, dimension, minor_to_major entry, tile, tile entry and field value.
///
/// [`Shape::parse_with_source_map`](crate::Shape::parse_with_source_map) returns one; [`SourceMap::locate`] gives an error of the
/// validator the byte range of the text it is about.
///
/// ```
/// use layout_runtime::{Location, Path, Shape};
/// let (_, map) = Shape::parse_with_source_map("f32[3,5]{1,0:T(2,2)}").unwrap();
/// let at = Path { tuple_indices: vec![], location: Location::TileDim { tile: 0, dim: 1 } };
/// assert_eq!(map.span(&at), Some(17..18));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceMap {
    /// Tuple elements as nodes of a tree: `(parent, index in the parent)` to the node's
    /// number; the top level is node 0. A path is stored once, not copied per part, so the
    /// map is linear in the text however deep its tuples.
    nodes: BTreeMap<(usize, usize), usize>,
    /// The byte range of each part, by node and location.
    spans: BTreeMap<(usize, Location), Range<usize>>,
}

impl SourceMap {
    /// The byte range of the part at `path`, if the text had one.
    ///
    /// ```
    /// use layout_runtime::{Location, Path, Shape};
    /// let (_, map) = Shape::parse_with_source_map("(f32[2], s8[7])").unwrap();
    /// let at = Path { tuple_indices: vec![1], location: Location::Dim(0) };
    /// assert_eq!(map.span(&at), Some(12..13));
    /// ```
    pub fn span(&self, path: &Path) -> Option<Range<usize>> {
        let mut node = 0;
        for &index in &path.tuple_indices {
            node = *self.nodes.get(&(node, index))?;
        }
        self.spans.get(&(node, path.location)).cloned()
    }

    /// Gives `error` the byte range of the part its path names (falling back to the whole
    /// layout, then the whole shape, when that part has no text of its own, e.g. a default
    /// layout). An error that already has a span is returned unchanged.
    ///
    /// ```
    /// use layout_runtime::Shape;
    /// let (shape, map) = Shape::parse_with_source_map("f32[3,5]{1,1}").unwrap();
    /// let err = map.locate(shape.validate().unwrap_err());
    /// assert_eq!(err.span(), Some(11..12));
    /// ```
    pub fn locate(&self, error: Error) -> Error {
        if error.span().is_some() {
            return error;
        }
        let Some(path) = error.path().cloned() else {
            return error;
        };
        let fallbacks = [path.location, Location::Layout, Location::Shape];
        for location in fallbacks {
            let p = Path { tuple_indices: path.tuple_indices.clone(), location };
            if let Some(span) = self.span(&p) {
                return error.with_span(span);
            }
        }
        error
    }

    /// Records the first range given for a part (later ones are the same part re-read).
    pub(super) fn record(&mut self, node: usize, location: Location, span: Range<usize>) {
        self.spans.entry((node, location)).or_insert(span);
    }

    /// The node of element `index` of the tuple at `parent`.
    pub(super) fn child(&mut self, parent: usize, index: usize) -> usize {
        let next = self.nodes.len() + 1;
        *self.nodes.entry((parent, index)).or_insert(next)
    }
}
