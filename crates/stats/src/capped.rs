//! A list that keeps the first `cap` items and counts all of them.

/// Keeps at most `cap` items; `total` counts every push.
#[derive(Debug, Clone)]
pub struct Capped<T> {
    cap: usize,
    items: Vec<T>,
    total: u64,
}

impl<T> Capped<T> {
    pub fn new(cap: usize) -> Self {
        Capped {
            cap,
            items: Vec::new(),
            total: 0,
        }
    }

    /// Continue a list that already holds `items` out of `total` pushes (a resumed run).
    pub fn with_prior(cap: usize, mut items: Vec<T>, total: u64) -> Self {
        items.truncate(cap);
        let total = total.max(items.len() as u64);
        Capped { cap, items, total }
    }

    #[inline]
    pub fn push(&mut self, item: T) {
        self.total += 1;
        if self.items.len() < self.cap {
            self.items.push(item);
        }
    }

    pub fn items(&self) -> &[T] {
        &self.items
    }

    pub fn into_items(self) -> Vec<T> {
        self.items
    }

    /// Every item pushed, kept or not.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Items pushed but not kept.
    pub fn dropped(&self) -> u64 {
        self.total - self.items.len() as u64
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn keeps_first_and_counts_rest() {
        let mut c = super::Capped::new(2);
        for i in 0..5 {
            c.push(i);
        }
        assert_eq!(c.items(), &[0, 1]);
        assert_eq!(c.total(), 5);
        assert_eq!(c.dropped(), 3);
    }
}
