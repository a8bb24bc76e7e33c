//! Work shared out over every core: `f` on each index, in runs of consecutive indices, one
//! thread per run (rendering a compile's kernels, and their autotuning candidates).

/// `f(i)` for `i` in `0..n`, in order, computed on every core at once; `None` for the indices
/// of a run whose thread panicked.
pub(crate) fn map_on_every_core<R: Send>(
    n: usize,
    f: impl Fn(usize) -> R + Sync,
) -> Vec<Option<R>> {
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let run = n.div_ceil(threads.max(1)).max(1);
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .step_by(run)
            .map(|start| {
                let end = (start + run).min(n);
                (
                    end - start,
                    s.spawn(move || (start..end).map(f).collect::<Vec<_>>()),
                )
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|(len, h)| match h.join() {
                Ok(values) => values.into_iter().map(Some).collect(),
                Err(_) => (0..len).map(|_| None).collect::<Vec<_>>(),
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::map_on_every_core;

    #[test]
    fn results_come_in_order_and_a_panicking_run_gives_none() {
        let squares = map_on_every_core(37, |i| i * i);
        assert_eq!(squares, (0..37).map(|i| Some(i * i)).collect::<Vec<_>>());
        assert!(map_on_every_core(0, |i| i).is_empty());
        let some = map_on_every_core(5, |i| {
            if i == 3 {
                panic!("a run that fails")
            } else {
                i
            }
        });
        assert_eq!(some.len(), 5);
        assert_eq!(some[3], None);
        assert!(
            some.iter()
                .enumerate()
                .all(|(i, x)| x.is_none() || *x == Some(i))
        );
    }
}
