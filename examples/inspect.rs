//! Reads XLA shapes (arguments, or one per line of standard input, as pasted from an HLO
//! dump) and prints what xlayout knows about each: the canonical text, XLA's byte size, the
//! tiled index space and where the first and last elements live.
//!
//! ```sh
//! cargo run --example inspect -- 'bf16[16,256]{1,0:T(8,128)(2,1)}' 'f32[3,5]{1,0:T(0,2)}'
//! ```

use std::io::{BufRead, IsTerminal};

use xlayout::{Error, Shape};

fn inspect(text: &str) -> Result<(), Error> {
    let shape: Shape = text.parse()?;
    println!("{shape}");
    let Some(array) = shape.as_array() else {
        println!("  not an array: no sizes or offsets");
        return Ok(());
    };
    println!("  XLA byte size (ArraySize): {}", array.byte_size()?);
    println!("  data without padding (ByteSizeOf): {}", array.byte_size_of()?);
    let plan = array.plan()?;
    println!("  index space: {:?} = {} elements", plan.expanded_shape(), plan.grid_len());
    if plan.dims().iter().all(|&d| d > 0) {
        let first = vec![0; plan.rank()];
        let last: Vec<usize> = plan.dims().iter().map(|&d| d - 1).collect();
        println!("  {first:?} -> offset {}", plan.offset(&first)?);
        println!("  {last:?} -> offset {}", plan.offset(&last)?);
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let inputs: Vec<String> = if args.is_empty() {
        // At a terminal, silence would look like a hang: say what is read and how to end it.
        if std::io::stdin().is_terminal() {
            let end = if cfg!(windows) { "Ctrl-Z, then Enter" } else { "Ctrl-D" };
            eprintln!("inspect: reading shapes from standard input, one a line ({end} to end)");
        }
        std::io::stdin()
            .lock()
            .lines()
            .map_while(Result::ok)
            .filter(|l| !l.trim().is_empty())
            .collect()
    } else {
        args
    };
    for text in inputs {
        if let Err(e) = inspect(text.trim()) {
            println!("{text}\n  error: {e}");
        }
    }
}
