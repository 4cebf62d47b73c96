//! Packed elements (`E(n)`): element `k` of an `n`-bit array occupies bits `[k·n, (k+1)·n)`
//! of the buffer read as one little-endian bit stream: it starts in byte `⌊k·n/8⌋` at bit
//! `k·n mod 8` counted from the least-significant bit, and the first element sits in the
//! low-order bits (`xla/packing.cc`; little-endian since 2025-02). An element may cross a
//! byte boundary (`E(6)`, `E(12)`).

use alloc::format;

use crate::{Error, ErrorKind};

/// Where an element's first bit lies: a byte and a bit inside it, bit 0 being the
/// least-significant.
///
/// ```
/// use layout_runtime::{bit_position, BitPosition};
/// // E(6): element 3 starts at bit 18 = byte 2, bit 2, and runs into byte 2 only;
/// // element 1 starts at bit 6 of byte 0 and crosses into byte 1.
/// assert_eq!(bit_position(3, 6), Some(BitPosition { byte: 2, bit: 2 }));
/// assert_eq!(bit_position(1, 6), Some(BitPosition { byte: 0, bit: 6 }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BitPosition {
    /// The byte holding the element's least-significant bit.
    pub byte: usize,
    /// The bit within that byte, 0 = least-significant.
    pub bit: u32,
}

/// The position of element `element` in a stream of `bits`-bit elements; `None` when the
/// bit index does not fit in the arithmetic (`element · bits` beyond `usize` bytes) or
/// `bits` is 0.
///
/// ```
/// use layout_runtime::{bit_position, BitPosition};
/// assert_eq!(bit_position(5, 4), Some(BitPosition { byte: 2, bit: 4 })); // high nibble
/// assert_eq!(bit_position(9, 1), Some(BitPosition { byte: 1, bit: 1 }));
/// assert_eq!(bit_position(3, 32), Some(BitPosition { byte: 12, bit: 0 }));
/// ```
pub fn bit_position(element: usize, bits: u32) -> Option<BitPosition> {
    if bits == 0 {
        return None;
    }
    let start = element as u128 * bits as u128;
    let byte = usize::try_from(start / 8).ok()?;
    Some(BitPosition { byte, bit: (start % 8) as u32 })
}

/// The bytes `[first, end)` that element `element` touches, checked against `len`.
fn span(len: usize, element: usize, bits: u32) -> Result<(BitPosition, usize), Error> {
    if bits == 0 || bits > 64 {
        return Err(Error::new(
            ErrorKind::ElementType,
            format!("packed elements must be 1 to 64 bits wide, not {bits}"),
        ));
    }
    let pos = bit_position(element, bits).ok_or_else(|| {
        Error::new(
            ErrorKind::SizeOverflow,
            format!("bit position of element {element} ({bits} bits each) does not fit in usize"),
        )
    })?;
    let nbytes = (pos.bit + bits).div_ceil(8) as usize;
    match pos.byte.checked_add(nbytes) {
        Some(end) if end <= len => Ok((pos, nbytes)),
        _ => Err(Error::new(
            ErrorKind::BufferLength,
            format!(
                "element {element} ({bits} bits each) needs byte {} of the buffer, which has {len} \
                 bytes",
                pos.byte.saturating_add(nbytes - 1)
            ),
        )),
    }
}

fn mask(bits: u32) -> u128 {
    (1u128 << bits) - 1
}

/// Reads element `element` of a packed stream of `bits`-bit elements (1 to 64), as the
/// unsigned value of its bits (sign-extend it yourself for signed types).
///
/// Errors: `bits` outside 1..=64 ([`ErrorKind::ElementType`]); the element past the end
/// of `buf` ([`ErrorKind::BufferLength`]).
///
/// ```
/// use layout_runtime::read_packed;
/// let buf = [0x21u8, 0x43]; // E(4): elements 1, 2, 3, 4
/// assert_eq!(read_packed(&buf, 0, 4)?, 1);
/// assert_eq!(read_packed(&buf, 3, 4)?, 4);
/// // E(6): element 1 is bits 6..12, crossing from byte 0 into byte 1.
/// assert_eq!(read_packed(&[0b1100_0000, 0b0000_1010], 1, 6)?, 0b10_1011);
/// assert!(read_packed(&buf, 4, 4).is_err());
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn read_packed(buf: &[u8], element: usize, bits: u32) -> Result<u64, Error> {
    let (pos, nbytes) = span(buf.len(), element, bits)?;
    let mut acc = 0u128;
    for (i, &b) in buf[pos.byte..pos.byte + nbytes].iter().enumerate() {
        acc |= u128::from(b) << (8 * i);
    }
    Ok(((acc >> pos.bit) & mask(bits)) as u64)
}

/// Writes element `element` of a packed stream of `bits`-bit elements (1 to 64): its bits
/// are replaced by the low `bits` bits of `value` (higher bits of `value` are ignored, so a
/// sign-extended negative value stores its two's complement), every other bit of `buf` is
/// left as it was.
///
/// Errors as [`read_packed`]; on error `buf` is untouched.
///
/// ```
/// use layout_runtime::{read_packed, write_packed};
/// let mut buf = [0u8; 3]; // four E(6) elements
/// for k in 0..4 {
///     write_packed(&mut buf, k, 6, 0b10_0001 + k as u64)?;
/// }
/// assert_eq!(buf, [0b1010_0001, 0b0011_1000, 0b1001_0010]);
/// assert_eq!(read_packed(&buf, 2, 6)?, 0b10_0011);
/// write_packed(&mut buf, 0, 6, u64::MAX)?; // -1 as a 6-bit two's complement
/// assert_eq!(read_packed(&buf, 0, 6)?, 0b11_1111);
/// assert_eq!(read_packed(&buf, 1, 6)?, 0b10_0010);
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn write_packed(buf: &mut [u8], element: usize, bits: u32, value: u64) -> Result<(), Error> {
    let (pos, nbytes) = span(buf.len(), element, bits)?;
    let bytes = &mut buf[pos.byte..pos.byte + nbytes];
    let mut acc = 0u128;
    for (i, &b) in bytes.iter().enumerate() {
        acc |= u128::from(b) << (8 * i);
    }
    let m = mask(bits) << pos.bit;
    acc = (acc & !m) | ((u128::from(value) << pos.bit) & m);
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = (acc >> (8 * i)) as u8;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;
    use proptest::prelude::*;

    /// The reference: one bit at a time.
    fn read_naive(buf: &[u8], k: usize, b: u32) -> u64 {
        let mut v = 0u64;
        for i in 0..b as usize {
            let bit = k * b as usize + i;
            v |= u64::from((buf[bit / 8] >> (bit % 8)) & 1) << i;
        }
        v
    }

    #[test]
    fn nibbles_low_first() {
        let mut buf = [0u8; 2];
        write_packed(&mut buf, 0, 4, 0xA).unwrap();
        write_packed(&mut buf, 1, 4, 0xB).unwrap();
        write_packed(&mut buf, 2, 4, 0xC).unwrap();
        assert_eq!(buf, [0xBA, 0x0C]);
    }

    #[test]
    fn e6_crosses_bytes() {
        let mut buf = [0u8; 3];
        write_packed(&mut buf, 1, 6, 0b11_1111).unwrap();
        assert_eq!(buf, [0b1100_0000, 0b0000_1111, 0]);
        write_packed(&mut buf, 2, 6, 0b11_1111).unwrap();
        assert_eq!(buf, [0b1100_0000, 0b1111_1111, 0b0000_0011]);
        assert_eq!(read_packed(&buf, 1, 6).unwrap(), 63);
        assert_eq!(read_packed(&buf, 0, 6).unwrap(), 0);
        assert_eq!(read_packed(&buf, 3, 6).unwrap(), 0);
    }

    #[test]
    fn errors() {
        let mut buf = [0u8; 1];
        assert_eq!(read_packed(&buf, 0, 0).unwrap_err().kind(), ErrorKind::ElementType);
        assert_eq!(read_packed(&buf, 0, 65).unwrap_err().kind(), ErrorKind::ElementType);
        assert_eq!(read_packed(&buf, 2, 4).unwrap_err().kind(), ErrorKind::BufferLength);
        assert_eq!(read_packed(&buf, 1, 6).unwrap_err().kind(), ErrorKind::BufferLength);
        assert_eq!(
            write_packed(&mut buf, usize::MAX, 64, 0).unwrap_err().kind(),
            ErrorKind::SizeOverflow
        );
        assert_eq!(
            write_packed(&mut buf, usize::MAX, 8, 0).unwrap_err().kind(),
            ErrorKind::BufferLength
        );
        assert_eq!(read_packed(&[], 0, 1).unwrap_err().kind(), ErrorKind::BufferLength);
        assert_eq!(buf, [0]);
        assert_eq!(bit_position(usize::MAX, 64), None);
        assert_eq!(bit_position(usize::MAX, 8), Some(BitPosition { byte: usize::MAX, bit: 0 }));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn write_then_read_leaves_others(
            b in 1u32..=64,
            values in proptest::collection::vec(any::<u64>(), 1..40),
            k in 0usize..40,
            v in any::<u64>(),
        ) {
            let n = values.len();
            let k = k % n;
            let mut buf = vec![0u8; (n * b as usize).div_ceil(8)];
            for (i, &x) in values.iter().enumerate() {
                write_packed(&mut buf, i, b, x).unwrap();
            }
            let m = if b == 64 { u64::MAX } else { (1u64 << b) - 1 };
            for (i, &x) in values.iter().enumerate() {
                prop_assert_eq!(read_packed(&buf, i, b).unwrap(), x & m);
                prop_assert_eq!(read_naive(&buf, i, b), x & m);
            }
            write_packed(&mut buf, k, b, v).unwrap();
            let got: Vec<u64> = (0..n).map(|i| read_packed(&buf, i, b).unwrap()).collect();
            for (i, &x) in values.iter().enumerate() {
                prop_assert_eq!(got[i], if i == k { v & m } else { x & m });
            }
        }
    }
}
