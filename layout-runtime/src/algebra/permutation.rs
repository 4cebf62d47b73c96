//! Permutations as XLA composes them (`xla/permutation_util.h`) and the common factors of two
//! dimension lists (`xla/util.h`, `CommonFactors`): the vocabulary every other function of
//! [`algebra`](super) speaks.
//!
//! XLA's conventions, which are easy to get backwards: [`permute`]`(input, p)[i] =
//! input[p[i]]`, and [`compose_permutations`]`(p1, p2)[i] = p1[p2[i]]`, so that
//! `permute(permute(x, p1), p2) == permute(x, compose_permutations(p1, p2))`.
//!
//! Where XLA `CHECK`s its input (and aborts), these functions return `None`.

use alloc::vec;
use alloc::vec::Vec;

/// Whether `p` holds each of `0..p.len()` exactly once (`IsPermutation`).
///
/// ```
/// use layout_runtime::algebra::is_permutation;
/// assert!(is_permutation(&[3, 1, 0, 2]));
/// assert!(!is_permutation(&[1, 1]) && !is_permutation(&[3, 0, 2]));
/// ```
pub fn is_permutation(p: &[usize]) -> bool {
    let mut seen = vec![false; p.len()];
    p.iter().all(|&i| i < seen.len() && !core::mem::replace(&mut seen[i], true))
}

/// Whether `p` is `0, 1, ..., n-1` (`IsIdentityPermutation`).
///
/// ```
/// use layout_runtime::algebra::is_identity_permutation;
/// assert!(is_identity_permutation(&[0, 1, 2]) && !is_identity_permutation(&[1, 0]));
/// ```
pub fn is_identity_permutation(p: &[usize]) -> bool {
    p.iter().enumerate().all(|(i, &x)| i == x)
}

/// The inverse: `inverse[p[i]] = i` (`InversePermutation`); `None` when `p` is not a
/// permutation.
///
/// ```
/// use layout_runtime::algebra::inverse_permutation;
/// assert_eq!(inverse_permutation(&[2, 0, 1]), Some(vec![1, 2, 0]));
/// assert_eq!(inverse_permutation(&[0, 0]), None);
/// ```
pub fn inverse_permutation(p: &[usize]) -> Option<Vec<usize>> {
    if !is_permutation(p) {
        return None;
    }
    let mut inverse = vec![0; p.len()];
    for (i, &x) in p.iter().enumerate() {
        inverse[x] = i;
    }
    Some(inverse)
}

/// `result[i] = p1[p2[i]]` (`ComposePermutations`); `None` unless both are permutations of
/// the same length.
///
/// ```
/// use layout_runtime::algebra::compose_permutations;
/// assert_eq!(compose_permutations(&[1, 3, 2, 0], &[2, 1, 3, 0]), Some(vec![2, 3, 0, 1]));
/// ```
pub fn compose_permutations(p1: &[usize], p2: &[usize]) -> Option<Vec<usize>> {
    if p1.len() != p2.len() || !is_permutation(p1) || !is_permutation(p2) {
        return None;
    }
    Some(p2.iter().map(|&i| p1[i]).collect())
}

/// `result[i] = input[p[i]]` (`Permute`); `None` unless `p` is a permutation of
/// `input.len()` entries.
///
/// ```
/// use layout_runtime::algebra::permute;
/// assert_eq!(permute(&["a", "b", "c"], &[2, 0, 1]), Some(vec!["c", "a", "b"]));
/// ```
pub fn permute<T: Clone>(input: &[T], p: &[usize]) -> Option<Vec<T>> {
    if p.len() != input.len() || !is_permutation(p) {
        return None;
    }
    Some(p.iter().map(|&i| input[i].clone()).collect())
}

/// `result[p[i]] = input[i]` (`PermuteInverse`): undoes [`permute`].
///
/// ```
/// use layout_runtime::algebra::permute_inverse;
/// assert_eq!(permute_inverse(&["a", "b", "c"], &[2, 0, 1]), Some(vec!["b", "c", "a"]));
/// ```
pub fn permute_inverse<T: Clone>(input: &[T], p: &[usize]) -> Option<Vec<T>> {
    permute(input, &inverse_permutation(p)?)
}

/// Moves the entry at `from` to position `to`, shifting the entries between
/// (`MoveSingleElement`); `false` (and nothing moved) when either is out of range.
///
/// ```
/// use layout_runtime::algebra::move_single_element;
/// let mut p = [0, 1, 2, 3, 4];
/// assert!(move_single_element(&mut p, 1, 3));
/// assert_eq!(p, [0, 2, 3, 1, 4]);
/// ```
pub fn move_single_element<T>(values: &mut [T], from: usize, to: usize) -> bool {
    if from >= values.len() || to >= values.len() {
        return false;
    }
    if from < to {
        values[from..=to].rotate_left(1);
    } else {
        values[to..=from].rotate_right(1);
    }
    true
}

/// The boundaries of the smallest groups of consecutive dimensions of `a` and `b` with equal
/// products (`CommonFactors`): a list of `(i, j)` such that `a[i_k..i_{k+1}]` and
/// `b[j_k..j_{k+1}]` have the same product, from `(0, 0)` to `(a.len(), b.len())`. Size-1
/// dimensions form groups of their own where they can. `None` when the products of `a` and
/// `b` differ (or overflow).
///
/// A reshape from `a` to `b` keeps each group's elements together: the row-major index of an
/// element splits into one part per group.
///
/// ```
/// use layout_runtime::algebra::common_factors;
/// assert_eq!(common_factors(&[2, 6], &[4, 3]), Some(vec![(0, 0), (2, 2)]));
/// assert_eq!(
///     common_factors(&[2, 5, 1, 3], &[1, 10, 3, 1]),
///     Some(vec![(0, 0), (0, 1), (2, 2), (3, 2), (4, 3), (4, 4)])
/// );
/// ```
pub fn common_factors(a: &[u64], b: &[u64]) -> Option<Vec<(usize, usize)>> {
    let product = |x: &[u64]| x.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d));
    if product(a)? != product(b)? {
        return None;
    }
    if a == b {
        return Some((0..=a.len()).map(|i| (i, i)).collect());
    }
    let mut bounds = Vec::new();
    let (mut i, mut j) = (0, 0);
    let mut prior: Option<(usize, usize)> = None;
    while i < a.len() && j < b.len() && a[i] == b[j] {
        prior = Some((i, j));
        bounds.push((i, j));
        i += 1;
        j += 1;
    }
    // With a zero among the rest, the rest is one group (and so is everything when only one
    // side has the zero: the products then differ once the zeros are left out).
    let (rest_a, rest_b) = (product(&a[i..])?, product(&b[j..])?);
    if rest_a != rest_b {
        return Some(vec![(0, 0), (a.len(), b.len())]);
    }
    if rest_a == 0 {
        bounds.push((i, j));
        bounds.push((a.len(), b.len()));
        return Some(bounds);
    }
    let (mut size_a, mut size_b) = (1u64, 1u64);
    loop {
        let advanced = prior.map_or(true, |(pi, pj)| i > pi || j > pj);
        if size_a == size_b && advanced {
            prior = Some((i, j));
            bounds.push((i, j));
            continue;
        }
        let (in_a, in_b) = (i < a.len(), j < b.len());
        if !in_a && !in_b {
            break;
        }
        let (ai, bj) = (a.get(i).copied(), b.get(j).copied());
        let next_a = size_a < size_b || (in_a && (!in_b || (size_a == size_b && ai <= bj)));
        let next_b = size_b < size_a || (in_b && (!in_a || (size_b == size_a && bj <= ai)));
        // With equal products and no zeros, the smaller side always has dimensions left;
        // `?` keeps that an answer (`None`) rather than an index out of range.
        if next_a {
            size_a = size_a.checked_mul(ai?)?;
            i += 1;
        }
        if next_b {
            size_b = size_b.checked_mul(bj?)?;
            j += 1;
        }
    }
    Some(bounds)
}
