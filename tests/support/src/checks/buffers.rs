//! (g) Buffers known only by where they lie, as the Python package hands a relayout its
//! `data` and `out` (numpy arrays, `memoryview`s, one `bytearray` behind both): two ranges
//! of one arena, or ranges at the end of the address space, checked by
//! `RelayoutPlan::check_buffers` before any slice of them is made (what
//! `python/src/lib.rs` calls before it borrows).
//!
//! Properties: no panic; a length that is not the plan's is `BufferLength` (the source's
//! first); then `BufferOverlap` exactly when the two ranges share a byte (the model: the
//! addresses both hold), naming the shared bytes as offsets in each buffer; a range past the
//! end of the address space is `SizeOverflow`; and when the check passes, the two ranges are
//! parts of the arena that safe Rust borrows at once (`split_at_mut`: it would panic on an
//! overlap), the relayout between them equals the one between buffers of their own, and the
//! arena outside the destination is untouched.

use arbitrary::{Result, Unstructured};
use xlayout::{ByteRange, ErrorKind, RelayoutPlan};

use super::{any_pair, garbage, Reached, MAX_BUFFER};

/// A relayout pair and two ranges of one arena (or of the address space's end) from the
/// bytes, with the properties above.
pub fn overlap_case(data: &[u8]) -> Reached {
    let mut u = Unstructured::new(data);
    let Ok((from, to, seed)) = any_pair(&mut u) else { return Reached::Nothing };
    let Ok(plan) = RelayoutPlan::new(&from, &to) else { return Reached::Refused };
    if plan.src_len() > MAX_BUFFER || plan.dst_len() > MAX_BUFFER {
        return Reached::Sampled;
    }
    match placed(&mut u, &plan) {
        Ok(Placement::Arena { src, dst, slack }) => in_an_arena(&plan, src, dst, slack, seed),
        Ok(Placement::Top { src, dst }) => at_the_top(&plan, src, dst),
        Err(_) => Reached::Nothing,
    }
}

/// Where the two buffers lie.
enum Placement {
    /// In one arena of both lengths and `slack` more bytes: (offset, length) of each.
    Arena { src: (usize, usize), dst: (usize, usize), slack: usize },
    /// At addresses near the end of the address space (never made into slices).
    Top { src: ByteRange, dst: ByteRange },
}

fn placed(u: &mut Unstructured, plan: &RelayoutPlan) -> Result<Placement> {
    let (ls, ld) = (plan.src_len(), plan.dst_len());
    // Sometimes a length one off (the length check comes first). Exhausted bytes read as
    // zeros: zero stands for the common choice throughout.
    let mut off_by_one = |len: usize| -> Result<usize> {
        Ok(match u.int_in_range(0u8..=15)? {
            15 => len + 1,
            14 => len.saturating_sub(1),
            _ => len,
        })
    };
    let (ls, ld) = (off_by_one(ls)?, off_by_one(ld)?);
    if u.int_in_range(0u8..=15)? == 15 {
        let top = |u: &mut Unstructured, len: usize| -> Result<ByteRange> {
            Ok(ByteRange { start: usize::MAX - u.int_in_range(0..=2 * len + 2)?, len })
        };
        return Ok(Placement::Top { src: top(u, ls)?, dst: top(u, ld)? });
    }
    let slack = u.int_in_range(0..=96)?;
    let arena = ls + ld + slack;
    // Anywhere in the arena: side by side, apart, overlapping, one inside the other.
    let src = u.int_in_range(0..=arena - ls)?;
    let dst = u.int_in_range(0..=arena - ld)?;
    Ok(Placement::Arena { src: (src, ls), dst: (dst, ld), slack })
}

/// The shared bytes of two ranges, as offsets in the first, counted address by address.
fn shared(a: (usize, usize), b: (usize, usize)) -> Option<(usize, usize)> {
    let (start, end) = (a.0.max(b.0), (a.0 + a.1).min(b.0 + b.1));
    (start < end).then(|| (start - a.0, end - a.0))
}

fn in_an_arena(
    plan: &RelayoutPlan,
    (s, ls): (usize, usize),
    (d, ld): (usize, usize),
    slack: usize,
    seed: u64,
) -> Reached {
    let mut arena = garbage(ls + ld + slack, seed);
    let verdict =
        plan.check_buffers(ByteRange::of(&arena[s..s + ls]), ByteRange::of(&arena[d..d + ld]));
    if (ls, ld) != (plan.src_len(), plan.dst_len()) {
        assert_eq!(verdict.map_err(|e| e.kind()), Err(ErrorKind::BufferLength));
        return Reached::Refused;
    }
    if let Some((d0, d1)) = shared((d, ld), (s, ls)) {
        let e = verdict.expect_err("buffers that share bytes pass the check");
        assert_eq!(e.kind(), ErrorKind::BufferOverlap);
        let (s0, s1) = (d + d0 - s, d + d1 - s);
        let named = format!("its bytes {d0}..{d1} are the source's bytes {s0}..{s1} (");
        assert!(e.message().contains(&named), "{}: {named}", e.message());
        return Reached::Refused;
    }
    verdict.expect("buffers that share no byte fail the check");
    // The check passed: safe Rust borrows the two at once, and the relayout is the one
    // between buffers of their own.
    let source = arena[s..s + ls].to_vec();
    let mut expected = vec![0u8; ld];
    plan.run(&source, &mut expected).unwrap();
    let before = arena.clone();
    if s < d {
        let (low, high) = arena.split_at_mut(d);
        plan.run(&low[s..s + ls], &mut high[..ld]).unwrap();
    } else {
        let (low, high) = arena.split_at_mut(s);
        plan.run(&high[..ls], &mut low[d..d + ld]).unwrap();
    }
    assert!(arena[d..d + ld] == expected[..], "the relayout in place differs");
    assert!(arena[..d] == before[..d] && arena[d + ld..] == before[d + ld..]);
    Reached::Full
}

/// Ranges that are never slices: the checks alone, at the end of the address space.
fn at_the_top(plan: &RelayoutPlan, src: ByteRange, dst: ByteRange) -> Reached {
    let verdict = plan.check_buffers(src, dst).map_err(|e| e.kind());
    let lengths = (src.len, dst.len) == (plan.src_len(), plan.dst_len());
    let expected = if !lengths {
        Err(ErrorKind::BufferLength)
    } else if src.end().is_none() || dst.end().is_none() {
        Err(ErrorKind::SizeOverflow)
    } else if shared((src.start, src.len), (dst.start, dst.len)).is_some() {
        Err(ErrorKind::BufferOverlap)
    } else {
        Ok(())
    };
    assert_eq!(verdict, expected, "{src:?} {dst:?}");
    Reached::Sampled
}
