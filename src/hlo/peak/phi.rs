//! XLA's `PhiGraph::Optimize` (`xla/service/hlo_phi_graph.cc`), step for step: which phi
//! values of the dataflow survive, and which value replaces each of the others.
//!
//! The nodes are phi values and the values that flow into them. Until nothing changes,
//! each live phi node, in creation order, drops itself from its inputs; if its inputs are
//! then all one node it is replaced by that node; otherwise, unless an earlier search of
//! this pass already visited it, the phis reachable from it through inputs are searched,
//! and if exactly one non-phi node is reachable every phi found is replaced by it. The
//! bookkeeping is XLA's: a replacement rewrites the inputs of the replaced node's users
//! as they were when the pass began, so an input can keep naming a node replaced later.

use std::collections::VecDeque;

/// A node: a phi value or a value flowing into one.
#[derive(Clone, Debug)]
struct Node {
    phi: bool,
    dead: bool,
    operands: Vec<u32>,
    users: Vec<u32>,
    /// The nodes whose values now map to this one (itself first).
    members: Vec<u32>,
}

/// The phi graph of a dataflow.
#[derive(Clone, Debug, Default)]
pub(crate) struct PhiGraph {
    nodes: Vec<Node>,
    /// For each node's own value: the node it maps to now.
    current: Vec<u32>,
}

/// What [`PhiGraph::optimize`] spends at most, in node and edge visits per node and
/// edge: a hostile module cannot make it run long. Real modules need a few passes.
const BUDGET_PER_ELEMENT: u64 = 64;

impl PhiGraph {
    /// Adds a node; returns its number.
    pub fn add(&mut self, phi: bool) -> u32 {
        let n = self.nodes.len() as u32;
        self.nodes.push(Node {
            phi,
            dead: false,
            operands: Vec::new(),
            users: Vec::new(),
            members: vec![n],
        });
        self.current.push(n);
        n
    }

    /// Sets a phi node's inputs.
    pub fn set_inputs(&mut self, node: u32, inputs: Vec<u32>) {
        self.nodes[node as usize].operands = inputs;
    }

    /// The node the value of `node` maps to now.
    pub fn resolved(&self, node: u32) -> u32 {
        self.current[node as usize]
    }

    /// Whether `node` is a phi.
    pub fn is_phi(&self, node: u32) -> bool {
        self.nodes[node as usize].phi
    }

    /// Runs XLA's optimization to its fixed point; `false` if it stopped at its budget.
    pub fn optimize(&mut self) -> bool {
        let edges: usize = self.nodes.iter().map(|n| n.operands.len()).sum();
        let mut budget = BUDGET_PER_ELEMENT
            .saturating_mul((self.nodes.len() + edges) as u64)
            .saturating_add(1 << 16);
        for n in 0..self.nodes.len() {
            for k in 0..self.nodes[n].operands.len() {
                let input = self.nodes[n].operands[k];
                self.nodes[input as usize].users.push(n as u32);
            }
        }
        let mut changed = true;
        while changed {
            changed = false;
            let mut checked = vec![false; self.nodes.len()];
            for n in 0..self.nodes.len() as u32 {
                let node = &mut self.nodes[n as usize];
                if !node.phi || node.dead {
                    continue;
                }
                budget = budget.saturating_sub(1 + node.operands.len() as u64);
                if budget == 0 {
                    return false;
                }
                node.operands.retain(|&o| o != n);
                node.users.retain(|&u| u != n);
                let Some(&first) = node.operands.first() else { continue };
                if node.operands.iter().all(|&o| o == first) {
                    self.replace(n, first);
                    changed = true;
                    continue;
                }
                if checked[n as usize] {
                    continue;
                }
                // The closure of phis reachable from n, and the one non-phi in it, if one.
                let mut workset: Vec<u32> = Vec::new();
                let mut in_workset = std::collections::HashSet::new();
                let mut queue: VecDeque<u32> = VecDeque::from([n]);
                let mut non_phi: Option<u32> = None;
                while let Some(todo) = queue.pop_front() {
                    if !in_workset.insert(todo) {
                        continue;
                    }
                    checked[todo as usize] = true;
                    workset.push(todo);
                    let t = &self.nodes[todo as usize];
                    budget = budget.saturating_sub(1 + t.operands.len() as u64);
                    if budget == 0 {
                        return false;
                    }
                    queue.extend(t.operands.iter().copied());
                    if !t.phi {
                        if non_phi.is_some_and(|p| p != todo) {
                            non_phi = None;
                            break;
                        }
                        non_phi = Some(todo);
                    }
                }
                if let Some(value) = non_phi {
                    for &w in &workset {
                        if self.nodes[w as usize].phi {
                            self.replace(w, value);
                            changed = true;
                        }
                    }
                }
            }
        }
        true
    }

    /// `ReplaceNodeWith`.
    fn replace(&mut self, node: u32, mut with: u32) {
        // A replacement already replaced stands for its own replacement.
        for _ in 0..=self.nodes.len() {
            if !self.nodes[with as usize].dead {
                break;
            }
            let next = self.current[with as usize];
            if next == with {
                break;
            }
            with = next;
        }
        if self.nodes[node as usize].dead || node == with {
            return;
        }
        let users = std::mem::take(&mut self.nodes[node as usize].users);
        for &u in &users {
            for o in &mut self.nodes[u as usize].operands {
                if *o == node {
                    *o = with;
                }
            }
        }
        self.nodes[node as usize].users = users;
        let operands = self.nodes[node as usize].operands.clone();
        for o in operands {
            for u in &mut self.nodes[o as usize].users {
                if *u == node {
                    *u = with;
                }
            }
        }
        let members = std::mem::take(&mut self.nodes[node as usize].members);
        for &m in &members {
            self.current[m as usize] = with;
        }
        self.nodes[with as usize].members.extend(members);
        self.nodes[node as usize].dead = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loop_passing_a_value_through_collapses_to_it() {
        // body parameter = phi(init, itself); while = phi(body parameter, init)
        let mut g = PhiGraph::default();
        let (param, init, w) = (g.add(true), g.add(false), g.add(true));
        g.set_inputs(param, vec![init, param]);
        g.set_inputs(w, vec![param, init]);
        assert!(g.optimize());
        assert_eq!((g.resolved(param), g.resolved(w)), (init, init));
    }

    #[test]
    fn a_phi_of_one_surviving_phi_becomes_that_phi() {
        // outer = phi(init a, new b) survives; inner = phi(outer, itself) becomes outer.
        let mut g = PhiGraph::default();
        let (outer, a, b, inner) = (g.add(true), g.add(false), g.add(false), g.add(true));
        g.set_inputs(outer, vec![a, b]);
        g.set_inputs(inner, vec![outer, inner]);
        assert!(g.optimize());
        assert_eq!((g.resolved(outer), g.resolved(inner)), (outer, outer));
    }
}
