//! The text a constraint's warm-up reads ([`crate::GrammarConstraint::warm_up`]) after
//! its few throwaway masks, per language: one mask after each of its bytes, so that
//! the code paths a file meets later (docstrings, comments, f-string fields, raw and
//! byte strings, line joins inside brackets) run once in setup. In wasm, V8
//! compiles each function on its first call: on a quiet machine node's first pass
//! over the mask benchmark still paid 1-5 ms at steps that first met such a path
//! (an f-string field at step 15,768, a comment at 2,499; see
//! `results/masks/README.md`, branch wasm9). A field with an attribute access
//! (`{o.__class__}`) is another path: without it here node 25's first pass paid 2-3.6 ms
//! at step 15,773 (V8's baseline code running it for the first time; stop 31).

use espalier_grammar::Language;

/// Python: a module's usual constructs, valid from a file's start.
const PYTHON: &[u8] = b"\"\"\"Doc.\n\nMore.\"\"\"\n# c\nimport re\n\n\n@d\ndef f(a, *b, **c):\n    x = {'k': [1, 2.5e3, 0x1f]}  # n\n    return f'{a!r:>{x}} {b} {a.__class__.__name__}' + r'\\d' + b\"\\x00\" \\\n        if a else None\n";

/// The warm-up text of `lang`, if it has one.
pub(crate) fn sample(lang: &Language) -> Option<&'static [u8]> {
    lang.python.is_some().then_some(PYTHON)
}

#[cfg(test)]
mod tests {
    use crate::{Constraint, GrammarConstraint, MaskKit, Strategy, Vocab};

    #[test]
    fn the_python_sample_is_read_whole_from_a_file_start() {
        let lang = espalier_grammar::python().expect("the Python grammar compiles");
        let text = super::sample(&lang).expect("Python has a sample");
        let vocab = Vocab::new(vec![b"<eos>".to_vec(), b"x".to_vec()], &[0], 0);
        let kit = MaskKit::for_vocab(lang.clone(), &vocab);
        let mut c = GrammarConstraint::new(&kit, Strategy::Exact, "python-lr");
        for (i, &b) in text.iter().enumerate() {
            assert!(
                c.commit(&[b]).is_ok(),
                "byte {i} of the sample refused: {:?}",
                String::from_utf8_lossy(&text[..=i])
            );
        }
        assert!(c.is_complete(), "the sample is a whole module");
    }
}
