//! What the benchmarks against `wc -l` share: running `wc -l` on a file, and the CPU time
//! a measurement takes (which other processes sharing the machine do not inflate, unlike
//! wall-clock time).

use std::path::Path;
use std::process::Command;

/// `wc -l FILE`, spawned and waited for: the line count.
pub fn wc_l(path: &Path) -> usize {
    let out = Command::new("wc").arg("-l").arg(path).output().expect("`wc` runs");
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace().next().and_then(|n| n.parse().ok()).expect("`wc -l` prints a count")
}

/// CPU time used so far by this process and by its waited-for children, in seconds
/// (`/proc/self/stat`: utime, stime, cutime, cstime), for a figure the other processes on a
/// shared machine do not inflate. `None` where there is no such file.
fn cpu_seconds() -> Option<(f64, f64)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which is in parentheses and may hold blanks).
    let fields: Vec<u64> = stat[stat.rfind(')')? + 2..]
        .split(' ')
        .skip(11)
        .take(4)
        .filter_map(|f| f.parse().ok())
        .collect();
    let tick = Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse::<f64>().ok())
        .unwrap_or(100.0);
    match fields[..] {
        [u, s, cu, cs] => Some(((u + s) as f64 / tick, (cu + cs) as f64 / tick)),
        _ => None,
    }
}

/// CPU seconds per run of `f`, over `runs` runs (own time, or children's).
pub fn cpu_per_run(runs: u32, children: bool, mut f: impl FnMut()) -> Option<f64> {
    let before = cpu_seconds()?;
    for _ in 0..runs {
        f();
    }
    let after = cpu_seconds()?;
    let used = if children { after.1 - before.1 } else { after.0 - before.0 };
    Some(used / f64::from(runs))
}

/// Prints a Markdown table of each measurement of `group` (criterion's median in this run)
/// and its CPU time per run, each as a ratio to the first row's (`wc -l`).
pub fn ratio_table(group: &str, rows: &[(&str, Option<f64>)], cpu_wc: Option<f64>) {
    let wc = super::common::median_ns(group, rows[0].0);
    println!();
    println!("| measurement | wall, median | ratio to `wc -l` | CPU per run | ratio to `wc -l` |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for &(name, cpu) in rows {
        let (Some(t), Some(wc)) = (super::common::median_ns(group, name), wc) else { continue };
        let (cpu, ratio) = match (cpu, cpu_wc) {
            (Some(c), Some(w)) if w > 0.0 => (format!("{c:.3} s"), format!("{:.0}", c / w)),
            (Some(c), _) => (format!("{c:.3} s"), String::from("-")),
            _ => (String::from("-"), String::from("-")),
        };
        println!("| {name} | {:.3} s | {:.0} | {cpu} | {ratio} |", t / 1e9, t / wc);
    }
}
