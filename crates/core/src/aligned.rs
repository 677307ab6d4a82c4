//! I/O buffers aligned for O_DIRECT, one per command slot, in one allocation.
//!
//! A leaf: the engine, the targets and the safety gate (which reads a device's first sectors)
//! all use it, and it uses none of them.

use std::alloc::{alloc_zeroed, dealloc, Layout};

/// `count` buffers of `size` bytes, each aligned to `align`.
pub struct AlignedBuffers {
    ptr: *mut u8,
    layout: Layout,
    size: usize,
    count: usize,
}

// SAFETY: the buffers are plain memory owned by this value.
unsafe impl Send for AlignedBuffers {}

impl AlignedBuffers {
    pub fn new(count: usize, size: usize, align: usize) -> Self {
        let size = size.max(1).next_multiple_of(align);
        let layout = Layout::from_size_align(size * count.max(1), align).expect("buffer layout");
        // SAFETY: layout has non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        AlignedBuffers {
            ptr,
            layout,
            size,
            count,
        }
    }

    pub fn count(&self) -> usize {
        self.count
    }

    pub fn size(&self) -> usize {
        self.size
    }

    /// Pointer to buffer `i`.
    #[inline]
    pub fn ptr(&self, i: usize) -> *mut u8 {
        assert!(i < self.count);
        // SAFETY: in bounds of the allocation.
        unsafe { self.ptr.add(i * self.size) }
    }

    /// Buffer `i` as a mutable slice.
    pub fn slice_mut(&mut self, i: usize) -> &mut [u8] {
        // SAFETY: in bounds, exclusively borrowed through &mut self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr(i), self.size) }
    }

    /// Buffer `i` as a slice.
    pub fn slice(&self, i: usize) -> &[u8] {
        // SAFETY: in bounds; no mutable borrow can exist while &self is held.
        unsafe { std::slice::from_raw_parts(self.ptr(i), self.size) }
    }

    /// iovecs for registering with io_uring.
    pub fn iovecs(&self) -> Vec<libc::iovec> {
        (0..self.count)
            .map(|i| libc::iovec {
                iov_base: self.ptr(i) as *mut libc::c_void,
                iov_len: self.size,
            })
            .collect()
    }
}

impl Drop for AlignedBuffers {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout in new().
        unsafe { dealloc(self.ptr, self.layout) }
    }
}
