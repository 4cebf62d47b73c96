// an attribute is a Rust scalar XLA has a type for; one Attr implements
use xlayout::ffi::handler;

handler! {
    pub fn attribute_type(x: f32[8], count: usize, big: i128) -> (y: f32[8]) {
        Ok(())
    }
}

fn main() {}
