// a layout that packs 4-bit elements has no typed storage: PackedBuffer reads and writes it
use xlayout::{layout, Buffer};

layout! { struct Nibbles = s4[64,128]{1,0:T(64,128)(8,1)E(4)}; }

fn main() {
    let _ = Buffer::<Nibbles>::zeroed();
}
