//! The page: loads the model with a progress bar, holds the controls, runs the
//! generation step by step without freezing the page (one step, then back to the
//! event loop), and draws the trace at the chosen step.

use std::{cell::{Cell, RefCell}, rc::Rc};

use espalier_decode::{Lang, Mode, StepTrace};
use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::{
    backend::{self, BackendKind},
    engine::Engine,
    examples,
    fetch::fetch_bytes,
    session::Session,
    settings::Settings,
    view,
    yield_now::{console_log, now_ms, yield_now},
};

/// Where the model file is served (trunk copies static/models next to the app).
pub const MODEL_URL: &str = "models/SmolLM2-135M-Instruct.Q4_1.gguf";

/// Loading progress of the model.
#[derive(Clone, Debug, PartialEq)]
pub enum LoadState {
    /// Downloading: bytes received, and the total when known.
    Fetching(u64, Option<u64>),
    /// Bytes are in; choosing the device and placing the weights.
    Preparing(String),
    /// Ready to generate.
    Ready,
    /// Loading failed; the message says what to do.
    Failed(String),
}

/// Whether a generation is running.
#[derive(Clone, Debug, PartialEq)]
pub enum RunState {
    /// Nothing started, or reset.
    Idle,
    /// Steps are being computed.
    Running,
    /// Paused between steps (after Step or Stop); more can follow.
    Paused,
    /// The generation stopped (EOS, budget, stop string); the reason.
    Done(String),
    /// A step failed.
    Failed(String),
}

impl RunState {
    fn key(&self) -> &'static str {
        match self {
            RunState::Idle => "idle",
            RunState::Running => "running",
            RunState::Paused => "paused",
            RunState::Done(_) => "done",
            RunState::Failed(_) => "error",
        }
    }
}

/// Speed figures of the current session.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Speed {
    /// Prompt tokens.
    pub prompt_tokens: usize,
    /// Milliseconds from Generate to the first token.
    pub first_token_ms: Option<f64>,
    /// Generated tokens per second of busy time.
    pub tokens_per_s: f64,
    /// Milliseconds the model took for the prompt (the first step).
    pub prefill_ms: f64,
    /// Mean milliseconds per generated token in the model, after the first.
    pub model_ms: f64,
    /// Mean milliseconds per step in the constraint.
    pub constraint_ms: f64,
}

/// Messages the page handles.
pub enum Msg {
    /// Download progress.
    Progress(u64, Option<u64>),
    /// A loading phase began.
    Preparing(String),
    /// Loading finished: the engine or why it failed.
    Loaded(Result<Engine, String>),
    /// Language selector changed.
    SetLang(String),
    /// Prompt edited.
    SetPrompt(String),
    /// An example was picked.
    PickExample(String),
    /// Mode selector changed.
    SetMode(String),
    /// The full-prompt checkbox changed.
    SetFullPrompt(bool),
    /// A numeric setting changed: which, and the raw text.
    SetNumber(&'static str, String),
    /// Run to the end.
    Generate,
    /// Compute one more step.
    Step,
    /// Show the previous step.
    Back,
    /// Show the next recorded step.
    Forward,
    /// Forget the generation.
    Reset,
    /// Stop a running generation after the current step.
    Stop,
    /// A step finished: its trace and the speed so far.
    StepDone(StepTrace, Speed),
    /// The run loop ended: `None` when it paused or finished cleanly.
    RunEnded(Option<String>, Option<String>),
}

/// The playground page.
pub struct App {
    load: LoadState,
    backend_kind: Option<BackendKind>,
    backend_detail: String,
    model_detail: String,
    lang: Lang,
    prompt: String,
    settings: Settings,
    engine: Rc<RefCell<Option<Engine>>>,
    session: Rc<RefCell<Option<Session>>>,
    stop: Rc<Cell<bool>>,
    steps: Vec<StepTrace>,
    cursor: usize,
    run: RunState,
    speed: Speed,
    load_ms: f64,
    error: Option<String>,
    /// When the current redraw began (performance.now(), set in `view`): redraws over
    /// 50 ms (building the page and patching the DOM) go to the console, since they
    /// block the page too.
    redraw_from: Cell<Option<f64>>,
}

/// Whether the URL asks for the CPU backend (`?backend=cpu`).
fn force_cpu() -> bool {
    let search = web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w, &"location".into()).ok())
        .and_then(|l| js_sys::Reflect::get(&l, &"search".into()).ok())
        .and_then(|s| s.as_string());
    search.is_some_and(|q| q.contains("backend=cpu"))
}

impl App {
    fn start_loading(ctx: &Context<Self>) {
        let link = ctx.link().clone();
        wasm_bindgen_futures::spawn_local(async move {
            let progress_link = link.clone();
            let mut last = 0u64;
            let bytes = fetch_bytes(MODEL_URL, move |got, total| {
                // Repaint every ~1 MB, not every chunk.
                if got == 0 || got - last >= 1 << 20 || Some(got) == total {
                    last = got;
                    progress_link.send_message(Msg::Progress(got, total));
                }
            })
            .await;
            let bytes = match bytes {
                Ok(b) => b,
                Err(e) => return link.send_message(Msg::Loaded(Err(e.to_string()))),
            };
            link.send_message(Msg::Preparing("choosing the device".into()));
            yield_now().await;
            let backend = backend::choose(force_cpu()).await;
            let phase_link = link.clone();
            let progress = move |what: &str| phase_link.send_message(Msg::Preparing(what.to_owned()));
            let engine = Engine::load(bytes, backend, progress).await.map_err(|e| e.to_string());
            link.send_message(Msg::Loaded(engine));
        });
    }

    /// Makes sure a session exists and matches the shown cursor: a fresh one when
    /// nothing is shown, otherwise the current one rewound to the cursor.
    fn prepare_session(&mut self) -> Result<(), String> {
        let mut engine_ref = self.engine.borrow_mut();
        let engine = engine_ref.as_mut().ok_or("the model is not loaded yet (or busy)")?;
        let mut session = self.session.borrow_mut();
        if self.cursor == 0 || session.is_none() {
            *session = Some(
                Session::start(engine, self.lang, &self.prompt, self.settings.to_config(), self.settings.full_prompt)
                    .map_err(|e| e.to_string())?,
            );
            self.steps.clear();
            self.cursor = 0;
            self.speed = Speed::default();
        } else if self.cursor < self.steps.len() {
            if let Some(s) = session.as_mut() {
                s.rewind(self.cursor).map_err(|e| e.to_string())?;
            }
            self.steps.truncate(self.cursor);
        }
        Ok(())
    }

    /// Runs up to `max_steps` steps (all when `None`) in the background, yielding to
    /// the event loop after each so the page repaints.
    fn spawn_run(&mut self, ctx: &Context<Self>, max_steps: Option<usize>) {
        if let Err(e) = self.prepare_session() {
            self.run = RunState::Failed(e);
            return;
        }
        let engine_cell = self.engine.clone();
        let session_cell = self.session.clone();
        let stop = self.stop.clone();
        stop.set(false);
        let link = ctx.link().clone();
        self.run = RunState::Running;
        wasm_bindgen_futures::spawn_local(async move {
            let engine = engine_cell.borrow_mut().take();
            let session = session_cell.borrow_mut().take();
            let (Some(mut engine), Some(mut session)) = (engine, session) else {
                link.send_message(Msg::RunEnded(Some("the model or the session is busy".into()), None));
                return;
            };
            let mut done = 0usize;
            let mut error = None;
            yield_now().await;
            while !session.finished() && !stop.get() && max_steps.is_none_or(|m| done < m) {
                match session.step(&mut engine).await {
                    Ok(trace) => {
                        let (model_ms, constraint_ms) = session.mean_split_ms();
                        let speed = Speed {
                            prompt_tokens: session.prompt_tokens,
                            first_token_ms: session.first_token_ms,
                            tokens_per_s: session.tokens_per_s(),
                            prefill_ms: session.prefill_ms.unwrap_or(0.0),
                            model_ms,
                            constraint_ms,
                        };
                        link.send_message(Msg::StepDone(trace, speed));
                    }
                    Err(e) => {
                        error = Some(e.to_string());
                        break;
                    }
                }
                done += 1;
                yield_now().await;
            }
            let stop_reason = session.generator.stop_reason().map(|r| r.name().to_owned());
            *engine_cell.borrow_mut() = Some(engine);
            *session_cell.borrow_mut() = Some(session);
            link.send_message(Msg::RunEnded(error, stop_reason));
        });
    }

    fn busy(&self) -> bool {
        self.run == RunState::Running || self.load != LoadState::Ready
    }
}

impl Component for App {
    type Message = Msg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        Self::start_loading(ctx);
        let lang = Lang::first();
        let prompt = examples::for_lang(lang).first().map(|e| e.prompt.clone()).unwrap_or_default();
        Self {
            load: LoadState::Fetching(0, None),
            backend_kind: None,
            backend_detail: String::new(),
            model_detail: String::new(),
            lang,
            prompt,
            settings: Settings::default(),
            engine: Rc::new(RefCell::new(None)),
            session: Rc::new(RefCell::new(None)),
            stop: Rc::new(Cell::new(false)),
            steps: Vec::new(),
            cursor: 0,
            run: RunState::Idle,
            speed: Speed::default(),
            load_ms: 0.0,
            error: None,
            redraw_from: Cell::new(None),
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Progress(got, total) => self.load = LoadState::Fetching(got, total),
            Msg::Preparing(what) => self.load = LoadState::Preparing(what),
            Msg::Loaded(Ok(engine)) => {
                self.backend_kind = Some(engine.backend.kind);
                self.backend_detail = engine.backend.detail.clone();
                self.model_detail = engine.describe();
                *self.engine.borrow_mut() = Some(engine);
                self.load = LoadState::Ready;
                self.load_ms = now_ms();
            }
            Msg::Loaded(Err(e)) => self.load = LoadState::Failed(e),
            Msg::SetLang(key) => {
                if let Ok(lang) = Lang::from_name(&key) {
                    if lang != self.lang {
                        self.lang = lang;
                        if let Some(e) = examples::for_lang(lang).first() {
                            self.prompt = e.prompt.clone();
                        }
                    }
                }
            }
            Msg::SetPrompt(p) => self.prompt = p,
            Msg::PickExample(p) => self.prompt = p,
            Msg::SetMode(m) => {
                if let Ok(mode) = m.parse::<Mode>() {
                    self.settings.mode = mode;
                }
            }
            Msg::SetFullPrompt(full) => self.settings.full_prompt = full,
            Msg::SetNumber(which, raw) => {
                let s = &mut self.settings;
                let ok = match which {
                    "temperature" => raw.parse().map(|v| s.temperature = v).is_ok(),
                    "top-k" => raw.parse().map(|v| s.top_k = v).is_ok(),
                    "top-p" => raw.parse().map(|v| s.top_p = v).is_ok(),
                    "seed" => raw.parse().map(|v| s.seed = v).is_ok(),
                    "max-tokens" => raw.parse().map(|v| s.max_tokens = v).is_ok(),
                    "wrap-up" => raw.parse().map(|v| s.wrap_up = v).is_ok(),
                    _ => false,
                };
                self.error = (!ok).then(|| format!("{which}: {raw:?} is not a number"));
            }
            Msg::Generate => {
                if !self.busy() {
                    self.spawn_run(ctx, None);
                }
            }
            Msg::Step => {
                if !self.busy() {
                    self.spawn_run(ctx, Some(1));
                }
            }
            Msg::Back => self.cursor = self.cursor.saturating_sub(1),
            Msg::Forward => self.cursor = (self.cursor + 1).min(self.steps.len()),
            Msg::Reset => {
                if self.run != RunState::Running {
                    *self.session.borrow_mut() = None;
                    self.steps.clear();
                    self.cursor = 0;
                    self.speed = Speed::default();
                    self.run = RunState::Idle;
                }
            }
            Msg::Stop => self.stop.set(true),
            Msg::StepDone(trace, speed) => {
                self.steps.push(trace);
                self.cursor = self.steps.len();
                self.speed = speed;
            }
            Msg::RunEnded(error, stop) => {
                self.run = match (error, stop) {
                    (Some(e), _) => RunState::Failed(e),
                    (None, Some(reason)) => RunState::Done(reason),
                    (None, None) => RunState::Paused,
                };
            }
        }
        true
    }

    fn rendered(&mut self, _ctx: &Context<Self>, _first_render: bool) {
        if let Some(t) = self.redraw_from.take() {
            let ms = now_ms() - t;
            if ms > 50.0 {
                console_log(&format!("redrawing the page at step {} took {ms:.0} ms", self.cursor));
            }
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        self.redraw_from.set(Some(now_ms()));
        let link = ctx.link();
        let shown = &self.steps[..self.cursor];
        let current = shown.last();
        let code = current.map(|s| s.text.clone()).unwrap_or_default();
        let busy = self.busy();
        let ready = self.load == LoadState::Ready;
        let on_lang = link.callback(|e: Event| Msg::SetLang(e.target_unchecked_into::<HtmlSelectElement>().value()));
        let on_mode = link.callback(|e: Event| Msg::SetMode(e.target_unchecked_into::<HtmlSelectElement>().value()));
        let on_prompt =
            link.callback(|e: InputEvent| Msg::SetPrompt(e.target_unchecked_into::<HtmlTextAreaElement>().value()));
        let number = |id: &'static str, label: &'static str, value: String, step: &'static str| {
            let cb = link.callback(move |e: Event| Msg::SetNumber(id, e.target_unchecked_into::<HtmlInputElement>().value()));
            html! {
                <label class="num">{label}
                    <input id={id} type="number" step={step} value={value} onchange={cb} disabled={busy} />
                </label>
            }
        };
        let s = &self.settings;
        html! {
            <main id="app"
                data-load={match &self.load { LoadState::Ready => "ready", LoadState::Failed(_) => "error", _ => "loading" }}
                data-backend={self.backend_kind.map(|k| k.key()).unwrap_or("")}
                data-run={self.run.key()}
                data-steps={self.steps.len().to_string()}
                data-cursor={self.cursor.to_string()}>
                <header>
                    <h1>{"Espalier playground"}</h1>
                    <p class="tagline">{"A 135M-parameter model writes code that is correct by construction: at every step the constraint decides which tokens may come next."}</p>
                </header>
                { view::loading(&self.load, &self.backend_detail, &self.model_detail) }
                <section class="controls">
                    <div class="row">
                        <label>{"Language "}
                            <select id="lang" onchange={on_lang} disabled={busy}>
                                { for Lang::all().map(|l| html!{ <option value={l.name()} selected={l == self.lang}>{l.label()}</option> }) }
                            </select>
                        </label>
                        <label>{"Mode "}
                            <select id="mode" onchange={on_mode} disabled={busy}>
                                { for Mode::ALL.iter().map(|m| html!{ <option value={m.name()} selected={*m == s.mode}>{m.name()}</option> }) }
                            </select>
                        </label>
                        { number("temperature", "temperature", s.temperature.to_string(), "0.1") }
                        { number("top-k", "top-k", s.top_k.to_string(), "1") }
                        { number("top-p", "top-p", s.top_p.to_string(), "0.05") }
                        { number("seed", "seed", s.seed.to_string(), "1") }
                        { number("max-tokens", "max tokens", s.max_tokens.to_string(), "1") }
                        if self.lang.has_finishing_mask() {
                            <span title="When this many tokens of the budget are left, only tokens that lead towards the shortest complete script stay allowed (0 = off)">
                                { number("wrap-up", "wrap up at", s.wrap_up.to_string(), "1") }
                            </span>
                        }
                        if self.lang.has_full_instruction() {
                            <label title="Prompt with the language's full instruction (sLua: the whole language document and game API, about 3k tokens: slow on the CPU backend)">
                                <input id="full-prompt" type="checkbox" checked={s.full_prompt} disabled={busy}
                                    onchange={link.callback(|e: Event| Msg::SetFullPrompt(e.target_unchecked_into::<HtmlInputElement>().checked()))} />
                                {" full language doc + API in the prompt"}
                            </label>
                        }
                    </div>
                    <div class="examples">
                        <span>{"Examples: "}</span>
                        { for examples::for_lang(self.lang).into_iter().map(|e| {
                            let p = e.prompt.clone();
                            html!{ <button class="example" disabled={busy} onclick={link.callback(move |_| Msg::PickExample(p.clone()))}>{e.title}</button> }
                        }) }
                    </div>
                    <textarea id="prompt" rows="3" value={self.prompt.clone()} oninput={on_prompt} disabled={busy} />
                    <div class="row buttons">
                        <button id="generate" disabled={busy || !ready} onclick={link.callback(|_| Msg::Generate)}>{"Generate"}</button>
                        <button id="step" disabled={busy || !ready} onclick={link.callback(|_| Msg::Step)}>{"Step"}</button>
                        <button id="back" disabled={self.run == RunState::Running || self.cursor == 0} onclick={link.callback(|_| Msg::Back)}>{"◀ Back"}</button>
                        <button id="forward" disabled={self.run == RunState::Running || self.cursor >= self.steps.len()} onclick={link.callback(|_| Msg::Forward)}>{"Forward ▶"}</button>
                        <button id="reset" disabled={busy} onclick={link.callback(|_| Msg::Reset)}>{"Reset"}</button>
                        <button id="stop" disabled={self.run != RunState::Running} onclick={link.callback(|_| Msg::Stop)}>{"Stop"}</button>
                        { view::run_status(&self.run, self.cursor, self.steps.len()) }
                    </div>
                    if let Some(e) = &self.error { <p class="error">{e.clone()}</p> }
                </section>
                <section class="panes">
                    <div class="pane code-pane">
                        <h2>{"Code"}</h2>
                        { view::chips(shown) }
                        <div class={classes!("code-cols", self.lang.translation_label().map(|_| "two"))}>
                            <div>
                                <h2>{format!("{} text", self.lang.label())}</h2>
                                <pre id="code" class="plain">{code.clone()}</pre>
                            </div>
                            <div>
                                { view::translation(self.lang, &code, matches!(self.run, RunState::Done(_)) && self.cursor == self.steps.len()) }
                                { crate::game::game_panel(self.lang, &code, matches!(self.run, RunState::Done(_)) && self.cursor == self.steps.len()) }
                            </div>
                        </div>
                    </div>
                    <div class="pane">
                        <h2>{"Candidates"}</h2>
                        { view::candidates(current) }
                        <h2>{"Constraint"}</h2>
                        { view::inspection(current) }
                        <h2>{"Timing"}</h2>
                        { view::timings(current, &self.speed) }
                    </div>
                </section>
            </main>
        }
    }
}
