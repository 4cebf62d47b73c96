//! The memory of a scheduled module on the page: what XLA:CPU allocates and its parts, the
//! timeline of what the allocations hold, XLA's live-range peak, and the lifetimes of the
//! buffers live at the temporaries' peak, their values under them.

use std::fmt::Write;

use super::cells::{bytes_cell, cut, percent};
use super::maps::Maps;
use crate::draw::svg::escape;
use crate::hlo::{shown, Module, Peak, PeakOptions, PlacedValue, StepAllocated};
use crate::memory::units::iec_bytes;
use crate::Shape;

/// The charts of the peak: where the plot starts (labels to its left), how wide it is.
const PLOT_LEFT: f64 = 270.0;
const PLOT_WIDTH: f64 = 960.0;
/// Columns of the timeline at most: a longer schedule gets one column per run of steps,
/// drawn at the run's largest (so the peak is never averaged away).
const TIMELINE_COLUMNS: usize = 960;
/// Characters of a value's name in the lifetime chart (its tooltip has all of it).
const LIFETIME_LABEL: usize = 28;

/// `x` to two decimals, for SVG coordinates.
fn px(x: f64) -> String {
    format!("{:.2}", x)
}

/// `name` (opcode in computation) of the instruction at a step, each name as a table shows
/// it ([`shown`]): every column of the timeline says it, and a long computation name would
/// be written once per column.
fn step_name(m: &Module<'_>, peak: &Peak, step: u32) -> String {
    let Some(&i) = peak.sequence.get(step as usize) else { return String::from("-") };
    let ins = &m.instructions[i];
    let computation = shown(m.computation_name(i).unwrap_or("-"));
    format!("{} ({} in {computation})", shown(ins.name), ins.opcode.as_str())
}

/// One buffer live at the temporaries' peak, as the page lists it: its kind, size, steps
/// and values (name, shape, steps), the values under it.
pub(super) struct Listed {
    pub kind: &'static str,
    pub size: u64,
    pub start: u32,
    pub end: u32,
    /// (name with its shape index, shape, first step, last step).
    pub values: Vec<(String, String, u32, u32)>,
}

/// The buffers live at the temporaries' peak, largest first, those `options` keep (the
/// first `top`, none under `min_bytes`): each allocation's or place's values grouped under
/// it.
pub(super) fn listed(m: &Module<'_>, peak: &Peak, options: &PeakOptions) -> Vec<Listed> {
    let a = &peak.assignment;
    peak.buffers_at(a.temp_peak.step)
        .into_iter()
        .take_while(|b| b.size >= options.min_bytes)
        .take(options.top)
        .map(|b| {
            let alloc = &a.allocations[b.allocation];
            let kind = if alloc.parameter.is_some() {
                "argument"
            } else if alloc.maybe_live_out {
                "output"
            } else {
                "temporary"
            };
            let values = b
                .values
                .iter()
                .filter_map(|&j| {
                    let v = &alloc.values[j];
                    let range = peak.values.get(v.value?)?.range;
                    Some((value_name(m, v), value_shape(m, v), range.start, range.end))
                })
                .collect();
            Listed { kind, size: b.size, start: b.start, end: b.end, values }
        })
        .collect()
}

/// `name{index}` of a placed value.
fn value_name(m: &Module<'_>, v: &PlacedValue) -> String {
    let name = m.instructions[v.instruction].name;
    if v.shape_index.is_empty() {
        return name.to_string();
    }
    let index: Vec<String> = v.shape_index.iter().map(ToString::to_string).collect();
    format!("{name}{{{}}}", index.join(","))
}

/// The shape of a placed value, as XLA prints it.
fn value_shape(m: &Module<'_>, v: &PlacedValue) -> String {
    let shape = m.shape(v.instruction).and_then(|s| {
        v.shape_index.iter().try_fold(s, |s, &k| match s {
            Shape::Tuple(e) => e.get(k as usize),
            _ => None,
        })
    });
    shape.map_or_else(|| String::from("-"), ToString::to_string)
}

/// The memory of a scheduled module: what XLA:CPU allocates (with `data-allocated-bytes`)
/// and its parts, XLA's own figure when its file is beside the module, the timeline of what
/// the allocations hold at each step (`id="timeline"`, the temporaries' peak marked), XLA's
/// live-range peak (`data-peak-bytes`), and the buffers live at the temporaries' peak with
/// their values under them.
pub(super) fn peak_section(
    out: &mut String,
    m: &Module<'_>,
    peak: &Peak,
    live: &[Listed],
    maps: &Maps,
    xla_allocated_bytes: Option<u64>,
    p: &str,
) {
    let a = &peak.assignment;
    let steps = peak.sequence.len();
    let parts = format!(
        "arguments {} + outputs {} &#8722; aliased {} + temporaries {}",
        iec_bytes(a.argument_bytes),
        iec_bytes(a.output_bytes),
        iec_bytes(a.alias_bytes),
        iec_bytes(a.temp_bytes)
    );
    let figure = match a.bounds.filter(|_| !a.exact()) {
        None => format!(
            "Allocated: <b>{}</b> ({} bytes) = {parts}: XLA:CPU's buffer assignment, predicted \
             from the module.",
            iec_bytes(a.allocated_bytes),
            a.allocated_bytes
        ),
        Some(b) => format!(
            "Allocated: between <b>{}</b> and <b>{}</b>; as modelled, {} = {parts}.",
            iec_bytes(b.lower),
            b.upper.map_or_else(|| String::from("no upper bound"), iec_bytes),
            iec_bytes(a.allocated_bytes)
        ),
    };
    let _ = write!(
        out,
        "<h2 id=\"{p}peak\">Memory</h2><p class=\"allocated\" id=\"{p}allocation\" \
         data-allocated-bytes=\"{}\" data-temp-bytes=\"{}\" data-temp-peak-bytes=\"{}\" \
         data-temp-peak-step=\"{}\">{figure}</p>",
        a.allocated_bytes, a.temp_bytes, a.temp_peak.bytes, a.temp_peak.step
    );
    if !a.exact() {
        let rules: Vec<&str> = a.not_modelled.iter().map(|n| n.rule.describe()).collect();
        let _ = write!(
            out,
            "<p class=\"note\">Not every rule this module needs is modelled ({}): the figures \
             follow the rules that are, and the allocation lies within the bounds.</p>",
            escape(&rules.join("; "))
        );
    }
    if let Some(n) = xla_allocated_bytes {
        let verdict = if n == a.allocated_bytes { "the same as predicted" } else { "not the same" };
        let _ = write!(
            out,
            "<p>XLA's buffer assignment beside the module allocates {} ({n} bytes, as \
             <code>memory_analysis()</code> counts its allocations): {verdict}.</p>",
            iec_bytes(n)
        );
    }
    let _ = write!(
        out,
        "<table class=\"split\" id=\"{p}split\"><thead><tr><th>allocated</th><th>bytes</th>\
         <th>share</th></tr></thead><tbody>"
    );
    for (what, n) in [
        ("arguments", a.argument_bytes),
        ("outputs", a.output_bytes),
        ("aliased (counted in both)", a.alias_bytes),
        ("temporaries", a.temp_bytes),
        ("all", a.allocated_bytes),
    ] {
        let _ = write!(
            out,
            "<tr data-part=\"{}\"><th>{what}</th>{}<td class=\"num share\">{}</td></tr>",
            what.split(' ').next().unwrap_or(what),
            bytes_cell(n),
            percent(n, a.allocated_bytes)
        );
    }
    out.push_str("</tbody></table>");
    let _ = write!(
        out,
        "<h3>What the allocations hold at every step</h3><p>At each step of the schedule: the \
         arguments (grey) and outputs (green), allocated for the whole call, and the \
         temporaries live there (blue; tiling padding red), each buffer counted once. The \
         dashed line is the temporaries' peak, {} at step {}; their allocation, {}, also pays \
         for where XLA's heap packs them. Hover a column for its step and instruction.</p>\
         <div class=\"timeline\" id=\"{p}timeline\">",
        iec_bytes(a.temp_peak.bytes),
        a.temp_peak.step,
        iec_bytes(a.temp_bytes)
    );
    timeline(out, m, peak);
    out.push_str("</div>");
    let x = &peak.xla;
    let at = if x.instruction.is_some() {
        format!(", <code>{}</code>", escape(&step_name(m, peak, x.step)))
    } else {
        String::new()
    };
    let _ = write!(
        out,
        "<p class=\"peak\" id=\"{p}peak-figure\" data-peak-bytes=\"{}\" data-peak-step=\"{}\">\
         XLA's live-range peak (HloLiveRange): {} ({} bytes) at step {} of {steps}{at}, where \
         each value live counts, values that share memory each time: not what is allocated. \
         With tiling padding {}, data {}.</p>",
        x.bytes,
        x.step,
        iec_bytes(x.bytes),
        x.bytes,
        x.step,
        iec_bytes(x.array_bytes),
        iec_bytes(x.logical_bytes)
    );
    if !live.is_empty() {
        let _ = write!(
            out,
            "<h3 id=\"{p}lifetimes\">Buffers live at the temporaries' peak</h3><p>The {} largest \
             buffers live at step {}: an argument's or output's allocation, the program's for the \
             whole call, or a place in the temporaries' that values take one after another, from \
             the first one's first step to the last one's last; its values under it (outlined in red where they pad); each links to its map \
             when its layout has one.</p>",
            live.len(),
            a.temp_peak.step
        );
        lifetimes(out, peak, live, maps, p);
    }
}

/// The x coordinate of the start of `step` on a schedule of `steps`.
fn step_x(step: f64, steps: usize) -> f64 {
    PLOT_LEFT + step * PLOT_WIDTH / steps.max(1) as f64
}

/// The timeline: a column per step (or per run of steps) of what the allocations hold
/// there, arguments, outputs and temporaries stacked (the temporaries' padding apart), a
/// tooltip naming the step's instruction, the temporaries' peak marked.
fn timeline(out: &mut String, m: &Module<'_>, peak: &Peak) {
    const TOP: f64 = 24.0;
    const HEIGHT: f64 = 180.0;
    let t = peak.allocation_timeline();
    let steps = t.len();
    let total = |s: &StepAllocated| s.parameters + s.outputs + s.temporaries + s.padding;
    let max = t.iter().map(total).max().unwrap_or(0).max(1);
    let width = PLOT_LEFT + PLOT_WIDTH + 20.0;
    let height = TOP + HEIGHT + 30.0;
    let run = steps.div_ceil(TIMELINE_COLUMNS).max(1);
    let columns = steps.div_ceil(run);
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" font-family=\"monospace\" font-size=\"12\" data-steps=\"{steps}\" \
         data-columns=\"{columns}\" data-max-bytes=\"{max}\">",
        w = px(width),
        h = px(height)
    );
    let y = |bytes: u64| TOP + HEIGHT - (bytes as f64 / max as f64) * HEIGHT;
    for c in 0..columns {
        let first = c * run;
        let last = ((c + 1) * run).min(steps) - 1;
        // The run's step with the most temporaries stands for it (the peak is never
        // averaged away).
        let s = (first..=last)
            .max_by_key(|&k| (t[k].temporaries, std::cmp::Reverse(k)))
            .unwrap_or(first);
        let d = t[s];
        let (x0, x1) = (step_x(first as f64, steps), step_x((last + 1) as f64, steps));
        let steps_text = if first == last {
            format!("step {s}")
        } else {
            format!("steps {first}-{last}, the most temporaries at step {s}")
        };
        let _ = write!(
            out,
            "<g class=\"step\" data-step=\"{s}\" data-bytes=\"{}\" data-temporaries=\"{}\">\
             <title>{}: {}: arguments {}, outputs {}, temporaries {} ({} buffers){}</title>",
            d.parameters + d.outputs + d.temporaries,
            d.temporaries,
            steps_text,
            escape(&step_name(m, peak, s as u32)),
            iec_bytes(d.parameters),
            iec_bytes(d.outputs),
            iec_bytes(d.temporaries),
            d.buffers,
            if d.padding > 0 {
                format!(", padding {}", iec_bytes(d.padding))
            } else {
                String::new()
            }
        );
        let mut base = 0u64;
        for (class, n) in [
            ("arguments", d.parameters),
            ("outputs", d.outputs),
            ("data", d.temporaries),
            ("padding", d.padding),
        ] {
            if n > 0 {
                let _ = write!(
                    out,
                    "<rect class=\"{class}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>",
                    px(x0),
                    px(y(base + n)),
                    px(x1 - x0),
                    px(y(base) - y(base + n))
                );
            }
            base += n;
        }
        out.push_str("</g>");
    }
    // Axes and the temporaries' peak.
    let a = &peak.assignment;
    let peak_x = step_x(a.temp_peak.step as f64 + 0.5, steps);
    let _ = write!(
        out,
        "<line class=\"axis\" x1=\"{l}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\"/>\
         <line class=\"axis\" x1=\"{l}\" y1=\"{t}\" x2=\"{l}\" y2=\"{b}\"/>\
         <text x=\"{lt}\" y=\"{ty}\" text-anchor=\"end\">{}</text>\
         <text x=\"{lt}\" y=\"{b}\" text-anchor=\"end\">0</text>\
         <text x=\"{l}\" y=\"{sy}\">step 0</text><text x=\"{r}\" y=\"{sy}\" text-anchor=\"end\">step {steps}</text>\
         <line class=\"peak-line\" x1=\"{px_}\" y1=\"{t2}\" x2=\"{px_}\" y2=\"{b}\"/>\
         <text class=\"peak-label\" x=\"{px_}\" y=\"{ly}\" text-anchor=\"{anchor}\">temporaries {} at step {}</text></svg>",
        iec_bytes(max),
        iec_bytes(a.temp_peak.bytes),
        a.temp_peak.step,
        l = px(PLOT_LEFT),
        r = px(PLOT_LEFT + PLOT_WIDTH),
        b = px(y(0)),
        t = px(TOP),
        t2 = px(TOP - 6.0),
        lt = px(PLOT_LEFT - 6.0),
        ty = px(TOP + 10.0),
        sy = px(y(0) + 18.0),
        px_ = px(peak_x),
        ly = px(TOP - 10.0),
        anchor = if peak_x > PLOT_LEFT + PLOT_WIDTH * 0.7 { "end" } else { "start" },
    );
}

/// Values listed under one buffer at most.
const VALUES_PER_BUFFER: usize = 8;

/// The buffers live at the temporaries' peak as bars from their first step to their last,
/// largest first, each with its values under it (the first [`VALUES_PER_BUFFER`]), each
/// value linked to its map.
fn lifetimes(out: &mut String, peak: &Peak, live: &[Listed], maps: &Maps, p: &str) {
    const ROW: f64 = 18.0;
    const TOP: f64 = 8.0;
    let steps = peak.sequence.len();
    let rows: usize = live.iter().map(|b| 1 + b.values.len().min(VALUES_PER_BUFFER)).sum();
    let width = PLOT_LEFT + PLOT_WIDTH + 20.0;
    let height = TOP + ROW * rows as f64 + 8.0;
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"lifetimes\" id=\"{p}lifetime-bars\" width=\"{w}\" \
         height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"monospace\" font-size=\"12\">",
        w = px(width),
        h = px(height)
    );
    let bar = |start: u32, end: u32| {
        let end = (end as usize).min(steps.saturating_sub(1));
        (step_x(start as f64, steps), step_x(end as f64 + 1.0, steps))
    };
    let mut row = 0usize;
    for b in live {
        let y = TOP + ROW * row as f64;
        row += 1;
        let first = b.values.first().map_or("-", |v| v.0.as_str());
        let label = if b.values.len() > 1 {
            format!("{} (+{})", cut(first, LIFETIME_LABEL - 6), b.values.len() - 1)
        } else {
            cut(first, LIFETIME_LABEL)
        };
        let (x0, x1) = bar(b.start, b.end);
        let _ = write!(
            out,
            "<g class=\"buffer\" data-kind=\"{}\" data-bytes=\"{}\" data-start=\"{}\" data-end=\"{}\" \
             data-values=\"{}\"><title>{} buffer of {}, steps {}-{}, {} values</title>\
             <text x=\"0\" y=\"{}\" font-weight=\"bold\">{}</text><text x=\"{}\" y=\"{}\" \
             text-anchor=\"end\">{}</text><rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></g>",
            b.kind,
            b.size,
            b.start,
            b.end,
            b.values.len(),
            b.kind,
            iec_bytes(b.size),
            b.start,
            b.end,
            b.values.len(),
            px(y + 13.0),
            escape(&label),
            px(PLOT_LEFT - 6.0),
            px(y + 13.0),
            iec_bytes(b.size),
            match b.kind {
                "argument" => "arguments",
                "output" => "outputs",
                _ => "data",
            },
            px(x0),
            px(y + 3.0),
            px((x1 - x0).max(1.0)),
            px(ROW - 5.0),
        );
        for (name, shape, start, end) in b.values.iter().take(VALUES_PER_BUFFER) {
            let y = TOP + ROW * row as f64;
            row += 1;
            let (x0, x1) = bar(*start, *end);
            let value = format!(
                "<g class=\"lifetime\" data-value=\"{}\" data-start=\"{start}\" data-end=\"{end}\">\
                 <title>{}: {}, live at steps {start}-{end}</title><text x=\"12\" y=\"{}\">{}</text>\
                 <rect class=\"value\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></g>",
                escape(name),
                escape(name),
                escape(shape),
                px(y + 13.0),
                escape(&cut(name, LIFETIME_LABEL - 2)),
                px(x0),
                px(y + 7.0),
                px((x1 - x0).max(1.0)),
                px(ROW - 12.0),
            );
            match maps.of_shape(shape) {
                Some(k) => {
                    let _ = write!(out, "<a href=\"#{p}map-{k}\">{value}</a>");
                }
                None => out.push_str(&value),
            }
        }
    }
    let peak_x = step_x(peak.assignment.temp_peak.step as f64 + 0.5, steps);
    let _ = write!(
        out,
        "<line class=\"peak-line\" x1=\"{x}\" y1=\"0\" x2=\"{x}\" y2=\"{}\"/></svg>",
        px(height),
        x = px(peak_x)
    );
}
