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
    engine::{memory_left, Engine, Opened},
    host,
    model_cache::{self, Source},
    model_facts::{file_verdict, gb},
    model_file::MODEL_URL,
    page_params,
    protocol::{self, FromWorker, Loaded, ShownStep, Start, ToWorker},
    session::Session,
    yield_now::{console_log, yield_now, yield_to_paint},
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

/// Installs the message handler and tells the page the worker is alive. A panic is
/// reported to the page (then the worker is dead: the page offers to start a new one).
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        send(&FromWorker::Crashed(info.to_string()));
    }));
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
                return send(&FromWorker::FileRefused {
                    error: "stop the generation before opening another model".to_owned(),
                    model_loaded: state.engine.borrow().is_some(),
                });
            }
            // The page forgot the generation when the file was picked.
            state.session.borrow_mut().take();
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

/// Why a load did not happen.
enum LoadFailure {
    /// The file opened is not a model this page can load; the model loaded before (if
    /// any) is still loaded.
    Refused(String),
    /// Loading failed; no model is loaded.
    Failed(String),
}

/// Loads the default model (`file` `None`) or the file the user opened (its name and
/// the File), replacing the engine loaded before once the file passed its checks.
async fn load(state: Rc<State>, force_cpu: bool, file: Option<(String, JsValue)>) {
    let result = match file {
        None => load_default(force_cpu).await.map_err(LoadFailure::Failed),
        Some((name, file)) => load_file(&state, force_cpu, &name, &file).await,
    };
    let message = match result {
        Ok((engine, source)) => {
            let loaded = Loaded {
                backend: engine.backend.kind.key().to_owned(),
                backend_detail: engine.backend.detail.clone(),
                model_detail: engine.describe(),
                source,
                facts: engine.facts.lines(),
            };
            *state.engine.borrow_mut() = Some(engine);
            FromWorker::Loaded(Ok(loaded))
        }
        Err(LoadFailure::Refused(error)) => {
            console_log(&format!("open a file: refused: {error}"));
            FromWorker::FileRefused { error, model_loaded: state.engine.borrow().is_some() }
        }
        Err(LoadFailure::Failed(error)) => FromWorker::Loaded(Err(error)),
    };
    send(&message);
}

/// The default model, from the browser's cache or the network.
async fn load_default(force_cpu: bool) -> Result<(Engine, String), String> {
    let mut last = 0u64;
    let (bytes, source) = model_cache::load_model(MODEL_URL, |got, total, source| {
        // Report every ~1 MB, not every chunk.
        if got == 0 || got - last >= 1 << 20 || Some(got) == total {
            last = got;
            send(&FromWorker::Progress { got, total, from_cache: source == Source::Cache });
        }
    })
    .await?;
    let name = MODEL_URL.rsplit('/').next().unwrap_or(MODEL_URL);
    let (opened, backend) = open(bytes, name, force_cpu).await.map_err(|e| e.to_string())?;
    let engine = place(opened, backend).await?;
    Ok((engine, source.name().to_owned()))
}

/// The file the user opened: checked (its size before it is read, then its header)
/// while the model loaded before stays, which makes room only for a file that passed.
async fn load_file(
    state: &State,
    force_cpu: bool,
    name: &str,
    file: &JsValue,
) -> Result<(Engine, String), LoadFailure> {
    let refused = |why: String| LoadFailure::Refused(format!("could not open {name}: {why}"));
    let size = host::file_size(file) as u64;
    file_verdict(size, memory_left()).map_err(refused)?;
    send(&FromWorker::Preparing(format!("reading {name} ({}) from your disk", gb(size))));
    let bytes = read_file(file).await.map_err(refused)?;
    let (opened, backend) =
        open(bytes, name, force_cpu).await.map_err(|e| refused(e.to_string()))?;
    state.engine.borrow_mut().take();
    let engine = place(opened, backend).await.map_err(LoadFailure::Failed)?;
    Ok((engine, format!("your file {name}")))
}

/// A File's bytes, in memory reserved first (so a file the memory cannot hold is an
/// error, not an abort in the allocator).
async fn read_file(file: &JsValue) -> Result<Vec<u8>, String> {
    let read = JsFuture::from(host::read_file(file))
        .await
        .map_err(|e| format!("the browser could not read it: {e:?}"))?;
    let array: js_sys::Uint8Array = read.unchecked_into();
    let len = array.length() as usize;
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(len).map_err(|_| {
        format!(
            "its {} do not fit in what is left of this tab's WebAssembly memory",
            gb(len as u64)
        )
    })?;
    bytes.resize(len, 0);
    array.copy_to(&mut bytes);
    Ok(bytes)
}

/// Chooses the device and checks the file (a GGUF file, a supported model, a fit in
/// the memory left).
async fn open(
    bytes: Vec<u8>,
    name: &str,
    force_cpu: bool,
) -> Result<(Opened, backend::Backend), crate::engine::LoadError> {
    send(&FromWorker::Preparing("choosing the device".into()));
    let backend = backend::choose(force_cpu).await;
    send(&FromWorker::Preparing("reading the GGUF file".into()));
    yield_to_paint().await;
    let opened = Opened::new(bytes, name, &backend)?;
    Ok((opened, backend))
}

/// Loads a checked file on the chosen device.
async fn place(opened: Opened, backend: backend::Backend) -> Result<Engine, String> {
    let progress = |what: &str| send(&FromWorker::Preparing(what.to_owned()));
    Engine::load(opened, backend, progress).await.map_err(|e| e.to_string())
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
    if page_params::get(page_params::TEST_PANIC).as_deref() == Some("run") {
        panic!("{}=run: the panic web/tests/hostile.mjs asks for", page_params::TEST_PANIC);
    }
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
