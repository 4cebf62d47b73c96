// one `layout!` per array
use xlayout::layout;

fn main() {
    let _ = layout!((f32[2], s32[3]));
}
