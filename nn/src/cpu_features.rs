//! What the CPU computes natively, detected at run time: the precision and kernels chosen follow it.

/// [`native_bf16`]'s name for AVX512-BF16 without AMX (AMD Zen 4 and later, Intel Cooper Lake).
pub const AVX512_BF16: &str = "AVX512-BF16";

/// The CPU's native bf16 instructions, detected at run time: AMX-BF16 (CPUID leaf 7, EDX bit 22, which stable
/// Rust cannot name yet) beside AVX512-BF16, or BF16 on ARM; None where bf16 would be emulated.
pub fn native_bf16() -> Option<&'static str> {
    #[cfg(target_arch = "x86_64")]
    {
        if !std::arch::is_x86_feature_detected!("avx512bf16") {
            return None;
        }
        let leaf7 = std::arch::x86_64::__cpuid_count(7, 0);
        Some(if leaf7.edx & (1 << 22) != 0 { "AMX-BF16" } else { AVX512_BF16 })
    }
    #[cfg(target_arch = "aarch64")]
    {
        std::arch::is_aarch64_feature_detected!("bf16").then_some("BF16")
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        None
    }
}
