//! The engine's thread: a Web Worker that owns the model, the constraints and the
//! generation. It loads the model (from the browser's cache or the network), runs the
//! steps the page asks for, and reports each one; between two steps (and two prompt
//! chunks) it returns to its event loop, so a Stop from the page takes effect before
//! the next one; the steps it ran ahead of a page slow to draw are then undone (the
//! Stop says how many the page keeps). The page's thread only renders and forwards
//! clicks (`engine_link`).

use std::{
    cell::{Cell, RefCell},
    collections::BTreeMap,
    rc::Rc,
};

use espalier_decode::{Lang, StepTrace};
use wasm_bindgen::{closure::Closure, JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::{
    backend,
    engine::Engine,
    host,
    model_cache::{self, Source},
    model_file::MODEL_URL,
    protocol::{self, FromWorker, Loaded, ShownStep, Start, ToWorker},
    session::Session,
    yield_now::{console_log, yield_now},
};

/// What the worker holds between messages.
#[derive(Default)]
struct State {
    /// The loaded engine (taken out while a run or the load uses it).
    engine: RefCell<Option<Engine>>,
    /// The current generation (taken out while a run uses it).
    session: RefCell<Option<Session>>,
    /// Set by a Stop message, read between steps.
    stop: Cell<bool>,
    /// How many steps the stopped run keeps (the Stop message's `keep`).
    keep: Cell<Option<usize>>,
    /// Whether a run is in progress.
    running: Cell<bool>,
}

/// Installs the message handler and tells the page the worker is alive.
pub fn start() {
    let state = Rc::new(State::default());
    let on_message =
        Closure::<dyn FnMut(String, JsValue)>::new(move |text: String, file: JsValue| {
            handle(&state, &text, file)
        });
    host::listen_to_page(on_message.as_ref().unchecked_ref());
    // The handler lives as long as the worker.
    on_message.forget();
    send(&FromWorker::Alive);
}

fn send(message: &FromWorker) {
    host::post_to_page(&protocol::encode(message));
}

fn handle(state: &Rc<State>, text: &str, file: JsValue) {
    match protocol::decode::<ToWorker>(text) {
        Err(e) => console_log(&e),
        Ok(ToWorker::Load { force_cpu }) => {
            wasm_bindgen_futures::spawn_local(load(state.clone(), force_cpu, None))
        }
        Ok(ToWorker::LoadFile { force_cpu, name }) => {
            if state.running.get() {
                return send(&FromWorker::Loaded(Err(
                    "stop the generation before opening another model".to_owned(),
                )));
            }
            wasm_bindgen_futures::spawn_local(load(state.clone(), force_cpu, Some((name, file))))
        }
        Ok(ToWorker::Run { start, max_steps }) => {
            if state.running.replace(true) {
                let error = Some("a generation is already running".to_owned());
                return send(&FromWorker::RunEnded { error, stop: None, translation: None });
            }
            state.stop.set(false);
            state.keep.set(None);
            wasm_bindgen_futures::spawn_local(run(state.clone(), start, max_steps));
        }
        Ok(ToWorker::Bench { prompt, tokens }) => {
            if state.running.replace(true) {
                return send(&FromWorker::Bench(Err("a generation is running".to_owned())));
            }
            let state = state.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let engine = state.engine.borrow_mut().take();
                let result = match engine {
                    Some(mut engine) => {
                        let result = crate::bench::run(&mut engine, &prompt, tokens).await;
                        *state.engine.borrow_mut() = Some(engine);
                        result
                    }
                    None => Err("the model is not loaded yet".to_owned()),
                };
                state.running.set(false);
                send(&FromWorker::Bench(result));
            });
        }
        Ok(ToWorker::Stop { keep }) => {
            state.stop.set(true);
            state.keep.set(Some(keep));
        }
        Ok(ToWorker::Reset) => {
            if !state.running.get() {
                state.session.borrow_mut().take();
            }
        }
    }
}

/// Loads the default model (`file` `None`) or the file the user opened (its name and
/// the File), replacing the engine loaded before and its generation.
async fn load(state: Rc<State>, force_cpu: bool, file: Option<(String, JsValue)>) {
    if file.is_some() {
        // Free the old model's memory before reading the new one.
        state.session.borrow_mut().take();
        state.engine.borrow_mut().take();
    }
    let loaded = load_engine(force_cpu, file).await.map(|(engine, source)| {
        let loaded = Loaded {
            backend: engine.backend.kind.key().to_owned(),
            backend_detail: engine.backend.detail.clone(),
            model_detail: engine.describe(),
            source,
            facts: engine.facts.lines(),
        };
        *state.engine.borrow_mut() = Some(engine);
        loaded
    });
    send(&FromWorker::Loaded(loaded));
}

async fn load_engine(
    force_cpu: bool,
    file: Option<(String, JsValue)>,
) -> Result<(Engine, String), String> {
    let (bytes, name, source) = match file {
        None => {
            let mut last = 0u64;
            let (bytes, source) = model_cache::load_model(MODEL_URL, |got, total, source| {
                // Report every ~1 MB, not every chunk.
                if got == 0 || got - last >= 1 << 20 || Some(got) == total {
                    last = got;
                    send(&FromWorker::Progress { got, total, from_cache: source == Source::Cache });
                }
            })
            .await?;
            (
                bytes,
                MODEL_URL.rsplit('/').next().unwrap_or(MODEL_URL).to_owned(),
                source.name().to_owned(),
            )
        }
        Some((name, file)) => {
            let size = host::file_size(&file) as u64;
            send(&FromWorker::Preparing(format!(
                "reading {name} ({:.1} MB) from your disk",
                size as f64 / 1e6
            )));
            let read = JsFuture::from(host::read_file(&file))
                .await
                .map_err(|e| format!("could not read {name}: {e:?}"))?;
            let bytes = js_sys::Uint8Array::new(&read).to_vec();
            let source = format!("your file {name}");
            (bytes, name, source)
        }
    };
    send(&FromWorker::Preparing("choosing the device".into()));
    let backend = backend::choose(force_cpu).await;
    let progress = |what: &str| send(&FromWorker::Preparing(what.to_owned()));
    let engine = Engine::load(bytes, &name, backend, progress).await.map_err(|e| e.to_string())?;
    Ok((engine, source))
}

async fn run(state: Rc<State>, start: Start, max_steps: Option<usize>) {
    let engine = state.engine.borrow_mut().take();
    let result = match engine {
        Some(mut engine) => {
            let result = run_steps(&state, &mut engine, start, max_steps).await;
            *state.engine.borrow_mut() = Some(engine);
            result
        }
        None => Err("the model is not loaded yet".to_owned()),
    };
    let (stop, translation) = match state.session.borrow().as_ref() {
        Some(s) => (s.generator.stop_reason().map(|r| r.name().to_owned()), s.translation()),
        None => (None, None),
    };
    state.running.set(false);
    send(&FromWorker::RunEnded { error: result.err(), stop, translation });
}

/// The session the run continues or starts.
fn session_for(state: &State, engine: &mut Engine, start: Start) -> Result<Session, String> {
    match start {
        Start::New { lang, request, settings, suffix } => {
            state.session.borrow_mut().take();
            let lang = Lang::from_name(&lang).map_err(|e| e.to_string())?;
            Session::start(
                engine,
                lang,
                &request,
                suffix.as_deref(),
                settings.to_config(),
                settings.full_prompt,
            )
            .map_err(|e| e.to_string())
        }
        Start::Continue { rewind_to } => {
            let mut session =
                state.session.borrow_mut().take().ok_or("there is no generation to continue")?;
            if let Some(step) = rewind_to {
                if let Err(e) = session.rewind(step) {
                    *state.session.borrow_mut() = Some(session);
                    return Err(e.to_string());
                }
            }
            Ok(session)
        }
    }
}

async fn run_steps(
    state: &State,
    engine: &mut Engine,
    start: Start,
    max_steps: Option<usize>,
) -> Result<(), String> {
    let mut session = session_for(state, engine, start)?;
    let mut done = 0usize;
    let mut result = Ok(());
    while !session.finished() && !state.stop.get() && max_steps.is_none_or(|m| done < m) {
        match session.step(engine, &state.stop).await {
            Ok(Some(trace)) => send(&FromWorker::Step(Box::new(shown(engine, &session, trace)))),
            // Stopped between two prompt chunks: the step is not taken.
            Ok(None) => break,
            Err(e) => {
                result = Err(e.to_string());
                break;
            }
        }
        done += 1;
        // Lets a Stop message in before the next step.
        yield_now().await;
    }
    // Undo the steps taken after those the page showed when Stop was clicked (+1).
    if let Some(keep) = state.keep.take() {
        let taken = session.steps();
        if taken > keep && result.is_ok() {
            result = session.rewind(keep).map_err(|e| e.to_string());
            console_log(&format!(
                "stop: undid {} step(s) the page had not shown (kept {keep} of {taken})",
                taken - keep
            ));
        }
    }
    *state.session.borrow_mut() = Some(session);
    result
}

/// Accept sequences a step report carries: the page lists this many (at a statement
/// start Python has thousands of two-terminal sequences, ~100 KB of JSON a step).
const SHOWN_ACCEPT_SEQUENCES: usize = 24;

/// The step as the page shows it, with the raw bytes of every token it names.
fn shown(engine: &Engine, session: &Session, mut trace: StepTrace) -> ShownStep {
    if let Some(ins) = trace.inspect.as_mut() {
        ins.accept_sequences.truncate(SHOWN_ACCEPT_SEQUENCES);
    }
    let ids = trace
        .candidates
        .iter()
        .map(|c| c.id)
        .chain([trace.chosen])
        .chain(trace.refused.iter().copied());
    let token_bytes: BTreeMap<u32, Vec<u8>> = ids
        .filter(|&id| (id as usize) < engine.vocab.len())
        .map(|id| (id, engine.vocab.bytes(id).to_vec()))
        .collect();
    ShownStep { trace, speed: session.speed(), token_bytes }
}
