//! The runtime without a GPU: no driver is a typed error (never a panic), and the pieces that
//! need no device (launch configurations) behave.

use coil_cuda::{CudaError, GpuCaps, GpuDevice, LaunchConfig, driver_present};

#[test]
fn a_missing_driver_is_an_error_value() {
    if driver_present() {
        // A GPU machine: opening may succeed or find no device; it must not panic.
        match GpuDevice::open(0) {
            Ok(dev) => assert!(dev.caps().sm_count > 0),
            Err(e) => assert!(!e.to_string().is_empty()),
        }
        return;
    }
    let err = GpuDevice::open(0).expect_err("no driver here");
    assert!(matches!(err, CudaError::NoDriver), "{err:?}");
    assert!(err.to_string().contains("libcuda.so"), "{err}");
    assert!(matches!(GpuDevice::count(), Err(CudaError::NoDriver)));
}

#[test]
fn a_device_ordinal_past_the_count_is_an_error_value() {
    match GpuDevice::open(1_000_000) {
        Err(CudaError::NoDriver | CudaError::NoDevice { .. } | CudaError::DriverUnusable(_)) => {}
        other => panic!("expected an error, got {other:?}"),
    }
}

#[test]
fn grid_stride_launches_fill_the_device_without_overshooting() {
    let caps = GpuCaps::h200();
    // 132 SMs x 2048 threads / 256 = 1056 resident blocks.
    let big = LaunchConfig::grid_stride(1 << 30, 256, &caps);
    assert_eq!(big.grid, (1056, 1, 1));
    assert_eq!(big.block, (256, 1, 1));
    let small = LaunchConfig::grid_stride(1000, 256, &caps);
    assert_eq!(small.grid.0, 4);
    assert_eq!(LaunchConfig::grid_stride(0, 256, &caps).grid.0, 1);
    assert_eq!(LaunchConfig::per_row(8192, 1024).grid.0, 8192);
}

#[test]
fn runtime_handles_can_be_shared_across_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<GpuDevice>();
    shareable::<coil_cuda::DeviceBuffer>();
    shareable::<coil_cuda::LoadedKernel>();
    shareable::<coil_cuda::ptx::PtxKernel>();
}
