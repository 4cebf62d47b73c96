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

use std::collections::{HashSet, VecDeque};

use super::super::id::{id, IndexVec};

id! {
    /// A node of the [`PhiGraph`].
    pub(crate) PhiNode
}

/// A node: a phi value or a value flowing into one.
#[derive(Clone, Debug)]
struct Node {
    phi: bool,
    dead: bool,
    operands: Vec<PhiNode>,
    users: Vec<PhiNode>,
    /// The nodes whose values now map to this one (itself first).
    members: Vec<PhiNode>,
}

/// The phi graph of a dataflow.
#[derive(Clone, Debug, Default)]
pub(crate) struct PhiGraph {
    nodes: IndexVec<PhiNode, Node>,
    /// For each node's own value: the node it maps to now.
    current: IndexVec<PhiNode, PhiNode>,
}

/// What [`PhiGraph::optimize`] spends at most, in node and edge visits per node and
/// edge: a hostile module cannot make it run long. Real modules need a few passes.
const BUDGET_PER_ELEMENT: u64 = 64;

impl PhiGraph {
    /// Adds a node; returns its number.
    pub fn add(&mut self, phi: bool) -> PhiNode {
        let n = self.nodes.next_id();
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
    pub fn set_inputs(&mut self, node: PhiNode, inputs: Vec<PhiNode>) {
        self.nodes[node].operands = inputs;
    }

    /// The node the value of `node` maps to now.
    pub fn resolved(&self, node: PhiNode) -> PhiNode {
        self.current[node]
    }

    /// Whether `node` is a phi.
    pub fn is_phi(&self, node: PhiNode) -> bool {
        self.nodes[node].phi
    }

    /// Runs XLA's optimization to its fixed point; `false` if it stopped at its budget.
    pub fn optimize(&mut self) -> bool {
        let edges: usize = self.nodes.iter().map(|n| n.operands.len()).sum();
        let mut budget = BUDGET_PER_ELEMENT
            .saturating_mul((self.nodes.len() + edges) as u64)
            .saturating_add(1 << 16);
        for n in self.nodes.ids() {
            for k in 0..self.nodes[n].operands.len() {
                let input = self.nodes[n].operands[k];
                self.nodes[input].users.push(n);
            }
        }
        let mut changed = true;
        while changed {
            changed = false;
            let mut checked = IndexVec::<PhiNode, bool>::from_elem(false, self.nodes.len());
            for n in self.nodes.ids() {
                let node = &mut self.nodes[n];
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
                if checked[n] {
                    continue;
                }
                // The closure of phis reachable from n, and the one non-phi in it, if one.
                let mut workset: Vec<PhiNode> = Vec::new();
                let mut in_workset = HashSet::new();
                let mut queue: VecDeque<PhiNode> = VecDeque::from([n]);
                let mut non_phi: Option<PhiNode> = None;
                while let Some(todo) = queue.pop_front() {
                    if !in_workset.insert(todo) {
                        continue;
                    }
                    checked[todo] = true;
                    workset.push(todo);
                    let t = &self.nodes[todo];
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
                        if self.nodes[w].phi {
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
    fn replace(&mut self, node: PhiNode, mut with: PhiNode) {
        // A replacement already replaced stands for its own replacement.
        for _ in 0..=self.nodes.len() {
            if !self.nodes[with].dead {
                break;
            }
            let next = self.current[with];
            if next == with {
                break;
            }
            with = next;
        }
        if self.nodes[node].dead || node == with {
            return;
        }
        let users = std::mem::take(&mut self.nodes[node].users);
        for &u in &users {
            for o in &mut self.nodes[u].operands {
                if *o == node {
                    *o = with;
                }
            }
        }
        self.nodes[node].users = users;
        let operands = self.nodes[node].operands.clone();
        for o in operands {
            for u in &mut self.nodes[o].users {
                if *u == node {
                    *u = with;
                }
            }
        }
        let members = std::mem::take(&mut self.nodes[node].members);
        for &m in &members {
            self.current[m] = with;
        }
        self.nodes[with].members.extend(members);
        self.nodes[node].dead = true;
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
