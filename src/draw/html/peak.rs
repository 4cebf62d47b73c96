//! The peak of a scheduled module on the page: the figure, its split, the timeline of live
//! memory and the lifetimes of the buffers live at the peak.

use std::fmt::Write;

use super::cells::{bytes_cell, cut, percent};
use super::maps::Maps;
use crate::draw::svg::escape;
use crate::hlo::units::iec_bytes;
use crate::hlo::{Module, Peak, PeakRow};

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

/// `name` (opcode in computation) of the instruction at a step.
fn step_name(m: &Module<'_>, peak: &Peak, step: u32) -> String {
    let Some(&i) = peak.sequence.get(step as usize) else { return String::from("-") };
    let ins = &m.instructions[i];
    format!("{} ({} in {})", ins.name, ins.opcode.as_str(), m.computation_name(i).unwrap_or("-"))
}

/// The peak of a scheduled module: the figure (with `data-peak-bytes`), the split into
/// parameters, outputs and temporaries, the timeline (`id="timeline"`), the lifetimes of
/// the buffers live at the peak.
pub(super) fn peak_section(
    out: &mut String,
    m: &Module<'_>,
    peak: &Peak,
    live: &[PeakRow<'_>],
    maps: &Maps,
    xla_allocated_bytes: Option<u64>,
    p: &str,
) {
    let x = &peak.xla;
    let steps = peak.sequence.len();
    let at = if x.instruction.is_some() {
        format!(", <code>{}</code>", escape(&step_name(m, peak, x.step)))
    } else {
        String::new()
    };
    let _ = write!(
        out,
        "<h2 id=\"{p}peak\">Peak</h2><p class=\"peak\" id=\"{p}peak-figure\" data-peak-bytes=\"{}\" \
         data-peak-step=\"{}\">Peak: <b>{}</b> ({} bytes) live at step {} of {steps}{at}, by XLA's \
         rule (HloLiveRange); {} allocated with tiling padding, {} of data.</p>",
        x.bytes,
        x.step,
        iec_bytes(x.bytes),
        x.bytes,
        x.step,
        iec_bytes(x.array_bytes),
        iec_bytes(x.logical_bytes)
    );
    if let Some(n) = xla_allocated_bytes {
        let _ = write!(
            out,
            "<p>XLA's buffer assignment allocates {} ({n} bytes) for the whole program: buffers \
             that are never live at once share memory there.</p>",
            iec_bytes(n)
        );
    }
    if !peak.exact() {
        let rules: Vec<&str> = peak.not_modelled.iter().map(|n| n.rule.describe()).collect();
        let _ = write!(
            out,
            "<p class=\"note\">Not every rule this module needs is modelled ({}): these figures \
             follow the rules that are; <code>xlayout peak</code> gives bounds.</p>",
            escape(&rules.join("; "))
        );
    }
    // The split at the peak.
    let split = peak.split(m);
    let _ = write!(
        out,
        "<table class=\"split\" id=\"{p}split\"><thead><tr><th>live at the peak</th><th>bytes</th>\
         <th>allocated</th><th>data</th><th>share</th></tr></thead><tbody>"
    );
    let total = split.parameters.plus(split.outputs).plus(split.temporaries);
    for (what, s) in [
        ("parameters", split.parameters),
        ("outputs", split.outputs),
        ("temporaries", split.temporaries),
        ("all", total),
    ] {
        let _ = write!(
            out,
            "<tr data-part=\"{what}\"><th>{what}</th>{}{}{}<td class=\"num share\">{}</td></tr>",
            bytes_cell(s.bytes),
            bytes_cell(s.array_bytes),
            bytes_cell(s.logical_bytes),
            percent(s.bytes, total.bytes)
        );
    }
    out.push_str("</tbody></table>");
    let _ = write!(
        out,
        "<h3>Live memory at every step</h3><p>The bytes of the values live at each step of the \
         schedule, allocated with tiling padding: data in blue, padding in red. Hover a column \
         for its step and instruction; the dashed line is the peak.</p>\
         <div class=\"timeline\" id=\"{p}timeline\">"
    );
    timeline(out, m, peak);
    out.push_str("</div>");
    if !live.is_empty() {
        let _ = write!(
            out,
            "<h3 id=\"{p}lifetimes\">Buffers live at the peak</h3><p>The {} largest of the {} values \
             live at step {}, each from the step it is defined at to its last, on the schedule \
             above (outlined in red where it pads); each links to its map.</p>",
            live.len(),
            x.live.len(),
            x.step
        );
        lifetimes(out, peak, live, maps, p);
    }
}

/// The x coordinate of the start of `step` on a schedule of `steps`.
fn step_x(step: f64, steps: usize) -> f64 {
    PLOT_LEFT + step * PLOT_WIDTH / steps.max(1) as f64
}

/// The timeline: a column per step (or per run of steps) of the bytes live there, data and
/// padding stacked, a tooltip naming the step's instruction, the peak marked.
fn timeline(out: &mut String, m: &Module<'_>, peak: &Peak) {
    const TOP: f64 = 24.0;
    const HEIGHT: f64 = 180.0;
    let t = peak.timeline();
    let steps = t.len();
    let max = t.iter().map(|s| s.live.array_bytes.max(s.live.bytes)).max().unwrap_or(0).max(1);
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
        // The run's largest step stands for it.
        let s = (first..=last)
            .max_by_key(|&k| (t[k].live.array_bytes, std::cmp::Reverse(k)))
            .unwrap_or(first);
        let live = t[s].live;
        let data = live.logical_bytes.min(live.array_bytes);
        let (x0, x1) = (step_x(first as f64, steps), step_x((last + 1) as f64, steps));
        let steps_text = if first == last {
            format!("step {s}")
        } else {
            format!("steps {first}-{last}, the largest at step {s}")
        };
        let _ = write!(
            out,
            "<g class=\"step\" data-step=\"{s}\" data-bytes=\"{}\" data-array-bytes=\"{}\"><title>{}: {}: \
             {} live ({} allocated: {} data, {} padding), {} values</title>\
             <rect class=\"data\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\
             <rect class=\"padding\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></g>",
            live.bytes,
            live.array_bytes,
            steps_text,
            escape(&step_name(m, peak, s as u32)),
            iec_bytes(live.bytes),
            iec_bytes(live.array_bytes),
            iec_bytes(data),
            iec_bytes(live.array_bytes - data),
            t[s].values,
            px(x0),
            px(y(data)),
            px(x1 - x0),
            px(y(0) - y(data)),
            px(x0),
            px(y(live.array_bytes)),
            px(x1 - x0),
            px(y(data) - y(live.array_bytes)),
        );
    }
    // Axes and the peak.
    let peak_x = step_x(peak.xla.step as f64 + 0.5, steps);
    let _ = write!(
        out,
        "<line class=\"axis\" x1=\"{l}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\"/>\
         <line class=\"axis\" x1=\"{l}\" y1=\"{t}\" x2=\"{l}\" y2=\"{b}\"/>\
         <text x=\"{lt}\" y=\"{ty}\" text-anchor=\"end\">{}</text>\
         <text x=\"{lt}\" y=\"{b}\" text-anchor=\"end\">0</text>\
         <text x=\"{l}\" y=\"{sy}\">step 0</text><text x=\"{r}\" y=\"{sy}\" text-anchor=\"end\">step {steps}</text>\
         <line class=\"peak-line\" x1=\"{px_}\" y1=\"{t2}\" x2=\"{px_}\" y2=\"{b}\"/>\
         <text class=\"peak-label\" x=\"{px_}\" y=\"{ly}\" text-anchor=\"{anchor}\">peak {} at step {}</text></svg>",
        iec_bytes(max),
        iec_bytes(peak.xla.bytes),
        peak.xla.step,
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

/// The buffers live at the peak as bars from their first step to their last, largest
/// first, each linked to its map.
fn lifetimes(out: &mut String, peak: &Peak, live: &[PeakRow<'_>], maps: &Maps, p: &str) {
    const ROW: f64 = 18.0;
    const TOP: f64 = 8.0;
    let steps = peak.sequence.len();
    let width = PLOT_LEFT + PLOT_WIDTH + 20.0;
    let height = TOP + ROW * live.len() as f64 + 8.0;
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"lifetimes\" id=\"{p}lifetime-bars\" width=\"{w}\" \
         height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"monospace\" font-size=\"12\">",
        w = px(width),
        h = px(height)
    );
    for (k, r) in live.iter().enumerate() {
        let y = TOP + ROW * k as f64;
        let index: Vec<String> = r.shape_index.iter().map(ToString::to_string).collect();
        let name = if index.is_empty() {
            r.instruction.to_string()
        } else {
            format!("{}{{{}}}", r.instruction, index.join(","))
        };
        let end = (r.end as usize).min(steps.saturating_sub(1));
        let (x0, x1) = (step_x(r.start as f64, steps), step_x(end as f64 + 1.0, steps));
        let bar = format!(
            "<g class=\"lifetime\" data-value=\"{}\" data-bytes=\"{}\" data-start=\"{}\" data-end=\"{}\">\
             <title>{}: {} ({} allocated with padding), live at steps {}-{}, {}</title>\
             <text x=\"0\" y=\"{}\">{}</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\
             <rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></g>",
            escape(&name),
            r.bytes,
            r.start,
            r.end,
            escape(&name),
            iec_bytes(r.bytes),
            iec_bytes(r.array_bytes),
            r.start,
            r.end,
            escape(&r.shape),
            px(y + 13.0),
            escape(&cut(&name, LIFETIME_LABEL)),
            px(PLOT_LEFT - 6.0),
            px(y + 13.0),
            iec_bytes(r.bytes),
            if r.array_bytes > r.logical_bytes { "data padded" } else { "data" },
            px(x0),
            px(y + 3.0),
            px((x1 - x0).max(1.0)),
            px(ROW - 5.0),
        );
        match maps.of_shape(&r.shape) {
            Some(m) => {
                let _ = write!(out, "<a href=\"#{p}map-{m}\">{bar}</a>");
            }
            None => out.push_str(&bar),
        }
    }
    let peak_x = step_x(peak.xla.step as f64 + 0.5, steps);
    let _ = write!(
        out,
        "<line class=\"peak-line\" x1=\"{x}\" y1=\"0\" x2=\"{x}\" y2=\"{}\"/></svg>",
        px(height),
        x = px(peak_x)
    );
}
