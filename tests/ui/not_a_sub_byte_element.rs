// i8 is a whole byte: it does not pack below one
use xlayout::SubByte;

fn bits<E: SubByte>() -> u32 {
    E::BITS
}

fn main() {
    let _ = bits::<i8>();
}
