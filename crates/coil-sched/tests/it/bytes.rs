//! Memory traffic: bytes each kernel moves (Inductor's `num_bytes_accessed`), against eager.

use coil_graph::{Data, Tensor};
use coil_lower::{BufRef, LowerConfig};
use coil_sched::{CppLoops, NoFusion, SchedConfig};

use crate::common::{inductor_cpu, lower, schedule, zoo};

const MIB: usize = 1 << 20;

#[test]
fn seed_model_moves_8_mib_fused_against_80_mib_eager() {
    let g = coil_models::find("seed_model")
        .unwrap()
        .graph(coil_models::Size::Article)
        .unwrap();
    let l = lower(&zoo("seed_model"), &LowerConfig::cpu());
    let fused = inductor_cpu(&l);
    // x read once, the output written once, bias/gamma/beta (4 KiB each); buf0 stays inside.
    assert_eq!(fused.bytes_accessed(), 8 * MIB + 12 * 1024);
    let k = &fused.kernels()[0];
    assert_eq!(k.writes, [BufRef::Buffer(l.buffers()[1].id)]);
    assert_eq!(k.local, [BufRef::Buffer(l.buffers()[0].id)]);
    // Unfused: x is read twice and buf0 goes through memory.
    let unfused = schedule(&l, SchedConfig::cpu(), &CppLoops, &NoFusion);
    assert_eq!(unfused.bytes_accessed(), 12 * MIB + 24 * 1024);
    // Eager: every op reads and writes its tensors.
    let inputs: Vec<Tensor> = g
        .inputs()
        .iter()
        .map(|&i| {
            let m = g.node(i).meta();
            Tensor::new(Data::F32(vec![0.5; m.numel()]), m.sizes.clone()).unwrap()
        })
        .collect();
    let eager = coil_eager::run(&g, &inputs).unwrap();
    let eager_bytes = eager.stats.bytes_read() + eager.stats.bytes_written();
    assert!(
        (76 * MIB..=84 * MIB).contains(&eager_bytes),
        "eager moves {} MiB",
        eager_bytes / MIB
    );
    assert!(eager_bytes > 9 * fused.bytes_accessed());
}

#[test]
fn siblings_read_x_once() {
    let l = lower(&zoo("siblings"), &LowerConfig::cpu());
    let s = inductor_cpu(&l);
    let k = &s.kernels()[0];
    assert_eq!(k.reads, [l.find("x").unwrap()]);
    assert_eq!(k.bytes_read, 4 * MIB);
    assert_eq!(k.bytes_written, 8 * 1024);
}

#[test]
fn extern_calls_count_their_operands_and_result() {
    let l = lower(&zoo("mm_epilogue"), &LowerConfig::cpu());
    let s = inductor_cpu(&l);
    let mm = &s.kernels()[1];
    assert_eq!(mm.name, "extern_kernels.mm");
    // [512, 512] f32 operands and result: 1 MiB each.
    assert_eq!((mm.bytes_read, mm.bytes_written), (2 * MIB, MIB));
    assert_eq!(s.bytes_accessed(), 7 * MIB);
}
