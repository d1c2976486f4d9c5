//! [`FinishCache`]: the finishing costs of one tree state, memoised for the finishing
//! mask ([`crate::finishing`]) and shared by clones of one constraint.

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use crate::alt::Alt;
use crate::child_key::ChildKey;
use crate::seg_dfa::SegDfa;

/// The parts of a segment with their rank in the finishing order, and the indices of
/// the best-ranked ones.
type RankedParts = (Vec<(Alt, usize)>, Vec<usize>);

/// A part's 1 + plan length after its shortest text, and its DFA.
type PartPlan = (u32, Rc<SegDfa>);

/// Finishing costs of one tree state (shared by clones, reset when the tree moves).
#[derive(Debug, Default)]
pub(crate) struct FinishCache {
    /// The parts of the current segment (see `finishing`'s `parts`) with their rank in the
    /// finishing order, and the indices of the best-ranked ones.
    pub(crate) parts: OnceCell<RankedParts>,
    /// Per part: 1 + the plan length after its shortest text, and its DFA.
    pub(crate) alts: RefCell<HashMap<usize, Option<PartPlan>>>,
    /// Plan lengths after completing the segment, by memo key without the name.
    pub(crate) after: RefCell<HashMap<ChildKey, u32>>,
}
