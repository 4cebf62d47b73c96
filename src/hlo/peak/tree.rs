//! A result shape as XLA's `ShapeTree` sees it: one node per subshape (the tuple index
//! tables included), in pre-order, each with the sizes a value defined there has.

use crate::Shape;

use super::super::id::{id, IndexVec};
use super::super::sizes::{Leaf, LeafKind, ShapeFacts};

id! {
    /// A node of a [`Tree`]: a subshape, numbered in pre-order (the root is node 0).
    pub(crate) NodeId
}

/// The bytes of one subshape.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, NodeSizes, Peak};
/// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  ROOT %p = pred[100]{0:T(128)E(32)} parameter(0)\n}\n");
/// let s = Peak::new(&Analysis::new(&m)).values.raw()[0].sizes.unwrap();
/// assert_eq!(s, NodeSizes { bytes: 400, array_bytes: 512, logical_bytes: 100 });
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct NodeSizes {
    /// `ShapeUtil::ByteSizeOf(shape, 8)`: what XLA's live range sizes a value by (an
    /// array's elements with `E(n)` packing and no tiles; a tuple's index table, 8 bytes per
    /// element; a token 0; an opaque handle 8).
    pub bytes: u64,
    /// `ShapeUtil::ArraySize` for an array: the allocation, tiling padding included (as
    /// [`Sizes::array_bytes`](crate::hlo::Sizes::array_bytes)); `bytes` for the rest.
    pub array_bytes: u64,
    /// The data at its natural width (as [`Sizes::logical_bytes`](crate::hlo::Sizes::logical_bytes)); `bytes` for the rest.
    pub logical_bytes: u64,
}

impl NodeSizes {
    /// The sum, saturating.
    pub(crate) fn plus(self, o: NodeSizes) -> NodeSizes {
        NodeSizes {
            bytes: self.bytes.saturating_add(o.bytes),
            array_bytes: self.array_bytes.saturating_add(o.array_bytes),
            logical_bytes: self.logical_bytes.saturating_add(o.logical_bytes),
        }
    }
}

/// One subshape.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    /// Its tuple and its place in it (`None` for the root): the shape index is the path of
    /// these ([`Tree::index`]), not a vector per node.
    pub parent: Option<(NodeId, u32)>,
    /// Its children (a tuple's elements, in order).
    pub children: Vec<NodeId>,
    /// One past the last node of its subtree (a position).
    pub end: usize,
    /// Its sizes; `None` when XLA gives none (an unbounded dimension, a `b(...)` buffer)
    /// or the shape was not read.
    pub sizes: Option<NodeSizes>,
}

/// The nodes of one shape, in pre-order.
#[derive(Clone, Debug)]
pub(crate) struct Tree {
    pub nodes: IndexVec<NodeId, Node>,
}

/// Tuples nest a few levels in practice; the shape parser stops deeper ones already.
const MAX_DEPTH: usize = crate::limits::MAX_NESTING;

impl Tree {
    /// The tree of a shape whose facts are `facts` (their leaves are the tree's non-tuple
    /// nodes, in the same order).
    pub fn new(shape: &Shape, facts: &ShapeFacts) -> Tree {
        // Room for exactly its nodes: a tuple of a million leaves would otherwise keep room
        // for 1,048,576 (and hold both vectors while the last one grows).
        let mut t = Tree { nodes: IndexVec::from_raw(Vec::with_capacity(subshapes(shape, 0))) };
        let mut leaves = facts.leaves.iter();
        t.add(shape, None, 0, &mut leaves);
        t
    }

    /// A tree of one node without a size: what an instruction whose shape was not read has.
    pub fn unknown() -> Tree {
        let root = Node { parent: None, children: Vec::new(), end: 1, sizes: None };
        Tree { nodes: IndexVec::from_raw(vec![root]) }
    }

    fn add<'f>(
        &mut self,
        shape: &Shape,
        parent: Option<(NodeId, u32)>,
        depth: usize,
        leaves: &mut impl Iterator<Item = &'f Leaf>,
    ) -> NodeId {
        let me = self.nodes.push(Node {
            parent,
            children: Vec::new(),
            end: self.nodes.len() + 1,
            sizes: None,
        });
        match shape {
            Shape::Tuple(elements) if depth < MAX_DEPTH => {
                let n = elements.len() as u64;
                let table = n.saturating_mul(8);
                self.nodes[me].sizes =
                    Some(NodeSizes { bytes: table, array_bytes: table, logical_bytes: table });
                self.nodes[me].children.reserve_exact(elements.len());
                for (i, e) in elements.iter().enumerate() {
                    let child = self.add(e, Some((me, i as u32)), depth + 1, leaves);
                    self.nodes[me].children.push(child);
                }
            }
            _ => {
                let leaf = leaves.next();
                self.nodes[me].sizes = leaf.and_then(|l| match l.kind {
                    LeafKind::Token => Some(NodeSizes::default()),
                    // ByteSizeOf of `opaque[]` is the pointer size.
                    LeafKind::Opaque => {
                        Some(NodeSizes { bytes: 8, array_bytes: 8, logical_bytes: 8 })
                    }
                    LeafKind::Array if matches!(shape, Shape::Buffer(_)) => None,
                    LeafKind::Array => l.sizes.map(|s| NodeSizes {
                        // ByteSizeOf = the data with E(n) packing = logical + widening.
                        bytes: s.logical_bytes.saturating_add(s.widening_bytes),
                        array_bytes: s.array_bytes,
                        logical_bytes: s.logical_bytes,
                    }),
                });
            }
        }
        let end = self.nodes.len();
        self.nodes[me].end = end;
        me
    }

    /// The shape index of `node` (`{}` for the root): its path from the root, at most
    /// [`MAX_DEPTH`] steps.
    pub fn index(&self, node: NodeId) -> Vec<u32> {
        let mut index = Vec::new();
        let mut at = self.nodes.get(node).and_then(|n| n.parent);
        while let Some((parent, slot)) = at {
            index.push(slot);
            at = self.nodes[parent].parent;
        }
        index.reverse();
        index
    }

    /// The root: the whole shape.
    pub fn root() -> NodeId {
        NodeId::new(0)
    }

    /// The number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The number of nodes in the subtree of `node`.
    pub fn subtree_len(&self, node: NodeId) -> usize {
        self.nodes[node].end - node.index()
    }

    /// Child `i` of `node`, if `node` is a tuple with that many elements.
    pub fn child(&self, node: NodeId, i: u64) -> Option<NodeId> {
        let i = usize::try_from(i).ok()?;
        self.nodes.get(node)?.children.get(i).copied()
    }

    /// The node at a shape index.
    pub fn at(&self, index: &[u64]) -> Option<NodeId> {
        index.iter().try_fold(Tree::root(), |node, &i| self.child(node, i))
    }
}

/// How many nodes the tree of `shape` (at tuple depth `depth`) has: as [`Tree::add`] makes
/// them, a tuple nested deeper than [`MAX_DEPTH`] one node.
fn subshapes(shape: &Shape, depth: usize) -> usize {
    match shape {
        Shape::Tuple(elements) if depth < MAX_DEPTH => {
            1 + elements.iter().map(|e| subshapes(e, depth + 1)).sum::<usize>()
        }
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_in_pre_order_with_xla_sizes() {
        let s: Shape =
            "(f32[2,3]{1,0}, (s4[64]{0:E(4)}, token[]), f32[10]{0:T(8)})".parse().unwrap();
        let f = ShapeFacts::new(&s, &mut 0);
        let t = Tree::new(&s, &f);
        assert_eq!((subshapes(&s, 0), t.nodes.raw().len()), (6, 6));
        let index: Vec<Vec<u32>> = t.nodes.ids().map(|n| t.index(n)).collect();
        let want: [&[u32]; 6] = [&[], &[0], &[1], &[1, 0], &[1, 1], &[2]];
        assert_eq!(index, want);
        let bytes: Vec<u64> = t.nodes.iter().map(|n| n.sizes.unwrap().bytes).collect();
        assert_eq!(bytes, [24, 24, 16, 32, 0, 40]);
        assert_eq!(t.nodes[NodeId::new(5)].sizes.unwrap().array_bytes, 64); // T(8): 16 elements
        let n = NodeId::new;
        assert_eq!((t.subtree_len(n(2)), t.at(&[1, 1]), t.at(&[3])), (3, Some(n(4)), None));
    }
}
