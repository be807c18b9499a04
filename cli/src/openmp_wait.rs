//! OpenMP's idle threads go to sleep soon instead of spinning on a core. libtorch runs its CPU passes on libgomp,
//! whose worker threads poll 300,000 times after each parallel region before they sleep (milliseconds): they take
//! the cores from the search's own threads and, once the move is sent, from the other engine of a match. libgomp
//! reads its wait settings once, in its constructor, and no call changes them later; so, unless the user chose a
//! setting, the binary restarts itself with one in its environment before any library's constructor runs. Linux
//! (glibc) only: libtorch runs on libgomp there, and `/proc/self/exe` names the running binary.

use std::ffi::{c_char, c_int, CStr};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// The settings of libgomp's wait a user may choose; with either one set, Kairos changes nothing.
const USER_SETTINGS: [&str; 2] = ["OMP_WAIT_POLICY", "GOMP_SPINCOUNT"];

/// The setting Kairos restarts with: 1,000 polls (about 20 µs on a Zen 4 EPYC) bridge the gaps between one pass's
/// operations, then the thread sleeps. An attention body searched within 7–15 % of libgomp's own spin on an idle
/// 2-core machine, where sleeping at once (`OMP_WAIT_POLICY=PASSIVE`) lost 31–54 %, and beside another program
/// several times as fast as with libgomp's spin (BENCHMARKS.md, "OpenMP's idle threads").
const WAIT_SETTING: (&str, &CStr) = ("GOMP_SPINCOUNT", c"GOMP_SPINCOUNT=1000");

/// Marks the process restarted here, so that it neither restarts again nor hands the setting on.
const RESTARTED_MARK: (&str, &CStr) = ("KAIROS_OPENMP_WAIT_SET", c"KAIROS_OPENMP_WAIT_SET=1");

/// The error of a restart that failed (0: none tried or none failed), for `main` to report.
static RESTART_ERROR: AtomicI32 = AtomicI32::new(0);

/// Whether the binary was started by running the dynamic loader itself (`ld.so kairos …`), where
/// `/proc/self/exe` names the loader and no restart is tried, for `main` to report.
static STARTED_BY_THE_LOADER: AtomicBool = AtomicBool::new(false);

/// Run by glibc's dynamic loader before the constructor of any shared library (the ELF preinit array, which only
/// an executable has), so that a restart costs one loading of libtorch's libraries, not their constructors too
/// (about 0.4 s on a 2-core AMD EPYC).
#[used]
#[link_section = ".preinit_array"]
static RESTART_BEFORE_CONSTRUCTORS: extern "C" fn(c_int, *const *const c_char, *const *const c_char) =
    restart_before_constructors;

/// Replaces the process with the same binary, the same arguments and open files, and the environment with
/// [`WAIT_SETTING`] and [`RESTARTED_MARK`] added, unless it holds the mark or one of [`USER_SETTINGS`] or the
/// binary was started through the loader. Nothing is initialised yet (no allocator, no `std`): it only reads the
/// vectors glibc passes and calls the kernel.
extern "C" fn restart_before_constructors(_argc: c_int, argv: *const *const c_char, envp: *const *const c_char) {
    if argv.is_null() || envp.is_null() {
        return;
    }
    // SAFETY: glibc passes the process's own argument and environment vectors, arrays of NUL-terminated strings
    // that end with a null pointer; the new vector is a private mapping of exactly the length written into it.
    unsafe {
        let mut count = 0;
        while let Some(entry) = envp.add(count).read().as_ref() {
            let entry = CStr::from_ptr(entry).to_bytes();
            let mut names = USER_SETTINGS.iter().chain([&RESTARTED_MARK.0]);
            if names.any(|name| entry.starts_with(name.as_bytes()) && entry.get(name.len()) == Some(&b'=')) {
                return;
            }
            count += 1;
        }
        // The kernel loaded no interpreter for a program the loader was given as an argument.
        if libc::getauxval(libc::AT_BASE) == 0 {
            STARTED_BY_THE_LOADER.store(true, Ordering::Relaxed);
            return;
        }
        let length = (count + 3) * size_of::<*const c_char>();
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
        let memory = libc::mmap(std::ptr::null_mut(), length, libc::PROT_READ | libc::PROT_WRITE, flags, -1, 0);
        if memory == libc::MAP_FAILED {
            RESTART_ERROR.store(last_error(), Ordering::Relaxed);
            return;
        }
        let environment = memory.cast::<*const c_char>();
        std::ptr::copy_nonoverlapping(envp, environment, count);
        environment.add(count).write(WAIT_SETTING.1.as_ptr());
        environment.add(count + 1).write(RESTARTED_MARK.1.as_ptr());
        environment.add(count + 2).write(std::ptr::null());
        libc::execve(c"/proc/self/exe".as_ptr(), argv, environment);
        RESTART_ERROR.store(last_error(), Ordering::Relaxed);
        libc::munmap(memory, length);
    }
}

/// The error number of the last failed call (`errno`), without allocating.
fn last_error() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EINVAL)
}

/// First in `main`: in the restarted process, takes the setting and the mark out of the environment (libgomp has
/// read them), so that the processes Kairos starts (a match's engines, tm-proxy's engine) get the user's own; where
/// the restart failed, says so.
pub fn hand_on_the_users_environment() {
    if std::env::var_os(RESTARTED_MARK.0).is_some() {
        std::env::remove_var(RESTARTED_MARK.0);
        std::env::remove_var(WAIT_SETTING.0);
        return;
    }
    let reason = match RESTART_ERROR.load(Ordering::Relaxed) {
        0 if STARTED_BY_THE_LOADER.load(Ordering::Relaxed) => "started through the dynamic loader".to_string(),
        0 => return,
        error => std::io::Error::from_raw_os_error(error).to_string(),
    };
    eprintln!(
        "warning: not restarted with {} ({reason}): libtorch's OpenMP threads spin on a core after each pass; set it \
         in the environment",
        WAIT_SETTING.1.to_string_lossy()
    );
}
