//! Index programs as Rust: the runtime plan's forward program (logical index to offset) and
//! inverse program (offset to logical index, for a program too large for the library's
//! `index_of_program`) as straight-line bodies with literal divisors and strides, so that the
//! optimizer turns power-of-two tiles into shifts and masks.

use layout_runtime::{IndexProgram, IndexStep, Plan};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

use crate::tokens::{lit, local};

/// A register's value while emitting: a constant 0 (never written) or a local variable.
#[derive(Clone)]
enum Val {
    Zero,
    Var(Ident),
}

impl Val {
    fn tokens(&self) -> TokenStream {
        match self {
            Val::Zero => quote!(0),
            Val::Var(v) => quote!(#v),
        }
    }
}

/// Straight-line code for a program: `let`s for the registers that matter.
struct Emitter {
    vals: Vec<Val>,
    used: Vec<bool>,
    /// The largest value each register can hold (inverse programs, where the input is below
    /// the grid size): a range check that cannot fail is left out.
    max: Vec<usize>,
    code: TokenStream,
    /// Forward code wraps (an out-of-range index must not panic); inverse code stays in range.
    wrapping: bool,
    /// The inverse program's range checks that can fail: the position is padding if any does.
    padding: Vec<TokenStream>,
}

impl Emitter {
    fn new(p: &IndexProgram, results: &[usize], wrapping: bool) -> Emitter {
        // A register matters when a result or a step that matters reads it.
        let mut used = vec![false; p.registers];
        for &r in results {
            used[r] = true;
        }
        for step in p.steps.iter().rev() {
            match *step {
                IndexStep::DivRem { src, quotient, remainder, .. } => {
                    if used[quotient] || used[remainder] {
                        used[src] = true;
                    }
                }
                IndexStep::MulAdd { dst, a, b, bound, .. } => {
                    if used[dst] || bound.is_some() {
                        used[a] = true;
                        used[b] = true;
                    }
                }
            }
        }
        Emitter {
            vals: vec![Val::Zero; p.registers],
            used,
            max: vec![usize::MAX; p.registers],
            code: TokenStream::new(),
            wrapping,
            padding: Vec::new(),
        }
    }

    fn set(&mut self, r: usize, value: TokenStream) {
        let v = local(&format!("r{r}"));
        self.code.extend(quote!(let #v = #value;));
        self.vals[r] = Val::Var(v);
    }

    /// The largest value of `r` (0 when it is never written).
    fn max_of(&self, r: usize) -> usize {
        match self.vals[r] {
            Val::Zero => 0,
            Val::Var(_) => self.max[r],
        }
    }

    fn steps(&mut self, p: &IndexProgram) {
        for step in &p.steps {
            match *step {
                IndexStep::DivRem { src, quotient, remainder, divisor } => {
                    let s = self.vals[src].clone();
                    let top = self.max_of(src);
                    match (&s, divisor) {
                        (Val::Zero, _) => {}
                        (_, 1) => (self.vals[quotient], self.max[quotient]) = (s, top),
                        (Val::Var(v), d) => {
                            let d_lit = lit(d);
                            if self.used[quotient] {
                                self.set(quotient, quote!(#v / #d_lit));
                                self.max[quotient] = top / d;
                            }
                            if self.used[remainder] {
                                self.set(remainder, quote!(#v % #d_lit));
                                self.max[remainder] = top.min(d - 1);
                            }
                        }
                    }
                }
                IndexStep::MulAdd { dst, a, multiplier, b, bound } => {
                    let top = self
                        .max_of(a)
                        .checked_mul(multiplier)
                        .and_then(|t| t.checked_add(self.max_of(b)));
                    if let (Val::Var(v), 1, Val::Zero) = (&self.vals[a], multiplier, &self.vals[b])
                    {
                        // A copy: the same variable under the register's name.
                        (self.vals[dst], self.max[dst]) = (Val::Var(v.clone()), self.max[a]);
                        self.check(dst, bound);
                        continue;
                    }
                    let term_a = match (&self.vals[a], multiplier) {
                        (Val::Zero, _) | (_, 0) => None,
                        (Val::Var(v), 1) => Some(quote!(#v)),
                        (Val::Var(v), m) if self.wrapping || top.is_none() => {
                            let m = lit(m);
                            Some(quote!(#v.wrapping_mul(#m)))
                        }
                        (Val::Var(v), m) => {
                            let m = lit(m);
                            Some(quote!(#v * #m))
                        }
                    };
                    let term_b = match &self.vals[b] {
                        Val::Zero => None,
                        Val::Var(v) => Some(v.clone()),
                    };
                    match (term_a, term_b) {
                        (None, None) => self.vals[dst] = Val::Zero,
                        // A copy: the same variable under the register's name.
                        (None, Some(v)) => self.vals[dst] = Val::Var(v),
                        (Some(t), None) => self.set(dst, t),
                        (Some(ta), Some(tb)) if self.wrapping || top.is_none() => {
                            self.set(dst, quote!(#ta.wrapping_add(#tb)))
                        }
                        (Some(ta), Some(tb)) => self.set(dst, quote!(#ta + #tb)),
                    }
                    self.max[dst] = top.unwrap_or(usize::MAX);
                    self.check(dst, bound);
                }
            }
        }
    }

    /// The range check of an inverse program's result `r`, when it can fail.
    fn check(&mut self, r: usize, bound: Option<usize>) {
        if let (Some(bound), Val::Var(v)) = (bound, &self.vals[r]) {
            if self.max[r] >= bound {
                let bound_lit = lit(bound);
                self.padding.push(quote!(#v >= #bound_lit));
                self.max[r] = bound - 1;
            }
        }
    }
}

/// `offset = Σ regs[r]·stride` after the forward program; reads `index`.
pub fn forward_body(p: &IndexProgram, index: &Ident) -> TokenStream {
    let results: Vec<usize> = p.outputs.iter().map(|&(r, _)| r).collect();
    let mut e = Emitter::new(p, &results, true);
    if !p.inputs.iter().any(|&r| e.used[r]) {
        e.code.extend(quote!(let _ = #index;));
    }
    for (d, &r) in p.inputs.iter().enumerate() {
        if e.used[r] {
            let d = lit(d);
            e.set(r, quote!(#index[#d]));
        }
    }
    e.steps(p);
    let mut sum: Option<TokenStream> = None;
    for &(r, stride) in &p.outputs {
        let term = match (&e.vals[r], stride) {
            (Val::Zero, _) | (_, 0) => continue,
            (Val::Var(v), 1) => quote!(#v),
            (Val::Var(v), s) => {
                let s = lit(s);
                quote!(#v.wrapping_mul(#s))
            }
        };
        sum = Some(match sum {
            None => term,
            Some(acc) => quote!(#acc.wrapping_add(#term)),
        });
    }
    let code = e.code;
    let sum = sum.unwrap_or_else(|| quote!(0));
    quote!(#code #sum)
}

/// The digits of `offset` in the expanded space, then the inverse program; reads `offset`.
/// `None` is spelled `#x::Option::None`.
pub fn inverse_body(plan: &Plan, offset: &Ident, x: &TokenStream) -> TokenStream {
    let none = quote!(#x::Option::None);
    if plan.grid_len() == 0 {
        return quote! { let _ = #offset; #none };
    }
    let p = plan.inverse_program();
    let results: Vec<usize> = p.outputs.iter().map(|&(r, _)| r).collect();
    let mut e = Emitter::new(&p, &results, false);
    let grid = lit(plan.grid_len());
    // Peel digits from the most minor axis; the most major axis that is not 1 takes what is
    // left (the offset is below the grid, so no division is needed there).
    let sizes = plan.expanded_shape();
    let major = sizes.iter().position(|&s| s != 1);
    let mut rest = Val::Var(offset.clone());
    let mut rest_max = plan.grid_len() - 1;
    for k in (0..sizes.len()).rev() {
        let r = p.inputs[k];
        if sizes[k] == 1 {
            continue;
        }
        if Some(k) == major {
            if e.used[r] {
                (e.vals[r], e.max[r]) = (rest.clone(), rest_max);
            }
            break;
        }
        let Val::Var(v) = rest.clone() else { break };
        let size = lit(sizes[k]);
        if e.used[r] {
            e.set(r, quote!(#v % #size));
            e.max[r] = sizes[k] - 1;
        }
        let needed_above = (0..k).any(|j| sizes[j] != 1 && e.used[p.inputs[j]]);
        if !needed_above {
            break;
        }
        let q = local(&format!("rest{k}"));
        e.code.extend(quote!(let #q = #v / #size;));
        (rest, rest_max) = (Val::Var(q), rest_max / sizes[k]);
    }
    e.steps(&p);
    let index = results.iter().map(|&r| e.vals[r].tokens());
    let code = e.code;
    // The offset is checked first, then every range check that can fail at once: the values
    // they test are digits of a number below the grid size and their sums, which cannot
    // overflow.
    let padding = (!e.padding.is_empty()).then(|| {
        let checks = e.padding;
        quote!(if #(#checks)||* { return #none; })
    });
    quote! {
        if #offset >= #grid {
            return #none;
        }
        #code
        #padding
        #x::Option::Some([#(#index),*])
    }
}
