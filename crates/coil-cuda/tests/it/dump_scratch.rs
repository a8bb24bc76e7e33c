use coil_codegen::{BuildOptions, build_kernel};
use coil_lower::{BufferId, LowerConfig};
use coil_models::Size;

#[test]
#[ignore]
fn dump_zoo() {
    for m in coil_models::MODELS {
        for size in [Size::Article, Size::Large] {
            let Ok(g) = m.graph(size) else { continue };
            let (g, _) = coil_passes::run_passes(&g, &coil_passes::PassConfig::default()).unwrap();
            let l = coil_lower::lower(&g, &LowerConfig::gpu()).unwrap();
            let members: Vec<BufferId> = l
                .buffers()
                .iter()
                .filter(|b| b.computed().is_some())
                .map(|b| b.id)
                .collect();
            let outputs: Vec<_> = l.outputs().iter().map(|o| o.buffer).collect();
            let needed = |b: BufferId| outputs.contains(&coil_lower::BufRef::Buffer(b));
            println!("===== {} {:?}", m.name, size);
            match build_kernel(&l, &members, &needed, "fused", &BuildOptions::default()) {
                Ok(k) => println!("{k}"),
                Err(e) => println!("fused: {e}"),
            }
            for (i, b) in members.iter().enumerate() {
                match build_kernel(
                    &l,
                    &[*b],
                    &|_| true,
                    &format!("k{i}"),
                    &BuildOptions::default(),
                ) {
                    Ok(k) => println!("{k}"),
                    Err(e) => println!("per-buffer {b}: {e}"),
                }
            }
        }
    }
}

#[test]
#[ignore]
fn dump_ptx() {
    let name = std::env::var("M").unwrap_or("seed_model".into());
    let size = if std::env::var("L").is_ok() {
        Size::Large
    } else {
        Size::Article
    };
    let g = coil_models::find(&name).unwrap().graph(size).unwrap();
    let (g, _) = coil_passes::run_passes(&g, &coil_passes::PassConfig::default()).unwrap();
    let l = coil_lower::lower(&g, &LowerConfig::gpu()).unwrap();
    let members: Vec<BufferId> = l
        .buffers()
        .iter()
        .filter(|b| b.computed().is_some())
        .map(|b| b.id)
        .collect();
    let outputs: Vec<_> = l.outputs().iter().map(|o| o.buffer).collect();
    let needed = |b: BufferId| outputs.contains(&coil_lower::BufRef::Buffer(b));
    let k = build_kernel(&l, &members, &needed, "fused", &BuildOptions::default()).unwrap();
    println!("{k}");
    let r = coil_cuda::render::render_kernel(
        &k,
        &coil_cuda::GpuCaps::h200(),
        coil_cuda::PtxTarget::SM90,
    )
    .unwrap();
    println!("{:?} block {}", r.strategy, r.block);
    for l in &r.launches {
        println!("{:?}\n{}", l.config, l.kernel);
    }
}

#[test]
#[ignore]
fn dump_opcodes() {
    let mut ops = std::collections::BTreeSet::new();
    for size in [Size::Tiny, Size::Article, Size::Large] {
        for (_, ks) in crate::zoo::zoo_kernels(size) {
            for k in &ks {
                let r = coil_cuda::render::render_kernel(
                    k,
                    &coil_cuda::GpuCaps::h200(),
                    coil_cuda::PtxTarget::SM90,
                )
                .unwrap();
                for l in r.launches {
                    for line in l.kernel.to_string().lines() {
                        let t = line.trim();
                        if t.starts_with('.')
                            || t.starts_with('$')
                            || t.starts_with("//")
                            || t.is_empty()
                            || t == "{"
                            || t == "}"
                            || t == ")"
                        {
                            continue;
                        }
                        let t = if t.starts_with('@') {
                            t.split_once(' ').unwrap().1
                        } else {
                            t
                        };
                        ops.insert(
                            t.split(|c: char| c == ' ' || c == ';')
                                .next()
                                .unwrap()
                                .to_string(),
                        );
                    }
                }
            }
        }
    }
    for f in coil_cuda::math::MathFn::ALL {
        let k = coil_cuda::kernels::elementwise("e", f, false, coil_cuda::PtxTarget::SM90).unwrap();
        for line in k.to_string().lines() {
            let t = line.trim();
            if t.starts_with('.')
                || t.starts_with('$')
                || t.starts_with("//")
                || t.is_empty()
                || t == "{"
                || t == "}"
                || t == ")"
            {
                continue;
            }
            let t = if t.starts_with('@') {
                t.split_once(' ').unwrap().1
            } else {
                t
            };
            ops.insert(
                t.split(|c: char| c == ' ' || c == ';')
                    .next()
                    .unwrap()
                    .to_string(),
            );
        }
    }
    println!("{}", ops.into_iter().collect::<Vec<_>>().join("\n"));
}

#[test]
#[ignore]
fn dump_tiny_program() {
    let name = std::env::var("M").unwrap_or("transformer_block".into());
    let l = crate::zoo::lowered(&name, Size::Tiny).unwrap();
    let p = crate::driver::program(&l, false, 132);
    for k in &p.kernels {
        let (s, b) = coil_cuda::render::plan_kernel(k, &coil_cuda::GpuCaps::h200());
        println!("{k}{s:?} block {b}\n");
    }
}

#[test]
#[ignore]
fn dump_pre_fusion() {
    let name = std::env::var("M").unwrap_or("transformer_block".into());
    let l = crate::zoo::lowered(&name, Size::Tiny).unwrap();
    println!("{}", l.ir_pre_fusion());
}
