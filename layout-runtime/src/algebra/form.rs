//! The canonical form of an index map: the element offset as a function of the row-major
//! position `k` of an element, written so that two layouts have equal forms exactly when
//! they put every element at the same offset.
//!
//! A form is a list of items, most major first, over the mixed radix of their extents:
//! `k` splits into one digit per item and the offset is the sum of the items' values of
//! their digits. An item is
//!
//! - `Lin { extent, stride }`: `v ↦ v · stride` for `v < extent` (a dimension or a digit of
//!   one, as an untiled layout has them);
//! - `Trunc { bound, items }`: an exact list of items (a padded tile numeral) read only for
//!   `v < bound`, fewer than its extent: a dimension that does not fill its tiles.
//!
//! Every tiled layout without `*` is such a list (a split by `τ` of a value `v < n` is the
//! numeral `(⌈n/τ⌉, τ)` read below `n`), and so is every `*` that merges neighbouring digits.
//! Normalising makes the form canonical:
//!
//! - neighbouring `Lin` items coalesce when the major one's stride is the minor one's extent
//!   times its stride (one longer run), and extent-1 items vanish;
//! - a `Trunc` trims its major item to the values below its bound reach, drops major items
//!   its bound never reaches, and *peels* off minor items (or the part of a minor `Lin`) whose
//!   extent divides the bound: `v ↦ f(v / x) + g(v mod x)` holds exactly there, so the item
//!   stands beside the `Trunc` instead of in it;
//! - inside a `Trunc`, a nested `Trunc` is last: it absorbs the items after it (reading
//!   `T(m, L)` and then `X` is reading `L ++ X` below `m · extent(X)`), which gives two
//!   spellings of one map a single one.
//!
//! These rules were found, and are tested, against the element-by-element comparison of both
//! index maps on every small layout pair (tests/algebra.rs) and random ones up to rank 5.

use alloc::vec;
use alloc::vec::Vec;

/// One item of a form; see the module documentation.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Item {
    /// `v ↦ v · stride` for `v < extent`.
    Lin { extent: usize, stride: usize },
    /// The exact list `items` read for `v < bound` (`bound` below its extent).
    Trunc { bound: usize, items: Vec<Item> },
}

impl Item {
    /// The number of values of the item's digit.
    pub fn extent(&self) -> usize {
        match self {
            Item::Lin { extent, .. } => *extent,
            Item::Trunc { bound, .. } => *bound,
        }
    }
}

/// The product of the items' extents (the padded extent of an exact list). Never beyond the
/// grid of the layout it came from, which fits in `usize`; saturating keeps a broken
/// invariant from panicking.
pub(crate) fn extent(items: &[Item]) -> usize {
    items.iter().fold(1usize, |acc, it| acc.saturating_mul(it.extent()))
}

fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Appends `it`, coalescing it into a `Lin` before it when the two are one run.
fn push_coalesced(out: &mut Vec<Item>, it: Item) {
    if let (Some(Item::Lin { extent: e1, stride: s1 }), Item::Lin { extent: e2, stride: s2 }) =
        (out.last_mut(), &it)
    {
        if *s1 == e2.saturating_mul(*s2) {
            *e1 = e1.saturating_mul(*e2);
            *s1 = *s2;
            return;
        }
    }
    out.push(it);
}

/// A list inside a `Trunc`: coalesced, and a nested `Trunc` absorbs everything after it.
fn normalize_inner(list: Vec<Item>) -> Vec<Item> {
    let mut out = Vec::with_capacity(list.len());
    let mut rest = list.into_iter();
    while let Some(it) = rest.next() {
        if it.extent() == 1 {
            continue;
        }
        match it {
            Item::Trunc { bound, mut items } => {
                let tail: Vec<Item> = rest.filter(|x| x.extent() != 1).collect();
                let bound = bound.saturating_mul(extent(&tail));
                items.extend(tail);
                let items = normalize_inner(items);
                if extent(&items) == bound {
                    items.into_iter().for_each(|x| push_coalesced(&mut out, x));
                } else {
                    out.push(Item::Trunc { bound, items });
                }
                return out;
            }
            lin => push_coalesced(&mut out, lin),
        }
    }
    out
}

/// Takes the minor-most part of `list` that divides every bound in `bounds` (the bounds of
/// the `Trunc`s it sits in, outermost first): the returned item stands beside them, the
/// returned list is what stays inside.
fn peel_minor(mut list: Vec<Item>, bounds: &mut Vec<usize>) -> Option<(Item, Vec<Item>)> {
    match list.pop()? {
        Item::Lin { extent, stride } => {
            let g = bounds.iter().fold(extent, |g, &b| gcd(g, b));
            if g <= 1 {
                return None;
            }
            list.push(Item::Lin { extent: extent / g, stride: stride.saturating_mul(g) });
            Some((Item::Lin { extent: g, stride }, list))
        }
        Item::Trunc { bound, items } => {
            if bounds.iter().all(|&b| b % bound == 0) {
                return Some((Item::Trunc { bound, items }, list));
            }
            bounds.push(bound);
            let (item, items) = peel_minor(items, bounds)?;
            let g = item.extent();
            list.push(Item::Trunc { bound: bound / g, items });
            Some((item, list))
        }
    }
}

/// The item restricted to its first `c` values, as a top-level list.
fn restrict(item: Item, c: usize) -> Vec<Item> {
    match item {
        Item::Lin { stride, .. } => vec![Item::Lin { extent: c, stride }],
        Item::Trunc { items, .. } => truncate(c, items),
    }
}

/// A top-level list with every `Trunc` in its canonical (peeled) form.
pub(crate) fn normalize(items: Vec<Item>) -> Vec<Item> {
    let mut out = Vec::with_capacity(items.len());
    for it in items {
        match it {
            Item::Trunc { bound, items } => {
                truncate(bound, items).into_iter().for_each(|x| push_coalesced(&mut out, x))
            }
            it if it.extent() == 1 => {}
            lin => push_coalesced(&mut out, lin),
        }
    }
    out
}

/// The canonical top-level list of the exact list `list` read for `v < bound`.
pub(crate) fn truncate(mut bound: usize, list: Vec<Item>) -> Vec<Item> {
    if bound <= 1 {
        return Vec::new();
    }
    let mut list = normalize_inner(list);
    let mut suffix: Vec<Item> = Vec::new();
    loop {
        // Trim the major end: drop what the bound never reaches, restrict what it partly does.
        while !list.is_empty() {
            let below = extent(&list[1..]);
            if below >= bound {
                list.remove(0);
                list = normalize_inner(list);
                continue;
            }
            let reach = bound.div_ceil(below);
            if list[0].extent() > reach {
                let top = list.remove(0);
                if list.is_empty() {
                    let mut out = restrict(top, bound);
                    out.extend(suffix);
                    return normalize(out);
                }
                let mut head = restrict(top, reach);
                head.extend(list);
                list = normalize_inner(head);
                continue;
            }
            break;
        }
        if extent(&list) == bound {
            list.extend(suffix);
            return normalize(list);
        }
        // Lists are a few items long: trying on a copy keeps the list when nothing peels.
        let Some((item, rest)) = peel_minor(list.clone(), &mut vec![bound]) else {
            break;
        };
        bound /= item.extent();
        suffix.insert(0, item);
        list = normalize_inner(rest);
    }
    let mut out = vec![Item::Trunc { bound, items: list }];
    for x in normalize(suffix) {
        push_coalesced(&mut out, x);
    }
    out
}

/// The value of a form at position `k` (for tests and the element search: the offset of
/// the `k`-th element in row-major order).
#[cfg(test)]
pub(crate) fn eval(items: &[Item], mut k: usize) -> usize {
    let mut sum = 0;
    for it in items.iter().rev() {
        let e = it.extent();
        let v = k % e;
        k /= e;
        sum += match it {
            Item::Lin { stride, .. } => v * stride,
            Item::Trunc { items, .. } => eval(items, v),
        };
    }
    sum
}
