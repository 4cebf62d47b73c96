// item form: every item is checked; attributes pass through
use xlayout::layout;

layout! {
    /// Fine.
    pub struct Good = f32[3,5]{1,0:T(2,2)};
    /// Bad tile.
    struct Bad = f32[3,5]{1,0:T(2,0)};
    struct AlsoBad = s8[4]{0:L(0)};
}

fn main() {
    let _ = (Good.offset([0, 0]), Bad.offset([0, 0]), AlsoBad.offset([1]));
}
