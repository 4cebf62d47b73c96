//! The form of a plan: its tile tree read as a list of digits of the row-major position.
//!
//! The logical dimensions, in order, are the digits of the row-major position `k`. Each
//! step of the tile tree rewrites the list: a split of `v < n` by `τ` puts the numeral
//! `(⌈n/τ⌉, τ)` in place of `v` (read below `n` when `τ` does not divide it); a `*` merge of
//! two registers is the digit they already make together when they are neighbours (after
//! letting a partial numeral take in what follows it), and anything else (a `*` over two
//! dimensions in transposed order) has no form: the caller compares such layouts element by
//! element. The final axes become `Lin` items with their strides.

use alloc::vec;
use alloc::vec::Vec;

use super::form::{normalize, truncate, Item};
use crate::plan::{Reg, Space, Step};

/// The list being rewritten: registers and partial numerals.
#[derive(Clone, Debug)]
enum Sym {
    Reg(Reg),
    Trunc { bound: usize, items: Vec<Sym> },
}

/// Where a register sits: indices into nested lists.
fn find(list: &[Sym], reg: Reg) -> Option<Vec<usize>> {
    for (i, s) in list.iter().enumerate() {
        match s {
            Sym::Reg(r) if *r == reg => return Some(vec![i]),
            Sym::Reg(_) => {}
            Sym::Trunc { items, .. } => {
                if let Some(mut path) = find(items, reg) {
                    path.insert(0, i);
                    return Some(path);
                }
            }
        }
    }
    None
}

fn list_at<'a>(list: &'a mut Vec<Sym>, path: &[usize]) -> Option<&'a mut Vec<Sym>> {
    match path.split_first() {
        None => Some(list),
        Some((&i, rest)) => match list.get_mut(i)? {
            Sym::Trunc { items, .. } => list_at(items, rest),
            Sym::Reg(_) => None,
        },
    }
}

/// Replaces the register at `path` by `with` (spliced in).
fn replace(list: &mut Vec<Sym>, path: &[usize], with: Vec<Sym>) -> Option<()> {
    let (&last, parent) = path.split_last()?;
    let l = list_at(list, parent)?;
    if last >= l.len() {
        return None;
    }
    l.splice(last..=last, with);
    Some(())
}

/// Builds the form; `None` when a `*` merge has no form (see the module documentation).
pub(crate) fn form_of(space: &Space) -> Option<Vec<Item>> {
    let size = |r: Reg| space.sizes.get(r as usize).copied();
    let extent_of = |s: &Sym| -> usize {
        match s {
            Sym::Reg(r) => size(*r).unwrap_or(0),
            Sym::Trunc { bound, .. } => *bound,
        }
    };
    let mut top: Vec<Sym> = (0..space.dims.len() as Reg).map(Sym::Reg).collect();
    for step in &space.steps {
        match *step {
            Step::Split { src, q, m, tile } => {
                let Some(path) = find(&top, src) else { continue }; // a size-1 axis added for a long tile
                let n = size(src)?;
                let parts = vec![Sym::Reg(q), Sym::Reg(m)];
                let with =
                    if n % tile == 0 { parts } else { vec![Sym::Trunc { bound: n, items: parts }] };
                replace(&mut top, &path, with)?;
            }
            Step::Merge { dst, a, b } => {
                merge(&mut top, (a, b, dst), (size(a)?, size(b)?), &extent_of)?
            }
        }
    }
    let stride_of = |r: Reg| space.axes.iter().position(|&x| x == r).map(|j| space.strides[j]);
    fn convert(
        s: Sym,
        space: &Space,
        stride_of: &dyn Fn(Reg) -> Option<usize>,
    ) -> Option<Vec<Item>> {
        match s {
            Sym::Reg(r) => {
                let extent = *space.sizes.get(r as usize)?;
                // A register that is not an axis can only be a size-1 one nothing split.
                let stride = if extent == 1 { 0 } else { stride_of(r)? };
                Some(vec![Item::Lin { extent, stride }])
            }
            Sym::Trunc { bound, items } => {
                let mut list = Vec::new();
                for it in items {
                    list.extend(convert(it, space, stride_of)?);
                }
                Some(truncate(bound, list))
            }
        }
    }
    let mut list = Vec::new();
    for s in top {
        list.extend(convert(s, space, &stride_of)?);
    }
    Some(normalize(list))
}

/// Applies a `*` merge `dst = a · size(b) + b`.
fn merge(
    top: &mut Vec<Sym>,
    (a, b, dst): (Reg, Reg, Reg),
    (size_a, size_b): (usize, usize),
    extent_of: &dyn Fn(&Sym) -> usize,
) -> Option<()> {
    // A size-1 side contributes nothing: the merged value is the other one.
    if size_a == 1 || size_b == 1 {
        let (one, other) = if size_a == 1 { (a, b) } else { (b, a) };
        if let Some(path) = find(top, one) {
            replace(top, &path, Vec::new())?;
        }
        if let Some(path) = find(top, other) {
            replace(top, &path, vec![Sym::Reg(dst)])?;
        }
        return Some(());
    }
    let pa = find(top, a)?;
    let pb = find(top, b)?;
    let (&jb, parent) = pb.split_last()?;
    // `a` must sit in `b`'s list before it (only size-1 items between), directly or as the
    // last item of a partial numeral there (and of every numeral nested on the way).
    if pa.len() <= parent.len() || pa[..parent.len()] != *parent {
        return None;
    }
    let deep = &pa[parent.len()..];
    let list = list_at(top, parent)?;
    if deep[0] >= jb || list[deep[0] + 1..jb].iter().any(|s| extent_of(s) != 1) {
        return None;
    }
    list.remove(jb);
    // Each numeral on the way takes `b` in: reading `T(m, L)` then `b` is reading `L ++ b`
    // below `m · size(b)`, and `b` lands right after `a`. (A failed check below leaves the
    // list half rewritten, but then the layout has no form at all.)
    let mut cur = list;
    let mut k = 0;
    while k + 1 < deep.len() {
        let i = deep[k];
        if k > 0 && i + 1 != cur.len() {
            return None;
        }
        match cur.get_mut(i)? {
            Sym::Trunc { bound, items } => {
                *bound = bound.checked_mul(size_b)?;
                cur = items;
            }
            Sym::Reg(_) => return None,
        }
        k += 1;
    }
    let ia = deep[k];
    if k > 0 && ia + 1 != cur.len() {
        return None;
    }
    cur.splice(ia..=ia, [Sym::Reg(dst)]);
    Some(())
}
