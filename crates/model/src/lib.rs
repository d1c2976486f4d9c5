//! espalier-model (work in progress).
