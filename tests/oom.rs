//! The OOM report reader on report texts in every form the issue lists
//! (tests/data/oom/*.txt): log prefixes on every line or only the first, old and new
//! headers, an `E1000:` prefix, HBM and VMEM, entries with and without `Operator:` lines,
//! labels cut short, old `%name = shape op(...)` and new `name = op(...)` labels, Windows
//! line ends, XLA:GPU's `Peak buffers`, and entries that cannot be read.
//!
//! Each entry's printed fields and recomputed numbers are checked exactly. The five
//! public shapes of the `xlayout hlo` issue are checked against XLA's own `ArraySize`
//! (tests/data/hlo/xla_sizes.json); other sizes are derived in the comments.

use serde_json::Value;
use xlayout::oom::{Entry, Kind, OomReport, Printed, Problem};

fn report(name: &str) -> OomReport {
    let path = format!("{}/tests/data/oom/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    OomReport::parse(&text)
}

/// XLA's `ShapeUtil::ArraySize` of `shape`, from xla_sizes.json.
fn xla_array_size(shape: &str) -> u64 {
    let path = format!("{}/tests/data/hlo/xla_sizes.json", env!("CARGO_MANIFEST_DIR"));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let case = v["cases"].as_array().unwrap().iter().find(|c| c["shape"] == shape);
    case.unwrap_or_else(|| panic!("{shape} is not in xla_sizes.json"))["array_size"]
        .as_u64()
        .unwrap()
}

/// An entry's fields in one line: number, memory space, printed size / unpadded /
/// padding / expansion, shape, exact size and data, expansion, agreement, inferred
/// tiling, instruction, opcode, op_name, source, causes, better layout.
fn describe(r: &OomReport, e: &Entry) -> String {
    let p =
        |x: &Option<xlayout::oom::Printed>| x.as_ref().map_or("-".to_string(), |p| p.text.clone());
    let o = |x: &Option<String>| x.clone().unwrap_or_else(|| "-".into());
    let computed = match &e.recomputed {
        Some(x) => format!(
            "{} {} x{} agrees={} tiling={} causes=[{}] best={}",
            x.sizes.array_bytes,
            x.sizes.logical_bytes,
            x.expansion.map_or_else(|| "-".to_string(), |e| e.to_string()),
            if x.agrees.all() { "yes" } else { "no" },
            o(&x.inferred_tiling),
            x.causes.iter().map(|c| c.to_string()).collect::<Vec<_>>().join("; "),
            x.best_layout
                .as_ref()
                .map_or("-".to_string(), |b| format!("{}={}", b.layout, b.array_bytes)),
        ),
        None => "-".into(),
    };
    format!(
        "{} {} {}/{}/{}/{} {} {} ins={} op={} op_name={} src={} cut={}",
        e.number,
        o(&e.memory_space.map(|k| r.memory_spaces[k as usize].clone())),
        p(&e.size),
        p(&e.unpadded),
        p(&e.padding),
        o(&e.printed_expansion),
        o(&e.shape),
        computed,
        o(&e.instruction),
        o(&e.opcode),
        o(&e.op_name),
        o(&e.source),
        e.label_truncated,
    )
}

fn lines(r: &OomReport) -> Vec<String> {
    r.entries.iter().map(|e| describe(r, e)).collect()
}

/// A 2019 report: glog's prefix on its first line, the old `HLO temp` form without
/// `Unpadded (...) Padded (...)`, `Operator:` lines with `op_type`, old labels.
#[test]
fn old_report_with_a_glog_prefix() {
    let r = report("tpu_2019_glog.txt");
    assert_eq!(
        (r.kind, r.memory_space.as_deref(), r.error_code.as_deref()),
        (Kind::Tpu, Some("hbm"), None)
    );
    fn t(p: &Option<xlayout::oom::Printed>) -> Option<(&str, Option<u64>)> {
        p.as_ref().map(|p| (p.text.as_str(), p.bytes))
    }
    // Printed sizes read as typed: 41.74G is 41 GiB and 74/100 of one, 44817983733 bytes.
    assert_eq!(t(&r.used), Some(("41.74G", Some(44_817_983_733))));
    assert_eq!(
        (t(&r.capacity), t(&r.exceeded)),
        (Some(("16.00G", Some(16 << 30))), Some(("25.74G", Some(27_638_114_549))))
    );
    let parts: Vec<(&str, &str)> =
        r.usage.iter().map(|p| (p.name.as_str(), p.size.text.as_str())).collect();
    assert_eq!(
        parts,
        [("reserved", "528.00M"), ("program", "41.22G"), ("arguments", "unknown size")]
    );
    assert_eq!(r.usage[2].size.bytes, None);
    let parts: Vec<(&str, &str)> =
        r.requirement.iter().map(|p| (p.name.as_str(), p.size.text.as_str())).collect();
    assert_eq!(parts, [("reserved", "4.0K"), ("global", "29.82M"), ("HLO temp", "41.19G")]);
    let h = r.hlo_temp.as_ref().unwrap();
    assert_eq!((h.utilization.as_deref(), h.fragmentation.as_deref()), (Some("24.2"), Some("0.7")));
    assert_eq!(
        (
            h.unpadded.as_ref(),
            h.utilization_recomputed.map(|p| p.to_string()).as_deref(),
            h.utilization_agrees
        ),
        (None, None, None)
    );
    // Entry 2: s32[8388608,8,4]{0,2,1:T(4,128)}: physical order 8, 4, 8388608; the tile
    // (4,128) covers 4 and 8388608 exactly: 2^30 bytes, no padding. Entry 3: f32[1024,245,64]
    // {1,2,0:T(8,128)}: physical 1024, 64, 245; 245 -> 256: 1024x64x256x4 = 67108864 for
    // 64225280 of data, 1.045x, which the report prints as 1.0x.
    assert_eq!(xla_array_size("s32[8388608,8,4]{2,1,0:T(8,128)}"), 34_359_738_368);
    assert_eq!(
        lines(&r),
        [
            "1 hbm 32.00G/1.00G/31.00G/32.0 s32[8388608,8,4]{2,1,0:T(8,128)} 34359738368 1073741824 x32.0 agrees=yes tiling=- causes=[d2 4 -> 128 (x32.0)] best={0,1,2:T(8,128)}=1073741824 ins=copy.40488 op=copy op_name=slicewise_79/cic_update/FloorMod src=- cut=false",
            "2 hbm 1.00G/1.00G/-/- s32[8388608,8,4]{0,2,1:T(4,128)} 1073741824 1073741824 x1.00 agrees=yes tiling=- causes=[] best=- ins=get-tuple-element.32429 op=get-tuple-element op_name=slicewise_79/cic_update/FloorMod src=- cut=false",
            "3 hbm 64.00M/61.25M/2.75M/1.0 f32[1024,245,64]{1,2,0:T(8,128)} 67108864 64225280 x1.04 agrees=yes tiling=- causes=[d1 245 -> 256 (x1.04)] best=- ins=broadcast.82209 op=broadcast op_name=jit(apply_fn)/scan/while/body/broadcast_in_dim src=/usr/local/lib/python3.7/dist-packages/alphafold/model/mapping.py:177 cut=true",
        ]
    );
    let x = r.entries[2].recomputed.as_ref().unwrap();
    assert_eq!((x.expansion_one_decimal.as_deref(), x.agrees.expansion), (Some("1.0"), Some(true)));
    let totals = &r.totals;
    assert_eq!((totals.entries, totals.recomputed, totals.agreeing), (3, 3, 3));
    assert_eq!(totals.sizes.array_bytes, 34_359_738_368 + 1_073_741_824 + 67_108_864);
    assert_eq!(totals.sizes.logical_bytes, 1_073_741_824 * 2 + 64_225_280);
    // 33288880128 of 35500589056 bytes are padding: 93.77%.
    assert_eq!(
        (
            totals.padding_percent.map(|p| p.to_string()).as_deref(),
            totals.utilization_percent.map(|p| p.to_string()).as_deref()
        ),
        (Some("93.8"), Some("6.2"))
    );
    assert!(r.problems.is_empty());
}

/// A 2020 report logged by TensorFlow's logger: a prefix on every line, labels cut short.
#[test]
fn every_line_logged_and_labels_cut_short() {
    let r = report("tpu_2020_logged.txt");
    assert_eq!(r.memory_space.as_deref(), Some("hbm"));
    assert_eq!(xla_array_size("u32[12582912,1]{1,0:T(8,128)}"), 6_442_450_944);
    assert_eq!(
        lines(&r),
        [
            "1 hbm 6.00G/48.00M/5.95G/128.0 u32[12582912,1]{1,0:T(8,128)} 6442450944 50331648 x128 agrees=yes tiling=- causes=[d1 1 -> 128 (x128)] best={0,1:T(8,128)}=402653184 ins=fusion.47701.remat4 op=fusion op_name=- src=- cut=true",
            "2 hbm 6.00G/48.00M/5.95G/128.0 u32[12582912,1]{1,0:T(8,128)} 6442450944 50331648 x128 agrees=yes tiling=- causes=[d1 1 -> 128 (x128)] best={0,1:T(8,128)}=402653184 ins=fusion.44044.remat4 op=fusion op_name=- src=- cut=true",
        ]
    );
    // Unpadded 913.16M over Padded 24.39G is 3.66%, printed 3.7%.
    let h = r.hlo_temp.as_ref().unwrap();
    assert_eq!(
        (h.utilization_recomputed.map(|p| p.to_string()).as_deref(), h.utilization_agrees),
        (Some("3.7"), Some(true))
    );
    assert!(r.problems.is_empty());
}

/// A 2024 report: the new label form `name = opcode(...)`, no `Operator:` lines, and the
/// header's `Unpadded (9.40G) Padded (15.44G)`: 60.88%, printed 60.9%.
#[test]
fn new_labels_without_operator_lines() {
    let r = report("tpu_2024_new_labels.txt");
    let shape = "bf16[2048,1,2048,128]{0,1,3,2:T(4,128)(2,1)}";
    assert_eq!(xla_array_size(shape), 4_294_967_296);
    assert_eq!(xla_array_size("bf16[2048,1,2048,128]{3,2,1,0:T(8,128)(2,1)}"), 1_073_741_824);
    let line = |n: u64, name: &str| {
        format!("{n} hbm 4.00G/1.00G/3.00G/4.0 {shape} 4294967296 1073741824 x4.00 agrees=yes tiling=- causes=[d1 1 -> 4 (x4.00)] best={{0,3,1,2:T(4,128)(2,1)}}=1073741824 ins={name} op=broadcast op_name=- src=- cut=false")
    };
    assert_eq!(lines(&r), [line(1, "broadcast.6042.remat3"), line(2, "broadcast.6043.remat3")]);
    let h = r.hlo_temp.as_ref().unwrap();
    assert_eq!(
        (h.unpadded.as_ref().unwrap().text.as_str(), h.padded.as_ref().unwrap().text.as_str()),
        ("9.40G", "15.44G")
    );
    assert_eq!(
        (
            h.utilization.as_deref(),
            h.utilization_recomputed.map(|p| p.to_string()).as_deref(),
            h.utilization_agrees
        ),
        (Some("60.9"), Some("60.9"), Some(true))
    );
    assert_eq!(
        (h.fragmentation.as_deref(), h.fragmentation_size.as_ref().map(|p| p.text.as_str())),
        (Some("0.0"), Some("5.52M"))
    );
    assert_eq!(
        (
            r.totals.padding_percent.map(|p| p.to_string()).as_deref(),
            r.totals.utilization_percent.map(|p| p.to_string()).as_deref()
        ),
        (Some("75.0"), Some("25.0"))
    );
}

/// `E1000:` before the message, Windows line ends, `Operator:` lines with source lines,
/// `E(32)` widening (all of the padding, none of it tiling) and the layout issue 12 asks
/// for.
#[test]
fn error_code_and_windows_line_ends() {
    let r = report("e1000_crlf.txt");
    assert_eq!(
        (r.kind, r.error_code.as_deref(), r.memory_space.as_deref()),
        (Kind::Tpu, Some("E1000"), Some("hbm"))
    );
    assert_eq!(xla_array_size("pred[64,512,2048]{2,1,0:T(8,128)E(32)}"), 268_435_456);
    assert_eq!(xla_array_size("bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}"), 5_242_880);
    assert_eq!(xla_array_size("bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}"), 1_638_400);
    assert_eq!(
        lines(&r),
        [
            "1 hbm 256.00M/64.00M/192.00M/4.0 pred[64,512,2048]{2,1,0:T(8,128)E(32)} 268435456 67108864 x4.00 agrees=yes tiling=- causes=[E(32) 8 -> 32 bits (x4.00)] best=- ins=lt.17 op=compare op_name=jit(train_step)/jit(main)/attention/lt src=/srv/model/attention.py:88 cut=true",
            "2 hbm 5.00M/1.56M/3.44M/3.2 bf16[16,1280,40]{2,1,0:T(8,128)(2,1)} 5242880 1638400 x3.20 agrees=yes tiling=- causes=[d2 40 -> 128 (x3.20)] best={1,2,0:T(8,128)(2,1)}=1638400 ins=convolution.5 op=convolution op_name=jit(train_step)/jit(main)/dense/dot_general src=/srv/model/attention.py:97 cut=false",
        ]
    );
    let pred = r.entries[0].recomputed.as_ref().unwrap().sizes;
    assert_eq!((pred.widening_bytes, pred.tiling_padding_bytes), (201_326_592, 0));
    // 17.27G / 17.52G = 98.57%, printed 98.6%.
    let h = r.hlo_temp.as_ref().unwrap();
    assert_eq!(
        (h.utilization_recomputed.map(|p| p.to_string()).as_deref(), h.utilization_agrees),
        (Some("98.6"), Some(true))
    );
    let usage: Vec<(&str, Option<u64>)> =
        r.usage.iter().map(|p| (p.name.as_str(), p.size.bytes)).collect();
    assert_eq!(
        usage,
        [("reserved", Some(512 << 20)), ("program", Some(19_080_392_212)), ("arguments", Some(0))]
    );
}

/// VMEM, shapes printed without tiles: the TPU default tiling that gives the printed
/// size is inferred (and said to be). Entry 1: bf16 untiled is 1638400 = 1.56M, with
/// (8,128)(2,1) 5242880 = 5.00M. Entry 2: f32[256,1000] untiled 1024000 = 1000.0K, with
/// (8,128) 256x1024x4 = 1.00M. Entry 3: s8[1024,100] untiled 100.0K, with (8,128)(4,1)
/// 1024x128 = 128.0K. Entry 4: f64 has no default tiling here and 800000 = 781.2K is not
/// the printed 1.00M: it does not agree.
#[test]
fn untiled_shapes_get_an_inferred_tiling() {
    let r = report("vmem_untiled.txt");
    assert_eq!(r.memory_space.as_deref(), Some("vmem"));
    assert_eq!(
        lines(&r),
        [
            "1 vmem 5.00M/1.56M/3.44M/3.2 bf16[16,1280,40]{2,1,0} 5242880 1638400 x3.20 agrees=yes tiling=(8,128)(2,1) causes=[d2 40 -> 128 (x3.20)] best={1,2,0:T(8,128)(2,1)}=1638400 ins=fusion.3 op=fusion op_name=- src=- cut=false",
            "2 vmem 1.00M/1000.0K/24.0K/1.0 f32[256,1000]{1,0} 1048576 1024000 x1.02 agrees=yes tiling=(8,128) causes=[d1 1000 -> 1024 (x1.02)] best=- ins=- op=- op_name=- src=- cut=false",
            "3 vmem 128.0K/100.0K/28.0K/1.3 s8[1024,100]{1,0} 131072 102400 x1.28 agrees=yes tiling=(8,128)(4,1) causes=[d1 100 -> 128 (x1.28)] best={0,1:T(8,128)(4,1)}=106496 ins=- op=- op_name=- src=- cut=false",
            "4 vmem 1.00M/781.2K/-/- f64[1000,100]{1,0} 800000 800000 x1.00 agrees=no tiling=- causes=[] best=- ins=- op=- op_name=- src=- cut=false",
        ]
    );
    let x = r.entries[3].recomputed.as_ref().unwrap();
    assert_eq!(
        (x.agrees.size, x.agrees.unpadded, x.expected.size.as_str()),
        (Some(false), Some(true), "781.2K")
    );
    assert_eq!(
        r.entries[0].recomputed.as_ref().unwrap().shape,
        "bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}"
    );
    assert_eq!((r.totals.agreeing, r.totals.recomputed), (3, 4));
}

/// XLA:GPU's `BufferAssignment OOM Debugging ... Peak buffers`: `Buffer N:`, tabs, sizes
/// in `GiB`, entry parameters with a subshape, a tuple whose buffer is its index table.
/// f32[5104,257152]: 5104x257152x4 = 5250015232 = 4.89GiB; f16[2048,257152]: 1053294592 = 1004.50MiB;
/// f32[16,319,2048]: 41811968 = 39.875MiB, printed 39.88MiB; the tuple: 2 pointers, 16B;
/// bf16[1048577]: 2097154 = 2.0000019MiB, printed 2.00MiB.
#[test]
fn xla_gpu_peak_buffers() {
    let r = report("gpu_peak_buffers.txt");
    assert_eq!((r.kind, r.memory_space.as_deref()), (Kind::Gpu, None));
    assert_eq!(r.allocating.as_ref().unwrap().bytes, Some(2_110_783_616));
    let stats: Vec<(&str, &str)> =
        r.stats.iter().map(|p| (p.name.as_str(), p.size.text.as_str())).collect();
    assert_eq!(
        stats,
        [
            ("parameter allocation", "1.02GiB"),
            ("constant allocation", "0B"),
            ("maybe_live_out allocation", "4.89GiB"),
            ("preallocated temp allocation", "1.97GiB"),
            ("preallocated temp fragmentation", "0B"),
            ("total allocation", "7.88GiB"),
            ("total fragmentation", "112B"),
        ]
    );
    assert_eq!(r.stats[6].note.as_deref(), Some("(0.00%)"));
    let op = "op_name=jit(step)/jit(main)/decode/dot_general src=/srv/model/decode.py:175";
    assert_eq!(
        lines(&r),
        [
            format!("1 - 4.89GiB/-/-/- f32[5104,257152] 5250015232 5250015232 x1.00 agrees=yes tiling=- causes=[] best=- ins=- op=custom-call {op} cut=false"),
            "2 - 1004.50MiB/-/-/- f16[2048,257152] 1053294592 1053294592 x1.00 agrees=yes tiling=- causes=[] best=- ins=- op=- op_name=- src=- cut=false".to_string(),
            "3 - 39.88MiB/-/-/- f32[16,319,2048] 41811968 41811968 x1.00 agrees=yes tiling=- causes=[] best=- ins=- op=- op_name=- src=- cut=false".to_string(),
            format!("4 - 16B/-/-/- (f32[5104,257152], s8[4194304]) 16 16 x1.00 agrees=yes tiling=- causes=[] best=- ins=- op=custom-call {op} cut=false"),
            "5 - 2.00MiB/-/-/- bf16[1048577] 2097154 2097154 x1.00 agrees=yes tiling=- causes=[] best=- ins=- op=fusion op_name=jit(step)/jit(main)/embed/convert_element_type src=/srv/model/decode.py:12 cut=false".to_string(),
        ]
    );
}

/// Entries that cannot be read are reported with their number; the rest is read.
#[test]
fn unreadable_entries_are_reported_with_their_numbers() {
    let r = report("problems.txt");
    let problems: Vec<(usize, Option<u64>, &str)> =
        r.problems.iter().map(|p: &Problem| (p.line, p.entry, p.message.as_str())).collect();
    assert_eq!(
        problems,
        [
            (3, Some(1), "entry 1: `lots` is not a size; entry left out"),
            (6, Some(2), "entry 2: shape `f32[8,128]{1,0:T(0,128)}` not read: layout has invalid tiles: tile dimension 0 must be positive or kCombineDimension: f32[8,128] (entry 0 of tile 0 is 0; a tile entry is a positive size or `*`)"),
            (8, Some(2), "entry 2: unreadable line: `Mystery line without a key`"),
            (15, Some(4), "entry 4: shape not read: no shape printed"),
            (17, Some(5), "entry 5: shape `f32[?]` not read: dimension 0 is unbounded `?`: only static and bounded (`<=N`) dimensions have a size and an index space"),
        ]
    );
    let numbers: Vec<u64> = r.entries.iter().map(|e| e.number).collect();
    assert_eq!(numbers, [2, 3, 4, 5]);
    assert!(r.entries[1].recomputed.as_ref().unwrap().agrees.all());
    assert_eq!((r.totals.entries, r.totals.recomputed), (4, 1));
}

/// Hostile text: no panic, time linear in the text.
#[test]
fn hostile_text_is_ordinary_text() {
    let cases = [
        String::new(),
        "\r\n\r\n".into(),
        "1. Size:".into(),
        "Buffer 99999999999999999999999:".into(),
        "Ran out of memory in memory space ".into(),
        "Ran out of memory in memory space hbm. Used".into(),
        "  1. Size: 1.00G\n     Shape: ((((((((f32[1]))))))))\n".into(),
        "  1. Size: 16.00E\n     Shape: f32[4294967296,4294967296]{1,0:T(8,128)}\n".into(),
        format!("  1. Size: 1.00G\n     XLA label: {}\n", "(".repeat(100_000)),
        format!(
            "  1. Size: 1.00G\n     Shape: {}f32[2]{}\n",
            "(".repeat(10_000),
            ")".repeat(10_000)
        ),
        "HLO temp 1.00G (".into(),
        "Program hbm requirement 1G:\n    HLO temp 1.00G (5% utilization: Unpadded (".into(),
        "2020-01-01 00:00:00: E 1 x.cc:1] ".repeat(1000),
    ];
    for text in &cases {
        let _ = OomReport::parse(text);
    }
    // Many entries: each read once.
    let one = "  7. Size: 4.00G\n     Shape: bf16[2048,1,2048,128]{0,1,3,2:T(4,128)(2,1)}\n     Unpadded size: 1.00G\n     ==========================\n";
    let r = OomReport::parse(&one.repeat(2000));
    assert_eq!(r.entries.len(), 2000);
    assert!(r.entries.iter().all(|e| e.recomputed.as_ref().is_some_and(|x| x.agrees.all())));
}

/// Every report cut short at every byte: no panic.
#[test]
fn reports_cut_anywhere_read() {
    let dir = format!("{}/tests/data/oom", env!("CARGO_MANIFEST_DIR"));
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for cut in (0..=text.len()).filter(|&c| text.is_char_boundary(c)) {
            let r = OomReport::parse(&text[..cut]);
            assert!(r.entries.len() <= 5);
        }
    }
}

/// Every committed report, with a prefix a logger of its own put before every line (a
/// fixed one, or glog's time and thread without a file; or one that differs from line to
/// line in its digits and colour codes: a Ray worker's, with and without its escape
/// characters, a line number before it, nothing after it on a blank line), reads as it does
/// without: the same entries, header figures and problems. And pasted as a JSON string,
/// the same entries.
#[test]
fn committed_reports_read_the_same_under_a_foreign_prefix() {
    let dir = format!("{}/tests/data/oom", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        // gpu_ray_worker_copied.txt is gpu_peak_buffers.txt under a prefix already (and its
        // first line a logger's line in it: under glog's time too, that line would be all
        // logger prefix), read in a_ray_worker_log_copied_from_an_issue_thread.
        .filter(|n| {
            n.ends_with(".txt")
                && !["tpu_2024_module.txt", "gpu_ray_worker_copied.txt"].contains(&n.as_str())
        })
        .collect();
    names.sort();
    assert!(names.len() >= 8, "{names:?}");
    for name in &names {
        let text = String::from_utf8(std::fs::read(format!("{dir}/{name}")).unwrap()).unwrap();
        let plain = serde_json::to_value(OomReport::parse(&text)).unwrap();
        assert!(plain["missing"].is_null(), "{name}: {}", plain["missing"]);
        for prefix in ["[worker-3] ", "E0412 10:11:12.345678 140234 ", "host-7 | "] {
            let prefixed: String =
                text.split_inclusive('\n').map(|l| format!("{prefix}{l}")).collect();
            let r = serde_json::to_value(OomReport::parse(&prefixed)).unwrap();
            assert_eq!(r, plain, "{name} with {prefix:?} on every line");
        }
        // Ray's `(MeshHostWorker pid=489) ` in dim cyan or yellow (escapes kept, or lost by
        // a copy from a web page, which keeps the view's line numbers instead).
        let ray: [fn(usize) -> String; 2] = [
            |n| format!("\x1b[2m\x1b[3{}m(MeshHostWorker pid={})\x1b[0m", 3 + n % 4, 480 + n % 20),
            |n| format!("{}[2m[36m(MeshHostWorker pid=489)[0m", n + 70),
        ];
        for prefix in ray {
            let prefixed: String = text
                .split_inclusive('\n')
                .enumerate()
                .map(|(n, l)| match l.trim_end_matches(['\r', '\n']) {
                    "" => format!("{}{}", prefix(n), &l[l.find(['\r', '\n']).unwrap_or(0)..]),
                    _ => format!("{} {l}", prefix(n)),
                })
                .collect();
            let r = serde_json::to_value(OomReport::parse(&prefixed)).unwrap();
            assert_eq!(r, plain, "{name} with {:?} (line 1) on every line", prefix(0));
        }
        // As a JSON string: one line, every entry on it.
        let quoted = serde_json::to_string(&text).unwrap();
        let r = serde_json::to_value(OomReport::parse(&quoted)).unwrap();
        let sizes = |v: &Value| -> Vec<(Value, Value, Value)> {
            v["entries"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| (e["entry"].clone(), e["size_bytes"].clone(), e["agrees"].clone()))
                .collect()
        };
        assert_eq!(sizes(&r), sizes(&plain), "{name} as a JSON string");
        assert_eq!(r["used"], plain["used"], "{name} as a JSON string");
    }
}

/// A Ray worker's log as copied from an issue thread (tests/data/oom/ray_worker.py made it
/// from gpu_peak_buffers.txt in alpa-projects/alpa#759's form: line numbers, colour codes
/// without their escapes, `(MeshHostWorker pid=489)` alone on a blank line) is the same
/// report, line for line.
#[test]
fn a_ray_worker_log_copied_from_an_issue_thread() {
    let copied = serde_json::to_value(report("gpu_ray_worker_copied.txt")).unwrap();
    let plain = serde_json::to_value(report("gpu_peak_buffers.txt")).unwrap();
    assert_eq!(copied["entries"].as_array().map(Vec::len), Some(5));
    assert_eq!(copied, plain);
}

/// An older TPU vmem report whose entries are `XLA label:` and `Allocation type: scoped`
/// alone (no number, no size; tests/data/oom/vmem_scoped_no_sizes.txt, in the form of a
/// 2019 TensorFlow TPU log): listed as sizeless entries, each with the instruction its
/// label names, and no longer "a header but no entries".
#[test]
fn vmem_scoped_entries_without_sizes() {
    let r = report("vmem_scoped_no_sizes.txt");
    assert_eq!(
        (r.kind, r.memory_space.as_deref(), r.used.as_ref()),
        (Kind::Tpu, Some("vmem"), None)
    );
    assert_eq!((r.entries.len(), r.problems.len(), r.missing()), (0, 0, None));
    let got: Vec<_> = r
        .sizeless
        .iter()
        .map(|e| {
            let space = e.memory_space.map(|k| r.memory_spaces[k as usize].as_str());
            (e.number, e.line, space, e.allocation_type.as_deref())
        })
        .collect();
    let vmem = Some("vmem");
    let scoped = Some("scoped");
    assert_eq!(
        got,
        [(1, 5, vmem, scoped), (2, 8, vmem, scoped), (3, 11, vmem, scoped), (4, 14, vmem, scoped)]
    );
    let named: Vec<_> =
        r.sizeless.iter().map(|e| (e.instruction.as_deref(), e.opcode.as_deref())).collect();
    assert_eq!(
        named,
        [
            (None, None),
            (Some("fusion.41"), Some("fusion")),
            (Some("fusion.41"), Some("fusion")),
            (Some("convolution.7"), Some("convolution"))
        ]
    );
    assert_eq!(r.sizeless[0].label.as_deref(), Some("register allocator spill slots"));
    assert!(r.sizeless.iter().all(|e| e.size.is_none() && e.recomputed.is_none()));
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["sizeless"][3]["instruction"], "convolution.7");
    assert_eq!(json["entries"], Value::Array(Vec::new()));
    // A label that is no field of a sizeless entry's, or an allocation type with no label
    // before it, starts nothing.
    let r = OomReport::parse(
        "Largest program allocations in vmem:\n  Allocation type: scoped\n  Shape: f32[8]\n",
    );
    assert_eq!((r.sizeless.len(), r.missing()), (0, Some("no out-of-memory report found")));
}

/// Padding held against the overage, where it is at least a quarter of what the entries
/// list. tpu_2024_new_labels: two bf16[2048,1,2048,128] in (4,128)(2,1) tiles of 4 GiB with
/// 1 GiB of data each, 6 GiB of padding, against 140.54M = 147366871 bytes over.
/// e1000_crlf: (256 MiB - 64 MiB) + (5242880 - 1638400) = 204931072 bytes of padding (74.9%
/// of 273678336), against 2.02G = 2168958484 over. XLA:GPU's report gives no overage, and
/// problems.txt lists no padding.
#[test]
fn padding_against_the_overage() {
    let pair = |name: &str| report(name).padding_against_overage();
    assert_eq!(pair("tpu_2024_new_labels.txt"), Some((6 << 30, 147_366_871)));
    assert_eq!(pair("e1000_crlf.txt"), Some((204_931_072, 2_168_958_484)));
    assert_eq!((pair("gpu_peak_buffers.txt"), pair("problems.txt")), (None, None));
    // A quarter is enough: f32[8,96] in an 8x128 tile is 4096 bytes for 3072 (1024 padding);
    // f32[8,100] pads 896 of 4096, less. Without `Exceeded`, used less capacity (1.00G).
    let one = |shape: &str| {
        let text = format!("Ran out of memory in memory space hbm. Used 2.00G of 1.00G hbm.\n  1. Size: 4.0K\n     Shape: {shape}\n");
        OomReport::parse(&text).padding_against_overage()
    };
    assert_eq!(one("f32[8,96]{1,0:T(8,128)}"), Some((1024, 1 << 30)));
    assert_eq!(one("f32[8,100]{1,0:T(8,128)}"), None);
}

/// What is no report is said, and what is a header with no entries.
#[test]
fn no_report_is_said() {
    assert_eq!(OomReport::parse("hello\n").missing(), Some("no out-of-memory report found"));
    assert_eq!(OomReport::parse("").missing(), Some("no out-of-memory report found"));
    let hidden = "Ran out of memory in memory space hbm. Used 2.00G of 1.00G hbm.\n  >>  1. Size: 1.00G\n  >>     Shape: f32[268435456]{0}\n";
    assert_eq!(
        OomReport::parse(hidden).missing(),
        Some("a header but no entries: are the lines prefixed?")
    );
    // A JSON-escaped header does not carry `\n\nTotal` into its figures.
    let r = OomReport::parse(
        r#""Ran out of memory in memory space hbm. Used 41.74G of 16.00G hbm. Exceeded hbm capacity by 25.74G.\n\nTotal hbm usage >= 41.74G:\n    reserved        528.00M\n""#,
    );
    assert_eq!(r.exceeded.unwrap().text, "25.74G");
    assert_eq!(r.total_usage.unwrap().text, "41.74G");
    assert_eq!(r.usage[0].size.bytes, Some(528 << 20));
}

/// The TPU runtime's own message (tests/data/oom/runtime_reserve.txt, logged by
/// TensorFlow's logger): the size asked for, where, what was free.
#[test]
fn the_runtime_reserve_message() {
    let r = report("runtime_reserve.txt");
    assert_eq!((r.kind, r.missing(), r.entries.len()), (Kind::Runtime, None, 0));
    let x = r.runtime.unwrap();
    assert_eq!(x.action, "reserve");
    assert_eq!(x.memory_space.as_deref(), Some("bottom of memory"));
    let g = |t: &str| u64::try_from(xlayout::hlo::units::printed_bytes(t).unwrap()).unwrap();
    assert_eq!((x.requested.bytes, x.requested.rounded), (Some(g("10.51G")), true));
    assert_eq!(x.free.as_ref().map(|p| p.text.as_str()), Some("8.97G"));
    assert_eq!(x.reserved.as_ref().and_then(|p| p.bytes), Some(0));
    assert_eq!(x.reservable.as_ref().and_then(|p| p.bytes), Some(g("8.97G")));
    // 10.51G reads as 10.51 * 2^30 = 11285026570.24 bytes, 8.97G as 9631464161.28, each
    // truncated to whole bytes.
    assert_eq!((g("10.51G"), g("8.97G")), (11_285_026_570, 9_631_464_161));
    assert_eq!(x.short_by, Some(11_285_026_570 - 9_631_464_161));
    let allocate = OomReport::parse("Error allocating device buffer: Attempting to allocate 2.50G. That was not possible. There are 2.13G free.; (0x0x0_HBM0)\n");
    let a = allocate.runtime.unwrap();
    assert_eq!(
        (a.action.as_str(), a.requested.text.as_str(), a.memory_space.as_deref()),
        ("allocate", "2.50G", Some("0x0x0_HBM0"))
    );
    assert_eq!((a.free.unwrap().text, a.reservable), (String::from("2.13G"), None));
}

/// XLA:CPU's one line when a buffer cannot be allocated (tests/data/oom/cpu_out_of_memory.txt,
/// written by JAX 0.10.2 through cpu_out_of_memory.py beside it): the size asked for,
/// 2^37 f32 elements = 549755813888 bytes, exact; the rest of the paste is not a report.
#[test]
fn xla_cpu_out_of_memory_allocating() {
    let r = report("cpu_out_of_memory.txt");
    assert_eq!((r.kind, r.missing(), r.entries.len(), r.problems.len()), (Kind::Cpu, None, 0, 0));
    let a = r.allocating.unwrap();
    assert_eq!((a.text.as_str(), a.bytes, a.rounded), ("549755813888", Some(1 << 39), false));
    // XLA:GPU's sentence is its own: the two are told apart.
    let gpu = OomReport::parse("Out of memory while trying to allocate 2110783616 bytes.\n");
    assert_eq!((gpu.kind, gpu.allocating.unwrap().bytes), (Kind::Gpu, Some(2_110_783_616)));
}

/// Sizes in the `E` unit xlayout itself prints (`oom_bytes` of 2^61 is `2.00E`), and the
/// one-dimensional TPU tilings of scalars and vectors.
#[test]
fn exa_sizes_and_vector_tilings() {
    // f32[2^59]: 2^61 bytes.
    let r = OomReport::parse("1. Size: 2.00E\n   Shape: f32[576460752303423488]{0}\n");
    let x = r.entries[0].recomputed.as_ref().unwrap();
    assert_eq!((x.sizes.array_bytes, x.agrees.size), (1 << 61, Some(true)));
    // 16.00E: what XLA prints from 15.995E up to 2^64 - 1 (oom_bytes(u64::MAX)), though the
    // figure is 2^64. It reads as 2^64 - 1; it was "not a size", its entry left out.
    let text = "Ran out of memory in memory space hbm. Used 16.00E of 15.75G hbm. Exceeded hbm \
                capacity by 16.00E.\n\n  1. Size: 16.00E\n     Shape: u8[9223372036854775807]{0}\n";
    let r = OomReport::parse(text);
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    let used = r.used.as_ref().unwrap();
    assert_eq!(
        (used.bytes, used.range()),
        (Some(u64::MAX), Some((u64::MAX - (1 << 60) / 200 + 1, u64::MAX)))
    );
    assert_eq!(r.entries[0].size.as_ref().unwrap().bytes, Some(u64::MAX));
    // The shape's 2^63 - 1 bytes print as 8.00E: not what was printed.
    let x = r.entries[0].recomputed.as_ref().unwrap();
    assert_eq!((x.sizes.array_bytes, x.agrees.size), (i64::MAX as u64, Some(false)));
    assert_eq!(Printed::new("17.00E").bytes, None);
    // A TPU f32[] takes a 128-element tile (512B); s32[16] too; bf16[1000] a 1024 one.
    let r = OomReport::parse("1. Size: 512B\n   Shape: f32[]\n2. Size: 512B\n   Shape: s32[16]{0}\n3. Size: 1.0K\n   Shape: f32[100]{0}\n4. Size: 4.0K\n   Shape: f32[100]{0}\n");
    let tilings: Vec<(Option<&str>, bool)> = r
        .entries
        .iter()
        .map(|e| {
            let x = e.recomputed.as_ref().unwrap();
            (x.inferred_tiling.as_deref(), x.agrees.all())
        })
        .collect();
    // f32[100]: T(128) gives 512 bytes, T(256) 1024, T(1024) 4096.
    assert_eq!(
        tilings,
        [
            (Some("(128)"), true),
            (Some("(128)"), true),
            (Some("(256)"), true),
            (Some("(1024)"), true)
        ]
    );
}
