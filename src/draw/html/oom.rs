//! An out-of-memory report as HTML, for a notebook: what it says (who wrote it, the memory
//! space, used and capacity, the size a failed allocation asked for), the entries added up
//! and the padding held against the overage, then the entries as a sortable table with what
//! their shapes give, the entries without a size, and what could not be read.

use std::fmt::Write;

use super::page::{close_root, open_root};
use crate::draw::svg::escape;
use crate::memory::units::{iec_bytes, oom_bytes};
use crate::oom::{EntryRow, Kind, OomReport, Printed};

/// Entries listed in the table at most: a report lists tens, and a page stays the size of a
/// page whatever the text (the command's TSV and JSON list every entry).
pub const OOM_ROWS: usize = 500;

/// The report as a fragment of HTML (as [`HtmlPage::fragment`](super::HtmlPage::fragment)
/// is, in the same scoped element and style): its sizes in the units the report prints
/// (`4.00G` for TPU reports, `4.00GiB` for XLA:GPU's), each cell with its exact count to
/// hover and sort by. All text from the report is escaped.
///
/// ```
/// use xlayout::draw::oom_html;
/// use xlayout::oom::OomReport;
/// let r = OomReport::parse("Ran out of memory in memory space vmem. Used 20.00M of 16.00M vmem.\n  1. Size: 5.00M\n     Shape: bf16[16,1280,40]{2,1,0}\n     XLA label: fusion.3 = <b>\n");
/// let html = oom_html(&r);
/// assert!(html.starts_with("<div class=\"xlayout-report\">"));
/// assert!(html.contains("used 20.00M of 16.00M"));
/// assert!(html.contains("<td class=\"num\" data-value=\"5242880\" title=\"5242880 bytes\">5.00M</td>"));
/// assert!(html.contains("bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}") && !html.contains("<b>"));
/// ```
pub fn oom_html(r: &OomReport) -> String {
    let iec = r.iec();
    let size = |n: u64| if iec { iec_bytes(n) } else { oom_bytes(n) };
    let mut out = String::with_capacity(8192 + 1024 * r.entries.len());
    open_root(&mut out);
    let what = match r.kind {
        Kind::Unknown => "Out-of-memory report",
        kind => kind.what(),
    };
    let _ = write!(out, "<section class=\"oom\"><h1>{what}");
    if let Some(c) = &r.error_code {
        let _ = write!(out, " ({})", escape(c));
    }
    out.push_str("</h1><p class=\"about\">");
    let mut said = Vec::new();
    if let Some(m) = &r.memory_space {
        said.push(format!("memory space {}", escape(m)));
    }
    let text = |p: &Option<Printed>| p.as_ref().map(|p| escape(&p.text));
    if let (Some(used), Some(capacity)) = (text(&r.used), text(&r.capacity)) {
        let over = text(&r.exceeded).map_or_else(String::new, |x| format!(", {x} over"));
        said.push(format!("used {used} of {capacity}{over}"));
    }
    if let Some(a) = &r.allocating {
        let shown = a.bytes.map_or_else(String::new, |n| format!(" ({})", size(n)));
        said.push(format!("failed to allocate {} bytes{shown}", escape(&a.text)));
    }
    if let Some(x) = &r.runtime {
        let place =
            x.memory_space.as_ref().map_or_else(String::new, |m| format!(" ({})", escape(m)));
        let mut s = format!("could not {} {}{place}", escape(&x.action), escape(&x.requested.text));
        for (word, p) in
            [("free", &x.free), ("reserved", &x.reserved), ("reservable", &x.reservable)]
        {
            if let Some(p) = p {
                let _ = write!(s, "; {} {word}", escape(&p.text));
            }
        }
        if let Some(short) = x.short_by {
            let _ = write!(s, "; short by about {} (the figures are rounded)", size(short));
        }
        said.push(s);
    }
    let _ = write!(
        out,
        "{}.</p>",
        if said.is_empty() { String::from("no header") } else { said.join("; ") }
    );
    if let Some(why) = r.missing() {
        let _ = write!(out, "<p class=\"note\">{}</p>", escape(why));
    }
    totals(&mut out, r, &size);
    entries(&mut out, r, &size);
    sizeless(&mut out, r);
    problems(&mut out, r);
    out.push_str("</section>");
    close_root(&mut out);
    out
}

/// The entries added up, and the padding against the overage where it is a large share.
fn totals(out: &mut String, r: &OomReport, size: &dyn Fn(u64) -> String) {
    let t = &r.totals;
    if t.entries == 0 {
        return;
    }
    let _ = write!(out, "<p class=\"totals\">{}.</p>", escape(&t.sentence(size)));
    if let Some(overage) = r.overage_sentence(size) {
        let _ = write!(out, "<p class=\"overage\">{}.</p>", escape(&overage));
    }
    if t.saturated {
        out.push_str(
            "<p class=\"note\">Sums marked &gt;= reached 2<sup>64</sup> \u{2212} 1 bytes and \
             stopped there: each is at least what it says.</p>",
        );
    }
}

/// A byte count as a cell in the report's units, its exact count to sort by and hover.
fn size_cell(n: Option<u64>, size: &dyn Fn(u64) -> String) -> String {
    match n {
        Some(n) => {
            format!("<td class=\"num\" data-value=\"{n}\" title=\"{n} bytes\">{}</td>", size(n))
        }
        None => String::from("<td class=\"num\">-</td>"),
    }
}

/// Text as a cell, `-` for none.
fn text_cell(t: Option<&str>, class: &str) -> String {
    format!("<td{class}>{}</td>", t.map_or_else(|| String::from("-"), escape))
}

fn entries(out: &mut String, r: &OomReport, size: &dyn Fn(u64) -> String) {
    if r.entries.is_empty() {
        return;
    }
    out.push_str(
        "<h2>Entries</h2><div class=\"wide\"><table class=\"sortable\"><thead><tr>\
         <th data-sort=\"num\">#</th><th data-sort=\"text\">printed</th>\
         <th data-sort=\"num\">size</th><th data-sort=\"num\">data</th>\
         <th data-sort=\"num\">padding</th><th data-sort=\"num\">expansion</th>\
         <th data-sort=\"text\">agrees</th><th data-sort=\"text\">shape</th>\
         <th data-sort=\"text\">instruction</th><th data-sort=\"text\">why it pads</th>\
         <th data-sort=\"text\">pads less</th><th data-sort=\"text\">op_name</th>\
         <th data-sort=\"text\">source</th></tr></thead><tbody>",
    );
    for e in r.entries.iter().take(OOM_ROWS) {
        let row = EntryRow::new(e, None);
        let ratio = match (row.size_bytes, row.logical_bytes) {
            (Some(s), Some(l)) if l > 0 => s as f64 / l as f64,
            _ => 0.0,
        };
        let agrees = row.agrees.map(|a| if a { "yes" } else { "no" });
        let _ = write!(
            out,
            "<tr><td class=\"num\" data-value=\"{}\">{}</td>{}{}{}{}\
             <td class=\"num\" data-value=\"{ratio}\">{}</td>{}{}{}{}{}{}{}</tr>",
            row.entry,
            row.entry,
            text_cell(row.printed_size, " class=\"num\""),
            size_cell(row.size_bytes, size),
            size_cell(row.logical_bytes, size),
            size_cell(row.padding_bytes, size),
            row.expansion.map_or_else(|| String::from("-"), |x| format!("{x}x")),
            text_cell(agrees, ""),
            text_cell(row.recomputed_shape.or(row.shape), " class=\"shape\""),
            text_cell(row.instruction.or(row.opcode), ""),
            text_cell(
                Some(&row.causes.join("; ")).filter(|c| !c.is_empty()).map(String::as_str),
                ""
            ),
            text_cell(
                row.best_layout
                    .map(|l| match row.best_bytes {
                        Some(b) => format!("{l} {}", size(b)),
                        None => l.to_string(),
                    })
                    .as_deref(),
                " class=\"shape\"",
            ),
            text_cell(row.op_name, " class=\"wrap\""),
            text_cell(row.source, " class=\"wrap\""),
        );
    }
    out.push_str("</tbody></table></div>");
    if r.entries.len() > OOM_ROWS {
        let _ = write!(
            out,
            "<p class=\"note\">The first {OOM_ROWS} of {} entries (the totals count all).</p>",
            r.entries.len()
        );
    }
}

/// The entries listed with no size: by allocation type, instruction and label.
fn sizeless(out: &mut String, r: &OomReport) {
    if r.sizeless.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "<h2>Entries without a size</h2><p>{} listed by label and allocation type only: nothing \
         to recompute or add up.</p><table class=\"sortable\"><thead><tr><th data-sort=\"num\">#</th>\
         <th data-sort=\"text\">allocation type</th><th data-sort=\"text\">instruction</th>\
         <th data-sort=\"text\">label</th></tr></thead><tbody>",
        r.sizeless.len()
    );
    for e in r.sizeless.iter().take(OOM_ROWS) {
        let row = EntryRow::new(e, None);
        let _ = write!(
            out,
            "<tr><td class=\"num\" data-value=\"{}\">{}</td>{}{}{}</tr>",
            row.entry,
            row.entry,
            text_cell(row.allocation_type, ""),
            text_cell(row.instruction, ""),
            text_cell(row.label, " class=\"wrap\"")
        );
    }
    out.push_str("</tbody></table>");
}

/// What could not be read, by line.
fn problems(out: &mut String, r: &OomReport) {
    if r.problems.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "<h2>Reading problems ({})</h2><table class=\"sortable\"><thead><tr>\
         <th data-sort=\"num\">line</th><th data-sort=\"text\">problem</th></tr></thead><tbody>",
        r.problems.len()
    );
    for p in &r.problems {
        let _ = write!(
            out,
            "<tr><td class=\"num\" data-value=\"{}\">{}</td><td>{}</td></tr>",
            p.line,
            p.line,
            escape(&p.message)
        );
    }
    out.push_str("</tbody></table>");
}
