//! Writing masks into caller-owned memory through Python's buffer protocol (NumPy
//! arrays, `bytearray`, `array.array`, a CPU torch tensor's `.numpy()` view), so a
//! decoding step allocates nothing. One-dimensional strided views are written in place
//! too (llama-cpp-python hands its processors the `logit` field of an array of
//! `llama_token_data` records: a float32 view with a 12-byte stride).
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

/// The element types a buffer may hold.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Element {
    /// One byte per token: bool, uint8 or int8 (written as 0 / 1).
    Byte,
    /// A little-endian `float32` (logits).
    F32,
    /// A native `int32` / `uint32` word of 32 tokens (a packed bitmask).
    Word32,
}

/// A writable view of a Python object's memory (C-contiguous, or one-dimensional with
/// any stride), released on drop.
pub struct WritableBuffer {
    view: Box<RawBuffer>,
    /// Bytes from one element to the next.
    stride: isize,
    /// Number of elements.
    count: usize,
}

impl WritableBuffer {
    /// Borrows `obj`'s memory as `count` elements of `element`; a clear `BufferError`
    /// for read-only, wrongly typed or multi-dimensional strided memory,
    /// `VocabMismatchError` for a wrong length.
    pub fn get(
        obj: &Bound<'_, PyAny>,
        element: Element,
        count: usize,
        what: &str,
    ) -> PyResult<Self> {
        let mut buffer = Self::acquire(obj, what)?;
        buffer.check_format(element, what)?;
        buffer.stride = buffer.element_stride(what)?;
        let items = buffer.view.len as usize / buffer.view.itemsize.max(1) as usize;
        if items != count {
            let want = match element {
                Element::Word32 => format!("the vocabulary needs {count} words of 32 tokens"),
                _ => format!("the vocabulary has {count} tokens"),
            };
            return Err(VocabMismatchError::new_err(format!(
                "{what}: has {items} elements but {want}"
            )));
        }
        buffer.count = items;
        Ok(buffer)
    }

    /// Asks `obj` for a writable, strided view with its format (released on drop from
    /// then on); stride and count are not set yet.
    fn acquire(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Self> {
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
        let flags = PYBUF_WRITABLE | PYBUF_FORMAT | PYBUF_STRIDES;
        // SAFETY: `obj` is a live object (we hold the GIL through `Bound`) and `view`
        // points to a zeroed Py_buffer of CPython's layout.
        if unsafe { PyObject_GetBuffer(obj.as_ptr(), &mut *view, flags) } != 0 {
            let cause = PyErr::take(obj.py()).map(|e| e.to_string()).unwrap_or_default();
            let type_name = obj.get_type().name().map(|n| n.to_string()).unwrap_or_default();
            return Err(BufferError::new_err(format!(
                "{what}: needs a writable buffer (a NumPy array, bytearray...), got {type_name}: {cause}"
            )));
        }
        Ok(WritableBuffer { view, stride: 0, count: 0 })
    }

    /// A `BufferError` unless the view's format and item size are `element`'s.
    fn check_format(&self, element: Element, what: &str) -> PyResult<()> {
        // SAFETY: with PYBUF_FORMAT the exporter sets `format` to a NUL-terminated
        // string or NULL (meaning unsigned bytes).
        let format = if self.view.format.is_null() {
            "B".to_string()
        } else {
            unsafe { CStr::from_ptr(self.view.format) }.to_string_lossy().into_owned()
        };
        let code = format.trim_start_matches(['@', '=', '<']);
        let little = !format.starts_with(['>', '!']);
        let ok = match element {
            Element::Byte => self.view.itemsize == 1 && matches!(code, "?" | "B" | "b" | "c"),
            Element::F32 => self.view.itemsize == 4 && code == "f" && little,
            Element::Word32 => self.view.itemsize == 4 && matches!(code, "i" | "I") && little,
        };
        if ok {
            return Ok(());
        }
        let want = match element {
            Element::Byte => "bool, uint8 or int8",
            Element::F32 => "float32",
            Element::Word32 => "int32 or uint32",
        };
        Err(BufferError::new_err(format!(
            "{what}: needs {want} elements, got format {format:?} of {} bytes each",
            self.view.itemsize
        )))
    }

    /// Bytes from one element to the next: the item size for C-contiguous memory, the
    /// one stride of a one-dimensional view; a `BufferError` for other strided memory.
    fn element_stride(&self, what: &str) -> PyResult<isize> {
        let itemsize = self.view.itemsize;
        let ndim = self.view.ndim.max(0) as usize;
        // SAFETY: with PYBUF_STRIDES the exporter fills `shape` and `strides` with
        // `ndim` entries each (both may be NULL only when ndim is 0).
        let (shape, strides): (&[ffi::Py_ssize_t], &[ffi::Py_ssize_t]) =
            if ndim == 0 || self.view.shape.is_null() || self.view.strides.is_null() {
                (&[], &[])
            } else {
                unsafe {
                    (
                        std::slice::from_raw_parts(self.view.shape, ndim),
                        std::slice::from_raw_parts(self.view.strides, ndim),
                    )
                }
            };
        let mut contiguous = true;
        let mut expect = itemsize;
        for (&n, &st) in shape.iter().zip(strides).rev() {
            if n > 1 && st != expect {
                contiguous = false;
            }
            expect *= n;
        }
        if contiguous {
            Ok(itemsize)
        } else if ndim == 1 {
            Ok(strides[0])
        } else {
            Err(BufferError::new_err(format!(
                "{what}: a {ndim}-dimensional strided buffer: pass a contiguous array or a one-dimensional view"
            )))
        }
    }

    /// Writes bit `i` of `words` as byte 0 / 1 into element `i` (for [`Element::Byte`]);
    /// with `invert`, 1 where the bit is clear (a "disallowed" mask, as
    /// `torch.Tensor.masked_fill_` takes it).
    pub fn write_bits(&mut self, words: &[u64], invert: bool) {
        let flip = if invert { u64::MAX } else { 0 };
        if self.stride == 1 {
            // SAFETY: the exporter guarantees `count` writable contiguous bytes at `buf`
            // while the view is held; we hold the GIL, so no Python code runs meanwhile.
            let out =
                unsafe { std::slice::from_raw_parts_mut(self.view.buf as *mut u8, self.count) };
            // Eight bits at a time: each mask byte spread to eight 0 / 1 bytes
            // ([`spread`]), one 8-byte store.
            let mut words64 = out.chunks_exact_mut(64);
            for (chunk, &word) in (&mut words64).zip(words) {
                let word = word ^ flip;
                for (k, dst) in chunk.chunks_exact_mut(8).enumerate() {
                    dst.copy_from_slice(&spread((word >> (8 * k)) as u8).to_le_bytes());
                }
            }
            let done = self.count / 64 * 64;
            for (i, b) in words64.into_remainder().iter_mut().enumerate() {
                let bit = done + i;
                *b = (((words[bit / 64] ^ flip) >> (bit % 64)) & 1) as u8;
            }
            return;
        }
        for i in 0..self.count {
            let bit = (((words[i / 64] ^ flip) >> (i % 64)) & 1) as u8;
            // SAFETY: element `i` of a one-dimensional view lies at `buf + i * stride`
            // (stride may be negative), inside the exporter's memory.
            unsafe { *(self.view.buf as *mut u8).offset(i as isize * self.stride) = bit };
        }
    }

    /// Sets element `i` to -inf wherever bit `i` of `words` is clear (for
    /// [`Element::F32`]); `false` when the memory is misaligned for `f32`.
    pub fn mask_f32(&mut self, words: &[u64]) -> bool {
        if !(self.view.buf as usize).is_multiple_of(std::mem::align_of::<f32>())
            || self.stride % 4 != 0
        {
            return false;
        }
        if self.stride == 4 {
            // SAFETY: the exporter guarantees `count` writable contiguous, aligned (checked
            // above) floats at `buf` while the view is held; we hold the GIL.
            let out =
                unsafe { std::slice::from_raw_parts_mut(self.view.buf as *mut f32, self.count) };
            // Per 64 tokens, then per 8: whole runs kept or cleared at once (the
            // usual case: masks are mostly open or mostly closed), single tokens
            // otherwise.
            for (chunk, &word) in out.chunks_mut(64).zip(words) {
                if word == u64::MAX {
                    continue;
                }
                for (k, lane) in chunk.chunks_mut(8).enumerate() {
                    let b = (word >> (8 * k)) as u8;
                    match b {
                        0xff => {}
                        0 => lane.fill(f32::NEG_INFINITY),
                        _ => {
                            for (j, x) in lane.iter_mut().enumerate() {
                                if (b >> j) & 1 == 0 {
                                    *x = f32::NEG_INFINITY;
                                }
                            }
                        }
                    }
                }
            }
            return true;
        }
        let step = self.stride / 4;
        let base = self.view.buf as *mut f32;
        for (w, &word) in words.iter().enumerate() {
            if word == u64::MAX {
                continue;
            }
            let end = ((w + 1) * 64).min(self.count);
            for i in w * 64..end {
                if (word >> (i % 64)) & 1 == 0 {
                    // SAFETY: element `i` of a one-dimensional view lies at
                    // `buf + i * stride`, inside the exporter's memory; alignment and
                    // element size were checked.
                    unsafe { *base.offset(i as isize * step) = f32::NEG_INFINITY };
                }
            }
        }
        true
    }
}

impl WritableBuffer {
    /// Writes `words` as 32-bit words, low half first (token `i` is bit `i % 32` of
    /// word `i / 32`: the packed bitmask of llguidance and XGrammar, which vLLM and
    /// SGLang apply on the GPU); `false` when the memory is misaligned or strided.
    pub fn write_words32(&mut self, words: &[u64]) -> bool {
        if !(self.view.buf as usize).is_multiple_of(std::mem::align_of::<u32>()) || self.stride != 4
        {
            return false;
        }
        // SAFETY: `count` writable, contiguous, aligned (checked above) 32-bit words at
        // `buf` while the view is held; we hold the GIL.
        let out = unsafe { std::slice::from_raw_parts_mut(self.view.buf as *mut u32, self.count) };
        for (k, w) in out.iter_mut().enumerate() {
            *w = (words[k / 2] >> (32 * (k % 2))) as u32;
        }
        true
    }
}

/// The eight bits of `b` as eight bytes 0 / 1, bit `k` in byte `k` (little-endian).
#[inline]
fn spread(b: u8) -> u64 {
    // Replicate the byte, keep bit k in byte k (a value 0 or 2^k <= 0x80), then add
    // 0x7f per byte (no carry crosses a byte): bit 7 of byte k is set iff bit k of b.
    let x = (b as u64).wrapping_mul(0x0101_0101_0101_0101) & 0x8040_2010_0804_0201;
    ((x + 0x7f7f_7f7f_7f7f_7f7f) >> 7) & 0x0101_0101_0101_0101
}

impl Drop for WritableBuffer {
    fn drop(&mut self) {
        // SAFETY: the view was filled by a successful PyObject_GetBuffer and is released
        // once; drop runs while the GIL is held (the buffer never leaves a #[pymethods]
        // call).
        unsafe { PyBuffer_Release(&mut *self.view) }
    }
}
