//! The fixtures of the build-cost benchmark: `n` distinct TPU-style layouts (ranks 2 to 4, six
//! element types, each with the tiling a TPU gives it), written once as `layout!` items and
//! once as minimal hand-written accessors (a unit struct and a `const fn offset` with the
//! layout's closed form), each as a crate of its own.
//!
//! The hand-written closed form is checked against the runtime plan of the same text
//! ([`Spec::check`]), so both crates describe the same layouts.

use std::fmt::Write as _;
use std::path::Path;

/// An element type and the TPU tiling of its width: `T(8,128)` for 32 bits, `(2,1)` row pairs
/// for 16 bits, `(4,1)` row quads for 8 bits.
const TYPES: [(&str, usize, usize); 6] = [
    ("f32", 8, 1),
    ("s32", 8, 1),
    ("bf16", 8, 2),
    ("f16", 8, 2),
    ("s8", 32, 4),
    ("u8", 8, 4),
];

/// One layout: `ty[dims]{r-1,...,0:T(rows,128)(group,1)}` (no second level when `group` is 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    ty: &'static str,
    dims: Vec<usize>,
    tile_rows: usize,
    group: usize,
}

const TILE_COLS: usize = 128;

impl Spec {
    /// The shape text, as XLA prints it.
    pub fn text(&self) -> String {
        let dims: Vec<String> = self.dims.iter().map(usize::to_string).collect();
        let m2m: Vec<String> = (0..self.dims.len()).rev().map(|d| d.to_string()).collect();
        let sub = if self.group > 1 { format!("({},1)", self.group) } else { String::new() };
        format!(
            "{}[{}]{{{}:T({},{TILE_COLS}){sub}}}",
            self.ty,
            dims.join(","),
            m2m.join(","),
            self.tile_rows
        )
    }

    /// Tiles along the two minor dimensions.
    fn tile_grid(&self) -> (usize, usize) {
        let r = self.dims.len();
        (self.dims[r - 2].div_ceil(self.tile_rows), self.dims[r - 1].div_ceil(TILE_COLS))
    }

    /// The offset of `index` by the closed form the hand-written accessor spells out.
    pub fn hand_offset(&self, index: &[usize]) -> usize {
        let r = self.dims.len();
        let (rows, cols) = self.tile_grid();
        let lead = index[..r - 2].iter().zip(&self.dims).fold(0, |acc, (i, d)| acc * d + i);
        let (i, j) = (index[r - 2], index[r - 1]);
        let tile = (lead * rows + i / self.tile_rows) * cols + j / TILE_COLS;
        let (a, b) = (i % self.tile_rows, j % TILE_COLS);
        let inner = (a / self.group * TILE_COLS + b) * self.group + a % self.group;
        tile * self.tile_rows * TILE_COLS + inner
    }

    /// The hand-written accessor: a unit struct and its `const fn offset`.
    fn hand_item(&self, name: &str) -> String {
        let r = self.dims.len();
        let (rows, cols) = self.tile_grid();
        let vars: Vec<String> = (0..r).map(|d| format!("i{d}")).collect();
        let mut lead = String::from("0");
        for d in 0..r - 2 {
            lead = format!("({lead}) * {} + i{d}", self.dims[d]);
        }
        let (i, j, t, g) = (&vars[r - 2], &vars[r - 1], self.tile_rows, self.group);
        format!(
            "/// `{text}`.\npub struct {name};\n\nimpl {name} {{\n    /// The element offset of an index.\n    \
             pub const fn offset(self, index: [usize; {r}]) -> usize {{\n        let [{vars}] = index;\n        \
             (((({lead}) * {rows} + {i} / {t}) * {cols} + {j} / {TILE_COLS}) * {tile}) + \
             ({i} % {t} / {g} * {TILE_COLS} + {j} % {TILE_COLS}) * {g} + {i} % {g}\n    }}\n}}\n\n",
            text = self.text(),
            vars = vars.join(", "),
            tile = t * TILE_COLS,
        )
    }

    /// Checks the closed form against the runtime plan of the text at a spread of indices.
    ///
    /// # Panics
    ///
    /// When the two disagree: the fixtures would not describe the same layouts.
    pub fn check(&self) {
        let shape: xlayout::ArrayShape = self.text().parse().expect("a valid layout");
        let plan = shape.plan().expect("a static array");
        let n: usize = self.dims.iter().product();
        for k in (0..n).step_by(n / 97 + 1).chain([n - 1]) {
            let mut rest = k;
            let mut index = vec![0; self.dims.len()];
            for (i, d) in index.iter_mut().zip(&self.dims).rev() {
                (*i, rest) = (rest % d, rest / d);
            }
            assert_eq!(self.hand_offset(&index), plan.offset(&index).unwrap(), "{}", self.text());
        }
    }
}

/// A tiny deterministic generator (64-bit LCG), so every machine builds the same fixtures.
struct Lcg(u64);

impl Lcg {
    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        from[(self.0 >> 33) as usize % from.len()]
    }
}

/// `n` distinct layouts.
pub fn specs(n: usize) -> Vec<Spec> {
    let mut rng = Lcg(0x0B11_D_C057);
    let mut specs: Vec<Spec> = Vec::with_capacity(n);
    while specs.len() < n {
        let (ty, tile_rows, group) = rng.pick(&TYPES);
        let rank = rng.pick(&[2, 3, 4]);
        let mut dims: Vec<usize> = (0..rank - 2).map(|_| rng.pick(&[1, 2, 3, 4, 6, 8])).collect();
        dims.push(rng.pick(&[8, 16, 24, 32, 64, 100, 128, 256, 512]));
        dims.push(rng.pick(&[96, 128, 256, 384, 512, 1000, 1024, 2048]));
        let spec = Spec { ty, dims, tile_rows, group };
        if !specs.contains(&spec) {
            specs.push(spec);
        }
    }
    specs
}

/// Which crate to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fixture {
    /// One `layout! { pub struct L = ...; }` per layout.
    Macro,
    /// One hand-written accessor per layout.
    Hand,
}

impl Fixture {
    /// The crate's directory name.
    pub fn name(self) -> &'static str {
        match self {
            Fixture::Macro => "layouts-macro",
            Fixture::Hand => "layouts-hand",
        }
    }

    /// The crate's `src/lib.rs` for `specs`.
    pub fn source(self, specs: &[Spec]) -> String {
        let mut out = String::from("//! Generated by xlayout-build-cost.\n#![no_std]\n\n");
        for (k, spec) in specs.iter().enumerate() {
            match self {
                Fixture::Macro => {
                    let _ = writeln!(out, "xlayout::layout! {{ pub struct L{k} = {}; }}", spec.text());
                }
                Fixture::Hand => out += &spec.hand_item(&format!("L{k}")),
            }
        }
        out
    }

    /// Writes the crate into `dir/<name>`, with xlayout at `xlayout` (for the macro's crate).
    ///
    /// # Errors
    ///
    /// When the files cannot be written.
    pub fn write(self, dir: &Path, xlayout: &Path, specs: &[Spec]) -> std::io::Result<()> {
        let root = dir.join(self.name());
        std::fs::create_dir_all(root.join("src"))?;
        let dependency = match self {
            Fixture::Macro => format!(
                "xlayout = {{ path = {:?}, default-features = false }}\n",
                xlayout.display().to_string()
            ),
            Fixture::Hand => String::new(),
        };
        let manifest = format!(
            "[package]\nname = \"{}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [workspace]\n\n[dependencies]\n{dependency}",
            self.name()
        );
        std::fs::write(root.join("Cargo.toml"), manifest)?;
        std::fs::write(root.join("src/lib.rs"), self.source(specs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_written_offsets_are_the_runtime_plan() {
        let specs = specs(500);
        for s in &specs {
            s.check();
        }
        let ranks: Vec<usize> = specs.iter().map(|s| s.dims.len()).collect();
        assert!((2..=4).all(|r| ranks.contains(&r)));
    }

    #[test]
    fn a_layout_of_each_kind() {
        let s = Spec { ty: "bf16", dims: vec![3, 16, 256], tile_rows: 8, group: 2 };
        assert_eq!(s.text(), "bf16[3,16,256]{2,1,0:T(8,128)(2,1)}");
        // (1, 9, 130): block 1 of 3, tile row 1 of 2, tile column 1 of 2; in the tile, row
        // pair 0 (row 1 of it), column 2.
        assert_eq!(s.hand_offset(&[1, 9, 130]), ((1 * 2 + 1) * 2 + 1) * 1024 + (2 * 2 + 1));
        s.check();
    }
}
