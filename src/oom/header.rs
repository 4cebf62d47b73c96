//! The lines of a report's header that carry their own structure: a breakdown's named
//! sizes ([`Part`]), the `HLO temp` part's note ([`HloTemp`]) and the TPU runtime's own
//! message ([`Runtime`]), each read from one line's text. The report's reader
//! ([`OomReport`](super::OomReport)) finds the lines; this file reads them.

use serde::Serialize;

use super::entry::Printed;
use crate::memory::ratio::Percent;

/// A named size of a breakdown (`reserved 530.00M`, `HLO temp 36.15G (...)`).
///
/// ```
/// let r = xlayout::oom::OomReport::parse("Total hbm usage >= 1.00G:\n    reserved   530.00M\n");
/// assert_eq!((r.usage[0].name.as_str(), r.usage[0].size.text.as_str()), ("reserved", "530.00M"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Part {
    /// `reserved`, `program`, `arguments`, `global`, `scoped`, `HLO temp`, `parameter
    /// allocation`, ...
    pub name: String,
    /// The size (`unknown size` reads as no bytes).
    pub size: Printed,
    /// What follows the size, as printed.
    pub note: Option<String>,
}

/// `HLO temp 36.15G (60.9% utilization: Unpadded (9.40G) Padded (15.44G), 0.0%
/// fragmentation (5.52M))`, or the older form without `Unpadded (...) Padded (...)`.
///
/// ```
/// let r = xlayout::oom::OomReport::parse("Program hbm requirement 15.45G:\n    HLO temp 15.45G (60.9% utilization: Unpadded (9.40G) Padded (15.44G), 0.0% fragmentation (5.52M))\n");
/// let h = r.hlo_temp.unwrap();
/// assert_eq!((h.utilization_recomputed.unwrap().to_string(), h.utilization_agrees), (String::from("60.9"), Some(true)));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HloTemp {
    /// The size.
    pub size: Printed,
    /// The utilization percentage as printed (`60.9`).
    pub utilization: Option<String>,
    /// `Unpadded (...)`.
    pub unpadded: Option<Printed>,
    /// `Padded (...)`.
    pub padded: Option<Printed>,
    /// The fragmentation percentage as printed.
    pub fragmentation: Option<String>,
    /// The fragmentation in bytes.
    pub fragmentation_size: Option<Printed>,
    /// Unpadded over padded, as a percentage to one decimal, from the printed sizes.
    pub utilization_recomputed: Option<Percent>,
    /// Whether the printed utilization is within the rounding of the printed sizes.
    pub utilization_agrees: Option<bool>,
}

/// The TPU runtime's message when it cannot reserve or allocate device memory for a
/// program it runs: `Attempting to reserve 10.51G at the bottom of memory. That was not
/// possible. There are 8.97G free, 0B reserved, and 8.97G reservable.`, or `Attempting to
/// allocate 2.50G. That was not possible. There are 2.13G free.; (0x0x0_HBM0)`.
///
/// ```
/// let r = xlayout::oom::OomReport::parse("RESOURCE_EXHAUSTED: Attempting to reserve 10.51G at the bottom of memory. That was not possible. There are 8.97G free, 0B reserved, and 8.97G reservable.\n");
/// let x = r.runtime.unwrap();
/// assert_eq!((x.action.as_str(), x.requested.text.as_str(), x.free.unwrap().text.as_str()), ("reserve", "10.51G", "8.97G"));
/// assert_eq!(x.reservable.unwrap().bytes, Some(9_631_464_161)); // 8.97G: 9631464161.28
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Runtime {
    /// `reserve` (at the bottom of memory: the program's own space) or `allocate` (a
    /// buffer).
    pub action: String,
    /// The size asked for.
    pub requested: Printed,
    /// Where: `bottom of memory`, or the memory named in parentheses after the message
    /// (`0x0x0_HBM0`).
    pub memory_space: Option<String>,
    /// `There are N free`.
    pub free: Option<Printed>,
    /// `N reserved`.
    pub reserved: Option<Printed>,
    /// `N reservable`.
    pub reservable: Option<Printed>,
    /// How much more was asked for than was free (or reservable, when printed).
    pub short_by: Option<u64>,
}

/// `reserve 10.51G at the bottom of memory. That was not possible. There are 8.97G free,
/// 0B reserved, and 8.97G reservable.` (what follows `Attempting to `).
pub(super) fn runtime(t: &str) -> Runtime {
    let mut words = t.split_whitespace();
    let action = words.next().unwrap_or("").to_string();
    let requested = Printed::new(words.next().unwrap_or("").trim_end_matches(['.', ',', ';']));
    let memory_space = if t.contains(" at the bottom of memory") {
        Some(String::from("bottom of memory"))
    } else {
        // `...; (0x0x0_HBM0)` after the message names the memory.
        t.rsplit_once('(')
            .and_then(|(_, m)| m.split(')').next())
            .filter(|m| !m.is_empty() && m.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
            .map(str::to_string)
    };
    let before = |word: &str| -> Option<Printed> {
        let at = t.find(&format!(" {word}"))?;
        let size = t[..at].rsplit([' ', ',']).next()?;
        let p = Printed::new(size);
        p.bytes.map(|_| p)
    };
    let free = before("free");
    let reserved = before("reserved");
    let reservable = before("reservable");
    let room = reservable.as_ref().or(free.as_ref()).and_then(|p| p.bytes);
    let short_by = requested.bytes.zip(room).map(|(want, room)| want.saturating_sub(room));
    Runtime { action, requested, memory_space, free, reserved, reservable, short_by }
}

/// `24.2% utilization` and other notes after a size: (size, note).
pub(super) fn split_note(t: &str) -> (&str, Option<String>) {
    match t.split_once(' ') {
        Some((size, note))
            if !size.is_empty() && crate::memory::units::printed_bytes(size).is_some() =>
        {
            (size, Some(note.trim().to_string()))
        }
        _ => (t, None),
    }
}

/// `name   size (note)` of a breakdown.
pub(super) fn part(t: &str) -> Option<Part> {
    // The name is every word before the first that reads as a size (or `unknown`).
    let words: Vec<&str> = t.split_whitespace().collect();
    let at = words
        .iter()
        .position(|w| crate::memory::units::printed_bytes(w).is_some() || *w == "unknown")?;
    if at == 0 {
        return None;
    }
    let name = words[..at].join(" ");
    let size_at = t.find(words[at]).unwrap_or(0);
    let (size, note) = if words[at] == "unknown" {
        (t[size_at..].trim(), None)
    } else {
        split_note(t[size_at..].trim())
    };
    Some(Part { name, size: Printed::new(size), note })
}

/// The `HLO temp` part's note read.
pub(super) fn hlo_temp(p: &Part) -> HloTemp {
    let note = p.note.as_deref().unwrap_or("");
    let inner = note.strip_prefix('(').and_then(|n| n.strip_suffix(')')).unwrap_or(note);
    let utilization = inner.split_once("% utilization").map(|(u, _)| u.trim().to_string());
    let between = |key: &str| -> Option<Printed> {
        let rest = inner.split(key).nth(1)?.trim_start().strip_prefix('(')?;
        Some(Printed::new(rest.split(')').next()?))
    };
    let unpadded = between("Unpadded");
    let padded = between("Padded");
    let fragmentation = inner
        .split("% fragmentation")
        .next()
        .filter(|_| inner.contains("% fragmentation"))
        .and_then(|f| f.rsplit([',', ' ']).find(|w| !w.is_empty()))
        .map(str::to_string);
    let fragmentation_size = between("fragmentation");
    let (mut recomputed, mut agrees) = (None, None);
    if let (Some(u), Some(d)) = (unpadded.as_ref(), padded.as_ref()) {
        if let (Some(ub), Some(db), Some((ulo, uhi)), Some((dlo, dhi))) =
            (u.bytes, d.bytes, u.range(), d.range())
        {
            recomputed = Percent::new(ub, db);
            // The printed sizes are rounded: the true percentage lies in this range.
            let lo = (ulo as f64) / (dhi.max(1) as f64) * 100.0;
            let hi = (uhi as f64) / (dlo.max(1) as f64) * 100.0;
            agrees = utilization
                .as_deref()
                .and_then(|u| u.parse::<f64>().ok())
                .map(|u| u + 0.05 >= lo - 1e-9 && u - 0.05 <= hi + 1e-9);
        }
    }
    HloTemp {
        size: p.size.clone(),
        utilization,
        unpadded,
        padded,
        fragmentation,
        fragmentation_size,
        utilization_recomputed: recomputed,
        utilization_agrees: agrees,
    }
}
