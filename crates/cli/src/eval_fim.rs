//! `espalier eval fim --set singleline|randomspan --mode none,mask [--limit N]
//! [--data FILE] [--out FILE]`: fill-in-the-middle on the HumanEval infilling sets
//! (`task_id`, `prompt` = prefix, `suffix`, `canonical_solution`, `test`,
//! `entry_point`; `--data` reads another file in that format, gzipped or not).
//!
//! Per case and mode: the request is prepared ([`FimConstraint`]), the middle is
//! generated greedily with the prompt of [`crate::fim::fim_prompt`] and checked with
//! CPython: `parse_ok` when `ast.parse` accepts prefix + middle + suffix, `passed`
//! when the tests pass. SmolLM2 continues the whole file, so after the middle it
//! copies the suffix: generation stops at the suffix's first line (a stop string,
//! removed from the middle), at EOS (which `mask` allows exactly when the middle
//! joins), or at the token budget. `finished` counts the first two.
//!
//! The last line of stdout is one JSON object with a key per mode, each holding
//! `cases`, `finished`, `parse_ok`, `parse_ok_finished`, `pass_at_1`, `decode_tps`,
//! `tokens`.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use espalier_constraint::{FimConstraint, TokTrie};
use espalier_decode::eval::{PythonChecker, TestOutcome};
use espalier_decode::{GenerateConfig, Generator, Mode, SamplingConfig, StopReason};
use serde::Deserialize;

use crate::eval::Args;
use crate::fim::fim_prompt;
use crate::generate::load;

#[derive(Deserialize)]
struct Case {
    task_id: String,
    prompt: String,
    suffix: String,
    test: String,
    entry_point: String,
}

fn read_cases(path: &PathBuf) -> Result<Vec<Case>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e} (the data sets live in ../shared/data)", path.display()))?;
    let reader: Box<dyn Read> = if path.extension().is_some_and(|x| x == "gz") { Box::new(flate2::read::GzDecoder::new(file)) } else { Box::new(file) };
    let mut out = Vec::new();
    for (i, line) in BufReader::new(reader).lines().enumerate() {
        let line = line.map_err(|e| format!("{}: {e}", path.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        out.push(serde_json::from_str(&line).map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))?);
    }
    Ok(out)
}

/// The stop string that marks the model copying the suffix: its first non-blank line
/// (with its indentation), extended by the next line when shorter than 8 bytes.
fn suffix_head(suffix: &str) -> Option<String> {
    let start = suffix.find(|c: char| c != '\n')?;
    let rest = &suffix[start..];
    let mut end = rest.find('\n').unwrap_or(rest.len());
    if end < 8 {
        end = rest[end..].char_indices().skip(1).find(|&(_, c)| c == '\n').map_or(rest.len(), |(i, _)| end + i);
    }
    let head = &rest[..end];
    (head.trim().len() >= 2).then(|| head.to_string())
}

#[derive(Default)]
struct Tally {
    cases: usize,
    finished: usize,
    parse_ok: usize,
    parse_ok_finished: usize,
    passed: usize,
    tokens: usize,
    decode_s: f64,
}

/// Runs `espalier eval fim`.
pub fn run_eval_fim(args: Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let set = args.set.clone().unwrap_or_else(|| "singleline".into());
    let data = match (&args.data, set.as_str()) {
        (Some(p), _) => p.clone(),
        (None, "singleline") => PathBuf::from("../shared/data/HumanEval-SingleLineInfilling.jsonl.gz"),
        (None, "randomspan") => PathBuf::from("../shared/data/HumanEval-RandomSpanInfillingLight.jsonl.gz"),
        (None, other) => return Err(format!("unknown FIM set {other:?} (singleline, randomspan, or --data FILE)").into()),
    };
    let cases: Vec<Case> = read_cases(&data)?.into_iter().skip(args.offset).take(args.limit.unwrap_or(usize::MAX)).collect();
    let lang = espalier_grammar::python()?;
    let mut loaded = load(args.model.as_deref(), &args.backend)?;
    let trie = std::sync::Arc::new(TokTrie::new(&loaded.vocab));
    let python = args.python.clone().unwrap_or_else(|| PathBuf::from("/usr/bin/python3.11"));
    let checker = PythonChecker { python, timeout: Duration::from_secs(args.timeout) };
    let mut out = match &args.out {
        Some(p) => Some(std::io::BufWriter::new(std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()))?)),
        None => None,
    };
    let mut summary = serde_json::Map::new();
    for &mode in &args.mode {
        if !matches!(mode, Mode::None | Mode::Mask | Mode::Rejection) {
            return Err(format!("eval fim takes modes none, mask, rejection, not {}", mode.name()).into());
        }
        let mut t = Tally::default();
        for case in &cases {
            let constraint = FimConstraint::new(&lang, case.prompt.as_bytes(), case.suffix.as_bytes(), trie.clone())
                .map_err(|e| format!("{}: {e}", case.task_id))?;
            let (ids, heal) = fim_prompt(&loaded, &case.prompt, &case.suffix)?;
            let config = GenerateConfig {
                mode,
                sampling: SamplingConfig { temperature: 0.0, ..SamplingConfig::default() },
                max_tokens: args.max_tokens,
                stop_strings: suffix_head(&case.suffix).into_iter().collect(),
                heal_prompt: heal,
                ..GenerateConfig::default()
            };
            let mut generator = Generator::new(loaded.vocab.clone(), constraint, &ids, config)?.reuse_cache(&loaded.model.cached);
            let keep = generator.next_input().map_or(0, |f| f.keep);
            loaded.model.cached.truncate(keep);
            let result = espalier_decode::run(&mut generator, &mut loaded.model, |_, _| {});
            loaded.model.cached = if result.is_ok() { generator.cached_context().to_vec() } else { Vec::new() };
            let timing = result?;
            let middle = generator.text();
            let stop = generator.stop_reason().cloned().unwrap_or(StopReason::MaxTokens);
            let finished = !matches!(stop, StopReason::MaxTokens | StopReason::Repetition { .. });
            let whole = format!("{}{}{}", case.prompt, middle, case.suffix);
            let parse_ok = checker.syntax_error(&whole)?.is_none();
            let passed = parse_ok
                && matches!(checker.run_tests(&format!("{whole}\n\n{}\n\ncheck({})\n", case.test, case.entry_point))?, TestOutcome::Passed);
            t.cases += 1;
            t.finished += usize::from(finished);
            t.parse_ok += usize::from(parse_ok);
            t.parse_ok_finished += usize::from(parse_ok && finished);
            t.passed += usize::from(passed);
            t.tokens += timing.decode_tokens;
            t.decode_s += timing.decode_s;
            if let Some(o) = out.as_mut() {
                let rec = serde_json::json!({"task_id": case.task_id, "mode": mode, "middle": middle, "stop": stop, "finished": finished, "parse_ok": parse_ok, "passed": passed});
                writeln!(o, "{rec}")?;
            }
        }
        let m = serde_json::json!({
            "cases": t.cases,
            "finished": t.finished,
            "parse_ok": t.parse_ok,
            "parse_ok_finished": t.parse_ok_finished,
            "pass_at_1": if t.cases > 0 { t.passed as f64 / t.cases as f64 } else { 0.0 },
            "decode_tps": if t.decode_s > 0.0 { t.tokens as f64 / t.decode_s } else { 0.0 },
            "tokens": t.tokens,
        });
        eprintln!("{set} {}: {m}", mode.name());
        summary.insert(mode.name().to_string(), m);
    }
    if let Some(mut o) = out {
        o.flush()?;
    }
    println!("{}", serde_json::Value::Object(summary));
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::suffix_head;

    #[test]
    fn suffix_heads() {
        assert_eq!(suffix_head("\n        for x in y:\n            z\n").as_deref(), Some("        for x in y:"));
        assert_eq!(suffix_head("re\n    return 1\n").as_deref(), Some("re\n    return 1"));
        assert_eq!(suffix_head("\n\n"), None);
    }
}
