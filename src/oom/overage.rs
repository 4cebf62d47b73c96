//! The padding of a report's entries held against what its program is over capacity by:
//! where padding is a large share of the memory the entries list, whether it is more or less
//! than the overage says how much a better layout could matter. Both said in words, once,
//! for the command's table and the HTML view.

use super::report::{OomReport, Totals};

impl OomReport {
    /// `(padding, over)`: the bytes of padding in the listed entries (exact, from their
    /// shapes) and what the program is over capacity by (`Exceeded hbm capacity by`, else
    /// `Used X of Y` less its capacity, as printed), when the padding is at least a quarter
    /// of the bytes the entries list. `None` for a smaller share, or a report that gives no
    /// overage (XLA:GPU's, the runtime's).
    ///
    /// ```
    /// use xlayout::oom::OomReport;
    /// // 32.00G listed, of which 31.00G padding (s32[...,4] in 128-wide tiles); 25.74G over.
    /// let r = OomReport::parse("Ran out of memory in memory space hbm. Used 41.74G of 16.00G hbm. Exceeded hbm capacity by 25.74G.\n  1. Size: 32.00G\n     Shape: s32[8388608,8,4]{2,1,0:T(8,128)}\n");
    /// let (padding, over) = r.padding_against_overage().unwrap();
    /// assert_eq!((padding, over), (31 << 30, 27_638_114_549)); // 25.74 x 2^30, as printed
    /// ```
    pub fn padding_against_overage(&self) -> Option<(u64, u64)> {
        let sizes = &self.totals.sizes;
        let padding = sizes.padding_bytes();
        if padding == 0 || padding.saturating_mul(4) < sizes.array_bytes {
            return None;
        }
        let printed = |p: &Option<super::Printed>| p.as_ref().and_then(|p| p.bytes);
        let over = printed(&self.exceeded).or_else(|| {
            let (used, capacity) = (printed(&self.used)?, printed(&self.capacity)?);
            used.checked_sub(capacity).filter(|&o| o > 0)
        })?;
        Some((padding, over))
    }
}

impl Totals {
    /// The entries added up, in words, each size as `size` prints it: the line under the
    /// command's header, and the HTML view's. `>=` marks sums that saturated.
    ///
    /// ```
    /// use xlayout::hlo::units::oom_bytes;
    /// let r = xlayout::oom::OomReport::parse("1. Size: 512B\n   Shape: f32[10]{0:T(128)}\n");
    /// assert_eq!(r.totals.sentence(oom_bytes), "1 entry (1 with a readable shape, 1 agreeing with it): 512B listed, 40B of data, 472B padding (92.2% of it)");
    /// ```
    pub fn sentence(&self, size: impl Fn(u64) -> String) -> String {
        let at_least = if self.saturated { ">=" } else { "" };
        let padding = match self.saturated {
            true => String::from("padding not known"),
            false => format!("{} padding", size(self.sizes.padding_bytes())),
        };
        let share =
            self.padding_percent.as_ref().map_or_else(String::new, |p| format!(" ({p}% of it)"));
        format!(
            "{} {} ({} with a readable shape, {} agreeing with it): {at_least}{} listed, \
             {at_least}{} of data, {padding}{share}",
            self.entries,
            if self.entries == 1 { "entry" } else { "entries" },
            self.recomputed,
            self.agreeing,
            size(self.sizes.array_bytes),
            size(self.sizes.logical_bytes),
        )
    }
}

impl OomReport {
    /// [`padding_against_overage`](OomReport::padding_against_overage) in words, each size as
    /// `size` prints it.
    ///
    /// ```
    /// use xlayout::hlo::units::oom_bytes;
    /// let r = xlayout::oom::OomReport::parse("Ran out of memory in memory space hbm. Used 41.74G of 16.00G hbm. Exceeded hbm capacity by 25.74G.\n  1. Size: 32.00G\n     Shape: s32[8388608,8,4]{2,1,0:T(8,128)}\n");
    /// assert_eq!(r.overage_sentence(oom_bytes).unwrap(), "31.00G of padding; the program is 25.74G over: the padding is more than the overage");
    /// ```
    pub fn overage_sentence(&self, size: impl Fn(u64) -> String) -> Option<String> {
        let (padding, over) = self.padding_against_overage()?;
        let more = if padding >= over { ": the padding is more than the overage" } else { "" };
        Some(format!("{} of padding; the program is {} over{more}", size(padding), size(over)))
    }
}
