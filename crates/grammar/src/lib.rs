//! espalier-grammar (work in progress).
