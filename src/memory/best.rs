//! The layout that pads least: the same dimensions and tiles in another physical order,
//! found by sizing every order that can change the size (E0102 of XLA's error docs).

use serde::Serialize;

use crate::{ArrayShape, TileDim};

/// A layout that pads less: the same dimensions and tiles in another physical order.
///
/// ```
/// use xlayout::hlo::best_layout;
/// let a: xlayout::ArrayShape = "bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}".parse()?;
/// let best = best_layout(&a, &mut 1_000_000).unwrap().unwrap();
/// assert_eq!((best.layout.as_str(), best.array_bytes), ("{1,2,0:T(8,128)(2,1)}", 1_638_400));
/// # Ok::<(), xlayout::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BestLayout {
    /// The layout, as XLA prints it.
    pub layout: String,
    /// The whole shape with that layout.
    pub shape: String,
    /// Its `ArraySize`.
    pub array_bytes: u64,
}

/// At most this many orders are sized for one shape.
pub const MAX_CANDIDATES: u64 = 5040;

/// At most this many orders are sized for a whole module: bounded time on any input.
pub const MODULE_CANDIDATE_BUDGET: u64 = 2_000_000;

/// The order of the same dimensions under the same tiles (and every other layout field)
/// with the smallest `ArraySize`, as E0102 of XLA's error docs suggests trying; ties go to
/// the order that moves fewest dimensions, then to the smallest minor_to_major.
///
/// Only the dimensions under first-tile entries larger than 1 change the size (the others
/// multiply in unchanged), so the search sizes every choice of which dimensions go there
/// — n!/(n-m)! orders for rank n and m such entries, each with [`ArrayShape::byte_size`]
/// — and keeps the other dimensions in their order. It is exact at any rank.
///
/// `Ok(None)`: nothing to search (no tiling padding, or a split config, whose physical
/// dimension numbers an order change would move). `Err(reason)`: not searched, because it
/// needs more than [`MAX_CANDIDATES`] orders or more than `budget` remain; `budget` is
/// reduced by the orders sized.
///
/// ```
/// use xlayout::hlo::best_layout;
/// let a: xlayout::ArrayShape = "s32[8388608,8,4]{2,1,0:T(8,128)}".parse().unwrap();
/// let mut budget = 100;
/// let best = best_layout(&a, &mut budget)?.unwrap();
/// assert_eq!((best.shape.as_str(), best.array_bytes), ("s32[8388608,8,4]{0,1,2:T(8,128)}", 1_073_741_824));
/// assert_eq!(budget, 94); // 3 x 2 orders sized
/// let a: xlayout::ArrayShape = "f32[8,128]{1,0:T(8,128)}".parse().unwrap();
/// assert_eq!(best_layout(&a, &mut budget)?, None); // nothing pads
/// # Ok::<(), String>(())
/// ```
pub fn best_layout(a: &ArrayShape, budget: &mut u64) -> Result<Option<BestLayout>, String> {
    let Ok((size, walk)) = a.check().and_then(|c| Ok((c.byte_size()?, c.array_size_walk()?)))
    else {
        return Ok(None);
    };
    if walk.dims.iter().all(|d| d.padded == d.size) {
        return Ok(None);
    }
    let layout = a.layout_or_default();
    if !layout.split_configs.is_empty() {
        return Ok(None);
    }
    let Some(tile) = layout.tiles.first() else { return Ok(None) };
    let rank = a.rank();
    // Physical positions (from the most minor) under a tile entry > 1.
    let n = tile.dims.len();
    let under: Vec<usize> = (0..n.min(rank))
        .filter(|&p| !matches!(tile.dims[n - 1 - p], TileDim::Size(0 | 1)))
        .collect();
    let m = under.len();
    let mut count: u64 = 1;
    for k in 0..m {
        count = count.saturating_mul((rank - k) as u64);
    }
    if count > MAX_CANDIDATES {
        return Err(format!(
            "not searched: {count} orders (rank {rank}, {m} tile entries above 1) exceed the limit of {MAX_CANDIDATES}"
        ));
    }
    if count > *budget {
        return Err(String::from("not searched: the module's search budget is spent"));
    }
    *budget -= count;

    let original: Vec<i64> = layout.minor_to_major.clone();
    let mut search = Search {
        under: &under,
        original: &original,
        trial: a.clone(),
        best: None,
        chosen: Vec::with_capacity(m),
        used: vec![false; rank],
    };
    search.visit();
    let Some((bytes, _, order)) = search.best else { return Ok(None) };
    if bytes >= size || order == original {
        return Ok(None);
    }
    let mut winner = a.clone();
    if let Some(l) = winner.layout.as_mut() {
        l.minor_to_major = order;
    }
    if winner.check().is_err() {
        return Ok(None);
    }
    let layout = winner.layout_or_default().to_string();
    Ok(Some(BestLayout { layout, shape: winner.to_string(), array_bytes: bytes }))
}

/// The depth-first walk of [`best_layout`] over injective choices of dimensions for the
/// positions under tile entries above 1.
struct Search<'a> {
    under: &'a [usize],
    original: &'a [i64],
    trial: ArrayShape,
    /// (bytes, dimensions moved, minor_to_major) of the best order so far.
    best: Option<(u64, usize, Vec<i64>)>,
    chosen: Vec<i64>,
    used: Vec<bool>,
}

impl Search<'_> {
    fn visit(&mut self) {
        if self.chosen.len() < self.under.len() {
            for d in 0..self.used.len() {
                if !self.used[d] {
                    self.used[d] = true;
                    self.chosen.push(d as i64);
                    self.visit();
                    self.chosen.pop();
                    self.used[d] = false;
                }
            }
            return;
        }
        // Fill the other positions with the remaining dimensions in their order.
        let mut rest = self.original.iter().copied().filter(|&d| !self.used[d as usize]);
        let order: Vec<i64> = (0..self.original.len())
            .map(|p| match self.under.iter().position(|&u| u == p) {
                Some(i) => self.chosen[i],
                None => rest.next().expect("one dimension per position"),
            })
            .collect();
        if let Some(l) = self.trial.layout.as_mut() {
            l.minor_to_major.clone_from(&order);
        }
        if let Ok(bytes) = self.trial.byte_size() {
            let moved = order.iter().zip(self.original).filter(|(a, b)| a != b).count();
            let key = (bytes, moved, order);
            if self.best.as_ref().map_or(true, |b| key < *b) {
                self.best = Some(key);
            }
        }
    }
}
