//! Reads tests/data/minifloats.txt, XLA's narrow float types as `ml_dtypes` converts them
//! (written by tests/data/minifloats.py, which says what each section means).

/// One type's section of the table.
pub struct Table {
    /// The XLA type name.
    pub name: String,
    /// Bits of one encoding.
    pub bits: u32,
    /// `f32` bits of every encoding.
    pub to_f32: Vec<u32>,
    /// (first pattern, result), ascending; each run ends where the next starts.
    pub runs: Vec<(u32, u8)>,
}

impl Table {
    /// `ml_dtypes`'s encoding of the `f32` with bits `x`.
    pub fn encode(&self, x: u32) -> u8 {
        let i = self.runs.partition_point(|&(start, _)| start <= x);
        self.runs[i - 1].1
    }
}

/// Every section of the table, in its order.
pub fn tables() -> Vec<Table> {
    let text = include_str!("../../data/minifloats.txt");
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let mut tables = Vec::new();
    while let Some(line) = lines.next() {
        let head: Vec<&str> = line.split(' ').collect();
        assert_eq!(head[0], "type", "{line}");
        let to_f32 = lines.next().unwrap().strip_prefix("to_f32 ").unwrap();
        let to_f32 = to_f32.split(' ').map(|h| u32::from_str_radix(h, 16).unwrap()).collect();
        let n: usize = lines.next().unwrap().strip_prefix("from_f32 ").unwrap().parse().unwrap();
        let runs: Vec<(u32, u8)> = (0..n)
            .map(|_| {
                let (start, byte) = lines.next().unwrap().split_once(' ').unwrap();
                (u32::from_str_radix(start, 16).unwrap(), u8::from_str_radix(byte, 16).unwrap())
            })
            .collect();
        assert_eq!(runs[0].0, 0);
        assert!(runs.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 != w[1].1));
        tables.push(Table {
            name: head[1].to_string(),
            bits: head[2].parse().unwrap(),
            to_f32,
            runs,
        });
    }
    tables
}

/// The table of the type XLA names `name`.
pub fn table<'a>(tables: &'a [Table], name: &str) -> &'a Table {
    tables.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no table for {name}"))
}
