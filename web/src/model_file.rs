//! The model file the playground loads: where it is served and the SHA-256 that the
//! copy in the browser's cache, and every download, must have (the hash
//! scripts/fetch-model.sh checks; a test keeps the two equal).

/// Where the model is served (trunk copies static/models next to the app).
pub const MODEL_URL: &str = "models/SmolLM2-135M-Instruct.Q4_1.gguf";

/// The SHA-256 of the model file, lowercase hex.
pub const MODEL_SHA256: &str = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53";

/// Why bytes are not the model: `None` when their hash is the model's.
pub fn hash_mismatch(got: &str) -> Option<String> {
    (!got.eq_ignore_ascii_case(MODEL_SHA256))
        .then(|| format!("SHA-256 {got}, expected {MODEL_SHA256} (run scripts/fetch-model.sh)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_the_one_the_fetch_script_checks() {
        let script = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../scripts/fetch-model.sh"
        ))
        .unwrap();
        assert!(
            script.contains(&format!("SHA256={MODEL_SHA256}")),
            "scripts/fetch-model.sh checks another hash"
        );
        assert!(script.contains(MODEL_URL.rsplit('/').next().unwrap()));
    }

    #[test]
    fn only_the_models_hash_matches() {
        assert_eq!(hash_mismatch(MODEL_SHA256), None);
        assert_eq!(hash_mismatch(&MODEL_SHA256.to_uppercase()), None);
        assert!(hash_mismatch(&"0".repeat(64)).unwrap().contains("expected"));
    }
}
