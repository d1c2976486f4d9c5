//! The game panel: after a finished talent or effect, "Play" loads its Lua
//! translation into a fresh game in wasmoon and the hero fights a few monsters with
//! it: HP bars, the turn log (every hook call, HP change and random draw), the
//! scripts' descriptions, Step / Run / Pause / Reset. Run plays one turn per task of
//! the event loop, so the page stays responsive; a script stopped by its
//! instruction budget, time or memory limit shows a banner saying which.

use std::rc::Rc;

use yew::prelude::*;

use super::host::{Game, Lua};
use super::state::{Action, Phase, PlayState, Snapshot, RUN_TURNS};
use crate::yield_now::{now_ms, yield_now};

/// Wall-clock limit of one turn (the instruction budget stops a runaway hook first).
const TURN_MS: f64 = 2000.0;
/// Log lines the visible log keeps (the full log is in `#game-log-full`).
const SHOWN_LINES: usize = 400;

const CSS: &str = "
.game { margin-top: 1em; }
.game .row { display: flex; flex-wrap: wrap; gap: .4em; align-items: center; }
.game-actors { display: grid; grid-template-columns: minmax(6em, max-content) 1fr minmax(5em, max-content); gap: .2em .6em; align-items: center; margin: .6em 0; }
.game-bar { height: .8em; background: #ddd; border-radius: .2em; overflow: hidden; }
.game-bar > div { height: 100%; }
.game-dead { opacity: .45; text-decoration: line-through; }
.game-stopped { color: #a00; font-weight: bold; border: 1px solid #a00; padding: .4em; }
#game-log { max-height: 18em; overflow: auto; font-size: .85em; }
";

/// The panel's properties.
#[derive(Properties, PartialEq)]
pub struct Props {
    /// The finished script's Lua translation.
    pub lua: AttrValue,
}

/// Messages.
pub enum Msg {
    /// A reducer action as it is.
    Act(Action),
    /// Play: a new game with the script.
    Play,
    /// The game is loaded (or failed).
    Loaded(Result<Rc<Game>, (String, String)>),
    /// One turn (Step).
    Step,
    /// The next turn of Run, on a new task of the event loop.
    Tick,
}

/// The game panel.
pub struct GamePanel {
    state: PlayState,
    game: Option<Rc<Game>>,
}

impl GamePanel {
    fn act(&mut self, a: Action) {
        self.state = std::mem::replace(&mut self.state, PlayState::new(0)).reduce(a);
    }

    fn play_turn(&mut self) {
        let Some(game) = self.game.clone() else { return };
        if !self.state.can_step() {
            return;
        }
        game.set_time_limit(TURN_MS);
        let t = now_ms();
        let result = game.turn().map(|_| ());
        let ms = now_ms() - t;
        let lines = game.log_from(self.state.log.len());
        let snapshot = Snapshot::parse(&game.state_text());
        self.act(Action::Turned { lines, snapshot, result, ms });
    }
}

async fn start(lua: String, seed: u64) -> Result<Rc<Game>, (String, String)> {
    let host = |e: String| ("host".to_string(), e);
    let game = Lua::new().map_err(host)?.game(seed).await.map_err(host)?;
    game.load(&lua)?;
    game.set_time_limit(TURN_MS);
    game.start()?;
    Ok(Rc::new(game))
}

impl Component for GamePanel {
    type Message = Msg;
    type Properties = Props;

    fn create(_: &Context<Self>) -> Self {
        GamePanel { state: PlayState::new(1), game: None }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Act(a) => {
                let reset = a == Action::Reset;
                self.act(a);
                if reset {
                    self.game = None;
                }
            }
            Msg::Play => {
                self.game = None;
                self.act(Action::Load);
                let (lua, seed, link) =
                    (ctx.props().lua.to_string(), self.state.seed, ctx.link().clone());
                wasm_bindgen_futures::spawn_local(async move {
                    link.send_message(Msg::Loaded(start(lua, seed).await));
                });
            }
            Msg::Loaded(Ok(game)) => {
                let lines = game.log_from(0);
                let snapshot = Snapshot::parse(&game.state_text());
                self.game = Some(game);
                self.act(Action::Loaded { lines, snapshot });
            }
            Msg::Loaded(Err((kind, message))) => self.act(Action::Failed(kind, message)),
            Msg::Step => self.play_turn(),
            Msg::Tick => {
                if self.state.phase != Phase::Running {
                    return false;
                }
                self.play_turn();
                if self.state.phase == Phase::Running {
                    let link = ctx.link().clone();
                    wasm_bindgen_futures::spawn_local(async move {
                        yield_now().await;
                        link.send_message(Msg::Tick);
                    });
                }
            }
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let s = &self.state;
        let ready = matches!(s.phase, Phase::Ready) && s.can_step();
        let on_seed = link.batch_callback(|e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            input.value().trim().parse::<u64>().ok().map(|v| Msg::Act(Action::Seed(v)))
        });
        let run = link.batch_callback(|_: MouseEvent| vec![Msg::Act(Action::Run), Msg::Tick]);
        let phase = match &s.phase {
            Phase::Idle => "idle",
            Phase::Loading => "loading",
            Phase::Ready => "ready",
            Phase::Running => "running",
            Phase::Finished => "finished",
            Phase::Stopped { .. } => "stopped",
        };
        let shown = &s.log[s.log.len().saturating_sub(SHOWN_LINES)..];
        let speed = (s.turn > 0).then(|| {
            format!(
                "{} turns in {:.0} ms of Lua ({:.0} turns/s)",
                s.turn,
                s.lua_ms,
                s.turn as f64 * 1000.0 / s.lua_ms.max(1e-3)
            )
        });
        html! {
            <div class="game" id="game" data-phase={phase} data-turn={s.turn.to_string()}>
                <style>{CSS}</style>
                <h2>{"Play it: the dungeon game (real Lua 5.4 in WebAssembly)"}</h2>
                <div class="row">
                    <label>{"seed "}<input id="game-seed" type="number" min="0" value={s.seed.to_string()} onchange={on_seed} disabled={s.phase != Phase::Idle} /></label>
                    <button id="game-play" disabled={matches!(s.phase, Phase::Loading | Phase::Running)} onclick={link.callback(|_| Msg::Play)}>{"Play"}</button>
                    <button id="game-step" disabled={!ready} onclick={link.callback(|_| Msg::Step)}>{"Step"}</button>
                    <button id="game-run" disabled={!ready} onclick={run}>{format!("Run to turn {RUN_TURNS}")}</button>
                    <button id="game-pause" disabled={s.phase != Phase::Running} onclick={link.callback(|_| Msg::Act(Action::Pause))}>{"Pause"}</button>
                    <button id="game-reset" disabled={matches!(s.phase, Phase::Idle | Phase::Loading | Phase::Running)} onclick={link.callback(|_| Msg::Act(Action::Reset))}>{"Reset"}</button>
                    <span id="game-status">{format!("{phase}, turn {}/{RUN_TURNS}", s.turn)}</span>
                    if let Some(sp) = speed { <span id="game-speed" class="muted">{sp}</span> }
                </div>
                if let Some(b) = s.stop_banner() { <p id="game-stopped" class="game-stopped">{b}</p> }
                { for s.snapshot.descriptions.iter().map(|(n, t)| html! { <p class="game-desc"><b>{n.clone()}</b>{": "}{t.clone()}</p> }) }
                if !s.snapshot.actors.is_empty() {
                    <div class="game-actors" id="game-actors">
                        { for s.snapshot.actors.iter().map(|a| {
                            let pct = if a.max_hp > 0.0 { (a.hp / a.max_hp * 100.0).clamp(0.0, 100.0) } else { 0.0 };
                            let color = if a.player { "#2a7" } else if a.team == 1.0 { "#c33" } else { "#c80" };
                            let dead = (a.hp <= 0.0).then_some("game-dead");
                            let shield = if a.shield > 0.0 { format!(" +{} shield", a.shield) } else { String::new() };
                            html! { <>
                                <span class={classes!(dead)}>{a.name.clone()}</span>
                                <div class="game-bar"><div style={format!("width: {pct:.0}%; background: {color}")}></div></div>
                                <span>{format!("{}/{}{shield}", a.hp, a.max_hp)}</span>
                            </> }
                        }) }
                    </div>
                }
                if !s.log.is_empty() {
                    <pre id="game-log" class="plain">{shown.join("\n")}</pre>
                    <pre id="game-log-full" hidden={true}>{s.log.join("\n")}</pre>
                }
            </div>
        }
    }
}

/// The panel for a finished script's Lua translation (the game's scripts: sLua), or
/// nothing; keyed by the translation so a new script starts a new panel.
pub fn game_panel(lua: Option<&str>) -> Html {
    match lua {
        Some(lua) => html! { <GamePanel key={lua.to_owned()} lua={lua.to_owned()} /> },
        None => html! {},
    }
}
