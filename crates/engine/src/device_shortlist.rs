//! A device's [`TopList`] as the sampler takes it ([`Shortlist`]): the refused ids
//! dropped, the list's total passed on when it sums the sampler's weights
//! ([`DrawMass`]) over ids none of which is refused. Used by the model's logits natively
//! (`llama_model.rs`) and by the browser's prefetched step (`prefetched_logits.rs`).

use espalier_decode::{DrawMass, ListTotal, Shortlist};
use espalier_model::{Mass, TopList};

/// The model's name for a sampler's [`DrawMass`].
pub(crate) fn device_mass(m: DrawMass) -> Mass {
    Mass { temperature: m.temperature, floor: m.floor }
}

/// A device's list as the sampler takes it: `refused` ids dropped, the list's total
/// passed on when it sums `mass` over ids none of which is refused (`n` of them).
pub(crate) fn shortlist_of(
    list: &TopList,
    refused: &[u32],
    mass: Option<DrawMass>,
    n: usize,
) -> Shortlist {
    let summed = mass.is_some_and(|m| device_mass(m) == list.mass) && refused.is_empty();
    Shortlist {
        rest_at_most: (!list.is_complete())
            .then(|| list.entries.last().map_or(f32::NEG_INFINITY, |e| e.1)),
        entries: list.entries.iter().filter(|(id, _)| !refused.contains(id)).copied().collect(),
        total: summed.then_some(ListTotal { sum: list.total, terms: n }),
    }
}
