//! XLA's bookkeeping of dimensions and their layout (`xla/shape_util.cc`,
//! `xla/layout_util.cc`): inserting, deleting, permuting and reordering dimensions while
//! keeping minor_to_major a permutation, as XLA does it (which fields each function keeps is
//! XLA's choice, noted on each).

use alloc::vec::Vec;

use super::{layout_perm, out_of_range};
use crate::algebra::permutation::{
    common_factors, compose_permutations, inverse_permutation, permute,
};
use crate::{ArrayShape, Dim, Error, Layout};

/// The dimension sizes used by [`common_factors`]: static sizes and bounds; an unbounded
/// `?` counts as XLA stores it, which no product of real sizes equals.
fn sizes(shape: &ArrayShape) -> Vec<u64> {
    shape.dims.iter().map(|d| d.bound().unwrap_or(i64::MIN as u64)).collect()
}

/// Whether any dimension has size 1 (`ShapeUtil::HasDegenerateDimensions`).
///
/// ```
/// use layout_runtime::algebra::xla::has_degenerate_dimensions;
/// assert!(has_degenerate_dimensions(&"f32[3,1,2]".parse()?));
/// assert!(!has_degenerate_dimensions(&"f32[3,0,5]".parse()?));
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn has_degenerate_dimensions(shape: &ArrayShape) -> bool {
    shape.dims.iter().any(|d| d.bound() == Some(1))
}

/// The shape without the given dimensions (`ShapeUtil::DeleteDimensions`): the layout keeps
/// its other fields, its minor_to_major loses the deleted dimensions and renumbers the rest.
/// Errors when a dimension is out of range or the layout is not a permutation.
///
/// ```
/// use layout_runtime::algebra::xla::delete_dimensions;
/// let s = "f32[5,3,2,7,9]{2,0,1,4,3}".parse()?;
/// assert_eq!(delete_dimensions(&[3, 2, 1], &s)?.to_string(), "f32[5,9]{0,1}");
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn delete_dimensions(
    dims_to_delete: &[usize],
    shape: &ArrayShape,
) -> Result<ArrayShape, Error> {
    let rank = shape.rank();
    if let Some(&d) = dims_to_delete.iter().find(|&&d| d >= rank) {
        return Err(out_of_range("dimension to delete", d, rank));
    }
    let m2m = layout_perm(shape)?;
    let keep: Vec<bool> = (0..rank).map(|d| !dims_to_delete.contains(&d)).collect();
    // new_number[d]: the dimension's number once the deleted ones are gone.
    let mut new_number = Vec::with_capacity(rank);
    let mut next = 0i64;
    for &k in &keep {
        new_number.push(next);
        next += i64::from(k);
    }
    let mut out = shape.clone();
    out.dims = shape.dims.iter().zip(&keep).filter(|(_, &k)| k).map(|(d, _)| *d).collect();
    if let Some(layout) = &mut out.layout {
        layout.minor_to_major = m2m.iter().filter(|&&d| keep[d]).map(|&d| new_number[d]).collect();
    }
    Ok(out)
}

/// The shape without its size-1 dimensions (`ShapeUtil::DropDegenerateDimensions`).
///
/// ```
/// use layout_runtime::algebra::xla::drop_degenerate_dimensions;
/// let s = "f32[1,3,1,5]{1,0,3,2}".parse()?;
/// assert_eq!(drop_degenerate_dimensions(&s)?.to_string(), "f32[3,5]{0,1}");
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn drop_degenerate_dimensions(shape: &ArrayShape) -> Result<ArrayShape, Error> {
    let ones: Vec<usize> =
        (0..shape.rank()).filter(|&d| shape.dims[d].bound() == Some(1)).collect();
    delete_dimensions(&ones, shape)
}

/// The dimensions permuted, `result.dims[i] = shape.dims[permutation[i]]`, the layout
/// untouched (`ShapeUtil::PermuteDimensionsIgnoringLayout`; XLA keeps it as it was).
///
/// ```
/// use layout_runtime::algebra::xla::permute_dimensions_ignoring_layout;
/// let s = "f32[10,100,1000]{2,1,0}".parse()?;
/// let p = permute_dimensions_ignoring_layout(&[1, 2, 0], &s)?;
/// assert_eq!(p.to_string(), "f32[100,1000,10]{2,1,0}");
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn permute_dimensions_ignoring_layout(
    permutation: &[usize],
    shape: &ArrayShape,
) -> Result<ArrayShape, Error> {
    let dims = permute(&shape.dims, permutation).ok_or_else(|| not_a_permutation(shape.rank()))?;
    Ok(ArrayShape { dims, ..shape.clone() })
}

/// The dimensions permuted as [`permute_dimensions_ignoring_layout`], with the layout that
/// makes the transpose a bitcast: the same physical order, every other field kept
/// (`ShapeUtil::PermuteDimensions`; its minor_to_major is
/// `ComposePermutations(InversePermutation(permutation), minor_to_major)`).
///
/// ```
/// use layout_runtime::algebra::xla::permute_dimensions;
/// let s = "f32[16,3,12]{1,2,0:T(8,128)}".parse()?;
/// assert_eq!(permute_dimensions(&[2, 0, 1], &s)?.to_string(), "f32[12,16,3]{2,0,1:T(8,128)}");
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn permute_dimensions(permutation: &[usize], shape: &ArrayShape) -> Result<ArrayShape, Error> {
    let mut out = permute_dimensions_ignoring_layout(permutation, shape)?;
    if let Some(layout) = &mut out.layout {
        let m2m = layout_perm(shape)?;
        let inverse =
            inverse_permutation(permutation).ok_or_else(|| not_a_permutation(shape.rank()))?;
        let new =
            compose_permutations(&inverse, &m2m).ok_or_else(|| not_a_permutation(shape.rank()))?;
        layout.minor_to_major = new.into_iter().map(|d| d as i64).collect();
    }
    Ok(out)
}

/// `ShapeUtil::ReorderLogicalDimensions`: the dimensions permuted,
/// `result.dims[i] = shape.dims[permutation[i]]`, and minor_to_major renumbered to match
/// (the physical order and every other field kept). The same result as
/// [`permute_dimensions`], spelt the way XLA spells this function.
///
/// ```
/// use layout_runtime::algebra::xla::reorder_logical_dimensions;
/// let s = "f32[16,3,12,17]{1,2,0,3}".parse()?;
/// assert_eq!(reorder_logical_dimensions(&s, &[0, 2, 1, 3])?.to_string(), "f32[16,12,3,17]{2,1,0,3}");
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn reorder_logical_dimensions(
    shape: &ArrayShape,
    permutation: &[usize],
) -> Result<ArrayShape, Error> {
    permute_dimensions(permutation, shape)
}

/// `ShapeUtil::MakeShapeWithDescendingLayoutAndSamePhysicalLayout`: the dimensions listed in
/// physical order (most major first) with the descending layout `{n-1,...,0}`, so that the
/// memory is the same; tiles, `E`, `L` and the memory space are kept (XLA keeps exactly
/// those), dynamic dimensions move with their sizes.
///
/// ```
/// use layout_runtime::algebra::xla::make_shape_with_descending_layout_and_same_physical_layout as descending;
/// let s = "f32[128,24,4,48,48]{2,4,3,1,0}".parse()?;
/// assert_eq!(descending(&s)?.to_string(), "f32[128,24,48,48,4]{4,3,2,1,0}");
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn make_shape_with_descending_layout_and_same_physical_layout(
    shape: &ArrayShape,
) -> Result<ArrayShape, Error> {
    let m2m = layout_perm(shape)?;
    let dims: Vec<Dim> = m2m.iter().rev().map(|&d| shape.dims[d]).collect();
    let mut layout = Layout::default_for_rank(dims.len());
    if let Some(old) = &shape.layout {
        layout.tiles.clone_from(&old.tiles);
        layout.element_size_in_bits = old.element_size_in_bits;
        layout.tail_padding_alignment_in_elements = old.tail_padding_alignment_in_elements;
        layout.memory_space = old.memory_space;
    }
    Ok(ArrayShape { element_type: shape.element_type, dims, layout: Some(layout) })
}

/// `LayoutUtil::MoveDimToMajor`: `dim` becomes the most major dimension, the others keep
/// their order; the layout keeps its other fields.
///
/// ```
/// use layout_runtime::algebra::xla::move_dim_to_major;
/// assert_eq!(move_dim_to_major(&layout_runtime::Layout::new([2, 1, 0]), 1).to_string(), "{2,0,1}");
/// ```
pub fn move_dim_to_major(layout: &Layout, dim: i64) -> Layout {
    let mut out = layout.clone();
    out.minor_to_major.retain(|&d| d != dim);
    out.minor_to_major.push(dim);
    out
}

/// `ShapeUtil::MoveDimToMajor`: as [`move_dim_to_major`] on the shape's layout, which XLA
/// rebuilds from minor_to_major alone (every other field dropped).
///
/// ```
/// use layout_runtime::algebra::xla::move_shape_dim_to_major;
/// let s = "f32[10,10,10]{0,2,1}".parse()?;
/// assert_eq!(move_shape_dim_to_major(&s, 0).to_string(), "f32[10,10,10]{2,1,0}");
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn move_shape_dim_to_major(shape: &ArrayShape, dim: usize) -> ArrayShape {
    let moved = move_dim_to_major(&shape.layout_or_default(), dim as i64);
    shape.clone().with_layout(Layout::new(moved.minor_to_major))
}

/// `ShapeUtil::InsertDimensionsAtIndex`: new dimensions of the given sizes before dimension
/// `index` (at the end when `index` is the rank). In the layout, XLA puts them just more
/// major than the dimension they are inserted before (most minor when appended); the layout
/// is rebuilt from minor_to_major alone.
///
/// ```
/// use layout_runtime::algebra::xla::insert_dimensions_at_index;
/// let s = "f32[10,20,30]{0,2,1}".parse()?;
/// assert_eq!(insert_dimensions_at_index(&s, 1, &[40, 50])?.to_string(), "f32[10,40,50,20,30]{0,4,3,2,1}");
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn insert_dimensions_at_index(
    shape: &ArrayShape,
    index: usize,
    sizes: &[u64],
) -> Result<ArrayShape, Error> {
    let rank = shape.rank();
    if index > rank {
        return Err(out_of_range("insertion index", index, rank + 1));
    }
    let n = sizes.len() as i64;
    let at = index as i64;
    let mut dims: Vec<Dim> = shape.dims[..index].to_vec();
    dims.extend(sizes.iter().map(|&s| Dim::Static(s)));
    dims.extend_from_slice(&shape.dims[index..]);
    let mut m2m = Vec::with_capacity(dims.len());
    if shape.layout.is_some() {
        let new = |m2m: &mut Vec<i64>| m2m.extend((0..n).rev().map(|i| at + i));
        if index == rank {
            new(&mut m2m);
        }
        for d in layout_perm(shape)? {
            let d = d as i64;
            m2m.push(if d >= at { d + n } else { d });
            if d == at {
                new(&mut m2m);
            }
        }
        return Ok(ArrayShape {
            element_type: shape.element_type,
            dims,
            layout: Some(Layout::new(m2m)),
        });
    }
    Ok(ArrayShape { element_type: shape.element_type, dims, layout: None })
}

/// `ShapeUtil::PrependMajorDimension`: a new dimension 0 of size `bound`, the most major;
/// the layout rebuilt from minor_to_major alone.
///
/// ```
/// use layout_runtime::algebra::xla::prepend_major_dimension;
/// let s = "f32[10,20,30]{0,2,1}".parse()?;
/// assert_eq!(prepend_major_dimension(40, &s)?.to_string(), "f32[40,10,20,30]{1,3,2,0}");
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn prepend_major_dimension(bound: u64, shape: &ArrayShape) -> Result<ArrayShape, Error> {
    let mut dims = Vec::with_capacity(shape.rank() + 1);
    dims.push(Dim::Static(bound));
    dims.extend_from_slice(&shape.dims);
    let layout = match &shape.layout {
        Some(_) => {
            let mut m2m: Vec<i64> = layout_perm(shape)?.into_iter().map(|d| d as i64 + 1).collect();
            m2m.push(0);
            Some(Layout::new(m2m))
        }
        None => None,
    };
    Ok(ArrayShape { element_type: shape.element_type, dims, layout })
}

/// `ShapeUtil::AppendMinorDimension`: a new last dimension of size `bound`, the most minor;
/// the layout keeps its other fields.
///
/// ```
/// use layout_runtime::algebra::xla::append_minor_dimension;
/// let s = "f32[10,20,30]{0,2,1}".parse()?;
/// assert_eq!(append_minor_dimension(40, &s)?.to_string(), "f32[10,20,30,40]{3,0,2,1}");
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn append_minor_dimension(bound: u64, shape: &ArrayShape) -> Result<ArrayShape, Error> {
    let mut out = shape.clone();
    out.dims.push(Dim::Static(bound));
    if let Some(layout) = &mut out.layout {
        let m2m = layout_perm(shape)?;
        layout.minor_to_major = core::iter::once(shape.rank() as i64)
            .chain(m2m.into_iter().map(|d| d as i64))
            .collect();
    }
    Ok(out)
}

/// `ShapeUtil::IsEffectivelyMostMajorDimension`: whether every dimension more major than
/// `dimension` has size 1.
///
/// ```
/// use layout_runtime::algebra::xla::is_effectively_most_major_dimension as most_major;
/// assert!(most_major(&"f32[1,1,16,1,279]{4,0,1,2,3}".parse()?, 2)?);
/// assert!(!most_major(&"f32[1,1,16,1,279]{0,1,2,3,4}".parse()?, 2)?);
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn is_effectively_most_major_dimension(
    shape: &ArrayShape,
    dimension: usize,
) -> Result<bool, Error> {
    for d in layout_perm(shape)?.into_iter().rev() {
        if d == dimension {
            return Ok(true);
        }
        if shape.dims[d].bound() != Some(1) {
            return Ok(false);
        }
    }
    Ok(false)
}

/// `ShapeUtil::DimensionsUnmodifiedByReshape`: the pairs `(input dimension, output
/// dimension)` that a reshape from `input` to `output` leaves as they are (common factors of
/// one dimension on each side); `None` when the element counts differ.
///
/// ```
/// use layout_runtime::algebra::xla::dimensions_unmodified_by_reshape as unmodified;
/// let (a, b) = ("s32[4,1,3,5,6,7]".parse()?, "s32[2,6,1,5,1,42]".parse()?);
/// assert_eq!(unmodified(&a, &b), Some(vec![(3, 3)]));
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn dimensions_unmodified_by_reshape(
    input: &ArrayShape,
    output: &ArrayShape,
) -> Option<Vec<(usize, usize)>> {
    let mut factors = common_factors(&sizes(input), &sizes(output))?;
    let mut i = 0;
    while i + 1 < factors.len() {
        let (a, b) = (factors[i], factors[i + 1]);
        if b.0 - a.0 != 1 || b.1 - a.1 != 1 {
            factors.remove(i);
        } else {
            i += 1;
        }
    }
    factors.pop(); // `(rank_a, rank_b)` ends every list of common factors
    Some(factors)
}

/// `ShapeUtil::ReshapeLeavesDimensionsUnmodified`: the output dimensions the given (sorted)
/// input dimensions become, when the reshape leaves all of them unmodified; `None` otherwise.
///
/// ```
/// use layout_runtime::algebra::xla::reshape_leaves_dimensions_unmodified as leaves;
/// let (a, b) = ("s32[4,1,3,5,6,7]".parse()?, "s32[2,6,1,5,1,42]".parse()?);
/// assert_eq!(leaves(&a, &b, &[3]), Some(vec![3]));
/// assert_eq!(leaves(&a, &b, &[0, 3]), None);
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn reshape_leaves_dimensions_unmodified(
    from: &ArrayShape,
    to: &ArrayShape,
    input_dims: &[usize],
) -> Option<Vec<usize>> {
    if input_dims.windows(2).any(|w| w[0] > w[1]) {
        return None;
    }
    let unmodified = dimensions_unmodified_by_reshape(from, to)?;
    input_dims.iter().map(|&d| unmodified.iter().find(|&&(i, _)| i == d).map(|&(_, o)| o)).collect()
}

/// What [`inserted_or_deleted_1_sized_dimensions`] returns (`ShapeEqualityDescriptor`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct InsertedOrDeleted {
    /// Size-1 dimensions of the input the reshape deletes.
    pub deleted_dimensions: Vec<usize>,
    /// Size-1 dimensions of the output the reshape inserts.
    pub inserted_dimensions: Vec<usize>,
}

/// `ShapeUtil::InsertedOrDeleted1SizedDimensions`: when a reshape only deletes and inserts
/// size-1 dimensions, which (by the dimension sizes alone, whatever the layouts); `None`
/// when it changes any larger dimension.
///
/// ```
/// use layout_runtime::algebra::xla::inserted_or_deleted_1_sized_dimensions as ones;
/// let (a, b, c) = ("s32[9,1,4]".parse()?, "s32[1,9,4,1]".parse()?, "s32[3,1,12]".parse()?);
/// let d = ones(&a, &b).unwrap();
/// assert_eq!((d.deleted_dimensions, d.inserted_dimensions), (vec![1], vec![0, 3]));
/// assert_eq!(ones(&a, &c), None);
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn inserted_or_deleted_1_sized_dimensions(
    pre: &ArrayShape,
    post: &ArrayShape,
) -> Option<InsertedOrDeleted> {
    let unmodified = dimensions_unmodified_by_reshape(pre, post)?;
    let mut out = InsertedOrDeleted::default();
    let mut prior: (isize, isize) = (-1, -1);
    let ends = unmodified
        .iter()
        .map(|&(a, b)| (a as isize, b as isize))
        .chain(core::iter::once((pre.rank() as isize, post.rank() as isize)));
    for (a, b) in ends {
        for d in (prior.0 + 1)..a {
            if pre.dims[d as usize].bound() > Some(1) || pre.dims[d as usize].bound().is_none() {
                return None;
            }
            out.deleted_dimensions.push(d as usize);
        }
        for d in (prior.1 + 1)..b {
            if post.dims[d as usize].bound() > Some(1) || post.dims[d as usize].bound().is_none() {
                return None;
            }
            out.inserted_dimensions.push(d as usize);
        }
        prior = (a, b);
    }
    Some(out)
}

fn not_a_permutation(rank: usize) -> Error {
    Error::new(
        crate::ErrorKind::ShapeMismatch,
        alloc::format!("the permutation is not a permutation of the shape's {rank} dimensions"),
    )
}
