//! A whole element as the kernels see it (below every kernel that moves whole elements).

/// A whole element of `E` bytes: `[u8; E]` (any alignment) or the unsigned integer of that
/// width (when the buffers are aligned for it), with the integer the kernels compute with
/// (integers give the compiler cheaper moves and shuffles than byte arrays).
pub(super) trait Elem: bytemuck::Pod + Send + Sync {
    type Int: Elem<Int = Self::Int>;
    fn int(self) -> Self::Int;
    fn from_int(v: Self::Int) -> Self;
}

macro_rules! elem {
    ($($n:literal => $t:ty),*) => {$(
        impl Elem for [u8; $n] {
            type Int = $t;
            #[inline(always)]
            fn int(self) -> $t {
                <$t>::from_ne_bytes(self)
            }
            #[inline(always)]
            fn from_int(v: $t) -> Self {
                v.to_ne_bytes()
            }
        }

        impl Elem for $t {
            type Int = $t;
            #[inline(always)]
            fn int(self) -> $t {
                self
            }
            #[inline(always)]
            fn from_int(v: $t) -> Self {
                v
            }
        }
    )*};
}
elem!(1 => u8, 2 => u16, 4 => u32, 8 => u64, 16 => u128);
