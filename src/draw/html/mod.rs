//! The HTML report of an HLO module: one self-contained file (no network, no external
//! scripts, styles or fonts) with the peak of a scheduled module (its step and instruction,
//! parameters, outputs and temporaries there, a timeline of live memory at every step, the
//! lifetimes of the buffers live at the peak: XProf's memory viewer, offline), the totals,
//! a picture of the memory each instruction owns, the top lists as tables sortable by a
//! click on a header, the instructions that move elements to change layouts, and maps of the
//! padded buffers and of the buffers live at the peak.
//!
//! The page is well-formed XML as well as HTML (every element closed, the script inside a
//! commented CDATA section), so an XML parser can check it; all text from the dump is
//! escaped.

mod cells;
mod maps;
mod oom;
mod page;
mod peak;
mod relayouts;

use std::fmt::Write;

pub use self::oom::{oom_html, OOM_ROWS};

use self::cells::{bytes_cell, percent};
use self::maps::Maps;
use self::peak::{listed, peak_section};
use self::relayouts::relayouts_section;
use super::svg::escape;
use crate::hlo::{shown, InstrId, Peak, PeakOptions, Report, ReportWithPeak, Sizes};
use crate::memory::units::iec_bytes;

/// What [`report_html`] shows.
///
/// ```
/// let o = xlayout::draw::HtmlOptions::default();
/// assert_eq!((o.maps, o.diagnostics, o.peak.top), (8, 200, 20));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HtmlOptions {
    /// What the report is of (a file name), shown under the title.
    pub source: String,
    /// What XLA's own buffer assignment allocates (arguments + outputs − aliased +
    /// temporaries, as `memory_analysis()` counts them), shown beside the prediction.
    pub xla_allocated_bytes: Option<u64>,
    /// Which buffers live at the peak are drawn as lifetime bars (the largest first), as
    /// the command's `--top` and `--min-bytes` list them.
    pub peak: PeakOptions,
    /// Padded buffers drawn as maps at most (distinct shapes, most padding first); a page
    /// has at most [`PAGE_MAPS`] in all.
    pub maps: usize,
    /// Diagnostics listed at most.
    pub diagnostics: usize,
}

impl Default for HtmlOptions {
    fn default() -> Self {
        HtmlOptions {
            source: String::new(),
            xla_allocated_bytes: None,
            peak: PeakOptions::default(),
            maps: 8,
            diagnostics: 200,
        }
    }
}

/// Characters of an instruction name shown in the bar chart (the tooltip has all of it).
const BAR_LABEL: usize = 40;

/// The report as one HTML page: for a scheduled module its peak ([`Peak`], computed here:
/// the step, the instruction, parameters, outputs and temporaries at the peak, a timeline
/// of the bytes live at every step with padding apart and the peak marked, the buffers live
/// at the peak as bars along the schedule), totals (owned memory, padding, per memory
/// space, per computation), a bar per instruction of the largest-owners list showing its data and its
/// padding in two colours, the three top lists (largest, most padding, most expansion) and
/// the groups as tables sortable by clicking a header, the instructions that only move
/// elements with the bytes they move to change layouts ([`Relayouts`](crate::hlo::Relayouts)),
/// the reading problems, and for the
/// padded buffers of the lists a map of their first tile ([`map_svg`](super::map_svg)), which
/// each padded shape in the tables links to. [`HtmlPage`] puts several modules on one page.
///
/// Everything the page needs is inside it: it opens from a file in any browser, offline.
/// Text from the dump (names, `op_name`, source paths, shapes, messages) is escaped, so a
/// dump cannot put markup or script into the page.
///
/// ```
/// use xlayout::draw::{report_html, HtmlOptions};
/// use xlayout::hlo::{Analysis, Module, Report, ReportOptions};
///
/// let m = Module::parse("%p = f32[10]{0:T(128)} parameter(0), metadata={op_name=\"<b>x</b>\"}\n");
/// let a = Analysis::new(&m);
/// let r = Report::new(&a, ReportOptions::default());
/// let html = report_html(&r, &HtmlOptions::default());
/// assert!(html.starts_with("<!DOCTYPE html>"));
/// assert!(html.contains("&lt;b&gt;x&lt;/b&gt;") && !html.contains("<b>x</b>"));
/// assert!(html.contains(r##"<a href="#map-0">f32[10]{0:T(128)}</a>"##)); // 40 of 512 bytes
/// ```
pub fn report_html(report: &Report<'_, '_>, options: &HtmlOptions) -> String {
    let mut page = HtmlPage::default();
    page.add(report, options);
    page.finish()
}

/// A page of the reports of several modules (a dump directory), one section each, with a
/// list of them at the top; built one module at a time, so only one module's text and
/// analysis need be in memory at once. [`HtmlPage::finish`] makes it a page of its own,
/// [`HtmlPage::fragment`] the HTML to put in another page (a notebook's output).
///
/// ```
/// use xlayout::draw::{HtmlOptions, HtmlPage};
/// use xlayout::hlo::{Analysis, Module, Report, ReportOptions};
///
/// let mut page = HtmlPage::default();
/// for text in ["HloModule a\n%p = f32[10]{0:T(128)} parameter(0)\n", "HloModule b\n%q = s8[3]{0} parameter(0)\n"] {
///     let m = Module::parse(text);
///     let a = Analysis::new(&m);
///     page.add(&Report::new(&a, ReportOptions::default()), &HtmlOptions::default());
/// }
/// let html = page.finish();
/// assert!(html.contains(r##"<a href="#m1-module">b</a>"##)); // the list of modules
/// assert!(html.contains(r##"<a href="#map-0">f32[10]{0:T(128)}</a>"##)); // the first's ids are plain
/// ```
#[derive(Debug, Default)]
pub struct HtmlPage {
    /// Each module's section, in the order added.
    sections: Vec<Section>,
    /// Maps drawn so far, against [`PAGE_MAPS`].
    maps: usize,
    /// What every id of the page starts with.
    ids: String,
    /// Whether the modules are shown largest first, all but the largest folded.
    largest_first: bool,
}

/// One module's part of a page.
#[derive(Debug)]
struct Section {
    name: String,
    html: String,
    /// What orders modules largest first ([`ReportWithPeak::size_bytes`]), and it in words.
    bytes: u64,
    size: String,
    /// The id of the section's element.
    anchor: String,
}

/// Maps drawn on one page at most, whatever the number of modules: each map is up to a few
/// hundred kilobytes, and a dump directory may hold hundreds of modules.
pub const PAGE_MAPS: usize = 32;

impl HtmlPage {
    /// Every id of the page starts with `prefix` (its letters, digits, `-` and `_`): pages
    /// put in one document (a notebook's outputs) keep their links to their own elements.
    ///
    /// ```
    /// use xlayout::draw::HtmlPage;
    /// use xlayout::hlo::{Analysis, Module, Report, ReportOptions};
    /// let m = Module::parse("HloModule m\n%p = f32[10]{0:T(128)} parameter(0)\n");
    /// let a = Analysis::new(&m);
    /// let mut page = HtmlPage::default().with_id_prefix("r7-");
    /// page.add(&Report::new(&a, ReportOptions::default()), &Default::default());
    /// assert!(page.fragment().contains(r##"<a href="#r7-map-0">f32[10]{0:T(128)}</a>"##));
    /// ```
    pub fn with_id_prefix(mut self, prefix: &str) -> HtmlPage {
        let ok = |c: &char| c.is_ascii_alphanumeric() || *c == '-' || *c == '_';
        self.ids = prefix.chars().filter(ok).collect();
        self
    }

    /// Shows the modules largest first ([`ReportWithPeak::size_bytes`]: what XLA:CPU
    /// allocates for each, the memory it owns when it is not scheduled), the largest open
    /// and the others folded under their name and size: the page of a JAX program's dump
    /// directory, whose helper modules (`jit__threefry_seed`, `jit_broadcast_in_dim`) are
    /// many and small.
    ///
    /// ```
    /// use xlayout::draw::HtmlPage;
    /// use xlayout::hlo::{Analysis, Module, Report, ReportOptions};
    /// let mut page = HtmlPage::default().largest_first();
    /// for text in ["HloModule small\n%p = f32[1]{0} parameter(0)\n", "HloModule large\n%p = f32[1000]{0} parameter(0)\n"] {
    ///     let m = Module::parse(text);
    ///     page.add(&Report::new(&Analysis::new(&m), ReportOptions::default()), &Default::default());
    /// }
    /// let html = page.fragment();
    /// let (large, small) = (html.find("<details class=\"module\" id=\"m1-fold\" open=\"open\">"), html.find("<details class=\"module\" id=\"fold\">"));
    /// assert!(large.unwrap() < small.unwrap());
    /// ```
    pub fn largest_first(mut self) -> HtmlPage {
        self.largest_first = true;
        self
    }

    /// Adds the section of one module's report, with its peak when the module is scheduled
    /// (computed here; [`HtmlPage::add_with_peak`] takes one already computed).
    pub fn add(&mut self, report: &Report<'_, '_>, options: &HtmlOptions) {
        let m = report.analysis.module;
        let peak = m.is_scheduled.then(|| Peak::new(report.analysis));
        self.add_with_peak(report, peak.as_ref(), options);
    }

    /// Adds the section of one module's report and its peak (`None`: the module has no
    /// peak, it is not scheduled). The peak is of the same module as the report.
    ///
    /// ```
    /// use xlayout::draw::{HtmlOptions, HtmlPage};
    /// use xlayout::hlo::{Analysis, Module, Peak, Report, ReportOptions};
    /// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[10]{0} parameter(0)\n  ROOT %n = f32[10]{0} negate(%p)\n}\n");
    /// let a = Analysis::new(&m);
    /// let mut page = HtmlPage::default();
    /// page.add_with_peak(&Report::new(&a, ReportOptions::default()), Some(&Peak::new(&a)), &HtmlOptions::default());
    /// let html = page.finish();
    /// assert!(html.contains(r#"data-peak-bytes="80""#) && html.contains(r#"id="timeline""#));
    /// ```
    pub fn add_with_peak(
        &mut self,
        report: &Report<'_, '_>,
        peak: Option<&Peak>,
        options: &HtmlOptions,
    ) {
        // Ids of the first module are plain (`map-0`), the others' prefixed (`m1-map-0`).
        let k = self.sections.len();
        let p = if k == 0 { self.ids.clone() } else { format!("{}m{k}-", self.ids) };
        let m = report.analysis.module;
        let name = m.name.unwrap_or("(unnamed module)").to_string();
        let mut out = String::with_capacity(1 << 16);
        let _ = write!(
            out,
            "<section class=\"module\" id=\"{p}module\"><h1>Memory of {}</h1><p class=\"about\">",
            escape(&name)
        );
        if !options.source.is_empty() {
            let _ = write!(out, "{}: ", escape(&options.source));
        }
        let _ = write!(
            out,
            "{} lines, {} instructions in {} computations{}{}.</p>",
            m.lines,
            m.instructions.len(),
            m.computations.len(),
            m.entry
                .map_or(String::new(), |e| format!(", entry {}", escape(m.computations[e].name))),
            if m.is_scheduled { ", scheduled" } else { "" }
        );
        let live = peak.map_or_else(Vec::new, |peak| listed(m, peak, &options.peak));
        let shapes: Vec<(&str, &str)> = live
            .iter()
            .flat_map(|b| &b.values)
            .map(|(name, shape, ..)| (shape.as_str(), name.as_str()))
            .collect();
        let maps = Maps::new(report, &shapes, options.maps.min(PAGE_MAPS - self.maps));
        self.maps += maps.shapes.len();
        match peak {
            Some(peak) => {
                peak_section(&mut out, m, peak, &live, &maps, options.xla_allocated_bytes, &p)
            }
            None => {
                let _ = write!(
                    out,
                    "<h2 id=\"{p}peak\">Memory</h2><p class=\"peak none\">Not yet: the module is \
                     not scheduled (no <code>is_scheduled=true</code>), so the order of its \
                     instructions, and what it allocates, are not decided.</p>"
                );
            }
        }
        totals(&mut out, report, &p);
        bars(&mut out, report, &p);
        let lists = [
            ("allocated", "Largest owners", &report.top_allocated),
            ("padding", "Most padding", &report.top_padding),
            ("expansion", "Most expansion (allocated / data)", &report.top_expansion),
        ];
        for (id, title, list) in lists {
            let _ = write!(out, "<h2 id=\"{p}{id}\">{title}</h2>");
            if list.is_empty() {
                out.push_str("<p>None.</p>");
            } else {
                instruction_table(&mut out, report, id, list, &maps, &p);
            }
        }
        groups(&mut out, report, &p);
        relayouts_section(&mut out, m, &p);
        diagnostics(&mut out, report, options.diagnostics, &p);
        maps.write(&mut out, &p);
        if maps.shapes.is_empty() && self.maps >= PAGE_MAPS && !report.top_padding.is_empty() {
            let _ = write!(
                out,
                "<p class=\"note\">No maps for this module: the page has its {PAGE_MAPS}.</p>"
            );
        }
        out.push_str("</section>");
        let headline = ReportWithPeak::new(report, peak);
        let bytes = headline.size_bytes();
        let size = match headline.allocated_bytes {
            Some(_) => format!("{} allocated", iec_bytes(bytes)),
            None => format!("not scheduled, owns {}", iec_bytes(bytes)),
        };
        // A folded section is found by its `<details>`.
        let anchor = if self.largest_first { format!("{p}fold") } else { format!("{p}module") };
        self.sections.push(Section { name, html: out, bytes, size, anchor });
    }
}

fn sum_rows(out: &mut String, key: &str, instructions: u64, s: &Sizes) {
    let _ = write!(
        out,
        "<tr><td>{}</td><td class=\"num\" data-value=\"{instructions}\">{instructions}</td>",
        escape(key)
    );
    for n in [s.array_bytes, s.logical_bytes, s.padding_bytes()] {
        out.push_str(&bytes_cell(n));
    }
    let _ =
        write!(out, "<td class=\"num\">{}</td></tr>", percent(s.padding_bytes(), s.array_bytes));
}

const SUM_HEAD: &str = "<th data-sort=\"num\">instructions</th><th data-sort=\"num\">allocated</th>\
<th data-sort=\"num\">data</th><th data-sort=\"num\">padding</th><th data-sort=\"num\">padding share</th>";

fn totals(out: &mut String, report: &Report<'_, '_>, p: &str) {
    let t = &report.totals;
    let s = &t.owned.sizes;
    let _ = write!(
        out,
        "<h2 id=\"{p}totals\">Every buffer the program owns</h2><p>The sum of every buffer \
         the program owns, not its peak: buffers that are never live at once are added too.</p>\
         <table class=\"totals\"><tbody>\
         <tr><th>instructions owning memory</th><td class=\"num\">{} of {}</td></tr>\
         <tr><th>allocated (sum, not a peak)</th>{}</tr><tr><th>data</th>{}</tr>\
         <tr><th>padding</th>{}</tr><tr><th>of which tiling</th>{}</tr>\
         <tr><th>of which wider elements (E)</th>{}</tr>\
         <tr><th>padding share</th><td class=\"num\">{}</td></tr>",
        t.owned.instructions,
        t.instructions,
        bytes_cell(s.array_bytes),
        bytes_cell(s.logical_bytes),
        bytes_cell(s.padding_bytes()),
        bytes_cell(s.tiling_padding_bytes),
        bytes_cell(s.widening_bytes),
        percent(s.padding_bytes(), s.array_bytes)
    );
    if t.unread_shapes > 0 {
        let _ = write!(
            out,
            "<tr><th>shapes not read</th><td class=\"num\">{}</td></tr>",
            t.unread_shapes
        );
    }
    if t.unsized_owners > 0 {
        let _ = write!(
            out,
            "<tr><th>owners with a leaf of no size</th><td class=\"num\">{}</td></tr>",
            t.unsized_owners
        );
    }
    let keyed =
        t.by_memory_space.iter().map(|k| k.sum).chain(t.by_computation.iter().map(|k| k.sum));
    if t.owned.saturated || keyed.into_iter().any(|s| s.saturated) {
        out.push_str(
            "<tr class=\"saturated\"><th>saturated</th><td>sums here reached 2<sup>64</sup> \
             − 1 bytes and stopped there: each is at least what it says, and its padding \
             says nothing</td></tr>",
        );
    }
    out.push_str("</tbody></table>");
    if !t.by_memory_space.is_empty() {
        let _ = write!(
            out,
            "<h3>By memory space</h3><table class=\"sortable\" id=\"{p}spaces\"><thead><tr>\
             <th data-sort=\"text\">space</th>{SUM_HEAD}</tr></thead><tbody>"
        );
        for k in &t.by_memory_space {
            sum_rows(out, &format!("S({})", k.key), k.sum.instructions, &k.sum.sizes);
        }
        out.push_str("</tbody></table>");
    }
    if !t.by_computation.is_empty() {
        let _ = write!(
            out,
            "<h3>By computation</h3><table class=\"sortable\" id=\"{p}computations\"><thead><tr>\
             <th data-sort=\"text\">computation</th>{SUM_HEAD}</tr></thead><tbody>"
        );
        for k in &t.by_computation {
            sum_rows(out, &k.key, k.sum.instructions, &k.sum.sizes);
        }
        out.push_str("</tbody></table>");
    }
}

/// The largest owners as horizontal bars: data, then padding, in proportion to the largest.
fn bars(out: &mut String, report: &Report<'_, '_>, p: &str) {
    let a = report.analysis;
    let list = &report.top_allocated;
    let _ = write!(out, "<h2 id=\"{p}picture\">Owned memory by instruction</h2>");
    if list.is_empty() {
        out.push_str("<p>No instruction owns memory.</p>");
        return;
    }
    const LABEL: i64 = 8 * (BAR_LABEL as i64 + 2);
    const WIDTH: i64 = 640;
    const ROW: i64 = 20;
    let max = list.iter().map(|&i| a.buffers[i].owned.array_bytes).max().unwrap_or(0).max(1);
    let listed: Sizes = list.iter().fold(Sizes::default(), |s, &i| s.plus(&a.buffers[i].owned));
    let total = report.totals.owned.sizes;
    let rest = total.array_bytes.saturating_sub(listed.array_bytes);
    let height = ROW * (list.len() as i64 + 2) + 10;
    let width = LABEL + WIDTH + 220;
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"bars\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" font-family=\"monospace\" font-size=\"12\">\
         <rect class=\"data\" x=\"0\" y=\"2\" width=\"14\" height=\"12\"/><text x=\"20\" y=\"13\">data</text>\
         <rect class=\"padding\" x=\"80\" y=\"2\" width=\"14\" height=\"12\"/><text x=\"100\" y=\"13\">padding</text>"
    );
    // Widths in whole pixels, computed exactly: bytes / max of the full width.
    let px = |n: u64| (u128::from(n) * WIDTH as u128 / u128::from(max)) as i64;
    for (k, &i) in list.iter().enumerate() {
        let ins = &a.module.instructions[i];
        let s = a.buffers[i].owned;
        let y = ROW * (k as i64 + 1) + 4;
        let (data, all) = (px(s.logical_bytes.min(s.array_bytes)), px(s.array_bytes).max(1));
        let label: String = if ins.name.chars().count() > BAR_LABEL {
            ins.name.chars().take(BAR_LABEL - 1).chain(['\u{2026}']).collect()
        } else {
            ins.name.to_string()
        };
        let _ = write!(
            out,
            "<g class=\"bar\" data-instruction=\"{}\" data-bytes=\"{}\"><title>{}: {} allocated, {} data, {} padding</title>\
             <text x=\"0\" y=\"{}\">{}</text><rect class=\"data\" x=\"{LABEL}\" y=\"{y}\" width=\"{data}\" height=\"{}\"/>\
             <rect class=\"padding\" x=\"{}\" y=\"{y}\" width=\"{}\" height=\"{}\"/>\
             <text x=\"{}\" y=\"{}\">{} ({} padding)</text></g>",
            escape(ins.name),
            s.array_bytes,
            escape(ins.name),
            s.array_bytes,
            s.logical_bytes,
            s.padding_bytes(),
            y + 12,
            escape(&label),
            ROW - 6,
            LABEL + data,
            all - data,
            ROW - 6,
            LABEL + all + 6,
            y + 12,
            iec_bytes(s.array_bytes),
            percent(s.padding_bytes(), s.array_bytes)
        );
    }
    let y = ROW * (list.len() as i64 + 1) + 16;
    let others = report.totals.owned.instructions.saturating_sub(list.len() as u64);
    let _ = write!(
        out,
        "<text x=\"0\" y=\"{y}\" class=\"note\">{}</text></svg>",
        if others == 0 {
            String::from("every owning instruction is shown")
        } else {
            format!("{others} more owning instructions: {} allocated", iec_bytes(rest))
        }
    );
}

/// The columns of an instruction table.
const ROW_HEAD: &str = "<th data-sort=\"num\">#</th><th data-sort=\"text\">instruction</th>\
<th data-sort=\"text\">opcode</th><th data-sort=\"text\">computation</th><th data-sort=\"text\">shape</th>\
<th data-sort=\"num\">owned</th><th data-sort=\"num\">data</th><th data-sort=\"num\">padding</th>\
<th data-sort=\"num\">expansion</th><th data-sort=\"text\">why it pads</th>\
<th data-sort=\"text\">pads less</th><th data-sort=\"text\">op_name</th><th data-sort=\"text\">source</th>\
<th data-sort=\"num\">line</th>";

fn instruction_table(
    out: &mut String,
    report: &Report<'_, '_>,
    id: &str,
    list: &[InstrId],
    maps: &Maps,
    p: &str,
) {
    let a = report.analysis;
    let m = a.module;
    let _ = write!(
        out,
        "<div class=\"wide\"><table class=\"sortable\" id=\"{p}table-{id}\"><thead><tr>{ROW_HEAD}</tr></thead><tbody>"
    );
    for (rank, &i) in list.iter().enumerate() {
        let row = report.row(i);
        let s = a.buffers[i].owned;
        let _ = write!(
            out,
            "<tr><td class=\"num\" data-value=\"{}\">{}</td><td class=\"name\">{}</td><td class=\"name\">{}</td><td class=\"name\">{}</td><td class=\"shape\">",
            rank + 1,
            rank + 1,
            escape(row.instruction),
            escape(row.opcode),
            escape(&shown(m.computation_name(i).unwrap_or("-")))
        );
        match maps.of_instruction.get(&i) {
            Some(k) => {
                let _ = write!(out, "<a href=\"#{p}map-{k}\">{}</a>", escape(row.shape));
            }
            None => out.push_str(&escape(row.shape)),
        }
        out.push_str("</td>");
        for n in [s.array_bytes, s.logical_bytes, s.padding_bytes()] {
            out.push_str(&bytes_cell(n));
        }
        // Expansion sorts by its exact ratio; a buffer without data sorts last.
        let ratio =
            if s.logical_bytes == 0 { 0.0 } else { s.array_bytes as f64 / s.logical_bytes as f64 };
        let _ = write!(
            out,
            "<td class=\"num\" data-value=\"{ratio}\">{}</td><td class=\"wrap\">{}</td><td class=\"wrap\">{}</td>\
             <td class=\"wrap\">{}</td><td class=\"wrap\">{}</td><td class=\"num\" data-value=\"{}\">{}</td></tr>",
            s.expansion().map_or(String::from("-"), |e| format!("{e}x")),
            escape(&row.causes.join("; ")),
            escape(&match (&row.best_layout, row.best_bytes) {
                (Some(l), Some(b)) => format!("{l} ({})", iec_bytes(b)),
                (Some(l), None) => l.clone(),
                _ => String::new(),
            }),
            escape(row.op_name.unwrap_or("")),
            escape(&m.source(i).map_or_else(String::new, |s| format!("{}:{}", shown(&s.file), s.line))),
            row.line,
            row.line
        );
    }
    out.push_str("</tbody></table></div>");
}

fn groups(out: &mut String, report: &Report<'_, '_>, p: &str) {
    let Some(by) = report.options.group_by else { return };
    let _ = write!(
        out,
        "<h2 id=\"{p}groups\">Groups by {}</h2><table class=\"sortable\" id=\"{p}table-groups\"><thead><tr>\
         <th data-sort=\"text\">group</th>{SUM_HEAD}</tr></thead><tbody>",
        escape(by.as_str())
    );
    for g in &report.groups {
        sum_rows(out, &g.key, g.sum.instructions, &g.sum.sizes);
    }
    out.push_str("</tbody></table>");
}

fn diagnostics(out: &mut String, report: &Report<'_, '_>, most: usize, p: &str) {
    let all = report.diagnostics();
    if all.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "<h2 id=\"{p}problems\">Reading problems ({})</h2><table class=\"sortable\" id=\"{p}table-problems\">\
         <thead><tr><th data-sort=\"num\">line</th><th data-sort=\"text\">problem</th></tr></thead><tbody>",
        all.len()
    );
    for d in all.iter().take(most) {
        let _ = write!(
            out,
            "<tr><td class=\"num\" data-value=\"{}\">{}</td><td>{}</td></tr>",
            d.line,
            d.column.map_or(d.line.to_string(), |c| format!("{}:{c}", d.line)),
            escape(&d.message)
        );
    }
    out.push_str("</tbody></table>");
    if all.len() > most {
        let _ = write!(out, "<p>... and {} more.</p>", all.len() - most);
    }
}
