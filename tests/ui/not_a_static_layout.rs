// a plain Rust type is not a layout: layout! writes one
use xlayout::StaticLayout;

fn rank<L: StaticLayout>() -> usize {
    L::RANK
}

fn main() {
    let _ = rank::<[f32; 4]>();
}
