//! What the benchmarks share: reading criterion's estimates of this run back, to print
//! each benchmark as a ratio to its baseline.

/// The median time (ns) criterion estimated for `bench` of `group` in this run.
pub fn median_ns(group: &str, bench: &str) -> Option<f64> {
    let dir = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| String::from("target"));
    // criterion's directory names: these characters become `_`.
    let clean = |s: &str| s.replace(['/', ':', '\\', '?', '*', '"', '<', '>', '|'], "_");
    let path = format!("{dir}/criterion/{}/{}/new/estimates.json", clean(group), clean(bench));
    let text = std::fs::read_to_string(path).ok()?;
    let rest = &text[text.find("\"median\":{")?..];
    let pe = &rest[rest.find("\"point_estimate\":")? + 17..];
    pe[..pe.find(',')?].parse().ok()
}
