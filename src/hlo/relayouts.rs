//! Where a program moves bytes to change layouts: every instruction that only moves
//! elements — `copy`, `transpose`, `reshape`, `bitcast`, `copy-start` (whose `copy-done`
//! only waits for it) — fusion bodies included, with whether it keeps every element where it
//! was ([`algebra`](crate::algebra), tiles included), the bytes it reads and writes when it
//! does not, and the result layout that would make it free.
//!
//! A `bitcast` reinterprets its operand's bytes by definition: it never moves anything, and
//! its row says which logical operation it is (a reshape, a transpose, or neither when tiles
//! are regrouped). A copy between two layouts with the same index map (another memory space)
//! moves bytes but changes no layout: it counts as keeping every element where it was.

use serde::Serialize;

use super::text::attribute::dimensions;
use super::{CompId, InstrId, Module, Opcode};
use crate::algebra::{self, Decomposition, Reason};
use crate::{ArrayShape, Error, Shape, TileDim};

/// Orders of dimensions tried (each weighed by its rank) by the layout searches of one
/// module at most: bounded time on any input; a real module uses a tiny part of it.
pub const MODULE_LAYOUT_BUDGET: u64 = 2_000_000;

/// Elements compared one by one in one module at most (only shapes with `*` in a tile can
/// need it: [`algebra`]).
pub const MODULE_COMPARE_BUDGET: u64 = 1 << 26;

/// What is left of a module's budgets.
struct Budget {
    layout: u64,
    compare: u64,
}

/// Whether a shape's tiles hold `*` (whose layouts may be compared element by element).
fn combines(s: &ArrayShape) -> bool {
    s.layout.as_ref().is_some_and(|l| l.tiles.iter().any(|t| t.dims.contains(&TileDim::Combine)))
}

/// One instruction that only moves elements (a JSON row; the TSV and CSV columns of
/// `xlayout relayouts` are `file` and these keys).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Relayout<'a> {
    /// The line it starts on.
    pub line: usize,
    /// Its computation, by number: the index of its name in the module's computations
    /// ([`ComputationNames`](super::ComputationNames), written once beside the rows).
    pub computation: Option<CompId>,
    /// Whether that computation is a fusion's body (its moves happen inside the fusion).
    pub fused: bool,
    /// Its name.
    pub instruction: &'a str,
    /// `copy`, `transpose`, `reshape`, `bitcast` or `copy-start`.
    pub opcode: &'a str,
    /// The operand's shape, as XLA prints it (`None` when it could not be read).
    pub from: Option<String>,
    /// The result's (for `copy-start`, the copy's destination: element 0 of its tuple).
    pub to: Option<String>,
    /// A transpose's `dimensions`.
    pub dimensions: Option<Vec<u64>>,
    /// Whether every element stays where it was (`None` when that cannot be told: a shape
    /// missing or beyond the limits; `reason` says why).
    pub bitcast: Option<bool>,
    /// Why, in a sentence: the first element that moves, the sizes that differ, or for a
    /// `bitcast` which logical operation it is.
    pub reason: String,
    /// Bytes read when elements move: the operand's (XLA's `ArraySize`).
    pub read_bytes: Option<u64>,
    /// Bytes written when elements move: the result's.
    pub written_bytes: Option<u64>,
    /// `read_bytes + written_bytes`, 0 when nothing moves: the bytes this instruction moves to
    /// change a layout.
    pub moved_bytes: u64,
    /// The result's dimensions under a layout (tiles and every other field kept) that keeps
    /// every element where it was: the result itself when it already does, `None` when no
    /// order of its dimensions does (or, past [`MODULE_LAYOUT_BUDGET`], none was searched
    /// for: `reason` then says so).
    pub bitcast_layout: Option<String>,
    /// `op_name` of its metadata.
    pub op_name: Option<&'a str>,
}

/// The relayouts of a module: its rows, largest move first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Relayouts<'a> {
    /// Instructions that only move elements, the most bytes moved first (then in file
    /// order).
    pub rows: Vec<Relayout<'a>>,
    /// How many keep every element where it was.
    pub free: usize,
    /// The bytes moved to change layouts, in all.
    pub moved_bytes: u64,
}

/// The shape of instruction `i` when it is an array (for `copy-start`, element 0).
fn array_of(m: &Module<'_>, i: InstrId, element0: bool) -> Option<ArrayShape> {
    match m.shape(i)? {
        Shape::Array(a) => Some(a.clone()),
        Shape::Tuple(parts) if element0 => parts.first()?.as_array().cloned(),
        _ => None,
    }
}

/// The sentence of a `bitcast` instruction's decomposition.
fn decomposition_text(d: Option<Decomposition>) -> String {
    match d {
        Some(Decomposition::Reshape) => String::from("a reshape"),
        Some(Decomposition::Transpose { dimensions }) => format!("a transpose {dimensions:?}"),
        Some(Decomposition::TransposeReshapeTranspose { .. }) => {
            String::from("a transpose, a reshape and a transpose")
        }
        None => String::from("no reshape or transpose: the bytes are regrouped"),
    }
}

impl<'a> Relayouts<'a> {
    /// Finds every instruction of `m` that only moves elements and tells what it does.
    ///
    /// ```
    /// use xlayout::hlo::{Module, Relayouts};
    /// let m = Module::parse("%p = f32[4,128]{1,0:T(8,128)} parameter(0)\n\
    ///     %r = f32[4,1,128]{2,1,0:T(8,128)} reshape(%p)\n\
    ///     %s = f32[1,4,128]{2,1,0:T(8,128)} reshape(%p)\n");
    /// let r = Relayouts::new(&m);
    /// assert_eq!((r.rows.len(), r.free, r.moved_bytes), (2, 1, 4096 + 16384));
    /// let moves = &r.rows[0];
    /// assert_eq!((moves.instruction, moves.bitcast), ("r", Some(false)));
    /// assert_eq!(moves.bitcast_layout.as_deref(), Some("f32[4,1,128]{2,0,1:T(8,128)}"));
    /// ```
    pub fn new(m: &'a Module<'a>) -> Relayouts<'a> {
        Relayouts::within(
            m,
            Budget { layout: MODULE_LAYOUT_BUDGET, compare: MODULE_COMPARE_BUDGET },
        )
    }

    fn within(m: &'a Module<'a>, mut budget: Budget) -> Relayouts<'a> {
        let mut rows = Vec::new();
        for (i, ins) in m.instructions.iter_enumerated() {
            let copy_start = ins.opcode == Opcode::CopyStart;
            let kind = ins.opcode.as_str();
            let moves_only = matches!(ins.opcode, Opcode::Copy | Opcode::Bitcast)
                || copy_start
                || kind == "transpose"
                || kind == "reshape";
            if !moves_only {
                continue;
            }
            let computation = ins.computation.map(|c| &m.computations[c]);
            let from = ins.operand(0).and_then(|o| array_of(m, o, false));
            let to = array_of(m, i, copy_start);
            let dims = (kind == "transpose").then(|| dimensions(ins.attributes)).flatten();
            let mut row = Relayout {
                line: ins.line,
                computation: ins.computation,
                fused: computation.is_some_and(|c| c.is_fusion),
                instruction: ins.name,
                opcode: kind,
                from: from.as_ref().map(ToString::to_string),
                to: to.as_ref().map(ToString::to_string),
                dimensions: dims.clone(),
                bitcast: None,
                reason: String::new(),
                read_bytes: None,
                written_bytes: None,
                moved_bytes: 0,
                bitcast_layout: None,
                op_name: m.metadata(i).op_name.as_deref(),
            };
            match (&from, &to) {
                (Some(from), Some(to)) => {
                    let judged =
                        judge(&mut row, ins.opcode, from, to, dims.as_deref(), &mut budget);
                    if let Err(e) = judged {
                        row.reason = e.message().to_string();
                    }
                }
                (None, _) => row.reason = String::from("the operand's array shape is not known"),
                (_, None) => row.reason = String::from("the result's array shape is not known"),
            }
            rows.push(row);
        }
        rows.sort_by(|a, b| b.moved_bytes.cmp(&a.moved_bytes).then(a.line.cmp(&b.line)));
        let free = rows.iter().filter(|r| r.bitcast == Some(true)).count();
        let moved_bytes = rows.iter().fold(0u64, |s, r| s.saturating_add(r.moved_bytes));
        Relayouts { rows, free, moved_bytes }
    }
}

/// Fills in what an instruction does to its elements.
fn judge(
    row: &mut Relayout<'_>,
    opcode: Opcode<'_>,
    from: &ArrayShape,
    to: &ArrayShape,
    dims: Option<&[u64]>,
    budget: &mut Budget,
) -> Result<(), Error> {
    if combines(from) || combines(to) {
        let n = from.element_count()?.min(crate::limits::MAX_COMPARED_ELEMENTS as u64);
        if n > budget.compare {
            return Err(Error::new(
                crate::ErrorKind::WorkLimit,
                format!(
                    "not compared: a `*` tile may need an element-by-element comparison, and \
                     the module's budget of {MODULE_COMPARE_BUDGET} elements is spent"
                ),
            ));
        }
        budget.compare -= n;
    }
    // The layout search's cost, to be had only while the module's budget lasts.
    let orders = algebra::layout_orders(to).saturating_mul(to.rank() as u64 + 1);
    let search = orders <= budget.layout;
    if opcode == Opcode::Bitcast {
        // The bytes stay by definition; say which logical operation it is.
        row.bitcast = Some(true);
        row.reason = decomposition_text(algebra::decompose_bitcast(from, to)?);
        row.bitcast_layout = Some(to.to_string());
        return Ok(());
    }
    let (reason, layout) = match dims {
        Some(d) => {
            let d: Vec<usize> = d.iter().map(|&x| x as usize).collect();
            let r = algebra::check_transpose(from, to, &d, false)?;
            let layout = match (r.is_bitcast(), search) {
                (true, _) => Some(to.clone()),
                (false, true) => algebra::transpose_bitcast_layout(from, to, &d)?,
                (false, false) => None,
            };
            (r, layout)
        }
        None if row.opcode == "transpose" => {
            return Err(Error::new(
                crate::ErrorKind::Syntax,
                "the transpose has no readable `dimensions`",
            ));
        }
        // A copy keeps the dimensions: it is a reshape to the same ones.
        None => {
            let r = algebra::check_reshape(from, to, false)?;
            let layout = match (r.is_bitcast(), search) {
                (true, _) => Some(to.clone()),
                (false, true) => algebra::reshape_bitcast_layout(from, to)?,
                (false, false) => None,
            };
            (r, layout)
        }
    };
    row.bitcast = Some(reason.is_bitcast());
    row.bitcast_layout = layout.map(|l| l.to_string());
    if !reason.is_bitcast() {
        // XLA's ArraySize; a first tile with `*` has none, and then the grid's size counts.
        let size = |s: &ArrayShape| s.byte_size().or_else(|_| s.nested_byte_size());
        let (read, written) = (size(from)?, size(to)?);
        row.read_bytes = Some(read);
        row.written_bytes = Some(written);
        row.moved_bytes = read.saturating_add(written);
    }
    row.reason = match reason {
        Reason::Bitcast
            if from.layout_or_default().memory_space != to.layout_or_default().memory_space =>
        {
            String::from("every element keeps its offset; the bytes go to another memory space")
        }
        Reason::Bitcast => reason.to_string(),
        r if search => r.to_string(),
        r => format!(
            "{r}; no layout searched for: the module's budget of {MODULE_LAYOUT_BUDGET} is spent"
        ),
    };
    if search && row.bitcast == Some(false) {
        budget.layout -= orders;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budgets_bound_the_work_of_a_module() {
        // Three reshapes that move their rows under (8,128): each search tries the orders
        // of the result's 3 dimensions; a budget for one leaves the others unsearched, and a
        // `*` that may need comparing element by element is refused past its budget.
        let x = "f32[4,128]{1,0:T(8,128)}";
        let split = "f32[4,1,128]{2,1,0:T(8,128)}";
        let text = format!(
            "%p = {x} parameter(0)\n%a = {split} reshape(%p)\n%b = {split} reshape(%p)\n\
             %c = {split} reshape(%p)\n%q = f32[3,5]{{0,1:T(*,4)}} parameter(1)\n\
             %d = f32[15]{{0}} reshape(%q)\n"
        );
        let m = Module::parse(&text);
        let orders = algebra::layout_orders(&split.parse().unwrap()) * 4;
        let r = Relayouts::within(&m, Budget { layout: orders, compare: 10 });
        let searched: Vec<bool> =
            r.rows[..3].iter().map(|row| row.bitcast_layout.is_some()).collect();
        assert_eq!(searched, [true, false, false]);
        assert!(r.rows[1]
            .reason
            .ends_with("no layout searched for: the module's budget of 2000000 is spent"));
        let d = r.rows.iter().find(|row| row.instruction == "d").unwrap();
        assert_eq!(d.bitcast, None);
        assert!(d.reason.starts_with("not compared: a `*` tile"), "{}", d.reason);
        // With the module's budgets, all are answered.
        let r = Relayouts::new(&m);
        assert!(r.rows.iter().all(|row| row.bitcast.is_some()));
        assert_eq!(r.rows.iter().filter(|row| row.bitcast_layout.is_some()).count(), 3);
    }
}
