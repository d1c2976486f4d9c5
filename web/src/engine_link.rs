//! The page's end of the engine's worker (`worker.rs`): starts it on this app's own
//! compiled WebAssembly module, forwards the page's requests and hands the worker's
//! reports to the page's reducer. Requests made before the worker is alive wait here.
//!
//! Reports are coalesced: those that arrive within one animation frame go to the
//! reducer together, so the page redraws at most once per frame however fast the
//! worker reports (a model step on the CPU takes ~20-200 ms, loading progress comes
//! in bursts of ~100 messages).
//!
//! A worker that crashed is replaced, not repaired: [`EngineLink::terminate`] stops it
//! and silences its link, and the page spawns a new one.

use std::{
    cell::{Cell, RefCell},
    rc::Rc,
};

use wasm_bindgen::{closure::Closure, JsCast, JsValue};

use crate::{
    host,
    protocol::{self, FromWorker, ToWorker},
};

/// Reports received since the last frame, and whether a frame is already asked for.
#[derive(Default)]
struct Inbox {
    reports: Vec<FromWorker>,
    frame_asked: bool,
}

impl Inbox {
    /// Adds a report; true when a frame must be asked for to deliver it.
    fn push(&mut self, report: FromWorker) -> bool {
        self.reports.push(report);
        !std::mem::replace(&mut self.frame_asked, true)
    }
}

/// The running worker.
pub struct EngineLink {
    worker: JsValue,
    /// Requests waiting for the worker's `Alive`, then `None`.
    waiting: Rc<RefCell<Option<Vec<String>>>>,
    /// Set by [`EngineLink::terminate`]: reports still queued or in flight are dropped.
    dead: Rc<Cell<bool>>,
    // The callbacks the worker and the frame timer call; kept as long as the link.
    _on_message: Closure<dyn FnMut(String)>,
    _on_error: Closure<dyn FnMut(String)>,
    _on_frame: Rc<Closure<dyn FnMut()>>,
}

impl EngineLink {
    /// Starts the worker, which sees `search` as the page's URL parameters; the
    /// reports of each animation frame go to `on_reports` together, in order (a failure
    /// of the worker itself as [`FromWorker::Crashed`]).
    pub fn spawn(search: &str, on_reports: impl Fn(Vec<FromWorker>) + 'static) -> EngineLink {
        let inbox = Rc::new(RefCell::new(Inbox::default()));
        let dead = Rc::new(Cell::new(false));
        let (frame_inbox, frame_dead) = (inbox.clone(), dead.clone());
        let on_frame = Rc::new(Closure::<dyn FnMut()>::new(move || {
            let reports = {
                let mut inbox = frame_inbox.borrow_mut();
                inbox.frame_asked = false;
                std::mem::take(&mut inbox.reports)
            };
            if !reports.is_empty() && !frame_dead.get() {
                on_reports(reports);
            }
        }));
        let deliver = {
            let (inbox, on_frame, dead) = (inbox.clone(), on_frame.clone(), dead.clone());
            move |report: FromWorker| {
                if !dead.get() && inbox.borrow_mut().push(report) {
                    host::on_next_frame((*on_frame).as_ref().unchecked_ref());
                }
            }
        };
        let deliver = Rc::new(deliver);
        let waiting = Rc::new(RefCell::new(Some(Vec::<String>::new())));
        let worker_cell: Rc<RefCell<JsValue>> = Rc::new(RefCell::new(JsValue::NULL));
        let (report, queue, cell) = (deliver.clone(), waiting.clone(), worker_cell.clone());
        let on_message = Closure::<dyn FnMut(String)>::new(move |text: String| {
            match protocol::decode::<FromWorker>(&text) {
                Ok(FromWorker::Alive) => {
                    // Send what was asked before the worker could listen.
                    for queued in queue.borrow_mut().take().unwrap_or_default() {
                        host::post_to_worker(&cell.borrow(), &queued);
                    }
                }
                Ok(message) => (*report)(message),
                Err(e) => (*report)(FromWorker::Loaded(Err(e))),
            }
        });
        let report = deliver.clone();
        let on_error = Closure::<dyn FnMut(String)>::new(move |why: String| {
            (*report)(FromWorker::Crashed(why))
        });
        let worker = host::spawn_worker(
            &wasm_bindgen::module(),
            on_message.as_ref().unchecked_ref(),
            on_error.as_ref().unchecked_ref(),
            search,
        );
        *worker_cell.borrow_mut() = worker.clone();
        EngineLink {
            worker,
            waiting,
            dead,
            _on_message: on_message,
            _on_error: on_error,
            _on_frame: on_frame,
        }
    }

    /// Stops the worker and drops whatever it reported that the page has not taken
    /// yet. Its callbacks are leaked, not dropped: a frame timer or a message already
    /// queued may still call them (a dropped closure would throw), and they do
    /// nothing now. A few hundred bytes per restart.
    pub fn terminate(self) {
        self.dead.set(true);
        host::terminate_worker(&self.worker);
        self._on_message.forget();
        self._on_error.forget();
        std::mem::forget(self._on_frame);
    }

    /// Sends a request with a File beside it (queued requests go first; a file is only
    /// picked once the page is ready, long after the worker is alive).
    pub fn send_file(&self, message: &ToWorker, file: &JsValue) {
        host::post_file_to_worker(&self.worker, &protocol::encode(message), file);
    }

    /// Sends a request (queued until the worker is alive).
    pub fn send(&self, message: &ToWorker) {
        let text = protocol::encode(message);
        match self.waiting.borrow_mut().as_mut() {
            Some(queue) => queue.push(text),
            None => host::post_to_worker(&self.worker, &text),
        }
    }
}
