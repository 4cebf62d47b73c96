// after an error the placeholder has the right rank and type: no follow-on errors
use xlayout::layout;

fn main() {
    let l = layout!(f32[3,5]{1,1});
    let offset: usize = l.offset([2, 4]);
    let _ = offset;
}
