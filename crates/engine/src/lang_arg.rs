//! [`lang_parser`]: the `--lang` values of the command lines (`espalier`,
//! `espalier-lab`): the registry's languages, listed in `--help`.

use espalier_decode::Lang;

/// Parses a `--lang` value into a registered [`Lang`].
pub fn lang_parser() -> impl clap::builder::TypedValueParser<Value = Lang> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Lang::names()).try_map(|name| name.parse::<Lang>())
}
