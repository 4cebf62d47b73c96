//! What the machine offers the kernels, found once per process: the SIMD instruction sets
//! (`is_x86_feature_detected!`) and the cache sizes (CPUID), each with an override.

use core::sync::atomic::{AtomicUsize, Ordering};

/// The instruction set a [`RelayoutPlan`](crate::RelayoutPlan)'s kernels use.
///
/// A plan picks the best level the machine runs when it is built ([`Simd::detect`]), lowered
/// to the one the environment variable `XLAYOUT_SIMD` names if it is set (`portable`, `sse2`,
/// `avx2` or `avx512`; any other value is ignored, with a warning on standard error once per
/// process, under the `std` feature); [`RelayoutPlan::with_simd`] chooses another. A
/// level the machine does not run is never used: the best one below it is. Every level
/// produces the same bytes; they differ only in speed.
///
/// [`RelayoutPlan::with_simd`]: crate::RelayoutPlan::with_simd
///
/// ```
/// use layout_runtime::Simd;
/// let best = Simd::detect();
/// assert!(best.is_supported());
/// assert_eq!(Simd::supported().last(), Some(best));
/// assert_eq!(Simd::supported().next(), Some(Simd::Portable));
/// assert_eq!(Simd::from_name("sse2"), Some(Simd::Sse2));
/// assert_eq!(Simd::Avx2.name(), "avx2");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Simd {
    /// Plain Rust, for every target: whatever the compiler vectorizes by itself, no
    /// non-temporal stores.
    Portable,
    /// The SSE2 kernels (every x86_64 machine): 16-byte shuffles, non-temporal stores.
    Sse2,
    /// The AVX2 kernels (x86_64 machines with AVX2, found at run time): 32-byte shuffles,
    /// the SSE2 kernels where AVX2 has nothing better.
    Avx2,
    /// The AVX-512 kernels (x86_64 machines with AVX-512 F and BW, found at run time, built
    /// with Rust 1.89 or later, whose `core::arch` has them): 64-byte loads and non-temporal
    /// stores, whole cache lines at a time; two-source word permutes (`vpermt2w`) for row
    /// pairs, and byte permutes (`vpermt2b`) for the `(4,1)` quads where the CPU has VBMI;
    /// the AVX2 kernels where AVX-512 has nothing better.
    Avx512,
}

const LEVELS: [Simd; 4] = [Simd::Portable, Simd::Sse2, Simd::Avx2, Simd::Avx512];

impl Simd {
    /// The best level this machine runs. AVX2 and AVX-512 are found at run time with the
    /// `std` feature (`is_x86_feature_detected!`), and without it only when the build enables
    /// them (`-C target-feature=+avx2`, `+avx512f,+avx512bw`).
    ///
    /// ```
    /// use layout_runtime::Simd;
    /// #[cfg(target_arch = "x86_64")]
    /// assert!(layout_runtime::Simd::detect() >= Simd::Sse2);
    /// ```
    pub fn detect() -> Simd {
        if Avx512::new().is_some() {
            Simd::Avx512
        } else if Avx2::new().is_some() {
            Simd::Avx2
        } else if cfg!(all(target_arch = "x86_64", target_feature = "sse2")) {
            Simd::Sse2
        } else {
            Simd::Portable
        }
    }

    /// Whether this machine runs this level.
    ///
    /// ```
    /// use layout_runtime::Simd;
    /// assert!(Simd::Portable.is_supported());
    /// ```
    pub fn is_supported(self) -> bool {
        self <= Simd::detect()
    }

    /// Every level this machine runs, lowest first (what tests loop over).
    ///
    /// ```
    /// use layout_runtime::Simd;
    /// assert!(Simd::supported().all(Simd::is_supported));
    /// ```
    pub fn supported() -> impl Iterator<Item = Simd> {
        let best = Simd::detect();
        LEVELS.into_iter().filter(move |&l| l <= best)
    }

    /// The level's name, as `XLAYOUT_SIMD` and [`Simd::from_name`] take it.
    ///
    /// ```
    /// assert_eq!(layout_runtime::Simd::Portable.name(), "portable");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Simd::Portable => "portable",
            Simd::Sse2 => "sse2",
            Simd::Avx2 => "avx2",
            Simd::Avx512 => "avx512",
        }
    }

    /// The level named `name` (`portable`, `sse2`, `avx2` or `avx512`), whether this machine
    /// runs it or not.
    ///
    /// ```
    /// use layout_runtime::Simd;
    /// assert_eq!(Simd::from_name("avx2"), Some(Simd::Avx2));
    /// assert_eq!(Simd::from_name("AVX2"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Simd> {
        LEVELS.into_iter().find(|l| l.name() == name)
    }

    /// The level a plan starts with: the best one, lowered to `XLAYOUT_SIMD`'s.
    pub(super) fn for_plans() -> Simd {
        let best = Simd::detect();
        match env_simd() {
            Some(asked) => asked.min(best),
            None => best,
        }
    }
}

/// An environment variable, read once per process: `None` when it is unset or empty, or
/// without `std`. A value `$parse` refuses is ignored with one warning on standard error
/// (once per process, at the first plan that reads it), naming what it takes instead: a
/// setting that silently does nothing sends people measuring the wrong thing.
macro_rules! env_once {
    ($name:literal, $t:ty, $parse:expr, $takes:literal) => {{
        #[cfg(feature = "std")]
        {
            static ONCE: std::sync::OnceLock<Option<$t>> = std::sync::OnceLock::new();
            *ONCE.get_or_init(|| {
                let value = std::env::var($name).ok()?;
                let value = value.trim();
                if value.is_empty() {
                    return None;
                }
                let parsed = $parse(value);
                if parsed.is_none() {
                    std::eprintln!("warning: {}={value:?} is ignored: it takes {}", $name, $takes);
                }
                parsed
            })
        }
        #[cfg(not(feature = "std"))]
        {
            None::<$t>
        }
    }};
}

/// `XLAYOUT_SIMD`.
pub(super) fn env_simd() -> Option<Simd> {
    env_once!("XLAYOUT_SIMD", Simd, Simd::from_name, "`portable`, `sse2`, `avx2` or `avx512`")
}

/// Proof that this CPU runs AVX2: the only constructor checks, so a kernel that takes one
/// may use AVX2 instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Avx2 {
    _checked: (),
}

impl Avx2 {
    pub(super) fn new() -> Option<Avx2> {
        #[cfg(all(target_arch = "x86_64", feature = "std"))]
        let yes = std::is_x86_feature_detected!("avx2");
        #[cfg(not(all(target_arch = "x86_64", feature = "std")))]
        let yes = cfg!(all(target_arch = "x86_64", target_feature = "avx2"));
        yes.then_some(Avx2 { _checked: () })
    }
}

/// Proof that this CPU runs AVX-512 F and BW (and AVX2, which every such CPU has: the kernels
/// fall back to the AVX2 ones for what AVX-512 does no better), and whether it runs VBMI's
/// byte permutes: the only constructor checks, so a kernel that takes one may use them.
/// Only where the compiler has the intrinsics (`cfg(xlayout_avx512)`, set by `build.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Avx512 {
    avx2: Avx2,
    vbmi: bool,
}

impl Avx512 {
    /// The AVX2 proof it carries.
    pub(super) fn avx2(self) -> Avx2 {
        self.avx2
    }

    /// Whether the CPU runs VBMI's byte permutes.
    pub(super) fn vbmi(self) -> bool {
        self.vbmi
    }

    /// The same proof without VBMI (a weaker claim, true whenever this one is): for the
    /// tests of the kernels' other path.
    #[cfg(test)]
    pub(super) fn without_vbmi(self) -> Avx512 {
        Avx512 { vbmi: false, ..self }
    }

    pub(super) fn new() -> Option<Avx512> {
        #[cfg(all(xlayout_avx512, feature = "std"))]
        let (yes, vbmi) = (
            std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512bw"),
            std::is_x86_feature_detected!("avx512vbmi"),
        );
        #[cfg(all(xlayout_avx512, not(feature = "std")))]
        let (yes, vbmi) = (
            cfg!(all(target_feature = "avx512f", target_feature = "avx512bw")),
            cfg!(target_feature = "avx512vbmi"),
        );
        #[cfg(not(xlayout_avx512))]
        let (yes, vbmi) = (false, false);
        let avx2 = Avx2::new()?;
        yes.then_some(Avx512 { avx2, vbmi })
    }
}

/// The level a plan's kernels run at, with the proof the AVX2 and AVX-512 kernels need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Level {
    Portable,
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    Sse2,
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    Avx2(Avx2),
    #[cfg(xlayout_avx512)]
    Avx512(Avx512),
}

impl Level {
    /// `simd` if this machine runs it, else `None`.
    pub(super) fn new(simd: Simd) -> Option<Level> {
        match simd {
            Simd::Portable => Some(Level::Portable),
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Simd::Sse2 => Some(Level::Sse2),
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Simd::Avx2 => Avx2::new().map(Level::Avx2),
            #[cfg(xlayout_avx512)]
            Simd::Avx512 => Avx512::new().map(Level::Avx512),
            #[allow(unreachable_patterns)] // every level exists on x86_64 with Rust 1.89
            _ => None,
        }
    }

    /// The AVX2 proof at this level or above it (the AVX-512 level runs the AVX2 kernels
    /// where it has none of its own).
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    pub(super) fn avx2(self) -> Option<Avx2> {
        match self {
            Level::Avx2(avx) => Some(avx),
            #[cfg(xlayout_avx512)]
            Level::Avx512(z) => Some(z.avx2()),
            _ => None,
        }
    }

    pub(super) fn simd(self) -> Simd {
        match self {
            Level::Portable => Simd::Portable,
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Level::Sse2 => Simd::Sse2,
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Level::Avx2(_) => Simd::Avx2,
            #[cfg(xlayout_avx512)]
            Level::Avx512(_) => Simd::Avx512,
        }
    }

    /// Whether non-temporal stores are available.
    pub(super) fn streams(self) -> bool {
        !matches!(self, Level::Portable)
    }
}

/// Data cache sizes of one core in bytes: the first level and the second. (The last level
/// is shared, and a virtual machine reports the whole socket's: no rule reads it.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Caches {
    pub l1: usize,
    pub l2: usize,
}

/// Used where CPUID says nothing (other architectures, virtual machines that hide the
/// cache leaves): a common x86 server core.
const FALLBACK: Caches = Caches { l1: 32 << 10, l2: 512 << 10 };

impl Caches {
    /// This machine's caches (CPUID on x86_64, read once), or [`FALLBACK`].
    pub(super) fn get() -> Caches {
        static L1: AtomicUsize = AtomicUsize::new(0);
        static L2: AtomicUsize = AtomicUsize::new(0);
        // Racing first calls compute the same values: plain loads and stores suffice.
        if L2.load(Ordering::Relaxed) == 0 {
            let c = Caches::read().unwrap_or(FALLBACK);
            L1.store(c.l1, Ordering::Relaxed);
            L2.store(c.l2, Ordering::Relaxed);
            return c;
        }
        Caches { l1: L1.load(Ordering::Relaxed), l2: L2.load(Ordering::Relaxed) }
    }

    /// The data and unified caches CPUID lists: leaf 4 (Intel) or 0x8000_001D (AMD), the
    /// same format. `None` when neither lists a first-level data cache.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    fn read() -> Option<Caches> {
        use core::arch::x86_64::{__cpuid_count, CpuidResult};
        let cpuid = |leaf: u32, sub: u32| -> CpuidResult {
            // SAFETY: CPUID exists on every x86_64 processor and only reads identification
            // registers: it has no memory operands and no other precondition. (A safe
            // function from Rust 1.88 on, hence the allowance.)
            #[allow(unused_unsafe)]
            unsafe {
                __cpuid_count(leaf, sub)
            }
        };
        let vendor = cpuid(0, 0);
        let amd = (vendor.ebx, vendor.edx, vendor.ecx) == (0x6874_7541, 0x6974_6e65, 0x444d_4163);
        let (leaf, max) =
            if amd { (0x8000_001D, cpuid(0x8000_0000, 0).eax) } else { (4, vendor.eax) };
        if max < leaf {
            return None;
        }
        let mut found = Caches { l1: 0, l2: 0 };
        for sub in 0..16 {
            let r = cpuid(leaf, sub);
            let kind = r.eax & 0x1F; // 0 none (the end), 1 data, 2 instruction, 3 unified
            if kind == 0 {
                break;
            }
            if kind == 2 {
                continue;
            }
            let ways = (r.ebx >> 22) as usize + 1;
            let partitions = ((r.ebx >> 12) & 0x3FF) as usize + 1;
            let line = (r.ebx & 0xFFF) as usize + 1;
            let sets = r.ecx as usize + 1;
            let size = ways * partitions * line * sets;
            match (r.eax >> 5) & 7 {
                1 => found.l1 = size,
                2 => found.l2 = size,
                _ => {}
            }
        }
        if found.l1 == 0 {
            return None;
        }
        found.l2 = if found.l2 == 0 { found.l1 } else { found.l2 };
        Some(found)
    }

    /// Other architectures; and Miri, which cannot run CPUID (inline assembly in
    /// `core::arch`): the kernels' choices then come from [`FALLBACK`].
    #[cfg(any(not(target_arch = "x86_64"), miri))]
    fn read() -> Option<Caches> {
        None
    }

    /// Source rows a large transpose takes at a time: as many 64-byte lines as fill a
    /// quarter of the first-level cache (128 for 32 KiB). Each tile uses 16 or 32 bytes of
    /// a source line and the next tile to the right the rest; with this many rows between
    /// the two uses, the line is still cached even when the rows are a power of two apart
    /// and crowd into a few cache sets.
    pub(super) fn transpose_rows(self) -> usize {
        (self.l1 / 4 / 64).clamp(16, 1024)
    }

    /// The rules' size from which destinations are written with non-temporal stores, and
    /// measuring pays (`measure`): eight times the second-level cache of a core, at least
    /// 4 MiB. A destination that large does not stay in the caches of the core writing it,
    /// and is mostly evicted before anyone reads it; streaming skips reading each destination
    /// line first. The second-level cache is per core, and a virtual machine reports it as
    /// the CPU has it; the last-level cache it reports is the whole socket's (480 MiB on one
    /// machine, of which a guest of two cores gets a small and changing share), which put
    /// the old rule (half the last level) above every destination there.
    pub(super) fn large(self) -> usize {
        (8 * self.l2).max(4 << 20)
    }
}

/// `XLAYOUT_STREAM_MIN`.
pub(super) fn env_stream_min() -> Option<usize> {
    env_once!("XLAYOUT_STREAM_MIN", usize, |v: &str| v.parse().ok(), "a number of bytes")
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Says on standard error, past the test harness's capture (which takes only what
    /// `print!` and `eprint!` write), that `what` did not run because this machine lacks
    /// `level`: a test that cannot run its subject must not look like one that passed.
    /// Where the environment variable `XLAYOUT_REQUIRE_SIMD` names `level` or one above it
    /// (a machine known to have it, as CI can say), it fails instead.
    #[cfg(feature = "std")]
    pub(in super::super) fn say_untested(level: Simd, what: &str) {
        use std::io::Write;
        let why = if level == Simd::Avx512 && !cfg!(xlayout_avx512) {
            "this compiler has no AVX-512 intrinsics (Rust 1.89 and later have them)"
        } else {
            "this CPU does not run it"
        };
        let required = std::env::var("XLAYOUT_REQUIRE_SIMD").ok();
        if let Some(required) = required.as_deref().and_then(Simd::from_name) {
            assert!(required < level, "{what}: XLAYOUT_REQUIRE_SIMD={required:?}, but {why}");
        }
        let line = std::format!("NOT TESTED: {what} at the {} level: {why}\n", level.name());
        let _ = std::io::stderr().write_all(line.as_bytes());
    }

    #[test]
    fn levels_and_names() {
        assert_eq!(Simd::supported().next(), Some(Simd::Portable));
        for l in LEVELS {
            assert_eq!(Simd::from_name(l.name()), Some(l));
            assert_eq!(Level::new(l).map(Level::simd), l.is_supported().then_some(l));
        }
        assert_eq!(Simd::from_name("avx9"), None);
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        assert!(Simd::detect() >= Simd::Sse2);
    }

    #[test]
    fn caches_are_ordered_and_plausible() {
        let c = Caches::get();
        assert_eq!(Caches::get(), c); // the second call reads what the first stored
        assert!(c.l1 >= 4 << 10 && c.l1 <= c.l2 && c.l2 <= 1 << 30, "{c:?}");
        assert!(c.large() >= 8 * c.l2 && c.large() >= 4 << 20, "{c:?}");
    }
}
