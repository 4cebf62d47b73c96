//! Buffers known only by where they lie: the checks a caller that holds raw memory (the
//! Python package's numpy arrays, `memoryview`s and `bytearray`s; an FFI call frame) runs
//! before it makes a `&[u8]` and a `&mut [u8]` of two buffers for [`RelayoutPlan::run`].
//!
//! Safe Rust cannot hold a shared and a mutable slice of the same bytes; a binding that turns
//! two foreign buffers into slices can, unless it compares where they lie first. Whether two
//! objects share memory is not a question about the objects (two numpy arrays without a common
//! base, a `memoryview` and the array it views, two views of one `bytearray`) but about their
//! addresses: [`ByteRange`] compares those, whatever object provides them.

use alloc::format;

use crate::{Error, ErrorKind, RelayoutPlan};

/// Where a buffer lies in the address space: the address of its first byte and its length in
/// bytes. Taken from a slice ([`ByteRange::of`]) or from a foreign object's pointer and size,
/// before any slice of it exists.
///
/// ```
/// use layout_runtime::ByteRange;
/// let memory = [0u8; 256];
/// let a = ByteRange::of(&memory[..128]);
/// let b = ByteRange::of(&memory[64..192]); // `a` shifted by 64 bytes
/// let c = ByteRange::of(&memory[128..]); // right after `a`: touching is not sharing
/// assert_eq!(a.overlap(b), Some(64..128));
/// assert_eq!(a.overlap(c), None);
/// assert_eq!(b.len, 128);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ByteRange {
    /// The address of the first byte.
    pub start: usize,
    /// The number of bytes.
    pub len: usize,
}

impl ByteRange {
    /// Where `slice` lies: its address and its size in bytes.
    ///
    /// ```
    /// use layout_runtime::ByteRange;
    /// let words = [0u32; 3];
    /// let r = ByteRange::of(&words);
    /// assert_eq!((r.start, r.len), (words.as_ptr() as usize, 12));
    /// ```
    pub fn of<T>(slice: &[T]) -> ByteRange {
        ByteRange { start: slice.as_ptr() as usize, len: core::mem::size_of_val(slice) }
    }

    /// The address one past the last byte, or `None` when that is beyond the address space
    /// (no real buffer is; a foreign object that claims to be is refused by
    /// [`RelayoutPlan::check_buffers`]).
    ///
    /// ```
    /// use layout_runtime::ByteRange;
    /// assert_eq!(ByteRange { start: 16, len: 8 }.end(), Some(24));
    /// assert_eq!(ByteRange { start: usize::MAX, len: 2 }.end(), None);
    /// ```
    pub fn end(self) -> Option<usize> {
        self.start.checked_add(self.len)
    }

    /// The bytes the two ranges share, as offsets from the start of `self` (empty ranges share
    /// nothing, wherever they point; ranges that only touch share nothing). A range whose end
    /// is beyond the address space is taken to reach to its end.
    ///
    /// ```
    /// use layout_runtime::ByteRange;
    /// let a = ByteRange { start: 1000, len: 100 };
    /// assert_eq!(a.overlap(ByteRange { start: 1064, len: 100 }), Some(64..100));
    /// assert_eq!(a.overlap(ByteRange { start: 900, len: 101 }), Some(0..1)); // one byte
    /// assert_eq!(a.overlap(ByteRange { start: 1100, len: 8 }), None); // right after
    /// assert_eq!(a.overlap(ByteRange { start: 1050, len: 0 }), None); // empty
    /// ```
    pub fn overlap(self, other: ByteRange) -> Option<core::ops::Range<usize>> {
        if self.len == 0 || other.len == 0 {
            return None;
        }
        let end = |r: ByteRange| r.end().unwrap_or(usize::MAX);
        let (start, stop) = (self.start.max(other.start), end(self).min(end(other)));
        (start < stop).then(|| start - self.start..stop - self.start)
    }
}

impl RelayoutPlan {
    /// The checks of [`RelayoutPlan::check_buffers`] on the source alone (its length, the
    /// address space), for a caller that makes the destination only for a source that is
    /// right.
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, ByteRange, ErrorKind, RelayoutPlan};
    /// let a = |t: &str| t.parse::<ArrayShape>().unwrap();
    /// let plan = RelayoutPlan::new(&a("f32[3,5]"), &a("f32[3,5]{1,0:T(2,2)}"))?;
    /// let src = [0u8; 56];
    /// let e = plan.check_source(ByteRange::of(&src)).unwrap_err();
    /// assert_eq!(e.kind(), ErrorKind::BufferLength);
    /// assert_eq!(e.message(), "the source buffer has 56 bytes; its layout needs exactly 60");
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn check_source(&self, src: ByteRange) -> Result<(), Error> {
        self.check(src.len, self.dst_len())?;
        in_address_space("source", src)
    }

    /// Checks two buffers known only by where they lie, before any slice of them is made,
    /// in this order: the lengths [`RelayoutPlan::run`] needs ([`RelayoutPlan::src_len`],
    /// [`RelayoutPlan::dst_len`]), that neither reaches past the end of the address space,
    /// and that they share no byte. A relayout reads the whole source and writes the whole
    /// destination in an order of its own, so memory the two share would be overwritten
    /// before it is read (and a `&[u8]` and a `&mut [u8]` of the same bytes is undefined
    /// behaviour in Rust): after `Ok`, the caller may make the two slices.
    ///
    /// Errors: [`ErrorKind::BufferLength`] (the message of [`RelayoutPlan::run`]),
    /// [`ErrorKind::SizeOverflow`] for a range past the end of the address space,
    /// [`ErrorKind::BufferOverlap`] naming the shared bytes in each buffer.
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, ByteRange, ErrorKind, RelayoutPlan};
    /// let a = |t: &str| t.parse::<ArrayShape>().unwrap();
    /// let plan = RelayoutPlan::new(&a("f32[16,16]{1,0}"), &a("f32[16,16]{0,1}"))?;
    /// let memory = vec![0u8; 2048];
    /// let (src, dst) = (ByteRange::of(&memory[..1024]), ByteRange::of(&memory[1024..]));
    /// plan.check_buffers(src, dst)?; // side by side: fine
    /// let shifted = ByteRange::of(&memory[64..1088]);
    /// let e = plan.check_buffers(src, shifted).unwrap_err();
    /// assert_eq!(e.kind(), ErrorKind::BufferOverlap);
    /// assert_eq!(
    ///     e.message(),
    ///     "the destination buffer shares memory with the source buffer: its bytes 0..960 are \
    ///      the source's bytes 64..1024 (a relayout reads all of the one while it writes all \
    ///      of the other: give it a destination of its own)"
    /// );
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn check_buffers(&self, src: ByteRange, dst: ByteRange) -> Result<(), Error> {
        self.check(src.len, dst.len)?;
        in_address_space("source", src)?;
        in_address_space("destination", dst)?;
        match dst.overlap(src) {
            None => Ok(()),
            Some(shared) => {
                let (d0, d1) = (shared.start, shared.end);
                // The same bytes, counted from the source's start (both ranges are in the
                // address space: checked above).
                let s0 = dst.start + d0 - src.start;
                let s1 = s0 + (d1 - d0);
                Err(Error::new(
                    ErrorKind::BufferOverlap,
                    format!(
                        "the destination buffer shares memory with the source buffer: its \
                         bytes {d0}..{d1} are the source's bytes {s0}..{s1} (a relayout reads \
                         all of the one while it writes all of the other: give it a \
                         destination of its own)"
                    ),
                ))
            }
        }
    }
}

/// Refuses a range that reaches past the end of the address space (no real buffer does).
fn in_address_space(what: &str, r: ByteRange) -> Result<(), Error> {
    match r.end() {
        Some(_) => Ok(()),
        None => Err(Error::new(
            ErrorKind::SizeOverflow,
            format!(
                "the {what} buffer ({} bytes at {:#x}) reaches past the end of the address space",
                r.len, r.start
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ArrayShape;

    fn plan(n: usize) -> RelayoutPlan {
        let a = |t: &str| t.parse::<ArrayShape>().unwrap();
        RelayoutPlan::new(&a(&format!("u8[{n}]")), &a(&format!("u8[{n}]{{0:T(4)}}"))).unwrap()
    }

    /// The overlap, byte by byte: every address both ranges hold.
    fn brute(a: ByteRange, b: ByteRange) -> Option<(usize, usize)> {
        let shared: alloc::vec::Vec<usize> =
            (a.start..a.start + a.len).filter(|x| (b.start..b.start + b.len).contains(x)).collect();
        Some((*shared.first()? - a.start, *shared.last()? - a.start + 1))
    }

    #[test]
    fn overlap_is_every_shared_address() {
        for a0 in 0..12 {
            for al in 0..6 {
                for b0 in 0..12 {
                    for bl in 0..6 {
                        let (a, b) =
                            (ByteRange { start: a0, len: al }, ByteRange { start: b0, len: bl });
                        let got = a.overlap(b).map(|r| (r.start, r.end));
                        assert_eq!(got, brute(a, b), "{a:?} {b:?}");
                        assert_eq!(got.is_some(), b.overlap(a).is_some());
                    }
                }
            }
        }
    }

    #[test]
    fn ranges_at_the_end_of_the_address_space() {
        let top = ByteRange { start: usize::MAX - 3, len: 3 }; // the last 3 bytes but one
        assert_eq!(top.end(), Some(usize::MAX));
        assert_eq!(top.overlap(ByteRange { start: usize::MAX - 1, len: 1 }), Some(2..3));
        let past = ByteRange { start: usize::MAX - 1, len: 8 };
        assert_eq!(past.end(), None);
        assert_eq!(top.overlap(past), Some(2..3));
        let p = plan(8);
        let e = p.check_buffers(ByteRange { start: 0, len: 8 }, past).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::SizeOverflow);
        let e = p.check_buffers(past, ByteRange { start: 0, len: 8 }).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::SizeOverflow);
    }

    #[test]
    fn lengths_then_overlap() {
        let p = plan(6); // 6 bytes in, 8 out (two tiles of 4)
        let at = |start, len| ByteRange { start, len };
        assert_eq!(p.check_buffers(at(0, 6), at(6, 8)), Ok(()));
        assert_eq!(p.check_buffers(at(8, 6), at(0, 8)), Ok(()));
        // The length first, as `run` checks it: the message is `run`'s.
        let e = p.check_buffers(at(0, 5), at(0, 8)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::BufferLength);
        assert_eq!(e.message(), "the source buffer has 5 bytes; its layout needs exactly 6");
        let e = p.check_buffers(at(0, 6), at(100, 7)).unwrap_err();
        assert_eq!(e.message(), "the destination buffer has 7 bytes; its layout needs exactly 8");
        // The same memory; one byte in common at either edge; the destination inside.
        for (dst, shared) in [
            (0, "0..6 are the source's bytes 0..6"),
            (5, "0..1 are the source's bytes 5..6"),
            (1000 - 7, "7..8 are the source's bytes 0..1"),
        ] {
            let src = if dst == 1000 - 7 { 1000 } else { 0 };
            let e = p.check_buffers(at(src, 6), at(dst, 8)).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::BufferOverlap);
            assert!(e.message().contains(&format!("its bytes {shared} (")), "{}", e.message());
        }
        // Empty buffers share nothing, even at one address (numpy gives them any pointer).
        let empty = plan(0);
        assert_eq!(empty.check_buffers(at(64, 0), at(64, 0)), Ok(()));
    }
}
