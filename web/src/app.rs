//! The page: holds the controls and draws the trace at the chosen step. The model and
//! the generation live in a Web Worker (`worker.rs`, reached through
//! `engine_link::EngineLink`): this thread only forwards clicks and renders the
//! worker's reports, so it never blocks for a model step. `update` is the page's
//! reducer: every click and every report is a [`Msg`].

use std::{cell::Cell, rc::Rc};

use espalier_decode::{Lang, Mode, StepTrace};
use yew::prelude::*;

use crate::{
    engine_link::EngineLink,
    examples::{self, Example},
    host, page_params,
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
    /// The request form changed.
    Form(FormMsg),
    /// A run button was clicked.
    Run(RunMsg),
    /// A GGUF file was picked (the File, or null).
    OpenFile(wasm_bindgen::JsValue),
    /// Start a new worker and load the default model (after a failed load or a
    /// crashed worker).
    Restart,
}

/// Edits of the request form.
pub enum FormMsg {
    /// Language selector changed.
    SetLang(String),
    /// Prompt edited.
    SetPrompt(String),
    /// An example was picked (a request, or a fill-in-the-middle prefix and suffix).
    PickExample(Example),
    /// The fill-in-the-middle checkbox changed.
    SetFim(bool),
    /// The code before the cursor was edited (fill in the middle).
    SetFimPrefix(String),
    /// The code after the cursor was edited (fill in the middle).
    SetFimSuffix(String),
    /// Mode selector changed.
    SetMode(String),
    /// The full-prompt checkbox changed.
    SetFullPrompt(bool),
    /// A numeric setting changed: which, and the raw text.
    SetNumber(&'static str, String),
}

/// The run buttons.
#[derive(Clone, Copy)]
pub enum RunMsg {
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
    /// Where the model came from (the browser's cache, the network, a file opened).
    model_source: String,
    /// The model's facts (name, architecture, formats, size, memory check).
    model_facts: Vec<String>,
    /// Why the last file the user opened was refused (the model before it stayed).
    file_refused: Option<String>,
    /// The language the form picks for the next generation.
    lang: Lang,
    /// The language of the generation shown (`None` before the first): the form's may
    /// differ, and then Generate or Step starts a new generation.
    shown_lang: Option<Lang>,
    prompt: String,
    /// Fill in the middle instead of answering a request (languages that can).
    fim: bool,
    /// The code before and after the cursor, as edited.
    fim_prefix: String,
    fim_suffix: String,
    /// The prefix and suffix of the generation shown (fill in the middle).
    shown_fim: Option<(String, String)>,
    settings: Settings,
    /// The engine's worker.
    engine: EngineLink,
    /// Whether the worker crashed (it is then replaced only by Start again).
    crashed: bool,
    steps: Vec<Rc<StepTrace>>,
    /// The raw bytes of every token the steps name (for the legible token display).
    token_bytes: view::TokenBytes,
    /// The reducer of the form's edits as a callback, made once (the form's props
    /// compare it).
    send: Callback<FormMsg>,
    cursor: usize,
    /// After Stop: how many steps the run keeps (those shown at the click and the one
    /// in flight); later reports, from steps the worker undoes, are left out.
    keep: Option<usize>,
    run: RunState,
    speed: Speed,
    load_ms: f64,
    error: Option<String>,
    /// The finished program's translation (sLua: Lua), made once when the run ends.
    translated: Option<Result<String, String>>,
    /// When the current redraw began (performance.now(), set in `view`): redraws over
    /// 50 ms (building the page and patching the DOM) go to the console, since they
    /// block the page too.
    redraw_from: Cell<Option<f64>>,
}

/// Whether the URL asks for the CPU backend (`?backend=cpu`).
fn force_cpu() -> bool {
    page_params::find(&host::page_search(), "backend").as_deref() == Some("cpu")
}

/// Starts a worker that sees `search` as the page's URL parameters, its reports going
/// to the page's reducer, and asks it to load the default model.
fn spawn_engine(ctx: &Context<App>, search: &str) -> EngineLink {
    let link = ctx.link().clone();
    // One redraw per animation frame, for all the reports of that frame.
    let engine = EngineLink::spawn(search, move |reports| {
        link.send_message_batch(reports.into_iter().map(Msg::Worker).collect())
    });
    engine.send(&ToWorker::Load { force_cpu: force_cpu() });
    engine
}

impl App {
    /// Starts a run of up to `max_steps` steps (all when `None`) in the worker: a new
    /// generation when nothing is shown or the form now asks for another language or
    /// fill in the middle, else the current one, rewound to the shown step first when
    /// it is not the last.
    fn start_run(&mut self, max_steps: Option<usize>) {
        self.translated = None;
        let fim = self.fim && self.lang.fills_in_the_middle();
        // The form changed the language or fill in the middle since: a new one.
        let form_changed = self.shown_lang != Some(self.lang) || self.shown_fim.is_some() != fim;
        let start = if self.cursor == 0 || form_changed {
            self.steps.clear();
            self.cursor = 0;
            self.shown_lang = Some(self.lang);
            self.speed = Speed::default();
            self.shown_fim = fim.then(|| (self.fim_prefix.clone(), self.fim_suffix.clone()));
            let request = if fim { self.fim_prefix.clone() } else { self.prompt.clone() };
            let suffix = fim.then(|| self.fim_suffix.clone());
            Start::New {
                lang: self.lang.name().to_owned(),
                request,
                settings: self.settings.clone(),
                suffix,
            }
        } else if self.cursor < self.steps.len() {
            self.steps.truncate(self.cursor);
            Start::Continue { rewind_to: Some(self.cursor) }
        } else {
            Start::Continue { rewind_to: None }
        };
        self.run = RunState::Running;
        self.keep = None;
        self.engine.send(&ToWorker::Run { start, max_steps });
    }

    fn busy(&self) -> bool {
        self.run == RunState::Running || self.load != LoadState::Ready
    }

    /// Whether a file can be opened: nothing running, nothing loading, a live worker.
    fn can_open_file(&self) -> bool {
        self.run != RunState::Running
            && matches!(self.load, LoadState::Ready | LoadState::Failed(_))
            && !self.crashed
    }

    /// Forgets the generation shown.
    fn clear_generation(&mut self) {
        self.steps.clear();
        self.cursor = 0;
        self.keep = None;
        self.speed = Speed::default();
        self.run = RunState::Idle;
        self.shown_fim = None;
        self.shown_lang = None;
        self.translated = None;
    }

    /// The worker stopped working: say so, and end what it was doing.
    fn on_crash(&mut self, why: String) {
        if self.crashed {
            // The first report (the panic's message) says more than the browser's.
            return console_log(&format!("the engine's worker, after crashing: {why}"));
        }
        self.crashed = true;
        if self.run == RunState::Running {
            self.keep = None;
            self.run = RunState::Failed("the engine's worker stopped".to_owned());
        }
        self.load = LoadState::Failed(format!(
            "The engine's worker stopped: {why}. Start again to load the model in a new worker."
        ));
    }

    /// Applies an edit of the form.
    fn on_form(&mut self, edit: FormMsg) {
        match edit {
            FormMsg::SetLang(key) => {
                if let Ok(lang) = Lang::from_name(&key) {
                    self.set_lang(lang);
                }
            }
            FormMsg::SetPrompt(p) => self.prompt = p,
            FormMsg::PickExample(e) => match e.suffix {
                Some(suffix) => {
                    self.fim_prefix = e.prompt;
                    self.fim_suffix = suffix;
                }
                None => self.prompt = e.prompt,
            },
            FormMsg::SetFim(on) => self.fim = on,
            FormMsg::SetFimPrefix(p) => self.fim_prefix = p,
            FormMsg::SetFimSuffix(s) => self.fim_suffix = s,
            FormMsg::SetMode(m) => {
                if let Ok(mode) = m.parse::<Mode>() {
                    self.settings.mode = mode;
                }
            }
            FormMsg::SetFullPrompt(full) => self.settings.full_prompt = full,
            FormMsg::SetNumber(which, raw) => {
                let ok = self.settings.set_number(which, &raw);
                self.error = (!ok).then(|| format!("{which}: {raw:?} is not a number"));
            }
        }
    }

    /// Picks another language: its first examples fill the boxes, and a mode it lacks
    /// falls back to `mask`.
    fn set_lang(&mut self, lang: Lang) {
        if lang == self.lang {
            return;
        }
        self.lang = lang;
        if !lang.modes().contains(&self.settings.mode) {
            self.settings.mode = Mode::Mask;
        }
        if let Some(e) = examples::for_lang(lang, false).first() {
            self.prompt = e.prompt.clone();
        }
        if let Some(e) = examples::for_lang(lang, true).first() {
            self.fim_prefix = e.prompt.clone();
            self.fim_suffix = e.suffix.clone().unwrap_or_default();
        }
    }

    /// Applies a click of a run button. The buttons but Generate and Step are
    /// disabled while a run goes on; a click that lands before the redraw that
    /// disables them is ignored here.
    fn on_run(&mut self, click: RunMsg) {
        let running = self.run == RunState::Running;
        match click {
            RunMsg::Generate if !self.busy() => self.start_run(None),
            RunMsg::Step if !self.busy() => self.start_run(Some(1)),
            RunMsg::Back if !running => self.cursor = self.cursor.saturating_sub(1),
            RunMsg::Forward if !running => self.cursor = (self.cursor + 1).min(self.steps.len()),
            RunMsg::Reset if !self.busy() => {
                self.engine.send(&ToWorker::Reset);
                self.clear_generation();
            }
            RunMsg::Stop if running => {
                let keep = self.steps.len() + 1;
                self.keep = Some(keep);
                self.engine.send(&ToWorker::Stop { keep });
            }
            _ => {}
        }
    }

    /// Loads the GGUF file the user picked (none: the picker was cancelled).
    fn open_file(&mut self, file: wasm_bindgen::JsValue) {
        if !file.is_null() && self.can_open_file() {
            let name = host::file_name(&file);
            self.load = LoadState::Preparing(format!("opening {name}"));
            self.file_refused = None;
            self.clear_generation();
            self.engine.send_file(&ToWorker::LoadFile { force_cpu: force_cpu(), name }, &file);
        }
    }

    /// Replaces the worker by a new one, which loads the default model.
    fn restart(&mut self, ctx: &Context<Self>) {
        // The new worker never sees the test's panic switch (page_params.rs).
        let search = page_params::without(&host::page_search(), page_params::TEST_PANIC);
        let old = std::mem::replace(&mut self.engine, spawn_engine(ctx, &search));
        old.terminate();
        self.crashed = false;
        self.clear_generation();
        self.load = LoadState::Fetching(0, None, false);
        self.file_refused = None;
        self.model_facts.clear();
        self.backend_kind = None;
    }

    /// Applies a report of the worker.
    fn on_report(&mut self, report: FromWorker) {
        match report {
            // The benchmark talks to the worker without the page.
            FromWorker::Alive | FromWorker::Bench(_) => {}
            FromWorker::Progress { got, total, from_cache } => {
                self.load = LoadState::Fetching(got, total, from_cache)
            }
            FromWorker::Preparing(what) => self.load = LoadState::Preparing(what),
            FromWorker::Loaded(Ok(Loaded {
                backend,
                backend_detail,
                model_detail,
                source,
                facts,
            })) => {
                self.model_facts = facts;
                self.backend_kind = Some(backend);
                self.backend_detail = backend_detail;
                self.model_detail = model_detail;
                self.model_source = source;
                self.file_refused = None;
                self.load = LoadState::Ready;
                self.load_ms = now_ms();
            }
            FromWorker::Loaded(Err(e)) => self.load = LoadState::Failed(e),
            FromWorker::FileRefused { error, model_loaded } => {
                let (load, said) = match model_loaded {
                    true => (LoadState::Ready, format!("{error} (the model loaded before stays)")),
                    false => (LoadState::Failed(error.clone()), error),
                };
                self.load = load;
                self.file_refused = Some(said);
            }
            FromWorker::Crashed(why) => self.on_crash(why),
            FromWorker::Step(_) if self.keep.is_some_and(|keep| self.steps.len() >= keep) => {}
            FromWorker::Step(step) => {
                for (id, bytes) in step.token_bytes {
                    self.token_bytes.entry(id).or_insert_with(|| bytes.into());
                }
                self.steps.push(Rc::new(step.trace));
                self.cursor = self.steps.len();
                self.speed = step.speed;
            }
            FromWorker::RunEnded { error, stop, translation } => {
                self.keep = None;
                self.run = match (error, stop) {
                    (Some(e), _) => RunState::Failed(e),
                    (None, Some(reason)) => RunState::Done(reason),
                    (None, None) => RunState::Paused,
                };
                if matches!(self.run, RunState::Done(_)) {
                    self.translated = translation;
                }
            }
        }
    }
}

impl Component for App {
    type Message = Msg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        let engine = spawn_engine(ctx, &host::page_search());
        let lang = Lang::first();
        let prompt =
            examples::for_lang(lang, false).first().map(|e| e.prompt.clone()).unwrap_or_default();
        let fim_example = Lang::all().flat_map(|l| examples::for_lang(l, true)).next();
        Self {
            load: LoadState::Fetching(0, None, false),
            backend_kind: None,
            backend_detail: String::new(),
            model_detail: String::new(),
            model_source: String::new(),
            model_facts: Vec::new(),
            file_refused: None,
            lang,
            shown_lang: None,
            prompt,
            fim: false,
            fim_prefix: fim_example.as_ref().map(|e| e.prompt.clone()).unwrap_or_default(),
            fim_suffix: fim_example.and_then(|e| e.suffix).unwrap_or_default(),
            shown_fim: None,
            settings: Settings::default(),
            engine,
            crashed: false,
            steps: Vec::new(),
            token_bytes: view::TokenBytes::new(),
            send: ctx.link().callback(Msg::Form),
            cursor: 0,
            keep: None,
            run: RunState::Idle,
            speed: Speed::default(),
            load_ms: 0.0,
            error: None,
            translated: None,
            redraw_from: Cell::new(None),
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Worker(report) => self.on_report(report),
            Msg::Form(edit) => self.on_form(edit),
            Msg::Run(click) => self.on_run(click),
            Msg::OpenFile(file) => self.open_file(file),
            Msg::Restart => self.restart(ctx),
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
        let on_file = link.callback(|e: Event| {
            Msg::OpenFile(host::picked_file(
                &e.target().map(wasm_bindgen::JsValue::from).unwrap_or(wasm_bindgen::JsValue::NULL),
            ))
        });
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
                { view::loading(&self.load, &self.backend_detail, &self.model_detail, &self.model_source,
                    link.callback(|_| Msg::Restart)) }
                { view::model_file(&self.model_facts, !self.can_open_file(), self.file_refused.as_deref(), on_file) }
                { self.controls(link) }
                { self.panes() }
            </main>
        }
    }
}

impl App {
    /// The form, the run buttons and the run's status.
    fn controls(&self, link: &yew::html::Scope<App>) -> Html {
        let busy = self.busy();
        let ready = self.load == LoadState::Ready;
        let running = self.run == RunState::Running;
        let button = |id: &'static str, label: &'static str, disabled: bool, click: RunMsg| {
            html! { <button id={id} disabled={disabled} onclick={link.callback(move |_| Msg::Run(click))}>{label}</button> }
        };
        html! {
            <section class="controls">
                <view::Form lang={self.lang} settings={self.settings.clone()} prompt={self.prompt.clone()}
                    fim={self.fim} fim_prefix={self.fim_prefix.clone()} fim_suffix={self.fim_suffix.clone()}
                    busy={busy} send={self.send.clone()} />
                <div class="row buttons">
                    { button("generate", "Generate", busy || !ready, RunMsg::Generate) }
                    { button("step", "Step", busy || !ready, RunMsg::Step) }
                    { button("back", "◀ Back", running || self.cursor == 0, RunMsg::Back) }
                    { button("forward", "Forward ▶", running || self.cursor >= self.steps.len(), RunMsg::Forward) }
                    { button("reset", "Reset", busy, RunMsg::Reset) }
                    { button("stop", "Stop", !running, RunMsg::Stop) }
                    { view::run_status(&self.run, self.cursor, self.steps.len()) }
                </div>
                if let Some(e) = &self.error { <p class="error">{e.clone()}</p> }
            </section>
        }
    }

    /// The code at the step shown (with its translation and the game), and the step's
    /// candidates, constraint and timing.
    fn panes(&self) -> Html {
        let shown = &self.steps[..self.cursor];
        let current = shown.last().map(|s| &**s);
        let code = current.map(|s| s.text.clone()).unwrap_or_default();
        let finished_here =
            matches!(self.run, RunState::Done(_)) && self.cursor == self.steps.len();
        let translated = if finished_here { self.translated.as_ref() } else { None };
        let lua = translated.and_then(|t| t.as_ref().ok()).map(String::as_str);
        let code_view = match &self.shown_fim {
            Some((prefix, suffix)) => view::fim_code(prefix, &code, suffix),
            None => html! { <pre id="code" class="plain">{code.clone()}</pre> },
        };
        let chips: Vec<view::Chip> =
            shown.iter().map(|s| (s.clone(), self.token_bytes.get(&s.chosen).cloned())).collect();
        let shown_lang = self.shown_lang.unwrap_or(self.lang);
        html! {
            <section class="panes">
                <div class="pane code-pane">
                    <h2>{"Code"}</h2>
                    { view::chips(&chips) }
                    <div class={classes!("code-cols", shown_lang.evaluation().translation_label().map(|_| "two"))}>
                        <div>
                            <h2 id="code-lang" data-lang={shown_lang.name()}>{format!("{} text", shown_lang.label())}{if self.shown_fim.is_some() { " (the middle marked)" } else { "" }}</h2>
                            { code_view }
                        </div>
                        <div>
                            { view::translation(shown_lang, !code.is_empty(), translated) }
                            { crate::game::game_panel(lua) }
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
        }
    }
}
