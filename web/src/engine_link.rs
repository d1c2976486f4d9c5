//! The page's end of the engine's worker (`worker.rs`): starts it on this app's own
//! compiled WebAssembly module, forwards the page's requests and hands the worker's
//! reports to the page's reducer. Requests made before the worker is alive wait here.
//!
//! Reports are coalesced: those that arrive within one animation frame go to the
//! reducer together, so the page redraws at most once per frame however fast the
//! worker reports (a model step on the CPU takes ~20-200 ms, loading progress comes
//! in bursts of ~100 messages).

use std::{cell::RefCell, rc::Rc};

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

/// The running worker.
pub struct EngineLink {
    worker: JsValue,
    /// Requests waiting for the worker's `Alive`, then `None`.
    waiting: Rc<RefCell<Option<Vec<String>>>>,
    // The callbacks the worker and the frame timer call; kept as long as the link.
    _on_message: Closure<dyn FnMut(String)>,
    _on_error: Closure<dyn FnMut(String)>,
    _on_frame: Rc<Closure<dyn FnMut()>>,
}

impl EngineLink {
    /// Starts the worker; the reports of each animation frame go to `on_reports`
    /// together, in order (a failure of the worker itself as a failed load).
    pub fn spawn(on_reports: impl Fn(Vec<FromWorker>) + 'static) -> EngineLink {
        let inbox = Rc::new(RefCell::new(Inbox::default()));
        let frame_inbox = inbox.clone();
        let on_frame = Rc::new(Closure::<dyn FnMut()>::new(move || {
            let reports = {
                let mut inbox = frame_inbox.borrow_mut();
                inbox.frame_asked = false;
                std::mem::take(&mut inbox.reports)
            };
            if !reports.is_empty() {
                on_reports(reports);
            }
        }));
        let deliver = {
            let (inbox, on_frame) = (inbox.clone(), on_frame.clone());
            move |report: FromWorker| {
                let mut inbox = inbox.borrow_mut();
                inbox.reports.push(report);
                if !inbox.frame_asked {
                    inbox.frame_asked = true;
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
            (*report)(FromWorker::Loaded(Err(why)))
        });
        let worker = host::spawn_worker(
            &wasm_bindgen::module(),
            on_message.as_ref().unchecked_ref(),
            on_error.as_ref().unchecked_ref(),
        );
        *worker_cell.borrow_mut() = worker.clone();
        EngineLink {
            worker,
            waiting,
            _on_message: on_message,
            _on_error: on_error,
            _on_frame: on_frame,
        }
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
