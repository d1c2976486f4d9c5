//! espalier-web (work in progress).
