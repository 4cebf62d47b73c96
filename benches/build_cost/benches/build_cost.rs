//! What `layout!` costs a user's build: a crate of N distinct `layout!` items against a crate
//! of N minimal hand-written accessors for the same layouts, each rebuilt in release
//! (`cargo build --release` after touching its source; its dependencies stay built), measured
//! in the same run. The figure: (macro crate − hand-written crate) / N, in ms per layout.
//!
//! Each rebuild is timed by the CPU time cargo and rustc take (user + system, all threads),
//! which other processes on a shared machine do not inflate; the wall-clock time is printed
//! beside it.
//!
//! `cargo bench --bench build_cost` in benches/build_cost (`XLAYOUT_LAYOUTS=N` for another N).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode};

#[path = "../../common/mod.rs"]
mod common;
use common::median_ns;
use xlayout_build_cost::{specs, Fixture};

/// CPU seconds (user + system) of this process's waited-for children and theirs, from
/// `/proc/self/stat`: fields 16 and 17 (cutime, cstime), in clock ticks of 1/100 s on Linux.
fn children_cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("Linux /proc");
    // After `(comm) ` the fields start at 3 (state); the name may hold blanks.
    let fields: Vec<&str> = stat[stat.rfind(')').expect("(comm)") + 2..].split(' ').collect();
    let ticks = |k: usize| fields[k - 3].parse::<f64>().expect("a number");
    (ticks(16) + ticks(17)) / 100.0
}

/// One release rebuild of the fixture at `root` (its source touched first), in CPU time and
/// wall-clock time.
fn rebuild(root: &Path, target: &Path) -> (Duration, Duration) {
    let lib = root.join("src/lib.rs");
    let text = std::fs::read(&lib).unwrap();
    std::fs::write(&lib, text).unwrap(); // a new mtime: cargo rebuilds this crate only
    let (cpu, wall) = (children_cpu(), Instant::now());
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| String::from("cargo")))
        .args(["build", "--release", "--offline", "--quiet"])
        .current_dir(root)
        .env("CARGO_TARGET_DIR", target)
        .status()
        .unwrap();
    assert!(status.success(), "{} does not build", root.display());
    (Duration::from_secs_f64(children_cpu() - cpu), wall.elapsed())
}

fn main() {
    let n: usize = std::env::var("XLAYOUT_LAYOUTS").ok().and_then(|n| n.parse().ok()).unwrap_or(500);
    let specs = specs(n);
    for s in &specs {
        s.check();
    }
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let xlayout = here.join("../..").canonicalize().unwrap();
    let dir = here.join("target/fixtures");
    let target = dir.join("target");
    let group = format!("build_cost/{n}_layouts");
    let mut c = Criterion::default().configure_from_args();
    let mut g = c.benchmark_group(&group);
    g.sampling_mode(SamplingMode::Flat).sample_size(10);
    g.warm_up_time(Duration::from_millis(1)).measurement_time(Duration::from_secs(1));
    let mut wall = Vec::new();
    for fixture in [Fixture::Hand, Fixture::Macro] {
        fixture.write(&dir, &xlayout, &specs).unwrap();
        let root = dir.join(fixture.name());
        rebuild(&root, &target); // the dependencies, once
        let mut walls = Vec::new();
        g.bench_function(fixture.name(), |b| {
            b.iter_custom(|iters| {
                let mut cpu = Duration::ZERO;
                for _ in 0..iters {
                    let (c, w) = rebuild(&root, &target);
                    cpu += c;
                    walls.push(w.as_secs_f64());
                }
                cpu
            })
        });
        walls.sort_by(f64::total_cmp);
        wall.push(walls[walls.len() / 2]);
    }
    g.finish();
    c.final_summary();
    let median = |f: Fixture| median_ns(&group, f.name()).map(|ns| ns / 1e9);
    if let (Some(hand), Some(made)) = (median(Fixture::Hand), median(Fixture::Macro)) {
        println!("\n{n} layouts, release rebuild of the crate (median CPU time; wall-clock beside):");
        println!("  hand-written  {hand:.3} s CPU  ({:.3} s wall)", wall[0]);
        println!("  layout!       {made:.3} s CPU  ({:.3} s wall)", wall[1]);
        println!(
            "  layout! costs {:.2} ms per layout over hand-written (CPU; {:.2} ms wall), ratio {:.1}",
            (made - hand) * 1e3 / n as f64,
            (wall[1] - wall[0]) * 1e3 / n as f64,
            made / hand
        );
    }
}
