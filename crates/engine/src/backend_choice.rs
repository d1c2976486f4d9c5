//! `--backend A[,B...]`: the backends to try, in order. `--backend cuda` runs on CUDA or
//! exits with the reason it cannot (no driver, no device, driver too old, not compiled
//! in); `--backend cuda,ndarray` says why CUDA is unavailable on stderr and falls back to
//! the CPU. The first backend whose device opens is used; `Loaded::backend` names it.

use espalier_model::{BackendKind, ModelError};

/// Tries each backend of `spec` with `open` until one opens; an unknown name is an error
/// before anything is tried. The error of the last one ends the search.
pub fn choose<T>(
    spec: &str,
    mut open: impl FnMut(BackendKind) -> Result<T, ModelError>,
) -> Result<(BackendKind, T), String> {
    let kinds = parse(spec)?;
    let mut failures = Vec::new();
    for (i, kind) in kinds.iter().enumerate() {
        match open(*kind) {
            Ok(device) => return Ok((*kind, device)),
            Err(e) => {
                if let Some(next) = kinds.get(i + 1) {
                    eprintln!("{kind} backend unavailable ({e}); falling back to {next}");
                }
                failures.push(e.to_string());
            }
        }
    }
    let hint = if kinds.len() == 1 && kinds[0] != BackendKind::Ndarray {
        format!(" (`--backend {},ndarray` falls back to the CPU)", kinds[0])
    } else {
        String::new()
    };
    Err(format!("no backend of {spec:?} could start: {}{hint}", failures.join("; ")))
}

/// `cuda,ndarray` -> [Cuda, Ndarray]; empty entries and unknown names are errors.
fn parse(spec: &str) -> Result<Vec<BackendKind>, String> {
    spec.split(',').map(|name| name.trim().parse::<BackendKind>()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unavailable(kind: BackendKind) -> ModelError {
        ModelError::Backend { backend: kind.name(), reason: "no device here".into() }
    }

    #[test]
    fn the_first_backend_that_opens_is_used() {
        let mut tried = Vec::new();
        let chosen = choose("cuda,wgpu,ndarray", |k| {
            tried.push(k);
            if k == BackendKind::Ndarray {
                Ok(7)
            } else {
                Err(unavailable(k))
            }
        });
        assert_eq!(chosen, Ok((BackendKind::Ndarray, 7)));
        assert_eq!(tried, [BackendKind::Cuda, BackendKind::Wgpu, BackendKind::Ndarray]);
    }

    #[test]
    fn a_single_unavailable_backend_is_an_error_with_the_reason_and_the_fallback_hint() {
        let err = choose("cuda", |k| Err::<(), _>(unavailable(k))).unwrap_err();
        assert!(err.contains("backend cuda: no device here"), "{err}");
        assert!(err.contains("--backend cuda,ndarray"), "{err}");
    }

    #[test]
    fn unknown_names_fail_before_any_backend_is_tried() {
        let err =
            choose("cuda,gpu", |_| -> Result<(), ModelError> { panic!("nothing may be tried") })
                .unwrap_err();
        assert!(err.contains("unknown backend \"gpu\""), "{err}");
        assert!(choose("", |_| Ok(())).is_err());
    }
}
