//! espalier-decode (work in progress).
