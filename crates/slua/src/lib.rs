//! espalier-slua (work in progress).
