//! `Runtime::copy_buffer`'s default, through the host: a stretch of one buffer from an offset
//! to the start of another; a stretch past the source's end is an error, not a short copy.

use coil_kernel::{InterpBackend, Runtime};

#[test]
fn a_stretch_from_an_offset_lands_at_the_destinations_start() {
    let rt = InterpBackend::new();
    let src = rt.alloc(16).expect("allocates");
    let dst = rt.alloc(8).expect("allocates");
    let bytes: Vec<u8> = (0..16).collect();
    rt.write(src, &bytes).expect("writes");
    rt.write(dst, &[0xaa; 8]).expect("writes");
    rt.copy_buffer(src, 5, dst, 6).expect("copies");
    let mut got = [0u8; 8];
    rt.read(dst, &mut got).expect("reads");
    assert_eq!(got, [5, 6, 7, 8, 9, 10, 0xaa, 0xaa]);
}

#[test]
fn a_stretch_past_the_sources_end_is_an_error() {
    let rt = InterpBackend::new();
    let src = rt.alloc(8).expect("allocates");
    let dst = rt.alloc(8).expect("allocates");
    assert!(rt.copy_buffer(src, 4, dst, 8).is_err());
}
