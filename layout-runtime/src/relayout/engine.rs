//! How a plan moves elements ([`Engine`]): the strided blocks of a pair of layouts and the
//! loop that runs them with a run's settings (measuring on its first slices when the run
//! measures), or the element-by-element path.

use alloc::vec::Vec;

use super::choice::ChosenBy;
use super::ctx::{Ctx, Kernels, Reads};
use super::decompose::{self, Block};
use super::elem::Elem;
use super::general;
use super::kernel::{self, Whole};
use super::measure::Key;
use super::packed::Packed;
#[cfg(feature = "rayon")]
use super::parallel;
#[cfg(feature = "std")]
use super::trial::{self, Purpose};
use crate::Plan;

/// The strided copy of a pair of layouts over whole elements.
#[derive(Clone, Debug)]
pub(super) struct Blocks {
    pub copies: Vec<Block>,
    /// The destination's padding inside the grid.
    pub zeros: Vec<Block>,
    /// Where the `L` tail starts, in elements (of the kernels' slices, or packed ones).
    pub tail: usize,
}

/// How a plan moves elements.
#[derive(Clone, Debug)]
pub(super) enum Engine {
    /// A dimension of size 0: no element, the destination is all padding.
    Zero,
    /// Strided blocks over whole elements of `size` bytes (1, 2, 4, 8 or 16; other sizes are
    /// blocks of bytes with `size` 1).
    Bytes { size: usize, blocks: Blocks },
    /// Strided blocks over packed 1-, 2- or 4-bit elements.
    Packed { bits: usize, blocks: Blocks },
    /// Element by element (see `general`).
    General,
}

impl Engine {
    /// The engine for a pair of plans: strided blocks where both layouts decompose into
    /// them (see `decompose`), else element by element.
    pub(super) fn new(from: &Plan, to: &Plan) -> Engine {
        if from.dims().contains(&0) {
            return Engine::Zero;
        }
        let bits = from.element_bits();
        if bits != to.element_bits() {
            return Engine::General;
        }
        if matches!(bits, 1 | 2 | 4) {
            return match decompose::blocks(from, to, 1) {
                Some((copies, zeros)) => {
                    Engine::Packed { bits, blocks: Blocks { copies, zeros, tail: to.grid_len() } }
                }
                None => Engine::General,
            };
        }
        if bits % 8 != 0 {
            return Engine::General;
        }
        let size = bits / 8;
        let (size, scale) = if matches!(size, 1 | 2 | 4 | 8 | 16) { (size, 1) } else { (1, size) };
        match decompose::blocks(from, to, scale) {
            Some((copies, zeros)) => Engine::Bytes {
                size,
                blocks: Blocks { copies, zeros, tail: to.grid_len() * scale },
            },
            None => Engine::General,
        }
    }

    /// Moves `src` (in `from`'s layout) into `dst` (in `to`'s) with `how`'s settings; the
    /// lengths were checked.
    pub(super) fn run(
        &self,
        from: &Plan,
        to: &Plan,
        src: &[u8],
        dst: &mut [u8],
        how: How,
        exec: Exec,
    ) -> Measured {
        match self {
            Engine::Zero => {
                dst.fill(0);
                None
            }
            Engine::General => {
                general::copy(from, to, src, dst);
                None
            }
            Engine::Bytes { size, blocks } => match size {
                1 => elements::<u8>(src, dst, blocks, how, exec),
                2 => elements::<u16>(src, dst, blocks, how, exec),
                4 => elements::<u32>(src, dst, blocks, how, exec),
                8 => elements::<u64>(src, dst, blocks, how, exec),
                _ => elements::<u128>(src, dst, blocks, how, exec),
            },
            Engine::Packed { bits, blocks } => match bits {
                1 => run_blocks(Packed::<1>, src, dst, blocks, how, exec),
                2 => run_blocks(Packed::<2>, src, dst, blocks, how, exec),
                _ => run_blocks(Packed::<4>, src, dst, blocks, how, exec),
            },
        }
    }

    /// The settings the kernels read for the copy blocks.
    pub(super) fn reads(&self) -> Reads {
        let all = |blocks: &Blocks, reads: &dyn Fn(&Block) -> Reads| {
            blocks.copies.iter().fold(Reads::default(), |r, b| r | reads(b))
        };
        match self {
            Engine::Bytes { size, blocks } => all(blocks, &|b| kernel::reads(*size, b)),
            Engine::Packed { bits: 1, blocks } => all(blocks, &|b| Packed::<1>.reads(b)),
            Engine::Packed { bits: 2, blocks } => all(blocks, &|b| Packed::<2>.reads(b)),
            Engine::Packed { blocks, .. } => all(blocks, &|b| Packed::<4>.reads(b)),
            Engine::Zero | Engine::General => Reads::default(),
        }
    }
}

impl Blocks {
    /// The largest copy block (the first of them), which a measuring run times slices of.
    pub(super) fn largest(&self) -> Option<usize> {
        let lens = self.copies.iter().map(Block::len).enumerate();
        lens.fold(None, |best, (i, n)| match best {
            Some((_, m)) if m >= n => best,
            _ => Some((i, n)),
        })
        .map(|(i, _)| i)
    }
}

/// The settings of a run, and the key to measure them under (and what for) when this run
/// measures.
#[derive(Clone, Debug)]
pub(super) struct How {
    pub ctx: Ctx,
    pub measure: Option<(Key, Purpose)>,
}

/// What the first slices of a measuring run chose (`None` where no run measured).
pub(super) type Measured = Option<(Ctx, ChosenBy)>;

/// Without a clock nothing measures: the purposes of `trial` are never made.
#[cfg(not(feature = "std"))]
#[derive(Clone, Debug)]
pub(super) enum Purpose {}

/// Where the blocks run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Exec {
    /// On the calling thread.
    Serial,
    /// Large blocks cut between rayon's threads (see `parallel`), the rest on the calling
    /// thread.
    #[cfg(feature = "rayon")]
    Parallel,
}

/// Runs `f(part, dst_part, origin)` over block `b`: the whole block on this thread, or, when
/// `exec` is parallel and the block is worth it, parts of it on rayon's threads, each with
/// the slice of `dst` it owns (`origin`: where that slice starts, in block elements; `unit`:
/// block elements per slice element).
fn run_block<T: Send>(
    b: &Block,
    dst: &mut [T],
    unit: usize,
    ctx: Ctx,
    exec: Exec,
    f: impl Fn(&Block, &mut [T], usize) + Sync,
) {
    match exec {
        Exec::Serial => f(b, dst, 0),
        #[cfg(feature = "rayon")]
        Exec::Parallel => parallel::run_block(b, dst, unit, ctx, f),
    }
    let _ = (unit, ctx);
}

/// Views the buffers as integers `I` when both are aligned for it, else as byte arrays of
/// the same size (alignment 1: any buffer qualifies).
fn elements<I: Elem>(
    src: &[u8],
    dst: &mut [u8],
    blocks: &Blocks,
    how: How,
    exec: Exec,
) -> Measured {
    if let (Ok(s), Ok(d)) =
        (bytemuck::try_cast_slice::<u8, I>(src), bytemuck::try_cast_slice_mut::<u8, I>(dst))
    {
        return run_blocks(Whole, s, d, blocks, how, exec);
    }
    macro_rules! unaligned {
        ($($n:literal),*) => {
            match core::mem::size_of::<I>() {
                $($n => {
                    // Lengths were checked to be whole grids of elements: the casts to
                    // alignment-1 arrays cannot fail.
                    let s: &[[u8; $n]] = bytemuck::cast_slice(src);
                    let d: &mut [[u8; $n]] = bytemuck::cast_slice_mut(dst);
                    run_blocks(Whole, s, d, blocks, how.clone(), exec)
                })*
                _ => None,
            }
        };
    }
    unaligned!(1, 2, 4, 8, 16)
}

/// The strided path: every copy block, then the destination's padding and tail. A run
/// that measures times its candidates on the first slices of the largest block
/// (`trial::measure`), then does the rest with the winner, and returns what it chose.
fn run_blocks<T: bytemuck::Pod + Send + Sync, K: Kernels<T>>(
    k: K,
    src: &[T],
    dst: &mut [T],
    blocks: &Blocks,
    how: How,
    exec: Exec,
) -> Measured {
    // Measuring runs the first slices of the largest block: the rest of it is left.
    #[cfg(feature = "std")]
    let (ctx, rest, measured) = match (how.measure, blocks.largest()) {
        (Some((key, purpose)), Some(i)) => {
            match trial::measure(k, src, dst, &blocks.copies[i], key, purpose) {
                Some((rest, winner, chosen)) => (winner, Some((i, rest)), Some((winner, chosen))),
                None => (how.ctx, None, None),
            }
        }
        _ => (how.ctx, None, None),
    };
    #[cfg(not(feature = "std"))]
    let (ctx, rest, measured): (Ctx, Option<(usize, Block)>, Measured) = match how.measure {
        Some((_, purpose)) => match purpose {}, // none without `std`
        None => (how.ctx, None, None),
    };
    for (i, b) in blocks.copies.iter().enumerate() {
        let b = match &rest {
            Some((j, part)) if *j == i => part,
            _ => b,
        };
        run_block(b, dst, K::PER_ITEM, ctx, exec, |b, dst, origin| {
            k.copy_block(src, dst, b, origin, ctx);
        });
    }
    ctx.finish();
    for b in &blocks.zeros {
        run_block(b, dst, K::PER_ITEM, ctx, exec, |b, dst, origin| k.zero_block(dst, b, origin));
    }
    k.zero_tail(dst, blocks.tail);
    measured
}
