//! Writing masks into caller-owned memory through Python's buffer protocol (NumPy
//! arrays, `bytearray`, `array.array`, a CPU torch tensor's `.numpy()` view), so a
//! decoding step allocates nothing.
//!
//! PyO3 exposes the buffer protocol to abi3 modules only from Python 3.11 on, because
//! `PyObject_GetBuffer` joined the limited API then; the function and the `Py_buffer`
//! layout are the same in every CPython 3 release, so this module declares them itself
//! and the abi3-py39 wheel uses them on 3.9 and 3.10 too.

use std::ffi::{c_char, c_int, c_void, CStr};

use pyo3::ffi;
use pyo3::prelude::*;

use crate::errors::{BufferError, VocabMismatchError};

/// CPython's `Py_buffer` (stable layout since Python 3.0).
#[repr(C)]
struct RawBuffer {
    buf: *mut c_void,
    obj: *mut ffi::PyObject,
    len: ffi::Py_ssize_t,
    itemsize: ffi::Py_ssize_t,
    readonly: c_int,
    ndim: c_int,
    format: *mut c_char,
    shape: *mut ffi::Py_ssize_t,
    strides: *mut ffi::Py_ssize_t,
    suboffsets: *mut ffi::Py_ssize_t,
    internal: *mut c_void,
}

extern "C" {
    fn PyObject_GetBuffer(obj: *mut ffi::PyObject, view: *mut RawBuffer, flags: c_int) -> c_int;
    fn PyBuffer_Release(view: *mut RawBuffer);
}

const PYBUF_WRITABLE: c_int = 0x0001;
const PYBUF_FORMAT: c_int = 0x0004;
const PYBUF_ND: c_int = 0x0008;
const PYBUF_STRIDES: c_int = 0x0010 | PYBUF_ND;
const PYBUF_C_CONTIGUOUS: c_int = 0x0020 | PYBUF_STRIDES;

/// The element types a buffer may hold.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Element {
    /// One byte per token: bool, uint8 or int8 (written as 0 / 1).
    Byte,
    /// A little-endian `float32` (logits).
    F32,
}

/// A writable, C-contiguous view of a Python object's memory, released on drop.
pub struct WritableBuffer {
    view: Box<RawBuffer>,
}

impl WritableBuffer {
    /// Borrows `obj`'s memory as `count` elements of `element`; a clear `BufferError`
    /// for read-only, strided or wrongly typed memory, `VocabMismatchError` for a
    /// wrong length.
    pub fn get(obj: &Bound<'_, PyAny>, element: Element, count: usize, what: &str) -> PyResult<Self> {
        let mut view = Box::new(RawBuffer {
            buf: std::ptr::null_mut(),
            obj: std::ptr::null_mut(),
            len: 0,
            itemsize: 0,
            readonly: 0,
            ndim: 0,
            format: std::ptr::null_mut(),
            shape: std::ptr::null_mut(),
            strides: std::ptr::null_mut(),
            suboffsets: std::ptr::null_mut(),
            internal: std::ptr::null_mut(),
        });
        let flags = PYBUF_WRITABLE | PYBUF_FORMAT | PYBUF_C_CONTIGUOUS;
        // SAFETY: `obj` is a live object (we hold the GIL through `Bound`) and `view`
        // points to a zeroed Py_buffer of CPython's layout.
        if unsafe { PyObject_GetBuffer(obj.as_ptr(), &mut *view, flags) } != 0 {
            let cause = PyErr::take(obj.py()).map(|e| e.to_string()).unwrap_or_default();
            let type_name = obj.get_type().name().map(|n| n.to_string()).unwrap_or_default();
            return Err(BufferError::new_err(format!(
                "{what}: needs a writable C-contiguous buffer (a NumPy array, bytearray...), got {type_name}: {cause}"
            )));
        }
        let buffer = WritableBuffer { view };
        // SAFETY: with PYBUF_FORMAT the exporter sets `format` to a NUL-terminated
        // string or NULL (meaning unsigned bytes).
        let format = if buffer.view.format.is_null() {
            "B".to_string()
        } else {
            unsafe { CStr::from_ptr(buffer.view.format) }.to_string_lossy().into_owned()
        };
        let code = format.trim_start_matches(['@', '=', '<']);
        let ok = match element {
            Element::Byte => buffer.view.itemsize == 1 && matches!(code, "?" | "B" | "b" | "c"),
            Element::F32 => buffer.view.itemsize == 4 && code == "f" && !format.starts_with(['>', '!']),
        };
        if !ok {
            let want = match element {
                Element::Byte => "bool, uint8 or int8",
                Element::F32 => "float32",
            };
            return Err(BufferError::new_err(format!(
                "{what}: needs {want} elements, got format {format:?} of {} bytes each",
                buffer.view.itemsize
            )));
        }
        let items = buffer.view.len as usize / buffer.view.itemsize.max(1) as usize;
        if items != count {
            return Err(VocabMismatchError::new_err(format!(
                "{what}: has {items} elements but the vocabulary has {count} tokens"
            )));
        }
        Ok(buffer)
    }

    /// The memory as bytes (for [`Element::Byte`]).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: the exporter guarantees `len` writable contiguous bytes at `buf` while
        // the view is held; we hold the GIL, so no Python code runs meanwhile.
        unsafe { std::slice::from_raw_parts_mut(self.view.buf as *mut u8, self.view.len as usize) }
    }

    /// The memory as `f32`s (for [`Element::F32`]); `None` when misaligned.
    pub fn f32_mut(&mut self) -> Option<&mut [f32]> {
        if (self.view.buf as usize) % std::mem::align_of::<f32>() != 0 {
            return None;
        }
        // SAFETY: as in `bytes_mut`; the element size (4) and alignment were checked.
        Some(unsafe { std::slice::from_raw_parts_mut(self.view.buf as *mut f32, self.view.len as usize / 4) })
    }
}

impl Drop for WritableBuffer {
    fn drop(&mut self) {
        // SAFETY: the view was filled by a successful PyObject_GetBuffer and is released
        // once; drop runs while the GIL is held (the buffer never leaves a #[pymethods]
        // call).
        unsafe { PyBuffer_Release(&mut *self.view) }
    }
}
