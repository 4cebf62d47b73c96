// valid for XLA, but the padded grid of the longer-than-the-shape tile does not fit in usize
use xlayout::layout;

fn main() {
    let _ = layout!(u8[9223372036854775807]{0:T(9223372036854775807,2)});
}
