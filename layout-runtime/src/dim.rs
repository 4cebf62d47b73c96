//! The entries of dimension lists and tiles: plain values, usable without `alloc`.

/// One dimension of an array shape.
///
/// ```
/// use layout_runtime::Dim;
/// assert_eq!(Dim::Bounded(8).bound(), Some(8));
/// assert_eq!(Dim::Unbounded.bound(), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// A static size, `5`.
    Static(u64),
    /// A dynamic size with an upper bound, `<=5`; sized by its bound.
    Bounded(u64),
    /// An unbounded dynamic size, `?`; nothing can be sized or addressed.
    Unbounded,
}

impl Dim {
    /// The size used for storage: the static size or the bound; `None` for `?`.
    ///
    /// ```
    /// use layout_runtime::Dim;
    /// assert_eq!(Dim::Static(3).bound(), Some(3));
    /// ```
    pub const fn bound(self) -> Option<u64> {
        match self {
            Dim::Static(n) | Dim::Bounded(n) => Some(n),
            Dim::Unbounded => None,
        }
    }

    /// Whether the size is dynamic (`<=N` or `?`).
    ///
    /// ```
    /// use layout_runtime::Dim;
    /// assert!(Dim::Bounded(4).is_dynamic() && !Dim::Static(4).is_dynamic());
    /// ```
    pub const fn is_dynamic(self) -> bool {
        !matches!(self, Dim::Static(_))
    }
}

/// One entry of a tile: a size, or `*` (`Tile::kCombineDimension`, which merges that
/// dimension into the next more-minor one before tiling).
///
/// ```
/// use layout_runtime::TileDim;
/// assert_eq!(TileDim::Size(128).size(), Some(128));
/// assert_eq!(TileDim::Combine.size(), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileDim {
    /// A tile size. XLA's verifier requires it to be positive.
    Size(u64),
    /// `*`: combine with the next more-minor dimension.
    Combine,
}

impl TileDim {
    /// The size, or `None` for `*`.
    ///
    /// ```
    /// assert_eq!(layout_runtime::TileDim::Size(8).size(), Some(8));
    /// ```
    pub const fn size(self) -> Option<u64> {
        match self {
            TileDim::Size(n) => Some(n),
            TileDim::Combine => None,
        }
    }
}
