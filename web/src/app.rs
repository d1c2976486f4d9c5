//! The page: holds the controls and draws the trace at the chosen step. The model and
//! the generation live in a Web Worker (`worker.rs`, reached through
//! `engine_link::EngineLink`): this thread only forwards clicks and renders the
//! worker's reports, so it never blocks for a model step. `update` is the page's
//! reducer: every click and every report is a [`Msg`].

use std::{cell::Cell, collections::BTreeMap};

use espalier_decode::{Lang, Mode, StepTrace};
use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::{
    engine_link::EngineLink,
    examples,
    protocol::{FromWorker, Loaded, Speed, Start, ToWorker},
    settings::Settings,
    view,
    yield_now::{console_log, now_ms},
};

/// Loading progress of the model.
#[derive(Clone, Debug, PartialEq)]
pub enum LoadState {
    /// Reading the model: bytes received, the total when known, and whether from the
    /// browser's cache (else the network).
    Fetching(u64, Option<u64>, bool),
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

/// Messages the page handles.
pub enum Msg {
    /// A report from the engine's worker (loading, steps, the end of a run).
    Worker(FromWorker),
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
}

/// The playground page.
pub struct App {
    load: LoadState,
    backend_kind: Option<String>,
    backend_detail: String,
    model_detail: String,
    /// Where the model came from (the browser's cache or the network).
    model_source: String,
    lang: Lang,
    prompt: String,
    settings: Settings,
    /// The engine's worker.
    engine: EngineLink,
    steps: Vec<StepTrace>,
    /// The raw bytes of every token the steps name (for the legible token display).
    token_bytes: BTreeMap<u32, Vec<u8>>,
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
    /// Starts a run of up to `max_steps` steps (all when `None`) in the worker: a new
    /// generation when nothing is shown, else the current one, rewound to the shown
    /// step first when it is not the last.
    fn start_run(&mut self, max_steps: Option<usize>) {
        let start = if self.cursor == 0 {
            self.steps.clear();
            self.speed = Speed::default();
            Start::New { lang: self.lang.name().to_owned(), request: self.prompt.clone(), settings: self.settings.clone() }
        } else if self.cursor < self.steps.len() {
            self.steps.truncate(self.cursor);
            Start::Continue { rewind_to: Some(self.cursor) }
        } else {
            Start::Continue { rewind_to: None }
        };
        self.run = RunState::Running;
        self.engine.send(&ToWorker::Run { start, max_steps });
    }

    fn busy(&self) -> bool {
        self.run == RunState::Running || self.load != LoadState::Ready
    }

    /// Applies a report of the worker.
    fn on_report(&mut self, report: FromWorker) {
        match report {
            // The benchmark talks to the worker without the page.
            FromWorker::Alive | FromWorker::Bench(_) => {}
            FromWorker::Progress { got, total, from_cache } => self.load = LoadState::Fetching(got, total, from_cache),
            FromWorker::Preparing(what) => self.load = LoadState::Preparing(what),
            FromWorker::Loaded(Ok(Loaded { backend, backend_detail, model_detail, source })) => {
                self.backend_kind = Some(backend);
                self.backend_detail = backend_detail;
                self.model_detail = model_detail;
                self.model_source = source;
                self.load = LoadState::Ready;
                self.load_ms = now_ms();
            }
            FromWorker::Loaded(Err(e)) => self.load = LoadState::Failed(e),
            FromWorker::Step(step) => {
                self.token_bytes.extend(step.token_bytes);
                self.steps.push(step.trace);
                self.cursor = self.steps.len();
                self.speed = step.speed;
            }
            FromWorker::RunEnded { error, stop } => {
                self.run = match (error, stop) {
                    (Some(e), _) => RunState::Failed(e),
                    (None, Some(reason)) => RunState::Done(reason),
                    (None, None) => RunState::Paused,
                };
            }
        }
    }
}

impl Component for App {
    type Message = Msg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        let link = ctx.link().clone();
        let engine = EngineLink::spawn(move |report| link.send_message(Msg::Worker(report)));
        engine.send(&ToWorker::Load { force_cpu: force_cpu() });
        let lang = Lang::first();
        let prompt = examples::for_lang(lang).first().map(|e| e.prompt.clone()).unwrap_or_default();
        Self {
            load: LoadState::Fetching(0, None, false),
            backend_kind: None,
            backend_detail: String::new(),
            model_detail: String::new(),
            model_source: String::new(),
            lang,
            prompt,
            settings: Settings::default(),
            engine,
            steps: Vec::new(),
            token_bytes: BTreeMap::new(),
            cursor: 0,
            run: RunState::Idle,
            speed: Speed::default(),
            load_ms: 0.0,
            error: None,
            redraw_from: Cell::new(None),
        }
    }

    fn update(&mut self, _ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Worker(report) => self.on_report(report),
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
                    self.start_run(None);
                }
            }
            Msg::Step => {
                if !self.busy() {
                    self.start_run(Some(1));
                }
            }
            Msg::Back => self.cursor = self.cursor.saturating_sub(1),
            Msg::Forward => self.cursor = (self.cursor + 1).min(self.steps.len()),
            Msg::Reset => {
                if self.run != RunState::Running {
                    self.engine.send(&ToWorker::Reset);
                    self.steps.clear();
                    self.cursor = 0;
                    self.speed = Speed::default();
                    self.run = RunState::Idle;
                }
            }
            Msg::Stop => self.engine.send(&ToWorker::Stop),
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
                data-backend={self.backend_kind.clone().unwrap_or_default()}
                data-model-source={self.model_source.clone()}
                data-run={self.run.key()}
                data-steps={self.steps.len().to_string()}
                data-cursor={self.cursor.to_string()}>
                <header>
                    <h1>{"Espalier playground"}</h1>
                    <p class="tagline">{"A 135M-parameter model writes code that is correct by construction: at every step the constraint decides which tokens may come next."}</p>
                </header>
                { view::loading(&self.load, &self.backend_detail, &self.model_detail, &self.model_source) }
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
                        { view::chips(shown, &self.token_bytes) }
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
                        { view::candidates(current, &self.token_bytes) }
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
