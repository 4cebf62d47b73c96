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
//!
//! Two things keep the work near linear without changing what XLA's steps decide: a
//! node's users are a set (a replacement finds the replaced node among an input's users in
//! one look-up, not by a scan; XLA's `c_replace` over the list does the same), and only phis
//! keep users at all (only phis are ever replaced, so no one reads a non-phi's users). What
//! is left, a pass revisiting every node and a replacement rewriting its users' inputs, is
//! counted against a budget; a hostile graph stops at it, and the module is then "not
//! modelled" (`Rule::PhiBudget`) with bounds.

use std::collections::{HashSet, VecDeque};

use super::super::id::{id, IndexVec};
use super::super::work;

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
    /// The phis that name it among their inputs (kept for phis only).
    users: HashSet<PhiNode>,
}

/// The phi graph of a dataflow.
#[derive(Clone, Debug, Default)]
pub(crate) struct PhiGraph {
    nodes: IndexVec<PhiNode, Node>,
    /// For each node: the node that replaced it (itself if none), a union-find forest: a
    /// node's value maps to the root of its tree, its last replacement.
    current: IndexVec<PhiNode, PhiNode>,
}

/// What [`PhiGraph::optimize`] spends at most, in steps (a node or an edge visited, a user's
/// input rewritten) per node and edge: a hostile module cannot make it run long. Real
/// modules need a few passes.
const BUDGET_PER_ELEMENT: u64 = 64;

#[cfg(test)]
thread_local! {
    /// A budget that replaces the real one on this thread: a test makes a real module's
    /// simplification stop, to see what the peak then says.
    pub(crate) static TEST_BUDGET: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}

/// Steps taken out of a budget: `false` once it is spent. (Not counted as work steps: the
/// budget bounds them, linearly in the graph, and says when it stops them.)
struct Budget(u64);

impl Budget {
    fn spend(&mut self, steps: usize) -> bool {
        self.0 = self.0.saturating_sub(steps as u64);
        self.0 > 0
    }
}

impl PhiGraph {
    /// Adds a node; returns its number.
    pub fn add(&mut self, phi: bool) -> PhiNode {
        let n = self.nodes.next_id();
        self.nodes.push(Node { phi, dead: false, operands: Vec::new(), users: HashSet::new() });
        self.current.push(n);
        n
    }

    /// Sets a phi node's inputs (the first of each, in order: XLA's phi inputs are a set of
    /// values).
    pub fn set_inputs(&mut self, node: PhiNode, mut inputs: Vec<PhiNode>) {
        let mut seen = HashSet::with_capacity(inputs.len());
        inputs.retain(|&i| seen.insert(i));
        self.nodes[node].operands = inputs;
    }

    /// The phi nodes not replaced by another node: after a stop at the budget, the phis the
    /// simplification did not finish.
    pub fn live_phis(&self) -> impl Iterator<Item = PhiNode> + '_ {
        self.nodes.iter_enumerated().filter(|(_, n)| n.phi && !n.dead).map(|(i, _)| i)
    }

    /// The node the value of `node` maps to now (after [`PhiGraph::optimize`], one step).
    pub fn resolved(&self, mut node: PhiNode) -> PhiNode {
        for _ in 0..self.nodes.len() {
            let up = self.current[node];
            if up == node {
                break;
            }
            node = up;
        }
        node
    }

    /// The root of `node`'s tree, halving the path on the way.
    fn find(&mut self, mut node: PhiNode) -> PhiNode {
        while self.current[node] != node {
            let up = self.current[self.current[node]];
            self.current[node] = up;
            node = up;
        }
        node
    }

    /// Whether `node` is a phi.
    pub fn is_phi(&self, node: PhiNode) -> bool {
        self.nodes[node].phi
    }

    /// Runs XLA's optimization to its fixed point; `false` if it stopped at its budget.
    pub fn optimize(&mut self) -> bool {
        let edges: usize = self.nodes.iter().map(|n| n.operands.len()).sum();
        let budget = BUDGET_PER_ELEMENT
            .saturating_mul((self.nodes.len() + edges) as u64)
            .saturating_add(1 << 16);
        #[cfg(test)]
        let budget = TEST_BUDGET.with(|b| b.get()).unwrap_or(budget);
        self.optimize_within(budget)
    }

    /// [`PhiGraph::optimize`] within `budget` steps.
    fn optimize_within(&mut self, budget: u64) -> bool {
        work::count(self.nodes.len());
        let finished = self.run(Budget(budget));
        for n in self.nodes.ids() {
            let root = self.find(n);
            self.current[n] = root;
        }
        finished
    }

    fn run(&mut self, mut budget: Budget) -> bool {
        for n in self.nodes.ids() {
            for k in 0..self.nodes[n].operands.len() {
                let input = self.nodes[n].operands[k];
                if self.nodes[input].phi {
                    self.nodes[input].users.insert(n);
                }
            }
        }
        let mut changed = true;
        while changed {
            changed = false;
            if !budget.spend(self.nodes.len()) {
                return false;
            }
            let mut checked = IndexVec::<PhiNode, bool>::from_elem(false, self.nodes.len());
            for n in self.nodes.ids() {
                let node = &mut self.nodes[n];
                if !node.phi || node.dead {
                    continue;
                }
                if !budget.spend(1 + node.operands.len()) {
                    return false;
                }
                node.operands.retain(|&o| o != n);
                node.users.remove(&n);
                let Some(&first) = node.operands.first() else { continue };
                if node.operands.iter().all(|&o| o == first) {
                    if !self.replace(n, first, &mut budget) {
                        return false;
                    }
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
                    if !budget.spend(1 + t.operands.len()) {
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
                            if !self.replace(w, value, &mut budget) {
                                return false;
                            }
                            changed = true;
                        }
                    }
                }
            }
        }
        true
    }

    /// `ReplaceNodeWith`; `false` when the budget ran out.
    fn replace(&mut self, node: PhiNode, mut with: PhiNode, budget: &mut Budget) -> bool {
        // A replacement already replaced stands for its own replacement.
        with = self.find(with);
        if self.nodes[node].dead || node == with {
            return true;
        }
        // The users' inputs that name the node now name its replacement.
        let users = std::mem::take(&mut self.nodes[node].users);
        let mut steps = users.len();
        for &u in &users {
            let operands = &mut self.nodes[u].operands;
            steps += operands.len();
            for o in operands.iter_mut() {
                if *o == node {
                    *o = with;
                }
            }
        }
        self.nodes[node].users = users;
        // The inputs' users name the replacement instead (phis only keep users).
        let operands = std::mem::take(&mut self.nodes[node].operands);
        steps += operands.len();
        let with_is_phi = self.nodes[with].phi;
        for &o in &operands {
            let users = &mut self.nodes[o].users;
            if users.remove(&node) && with_is_phi {
                users.insert(with);
            }
        }
        self.nodes[node].operands = operands;
        // Every value mapped to the node maps to its replacement.
        self.current[node] = with;
        self.nodes[node].dead = true;
        budget.spend(steps)
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
    fn a_graph_past_its_budget_stops_and_says_which_phis_are_left() {
        // A chain of phis over two values: each needs its own search.
        let mut g = PhiGraph::default();
        let (a, b) = (g.add(false), g.add(false));
        let phis: Vec<PhiNode> = (0..100).map(|_| g.add(true)).collect();
        for (k, &p) in phis.iter().enumerate() {
            let next = phis.get(k + 1).copied().unwrap_or(b);
            g.set_inputs(p, vec![a, next, a]); // `a` twice: one input
        }
        assert_eq!(g.nodes[phis[0]].operands, [a, phis[1]]);
        let mut small = g.clone();
        assert!(!small.optimize_within(50));
        assert_eq!(small.live_phis().count(), 100);
        // With its budget it finishes: two values reach every phi, so all survive.
        assert!(g.optimize());
        assert_eq!(g.live_phis().collect::<Vec<_>>(), phis);
        assert!(phis.iter().all(|&p| g.resolved(p) == p));
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
