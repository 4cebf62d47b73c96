// from_f32 is for floating-point elements; an s32 layout takes integers
use xlayout::fixed::TypedLayout;
use xlayout::{layout, Buffer, Float};

layout! { struct Ints = s32[4]; }

fn fill<L: TypedLayout<Index = [usize; 1]>>(buf: &mut Buffer<L>, x: f32)
where
    L::Elem: Float,
{
    buf[[0]] = L::Elem::from_f32(x);
}

fn main() {
    let mut buf = Buffer::<Ints>::zeroed();
    fill(&mut buf, 1.0);
}
