//! The facts the page shows about the model it loaded, the default one or a GGUF file
//! the user opened (it never leaves the machine: the worker reads it from the file
//! picker): its name and architecture, the weight formats its tensors are stored in,
//! its size, and whether it fits in the memory the tab's WebAssembly can still take.
//! Pure: the worker fills it from the GGUF (`engine.rs`); its wording is tested here.

use serde::{Deserialize, Serialize};

/// How far a 32-bit WebAssembly memory can grow: 4 GiB (the model, its file while
/// loading, and everything else of the worker share it).
pub const WASM32_MEMORY_LIMIT: u64 = 4 << 30;

/// The largest buffer Rust can allocate in a 32-bit WebAssembly memory (`isize::MAX`
/// there): a model file is read into one, so a bigger file cannot be opened at all.
pub const WASM32_LARGEST_BUFFER: u64 = (1 << 31) - 1;

/// Whether a file of `size` bytes can be read into the worker's memory, which can
/// still grow by `available`: checked before a byte is read (reading a bigger one
/// would fail in the allocator, and past 2 GiB Rust cannot even ask for the buffer).
pub fn file_verdict(size: u64, available: u64) -> Result<(), String> {
    let limit = available.min(WASM32_LARGEST_BUFFER);
    if size > limit {
        Err(format!(
            "this file is {} but this tab's WebAssembly memory can hold a file of at most {} \
             (32-bit WebAssembly: 4.3 GB in all, 2.1 GB in one piece); pick a smaller model \
             (fewer parameters or a smaller quantization)",
            gb(size),
            gb(limit)
        ))
    } else {
        Ok(())
    }
}

/// What the page says about a model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelFacts {
    /// `general.name`, or the file's name.
    pub name: String,
    /// `general.architecture` (`llama`, `qwen2`).
    pub architecture: String,
    /// Weight formats with how many tensors use each, most used first (`Q4_1 × 210`).
    pub formats: Vec<(String, usize)>,
    /// Parameters (elements of every tensor).
    pub parameters: u64,
    /// The file's size in bytes.
    pub file_bytes: u64,
    /// Blocks, hidden size and vocabulary, in words.
    pub shape: String,
    /// The memory check: `Ok(what it needs of what there is)` or `Err(why it cannot
    /// load)`.
    pub memory: Result<String, String>,
}

/// Counts tensor types: `types` holds one type name per tensor.
pub fn format_counts<'a>(types: impl IntoIterator<Item = &'a str>) -> Vec<(String, usize)> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for t in types {
        match counts.iter_mut().find(|(name, _)| name == t) {
            Some((_, n)) => *n += 1,
            None => counts.push((t.to_owned(), 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    counts
}

/// The memory check: loading takes `needed` more bytes; `available` can still be had.
pub fn memory_verdict(needed: u64, available: u64) -> Result<String, String> {
    if needed > available {
        Err(format!(
            "this model needs {} more memory to load (weights, RoPE tables and a 2,048-token KV cache) but this tab's WebAssembly memory can grow by only {}",
            gb(needed),
            gb(available)
        ))
    } else {
        Ok(format!(
            "needs {} more memory of the {} this tab's WebAssembly can still take",
            gb(needed),
            gb(available)
        ))
    }
}

/// Bytes as GB or MB, one decimal.
pub fn gb(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.1} GB", bytes as f64 / 1e9)
    } else {
        format!("{:.1} MB", bytes as f64 / 1e6)
    }
}

impl ModelFacts {
    /// The lines the page lists.
    pub fn lines(&self) -> Vec<String> {
        let formats: Vec<String> = self.formats.iter().map(|(t, n)| format!("{t} × {n}")).collect();
        vec![
            format!("{} ({} architecture)", self.name, self.architecture),
            format!(
                "{:.0}M parameters · {} · {}",
                self.parameters as f64 / 1e6,
                self.shape,
                gb(self.file_bytes)
            ),
            format!("weight formats: {}", formats.join(", ")),
            match &self.memory {
                Ok(m) => format!("memory: {m}"),
                Err(e) => format!("memory: {e}"),
            },
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_counted_most_used_first() {
        let counts = format_counts(["F32", "Q4_1", "Q4_1", "Q8_0", "F32", "Q4_1"]);
        assert_eq!(counts, vec![("Q4_1".into(), 3), ("F32".into(), 2), ("Q8_0".into(), 1)]);
    }

    #[test]
    fn the_memory_check_names_both_figures() {
        assert!(memory_verdict(600 << 20, 3 << 30)
            .unwrap()
            .contains("629.1 MB more memory of the 3.2 GB"));
        let err = memory_verdict(5 << 30, 3 << 30).unwrap_err();
        assert!(err.contains("needs 5.4 GB") && err.contains("only 3.2 GB"), "{err}");
    }

    #[test]
    fn a_file_over_either_limit_is_refused_before_reading() {
        assert_eq!(file_verdict(100 << 20, 3 << 30), Ok(()));
        // Under what the memory can grow by, but over one buffer's limit.
        let err = file_verdict(3 << 30, 4 << 30).unwrap_err();
        assert!(err.contains("this file is 3.2 GB") && err.contains("at most 2.1 GB"), "{err}");
        // Under one buffer's limit, but over what is left.
        let err = file_verdict(1 << 30, 512 << 20).unwrap_err();
        assert!(err.contains("at most 536.9 MB"), "{err}");
        assert_eq!(file_verdict(WASM32_LARGEST_BUFFER, 4 << 30), Ok(()));
    }

    #[test]
    fn the_lines_say_name_architecture_formats_size_and_memory() {
        let facts = ModelFacts {
            name: "SmolLM2 135M Instruct".into(),
            architecture: "llama".into(),
            formats: vec![("Q4_1".into(), 210), ("F32".into(), 61)],
            parameters: 134_515_008,
            file_bytes: 98_000_000,
            shape: "30 blocks, hidden 576, vocabulary 49152".into(),
            memory: Ok("needs 1 MB".into()),
        };
        let lines = facts.lines();
        assert_eq!(lines[0], "SmolLM2 135M Instruct (llama architecture)");
        assert_eq!(lines[1], "135M parameters · 30 blocks, hidden 576, vocabulary 49152 · 98.0 MB");
        assert_eq!(lines[2], "weight formats: Q4_1 × 210, F32 × 61");
        assert_eq!(lines[3], "memory: needs 1 MB");
    }
}
